# SPDX-License-Identifier: GPL-2.0
"""klab kunit (commands/kunit.py): the designs it runs are those whose
series adds mm/tests/shrinker_kunit.c (a design named without it is
refused); the cases are read from kunit.py's --json, in the suite
`shrinker` only; the verdict fails a design on any case that does not
pass, and the control (mainline with the suite) unless the fix's cases
fail there and the others pass; kunit.py runs in the tree's root with the
kunitconfig, the suite's filter and its JSON file.
Run: python3 tests/kernel/test_kunit.py (make check: Meson test kernel_kunit)."""
import json
import os
import tempfile
import unittest

import klabtest  # noqa: F401  (the klab package on the path)
from kernelsrc import FILES, edit, patch_text, write_series
from klab import build, designs
from klab.commands import kunit


def report(statuses, suite=kunit.SUITE):
    """kunit.py's --json of one suite with @statuses ({case: status})."""
    other = {"name": "other_suite", "sub_groups": [],
             "test_cases": [{"name": "shrinker_test_free_id_bit_cleared", "status": "FAIL"}]}
    mine = {"name": suite, "sub_groups": [],
            "test_cases": [{"name": c, "status": s} for c, s in statuses.items()]}
    return json.dumps({"name": "KUnit Test Group", "test_cases": [],
                       "sub_groups": [mine, other]})


ALL_PASS = {"shrinker_test_free_id_bit_cleared": "PASS",
            "shrinker_test_unregistered_keeps_bit": "PASS",
            "shrinker_test_reused_id_keeps_bit": "PASS"}
ON_MAINLINE = dict(ALL_PASS, shrinker_test_unregistered_keeps_bit="FAIL",
                   shrinker_test_reused_id_keeps_bit="FAIL")


class Cases(unittest.TestCase):
    def test_the_suite_s_cases_only(self):
        self.assertEqual(kunit.cases(report(ALL_PASS)), ALL_PASS)

    def test_no_suite_no_case(self):
        self.assertEqual(kunit.cases(report(ALL_PASS, suite="lazy_mmu_mode")), {})


class Verdict(unittest.TestCase):
    def test_a_design_passes_when_every_case_passes(self):
        self.assertEqual(kunit.verdict("fix-id-reuse", ALL_PASS, False), [])

    def test_a_design_fails_on_a_failed_or_crashed_case(self):
        bad = kunit.verdict("d", dict(ALL_PASS, shrinker_test_reused_id_keeps_bit="ERROR"),
                            False)
        self.assertEqual(len(bad), 1)
        self.assertIn("shrinker_test_reused_id_keeps_bit ERROR", bad[0])

    def test_nothing_ran_fails(self):
        self.assertEqual(len(kunit.verdict("d", {}, False)), 1)

    def test_the_control_must_fail_the_fix_s_cases(self):
        self.assertEqual(kunit.verdict(kunit.CONTROL, ON_MAINLINE, True), [])
        bad = kunit.verdict(kunit.CONTROL, ALL_PASS, True)
        self.assertEqual(len(bad), len(kunit.FIX_CASES))

    def test_the_control_fails_when_another_case_fails(self):
        bad = kunit.verdict(kunit.CONTROL, dict(ON_MAINLINE,
                                                shrinker_test_free_id_bit_cleared="FAIL"),
                            True)
        self.assertEqual(len(bad), 1)

    def test_the_control_fails_when_a_fix_case_is_missing(self):
        results = dict(ON_MAINLINE)
        del results["shrinker_test_reused_id_keeps_bit"]
        self.assertEqual(len(kunit.verdict(kunit.CONTROL, results, True)), 1)


class Console(unittest.TestCase):
    SILENT = "[    0.1] Linux version 7.3.0-rc7\n    ok 1 shrinker_test_free_id_bit_cleared\n"
    WARN = ("[    0.2] ------------[ cut here ]------------\n"
            "[    0.2] WARNING: mm/shrinker.c:372 at set_shrinker_bit+0x9e/0xb0\n")

    def test_a_silent_kernel_passes(self):
        self.assertEqual(kunit.splats(self.SILENT), [])
        self.assertEqual(kunit.verdict("d", ALL_PASS, False, self.SILENT), [])

    def test_a_warning_fails_even_when_every_case_passes(self):
        bad = kunit.verdict("d", ALL_PASS, False, self.SILENT + self.WARN)
        self.assertEqual(len(bad), 1)
        self.assertIn("set_shrinker_bit", bad[0])


