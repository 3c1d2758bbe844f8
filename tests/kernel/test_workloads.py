# SPDX-License-Identifier: GPL-2.0
"""klab.workloads, the workloads with objects (kernel/guest/kwork):
  - a saved kwork document (every experiment, short geometry, mainline)
    validates against the schema and matches data/kernel_workloads.tsv row
    for row; one that drops, renames, re-units or re-times a row does not;
    the containers phases its command leaves out are not missing;
  - every parameter the workloads pass is one kwork knows (kwork --help,
    compiled here);
  - the containers disk holds one clean ext4 file system per slot, sparse;
  - the verdict tables (shrinklab judge work): ratio to mainline classed
    on the unpaired range,
    the best median by the metric's direction, none for a behaviour figure;
    a design whose every boot is above every boot of mainline is beyond the
    noise (over 2 boots or more each), within a class or not;
  - the model beside the kernel (klab.workmodel): the model's cell pairs by
    metric name and design mapping, with model/kernel; what the model does
    not model (page cache, kswapd) is named with a footnote, never a blank;
    the model's options are the guest's parameters;
  - the guests run on the clock asked for (icount by default, as klab lab's),
    kwork is told which, and the documents and the table's first line name
    the clock the boot counted;
  - klab work --from tables documents saved by runs made side by side, in
    round order, and refuses documents of two geometries.
Run: python3 tests/kernel/test_workloads.py (make check: Meson test kernel_workloads)."""
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import klabtest  # noqa: F401  (the klab package on the path)
from klab import boot, run, workloads, workmodel
from klab import guest as guest_programs
from klabtest import REPO, fixture
from schema_check import validate

SHRINKLAB = None  # argv[1] when run by path, else build/shrinklab of the repo


def judged(kernel, model=(), words="", clock="not recorded"):
    """shrinklab judge work over @kernel and @model: (comparison, text)."""
    return workloads.judged(SHRINKLAB or os.path.join(REPO, "build", "shrinklab"), kernel, model,
                            None, words, clock)


def join(kernel, model=()):
    return judged(kernel, model)[0]


def rows(doc):
    return [r for e in doc["experiments"] for r in e["results"]]


class Metrics(unittest.TestCase):
    def setUp(self):
        self.doc = fixture("work-short-mainline.json")

    def test_saved_document_validates_and_matches(self):
        validate(self.doc)
        self.assertEqual(workloads.check(self.doc), [])
        ids = [e["id"] for e in self.doc["experiments"]]
        self.assertEqual(ids, ["containers", "ramfs", "tkhai", "qizheng", "pods"])

    def test_departures_are_found(self):
        for what, change in (
                ("dropped", lambda d: d["experiments"][0]["results"].pop(7)),
                ("renamed", lambda d: rows(d)[3].update(metric="ct_dentries_x")),
                ("re-united", lambda d: rows(d)[0].update(unit="count")),
                ("untimed", lambda d: next(r for r in rows(d) if r["unit"] == "ns").update(
                    timed=False)),
                ("dropped at one level", lambda d: d["experiments"][0]["results"].pop())):
            doc = copy.deepcopy(self.doc)
            change(doc)
            self.assertTrue(workloads.check(doc), what)

    def test_phases_left_out_are_not_missing(self):
        doc = copy.deepcopy(self.doc)
        e = doc["experiments"][0]
        e["results"] = [r for r in e["results"] if not r["metric"].startswith(
            ("high_", "balloon_", "drop_"))]
        self.assertTrue(workloads.check(doc))
        doc["command"] = [a + ",phases=reclaim" if a.startswith("containers:") else a
                          for a in doc["command"]]
        self.assertEqual(workloads.check(doc), [])

    def test_data_file_rejects_a_bad_row(self):
        with tempfile.NamedTemporaryFile("w", suffix=".tsv") as f:
            f.write("metric\tx\ty\tns\ttimed\tsideways\twhat\n")
            f.flush()
            with self.assertRaises(ValueError):
                workloads.load_metrics(f.name)


