# SPDX-License-Identifier: GPL-2.0
"""klab.spread and `klab spread`: each boot's median of a row, their median
and the largest distance from it; a timed row beyond +-10% is marked
OUTSIDE and left out of the count within the target; `klab lab --boots 2`
prints the spread table; `klab spread` reads saved lab documents, prints
them side by side, and exits 2 on a file that is not one.
Run: python3 tests/kernel/test_spread.py (make check: Meson test kernel_spread)."""
import copy
import io
import json
import os
import tempfile
import unittest
from unittest import mock

import klabtest
from klab import cli, compare, spread
from klabtest import fixture

METRIC = "drop_caches_ns"
SHRINKLAB = os.path.join(klabtest.REPO, "build", "shrinklab")


def merged(docs):
    """spread.rows(), merged by shrinklab."""
    return spread.rows(docs, SHRINKLAB)


def text(rows, words=""):
    """spread.text(), its figures printed by shrinklab."""
    return compare.printed(SHRINKLAB, lambda cells: spread.text(rows, cells, words))


def side_by_side(runs):
    return compare.printed(SHRINKLAB, lambda cells: spread.side_by_side(runs, cells))


def boots(factors, metric=METRIC):
    """The saved guest document, once per factor, with @metric's samples
    scaled by it (one boot each)."""
    docs = []
    for i, f in enumerate(factors):
        d = copy.deepcopy(fixture("guest-short-mainline.json"))
        d["run"]["boot"] = i
        d["machine"]["clock"] = "icount shift=3 (test)"
        for e in d["experiments"]:
            for r in e["results"]:
                if r["metric"] == metric:
                    r["value"], r["min"], r["max"] = (r["value"] * f, r["min"] * f,
                                                      r["max"] * f)
        docs.append(d)
    return docs


def row(spreads, metric=METRIC):
    return next(s for s in spreads if s.metric == metric)


class Spread(unittest.TestCase):
    def test_median_and_largest_distance(self):
        base = row(merged(boots([1])))
        s = row(merged(boots([1.0, 1.05, 1.3])))
        self.assertEqual(s.values, [base.values[0] * f for f in (1.0, 1.05, 1.3)])
        self.assertAlmostEqual(s.median, base.values[0] * 1.05)
        self.assertAlmostEqual(s.deviation, 0.25 / 1.05)
        self.assertFalse(s.within())
        self.assertTrue(row(merged(boots([1.0, 1.05, 1.1]))).within())

    def test_one_boot_has_no_spread(self):
        s = row(merged(boots([1])))
        self.assertIsNone(s.deviation)
        self.assertFalse(s.within())
        self.assertIn("fewer than 2 boots", text(merged(boots([1]))))

    def test_outside_rows_are_marked_and_not_counted(self):
        rows = merged(boots([1.0, 1.0, 2.0]))
        n, of = spread.count_within(rows)
        self.assertEqual(of, sum(1 for s in rows if s.timed))
        self.assertEqual(n, of - 1)
        line = next(x for x in text(rows).splitlines() if x.split()[:1] == [METRIC])
        self.assertIn("OUTSIDE", line)
        self.assertIn("+-100.0%", line)

    def test_split_rows_explained_only_when_their_sum_holds(self):
        """rmdir and release at 0 mounts outside, their sum within: the
        note; the sum outside too (the clock moved everything): none."""
        def churn(rm, rel, total):
            docs = boots([1, 1, 1])
            for doc, a, b, c in zip(docs, rm, rel, total):
                for e in doc["experiments"]:
                    for r in e["results"]:
                        f = {"rmdir_ns_per_cgroup_no_mounts": a,
                             "release_ns_per_cgroup_no_mounts": b,
                             "rmdir_release_ns_per_cgroup_no_mounts": c}.get(r["metric"])
                        if f:
                            r["value"] *= f
            return text(merged(docs))
        split = churn([1, 1.5, 1], [1, 0.6, 1], [1, 1.02, 1])
        self.assertIn("rmdir_ns_per_cgroup_no_mounts: rmdir and release split", split)
        self.assertIn("release_ns_per_cgroup_no_mounts: see rmdir_ns_per_cgroup", split)
        self.assertNotIn("split one piece", churn([1, 1.5, 1], [1, 0.6, 1], [1, 2, 1]))

    def test_side_by_side_names_every_run(self):
        a, b = merged(boots([1, 1, 1])), merged(boots([1, 3, 1]))
        both = side_by_side([("icount idle", a, "clock A"), ("wall idle", b, "clock B")])
        self.assertIn("icount idle: clock A", both)
        self.assertIn("wall idle: clock B", both)
        line = next(x for x in both.splitlines() if " %s " % METRIC in x)
        self.assertIn("+-0.0%", line)
        self.assertIn("+-200.0% !", line)


class Command(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def lab_doc(self, name, factors, schema="klab-lab/1"):
        d = os.path.join(self.tmp.name, name)
        os.makedirs(d)
        docs = boots(factors)
        for i, doc in enumerate(docs):
            doc["run"]["host_load"] = {"start": "%d.00 1.00 1.00 (2 cpus)" % (i + 1),
                                       "end": "0.50 1.00 1.00 (2 cpus)"}
        with open(os.path.join(d, "kernel-lab-short.json"), "w") as f:
            json.dump({"schema": schema, "kernel": docs, "model": [], "geometry": "short",
                       "boots": len(factors)}, f)
        return d

    def klab(self, argv):
        out = io.StringIO()
        with mock.patch("sys.stdout", out), mock.patch("sys.stderr", io.StringIO()), \
                mock.patch.dict(os.environ, KLAB_SHRINKLAB=SHRINKLAB):
            rc = cli.main(argv)
        return rc, out.getvalue()

    def test_saved_runs_side_by_side(self):
        a, b = self.lab_doc("a", [1, 1, 1]), self.lab_doc("b", [1, 2, 1])
        rc, out = self.klab(["spread", "steady=" + a, b])
        self.assertEqual(rc, 0)
        self.assertIn("steady: short geometry, 3 boot(s) per design; kernel clock: icount "
                      "shift=3 (test); host loadavg (1 min) at the boots' starts and ends "
                      "0.50..3.00", out)
        self.assertIn("b: short geometry", out)
        self.assertIn("== spread over boots, run beside run", out)
        self.assertNotIn("?", out)

    def test_a_run_without_its_clock_reads_not_recorded(self):
        d = self.lab_doc("old", [1, 1])
        path = os.path.join(d, "kernel-lab-short.json")
        with open(path) as f:
            doc = json.load(f)
        for k in doc["kernel"]:
            del k["machine"]["clock"]
        with open(path, "w") as f:
            json.dump(doc, f)
        rc, out = self.klab(["spread", d])
        self.assertEqual(rc, 0)
        self.assertIn("kernel clock: not recorded", out)

    def test_not_a_lab_document_exits_2(self):
        bad = self.lab_doc("bad", [1, 1], schema="klab-work/1")
        self.assertEqual(self.klab(["spread", bad])[0], 2)
        self.assertEqual(self.klab(["spread", os.path.join(self.tmp.name, "none.json")])[0], 2)


if __name__ == "__main__":
    unittest.main()
