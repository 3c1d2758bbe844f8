# SPDX-License-Identifier: GPL-2.0
"""klab reproduce's judging (kernel/py/klab/verdict.py, reproduce.py): the
port of shrinklab's verdicts gives every verdict of two saved shrinklab
reproduce documents exactly as shrinklab gave it (the same kind, the same
ratio and range), so the kernel's claims are judged as the model's are
(and a kernel figure of one sample, which shrinklab never has, is
inconclusive);
the seed file's geometry syntax; the boundaries (inconclusive across 0.8
and 1.25, bounds, counts); a kernel figure over boots (median of the boots'
medians, paired over two or more boots, unpaired over one boot's samples);
the shrinklab run options of a model label; every seed figure of the
tables' experiments has a row in its table, whose title and metrics are
shrinklab's registry's (`shrinklab experiments --json`).
Run: python3 tests/kernel/test_reproduce.py [SHRINKLAB] (default: build/shrinklab
of the repo; make check: Meson test kernel_reproduce)."""
import math
import os
import sys
import unittest

import klabtest
from klab import registry, reproduce, verdict

SHRINKLAB = None  # argv[1] when run by path, else build/shrinklab of the repo
SEEDS = verdict.load_seeds(reproduce.SEEDS)
REGISTRY, TABLE = {}, {}


def setUpModule():
    REGISTRY.update(registry.load(SHRINKLAB or os.path.join(klabtest.REPO, "build",
                                                            "shrinklab")))
    TABLE.update({t.exp: t for t in reproduce.from_registry(reproduce.TABLES, REGISTRY, SEEDS)})


def keys_of(exp, metric):
    return next(k for m, k, _ in TABLE[exp].metrics if m == metric)


def model_rows(e):
    return [dict(r, paired=bool(r["timed"])) for r in e["results"] if not r["unavailable"]]


class AsShrinklabJudges(unittest.TestCase):
    def check_doc(self, name):
        doc = klabtest.fixture(name)
        n = 0
        for e in doc["experiments"]:
            base = e["hosts"][0]["design"]
            rows = {(r["design"], r["metric"]): r for r in model_rows(e)}
            for v in e["verdicts"]:
                r = rows.get((v["design"], v["metric"]))
                b = rows.get((base, v["metric"]))
                f = SEEDS[(e["id"], v["design"], v["metric"])]
                bf = SEEDS.get((e["id"], base, v["metric"]))
                ours = verdict.judge(r, b, f, bf, keys_of(e["id"], v["metric"]))
                what = "%s %s %s" % (e["id"], v["design"], v["metric"])
                self.assertEqual(ours["kind"], verdict.JSON_NAMES[v["verdict"]], what)
                if "size_verdict" in v:  # documents since the size verdict
                    self.assertEqual(ours["size"], verdict.JSON_NAMES[v["size_verdict"]], what)
                if v["verdict"] == "not_compared":
                    continue
                for mine, theirs in (("ours", "ours"), ("lo", "ours_lo"), ("hi", "ours_hi")):
                    self.assertTrue(math.isclose(ours[mine], v[theirs], rel_tol=1e-6), what)
                n += 1
        return n

    def test_quick_run(self):
        # Mostly "not compared" (x0.01 of the seeds' geometry), counts agree.
        self.check_doc("model-reproduce-quick.json")

    def test_default_run_with_verdicts(self):
        # pods and units at the default scale: ratios, a bound and counts.
        self.assertGreaterEqual(self.check_doc("model-reproduce-pods-units.json"), 5)


def row(value, lo, hi, samples=None, paired=False, design="d", per_boot=5, **geo):
    samples = samples if samples is not None else [value]
    return dict(design=design, metric="m", unit="ns", timed=True, value=value, min=lo, max=hi,
                n=len(samples), samples=samples, paired=paired, samples_per_boot=per_boot,
                geometry=dict(dict(mounts=4001, cgroups=4001, nodes=1, cpus=4, units=63), **geo))


