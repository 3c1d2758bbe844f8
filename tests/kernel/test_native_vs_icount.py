# SPDX-License-Identifier: GPL-2.0
"""kernel/scripts/native-vs-icount sets two klab reproduce documents side by
side: each design's ratio to the table's base (or to --over DESIGN, paired
over the boots) is classed by klab's bands, two decisive classes that
differ are a disagreement, a range across a band is undecided, a median
at or below zero is not measurable, and a file it cannot read exits 2.
Run: python3 tests/kernel/test_native_vs_icount.py (make check: Meson test
kernel_native_vs_icount)."""
import json
import os
import subprocess
import tempfile
import unittest

import klabtest

SCRIPT = os.path.join(klabtest.REPO, "kernel", "scripts", "native-vs-icount")


def row(design, samples, ratio=None, verdict=None):
    """A timed kernel row of metric drop_caches_ns: per-boot figures
    @samples, its ratio over the base (None: it is the base)."""
    s = sorted(samples)
    return {"metric": "drop_caches_ns", "kernel_design": design,
            "kernel": {"timed": True, "value": s[len(s) // 2], "min": s[0], "max": s[-1],
                       "samples": list(samples)},
            "ratio": ratio and {"ours": ratio[0], "lo": ratio[1], "hi": ratio[2]},
            "kernel_verdict": verdict}


def doc(machine, clock, rows):
    return {"schema": "klab-reproduce/1",
            "tables": [{"experiment": "xarray-2026-vm", "machine": [machine], "clock": [clock],
                        "rows": rows}]}


def run(*args):
    return subprocess.run(["python3", SCRIPT] + list(args), capture_output=True, text=True)


class NativeVsIcount(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="nvi-")

    def write(self, name, d):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            json.dump(d, f)
        return path

    def lines(self, a, b, *opts):
        r = run(*(list(opts) + [self.write("a.json", a), self.write("b.json", b)]))
        self.assertEqual(r.returncode, 0, r.stderr)
        return {line.split("|")[3].strip(): [c.strip() for c in line.split("|")[1:-1]]
                for line in r.stdout.splitlines()[2:]}

    def test_decisive_classes_that_differ_are_a_disagreement(self):
        a = doc("uml", "wall", [row("unit-cache", [10, 12, 11]),
                                row("array-ondemand", [1, 2, 3], (0.15, 0.09, 0.45))])
        b = doc("qemu", "icount", [row("unit-cache", [5, 5]),
                                   row("array-ondemand", [5, 5], (1.01, 0.99, 1.02))])
        got = self.lines(a, b)["array-ondemand"]
        self.assertIn("lower", got[4])
        self.assertIn("same", got[6])
        self.assertEqual(got[8], "yes")

    def test_a_range_across_a_band_is_undecided(self):
        a = doc("uml", "wall", [row("unit-cache", [10]), row("xarray", [10], (0.98, 0.9, 1.85))])
        b = doc("qemu", "icount", [row("unit-cache", [5]), row("xarray", [5], (1.0, 1.0, 1.0))])
        self.assertEqual(self.lines(a, b)["xarray"][8], "undecided")

    def test_the_seeds_class_names_the_run_that_has_it(self):
        claim = {"claim": "ratio", "seed": 0.125, "ours": 0.9, "lo": 0.85, "hi": 0.95}
        a = doc("uml", "wall", [row("unit-cache", [10]),
                                row("seed-xarray", [2], (0.2, 0.1, 0.3),
                                    dict(claim, ours=0.2, lo=0.1, hi=0.3))])
        b = doc("qemu", "icount", [row("unit-cache", [5]),
                                   row("seed-xarray", [4], (0.9, 0.85, 0.95), claim)])
        got = self.lines(a, b)["seed-xarray"]
        self.assertEqual(got[8], "yes")
        self.assertEqual(got[9], "uml wall")

    def test_a_median_at_or_below_zero_is_not_measurable(self):
        a = doc("uml", "wall", [row("unit-cache", [-3, 1, -2]),
                                row("mainline", [4, 5, 6], (-2.0, -3.0, 1.0))])
        b = doc("qemu", "icount", [row("unit-cache", [5]), row("mainline", [5], (1.0, 1.0, 1.0))])
        got = self.lines(a, b)["mainline"]
        self.assertIn("not measurable", got[4])
        self.assertEqual(got[8], "undecided")

    def test_over_a_design_pairs_the_boots(self):
        rows = [row("mainline", [10, 20]), row("seed-xarray", [20, 30])]
        got = self.lines(doc("uml", "wall", rows), doc("qemu", "icount", rows),
                         "--over", "mainline")["seed-xarray"]
        # medians 30/20 (the upper middle of two), boots 20/10 and 30/20
        self.assertTrue(got[4].startswith("1.5 [1.5..2] "), got[4])

    def test_an_unreadable_file_exits_2(self):
        r = run(os.path.join(self.tmp, "none.json"), os.path.join(self.tmp, "none.json"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("none.json", r.stderr)
        self.assertEqual(run("only-one.json").returncode, 2)


if __name__ == "__main__":
    unittest.main()
