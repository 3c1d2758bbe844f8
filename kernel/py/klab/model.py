# SPDX-License-Identifier: GPL-2.0
"""The model beside the kernel: `shrinklab kernel`
(tools/shrinklab/lab/kernel_experiments.c) runs the guest's experiments at the geometry each guest really ran, for the
model design each kernel design maps to (designs.model_design)."""
import contextlib
import json
import os
import re
import subprocess
import tempfile

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


def model_args(exe, doc):
    """shrinklab kernel's options for the geometry guest @doc really ran,
    as the shrinklab at @exe reads them from the guest's own document
    (shrinklab kernel --like: the guest's options, the N it used at each
    step, since the guest cuts N to its memory, its shrinker ids, CPUs and
    nodes). RuntimeError with shrinklab's message when @doc lacks them."""
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(doc, f)
        f.flush()
        r = subprocess.run([exe, "kernel", "--design", "prealloc", "--like", f.name,
                            "--print-options"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError("guest document: %s" % r.stderr.strip())
    return r.stdout.split()


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
    exe = shrinklab_path(run)
    todo = model_todo(docs, series_dirs, lambda doc: model_args(exe, doc), "the table")
    return run_shrinklab(run, "kernel", "model-%s" % geometry, todo)
