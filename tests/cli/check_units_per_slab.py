#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The unit source the lab reports is the one the units really came from:
xarray with units=kmalloc reports kmalloc-1k's 16 objects per order-2 slab,
with the dedicated cache 31 (unit-cache-2026's figures, SLUB geometry for 4 CPUs);
prealloc is mainline by default (kmalloc-1k) and takes the seeds' cache only
with units=cache.

usage: check_units_per_slab.py SHRINKLAB OUTDIR
"""
import json
import os
import subprocess
import sys


def units_per_slab(exe, out, extra, design="xarray"):
    r = subprocess.run([exe, "run", "--design", design, "--experiment", "unit-cache-2026",
                        "--scale", "quick", "--quiet", "--json", out] + extra,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode:
        print("FAIL: exit %d: %s" % (r.returncode, r.stderr))
        sys.exit(1)
    rows = json.load(open(out))["experiments"][0]["results"]
    row = [x for x in rows if x["metric"] == "units_per_slab"][0]
    return row["value"], row["geometry"]["note"]


exe, outdir = sys.argv[1], sys.argv[2]
km = units_per_slab(exe, os.path.join(outdir, "units_kmalloc.json"), ["--units", "kmalloc"])
ca = units_per_slab(exe, os.path.join(outdir, "units_cache.json"), [])
pm = units_per_slab(exe, os.path.join(outdir, "units_prealloc.json"), [], "prealloc")
pc = units_per_slab(exe, os.path.join(outdir, "units_prealloc_cache.json"),
                    ["--units", "cache"], "prealloc")
print("xarray+units=kmalloc:", km, "xarray:", ca, "prealloc:", pm, "prealloc+units=cache:", pc)
if km[0] != 16 or "kmalloc-1k" not in km[1] or ca[0] != 31 or "shrinker_info_unit" not in ca[1]:
    print("FAIL")
    sys.exit(1)
if pm[0] != 16 or "kmalloc-1k" not in pm[1] or pc[0] != 31 or "shrinker_info_unit" not in pc[1]:
    print("FAIL: prealloc must take kmalloc-1k by default and the cache with units=cache")
    sys.exit(1)
