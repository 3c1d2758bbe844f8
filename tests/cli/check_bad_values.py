#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hostile option values (issue 28): each must exit 2 before anything is
measured, in one error line, and that line must not echo a huge value back.

 - Every list option follows one rule (lab_list_split()): no empty item (a
   leading, trailing or doubled separator, or nothing at all), and no item
   twice where the list is a set. Each list option is tried with each way
   of breaking it, and with one value that must still pass.
 - --scale: a multiplier below the quick scale (0.01), 1e-300 among them,
   would be raised to every experiment's floor in silence: refused.
 - A 5,000-character value, in every kind of place a value is echoed (a
   count, a scale, a list, a design, an unknown option, an extra
   argument, an unknown subcommand): the error line stays short.
 - An address-space limit (RLIMIT_AS, as prlimit --as sets it): a limit that
   cannot hold the run, and a --mem-budget above what a limit leaves, are
   refused up front (exit 2), not found by an allocation that fails.

usage: check_bad_values.py SHRINKLAB
"""
import subprocess
import sys

EXE = sys.argv[1]
from small_runs import CSMALL_GEOMETRY as CSMALL, ERROR, QUICK
from small_runs import KSMALL_GEOMETRY as KSMALL, as_limit, starts_under_as_limit

RUN = ["run", "--design", "xarray"] + QUICK
KERNEL = ["kernel", "--design", "prealloc", "--host-shrinkers", "64"] + KSMALL
CONTAINERS = ["containers", "--design", "prealloc"] + CSMALL + ["--bg", "0+2"]
CONTAINERS_NO_BG = ["containers", "--design", "prealloc"] + CSMALL
COMPARE = ["compare"] + QUICK
LONGEST_LINE = 400  # characters of an error line, whatever the value's length
failures = []

# (where, the command before the value, option, a good value, separator,
#  is it a set (no item twice)?)
LISTS = [
    ("containers", CONTAINERS, "--mix", "ext4+proc+tmpfs+tmpfs", "+", False),
    ("containers", CONTAINERS, "--phases", "reclaim+high", "+", True),
    ("containers", CONTAINERS_NO_BG, "--bg", "0+2", "+", True),
    ("kernel", KERNEL, "--ladder", "1,2", ",", True),
    ("compare", COMPARE, "--design", "prealloc,xarray", ",", True),
    ("kernel", ["kernel", "--host-shrinkers", "64"] + KSMALL, "--design",
     "indexed+units=kmalloc", "+", True),
]


def run(args, preexec=None):
    return subprocess.run([EXE] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=300, preexec_fn=preexec)


def expect(code, what, args, says=None, preexec=None):
    r = run(args, preexec)
    err = r.stderr.strip("\n")
    lines = err.split("\n") if err else []
    bad = None
    if r.returncode != code:
        bad = "exit %d (want %d)" % (r.returncode, code)
    elif code and (len(lines) != 1 or not ERROR.match(lines[0])):
        bad = "want one error line 'shrinklab: <subcommand>: <what>', got %r" % err[-300:]
    elif code and len(lines[0]) > LONGEST_LINE:
        bad = "an error line of %d characters (at most %d)" % (len(lines[0]), LONGEST_LINE)
    elif code == 2 and r.stdout:
        bad = "a usage error printed to stdout"
    elif says and says not in err:
        bad = "the error does not say %r: %r" % (says, err[-300:])
    if bad:
        failures.append(what)
        print("FAIL: %s: %s" % (what, bad))
    else:
        print("ok: %s: exit %d%s" % (what, code, (": " + lines[0][:160]) if lines else ""))


def lists():
    for sub, base, opt, good, sep, is_set in LISTS:
        bad = {"empty": "", "only a separator": sep, "leading": sep + good,
               "trailing": good + sep, "doubled": good.replace(sep, sep * 2, 1)}
        if is_set:
            bad["an item twice"] = good + sep + good.split(sep)[-1]
        expect(0, "%s %s %s" % (sub, opt, good), base + [opt, good])
        for how, value in bad.items():
            expect(2, "%s %s %r (%s)" % (sub, opt, value, how), base + [opt, value], opt)


def scales():
    for v in ["1e-300", "0.009", "0", "1e-5"]:
        expect(2, "run --scale %s" % v, ["run", "--design", "xarray", "--scale", v,
                                         "--experiment", "unit-cache-2026", "--quiet",
                                         "--no-plots"], "--scale")
        expect(2, "sweep --scale %s" % v, ["sweep", "--scale", v, "--out", "/nonexistent"],
               "--scale")
    expect(0, "run --scale 0.01", RUN[:3] + ["--scale", "0.01", "--experiment",
                                             "unit-cache-2026", "--quiet", "--no-plots"])


def long_values():
    huge = "9" * 5000
    word = "x" * 5000
    cases = [
        ("--mounts", RUN + ["--mounts", huge]),
        ("--scale", ["run", "--design", "xarray", "--scale", huge]),
        ("--samples", RUN + ["--samples", huge]),
        ("--mem-budget", RUN + ["--mem-budget", huge]),
        ("--mix", CONTAINERS + ["--mix", word]),
        ("--bg", CONTAINERS_NO_BG + ["--bg", huge]),
        ("--ladder", KERNEL + ["--ladder", huge]),
        ("--design", ["run", "--design", word] + QUICK),
        ("--design list", COMPARE + ["--design", "prealloc," + word]),
        ("--experiment", ["run", "--design", "xarray", "--experiment", word]),
        ("an unknown option", ["run", "--" + word]),
        ("an extra argument", RUN + [word]),
        ("an unknown subcommand", [word]),
        ("slabinfo size", ["slabinfo", huge]),
    ]
    for what, args in cases:
        expect(2, "a 5000-character value: %s" % what, args)


def address_space():
    if not starts_under_as_limit(EXE):
        print("skip: the address-space cases: %s cannot start under a limit (a sanitizer "
              "build's shadow memory)" % EXE)
        return
    expect(2, "a 100 MiB address-space limit",
           ["run", "--design", "xarray", "--experiment", "xarray-2026-vm", "--scale", "quick",
            "--quiet", "--no-plots"], "address-space limit", as_limit(100 << 20))
    expect(2, "--mem-budget 1G under a 400 MiB address-space limit",
           RUN + ["--mem-budget", "1G"], "address-space limit", as_limit(400 << 20))
    expect(0, "a 400 MiB address-space limit, the quick scale", RUN, None,
           as_limit(400 << 20))


def experiment_ids():
    expect(2, "--experiment nope lists the ids", ["run", "--design", "xarray", "--experiment",
                                                  "nope"], "unit-cache-2026")


def main():
    lists()
    scales()
    long_values()
    address_space()
    experiment_ids()
    if failures:
        print("FAIL: %d case(s): %s" % (len(failures), "; ".join(failures)))
        sys.exit(1)
    print("ok: every hostile value refused, in a short line")


main()
