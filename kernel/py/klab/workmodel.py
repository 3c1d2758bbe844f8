# SPDX-License-Identifier: GPL-2.0
"""The model beside the kernel on the workloads with objects: `shrinklab
containers` (tools/shrinklab/lab/container_experiment.c) runs the guest's
container workload (kernel/guest/kw_containers.c) at the geometry each
guest really ran, for the model design each kernel design maps to
(designs.model_design). Which of the guest's metrics the model does not
model (page cache, kswapd) is data: data/kernel_workloads.tsv's
"leaves_out" rows (workloads.not_modelled), so the table never leaves a
silent blank."""
import os
import re
import statistics

from . import compare, model
from .run import log

# The guest's containers parameters that `shrinklab containers` takes, by
# the option it takes them as. The others do not apply to the model: bytes
# (page cache), balloon_pct, headroom_mib, min_free_kib (the balloon and
# kswapd), disk and img_mib (the loop devices), proc_depth (the model's
# procfs holds --proc-files objects: the count of the guest's walk).
CONTAINER_OPTIONS = {
    "containers": "--containers", "mix": "--mix", "files": "--files", "dirs": "--dirs",
    "negative": "--negative", "tmpfs_files": "--tmpfs-files", "bg": "--bg",
    "samples": "--samples", "writer_files": "--writer-files",
    "high_margin_kib": "--high-margin-kib", "phases": "--phases",
}

# The guest's say() line with what its procfs walk visited (level 0).
PROC_WALK_RE = re.compile(r"containers: procfs walk: (\d+) entries")

def guest_params(doc):
    """{key: value} of the containers experiment on @doc's command line."""
    for a in doc.get("command", []):
        if a.startswith("containers:"):
            return dict(kv.split("=", 1) for kv in a.split(":", 1)[1].split(",") if "=" in kv)
    return None


def proc_walk_entries(console):
    """What the guest's first procfs walk visited (its log line), or None."""
    m = PROC_WALK_RE.search(console or "")
    return int(m.group(1)) if m else None


def container_args(doc, proc_files):
    """`shrinklab containers` options for the geometry the guest of @doc
    ran: its parameters, its boot shrinkers, nodes and CPUs, and the
    procfs walk's @proc_files (None: the model's default)."""
    params = guest_params(doc)
    if params is None:
        raise RuntimeError("guest document without a containers experiment on its command")
    args = []
    for key, opt in CONTAINER_OPTIONS.items():
        if key in params:
            args += [opt, params[key]]
    first = doc["experiments"][0]["results"][0]["geometry"]
    args += ["--host-shrinkers", str(first["host_shrinkers"]), "--nodes",
             str(doc["machine"]["nodes"]), "--cpus", str(doc["machine"]["cpus"])]
    if proc_files is not None:
        args += ["--proc-files", str(proc_files)]
    return args


def console_of(run, doc, geometry, saved=()):
    """The console text of @doc's boot (work-GEOMETRY-containers-D-BOOT.console
    in the run's directory or one of @saved), or ''."""
    label = "work-%s-containers-%s-%s" % (geometry, compare.kernel_name(doc["run"]["design"]),
                                          doc["run"].get("boot", 0))
    for d in [run.out_dir] + list(saved or ()):
        try:
            with open(os.path.join(d, label + ".console"), errors="replace") as f:
                return f.read()
        except OSError:
            continue
    return ""


def container_runs(run, docs, geometry, series_dirs=None, saved=()):
    """`shrinklab containers` at the guests' geometry, once per model design
    the kernel designs map to, each in its own process; the model's
    shrinklab/2 documents. @saved: more directories with the guests'
    consoles (klab work --from)."""
    docs = [d for d in docs if d["run"].get("workload") == "containers" and guest_params(d)]
    if not docs:
        return []
    walks = [w for w in (proc_walk_entries(console_of(run, d, geometry, saved)) for d in docs)
             if w]
    proc_files = int(statistics.median(walks)) if walks else None
    if proc_files is None:
        log("model: no procfs walk count in the guests' consoles; the model's procfs holds "
            "its default")
    todo = model.model_todo(docs, series_dirs, lambda doc: container_args(doc, proc_files),
                            "the containers table")
    return model.run_shrinklab(run, "containers", "model-containers-%s" % geometry, todo)
