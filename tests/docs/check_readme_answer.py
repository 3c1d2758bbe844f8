#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scripts/readme-answer.py reads more than the file the README cites: a
committed UML results file (docs/results/2026-12-02/uml-reproduce-vm-unit-
cache.txt: klab reproduce --geometry seed --no-model on UML) gives its
conditions (machine UML, the wall clock, the seeds' own geometry, base,
boots, date) and its rows, without a model ("-", never "-x"), and one with
the model (docs/results/2026-12-04/uml-vm-7.3-seed-3boots.txt) its model
cells, cell for cell where a cell fills its column; a file that
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
WITH_MODEL = "docs/results/2026-12-04/uml-vm-7.3-seed-3boots.txt"
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
    with_model(load())
    print("ok: readme-answer.py reads %s and %s and refuses what lacks a row" % (UML, WITH_MODEL))


def with_model(ra):
    """A run with the model: its cells are full, and a cell as wide as its
    column (which meets the next with one space) is still one cell: the
    base's kernel cell holds no model design, a claim's model cell its
    ratio to the base and its size beside the kernel's."""
    with open(os.path.join(ROOT, WITH_MODEL)) as f:
        table = ra.table(f.read(), WITH_MODEL)
    base = ("| slab per empty cgroup (`slab_bytes_per_empty_cgroup`) | `unit-cache` (base) | "
            "185.0 KiB | 178.8 KiB [178.5 KiB..179.7 KiB] | 175.3 KiB |")
    if base not in table.split("\n"):
        fail("the base's row of the file with the model, copied cell for cell:\n" + table)
    want = ("| | `seed-xarray` | 18.0 KiB, 0.0973x | 13.9 KiB [13.8 KiB..14.7 KiB], 0.0777x "
            "[0.0766..0.0826]: agrees; size: agrees | 9.4 KiB, 0.0535x [0.0535..0.0535]: agrees; "
            "size: agrees; size vs the kernel's: agrees |")
    if want not in table.split("\n"):
        fail("seed-xarray's slab row with the model:\n" + table)
    if "array-ondemand` | 1.60 us, 1x | 3.06 us [2.03 us..6.45 us], 0.393x [0.284..0.682]: " \
            "DISAGREES; size: inconclusive | 809 ns [700 ns..874 ns], 0.175x [0.154..0.176]: " \
            "DISAGREES; size: DISAGREES; size vs the kernel's: DISAGREES |" not in table:
        fail("a claim whose size verdict fills its column (inconclusive), read apart:\n" + table)


main()