class Parameters(unittest.TestCase):
    def test_every_parameter_is_known_to_kwork(self):
        cc = shutil.which("gcc") or shutil.which("cc")
        if not cc:
            self.skipTest("no C compiler")
        guest = os.path.join(REPO, "kernel", "guest")
        srcs = guest_programs.PROGRAMS["kwork"]
        with tempfile.TemporaryDirectory() as tmp:
            exe = os.path.join(tmp, "kwork")
            subprocess.run([cc, "-O1", "-Wall", "-Wextra", "-Werror", "-o", exe] +
                           [os.path.join(guest, s) for s in srcs] + ["-lm"], check=True)
            usage = subprocess.run([exe, "--help"], stderr=subprocess.PIPE, text=True).stderr
        known, exp = {}, None
        for line in usage.splitlines():
            m = re.match(r"  (\w+): ", line)
            if m:
                exp = m.group(1)
                known[exp] = set()
            m = re.match(r"    (\w+) +\[", line)
            if m and exp:
                known[exp].add(m.group(1))
        for name, geos in workloads.WORKLOADS.items():
            for geo, g in geos.items():
                for e, params in g["exps"]:
                    self.assertIn(e, known, "%s/%s" % (name, geo))
                    self.assertEqual(set(params) - known[e], set(), "%s/%s %s" % (name, geo, e))


