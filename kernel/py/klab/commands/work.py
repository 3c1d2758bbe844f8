# SPDX-License-Identifier: GPL-2.0
"""klab work: the workloads with objects under real reclaim (containers,
the reviewers' tests, pods under nokmem) on every design, boots
interleaved, and one verdict table per workload (kernel-work-GEOMETRY.{txt,json});
make kernel-lab runs it at the full geometry, check-kernel at the short one."""
import json

from .. import build, designs, guest, tree, workloads, workmodel
from ..run import log


def arguments(p):
    designs.add_arguments(p)
    p.add_argument("--geometry", choices=["full", "short"], default="full")
    p.add_argument("--boots", type=int, default=3,
                   help="boots per design and workload, interleaved (default 3)")
    p.add_argument("--workload", action="append", choices=workloads.ORDER,
                   help="a workload (repeat; default: all)")


def work(run, chosen, images, prog, geometry, boots, names=None):
    """The workloads' boots and tables; the comparison (None without
    documents)."""
    names = names or workloads.ORDER
    docs = workloads.work_boots(run, chosen, images, prog, geometry, boots, names)
    if not docs:
        return None
    dirs = {d.name: d.dir for d in chosen if d.dir}
    models = workmodel.container_runs(run, docs, geometry, dirs)
    cmp = workloads.join(docs, models, dirs)
    text = workloads.tables(cmp, workloads.summary_words(docs, geometry, boots))
    with open(run.path("kernel-work-%s.json" % geometry), "w") as f:
        json.dump(workloads.combined(docs, models, cmp, {"geometry": geometry, "boots": boots,
                                                          "clock": workloads.CLOCK}), f,
                  indent=1)
    run.save("kernel-work-%s.txt" % geometry, text)
    print(text)
    log("JSON: %s" % run.path("kernel-work-%s.json" % geometry))
    return cmp


def main(run, args):
    chosen = designs.from_args(args)
    images = build.build_all(tree.Cache(), "lab", chosen, run)
    prog = guest.compile_programs(run)["kwork"]
    work(run, chosen, images, prog, args.geometry, args.boots, args.workload)
