#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run `shrinklab kernel` at the geometry of a saved kernel guest document
(tests/kernel/fixtures/guest-short-mainline.json, the short geometry) with the
four model designs the kernel designs map to, and check that the model ran
the guest's experiments: the JSON validates against
data/shrinklab.schema.json (schema shrinklab/2); every metric the guest
wrote is there for every design, measured at the guest's geometry (the same
mounts, cgroups and units per node, row by row: the same script); timed rows
carry their samples; the designs' labels say which variant ran
(indexed+units=kmalloc+root_bits=off).

usage: check_kernel_model.py SHRINKLAB OUT.json
"""
import json
import os
import subprocess
import sys

from schema_check import validate

HERE = os.path.dirname(os.path.abspath(__file__))
GUEST = os.path.join(HERE, "..", "kernel", "fixtures", "guest-short-mainline.json")
DESIGNS = ["prealloc", "xarray+units=kmalloc", "prealloc+lru_reparent=index",
           "indexed+units=kmalloc+root_bits=off"]
# The guest counts the objects of every *shrinker* cache it finds; mainline
# has none. The model always reports its own (shrinker_info_unit).
MODEL_ONLY = "shrinker_info_unit_objs"


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def rows(doc):
    return {(e["id"], r["metric"], r["design"]): r for e in doc["experiments"]
            for r in e["results"]}


def main():
    exe, out = sys.argv[1], sys.argv[2]
    with open(GUEST) as f:
        guest = json.load(f)
    first = guest["experiments"][0]["results"][0]["geometry"]
    cmd = guest["command"][1:]
    opts = dict(zip(cmd[::2], cmd[1::2]))
    got = {}
    for e in guest["experiments"]:
        for r in e["results"]:
            got.setdefault((e["id"], r["metric"]), r)
    ncg = {m: got[("drop_caches", m)]["geometry"]["cgroups"]
           for m in ("drop_caches_ns_no_mounts", "drop_caches_ns")}
    reg = next(r for (e, m), r in got.items() if e == "register" and m.endswith("_alive"))
    args = [exe, "kernel", "--quiet", "--json", out, "--host-shrinkers",
            str(first["host_shrinkers"]), "--nodes", str(guest["machine"]["nodes"]), "--cpus",
            str(guest["machine"]["cpus"]), "--cgroups", str(ncg["drop_caches_ns_no_mounts"]),
            "--top-cgroups", str(ncg["drop_caches_ns"]), "--register-cgroups",
            str(reg["geometry"]["cgroups"])]
    for k in ("--ladder", "--units-cgroups", "--churn-cgroups", "--samples", "--churn-samples",
              "--register-batch", "--register-samples", "--highwater-mounts", "--walk-points"):
        args += [k, opts[k]]
    for d in DESIGNS:
        args += ["--design", d]
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=600)
    if r.returncode:
        fail("exit %d\n%s\n%s" % (r.returncode, r.stdout[-2000:], r.stderr[-2000:]))
    with open(out) as f:
        model = json.load(f)
    validate(model)
    if model["run"]["subcommand"] != "kernel" or model["tool"]["name"] != "shrinklab":
        fail("run/tool: %r %r" % (model["run"], model["tool"]))
    mrows = rows(model)
    n = 0
    for (exp, metric), k in got.items():
        for d in DESIGNS:
            m = mrows.get((exp, metric, d))
            if m is None:
                fail("%s %s: no model row for %s" % (exp, metric, d))
            gk, gm = k["geometry"], m["geometry"]
            for key in ("mounts", "cgroups", "units", "host_shrinkers", "nodes", "cpus"):
                if gk[key] != gm[key]:
                    fail("%s %s %s: %s %r in the model, %r in the guest" %
                         (exp, metric, d, key, gm[key], gk[key]))
            if m["timed"] != k["timed"] or m["n"] != k["n"] or len(m["samples"]) != m["n"]:
                fail("%s %s %s: timed %r n %d (guest: %r, %d)" %
                     (exp, metric, d, m["timed"], m["n"], k["timed"], k["n"]))
            n += 1
    extra = [key for key in mrows if (key[0], key[1]) not in got and MODEL_ONLY not in key[1]]
    if extra:
        fail("model rows the guest does not write: %r" % extra[:5])
    print("ok: %d rows of %d designs at the guest's geometry, row by row" % (n, len(DESIGNS)))


if __name__ == "__main__":
    main()
