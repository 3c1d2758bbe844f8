#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The EXAMPLES of shrinklab(1), run: a documented command must work and
must not print a row whose name says something its measurement does not.

Each example is taken from the man page as written (roff escapes undone,
continuation lines joined, the trailing comment dropped) and run by bash in
a scratch directory, with `shrinklab` on the PATH being a wrapper around
the binary under test that adds `--scale quick` to reproduce, run and
compare when the example gives no scale and no geometry of its own, and
`--scale 0.05` to sweep (the documented scales take minutes and gigabytes),
and `--json shrinklab-rows.json` to reproduce, run, compare, kernel and containers when
the example writes no JSON of its own, so that every example's rows are
checked below (the command line is otherwise the documented one). Then:

- every example exits 0, pipes included (pipefail);
- no output prints a timed median as "0 ns";
- every JSON document an example writes (a file, or standard output)
  validates against the schema, and every row whose metric names a rung of
  the unit ladder (..._<N>u) was measured with the ids spanning N units per
  node, every "register_<B>_mounts" row with batches of B mounts;
- every CSV an example writes has the JSON's columns and a row per result.

usage: check_man_examples.py SHRINKLAB MANPAGE WORKDIR
"""
import csv
import glob
import json
import os
import re
import shutil
import subprocess
import sys

from schema_check import validate

EXE, MAN, WORK = os.path.abspath(sys.argv[1]), sys.argv[2], os.path.abspath(sys.argv[3])

WRAPPER = r'''#!/bin/sh
# Scaled-down runs of the man page's examples (check_man_examples.py).
# An example that writes no JSON writes it here too, so that its rows are checked.
sub="$1"
rows=
case "$sub" in
reproduce|run|compare|kernel|containers)
	case " $* " in *" --json"*) ;; *) rows=1 ;; esac ;;
esac
[ -z "$rows" ] || set -- "$@" --json shrinklab-rows.json
case " $* " in
*" --scale"*|*" --mounts"*|*" --cgroups"*) exec "%(exe)s" "$@" ;;
esac
case "$sub" in
reproduce|run|compare) shift; exec "%(exe)s" "$sub" --scale quick "$@" ;;
sweep) shift; exec "%(exe)s" "$sub" --scale 0.05 "$@" ;;
esac
exec "%(exe)s" "$@"
'''


def fail(what, out=""):
    print("FAIL:", what)
    if out:
        print(out[-4000:])
    sys.exit(1)


def examples(path):
    with open(path) as f:
        text = f.read()
    m = re.search(r"^\.SH EXAMPLES\n\.nf\n(.*?)^\.fi$", text, re.M | re.S)
    if not m:
        fail("no EXAMPLES section in %s" % path)
    body = m.group(1).replace("\\\\", "\\").replace("\\-", "-")
    cmds, cur = [], ""
    for line in body.split("\n"):
        if not line.strip():
            continue
        cur += line.strip()
        if cur.endswith("\\"):
            cur = cur[:-1].rstrip() + " "
            continue
        cmds.append(re.sub(r"\s+#.*$", "", cur).strip())
        cur = ""
    if not cmds or not all(c.startswith("shrinklab ") for c in cmds):
        fail("examples that are not shrinklab commands: %r" % cmds)
    return cmds


def check_json(doc, where):
    validate(doc)
    for e in doc["experiments"]:
        for r in e["results"]:
            if r["unavailable"]:
                continue
            g, note = r["geometry"], r["geometry"]["note"]
            m = re.search(r"_(\d+)u$", r["metric"])
            if m and g["units"] != int(m.group(1)):
                fail("%s: %s %s is labelled %su but measured at %s units per node" %
                     (where, r["design"], r["metric"], m.group(1), g["units"]))
            m = re.match(r"register_(\d+)_mounts_", r["metric"])
            if m and doc["run"]["subcommand"] == "kernel" and \
                    "batch of %s mounts" % m.group(1) not in note:
                fail("%s: %s %s: batches of %s mounts, says %r" %
                     (where, r["design"], r["metric"], m.group(1), note))


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(os.path.join(WORK, "bin"))
    wrap = os.path.join(WORK, "bin", "shrinklab")
    with open(wrap, "w") as f:
        f.write(WRAPPER % {"exe": EXE})
    os.chmod(wrap, 0o755)
    env = dict(os.environ, PATH=os.path.join(WORK, "bin") + os.pathsep + os.environ["PATH"])
    for i, cmd in enumerate(examples(MAN)):
        d = os.path.join(WORK, "ex%d" % i)
        os.makedirs(d)
        r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=d, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=1200)
        out = r.stdout + r.stderr
        if r.returncode:
            fail("example %r exited %d" % (cmd, r.returncode), out)
        if re.search(r"(^|\s)0 ns\b", out):
            fail("example %r printed a median of 0 ns" % cmd, out)
        docs = 0
        if "--json -" in cmd:
            check_json(json.loads(r.stdout), cmd)
            docs += 1
        for p in glob.glob(os.path.join(d, "*.json")):
            with open(p) as f:
                doc = json.load(f)
            check_json(doc, cmd)
            docs += 1
            c = p[:-5] + ".csv"
            if os.path.exists(c):
                with open(c, newline="") as f:
                    rows = list(csv.DictReader(f))
                if len(rows) != sum(len(e["results"]) for e in doc["experiments"]):
                    fail("%r: the CSV's rows are not the JSON's" % cmd)
        for c in glob.glob(os.path.join(d, "*.csv")):
            with open(c, newline="") as f:
                rows = list(csv.DictReader(f))
            if not rows:
                fail("%r wrote an empty %s" % (cmd, c))
        print("ok: %s (%d JSON document(s))" % (cmd, docs))


main()
