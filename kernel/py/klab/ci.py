# SPDX-License-Identifier: GPL-2.0
"""The CI plan of a base (kernel/ci.tsv for 6.12, kernel/ci-7.3.tsv for
7.3; plan_file()): which designs `klab check` builds and boots
(the short lab), which run the short workloads, and which get the selftests
and the torture. Every design gets checkpatch and the per-patch W=1
compile; a row of the file names a design's other stages and why (uml: the
design built with the uml config and booted with the short lab on UML;
idreuse and idreuse-uml: klab idreuse on QEMU or on UML, the base's mainline
and fix-id-reuse with the debug delay and their kcheck_reuse boots, once
whichever design names it); without
a row, a design whose series touches no header under include/ (a cheap
build) is booted with the short lab, and nothing more, unless the row `*`
names the stages of the designs without a row."""
import dataclasses
import os

from . import bases, paths

PLAN = os.path.join(paths.KDIR, "ci.tsv")
ANY = "*"


def plan_file(base=None):
    """The plan of @base (default: the run's): ci.tsv is 6.12's (the
    plan CI had before there were bases), ci-<base>.tsv another's."""
    base = base or bases.current()
    return PLAN if base.name == "6.12" else os.path.join(paths.KDIR, "ci-%s.tsv" % base.name)
# kunit: the KUnit suite (klab kunit), on the designs whose series carry it,
# beside its control (mainline with the suite).
STAGES = ("boot", "work", "selftests", "torture", "uml", "idreuse", "idreuse-uml", "kunit")


@dataclasses.dataclass
class Plan:
    stages: dict        # stage: [design names], in the designs' order
    why: dict           # design: the reason CI does what it does with it


def widely_included(design):
    """The headers under include/ that @design's series touches."""
    return [f for f in design.headers_touched() if f.startswith("include/")]


def read(path=None):
    """{design: (stages, why)} of the plan file (default: the run's base's)."""
    path = path or plan_file()
    rows = {}
    with open(path) as f:
        for i, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            stages = cols[1].split() if len(cols) == 3 else None
            if stages is None or not set(stages) <= set(STAGES) or cols[0] in rows:
                raise ValueError("%s:%d: want DESIGN<tab>STAGES<tab>WHY with stages of %s, "
                                 "once per design: %r" % (path, i, " ".join(STAGES), line))
            rows[cols[0]] = (stages, cols[2])
    return rows


def plan(chosen, everything=False, path=None):
    """The Plan for the designs @chosen (all stages for all with @everything)."""
    path = path or plan_file()
    rows = read(path)
    p = Plan({s: [] for s in STAGES}, {})
    for d in chosen:
        if everything:
            stages, why = list(STAGES), "klab check --all"
        elif d.name in rows:
            stages, why = rows[d.name]
            why = "%s (%s)" % (why, os.path.relpath(path, paths.REPO))
        elif ANY in rows:
            stages, why = rows[ANY]
            why = "%s (%s, row %s)" % (why, os.path.relpath(path, paths.REPO), ANY)
        elif widely_included(d):
            stages, why = [], "touches %s: compiled per patch, not built (no row in %s)" % (
                ", ".join(widely_included(d)), os.path.relpath(path, paths.REPO))
        else:
            stages, why = ["boot"], "touches no header under include/: a cheap build"
        for s in stages:
            p.stages[s].append(d.name)
        p.why[d.name] = why
    # The lab's and the selftests' baseline is mainline's boot in the same run.
    for s in ("boot", "work", "selftests", "uml"):
        if p.stages[s] and "mainline" not in p.stages[s]:
            p.stages[s].insert(0, "mainline")
    return p


def words(p):
    lines = ["CI plan (klab check):"]
    for s in STAGES:
        lines.append("  %-11s %s" % (s, ", ".join(p.stages[s]) or "-"))
    for d, why in p.why.items():
        lines.append("  %s: %s" % (d, why))
    return "\n".join(lines)