class Claims(unittest.TestCase):
    f = dict(unit="ns", same=False, relation="=", value=50.0,
             geometry=verdict.parse_geometry("mounts=4001 cgroups=4001 nodes=? cpus=?"))
    bf = dict(f, value=100.0)
    keys = ("mounts", "cgroups", "nodes", "cpus")

    def test_geometry_syntax(self):
        g = verdict.parse_geometry("mounts=8000 units=126..127 nodes=?")
        self.assertEqual(g, {"mounts": (8000, 8000), "units": (126, 127), "nodes": None})
        self.assertEqual(verdict.format_geometry(g), "mounts=8000 units=126..127 nodes=?")
        for bad in ("mounts", "colour=3", "mounts=1 mounts=2"):
            with self.assertRaises(ValueError):
                verdict.parse_geometry(bad)

    def test_lower_agrees_unknown_keys_said(self):
        v = verdict.judge(row(40, 38, 42), row(100, 95, 105), self.f, self.bf, self.keys)
        self.assertEqual(v["kind"], verdict.AGREES)
        self.assertIn("the seed does not give its nodes, cpus", v["text"])
        self.assertAlmostEqual(v["lo"], 38 / 105)
        self.assertFalse(v["paired"])

    def test_direction_and_size_are_two_verdicts(self):
        # The seed's 0.5: ours 0.4 agrees in both; ours 1/640 of the base
        # agrees in direction and not in size (issue 32's 640x against 10x).
        v = verdict.judge(row(40, 38, 42), row(100, 95, 105), self.f, self.bf, self.keys)
        self.assertEqual((v["kind"], v["size"]), (verdict.AGREES, verdict.AGREES))
        v = verdict.judge(row(1, 1, 1), row(640, 640, 640), self.f, self.bf, self.keys)
        self.assertEqual((v["kind"], v["size"]), (verdict.AGREES, verdict.DISAGREES))
        v = verdict.judge(row(30, 20, 40), row(100, 100, 100), self.f, self.bf, self.keys)
        self.assertEqual(v["size"], verdict.INCONCLUSIVE)
        below = dict(self.f, relation="<", value=10.0)
        v = verdict.judge(row(5, 4, 6), row(100, 95, 105), below, self.bf, self.keys)
        self.assertEqual(v["size"], verdict.NOT_JUDGED)

    def test_one_sample_is_inconclusive(self):
        v = verdict.judge(row(40, 40, 40, per_boot=1), row(100, 100, 100, per_boot=1), self.f,
                          self.bf, self.keys)
        self.assertEqual(v["kind"], verdict.INCONCLUSIVE)
        self.assertIn("one sample", v["text"])

    def test_straddles_is_inconclusive(self):
        v = verdict.judge(row(70, 50, 90), row(100, 95, 105), self.f, self.bf, self.keys)
        self.assertEqual(v["kind"], verdict.INCONCLUSIVE)

    def test_paired_over_boots(self):
        # Each boot's ratio is 0.5 while the samples overlap: paired, agrees.
        r = row(50, 30, 80, samples=[40, 60], paired=True)
        b = row(100, 60, 160, samples=[80, 120], paired=True)
        v = verdict.judge(r, b, self.f, self.bf, self.keys)
        self.assertTrue(v["paired"])
        self.assertEqual((v["lo"], v["hi"], v["kind"]), (0.5, 0.5, verdict.AGREES))
        r["paired"] = False
        self.assertEqual(verdict.judge(r, b, self.f, self.bf, self.keys)["kind"],
                         verdict.INCONCLUSIVE)

    def test_other_geometry_not_compared_ratio_kept(self):
        v = verdict.judge(row(40, 38, 42, mounts=1600), row(100, 95, 105, mounts=1600),
                          self.f, self.bf, self.keys)
        self.assertEqual(v["kind"], verdict.NOT_COMPARED)
        self.assertIn("ours at mounts=1600", v["text"])
        self.assertAlmostEqual(v["ours"], 0.4)

    def test_bound_and_same_and_count(self):
        below = dict(self.f, relation="<", value=10.0)
        v = verdict.judge(row(5, 4, 6), row(100, 95, 105), below, self.bf, self.keys)
        self.assertEqual((v["claim"], v["kind"]), ("bound", verdict.AGREES))
        same = dict(self.f, same=True, value=None)
        v = verdict.judge(row(100, 90, 110), row(100, 95, 105), same, self.bf, self.keys)
        self.assertEqual(v["kind"], verdict.AGREES)
        count = dict(self.f, unit="count", value=16.0, geometry={"cpus": (4, 4)})
        v = verdict.judge(dict(row(16, 16, 16), unit="count"), None, count, None, ("cpus",))
        self.assertEqual(v["kind"], verdict.AGREES)
        v = verdict.judge(None, None, self.f, self.bf, self.keys)
        self.assertEqual(v["kind"], verdict.NOT_MEASURED)


