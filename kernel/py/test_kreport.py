# SPDX-License-Identifier: GPL-2.0
"""Self-tests of what the host reads from the guests: the splat check must
catch each kind of report and pass an OOM-killer report; the selftest parser
must count passes and failures; a regression against mainline must show;
the guest's JSON writer (kjson.c, compiled here with a test driver) and a
saved guest document must validate against docs/shrinklab.schema.json; the
join of kernel and model must pair every metric, take model/kernel from the
two medians, and judge which design is better on the spread.
Run: python3 kernel/py/test_kreport.py (klab check runs it first; make check
runs it as the Meson test kernel_lab_host)."""
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "cli"))
import kcompare  # noqa: E402
import kreport  # noqa: E402
import klabmain  # noqa: E402
from schema_check import validate  # noqa: E402

FIXTURES = os.path.join(HERE, "fixtures")

SPLATS = [
    "[   12.1] WARNING: CPU: 1 PID: 77 at mm/shrinker.c:120 shrinker_free+0x1/0x2",
    "[   12.1] BUG: KASAN: slab-use-after-free in shrink_slab+0x10/0x20",
    "[   12.1] BUG: kernel NULL pointer dereference, address: 0000000000000008",
    "[   12.1] Oops: 0000 [#1] SMP",
    "[   12.1] WARNING: possible circular locking dependency detected",
    "[   12.1] WARNING: suspicious RCU usage",
    "[   12.1] list_add corruption. next->prev should be prev (ffff), but was 0000",
    "[   12.1] kmemleak: 3 new suspected memory leaks (see /sys/kernel/debug/kmemleak)",
    "unreferenced object 0xffff888003a1c000 (size 1024):",
    "[   12.1] Kernel panic - not syncing: Fatal exception",
    "[   12.1] BUG kmalloc-1k (Not tainted): Poison overwritten",
    "[   12.1] rcu: INFO: rcu_preempt self-detected stall on CPU",
    "[   12.1] BUG radix_tree_node (Tainted: G    B): Object already free",
]

CLEAN = """[    1.0] Linux version 6.12.117+ (root@host) (gcc 12) #1 SMP
[    5.2] test_memcontrol invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0
[    5.2] CPU: 0 UID: 0 PID: 88 Comm: test_memcontrol Not tainted 6.12.117+ #1
[    5.2] Call Trace:
[    5.2]  <TASK>
[    5.2]  dump_stack_lvl+0x1/0x2
[    5.2] memory: usage 30720kB, limit 30720kB, failcnt 10
[    5.2] Memory cgroup out of memory: Killed process 89 (test_memcontrol)
[    6.0] kasan: KernelAddressSanitizer initialized (generic)
[    6.0] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar
"""

TAP = """KLAB-SELFTEST-BEGIN test_kmem
TAP version 13
1..3
ok 1 test_kmem_basic
not ok 2 test_kmem_memcg_deletion
ok 3 test_percpu_basic # SKIP no percpu
KLAB-SELFTEST-END test_kmem 1
"""


class Splats(unittest.TestCase):
    def test_each_kind_is_caught(self):
        for line in SPLATS:
            self.assertTrue(kreport.splats(CLEAN + line + "\n"), line)

    def test_oom_report_and_boot_banners_pass(self):
        self.assertEqual(kreport.splats(CLEAN), [])


class Selftests(unittest.TestCase):
    def test_parse(self):
        r = kreport.parse_selftests(TAP)
        self.assertEqual(r["test_kmem"]["exit"], 1)
        self.assertEqual(r["test_kmem"]["tests"], {
            "test_kmem_basic": "pass", "test_kmem_memcg_deletion": "fail",
            "test_percpu_basic": "skip"})

    def test_regression_against_mainline(self):
        design = kreport.parse_selftests(TAP)
        base = kreport.parse_selftests(TAP.replace("not ok 2", "ok 2"))
        self.assertEqual(klabmain.regressions(base, design), ["test_kmem_memcg_deletion"])
        self.assertEqual(klabmain.regressions(design, design), [])


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return json.load(f)


