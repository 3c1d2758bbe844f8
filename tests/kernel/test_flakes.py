# SPDX-License-Identifier: GPL-2.0
"""klab.flakes, the selftest regression rule, and its use by klab selftests
(commands/selftests.py, with the boots replaced by canned TAP):
  - a test that fails on mainline too is no regression, and boots nothing;
  - failing once on the design and passing on its second boot: flaky;
  - failing twice while mainline passes it again: a regression (the run
    fails), also when mainline is not in the run;
  - failing twice and failing on mainline's second boot too: flaky on both;
  - mainline boots a second time at most once per run, however many
    designs need it;
  - --append's words reach every boot, mainline's and the second ones too.
Run: python3 tests/kernel/test_flakes.py (make check: Meson test kernel_flakes)."""
import tempfile
import unittest
from unittest import mock

import klabtest  # noqa: F401  (the klab package on the path)
from klab import designs, flakes, report
from klab.commands import selftests
from klab.run import Run

NAMES = ["test_memcg_low", "test_memcg_min", "test_memcg_sock"]


def tap(fail=(), skip=()):
    """Parsed results of test_kmem and kcheck (one test each, passing) and
    test_memcontrol failing @fail."""
    lines = ["KLAB-SELFTEST-BEGIN test_kmem", "ok 1 test_kmem_dead_cgroups",
             "KLAB-SELFTEST-END test_kmem 0",
             "KLAB-SELFTEST-BEGIN kcheck", "ok 1 kcheck_strand", "KLAB-SELFTEST-END kcheck 0",
             "KLAB-SELFTEST-BEGIN test_memcontrol", "TAP version 13", "1..%d" % len(NAMES)]
    for i, n in enumerate(NAMES, 1):
        if n in skip:
            lines.append("ok %d %s # SKIP no swap" % (i, n))
        else:
            lines.append("%s %d %s" % ("not ok" if n in fail else "ok", i, n))
    lines.append("KLAB-SELFTEST-END test_memcontrol %d" % (1 if fail else 0))
    return report.parse_selftests("\n".join(lines) + "\n")


class Boots:
    """Canned second boots, counted."""

    def __init__(self, design_again, mainline_again):
        self.results = {"design": design_again, "mainline": mainline_again}
        self.calls = []

    def design(self):
        self.calls.append("design")
        return self.results["design"]

    def mainline(self):
        self.calls.append("mainline")
        return self.results["mainline"]


class Rule(unittest.TestCase):
    def test_regressions_are_fail_here_pass_there(self):
        self.assertEqual(flakes.regressions(tap(), tap(fail=["test_memcg_min"])),
                         ["test_memcg_min"])
        self.assertEqual(flakes.regressions(tap(fail=["test_memcg_min"]),
                                            tap(fail=["test_memcg_min"])), [])
        self.assertEqual(flakes.regressions(tap(skip=["test_memcg_min"]),
                                            tap(fail=["test_memcg_min"])), [])

    def test_failing_on_mainline_too_boots_nothing(self):
        b = Boots(None, None)
        j = flakes.judge(tap(fail=["test_memcg_low"]), tap(fail=["test_memcg_low"]), b.design,
                         b.mainline)
        self.assertEqual((j.regressed, j.flaky, b.calls), ([], [], []))

    def test_once_then_pass_is_flaky(self):
        b = Boots(tap(), tap())
        j = flakes.judge(tap(), tap(fail=["test_memcg_low"]), b.design, b.mainline)
        self.assertEqual(j.regressed, [])
        self.assertEqual(j.flaky, [("test_memcg_low", "failed once, passed on retry")])
        self.assertEqual(b.calls, ["design"])

    def test_twice_with_mainline_passing_again_is_a_regression(self):
        b = Boots(tap(fail=["test_memcg_min"]), tap())
        j = flakes.judge(tap(), tap(fail=["test_memcg_min"]), b.design, b.mainline)
        self.assertEqual((j.regressed, j.flaky), (["test_memcg_min"], []))
        self.assertEqual(b.calls, ["design", "mainline"])

    def test_twice_without_mainline_in_the_run_is_a_regression(self):
        b = Boots(tap(fail=["test_memcg_min"]), None)
        j = flakes.judge(tap(), tap(fail=["test_memcg_min"]), b.design, b.mainline)
        self.assertEqual(j.regressed, ["test_memcg_min"])

    def test_twice_and_on_mainline_again_is_flaky_on_both(self):
        b = Boots(tap(fail=["test_memcg_sock"]), tap(fail=["test_memcg_sock"]))
        j = flakes.judge(tap(), tap(fail=["test_memcg_sock"]), b.design, b.mainline)
        self.assertEqual(j.regressed, [])
        self.assertEqual(j.flaky, [("test_memcg_sock",
                                    "failed twice here and on mainline's second boot")])

    def test_missing_from_mainlines_second_boot_is_a_regression(self):
        b = Boots(tap(fail=["test_memcg_min"]), {})
        j = flakes.judge(tap(), tap(fail=["test_memcg_min"]), b.design, b.mainline)
        self.assertEqual(j.regressed, ["test_memcg_min"])

    def test_mixed(self):
        """One test flaky once, one a regression, in one design."""
        b = Boots(tap(fail=["test_memcg_min"]), tap())
        j = flakes.judge(tap(), tap(fail=["test_memcg_low", "test_memcg_min"]), b.design,
                         b.mainline)
        self.assertEqual(j.regressed, ["test_memcg_min"])
        self.assertEqual([t for t, _ in j.flaky], ["test_memcg_low"])