class Disk(unittest.TestCase):
    def test_slots_are_clean_ext4_and_sparse(self):
        if not shutil.which("mkfs.ext4") or not shutil.which("e2fsck"):
            self.skipTest("no e2fsprogs")
        mib = 8
        with tempfile.TemporaryDirectory() as tmp:
            disk = os.path.join(tmp, "ct.img")
            workloads.ct_disk(disk, 3, mib)
            self.assertEqual(os.path.getsize(disk), 3 * mib << 20)
            self.assertLess(os.stat(disk).st_blocks * 512, 3 * mib << 20)
            with open(disk, "rb") as f:
                f.seek(2 * mib << 20)
                slot = f.read(mib << 20)
            one = os.path.join(tmp, "slot2.img")
            with open(one, "wb") as f:
                f.write(slot)
            r = subprocess.run(["e2fsck", "-fn", one], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            self.assertEqual(r.returncode, 0, r.stdout)

    def test_slots_count_levels_containers_and_ext4_mounts(self):
        self.assertEqual(workloads.containers_slots(
            dict(bg="0+500", containers=3, mix="ext4+proc+ext4")), 12)


def scaled(doc, design, factors):
    """@doc as design @design, each metric's figures times factors.get(metric, 1)."""
    d = copy.deepcopy(doc)
    d["run"]["design"] = "kernel:" + design
    for r in rows(d):
        r["design"] = "kernel:" + design
        f = factors.get(r["metric"], 1)
        r["value"], r["min"], r["max"] = r["value"] * f, r["min"] * f, r["max"] * f
        r["samples"] = [x * f for x in r["samples"]]
    return d


class Tables(unittest.TestCase):
    def test_ratio_class_and_best_by_direction(self):
        base = fixture("work-short-mainline.json")
        other = scaled(base, "xarray", {"reclaim_ns_no_mounts": 0.01,
                                        "ramfs_stress_ng_ops_per_s": 2.0,
                                        "ct_dentries_no_mounts": 3.0})
        cmp = join([base, other])
        self.assertEqual(cmp["designs"], ["mainline", "xarray"])
        by = {(e["id"], m["metric"]): m for e in cmp["experiments"] for m in e["metrics"]}
        rec = by[("containers", "reclaim_ns_no_mounts")]
        self.assertEqual(rec["better"], "lower")
        self.assertEqual(rec["best"], ["xarray"])
        self.assertEqual(rec["designs"]["xarray"]["ratio"]["cls"], "lower")
        ops = by[("ramfs", "ramfs_stress_ng_ops_per_s")]
        self.assertEqual(ops["better"], "higher")
        self.assertEqual(ops["best"], ["xarray"])
        den = by[("containers", "ct_dentries_no_mounts")]
        self.assertIsNone(den["best"])
        self.assertEqual(den["designs"]["xarray"]["ratio"]["cls"], "higher")
        same = by[("pods", "pod_create_ns_total")]
        self.assertEqual(same["best"], ["mainline", "xarray"])
        text = judged([base, other], (), "words", "wall")[1]
        for want in ("== containers", "== pods", "kernel:xarray", "reclaim_ns_no_mounts"):
            self.assertIn(want, text)
        self.assertIn("*", text)
        heads = [x for x in text.splitlines() if x.startswith("== ")]
        self.assertTrue(heads)
        for h in heads:
            self.assertIn("(clock: wall, the guest's CLOCK_MONOTONIC)", h)


def model_doc(kernel, label, factor, drop=("ct_file_bytes", "reclaim_file_freed_bytes",
                                           "high_pgscan", "high_pgsteal", "balloon_")):
    """A stand-in for `shrinklab containers`' document: @kernel's containers
    rows as design @label, times @factor, without the rows the model leaves
    out."""
    e = copy.deepcopy(kernel["experiments"][0])
    e["results"] = [dict(r, design=label) for r in e["results"]
                    if not r["metric"].startswith(drop)]
    for r in e["results"]:
        r["value"], r["min"], r["max"] = (x * factor for x in (r["value"], r["min"], r["max"]))
    return {"schema": "shrinklab/2", "command": ["shrinklab", "containers"],
            "experiments": [e]}


class ModelBeside(unittest.TestCase):
    """klab work: the model's figure beside each kernel figure of the
    containers table, model/kernel, and what the model does not model named
    instead of a blank (workloads.not_modelled)."""

    def setUp(self):
        self.kernel = fixture("work-short-mainline.json")
        self.model = [model_doc(self.kernel, "prealloc", 0.5)]
        self.cmp = join([self.kernel], self.model)
        self.by = {(e["id"], m["metric"]): m for e in self.cmp["experiments"]
                   for m in e["metrics"]}

    def test_model_cell_and_ratio_pair_by_name_and_mapping(self):
        rec = self.by[("containers", "reclaim_ns_no_mounts")]["designs"]["mainline"]
        self.assertAlmostEqual(rec["model"]["value"], rec["kernel"]["value"] * 0.5)
        self.assertAlmostEqual(rec["model_ratio"]["value"], 0.5)
        self.assertNotIn("model_leaves_out", self.by[("containers", "reclaim_ns_no_mounts")])

    def test_what_the_model_leaves_out_is_named(self):
        for metric, kind in (("ct_file_bytes_no_mounts", "absent"),
                             ("balloon_kswapd_cpu_ns", "absent"),
                             ("high_pgscan_per_file", "absent"),
                             ("ct_memory_bytes_no_mounts", "part"),
                             ("teardown_rmdir_ns", "part")):
            self.assertEqual(self.by[("containers", metric)]["model_leaves_out"]["kind"], kind,
                             metric)
        self.assertNotIn("model_leaves_out", self.by[("ramfs", "ramfs_stress_ng_ops_per_s")])
        text = judged([self.kernel], self.model)[1]
        lines = text.split("\n")
        i = next(k for k, x in enumerate(lines) if x.strip().startswith("balloon_kswapd_cpu_ns "))
        self.assertIn("not modelled [", lines[i + 1])
        i = next(k for k, x in enumerate(lines) if x.strip().startswith("reclaim_ns_no_mounts "))
        self.assertRegex(lines[i + 1], r"model .*\(m/k x0\.5\)")
        for why in ("page cache", "kswapd", "page LRU", "writer writes page cache",
                    "rmdir \\+ release"):
            self.assertRegex(text, r"\[[a-z]\] [^\n]*" + why)
        # Under every containers metric a model figure or what it leaves out:
        # never a blank.
        ct = text.split("== containers")[1].split("== ")[0]
        for line in ct.split("\n"):
            if line.strip().startswith("model ") and "shrinklab" not in line:
                self.assertNotRegex(line, r"model\s+-(\s|$)", line)
        # No model line in a table the model does not run.
        ramfs = text.split("== ramfs")[1].split("== ")[0]
        self.assertNotIn("model", ramfs)

    def test_model_options_are_the_guests(self):
        args = workmodel.container_args(self.kernel, 6358)
        opts = dict(zip(args[::2], args[1::2]))
        self.assertEqual(opts["--containers"], "3")
        self.assertEqual(opts["--bg"], "0+500")
        self.assertEqual(opts["--writer-files"], "200")
        self.assertEqual(opts["--proc-files"], "6358")
        self.assertEqual(opts["--nodes"], "4")
        self.assertNotIn("--bytes", opts)
        self.assertEqual(workmodel.proc_walk_entries(
            "[klab      3.42] containers: procfs walk: 6358 entries\n"), 6358)
        self.assertIsNone(workmodel.proc_walk_entries("no walk here"))

    def test_console_found_in_the_run_or_a_saved_directory(self):
        doc = copy.deepcopy(self.kernel)
        doc["run"].update(boot=1)
        with tempfile.TemporaryDirectory() as out, tempfile.TemporaryDirectory() as saved:
            with open(os.path.join(saved, "work-short-containers-mainline-1.console"),
                      "w") as f:
                f.write("containers: procfs walk: 42 entries\n")
            r = run.Run(out)
            self.assertEqual(workmodel.console_of(r, doc, "short"), "")
            self.assertEqual(workmodel.proc_walk_entries(
                workmodel.console_of(r, doc, "short", [saved])), 42)


class Noise(unittest.TestCase):
    def test_every_boot_above_mainlines_is_beyond_the_noise(self):
        base = fixture("work-short-mainline.json")
        docs = [scaled(base, "mainline", {}), scaled(base, "mainline", {"pod_mount_ns": 1.1}),
                scaled(base, "xarray", {"pod_mount_ns": 1.15, "pod_mkdir_ns": 1.05}),
                scaled(base, "xarray", {"pod_mount_ns": 1.2})]
        by = {m["metric"]: m for e in join(docs)["experiments"] for m in e["metrics"]}
        mount = by["pod_mount_ns"]["designs"]["xarray"]["ratio"]
        self.assertEqual(mount["cls"], "same")    # 1.15/1.1 .. 1.2/1.0: within the class
        self.assertEqual(mount["beyond"], "above")
        self.assertIsNone(by["pod_mkdir_ns"]["designs"]["xarray"]["ratio"]["beyond"])
        text = judged(docs)[1]
        self.assertIn("same, >noise", text)
        one = join([base, scaled(base, "xarray", {"pod_mount_ns": 2.0})])
        by = {m["metric"]: m for e in one["experiments"] for m in e["metrics"]}
        self.assertIsNone(by["pod_mount_ns"]["designs"]["xarray"]["ratio"]["beyond"])


class Clock(unittest.TestCase):
    def boots(self, **kw):
        """work_boots of the pods workload on mainline with a fake boot
        that answers the saved document; (the specs booted, the docs)."""
        specs = []
        saved = fixture("work-short-mainline.json")
        pods = dict(saved, experiments=[e for e in saved["experiments"] if e["id"] == "pods"])

        def fake_boot(r, label, spec):
            specs.append(spec)
            res = boot.BootResult(status=0, stdout=json.dumps(pods), accel="tcg", wall=1.0)
            res.clock = boot.clock_words(spec.clock, "tcg")
            return res

        class D:
            name = "mainline"

            def series_hash(self):
                return "0123"
        real = workloads.checked_boot
        workloads.checked_boot = fake_boot
        try:
            with tempfile.TemporaryDirectory() as tmp:
                r = run.Run(tmp)
                docs = workloads.work_boots(r, [D()], {"mainline": "bz"}, "kwork", "short", 1,
                                            ["pods"], **kw)
                self.assertEqual(r.fails, [])
        finally:
            workloads.checked_boot = real
        return specs, docs

    def test_icount_by_default_and_named(self):
        specs, docs = self.boots()
        self.assertEqual(specs[0].clock, "icount")
        self.assertIn("-icount", boot.qemu_cmd(specs[0], "i", "tcg", "c", "o", "s"))
        self.assertEqual(specs[0].args[specs[0].args.index("--clock") + 1], "icount")
        self.assertEqual(docs[0]["run"]["clock"], "icount")
        self.assertEqual(docs[0]["run"]["series_hash"], "0123")
        self.assertTrue(docs[0]["machine"]["clock"].startswith("icount shift="))
        self.assertIn("clock: icount shift=", workloads.summary_words(docs, "short", 1))

    def test_wall_when_asked(self):
        specs, docs = self.boots(clock="wall")
        self.assertEqual(specs[0].clock, "wall")
        self.assertNotIn("-icount", boot.qemu_cmd(specs[0], "i", "tcg", "c", "o", "s"))
        self.assertIn("clock: wall", workloads.summary_words(docs, "short", 1))


class SavedDocs(unittest.TestCase):
    def test_runs_side_by_side_give_one_table(self):
        from klab.commands import work
        base = fixture("work-short-mainline.json")
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
            for d, design, rnd in ((a, "mainline", 1), (a, "xarray", 0), (b, "mainline", 0)):
                doc = copy.deepcopy(base)
                doc["run"].update(boot=rnd, workload="pods", design="kernel:" + design)
                with open(os.path.join(d, "work-short-pods-%s-%d.json" % (design, rnd)),
                          "w") as f:
                    json.dump(doc, f)
            with open(os.path.join(a, "kernel-work-short.json"), "w") as f:
                f.write("{}")  # a run's combined document is not a guest's
            docs, geo = work.saved_docs([a, b])
            self.assertEqual(geo, "short")
            self.assertEqual([(d["run"]["boot"], d["run"]["design"]) for d in docs],
                             [(0, "kernel:xarray"), (0, "kernel:mainline"),
                              (1, "kernel:mainline")])
            self.assertEqual(len(work.saved_docs([a, b], keep=["mainline"])[0]), 2)
            cmp = join(docs)
            self.assertEqual(cmp["designs"], ["mainline", "xarray"])
            doc = copy.deepcopy(base)
            doc["run"].update(boot=0, workload="pods", design="kernel:xarray", scale="mid")
            with open(os.path.join(b, "work-mid-pods-xarray-0.json"), "w") as f:
                json.dump(doc, f)
            with self.assertRaises(ValueError):
                work.saved_docs([a, b])


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        SHRINKLAB = sys.argv.pop(1)
    unittest.main()
