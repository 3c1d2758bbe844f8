# SPDX-License-Identifier: GPL-2.0
"""klab idreuse (commands/idreuse.py): its two kernels are the base's
mainline and fix-id-reuse, each with the stale-bit delay; a boot's TAP
line, objects left per round and the walks that slept on a stale bit are
read from its output; the verdict fails unless mainline strands objects
and the fix does not, and whenever no walk slept (the window never opened).
Run: python3 tests/kernel/test_idreuse.py (make check: Meson test kernel_idreuse)."""
import os
import tempfile
import unittest

import klabtest  # noqa: F401  (the klab package on the path)
from kernelsrc import FILES, edit, patch_text, write_series
from klab import boot
from klab.commands import idreuse

SLEPT = "[ 3.1] shrinker: sh[70] stale bit 21 node 0 memcg 42, waiting 1500 ms\n"


def result(tap, left, slept):
    out = "TAP version 13\n1..1\n%s 1 kcheck_reuse\n" % tap
    err = "".join("[klab 1.0] reuse: round %d: %d objects left after reclaim\n" % (i, n)
                  for i, n in enumerate(left))
    return boot.BootResult(status=0 if tap == "ok" else 1, stdout=out, console=err,
                           dmesg=SLEPT * slept)


class Kernels(unittest.TestCase):
    def test_the_base_s_mainline_and_fix_each_with_the_delay(self):
        with tempfile.TemporaryDirectory() as pd:
            dotc = patch_text({"mm/shrinker.c": edit(FILES["mm/shrinker.c"], 1, "x")})
            write_series(os.path.join(pd, "fix-id-reuse"), [dotc])
            with open(os.path.join(pd, "fix-id-reuse", "base"), "w") as f:
                f.write("7.3\n")
            write_series(os.path.join(pd, "debug"), [dotc])
            o, c = idreuse.kernels(pd)
            self.assertEqual([os.path.basename(p) for p in o.patches],
                             [idreuse.MAINLINE_DELAY])
            self.assertEqual([os.path.basename(p) for p in c.patches],
                             ["0001-change.patch", idreuse.FIX_DELAY])
            with open(os.path.join(pd, "fix-id-reuse", "base"), "w") as f:
                f.write("6.12\n")
            with self.assertRaises(SystemExit):
                idreuse.kernels(pd)


class Verdict(unittest.TestCase):
    def boots(self, open_, closed):
        return [idreuse.parse("mainline+delay", open_), idreuse.parse("fix+delay", closed)]

    def test_parse(self):
        b = idreuse.parse("k", result("not ok", [352, 0, 352], 3))
        self.assertEqual((b.tap, b.left, b.slept), ("not ok", [352, 0, 352], 3))

    def test_open_on_mainline_closed_with_the_fix(self):
        good = self.boots(result("not ok", [352] * 3, 3), result("ok", [0] * 3, 3))
        self.assertEqual(idreuse.verdict(good, "mainline+delay", "fix+delay"), [])
        self.assertIn("2/3", idreuse.table(self.boots(result("not ok", [1, 0, 1], 3),
                                                      result("ok", [0] * 3, 3)), 3))

    def test_what_fails(self):
        for open_, closed in ((result("ok", [0] * 3, 3), result("ok", [0] * 3, 3)),
                              (result("not ok", [9] * 3, 3), result("not ok", [9] * 3, 3)),
                              (result("not ok", [9] * 3, 0), result("ok", [0] * 3, 3)),
                              (result("not ok", [9] * 3, 3), result("ok", [0] * 3, 0))):
            self.assertTrue(idreuse.verdict(self.boots(open_, closed), "mainline+delay",
                                            "fix+delay"))


if __name__ == "__main__":
    unittest.main()
