# SPDX-License-Identifier: GPL-2.0
"""klab work: the workloads with objects under real reclaim (containers,
the reviewers' tests, pods under nokmem) on every design, boots
interleaved, and one verdict table per workload (kernel-work-GEOMETRY.{txt,json});
make kernel-lab runs it at the full geometry, check-kernel at the short one.

--from DIR (repeatable) boots nothing: it tables the guests' documents that
earlier runs saved in DIR (work-GEOMETRY-WORKLOAD-DESIGN-ROUND.json), so
runs made side by side (one per workload, or a design that came later) give
one table per workload. The documents must share one geometry."""
import glob
import json
import os
import shutil

from .. import boot, build, designs, guest, machine, model, tree, workloads, workmodel
from ..run import log
from .lab import add_clock_argument


def arguments(p):
    designs.add_arguments(p)
    p.add_argument("--geometry", choices=workloads.GEOMETRIES, default="full",
                   help="full (the issue's), mid (fits 3 boots of every design in about "
                   "an hour of a shared 2-core machine) or short (CI's)")
    p.add_argument("--boots", type=int, default=3,
                   help="boots per design and workload, interleaved (default 3)")
    p.add_argument("--workload", action="append", choices=workloads.CHOICES,
                   help="a workload (repeat; default: %s; %s only when named)" % (
                       ", ".join(workloads.ORDER), ", ".join(workloads.NAMED)))
    p.add_argument("--from", dest="from_dirs", action="append", metavar="DIR",
                   help="no boots: the tables of the guests' documents saved in DIR "
                   "(repeat; the designs named keep theirs alone)")
    add_clock_argument(p)
    machine.add_argument(p)


def tables(run, docs, geometry, boots, dirs=None, saved=()):
    """The verdict tables of @docs beside the model's container workload at
    their geometry (workmodel; the guests' consoles in the run's directory
    or in @saved), printed and saved with the combined JSON; the
    comparison."""
    models = workmodel.container_runs(run, docs, geometry, dirs, saved)
    cmp, text = workloads.judged(model.shrinklab_path(run), docs, models, dirs,
                                 workloads.summary_words(docs, geometry, boots),
                                 " / ".join(boot.clock_name(c) for c in workloads.clocks(docs)))
    with open(run.path("kernel-work-%s.json" % geometry), "w") as f:
        json.dump(workloads.combined(docs, models, cmp, {"geometry": geometry, "boots": boots,
                                                          "clock": workloads.clocks(docs)}),
                  f, indent=1)
    run.save("kernel-work-%s.txt" % geometry, text)
    print(text)
    log("JSON: %s" % run.path("kernel-work-%s.json" % geometry))
    return cmp


def work(run, chosen, images, prog, geometry, boots, names=None, clock=workloads.DEFAULT_CLOCK,
         on="qemu", images_of=None):
    """The workloads' boots (guests on @clock, machine @on; @images_of, the
    images of the workloads with a config of their own) and tables; the
    comparison (None without documents)."""
    names = names or workloads.ORDER
    docs = workloads.work_boots(run, chosen, images, prog, geometry, boots, names,
                                machine.clock(on, clock), on, images_of)
    if not docs:
        return None
    return tables(run, docs, geometry, boots, {d.name: d.dir for d in chosen if d.dir})


def saved_docs(dirs, names=None, keep=None):
    """The guests' documents saved in @dirs (work-*.json), of workloads
    @names and designs @keep (None: all), ordered by round, workload and
    design; their geometry. ValueError when there are none, or several
    geometries."""
    docs = []
    for d in dirs:
        for path in sorted(glob.glob(os.path.join(d, "work-*.json"))):
            with open(path) as f:
                doc = json.load(f)
            run_ = doc.get("run", {})
            if names and run_.get("workload") not in names:
                continue
            if keep and run_.get("design", "").split(":", 1)[-1] not in keep:
                continue
            docs.append(doc)
    if not docs:
        raise ValueError("no guest documents (work-*.json) in %s" % ", ".join(dirs))
    geos = sorted(set(doc["run"].get("scale", "?") for doc in docs))
    if len(geos) != 1:
        raise ValueError("documents of several geometries: %s" % ", ".join(geos))
    order = {w: i for i, w in enumerate(workloads.CHOICES)}
    docs.sort(key=lambda doc: (doc["run"].get("boot", 0), order.get(doc["run"].get("workload"),
                                                                      99)))
    return docs, geos[0]


def snapshot(run, chosen, images, config=None):
    """Copies of @images in the run's directory, with each design's series
    hash: another run that rebuilds a design (its series changed on main)
    renames a new image over the kept one, and a run's later boots must
    boot what its first did. With @config (the build config's name), the
    copies' names carry it (a run may boot the images of two configs);
    each copy has its .config and System.map beside it."""
    out = {}
    os.makedirs(run.path("images"), exist_ok=True)
    for d in chosen:
        name = d.name + ("." + config if config else "")
        out[d.name] = run.path(os.path.join("images", name + "." +
                                            os.path.basename(images[d.name])))
        shutil.copyfile(images[d.name], out[d.name])
        shutil.copymode(images[d.name], out[d.name])
        if os.path.exists(images[d.name] + ".config"):
            shutil.copyfile(images[d.name] + ".config", out[d.name] + ".config")
        smap = build.system_map(images[d.name])
        if os.path.exists(smap):
            shutil.copyfile(smap, out[d.name] + ".System.map")
        log("%s: series %s (image copied to %s)" % (d.name, d.series_hash(), out[d.name]))
    return out


def main(run, args):
    if args.from_dirs:
        keep = args.designs if getattr(args, "designs", None) else None
        try:
            docs, geometry = saved_docs(args.from_dirs, args.workload, keep)
        except ValueError as e:
            raise SystemExit("klab work --from: %s" % e)
        per = [sum(1 for d in docs if d["run"]["design"] == x["run"]["design"] and
                   d["run"].get("workload") == x["run"].get("workload")) for x in docs]
        boots = str(min(per)) if min(per) == max(per) else "%d-%d" % (min(per), max(per))
        # The repo's series (their model files) for the designs it has.
        dirs = {d.name: d.dir for d in designs.in_repo(history=True) if d.dir}
        tables(run, docs, geometry, boots, dirs, saved=args.from_dirs)
        return
    chosen = designs.from_args(args)
    on = machine.choose(args.machine, 1)
    names = args.workload or workloads.ORDER
    configs = {w: workloads.config_of(w, on) for w in names}
    built = {}
    for c in sorted(set(configs.values())):
        built[c] = snapshot(run, chosen, build.build_all(tree.Cache(), c, chosen, run), c)
    images = built.get(machine.config(on)) or next(iter(built.values()))
    prog = guest.compile_programs(run)["kwork"]
    work(run, chosen, images, prog, args.geometry, args.boots, names, args.clock, on,
         {w: built[c] for w, c in configs.items()})
