#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The command-line conventions of shrinklab(1), one check each:
--version; --opt=value the same as --opt value; 'help SUB' the same as
'SUB --help'; a repeated option is an error unless documented repeatable
(reproduce --experiment); --json - puts only JSON on stdout (the tables go
to stderr); unwritable outputs (--json, --plots, sweep --out) fail with
exit 2 before anything is measured (a seed-scale run would take minutes:
the timeout catches one that starts); gnuplot missing or failing is exit 1
with one line; paths with quotes work for plots; errors are one line.

usage: check_cli_conventions.py SHRINKLAB WORKDIR
"""
import json
import os
import re
import shutil
import subprocess
import sys

from schema_check import validate

EXE, WORK = sys.argv[1], sys.argv[2]
ERROR = re.compile(r"^shrinklab: (\S+: )?\S.*$")


def run(args, env=None, timeout=120):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([EXE] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, env=e, timeout=timeout)


def fail(what, r=None):
    print("FAIL:", what)
    if r is not None:
        print("exit %d\nstdout %r\nstderr %r" % (r.returncode, r.stdout[-2000:],
                                                 r.stderr[-2000:]))
    sys.exit(1)


def expect_error(args, code, contains, env=None):
    r = run(args, env)
    lines = r.stderr.strip("\n").split("\n")
    if r.returncode != code or len(lines) != 1 or not ERROR.match(lines[0]) or \
            contains not in lines[0] or r.stdout:
        fail("%s: want exit %d and one error line with %r" % (args, code, contains), r)
    print("ok:", " ".join(args), "->", lines[0])


def test_version():
    for args in (["--version"], ["run", "--version"], ["compare", "--version"],
                 ["reproduce", "--version"],
                 ["sweep", "--version"], ["slabinfo", "--version"], ["kernel", "--version"],
                 ["containers", "--version"], ["experiments", "--version"],
                 ["judge", "--version"]):
        r = run(args)
        if r.returncode or not re.match(r"^shrinklab \d+\.\d+\.\d+( \(git \S+\))?\n$",
                                        r.stdout):
            fail("%s" % args, r)
    print("ok: --version:", r.stdout.strip())


def test_help():
    top = run(["--help"])
    for sub in ("run", "compare", "reproduce", "sweep", "slabinfo", "kernel", "containers",
                "experiments", "judge"):
        a, b = run(["help", sub]), run([sub, "--help"])
        if a.returncode or b.returncode or a.stdout != b.stdout or a.stdout == top.stdout \
                or "Exit status" not in a.stdout:
            fail("help %s differs from %s --help" % (sub, sub), a)
    print("ok: help SUB == SUB --help")


def design_rows(path):
    with open(path) as f:
        doc = json.load(f)
    validate(doc)
    e = doc["experiments"][0]
    return doc, {(x["design"], x["metric"]): x["value"] for x in e["results"]
                 if x["metric"] == "units_per_slab"}


def test_equals_form():
    a, b = os.path.join(WORK, "eq_a.json"), os.path.join(WORK, "eq_b.json")
    ra = run(["run", "--design=prealloc", "--units=cache", "--experiment=unit-cache-2026",
              "--scale=quick", "--quiet", "--json=" + a])
    rb = run(["run", "--design", "prealloc", "--units", "cache", "--experiment",
              "unit-cache-2026", "--scale", "quick", "--quiet", "--json", b])
    if ra.returncode or rb.returncode:
        fail("--opt=value / --opt value", ra if ra.returncode else rb)
    da, ua = design_rows(a)
    db, ub = design_rows(b)
    if ua != ub or ua.get(("prealloc+units=cache", "units_per_slab")) != 31 or \
            da["run"]["scale"] != "quick" or da["experiments"][0]["geometry"] != \
            db["experiments"][0]["geometry"]:
        fail("--opt=value and --opt value differ: %r %r" % (ua, ub))
    print("ok: --opt=value == --opt value")


def test_repeated():
    expect_error(["run", "--design", "xarray", "--design=prealloc"], 2, "more than once")
    expect_error(["reproduce", "--scale", "quick", "--scale", "seed"], 2, "more than once")
    expect_error(["reproduce", "--quiet", "--quiet"], 2, "more than once")
    expect_error(["sweep", "--out", "a", "--out=b"], 2, "more than once")
    expect_error(["sweep", "--series", "nope"], 2, "--series")
    expect_error(["slabinfo", "--cpus", "2", "--cpus", "4", "520"], 2, "more than once")
    expect_error(["kernel", "--design", "prealloc", "--ladder", "1,2", "--ladder=1,3"], 2,
                 "more than once")
    expect_error(["containers", "--design", "prealloc", "--bg", "0", "--bg=5"], 2,
                 "more than once")
    expect_error(["reproduce", "--experiment", "unit-cache-2026", "--experiment",
                  "unit-cache-2026"], 2, "given twice")
    out = os.path.join(WORK, "two.json")
    r = run(["reproduce", "--experiment", "unit-cache-2026", "--experiment=xarray-2026-vm",
             "--scale", "quick", "--quiet", "--no-plots", "--json", out])
    if r.returncode:
        fail("repeatable --experiment", r)
    with open(out) as f:
        ids = [e["id"] for e in json.load(f)["experiments"]]
    if ids != ["xarray-2026-vm", "unit-cache-2026"]:
        fail("--experiment twice ran %r" % ids)
    print("ok: repeated options rejected, --experiment repeatable")


def test_json_stdout():
    r = run(["run", "--design", "xarray", "--experiment", "unit-cache-2026", "--scale", "quick",
             "--quiet", "--json", "-"])
    if r.returncode:
        fail("--json -", r)
    doc = json.loads(r.stdout)  # nothing but the document on stdout
    validate(doc)
    if "== unit-cache-2026" not in r.stderr or "which design" not in r.stderr:
        fail("--json -: the tables should be on stderr", r)
    print("ok: --json - writes JSON to stdout, the tables to stderr")


def test_outputs_checked_first():
    afile = os.path.join(WORK, "a-file")
    with open(afile, "w") as f:
        f.write("x")
    slow = ["--experiment", "bitmap-2018", "--scale", "seed", "--quiet"]
    expect_error(["reproduce", "--json", "/nonexistent-dir/x.json", "--no-plots"] + slow, 2,
                 "--json")
    expect_error(["reproduce", "--json", WORK, "--no-plots"] + slow, 2, "--json")
    expect_error(["reproduce", "--plots", os.path.join(afile, "plots")] + slow, 2, "--plots")
    expect_error(["run", "--design", "nobitmap", "--json", os.path.join(afile, "x.json")] +
                 slow, 2, "--json")
    expect_error(["sweep", "--out", os.path.join(afile, "out"), "--scale", "3"], 2, "--out")
    # An existing file is not truncated by a run that fails its checks.
    keep = os.path.join(WORK, "keep.json")
    with open(keep, "w") as f:
        f.write("precious")
    expect_error(["reproduce", "--json", keep, "--plots", os.path.join(afile, "p")] + slow, 2,
                 "--plots")
    with open(keep) as f:
        if f.read() != "precious":
            fail("a failed run truncated an existing --json file")
    expect_error(["reproduce", "--plots", "x", "--no-plots"], 2, "contradict")
    print("ok: outputs are checked before measuring")


def test_gnuplot():
    quick = ["reproduce", "--experiment", "unit-cache-2026", "--scale", "quick", "--quiet"]
    expect_error(quick + ["--plots", os.path.join(WORK, "gp-missing")], 1, "not found",
                 env={"PATH": "/nonexistent"})
    expect_error(quick + ["--plots", os.path.join(WORK, "gp-missing2")], 1,
                 "SHRINKLAB_GNUPLOT", env={"SHRINKLAB_GNUPLOT": "/nonexistent/gnuplot"})
    r = run(quick + ["--plots", os.path.join(WORK, "gp-fails")],
            env={"SHRINKLAB_GNUPLOT": shutil.which("false") or "/bin/false"})
    if r.returncode != 1 or not any(ERROR.match(x) and "exited with status" in x
                                    for x in r.stderr.split("\n")):
        fail("a failing gnuplot must fail the run", r)
    print("ok: gnuplot missing or failing: exit 1 with a message")


def test_quoted_paths():
    if not shutil.which("gnuplot"):
        fail("gnuplot is needed (scripts/install-deps.sh installs gnuplot-nox)")
    d = os.path.join(WORK, "it's \"quoted\" $(x) dir")
    shutil.rmtree(d, ignore_errors=True)
    r = run(["reproduce", "--experiment", "unit-cache-2026", "--scale", "quick", "--quiet",
             "--plots", d])
    if r.returncode:
        fail("plots in %r" % d, r)
    s = os.path.join(d, "sweep")
    r = run(["sweep", "--series", "slab", "--scale", "0.05", "--quiet", "--out", s])
    if r.returncode:
        fail("sweep into %r" % s, r)
    for p in [os.path.join(d, "unit-cache-2026.png"), os.path.join(d, "unit-cache-2026.gp")] + \
            [os.path.join(s, "slab" + e) for e in (".csv", ".gp", ".png")]:
        if not os.path.isfile(p) or not os.path.getsize(p):
            fail("%s missing" % p)
    # The scripts re-render from their own directory.
    os.unlink(os.path.join(s, "slab.png"))
    r2 = subprocess.run(["gnuplot", "slab.gp"], cwd=s, stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE, text=True)
    if r2.returncode or not os.path.isfile(os.path.join(s, "slab.png")):
        fail("re-rendering slab.gp: %s" % r2.stderr)
    with open(os.path.join(s, "slab.gp")) as f:
        gp = f.read()
    if len(set(re.findall(r" pt (\d+) ", gp))) < 6 or len(set(re.findall(r" dt (\d+) ", gp))) < 5:
        fail("sweep series are not told apart by point and dash types:\n" + gp)
    print("ok: plots and sweep in a directory with quotes; scripts re-render")


os.makedirs(WORK, exist_ok=True)
test_version()
test_help()
test_equals_form()
test_repeated()
test_json_stdout()
test_outputs_checked_first()
test_gnuplot()
test_quoted_paths()
print("ok: every convention")
