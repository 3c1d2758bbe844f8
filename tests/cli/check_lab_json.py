#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run `shrinklab reproduce --scale quick --json FILE` and check the JSON:
schema shrinklab/1, every experiment id and every metric of the lab's table
present for every design, values are numbers (or null when unavailable), and
each row has its scale, samples, min and max.

usage: check_lab_json.py SHRINKLAB OUT.json
"""
import json
import subprocess
import sys

EXPECTED = {
    "seed000-vm": ["slab_bytes_per_empty_cgroup", "walk_ns_empty_cgroup",
                   "walk_ns_cgroup_objects_100", "mkdir_rmdir_ns_per_cgroup",
                   "register_ns_per_mount_cgroups_alive"],
    "seed000-host": ["slab_bytes_per_empty_cgroup", "container_bytes_per_empty_cgroup",
                     "register_640_mounts_ns_cgroups_alive",
                     "register_640_mounts_ns_no_cgroups", "drop_caches_ns",
                     "walk_ns_per_cgroup_node"],
    "seed003-units": ["slab_bytes_per_empty_cgroup", "units_per_slab"],
    "seed001-pods": ["pod_create_ns_total", "registry_mutex_hold_ns_max",
                     "registry_mutex_hold_ns_median"],
    "seed004-bitmap": ["drop_caches_ns_first", "drop_caches_ns_repeat"],
}
DESIGNS = {
    "seed000-vm": ["prealloc+units=cache", "xarray", "array-ondemand", "prealloc"],
    "seed000-host": ["prealloc+units=cache", "array-ondemand", "xarray"],
    "seed003-units": ["prealloc", "prealloc+units=cache"],
    "seed001-pods": ["flat", "flat+expand_batch=8", "flat+expand_batch=32",
                     "flat+expand_batch=64", "flat+nonslab_ids", "prealloc", "xarray"],
    "seed004-bitmap": ["nobitmap", "flat", "xarray"],
}


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def main():
    exe, out = sys.argv[1], sys.argv[2]
    r = subprocess.run([exe, "reproduce", "--scale", "quick", "--quiet", "--json", out],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        fail("reproduce exited %d: %s" % (r.returncode, r.stderr))
    with open(out) as f:
        doc = json.load(f)
    if doc.get("schema") != "shrinklab/1":
        fail("schema is %r" % doc.get("schema"))
    exps = {e["id"]: e for e in doc["experiments"]}
    for eid, metrics in EXPECTED.items():
        if eid not in exps:
            fail("experiment %s missing" % eid)
        e = exps[eid]
        for k in ("mounts", "cgroups", "nodes"):
            if not isinstance(e["scale"].get(k), int) or e["scale"][k] < 1:
                fail("%s: scale.%s is %r" % (eid, k, e["scale"].get(k)))
        rows = {(x["design"], x["metric"]): x for x in e["results"]}
        for d in DESIGNS[eid]:
            for m in metrics:
                x = rows.get((d, m))
                if x is None:
                    fail("%s: no row for %s %s" % (eid, d, m))
                if x["unit"] not in ("B", "ns", "count"):
                    fail("%s %s %s: unit %r" % (eid, d, m, x["unit"]))
                if x.get("unavailable"):
                    if x["value"] is not None:
                        fail("%s %s %s: unavailable with a value" % (eid, d, m))
                    continue
                if not isinstance(x["value"], (int, float)) or x["value"] < 0:
                    fail("%s %s %s: value %r" % (eid, d, m, x["value"]))
                if not x["min"] <= x["value"] <= x["max"]:
                    fail("%s %s %s: median outside [min, max]" % (eid, d, m))
                if x["samples"] < 1 or "scale" not in x or "seed_value" not in x:
                    fail("%s %s %s: incomplete row" % (eid, d, m))
                if x["unit"] == "ns" and m.endswith(("_ns", "_first", "_repeat", "_cgroup",
                                                     "_node", "_total", "_alive")) \
                        and "mutex" not in m and x["samples"] < 5:
                    fail("%s %s %s: %d samples, want >= 5" % (eid, d, m, x["samples"]))
    print("ok: %d experiments" % len(exps))


main()
