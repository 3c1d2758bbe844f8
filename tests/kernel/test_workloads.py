# SPDX-License-Identifier: GPL-2.0
"""klab.workloads, the workloads with objects (kernel/guest/kwork):
  - a saved kwork document (every experiment, short geometry, mainline)
    validates against the schema and matches data/kernel_workloads.tsv row
    for row; one that drops, renames, re-units or re-times a row does not;
    the containers phases its command leaves out are not missing;
  - every parameter the workloads pass is one kwork knows (kwork --help,
    compiled here);
  - the containers disk holds one clean ext4 file system per slot, sparse;
  - the verdict tables: ratio to mainline classed on the unpaired range,
    the best median by the metric's direction, none for a behaviour figure.
Run: python3 tests/kernel/test_workloads.py (make check: Meson test kernel_workloads)."""
import copy
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import klabtest  # noqa: F401  (the klab package on the path)
from klab import workloads
from klabtest import REPO, fixture
from schema_check import validate


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
        srcs = ["kwork.c", "kwlib.c", "kw_containers.c", "kw_reviewers.c", "kw_pods.c",
                "kutil.c", "kjson.c"]
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
        cmp = workloads.join([base, other])
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
        same = by[("pods", "pods_total_ns")]
        self.assertEqual(same["best"], ["mainline", "xarray"])
        text = workloads.tables(cmp, "words")
        for want in ("== containers", "== pods", "kernel:xarray", "reclaim_ns_no_mounts"):
            self.assertIn(want, text)
        self.assertIn("*", text)
        heads = [x for x in text.splitlines() if x.startswith("== ")]
        self.assertTrue(heads)
        for h in heads:
            self.assertIn("(clock: wall, the guest's CLOCK_MONOTONIC)", h)


if __name__ == "__main__":
    unittest.main()
