# SPDX-License-Identifier: GPL-2.0
"""data/kernel_metrics.tsv, the one list of the kernel lab's metrics, and
the two programs held to it (klab.metrics.check):
  - a saved guest document (klab-guest) matches it row for row;
  - shrinklab kernel (the model, run here at a small geometry for two
    designs) matches it row for row;
  - a document that drops, renames, re-units or re-samples a row does not;
  - every derived ratio of the tables (the file's "ratio" rows) names metrics
    of the file; a malformed row of the file is an error.
usage: test_metrics.py [SHRINKLAB] (default: build/shrinklab of the repo;
without one the model's part is skipped; Meson passes it: test kernel_metrics)."""
import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest

import klabtest
from klab import metrics
from klabtest import fixture

SHRINKLAB = None
GEOMETRY = ["--ladder", "1,2,3", "--cgroups", "8", "--units-cgroups", "4", "--churn-cgroups",
            "4", "--samples", "3", "--churn-samples", "2", "--register-batch", "64",
            "--register-samples", "2", "--highwater-mounts", "16", "--walk-points", "2",
            "--host-shrinkers", "22", "--nodes", "2", "--cpus", "2"]


class Guest(unittest.TestCase):
    def setUp(self):
        self.doc = fixture("guest-short-mainline.json")

    def test_saved_guest_document_matches(self):
        self.assertEqual(metrics.check(self.doc), [])

    def rows(self, doc):
        return [r for e in doc["experiments"] for r in e["results"]]

    def test_departures_are_found(self):
        for what, change in (
                ("dropped", lambda d: d["experiments"][1]["results"].pop(2)),
                ("renamed", lambda d: self.rows(d)[5].update(metric="slab_bytes_per_x")),
                ("re-united", lambda d: self.rows(d)[0].update(unit="count")),
                ("re-sampled", lambda d: self.rows(d)[7].update(n=4)),
                ("untimed", lambda d: self.rows(d)[7].update(timed=False)),
                ("cache lost", lambda d: d["experiments"][0]["results"].pop(1)),
                ("geometry unnamed", lambda d: d.update(command=d["command"][:3]))):
            doc = copy.deepcopy(self.doc)
            change(doc)
            self.assertTrue(metrics.check(doc), what)


class Model(unittest.TestCase):
    def test_model_document_matches(self):
        exe = SHRINKLAB or os.path.join(klabtest.REPO, "build", "shrinklab")
        if not os.path.exists(exe):
            self.skipTest("no shrinklab (pass its path, or build/ it)")
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "model.json")
            subprocess.run([exe, "kernel", "--quiet", "--json", out, "--design", "prealloc",
                            "--design", "xarray+units=kmalloc"] + GEOMETRY, check=True,
                           stdout=subprocess.DEVNULL, timeout=300)
            with open(out) as f:
                doc = json.load(f)
        self.assertEqual(metrics.check(doc), [])
        self.assertEqual(len({r["design"] for e in doc["experiments"] for r in e["results"]}),
                         2)


def named_by(metric, pattern):
    """Is @metric named by @pattern (one '*' standing for a number), as
    shrinklab's lab_metric_matches() reads a ratio row's pattern? Only
    this test reads the patterns in Python: klab asks shrinklab."""
    if "*" not in pattern:
        return metric == pattern
    pre, post = pattern.split("*")
    mid = metric[len(pre):len(metric) - len(post)]
    return metric.startswith(pre) and metric.endswith(post) and mid.isdigit()


class File(unittest.TestCase):
    def test_ratios_name_metrics_of_the_file(self):
        caches, rows = metrics.load()
        opts = {"ladder": "1,12", "register-batch": "128", "samples": "5",
                "churn-samples": "3", "register-samples": "3"}
        names = {(e, m) for e, m, _, _, _ in metrics.expand(rows, opts, caches[:2])}
        self.assertGreaterEqual(len(metrics.ratios()), 8)
        for r in metrics.ratios():
            for pattern in (r.numerator, r.denominator):
                self.assertTrue(any(e == r.experiment and named_by(m, pattern)
                                    for e, m in names), (r.name, pattern))

    def test_malformed_row(self):
        with tempfile.NamedTemporaryFile("w", suffix=".tsv") as f:
            f.write("metric\tunits\tx\tB\tsometimes\t-\twhat\n")
            f.flush()
            with self.assertRaisesRegex(ValueError, "not a cache, metric, ratio or moves row"):
                metrics.load(f.name)

    def test_moves_name_metrics_of_the_file(self):
        """Each "moves" row's prefix and whole row start metrics of the file."""
        _, rows = metrics.load()
        self.assertGreaterEqual(len(metrics.moves()), 2)
        for m in metrics.moves():
            for prefix in (m.prefix, m.whole):
                self.assertTrue(any(r.name.startswith(prefix) for r in rows), prefix)

    def test_caches_are_read_by_the_files_cache_row(self):
        """A document's caches, from the data file's {cache} metric at the
        first rung of its own ladder (not a name written in klab)."""
        doc = {"command": ["klab-guest", "--ladder", "3,9"], "experiments": [
            {"id": "units", "results": [
                {"design": "d", "metric": "kmalloc_1k_objs_per_empty_cgroup_3u"},
                {"design": "d", "metric": "kmalloc_1k_objs_per_empty_cgroup_9u"},
                {"design": "d", "metric": "radix_tree_node_objs_per_empty_cgroup_3u"},
                {"design": "e", "metric": "other_objs_per_empty_cgroup_3u"}]}]}
        self.assertEqual(metrics.doc_caches(doc, "d"), ["kmalloc_1k", "radix_tree_node"])


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        SHRINKLAB = sys.argv.pop(1)
    unittest.main()
