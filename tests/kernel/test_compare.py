# SPDX-License-Identifier: GPL-2.0
"""klab.compare, kernel beside model, judged by shrinklab judge lab: the
join pairs every guest metric with the model's, takes model/kernel from the
two medians, judges which design is better on the spread (paired only
within one model run), derives the ratios within a design, prints every
experiment, and a series' `model` file names each design's model; a
document shrinklab cannot read is refused with exit 2 and its reason.
Run: python3 tests/kernel/test_compare.py [SHRINKLAB] (default: build/shrinklab
of the repo; make check: Meson test kernel_compare)."""
import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest

import klabtest  # noqa: F401  (the klab package on the path)
from klab import compare
from klabtest import fixture
from schema_check import validate

SHRINKLAB = None  # argv[1] when run by path, else build/shrinklab of the repo


def exe():
    return SHRINKLAB or os.path.join(klabtest.REPO, "build", "shrinklab")


def judged(kernel, model, words="", clock=""):
    """shrinklab judge lab over @kernel and @model: (comparison, text)."""
    return compare.judge(exe(), compare.judge_input(kernel, model, None, words, clock))


def two_designs():
    """The saved mainline guest and model documents, and a second design made
    from them for the test (kernel:xarray = xarray+units=kmalloc): slab per
    cgroup x0.1 on both sides, drop_caches x0.5 in the kernel and x2 in the
    model (a disagreement), everything else the same."""
    k0, m0 = fixture("guest-short-mainline.json"), fixture("model-short-prealloc.json")
    k1 = copy.deepcopy(k0)
    k1["run"]["design"] = "kernel:xarray"
    for e in k1["experiments"]:
        for r in e["results"]:
            r["design"] = "kernel:xarray"
            f = 0.1 if r["metric"].startswith("slab_bytes") else \
                0.5 if r["metric"] == "drop_caches_ns" else 1
            r["value"], r["min"], r["max"] = r["value"] * f, r["min"] * f, r["max"] * f
            r["samples"] = [x * f for x in r["samples"]]
    for e in m0["experiments"]:
        extra = []
        for r in e["results"]:
            x = copy.deepcopy(r)
            x["design"] = "xarray+units=kmalloc"
            f = 0.1 if r["metric"].startswith("slab_bytes") else \
                2 if r["metric"] == "drop_caches_ns" else 1
            x["value"], x["min"], x["max"] = r["value"] * f, r["min"] * f, r["max"] * f
            x["samples"] = [v * f for v in r["samples"]]
            extra.append(x)
        e["results"] += extra
    return [k0, k1], [m0]


