# SPDX-License-Identifier: GPL-2.0
"""The model beside the kernel: `shrinklab kernel`
(tools/shrinklab/lab/kernel_experiments.c) runs the guest's experiments at the geometry each guest really ran, for the
model design each kernel design maps to (designs.model_design)."""
import contextlib
import json
import os
import re
import subprocess

from . import compare, designs, paths
from .run import log
from .shell import sh


def shrinklab_path(run):
    """./build/shrinklab of this repo, built (make build) when missing, brought
    up to date (ninja) otherwise, as a step of @run (None: a command without
    a run directory, the build unlogged); $KLAB_SHRINKLAB names another."""
    exe = os.environ.get("KLAB_SHRINKLAB")
    if exe:
        return exe
    build = os.path.join(paths.REPO, "build")
    if os.path.exists(os.path.join(build, "build.ninja")):
        words, cmd = "build shrinklab (ninja)", ["ninja", "-C", build, "shrinklab"]
    else:
        words, cmd = "build shrinklab (make build)", ["make", "-C", paths.REPO, "build"]
    with (run.step(words) if run else contextlib.nullcontext()):
        sh(cmd, quiet=True)
    return os.path.join(build, "shrinklab")


def _row(doc, exp, pattern):
    for e in doc["experiments"]:
        if e["id"] == exp:
            for r in e["results"]:
                if compare.match_metric(r["metric"], pattern):
                    return r
    return None


# The guest's options that shrinklab kernel takes as they are.
GEOMETRY_OPTIONS = ("--ladder", "--units-cgroups", "--churn-cgroups", "--samples",
                    "--churn-samples", "--register-batch", "--register-samples",
                    "--highwater-mounts", "--walk-points")


def model_args(doc):
    """shrinklab kernel's options for the geometry guest @doc really ran:
    the guest's own options (from its command line), its shrinker ids and
    CPUs and nodes, and the N it used at each step (the guest cuts N to its
    memory)."""
    cmd = doc["command"]
    opts = dict(zip(cmd, cmd[1:]))
    missing = [o for o in GEOMETRY_OPTIONS if o not in opts]
    if missing:
        raise RuntimeError("guest document whose command line lacks %s" % ", ".join(missing))
    args = []
    for o in GEOMETRY_OPTIONS:
        args += [o, opts[o]]
    first = doc["experiments"][0]["results"][0]["geometry"]
    for opt, exp, metric in (("--cgroups", "drop_caches", "drop_caches_ns_no_mounts"),
                             ("--register-cgroups", "register",
                              "register_*_mounts_ns_cgroups_alive"),
                             ("--top-cgroups", "drop_caches", "drop_caches_ns")):
        r = _row(doc, exp, metric)
        if r is None:
            raise RuntimeError("guest document without %s/%s" % (exp, metric))
        args += [opt, str(r["geometry"]["cgroups"])]
    args += ["--host-shrinkers", str(first["host_shrinkers"]), "--nodes",
             str(doc["machine"]["nodes"]), "--cpus", str(doc["machine"]["cpus"])]
    return args


def model_todo(docs, series_dirs, args_of, what):
    """[(model design label, its arguments)] once each, for the kernel
    designs of @docs that map to a model design; args_of(doc) gives the
    model's arguments for that guest's geometry."""
    todo = []
    for doc in docs:
        d = compare.kernel_name(doc["run"]["design"])
        label, _ = designs.model_design(d, (series_dirs or {}).get(d))
        if not label:
            log("kernel:%s: no model design mapped; %s shows the kernel alone" % (d, what))
            continue
        key = (label, tuple(args_of(doc)))
        if key not in todo:
            todo.append(key)
    return todo


def run_shrinklab(run, subcommand, base, todo):
    """`shrinklab SUBCOMMAND --design LABEL ARGS...` for each (label, args)
    of @todo, each in its own process; their shrinklab/2 documents. A failed
    run fails @run with its output; @base names each run's files."""
    if not todo:
        return []
    exe = shrinklab_path(run)
    out = []
    for i, (label, args) in enumerate(todo):
        name = "%s-%d-%s" % (base, i, re.sub(r"[^\w.=-]", "_", label))
        cmd = [exe, subcommand, "--quiet", "--json", run.path(name + ".json"),
               "--design", label] + list(args)
        log("model: " + " ".join(cmd))
        with run.step("model %s (shrinklab %s)" % (label, subcommand)):
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        run.save(name + ".txt", r.stdout)
        if r.returncode != 0:
            run.fail("model run failed (exit %d): %s\n%s" % (r.returncode, " ".join(cmd),
                                                              r.stdout[-3000:]))
            continue
        with open(run.path(name + ".json")) as f:
            out.append(json.load(f))
    return out


def model_runs(run, docs, geometry, series_dirs=None):
    """shrinklab kernel at each guest's geometry, once per model design the
    kernel designs map to, each in its own process as each kernel design
    boots alone (in one process the prealloc hosts' walks over gigabytes of
    units leave the caches cold for the next design's samples); the model's
    shrinklab/2 documents."""
    todo = model_todo(docs, series_dirs, model_args, "the table")
    return run_shrinklab(run, "kernel", "model-%s" % geometry, todo)
