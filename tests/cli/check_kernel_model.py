#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run `shrinklab kernel --like GUEST` at the geometry of a saved kernel guest
document (tests/kernel/fixtures/guest-short-mainline.json, the short
geometry) with the four model designs the kernel designs map to. First,
--like --print-options gives the options read from the document by hand
(the guest's own, the cgroups of the steps' rows, its shrinker ids, nodes
and CPUs), and --like refuses a document that is not a guest's, one that
lacks a step, and a geometry option before it (exit 2, nothing run). Then
check that the model ran
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


def pairs(words):
    return dict(zip(words[::2], words[1::2]))


def check_like(exe, guest, by_hand, tmp):
    """--like's options are the ones read by hand; what it refuses."""
    r = subprocess.run([exe, "kernel", "--design", "prealloc", "--like", GUEST,
                        "--print-options"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=60)
    if r.returncode or pairs(r.stdout.split()) != pairs(by_hand):
        fail("--like --print-options: exit %d: %r, by hand %r" % (r.returncode, r.stdout,
                                                                   by_hand))
    r = subprocess.run([exe, "kernel", "--design", "prealloc", "--like", GUEST, "--cgroups",
                        "7", "--print-options"], stdout=subprocess.PIPE, text=True, timeout=60)
    if r.returncode or pairs(r.stdout.split()).get("--cgroups") != "7":
        fail("--like then --cgroups 7: %r" % r.stdout)
    no_step = dict(guest, experiments=[e for e in guest["experiments"] if e["id"] != "register"])
    bad = [("a shrinklab document", dict(guest, tool={"name": "shrinklab"}), [],
            "not a klab-guest document"),
           ("no register step", no_step, [], "no register/"),
           ("a geometry option first", guest, ["--cgroups", "7"], "before the geometry")]
    for what, doc, before, says in bad:
        path = os.path.join(tmp, "like-bad.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        r = subprocess.run([exe, "kernel", "--design", "prealloc"] + before +
                           ["--like", path, "--print-options"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=60)
        os.unlink(path)
        if r.returncode != 2 or says not in r.stderr or r.stdout:
            fail("--like, %s: exit %d, %r" % (what, r.returncode, r.stderr))
    print("ok: --like reads the guest's geometry and refuses %d bad cases" % len(bad))


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
    by_hand = ["--host-shrinkers", str(first["host_shrinkers"]), "--nodes",
               str(guest["machine"]["nodes"]), "--cpus", str(guest["machine"]["cpus"]),
               "--cgroups", str(ncg["drop_caches_ns_no_mounts"]), "--top-cgroups",
               str(ncg["drop_caches_ns"]), "--register-cgroups", str(reg["geometry"]["cgroups"])]
    for k in ("--ladder", "--units-cgroups", "--churn-cgroups", "--samples", "--churn-samples",
              "--register-batch", "--register-samples", "--highwater-mounts", "--walk-points"):
        by_hand += [k, opts[k]]
    check_like(exe, guest, by_hand, os.path.dirname(os.path.abspath(out)))
    args = [exe, "kernel", "--quiet", "--json", out, "--like", GUEST]
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