class GuestJson(unittest.TestCase):
    def test_writer_output_validates(self):
        """kjson.c through a driver: escapes, samples, a negative fit."""
        cc = shutil.which("gcc") or shutil.which("cc")
        if not cc:
            self.skipTest("no C compiler")
        guest = os.path.join(REPO, "kernel", "guest")
        with tempfile.TemporaryDirectory() as tmp:
            exe = os.path.join(tmp, "test_kjson")
            subprocess.run([cc, "-Wall", "-Wextra", "-Werror", "-o", exe,
                            os.path.join(guest, "test_kjson.c"), os.path.join(guest, "kjson.c"),
                            "-lm"], check=True)
            out = subprocess.run([exe, "--x", 'a"b'], check=True, stdout=subprocess.PIPE,
                                 text=True).stdout
        doc = json.loads(out)
        validate(doc)
        self.assertEqual(doc["schema"], "shrinklab/2")
        self.assertEqual(doc["command"][1:], ["--x", 'a"b'])
        self.assertEqual([e["id"] for e in doc["experiments"]], ["units", "drop_caches"])
        self.assertEqual(doc["experiments"][0]["elapsed_ns"], 1500)
        drop = doc["experiments"][1]["results"]
        self.assertEqual(drop[0]["samples"], [3e6, 2.5e6, 2.9e6, 6.4e6, 2.8e6])
        self.assertLess(drop[1]["value"], 0)
        self.assertTrue(drop[0]["timed"])
        self.assertFalse(drop[1]["timed"])

    def test_negative_clock_sample_is_invalid(self):
        doc = fixture("guest-short-mainline.json")
        r = next(x for e in doc["experiments"] for x in e["results"] if x["timed"])
        r["samples"][0] = -1
        with self.assertRaises(Exception):
            validate(doc)

    def test_saved_guest_document_validates(self):
        doc = fixture("guest-short-mainline.json")
        validate(doc)
        self.assertEqual(doc["tool"]["name"], "klab-guest")
        self.assertEqual(doc["machine"]["nodes"], 4)
        for e in doc["experiments"]:
            for r in e["results"]:
                self.assertEqual(r["n"], len(r["samples"]), r["metric"])
                if r["timed"] and r["n"] > 1:
                    self.assertIn(r["value"], sorted(r["samples"]) + [
                        (sorted(r["samples"])[r["n"] // 2 - 1] +
                         sorted(r["samples"])[r["n"] // 2]) / 2])

    def test_model_options_from_the_guest(self):
        """The model runs at the N the guest really used at each step."""
        doc = fixture("guest-short-mainline.json")
        args = klabmain.model_geometry(doc, "short")
        opt = dict(zip(args[::2], args[1::2]))
        self.assertEqual(opt["--ladder"], "1,12")
        self.assertEqual(opt["--cgroups"], "200")
        self.assertEqual(opt["--top-cgroups"], "200")
        self.assertEqual(opt["--register-cgroups"], "200")
        self.assertEqual(opt["--host-shrinkers"], "22")
        self.assertEqual((opt["--nodes"], opt["--cpus"]), ("4", "2"))


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
        self.cmp = kcompare.join(self.kernel, self.model)

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
        text = kcompare.tables(self.cmp, "geometry words")
        for e in ("units", "drop_caches", "churn", "highwater", "register"):
            self.assertIn("== %s: kernel beside model" % e, text)
        self.assertIn("kernel:xarray = xarray+units=kmalloc", text)
        self.assertIn("which design is better", text)

    def test_rows_of_separate_model_runs_are_not_paired(self):
        """klab runs each model design alone: no per-round pairing then."""
        m0 = self.model[0]
        apart = [copy.deepcopy(m0), copy.deepcopy(m0)]
        for doc, keep in zip(apart, ("prealloc", "xarray+units=kmalloc")):
            for e in doc["experiments"]:
                e["results"] = [r for r in e["results"] if r["design"] == keep]
        cmp = kcompare.join(self.kernel, apart)
        e = next(e for e in cmp["experiments"] if e["id"] == "drop_caches")
        v = next(m for m in e["metrics"] if m["metric"] == "drop_caches_ns")["versus_base"][0]
        self.assertFalse(v["model"]["paired"])
        self.assertLessEqual(v["model"]["min"], 2)
        self.assertGreaterEqual(v["model"]["max"], 2)

    def test_combined_document(self):
        """klab lab's one JSON: every guest's and model run's own document
        (each valid shrinklab/2) and the comparison, as JSON text."""
        doc = json.loads(json.dumps(kcompare.combined(self.kernel, self.model, self.cmp,
                                                      {"geometry": "short", "boots": 1})))
        self.assertEqual(doc["schema"], "klab-lab/1")
        for d in doc["kernel"] + doc["model"]:
            validate(d)
        self.assertEqual(doc["comparison"]["designs"], ["mainline", "xarray"])
        self.assertEqual(doc["comparison"]["mapping"]["xarray"]["model"],
                         "xarray+units=kmalloc")

    def test_verdict_rules(self):
        R = kcompare.Ratio
        self.assertEqual(kcompare.classify(R(0.5, 0.4, 0.79)), "lower")
        self.assertEqual(kcompare.classify(R(1, 0.8, 1.25)), "same")
        self.assertEqual(kcompare.classify(R(2, 1.26, 3)), "higher")
        self.assertEqual(kcompare.classify(R(1, 0.7, 1.1)), "across")
        self.assertEqual(kcompare.verdict("lower", "lower"), "agree")
        self.assertEqual(kcompare.verdict("lower", "same"), "disagree")
        self.assertEqual(kcompare.verdict("across", "lower"), "inconclusive")
        self.assertEqual(kcompare.verdict(None, "lower"), "not compared")

    def test_mapping_file_of_a_series_wins(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "indexed"))
            with open(os.path.join(tmp, "indexed", "model"), "w") as f:
                f.write("# root bits kept, as the series does\nindexed+units=kmalloc\n")
            label, notes = kcompare.model_design("indexed", tmp)
        self.assertEqual(label, "indexed+units=kmalloc")
        self.assertEqual(notes, ["root bits kept, as the series does"])
        self.assertEqual(kcompare.model_design("indexed")[0],
                         "indexed+units=kmalloc+root_bits=off")
        self.assertIsNone(kcompare.model_design("zztest")[0])


if __name__ == "__main__":
    unittest.main()
