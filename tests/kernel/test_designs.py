# SPDX-License-Identifier: GPL-2.0
"""klab.designs: every directory of a patches directory that holds *.patch
is a design, except debug/ (test aids); a cover letter is in no series;
mainline comes first, unknown names are refused, and designs build in order
of the headers they touch. The repo's own kernel/patches/ passes the same
rules.
Run: python3 tests/kernel/test_designs.py (make check: Meson test kernel_designs)."""
import os
import tempfile
import unittest

import kernelsrc
import klabtest  # noqa: F401  (the klab package on the path)
from kernelsrc import FILES, edit, patch_text, write_series
from klab import designs


class Discovery(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        pd = self.pd = self.tmp.name
        header = patch_text({"include/linux/shrinker.h": edit(
            FILES["include/linux/shrinker.h"], 1, "x")})
        dotc = patch_text({"mm/shrinker.c": edit(FILES["mm/shrinker.c"], 1, "x")})
        write_series(os.path.join(pd, "zz-header"), [header, dotc], cover=True)
        write_series(os.path.join(pd, "aa-dotc"), [dotc])
        write_series(os.path.join(pd, "debug"), [dotc])      # test aids, not a design
        os.makedirs(os.path.join(pd, "empty"))
        with open(os.path.join(pd, "README.md"), "w") as f:
            f.write("not a design\n")

    def tearDown(self):
        self.tmp.cleanup()

    def test_in_repo(self):
        found = designs.in_repo(self.pd)
        self.assertEqual([d.name for d in found], ["mainline", "aa-dotc", "zz-header"])
        self.assertEqual(found[0], designs.MAINLINE)
        self.assertEqual(len(found[2].patches), 2)       # no cover letter
        self.assertEqual(found[2].headers_touched(), ["include/linux/shrinker.h"])

    def test_select(self):
        found = designs.in_repo(self.pd)
        self.assertEqual([d.name for d in designs.select(["zz-header", "mainline"], found)],
                         ["mainline", "zz-header"])
        self.assertEqual(designs.select([], found), found)
        with self.assertRaises(SystemExit):
            designs.select(["debug"], found)

    def test_build_order_puts_header_changes_last(self):
        found = designs.in_repo(self.pd)
        self.assertEqual([d.name for d in designs.build_order(list(reversed(found)))],
                         ["mainline", "aa-dotc", "zz-header"])

    def test_series_hash_follows_the_bytes(self):
        a = designs.in_repo(self.pd)[1]
        h = a.series_hash()
        with open(a.patches[0], "a") as f:
            f.write("\n")
        self.assertNotEqual(designs.from_dir("aa-dotc", a.dir).series_hash(), h)

    def test_directory_without_a_diff_is_refused(self):
        d = os.path.join(self.pd, "cover-only")
        os.makedirs(d)
        with open(os.path.join(d, "0000-cover-letter.patch"), "w") as f:
            f.write(kernelsrc.COVER)
        with self.assertRaisesRegex(RuntimeError, "no patches with a diff"):
            designs.from_dir("cover-only", d)

    def test_the_repos_designs(self):
        found = designs.in_repo()
        self.assertEqual(found[0].name, "mainline")
        self.assertNotIn("debug", [d.name for d in found])
        for d in found[1:]:
            self.assertTrue(d.patches, d.name)
            for p in d.patches:
                self.assertTrue(designs.has_diff(p), p)


if __name__ == "__main__":
    unittest.main()