def whole_skip():
    """Every suite skipping whole, as without a memory controller."""
    lines = []
    for t in ("test_kmem", "test_memcontrol", "kcheck"):
        lines += ["KLAB-SELFTEST-BEGIN " + t, "TAP version 13",
                  "1..0 # SKIP memory controller isn't available",
                  "KLAB-SELFTEST-END %s 4" % t]
    return report.parse_selftests("\n".join(lines) + "\n")


class Command(unittest.TestCase):
    """klab selftests over three designs with canned boots (label -> TAP)."""

    def run_selftests(self, canned, append=""):
        booted = []
        self.appended = []

        def fake_boot(run, label, image, tests, clock="wall", append=""):
            booted.append(label)
            self.appended.append(append)
            return canned[label]
        chosen = [designs.MAINLINE, designs.Design("x", ("x.patch",)),
                  designs.Design("y", ("y.patch",))]
        images = {d.name: "/nonexistent/" + d.name for d in chosen}
        with tempfile.TemporaryDirectory() as out, \
                mock.patch.object(selftests, "selftest_boot", fake_boot), \
                mock.patch("sys.stdout"):
            run = Run(out)
            selftests.selftests(run, chosen, images, {}, append=append)
            with open(run.path("selftests.txt")) as f:
                self.table = f.read()
        return run, booted

    def test_mainline_boots_again_once_per_run(self):
        run, booted = self.run_selftests({
            "selftests-mainline-0": tap(),
            "selftests-x-0": tap(fail=["test_memcg_min"]),
            "selftests-x-1": tap(fail=["test_memcg_min"]),
            "selftests-y-0": tap(fail=["test_memcg_low"]),
            "selftests-y-1": tap(fail=["test_memcg_low"]),
            "selftests-mainline-1": tap(fail=["test_memcg_low"]),
        })
        self.assertEqual(booted, ["selftests-mainline-0", "selftests-x-0", "selftests-y-0",
                                  "selftests-x-1", "selftests-mainline-1", "selftests-y-1"])
        self.assertEqual(len(run.fails), 1)
        self.assertIn("selftests x: test_memcg_min passes on mainline", run.fails[0])

    def test_append_reaches_every_boot(self):
        run, booted = self.run_selftests({
            "selftests-mainline-0": tap(),
            "selftests-x-0": tap(fail=["test_memcg_min"]),
            "selftests-x-1": tap(fail=["test_memcg_min"]),
            "selftests-y-0": tap(), "selftests-mainline-1": tap()},
            append="cgroup.memory=nokmem")
        self.assertEqual(len(booted), 5)
        self.assertEqual(self.appended, ["cgroup.memory=nokmem"] * 5)
        self.assertIn("command line + cgroup.memory=nokmem", self.table)

    def test_whole_suite_skips_are_skipped_not_failed(self):
        # cgroup_disable=memory: every suite prints kselftest's "1..0 # SKIP"
        off = whole_skip()
        run, booted = self.run_selftests({
            "selftests-mainline-0": off, "selftests-x-0": off, "selftests-y-0": off},
            append="cgroup_disable=memory")
        self.assertEqual(run.fails, [])
        self.assertIn("skipped whole: memory controller isn't available", self.table)

    def test_whole_skip_where_mainline_runs_fails(self):
        run, booted = self.run_selftests({
            "selftests-mainline-0": tap(), "selftests-x-0": whole_skip(),
            "selftests-y-0": tap()})
        self.assertTrue(any("selftests x: test_kmem skips whole" in f for f in run.fails))

    def test_no_results_without_a_skip_still_fails(self):
        empty = report.parse_selftests("KLAB-SELFTEST-BEGIN test_kmem\n"
                                       "KLAB-SELFTEST-END test_kmem 1\n")
        run, booted = self.run_selftests({
            "selftests-mainline-0": empty, "selftests-x-0": tap(), "selftests-y-0": tap()})
        self.assertTrue(any("selftests mainline: test_kmem produced no results" in f
                            for f in run.fails))

    def test_clean_run_boots_each_design_once(self):
        run, booted = self.run_selftests({
            "selftests-mainline-0": tap(), "selftests-x-0": tap(), "selftests-y-0": tap()})
        self.assertEqual(run.fails, [])
        self.assertEqual(len(booted), 3)


if __name__ == "__main__":
    unittest.main()
