# SPDX-License-Identifier: GPL-2.0
"""klab thpfail (commands/thpfail.py): per design its failing kernel (the
series and its unit-fail debug patch) and its control (and unit-lost on
top); a boot's TAP lines and kcheck_thpfail's figures are read from its
output; the verdict fails unless the failing kernel passes silently with
failures injected and the control strands THPs.
Run: python3 tests/kernel/test_thpfail.py (make check: Meson test kernel_thpfail)."""
import os
import tempfile
import unittest

import klabtest  # noqa: F401  (the klab package on the path)
from kernelsrc import FILES, edit, patch_text, write_series
from klab import boot
from klab.commands import thpfail


def result(thpfail_tap, failing, after, splat=False):
    out = "TAP version 13\n1..2\n%s 1 kcheck_thpfail\nok 2 kcheck_thp\n" % thpfail_tap
    hits, faulted, queued, count, rounds, split, left = failing
    err = ("[klab 3.0] thpfail: unit allocations failing (%d failed, -1: not counted): "
           "%d of 16 THP faults got a THP, %d queued (count %d in the cgroup); "
           "memory.reclaim x %d split %d, left %d\n" % failing)
    err += ("[klab 9.0] thpfail: then without failures: %d of 16 THPs queued (count %d); "
            "memory.reclaim x %d split %d, left %d\n" % after)
    dmesg = "[ 3.1] WARNING: CPU: 0 PID: 70 at mm/shrinker.c:380 set_shrinker_bit\n" \
        if splat else ""
    return boot.BootResult(status=0, stdout=out, console=err, dmesg=dmesg)


GOOD = result("ok", (64, 0, 0, 0, 0, 0, 0), (16, 16, 1, 16, 0))
LOST = result("not ok", (64, 16, 16, 16, 16, 0, 16), (16, 16, 16, 0, 16), splat=True)


class Kernels(unittest.TestCase):
    def test_each_design_fails_and_its_control_loses(self):
        with tempfile.TemporaryDirectory() as pd:
            dotc = patch_text({"mm/shrinker.c": edit(FILES["mm/shrinker.c"], 1, "x")})
            for d in ("array-ondemand", "seed-xarray"):
                write_series(os.path.join(pd, d), [dotc])
                with open(os.path.join(pd, d, "base"), "w") as f:
                    f.write("7.3\n")
            write_series(os.path.join(pd, "debug"), [dotc])
            (f, c), = thpfail.kernels(["seed-xarray"], pd)
            self.assertEqual((f.name, c.name), ("seed-xarray+fail", "seed-xarray+fail+lost"))
            self.assertEqual([os.path.basename(p) for p in c.patches],
                             ["0001-change.patch", thpfail.DESIGNS["seed-xarray"],
                              thpfail.LOST])
            self.assertEqual(len(thpfail.kernels(None, pd)), 2)
            with self.assertRaises(SystemExit):
                thpfail.kernels(["xarray"], pd)


class Verdict(unittest.TestCase):
    def test_parse(self):
        b = thpfail.parse("k", True, LOST)
        self.assertEqual(b.tap, {"kcheck_thpfail": "not ok", "kcheck_thp": "ok"})
        self.assertEqual(b.failing, [64, 16, 16, 16, 16, 0, 16])
        self.assertEqual(b.after, [16, 16, 16, 0, 16])
        self.assertEqual((b.splats, thpfail.stranded(b)), (1, 32))

    def test_the_design_passes_and_its_control_strands(self):
        boots = [thpfail.parse("d+fail", False, GOOD), thpfail.parse("d+fail+lost", True, LOST)]
        self.assertEqual(thpfail.verdict(boots), [])
        self.assertIn("d+fail+lost", thpfail.table(boots))

    def test_what_fails(self):
        nothing = result("ok", (0, 0, 0, 0, 0, 0, 0), (16, 16, 1, 16, 0))
        for b in (thpfail.parse("d+fail", False, LOST),              # stranded
                  thpfail.parse("d+fail", False, result("ok", (64, 0, 0, 0, 0, 0, 0),
                                                        (16, 16, 1, 16, 0), splat=True)),
                  thpfail.parse("d+fail", False, nothing),           # nothing injected
                  thpfail.parse("d+fail+lost", True, GOOD),          # control lost nothing
                  thpfail.parse("d+fail", False, boot.BootResult(status=0))):
            self.assertTrue(thpfail.verdict([b]), b)


if __name__ == "__main__":
    unittest.main()