class Join(unittest.TestCase):
    def setUp(self):
        self.kernel, self.model = two_designs()
        self.cmp = judged(self.kernel, self.model)[0]

    def metric(self, exp, name):
        e = next(e for e in self.cmp["experiments"] if e["id"] == exp)
        return next(m for m in e["metrics"] if m["metric"] == name)

    def test_every_guest_metric_is_in_the_join(self):
        for e in self.kernel[0]["experiments"]:
            for r in e["results"]:
                m = self.metric(e["id"], r["metric"])
                self.assertIsNotNone(m["designs"]["mainline"]["kernel"], r["metric"])
                self.assertIsNotNone(m["designs"]["mainline"]["model"], r["metric"])

    def test_model_over_kernel_is_the_ratio_of_medians(self):
        m = self.metric("units", "slab_bytes_per_empty_cgroup_12u")
        c = m["designs"]["mainline"]
        self.assertAlmostEqual(c["model_over_kernel"],
                               c["model"]["value"] / c["kernel"]["value"])
        self.assertEqual(c["model_design"], "prealloc")
        self.assertEqual(m["designs"]["xarray"]["model_design"], "xarray+units=kmalloc")

    def test_agreement_and_disagreement(self):
        m = self.metric("units", "slab_bytes_per_empty_cgroup_12u")
        v = m["versus_base"][0]
        self.assertEqual((v["kernel"]["cls"], v["model"]["cls"], v["verdict"]),
                         ("lower", "lower", "agree"))
        self.assertEqual(m["verdict"], "agree")
        self.assertEqual(m["winner"], {"kernel": "xarray", "model": "xarray"})
        m = self.metric("drop_caches", "drop_caches_ns")
        v = m["versus_base"][0]
        self.assertTrue(v["model"]["paired"])
        self.assertAlmostEqual(v["model"]["min"], 2)
        self.assertEqual(v["model"]["cls"], "higher")
        self.assertIn(v["verdict"], ("disagree", "inconclusive"))
        self.assertEqual(m["winner"]["model"], "mainline")

    def test_same_figures_agree_on_same(self):
        m = self.metric("churn", "rmdir_release_ns_per_cgroup")
        v = m["versus_base"][0]
        self.assertEqual(v["model"]["cls"], "same")  # paired rounds: exactly 1
        self.assertIn(v["verdict"], ("agree", "inconclusive"))

    def test_derived_ratios(self):
        m = self.metric("drop_caches", "drop_caches N cgroups / none (top rung)")
        self.assertTrue(m["derived"])
        k = m["designs"]["mainline"]["kernel"]
        self.assertLessEqual(k["min"], k["value"])
        self.assertLessEqual(k["value"], k["max"])

    def test_tables_print_every_experiment(self):
        text = judged(self.kernel, self.model, "geometry words")[1]
        for e in ("units", "drop_caches", "churn", "highwater", "register"):
            self.assertIn("== %s: kernel beside model" % e, text)
        self.assertIn("kernel:xarray = xarray+units=kmalloc", text)
        self.assertIn("which design is better", text)

    def test_every_table_names_the_kernels_clock(self):
        text = judged(self.kernel, self.model, "geometry words", "icount shift=3")[1]
        heads = [x for x in text.splitlines()
                 if x.startswith("== ") or x.startswith("   which design is better")]
        self.assertGreater(len(heads), 5)
        for h in heads:
            self.assertIn("kernel clock icount shift=3", h)

    def test_rows_of_separate_model_runs_are_not_paired(self):
        """klab runs each model design alone: no per-round pairing then."""
        m0 = self.model[0]
        apart = [copy.deepcopy(m0), copy.deepcopy(m0)]
        for doc, keep in zip(apart, ("prealloc", "xarray+units=kmalloc")):
            for e in doc["experiments"]:
                e["results"] = [r for r in e["results"] if r["design"] == keep]
        cmp = judged(self.kernel, apart)[0]
        e = next(e for e in cmp["experiments"] if e["id"] == "drop_caches")
        v = next(m for m in e["metrics"] if m["metric"] == "drop_caches_ns")["versus_base"][0]
        self.assertFalse(v["model"]["paired"])
        self.assertLessEqual(v["model"]["min"], 2)
        self.assertGreaterEqual(v["model"]["max"], 2)

    def test_combined_document(self):
        """klab lab's one JSON: every guest's and model run's own document
        (each valid shrinklab/2) and the comparison, as JSON text."""
        doc = json.loads(json.dumps(compare.combined(self.kernel, self.model, self.cmp,
                                                      {"geometry": "short", "boots": 1})))
        self.assertEqual(doc["schema"], "klab-lab/1")
        for d in doc["kernel"] + doc["model"]:
            validate(d)
        self.assertEqual(doc["comparison"]["designs"], ["mainline", "xarray"])
        self.assertEqual(doc["comparison"]["mapping"]["xarray"]["model"],
                         "xarray+units=kmalloc")

    def test_spread_over_boots(self):
        """Three boots of mainline at x1, x1.1 and x0.95: the median is the
        first boot's, the spread 10% (the repeatability target's bound),
        and the tables print it."""
        k0 = self.kernel[0]
        boots = []
        for f in (1, 1.1, 0.95):
            k = copy.deepcopy(k0)
            for e in k["experiments"]:
                for r in e["results"]:
                    r["value"] *= f
                    r["min"] *= f
                    r["max"] *= f
            boots.append(k)
        cmp, text = judged(boots, [])
        e = next(e for e in cmp["experiments"] if e["id"] == "drop_caches")
        c = next(m for m in e["metrics"] if m["metric"] == "drop_caches_ns")["designs"]["mainline"]
        first = next(r for e in k0["experiments"] for r in e["results"]
                     if r["metric"] == "drop_caches_ns")
        self.assertAlmostEqual(c["kernel"]["value"], first["value"])
        self.assertAlmostEqual(c["kernel"]["boot_spread"], 0.1)
        self.assertEqual(c["kernel"]["boots"], 3)
        self.assertIn("boots +-", text)
        self.assertIn("10.0%", text)
        self.assertNotIn("boots +-", judged(self.kernel, self.model)[1])

    def test_verdicts_over_boots_use_the_boots_medians(self):
        """Three boots each: xarray at half of mainline's drop_caches_ns, and
        one outlier sample of 5x in one xarray boot. With one boot the
        outlier's sample range crosses the class boundaries; over the boots'
        medians the verdict is lower, and the printed range still shows the
        outlier."""
        def boots_of(doc, outlier):
            out = []
            for i in range(3):
                k = copy.deepcopy(doc)
                for e in k["experiments"]:
                    for r in e["results"]:
                        if r["metric"] == "drop_caches_ns" and outlier and i == 1:
                            r["max"] = r["value"] * 10
                out.append(k)
            return out
        kernel = boots_of(self.kernel[0], False) + boots_of(self.kernel[1], True)
        cmp = judged(kernel, self.model)[0]
        e = next(e for e in cmp["experiments"] if e["id"] == "drop_caches")
        m = next(m for m in e["metrics"] if m["metric"] == "drop_caches_ns")
        v = m["versus_base"][0]
        self.assertEqual(v["kernel"]["cls"], "lower")
        self.assertGreater(m["designs"]["xarray"]["kernel"]["max"],
                           m["designs"]["xarray"]["kernel"]["verdict_max"] * 5)
        one = judged(boots_of(self.kernel[0], False)[:1] +
                     boots_of(self.kernel[1], True)[1:2], self.model)[0]
        e = next(e for e in one["experiments"] if e["id"] == "drop_caches")
        m = next(m for m in e["metrics"] if m["metric"] == "drop_caches_ns")
        self.assertEqual(m["versus_base"][0]["kernel"]["cls"], "across")

    def test_class_boundaries_are_the_verdicts(self):
        """xarray's slab per cgroup at 0.79, 0.8, 1.25 and 1.26 of mainline's
        (one boot each: the range is the point; mainline's 8192 B, so that
        the ratio is the factor exactly): lower, same, same, higher, as
        verdict.c's rule classes them."""
        want = {0.79: "lower", 0.8: "same", 1.25: "same", 1.26: "higher"}
        for f, cls in want.items():
            k1 = copy.deepcopy(self.kernel[0])
            k1["run"]["design"] = "kernel:xarray"
            for e in k1["experiments"]:
                for r in e["results"]:
                    r["design"] = "kernel:xarray"
                    if r["metric"] == "slab_bytes_per_empty_cgroup_12u":
                        r["value"] = r["min"] = r["max"] = 8192 * f
                        r["samples"] = [r["value"]]
            base = copy.deepcopy(self.kernel[0])
            for e in base["experiments"]:
                for r in e["results"]:
                    if r["metric"] == "slab_bytes_per_empty_cgroup_12u":
                        r["value"] = r["min"] = r["max"] = 8192
                        r["samples"] = [8192]
            cmp = judged([base, k1], self.model)[0]
            e = next(e for e in cmp["experiments"] if e["id"] == "units")
            m = next(m for m in e["metrics"] if m["metric"] == "slab_bytes_per_empty_cgroup_12u")
            self.assertEqual(m["versus_base"][0]["kernel"]["cls"], cls, f)

    def test_a_bad_document_is_refused_with_its_reason(self):
        """Not JSON, JSON without the guests' documents, a result without its
        metric: exit 2 and one line saying what is wrong."""
        for doc, why in (("{\"kernel\": [", "a value expected at byte 12"),
                         ("[]", "no \"kernel\" array"),
                         (json.dumps({"kernel": [{"run": {"design": "kernel:mainline"},
                                                  "experiments": [{"id": "units", "results": [
                                                      {"design": "kernel:mainline"}]}]}],
                                      "model": []}), "a result's metric")):
            with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
                f.write(doc)
                f.flush()
                r = subprocess.run([exe(), "judge", "lab", f.name], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
            self.assertEqual(r.returncode, 2, doc)
            self.assertIn(why, r.stderr)
            self.assertEqual(r.stderr.count("\n"), 1, r.stderr)
            self.assertEqual(r.stdout, "")


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        SHRINKLAB = sys.argv.pop(1)
    unittest.main()