class KernelFigures(unittest.TestCase):
    def doc(self, median, samples):
        return {"experiments": [{"id": "tkhai", "results": [
            {"design": "kernel:x", "metric": "drop_caches_ns", "unit": "ns", "timed": True,
             "value": median, "samples": samples, "geometry": {"note": "n"}}]}]}

    def test_over_boots(self):
        t = TABLE["bitmap-2018"]
        docs = [self.doc(10, [9, 10, 12]), self.doc(20, [19, 20, 30]), self.doc(14, [14])]
        r = reproduce.kernel_row(docs, t.exp, "drop_caches_ns_repeat", t.rename, "tkhai")
        self.assertEqual((r["value"], r["min"], r["max"], r["n"]), (14, 9, 30, 3))
        self.assertEqual(r["samples"], [10, 20, 14])
        self.assertTrue(r["paired"])
        one = reproduce.kernel_row(docs[:1], t.exp, "drop_caches_ns_repeat", t.rename, "tkhai")
        self.assertFalse(one["paired"])
        self.assertIsNone(reproduce.kernel_row(docs, t.exp, "nothing", t.rename, "tkhai"))


class Tables(unittest.TestCase):
    def test_every_seed_figure_has_a_row(self):
        for (exp, design, metric) in SEEDS:
            t = TABLE[exp]
            self.assertIn(metric, [m for m, _, _ in t.metrics], (exp, metric))
            self.assertIn(design, [m for _, m in t.designs], (exp, design))

    def test_titles_and_metrics_are_the_registrys(self):
        for t in TABLE.values():
            e = REGISTRY[t.exp]
            self.assertEqual(t.title, e["title"])
            own = [m for m, _, _ in t.metrics if registry.metric(REGISTRY, t.exp, m)]
            self.assertEqual(own, [m["name"] for m in e["metrics"]
                                   if any(x == t.exp and y == m["name"] for x, _, y in SEEDS)])
            for m, keys, words in t.metrics:
                r = registry.metric(REGISTRY, t.exp, m)
                if r:
                    self.assertEqual((keys, words), (tuple(r["geometry"]), r["what"]), m)
        self.assertEqual([m for m, _, _ in TABLE["xarray-2026-vm"].metrics][-1],
                         "drop_caches_ns")  # the kernel's own row, last

    def test_a_registry_without_the_seeds_metric_is_refused(self):
        reg = {k: dict(v) for k, v in REGISTRY.items()}
        reg["bitmap-2018"]["metrics"] = reg["bitmap-2018"]["metrics"][:1]
        with self.assertRaisesRegex(ValueError, "drop_caches_ns_repeat"):
            reproduce.from_registry(reproduce.TABLES, reg, SEEDS)
        del reg["bitmap-2018"]
        with self.assertRaisesRegex(ValueError, "bitmap-2018 is not in"):
            reproduce.from_registry(reproduce.TABLES, reg, SEEDS)
        with self.assertRaises(ValueError):
            registry.parse('{"schema": "shrinklab/2", "experiments": []}')

    def test_every_table_names_the_kernels_clock(self):
        for t in TABLE.values():
            text = reproduce.table_text(t, [], "words", 2, SEEDS, "icount shift=3")
            self.assertIn("; kernel clock icount shift=3;", text.splitlines()[2], t.exp)

    def test_model_labels_to_run_options(self):
        self.assertEqual(reproduce.design_options("prealloc+expand_batch=512"),
                         ["--design", "prealloc", "--expand-batch", "512"])
        self.assertEqual(reproduce.design_options("flat+nonslab_ids"),
                         ["--design", "flat", "--nonslab-ids"])
        with self.assertRaises(ValueError):
            reproduce.design_options("prealloc+colour=red")


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        SHRINKLAB = sys.argv.pop(1)
    unittest.main()
