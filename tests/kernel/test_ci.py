# SPDX-License-Identifier: GPL-2.0
"""klab.ci, the CI plan of klab check: a design without a row is booted
when its series touches no header under include/ and not built when it
does; a row names its stages; --all runs everything; mainline joins the
boot and selftests stages as their baseline; a malformed row is an error;
kernel/ci.tsv parses and names only designs that exist.
Run: python3 tests/kernel/test_ci.py (make check: Meson test kernel_ci)."""
import os
import tempfile
import unittest

import klabtest  # noqa: F401  (the klab package on the path)
from kernelsrc import FILES, edit, patch_text, write_series
from klab import bases, ci, designs


class Plan(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        pd = os.path.join(self.tmp.name, "patches")
        write_series(os.path.join(pd, "dotc"), [patch_text(
            {"mm/shrinker.c": edit(FILES["mm/shrinker.c"], 1, "x")})])
        write_series(os.path.join(pd, "header"), [patch_text(
            {"include/linux/shrinker.h": edit(FILES["include/linux/shrinker.h"], 1, "x")})])
        write_series(os.path.join(pd, "listed"), [patch_text(
            {"include/linux/shrinker.h": edit(FILES["include/linux/shrinker.h"], 2, "y")})])
        self.designs = designs.in_repo(pd)
        self.file = os.path.join(self.tmp.name, "ci.tsv")
        self.write("# comment\nlisted\tboot torture\tthe reason\n")

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, text):
        with open(self.file, "w") as f:
            f.write(text)

    def test_defaults_and_rows(self):
        p = ci.plan(self.designs, path=self.file)
        self.assertEqual(p.stages["boot"], ["mainline", "dotc", "listed"])
        self.assertEqual(p.stages["work"], [])
        self.assertEqual(p.stages["selftests"], [])
        self.assertEqual(p.stages["torture"], ["listed"])
        self.assertIn("include/linux/shrinker.h", p.why["header"])
        self.assertIn("the reason", p.why["listed"])
        self.assertIn("CI plan", ci.words(p))

    def test_all(self):
        p = ci.plan(self.designs, everything=True, path=self.file)
        for s in ci.STAGES:
            self.assertEqual(p.stages[s], [d.name for d in self.designs])

    def test_mainline_is_the_baseline(self):
        self.write("mainline\t\tnothing\ndotc\tselftests\tx\n")
        p = ci.plan(self.designs, path=self.file)
        self.assertEqual(p.stages["selftests"], ["mainline", "dotc"])
        self.assertEqual(p.stages["boot"], [])     # no row boots: no baseline needed

    def test_idreuse_is_a_stage_without_a_baseline(self):
        self.write("dotc\tidreuse\tthe window's reproducer\n")
        p = ci.plan(self.designs, path=self.file)
        self.assertEqual(p.stages["idreuse"], ["dotc"])
        self.assertNotIn("mainline", p.stages["idreuse"])

    def test_uml_has_mainline_as_baseline(self):
        self.write("dotc\tuml idreuse-uml\tx\n")
        p = ci.plan(self.designs, path=self.file)
        self.assertEqual(p.stages["uml"], ["mainline", "dotc"])
        self.assertEqual(p.stages["idreuse-uml"], ["dotc"])

    def test_malformed(self):
        for text in ("dotc\tboot\n", "dotc\tfly\twhy\n", "dotc\tboot\tx\ndotc\tboot\ty\n"):
            self.write(text)
            with self.assertRaises(ValueError, msg=text):
                ci.read(self.file)

    def test_the_repos_plan(self):
        for base in bases.BASES.values():
            rows = ci.read(ci.plan_file(base))
            names = {d.name for d in designs.in_repo(base=base.name, history=True)}
            for name in rows:
                if name != ci.ANY:
                    self.assertIn(name, names, "%s names %s, not a design on %s" % (
                        ci.plan_file(base), name, base.name))
        p = ci.plan(designs.in_repo(base="6.12"), path=ci.plan_file(bases.get("6.12")))
        self.assertEqual(p.stages["selftests"][:1], ["mainline"])

    def test_a_star_row_is_every_design_without_a_row(self):
        self.write("*\t\tnothing but checkpatch\nlisted\tboot\tx\n")
        p = ci.plan(self.designs, path=self.file)
        self.assertEqual(p.stages["boot"], ["mainline", "listed"])
        self.assertIn("nothing but checkpatch", p.why["dotc"])


if __name__ == "__main__":
    unittest.main()
