#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""shrinklab's decision tables, compare, CSV and Markdown, one check each:

- compare runs the designs given at the geometry given (every row of the
  JSON and of the CSV at those mounts, cgroups, nodes and CPUs), the first
  design the base;
- the CSV (RFC 4180) holds the JSON's rows, value for value, and says the
  decision table's words and best marks;
- the decision table has a column per design and a row per metric, marks a
  best design of every metric that has one, never prints a median of "0 ns"
  (a timed figure under the clock's resolution is "< bound"), and says each
  note once;
- the words follow the ratio and its per-round range (lower below 0.8,
  higher above 1.25, the same within noise in between, noisy across);
- --markdown writes one table per experiment;
- compare refuses one design, a design given twice and a bad label, and two
  outputs on standard output, before measuring (exit 2).

usage: check_decisions.py SHRINKLAB WORKDIR
"""
import csv
import json
import os
import re
import subprocess
import sys

from schema_check import validate

EXE, WORK = sys.argv[1], sys.argv[2]
GEO = ["--mounts", "300", "--cgroups", "24", "--nodes", "2", "--cpus", "8"]


def run(args, timeout=600):
    return subprocess.run([EXE] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=timeout)


def fail(what, r=None):
    print("FAIL:", what)
    if r is not None:
        print("exit %d\nstdout %s\nstderr %s" % (r.returncode, r.stdout[-4000:],
                                                 r.stderr[-2000:]))
    sys.exit(1)


def expect_usage(args, contains):
    r = run(args)
    if r.returncode != 2 or contains not in r.stderr or r.stdout:
        fail("%s: want exit 2 with %r" % (args, contains), r)
    print("ok: rejected:", " ".join(args))


def words_of(ratio, lo, hi, timed):
    if not timed:
        return None  # exact ratios; checked by value below
    if hi < 0.8:
        return "lower"
    if lo > 1.25:
        return "higher"
    if lo >= 0.8 and hi <= 1.25:
        return "same within noise"
    return "noisy"


def main():
    os.makedirs(WORK, exist_ok=True)
    js, cs, md = (os.path.join(WORK, "compare." + e) for e in ("json", "csv", "md"))
    designs = ["prealloc+units=cache", "xarray", "indexed"]
    r = run(["compare", "--design", ",".join(designs[:2]), "--design", designs[2]] + GEO +
            ["--quiet", "--json", js, "--csv", cs, "--markdown", md])
    if r.returncode:
        fail("compare", r)
    out = r.stdout
    with open(js) as f:
        doc = json.load(f)
    validate(doc)
    if doc["run"]["subcommand"] != "compare" or len(doc["experiments"]) != 1:
        fail("compare ran %r" % [e["id"] for e in doc["experiments"]])
    e = doc["experiments"][0]
    if [h["design"] for h in e["hosts"]] != designs:
        fail("compare's designs: %r" % [h["design"] for h in e["hosts"]])
    for x in e["results"]:
        g = x["geometry"]
        if (g["nodes"], g["cpus"]) != (2, 8):
            fail("row %s/%s at %r, not at the geometry given" % (x["design"], x["metric"], g))
    if e["geometry"]["mounts"] != 300 or e["geometry"]["cgroups"] != 24:
        fail("the run's geometry %r" % e["geometry"])
    print("ok: compare ran %s at 300 mounts, 24 cgroups, 2 nodes, 8 CPUs" % designs)
    # At a geometry no seed measured (issue 33: at --nodes 4 compare
    # compared nothing with the seed and did not say so), the tables say it.
    seeded = [x for x in e["results"] if x.get("seed")]
    if seeded and "no row is at the seed's geometry" not in out:
        fail("compare at a geometry no seed measured does not say so")
    print("ok: a geometry that matches no seed is said (%d rows with a seed figure)" %
          len(seeded))

    # The CSV is the JSON's rows, and the decision table's words.
    with open(cs, newline="") as f:
        rows = list(csv.DictReader(f))
    if len(rows) != len(e["results"]):
        fail("CSV has %d rows, JSON %d" % (len(rows), len(e["results"])))
    for c, x in zip(rows, e["results"]):
        if (c["design"], c["metric"], c["unit"]) != (x["design"], x["metric"], x["unit"]) or \
                abs(float(c["value"]) - x["value"]) > 1e-6 * max(1, abs(x["value"])) or \
                [float(v) for v in c["samples"].split()] != x["samples"] or \
                int(c["nodes"]) != 2 or int(c["cpus"]) != 8:
            fail("CSV row %r differs from the JSON's %r" % (c, x))
    by_metric = {}
    for c in rows:
        by_metric.setdefault(c["metric"], []).append(c)
    for m, cells in by_metric.items():
        if cells[0]["design"] != designs[0] or cells[0]["vs_base"]:
            fail("%s: the base is first and has no words: %r" % (m, cells[0]))
        # A median under the clock's resolution is no figure to rank, and
        # when the best median is one no design is marked (table.c,
        # is_best()): a best is owed only when every median was measured.
        under = [c for c in cells if c["under_resolution"] == "1"]
        if not under and not any(c["best"] == "1" for c in cells):
            fail("%s: no design marked best: %r" % (m, cells))
        if any(c["best"] == "1" for c in under):
            fail("%s: a median under the resolution marked best: %r" % (m, cells))
        for c in cells[1:]:
            if c["under_resolution"] == "1" or cells[0]["under_resolution"] == "1":
                if c["vs_base"]:
                    fail("%s: words for a figure under the resolution: %r" % (m, c))
                continue
            w = words_of(c["ratio"], float(c["ratio_lo"] or 0), float(c["ratio_hi"] or 0),
                         c["timed"] == "1")
            if w and w not in c["vs_base"]:
                fail("%s %s: %r for the range %s..%s" % (m, c["design"], c["vs_base"],
                                                         c["ratio_lo"], c["ratio_hi"]))
        for c in cells:
            if c["timed"] == "1" and float(c["value"]) < float(c["resolution"]) and \
                    c["under_resolution"] != "1":
                fail("%s %s: under the resolution, not marked" % (m, c["design"]))
    print("ok: CSV: %d rows, the JSON's, with the table's words and best marks" % len(rows))

    # The text table: a column per design, a row per metric, no "0 ns".
    if re.search(r"(^|\s)0 ns", out):
        fail("a median printed as 0 ns", r)
    header = next(l for l in out.split("\n") if l.strip().startswith("metric"))
    for d in ("prealloc", "xarray", "indexed"):
        if d not in header:
            fail("no column for %s in %r" % (d, header))
    for m in by_metric:
        if not re.search(r"^   %s(\[\d+\])*\s" % re.escape(m), out, re.M):
            fail("no row for %s" % m, r)
    notes = re.findall(r"^   \[(\d+)\] (.*)$", out, re.M)
    if len(set(t for _, t in notes)) != len(notes):
        fail("a note said twice", r)
    if "which design" not in out:
        fail("no closing summary", r)
    print("ok: the table has a column per design, a row per metric, each note once")

    with open(md) as f:
        text = f.read()
    if text.count("| metric |") != 1 or "(base)" not in text or "**" not in text:
        fail("Markdown: one table with the base and a best mark:\n" + text)
    print("ok: --markdown writes the decision table")

    expect_usage(["compare", "--design", "xarray"] + GEO, "two designs")
    expect_usage(["compare", "--design", "xarray,xarray"], "given twice")
    expect_usage(["compare", "--design", "xarray,nope"], "--design")
    expect_usage(["compare", "--design", "xarray,,indexed"], "empty")
    expect_usage(["compare", "--design", "xarray,indexed", "--json", "-", "--csv", "-"],
                 "standard output")
    expect_usage(["reproduce", "--mounts", "10"], "--mounts")


main()
