# SPDX-License-Identifier: GPL-2.0
"""klab try (commands/trial.py), with the builds and boots replaced: it
refuses to run without an outside series; it runs every stage of STAGES in
order, each a timed step, and a stage that fails fails the run without
stopping the next; the outside series' checkpatch findings are reported,
not failed; `klab try --series DIR --name NAME` from the command line takes
a directory outside the repository, cover letter left out, as the outside
design of every stage.
Run: python3 tests/kernel/test_trial.py (make check: Meson test kernel_trial)."""
import argparse
import os
import tempfile
import time
import unittest
from unittest import mock

import klabtest  # noqa: F401  (the klab package on the path)
from kernelsrc import FILES, edit, patch_text, write_series
from klab import cli, paths
from klab.commands import trial
from klab.run import Run


class Try(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.series = write_series(os.path.join(self.tmp.name, "theirs"), [patch_text(
            {"mm/shrinker.c": edit(FILES["mm/shrinker.c"], 3, "x")})])
        self.run_ = Run(self.tmp.name)
        self.patches = [mock.patch.object(trial.guest, "compile_programs", lambda run: {}),
                        mock.patch.object(trial.build, "build_all",
                                          lambda cache, config, chosen, run:
                                          {d.name: "bz" for d in chosen}),
                        mock.patch("sys.stdout")]
        for p in self.patches:
            p.start()

    def tearDown(self):
        for p in self.patches:
            p.stop()
        self.tmp.cleanup()

    def args(self, argv):
        p = argparse.ArgumentParser()
        trial.arguments(p)
        return p.parse_args(argv)

    def test_needs_an_outside_series(self):
        with self.assertRaises(SystemExit):
            trial.main(self.run_, self.args(["mainline"]))

    def test_every_stage_in_order(self):
        seen = []

        def ok(name):
            return lambda run, t: seen.append((name, [d.name for d in t.chosen],
                                               t.outside.name))

        def broken(run, t):
            seen.append(("broken",))
            raise RuntimeError("it broke")
        stages = (("one", ok("one")), ("broken", broken), ("two", ok("two")))
        with mock.patch.object(trial, "STAGES", stages):
            trial.main(self.run_, self.args(["--series", self.series, "mainline"]))
        self.assertEqual(seen, [("one", ["mainline", "theirs"], "theirs"), ("broken",),
                                ("two", ["mainline", "theirs"], "theirs")])
        self.assertEqual(self.run_.fails, ["broken: it broke"])
        self.assertEqual([s[0] for s in self.run_.steps], ["try: one", "try: broken",
                                                            "try: two"])

    def test_total_counts_each_second_once(self):
        """A stage's boots are steps inside the stage's step: the total is
        the stages', not stages and boots added up."""
        def stage(run, t):
            with run.step("boot one"):
                pass
            run.add_step("boot two", 0.0, 1.0)
        with mock.patch.object(trial, "STAGES", (("s", stage),)):
            trial.main(self.run_, self.args(["--series", self.series, "mainline"]))
        self.run_.add_step("after", 2.0, 3.0, time.monotonic())
        names = [s[0] for s in self.run_.steps]
        self.assertEqual(names, ["boot one", "boot two", "try: s", "after"])
        self.assertEqual([self.run_.nested(i) for i in range(4)], [True, True, False, False])
        stage_wall, stage_cpu = self.run_.steps[2][1], self.run_.steps[2][2]
        total = self.run_.times_text().splitlines()[-2].split()
        self.assertEqual(total[:3], ["total", "(outermost", "steps)"])
        self.assertAlmostEqual(float(total[3]), stage_wall + 2.0, places=1)
        self.assertAlmostEqual(float(total[5]), stage_cpu + 3.0, places=1)

    def test_checkpatch_findings_are_reported_not_failed(self):
        def findings(run, cache, chosen):
            run.fail("checkpatch --strict theirs/0001: 1 warning")
        with mock.patch.object(trial.checkpatch, "checkpatch", findings), \
                mock.patch.object(trial, "STAGES", trial.STAGES[:1]):
            trial.main(self.run_, self.args(["--series", self.series, "mainline"]))
        self.assertEqual(self.run_.fails, [])
        with open(self.run_.path("checkpatch-theirs.txt")) as f:
            self.assertIn("1 warning", f.read())

    def test_command_line_takes_a_directory_outside_the_repo(self):
        """The issue's one command: klab try --series DIR --name NAME."""
        series = os.path.join(self.tmp.name, "outside")
        write_series(series, [patch_text({"mm/shrinker.c": edit(FILES["mm/shrinker.c"], 5,
                                                                "unlikely")})], cover=True)
        self.assertFalse(os.path.realpath(series).startswith(paths.REPO + os.sep))
        seen = []
        stages = (("all", lambda run, t: seen.append(t)),)
        with mock.patch.object(trial, "STAGES", stages), \
                mock.patch.object(cli.packages, "install", lambda run: None), \
                mock.patch.dict(os.environ, {"KLAB_OUT": os.path.join(self.tmp.name, "out")}), \
                mock.patch("sys.stderr"):
            rc = cli.main(["try", "--series", series, "--name", "mine", "mainline"])
        self.assertEqual(rc, 0)
        self.assertEqual(len(seen), 1)
        t = seen[0]
        self.assertEqual([d.name for d in t.chosen], ["mainline", "mine"])
        self.assertEqual(t.outside.name, "mine")
        self.assertEqual(t.outside.dir, os.path.abspath(series))
        self.assertEqual([os.path.basename(p) for p in t.outside.patches],
                         sorted(x for x in os.listdir(series) if x != "0000-cover-letter.patch"))


if __name__ == "__main__":
    unittest.main()
