# SPDX-License-Identifier: GPL-2.0
"""klab reproduce: the seeds' tables on real kernels, each seed figure beside
the kernel's and the model's, with the verdicts of both (reproduce.py)."""
import datetime
import json

from .. import (boot, build, compare, designs, guest, machine, model, record, registry,
               reproduce, tree)
from ..run import log
from .lab import add_clock_argument


def arguments(p):
    p.add_argument("designs", nargs="*", metavar="DESIGN",
                   help="only these kernel designs (and mainline; default: every design a "
                   "table names that is in kernel/patches/)")
    p.add_argument("--geometry", choices=["seed", "fit", "short"], default="seed",
                   help="seed: the seeds' geometry where a guest fits it (hours); fit: the "
                   "seeds' mounts with fewer cgroups, the per-cgroup rows at the seeds' "
                   "geometry (82-447 s a boot of the VM table on the shared 2-core "
                   "host, 2026-12-01); short: a few minutes, figures only (CI)")
    p.add_argument("--boots", type=int, default=2,
                   help="boots per design, interleaved (default 2: ranges paired over boots)")
    p.add_argument("--table", action="append", default=[],
                   choices=[t.exp for t in reproduce.TABLES],
                   help="only this table (repeatable; default every table): only the designs of "
                   "the tables asked for boot, though tables share a guest run")
    p.add_argument("--boot-only", action="store_true",
                   help="boot only the designs named (not mainline with them unless named): "
                   "one stream of boots of several run side by side, judged together with "
                   "--docs")
    p.add_argument("--docs", action="append", default=[], metavar="DIR",
                   help="take the guest documents that klab reproduce runs of the same "
                   "geometry saved in DIR (reproduce-RUN-GEOMETRY-DESIGN-K.json, repeatable) "
                   "instead of booting those designs")
    add_clock_argument(p)
    machine.add_argument(p)
    p.add_argument("--no-model", action="store_true",
                   help="no model runs: the kernel's figures and verdicts beside the seed's "
                   "alone (the model's cells empty; the model at the seed's scale is minutes "
                   "of CPU a table)")


def main(run, args):
    if args.boots < 1:
        raise SystemExit("klab reproduce: --boots must be at least 1")
    available = {d.name: d for d in designs.select(args.designs, designs.in_repo(
        history=bool(args.designs)))}
    exe = model.shrinklab_path(run)
    reg = registry.load(exe)
    seeds = registry.seeds(reg)
    tables = reproduce.from_registry(
        [t for t in reproduce.TABLES if not args.table or t.exp in args.table], reg, seeds)
    runs = []
    for t in tables:
        if t.guest_run not in runs:
            runs.append(t.guest_run)
    saved = reproduce.load_docs(args.docs, args.geometry)

    def to_boot(r):
        asked = [t for t in tables if t.guest_run == r]
        return [n for n in reproduce.kernel_designs(asked, available)
                if n not in saved.get(r, {}) and (not args.boot_only or n in args.designs)]

    on = {r: machine.choose(args.machine, reproduce.GUEST_RUNS[r].nodes) for r in runs}
    images = {}
    for m in sorted(set(on.values())):
        wanted = {n for r in runs if on[r] == m for n in to_boot(r)}
        chosen = [available[n] for n in sorted(wanted, key=lambda n: n != "mainline")]
        images[m] = build.build_all(tree.Cache(), machine.config(m), chosen, run)
    progs = guest.compile_programs(run)
    kdocs = {}
    for r in runs:
        gr = reproduce.GUEST_RUNS[r]
        if gr.prog not in progs:
            log("reproduce %s: no guest program %s on this tree: its tables are not run"
                % (r, gr.prog))
            run.fail("reproduce %s: guest program %s missing" % (r, gr.prog))
            kdocs[r] = {}
            continue
        ds = [available[n] for n in to_boot(r)]
        kdocs[r] = reproduce.guest_docs(run, r, ds, images[on[r]], progs, args.geometry,
                                        args.boots, machine.clock(on[r], args.clock), on[r])
        for name, docs in saved.get(r, {}).items():
            if name in available:
                kdocs[r][name] = docs

    def series_model(name, cmdline):
        d = available.get(name)
        return designs.model_design(name, d.dir if d else None, cmdline)[0]

    texts, all_rows, out = [], [], []
    for t in tables:
        extra = reproduce.extra_model_labels(t, available, series_model)
        if args.no_model:
            mdoc, extra_docs = None, []
        else:
            mdoc, extra_docs = reproduce.model_docs(run, t, extra, args.geometry)
        rows = reproduce.judge_table(t, kdocs[t.guest_run], mdoc, extra_docs, seeds,
                                     available, series_model, exe)
        gr = reproduce.GUEST_RUNS[t.guest_run]
        words = gr.words
        if args.geometry in gr.scaled:
            words = "scaled: " + gr.scaled[args.geometry]
        tclocks = sorted({boot.clock_name(doc["machine"].get("clock", "?"))
                          for docs in kdocs[t.guest_run].values() for doc in docs})
        tmachines = sorted({doc["machine"].get("machine", "qemu")
                            for docs in kdocs[t.guest_run].values() for doc in docs})
        texts.append((t, rows, words, args.boots, " / ".join(tclocks),
                      reproduce.model_scale(t, args.geometry),
                      " / ".join(machine.words(m) for m in tmachines)))
        all_rows.append((t.exp, rows))
        out.append(dict(experiment=t.exp, title=t.title, notes=list(t.notes), rows=rows,
                        machine=tmachines, clock=tclocks))
    clocks = sorted({doc["machine"].get("clock", "?") for v in kdocs.values()
                     for docs in v.values() for doc in docs})
    text = ("klab reproduce, geometry %s, %d boot(s) per design, %s; machines: %s; the "
            "kernel's clock: %s; %s\n" % (
                args.geometry, args.boots,
                datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                ", ".join("%s %s" % (r, on[r]) for r in runs), "; ".join(clocks) or args.clock,
                record.load_words([doc for v in kdocs.values() for docs in v.values()
                                   for doc in docs])))
    if args.no_model:
        text += "(--no-model: no model runs; the model's cells are empty)\n"
    if any(c.startswith("icount") for c in clocks):
        text += ("(under icount a kernel time counts guest instructions: compare the kernel's "
                 "ratios, not its times, with the seeds' and the model's)\n")
    text += compare.printed(exe, lambda cells: "\n".join(
        reproduce.table_text(*p, cells=cells) for p in texts) + "\n" +
        reproduce.summary_text(all_rows, cells))
    print(text)
    run.save("reproduce-%s.txt" % args.geometry, text)
    with open(run.path("reproduce-%s.json" % args.geometry), "w") as f:
        json.dump(dict(schema="klab-reproduce/1", geometry=args.geometry, boots=args.boots,
                       clock=clocks or [args.clock], machine={r: on[r] for r in runs},
                       model_run=not args.no_model,
                       date=datetime.datetime.now(datetime.timezone.utc).strftime(
                           "%Y-%m-%dT%H:%M:%SZ"),
                       tables=out,
                       kernel={r: {d: docs for d, docs in v.items()} for r, v in kdocs.items()}),
                  f, indent=1)
