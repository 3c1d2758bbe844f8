#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scripts/readme-answer.py reads more than the file the README cites: a
committed UML results file (docs/results/2026-12-02/uml-reproduce-vm-unit-
cache.txt: klab reproduce --geometry seed --no-model on UML) gives its
conditions (machine UML, the wall clock, the seeds' own geometry, base,
boots, date) and its rows, without a model ("-", never "-x"); a file that
lacks a design or an experiment the table needs is refused with a line
that names it, not a traceback.

usage: check_readme_answer.py SOURCE_ROOT
"""
import importlib.util
import os
import re
import sys

ROOT = sys.argv[1]
UML = "docs/results/2026-12-02/uml-reproduce-vm-unit-cache.txt"
PODS = "docs/results/2026-12-02/uml-reproduce-bitmap-pods.txt"


def fail(what):
    print("FAIL:", what)
    sys.exit(1)


def load():
    spec = importlib.util.spec_from_file_location(
        "readme_answer", os.path.join(ROOT, "scripts", "readme-answer.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def refusal(ra, cited):
    with open(os.path.join(ROOT, cited)) as f:
        text = f.read()
    try:
        ra.table(text, cited)
    except SystemExit as e:
        return str(e)
    return None


def main():
    ra = load()
    why = refusal(ra, UML)
    if not why or "no row of indexed" not in why:
        fail("%s lacks indexed: refused with %r" % (UML, why))
    why = refusal(ra, PODS)
    if not why or "has no xarray-2026-vm" not in why:
        fail("%s lacks xarray-2026-vm: refused with %r" % (PODS, why))
    # The designs that run had: the table it gives.
    ra.ROWS = [(e, m, label, [d for d in ds if d != "indexed"]) for e, m, label, ds in ra.ROWS]
    with open(os.path.join(ROOT, UML)) as f:
        text = f.read()
    table = ra.table(text, UML)
    cond = table.split("\n")[0]
    for want in ("base Linux 6.12.117", "machine UML, 1 node and 4 vCPUs", "clock wall",
                 "3 boots per design", "geometry `seed`: the seeds' own", "date 2026-12-02"):
        if want not in cond:
            fail("conditions without %r: %s" % (want, cond))
    if re.search(r"(^|[ |,])-x", table, re.M):
        fail("a cell without a ratio got an x:\n" + table)
    rows = [ln for ln in table.split("\n") if ln.startswith("| ")][1:]
    if len(rows) != sum(1 + len(ds) for _, _, _, ds in ra.ROWS):
        fail("%d rows for ROWS:\n%s" % (len(rows), table))
    if "| `array-ondemand` | 22 KB, 0.119x | 17.1 KB, 0.0928x" not in table:
        fail("the UML file's array-ondemand slab row, copied:\n" + table)
    print("ok: readme-answer.py reads %s and refuses what lacks a row" % UML)


main()
