#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run `shrinklab containers` (the kernel lab's container workload in the
model) at a tiny geometry with two designs, and check its JSON rows against
the guest's metric file, data/kernel_workloads.tsv:

- the document validates (schema shrinklab/2) and holds one experiment,
  "containers";
- for every design and every background level (_no_mounts, _m<M>, the last
  one bare), every containers metric of the file is there with the file's
  unit and kind (timed or reading), except those klab work says the model
  leaves out (data/kernel_workloads.tsv's leaves_out rows: page cache, pages,
  the balloon),
  and no other row; timed rows carry --samples samples;
- the rows measure what they say: each container made the dentries and
  inodes its mounts hold (ext4: dirs + 1 + files + missing names, proc:
  --proc-files, tmpfs: --tmpfs-files pinned), at the level's background
  mounts; memory.reclaim, drop_caches freed objects; the writer went over
  its high; teardown left no container dying;
- --phases reclaim drops the high and drop rows and keeps teardown's.

usage: check_containers_model.py SHRINKLAB WORKDIR
"""
import json
import os
import re
import shutil
import subprocess
import sys

from schema_check import validate

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(REPO, "kernel", "py"))
from klab import workloads  # noqa: E402

DESIGNS = ["prealloc", "xarray+units=kmalloc"]
GEO = {"--containers": 2, "--files": 40, "--dirs": 3, "--negative": 30, "--tmpfs-files": 4,
       "--proc-files": 25, "--bg": "0+20+50", "--samples": 3, "--writer-files": 60,
       "--high-margin-kib": 8, "--host-shrinkers": 20, "--nodes": 2, "--cpus": 2}
LEVELS = {"_no_mounts": 0, "_m20": 20, "": 50}


def fail(msg, out=""):
    print("FAIL:", msg)
    if out:
        print(out[-3000:])
    sys.exit(1)


def run(exe, out, extra=()):
    args = [exe, "containers", "--quiet", "--json", out]
    for d in DESIGNS:
        args += ["--design", d]
    for k, v in GEO.items():
        args += [k, str(v)]
    r = subprocess.run(args + list(extra), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=300)
    if r.returncode:
        fail("%s exited %d" % (" ".join(args), r.returncode), r.stdout)
    with open(out) as f:
        doc = json.load(f)
    validate(doc)
    if [e["id"] for e in doc["experiments"]] != ["containers"]:
        fail("experiments %r" % [e["id"] for e in doc["experiments"]])
    return doc


def wanted(phases):
    """{metric: (unit, timed)} the model must write at every level."""
    out = {}
    skip = tuple(workloads.PHASE_PREFIX[p] for p in workloads.PHASE_PREFIX if p not in phases)
    for m in workloads.load_metrics():
        if m.experiment != "containers" or (skip and m.name.startswith(skip)):
            continue
        for sfx in LEVELS:
            name = m.name.replace("{level}", sfx)
            left = workloads.not_modelled("containers", name)
            if left and left[0] == "absent":
                continue
            out[name] = (m.unit, m.kind == "timed")
    return out


def check_rows(doc, phases):
    want = wanted(phases)
    rows = {}
    for r in doc["experiments"][0]["results"]:
        if r["unavailable"]:
            fail("%s %s unavailable" % (r["design"], r["metric"]))
        rows[(r["design"], r["metric"])] = r
    for d in DESIGNS:
        have = {m for (dd, m) in rows if dd == d}
        if have != set(want):
            fail("%s: missing %s; not in the data file %s" % (
                d, sorted(set(want) - have), sorted(have - set(want))))
        for m, (unit, timed) in want.items():
            r = rows[(d, m)]
            if r["unit"] != unit or bool(r["timed"]) != timed:
                fail("%s %s is %s/%s, the data file says %s/%s" % (
                    d, m, r["unit"], r["timed"], unit, timed))
            if timed and m.startswith(("reclaim_ns", "reclaim_drained_ns", "drop_caches",
                                        "high_")) and r["n"] != GEO["--samples"]:
                fail("%s %s has %d samples" % (d, m, r["n"]))
    return rows


def level_of(metric):
    m = re.search(r"(_no_mounts|_m[0-9]+)$", metric)
    return m.group(1) if m else ""


def check_figures(rows, phases):
    g = {k.lstrip("-").replace("-", "_"): v for k, v in GEO.items()}
    dentries = (g["dirs"] + 1 + g["files"] + g["negative"]) + g["proc_files"] + 2 * g["tmpfs_files"]
    inodes = (g["dirs"] + 1 + g["files"]) + g["proc_files"] + 2 * g["tmpfs_files"]
    for (d, m), r in rows.items():
        sfx = level_of(m)
        if r["geometry"]["mounts"] != LEVELS[sfx]:
            fail("%s %s measured at %d background mounts, not %d" % (
                d, m, r["geometry"]["mounts"], LEVELS[sfx]))
        base = m[:len(m) - len(sfx)] if sfx else m
        checks = {
            "ct_dentries": lambda v: v == dentries,
            "ct_inodes": lambda v: v == inodes,
            "reclaim_dentries_freed": lambda v: v > 0,
            "reclaim_freed_bytes": lambda v: v > 0,
            "drop_dentries_freed": lambda v: v > 0,
            "high_events": lambda v: v > 0,
            "teardown_dying": lambda v: v == 0,
            "teardown_umount_ns": lambda v: v > 0,
        }
        if base in checks and not checks[base](r["value"]):
            fail("%s %s = %r" % (d, m, r["value"]))
    print("ok: %d rows, %d dentries and %d inodes per container, objects freed" % (
        len(rows), dentries, inodes))


def main():
    exe, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    doc = run(exe, os.path.join(work, "all.json"))
    phases = set(workloads.PHASE_PREFIX)
    check_figures(check_rows(doc, phases), phases)
    doc = run(exe, os.path.join(work, "reclaim.json"), ["--phases", "reclaim"])
    rows = check_rows(doc, {"reclaim"})
    if any(m.startswith(("high_", "drop_")) for _, m in rows):
        fail("--phases reclaim wrote high or drop rows")
    print("ok: --phases reclaim: reclaim and teardown rows only")


if __name__ == "__main__":
    main()
