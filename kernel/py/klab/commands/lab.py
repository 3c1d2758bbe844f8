# SPDX-License-Identifier: GPL-2.0
"""klab lab (make kernel-lab): every design's guest experiments
(klab-guest), the model at each guest's geometry, and the tables and the
combined JSON, kernel beside model (kernel-lab-GEOMETRY.{txt,json})."""
import argparse
import datetime
import json

from .. import boot, build, compare, designs, guest, machine, metrics, model, record, spread, tree
from ..boots import checked_boot, guest_document
from ..geometry import CPUS, GEOMETRY, NODES
from ..run import load_average, log

DEFAULT_CLOCK = boot.DEFAULT_CLOCK


def arguments(p):
    designs.add_arguments(p)
    p.add_argument("--geometry", choices=sorted(GEOMETRY), default="full")
    p.add_argument("--boots", type=int, default=1, help="boots per design (interleaved); "
                   "with 2 or more, a table of each figure's spread over the boots")
    add_clock_argument(p)
    p.add_argument("--machine", choices=["qemu", "uml"], default="qemu",
                   help="qemu (default: the lab's guests have %d NUMA nodes) or uml (User-Mode "
                   "Linux: native, the host's clock, 1 node)" % NODES)


def add_clock_argument(p):
    p.add_argument("--clock", default=DEFAULT_CLOCK, type=clock_arg,
                   help="the guests' clock on QEMU: icount[=N] (TCG counts instructions, 2^N "
                   "ns each: repeatable; default %s) or wall (the host's time, moves with its "
                   "load); UML's is always the host's (wall)" % DEFAULT_CLOCK)


def clock_arg(text):
    try:
        boot.parse_clock(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))
    return text


def lab_boots(run, chosen, images, prog, geometry, boots, clock, on="qemu"):
    """Boot every design @boots times (interleaved) on machine @on; each
    guest's own shrinklab/2 document, with the host's facts added, in boot
    order."""
    g = GEOMETRY[geometry]
    docs = []
    accel = "uml" if on == "uml" else "kvm" if boot.kvm_usable()[0] else "tcg"
    clock = machine.clock(on, clock)
    host = record.host()
    run.plan_boots(boots * len(chosen))
    for rnd in range(boots):
        for d in chosen:
            label = "lab-%s-%s-%d" % (geometry, d.name, rnd)
            date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            load_start, load_words = record.loadavg(), load_average()
            args = ["--design", "kernel:" + d.name, "--accel", accel, "--scale", geometry,
                    "--date", date] + g["args"]
            r = checked_boot(run, label, boot.BootSpec(
                kernel=images[d.name], prog=prog, args=args, cpus=CPUS,
                nodes=1 if on == "uml" else NODES, mem=g["mem"], timeout=g["timeout"],
                clock=clock, machine=on))
            doc = guest_document(run, label, r, "klab-guest", on, host, load_start,
                                 metrics.check, "data/kernel_metrics.tsv")
            if doc is None:
                continue
            doc["run"]["boot"] = rnd
            doc["run"]["host_load"] = {"start": load_words, "end": load_average()}
            with open(run.path(label + ".json"), "w") as f:
                json.dump(doc, f, indent=1)
            docs.append(doc)
    return docs


def lab(run, chosen, images, prog, geometry, boots, clock=DEFAULT_CLOCK, on="qemu"):
    """The guests (on machine @on), the model at their geometry, the tables
    and the combined JSON; the comparison (None when no guest gave a
    document)."""
    docs = lab_boots(run, chosen, images, prog, geometry, boots, clock, on)
    if not docs:
        return None
    dirs = {d.name: d.dir for d in chosen if d.dir}
    models = model.model_runs(run, docs, geometry, dirs)
    for m in models:
        for problem in metrics.check(m):
            run.fail("model run: its rows depart from data/kernel_metrics.tsv: %s" % problem)
    cmp, text, clocks = judged(model.shrinklab_path(run), docs, models, dirs, geometry, boots, on)
    path = run.path("kernel-lab-%s.json" % geometry)
    with open(path, "w") as f:
        json.dump(compare.combined(docs, models, cmp, {
            "geometry": geometry, "boots": boots, "clock": {"kernel": clocks, "model": "host"}}),
            f, indent=1)
    run.save("kernel-lab-%s.txt" % geometry, text)
    print(text)
    log("JSON: %s" % path)
    return cmp


def judged(exe, docs, models, dirs, geometry, boots, on):
    """shrinklab judge lab (@exe) over the guests' documents @docs and the
    model's @models: (the comparison, the text, the kernel's clocks); the
    spread table follows with two boots or more."""
    clocks = sorted(set(d["machine"]["clock"] for d in docs))
    words = ("kernel lab on %s, geometry %s: %s; %d boot(s) per design; accelerator %s\n"
             "kernel clock: %s; model clock: the host's monotonic clock, native") % (
        machine.words(on), geometry, docs[0]["experiments"][0]["scale"], boots,
        "; ".join(sorted(set(d["machine"]["accelerator"] for d in docs))), "; ".join(clocks))
    cmp, text = compare.judge(exe, compare.judge_input(
        docs, models, dirs, words, " / ".join(boot.clock_name(c) for c in clocks)))
    if boots >= 2:
        text += compare.printed(exe, lambda cells: spread.text(
            spread.rows(docs, exe), cells, "kernel clock: %s" % "; ".join(clocks)))
    return cmp, text, clocks


def main(run, args):
    chosen = designs.from_args(args)
    images = build.build_all(tree.Cache(), machine.config(args.machine), chosen, run)
    prog = guest.compile_programs(run)["klab-guest"]
    lab(run, chosen, images, prog, args.geometry, args.boots, args.clock, args.machine)