class Designs(unittest.TestCase):
    def series(self, pd):
        suite = patch_text({"mm/shrinker.c": edit(FILES["mm/shrinker.c"], 1, "x")})
        suite = suite.replace("mm/shrinker.c", kunit.SUITE_FILE)
        other = patch_text({"mm/list_lru.c": edit(FILES["mm/list_lru.c"], 1, "x")})
        for name, patches in (("with", [other, suite]), ("without", [other])):
            write_series(os.path.join(pd, name), patches)
            with open(os.path.join(pd, name, "base"), "w") as f:
                f.write("7.3\n")
        return designs.in_repo(pd)

    def test_every_design_with_the_suite_by_default(self):
        with tempfile.TemporaryDirectory() as pd:
            avail = self.series(pd)
            self.assertEqual([d.name for d in kunit.chosen_designs([], avail)], ["with"])

    def test_a_design_named_without_the_suite_is_refused(self):
        with tempfile.TemporaryDirectory() as pd:
            avail = self.series(pd)
            with self.assertRaises(SystemExit):
                kunit.chosen_designs(["without"], avail)
            self.assertEqual([d.name for d in kunit.chosen_designs(["mainline", "with"],
                                                                     avail)], ["with"])

    def test_the_control_is_mainline_with_the_suite(self):
        c = kunit.control("/p")
        self.assertEqual(c.name, kunit.CONTROL)
        self.assertEqual(c.patches, ("/p/debug/" + kunit.CONTROL_PATCH,))


class Compile(unittest.TestCase):
    def test_an_included_c_file_has_no_object_of_its_own(self):
        with tempfile.TemporaryDirectory() as t:
            os.makedirs(os.path.join(t, "mm", "tests"))
            with open(os.path.join(t, "mm", "Makefile"), "w") as f:
                f.write("obj-y := shrinker.o list_lru.o\n"
                        "obj-$(CONFIG_LAZY_MMU_MODE_KUNIT_TEST) += tests/lazy_mmu_mode_kunit.o\n")
            objs = ["mm/list_lru.o", "mm/shrinker.o", "mm/tests/lazy_mmu_mode_kunit.o",
                    "mm/tests/shrinker_kunit.o"]
            self.assertEqual(build.named_objects(t, objs), objs[:3])

    def test_an_object_of_a_disabled_option_is_not_compiled(self):
        """At MEMCG=n, mm/memcontrol.o is not built (its Makefile line is
        obj-$(CONFIG_MEMCG)), so W=1 does not compile it; a continued
        line counts as one, and an option at m builds."""
        with tempfile.TemporaryDirectory() as t:
            os.makedirs(os.path.join(t, "mm"))
            with open(os.path.join(t, "mm", "Makefile"), "w") as f:
                f.write("obj-y := shrinker.o \\\n\tlist_lru.o\n"
                        "obj-$(CONFIG_MEMCG) += memcontrol.o vmpressure.o\n"
                        "obj-$(CONFIG_ZSWAP) += zswap.o\n"
                        "KCOV_INSTRUMENT_huge_memory.o := n\n"
                        "obj-$(CONFIG_TRANSPARENT_HUGEPAGE) += huge_memory.o\n")
            objs = ["mm/huge_memory.o", "mm/list_lru.o", "mm/memcontrol.o", "mm/shrinker.o",
                    "mm/zswap.o"]
            off = {"CONFIG_MEMCG": "n", "CONFIG_ZSWAP": "m"}
            self.assertEqual(build.named_objects(t, objs, off),
                             ["mm/list_lru.o", "mm/shrinker.o", "mm/zswap.o"])
            self.assertEqual(build.named_objects(t, objs, dict(off, CONFIG_MEMCG="y",
                             CONFIG_TRANSPARENT_HUGEPAGE="y")), objs)


class Command(unittest.TestCase):
    def test_kunit_py_run_on_uml_with_the_kunitconfig_filter_and_json(self):
        cmd = kunit.command("2", "/out/k.json")
        self.assertEqual(cmd[1:4], ["tools/testing/kunit/kunit.py", "run", "--arch=um"])
        self.assertIn("--kunitconfig=" + kunit.KUNITCONFIG, cmd)
        self.assertIn("--json=/out/k.json", cmd)
        self.assertIn("--jobs=2", cmd)
        self.assertEqual(cmd[-1], kunit.SUITE)
        self.assertTrue(os.path.exists(kunit.KUNITCONFIG))


if __name__ == "__main__":
    unittest.main()
