#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every exit status of shrinklab(1), each reason the man page gives for it
exercised by at least one invocation here, and every reason here found in
the man page's EXIT STATUS section: a reason added to the page without a
case, or a case whose reason the page no longer gives, fails this test.

The man page separates the reasons of one status with ';'. Each case names
the phrase its reason begins with on the page (a parenthesis may follow). A failure (1 or 2) must be
one line on stderr in shrinklab's error style, and a usage error (2) must
come before anything is measured (nothing on stdout, and within seconds:
the cases that would otherwise run use small geometries, so a check that is
missing shows as a wrong exit status, not a timeout).

Outputs that open but cannot be written are here: /dev/full (a device that
refuses every write), /proc/version (a pseudo-file), a block device node
(never opened: made with mknod, root only), and standard output on
/dev/full; and outputs that pass every check and fail while being written
(a file size limit: RLIMIT_FSIZE with SIGXFSZ ignored), which must exit 1
and leave no partial file behind.

usage: check_exit_statuses.py SHRINKLAB MANPAGE WORKDIR
"""
import os
import re
import resource
import signal
import stat
import subprocess
import sys

EXE, MAN, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
from small_runs import CSMALL, ERROR, KSMALL, QUICK, as_limit, starts_under_as_limit

failures = []


def man_reasons():
    """{status: [reason, ...]} from the EXIT STATUS section of the man page."""
    with open(MAN) as f:
        text = f.read()
    sec = text.split(".SH EXIT STATUS", 1)[1].split("\n.SH ", 1)[0]
    out = {}
    for m in re.finditer(r"\.TP\n\.B (\d)\n(.*?)(?=\n\.TP|\n\.PP|\Z)", sec, re.S):
        body = re.sub(r"\\f[BIRP]|\\", "", m.group(2)).replace("\n", " ")
        body = body.split(":", 1)[1] if ":" in body else body
        out[int(m.group(1))] = [r.strip(" .") for r in body.split(";") if r.strip(" .")]
    return out


def fsize_limit():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (512, 512))  # the JSON is larger


def run(args, stdout=subprocess.PIPE, env=None, preexec=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([EXE] + args, stdout=stdout, stderr=subprocess.PIPE, text=True,
                          env=e, timeout=120, preexec_fn=preexec,
                          restore_signals=preexec is None)


def check(code, reason, args, contains="", stdout=subprocess.PIPE, env=None, preexec=None,
          after=None):
    r = run(args, stdout, env, preexec)
    err = r.stderr.strip("\n")
    lines = err.split("\n") if err else []
    what = "%s: %s" % (reason, " ".join(args))
    bad = None
    if r.returncode != code:
        bad = "exit %d (want %d)" % (r.returncode, code)
    elif code and (len(lines) != 1 or not ERROR.match(lines[0])):
        bad = "want one error line 'shrinklab: <subcommand>: <what>'"
    elif code and contains not in lines[0]:
        bad = "the error does not say %r" % contains
    elif code == 2 and r.stdout:
        bad = "a usage error printed to stdout: %r" % r.stdout[:200]
    elif after:
        bad = after()
    if bad:
        failures.append(what)
        print("FAIL: %s: %s; stderr %r" % (what, bad, err[-600:]))
    else:
        print("ok: exit %d: %s -> %s" % (code, what, lines[0] if lines else "(no message)"))
    return reason


def absent(path):
    return lambda: "%s left behind" % path if os.path.exists(path) else None


def main():
    os.makedirs(WORK, exist_ok=True)
    empty = os.path.join(WORK, "empty.tsv")
    comments = os.path.join(WORK, "comments.tsv")
    with open(empty, "w"):
        pass
    with open(comments, "w") as f:
        f.write("# only a comment\n\n")
    long_field = os.path.join(WORK, "long-field.tsv")
    with open(long_field, "w") as f:
        f.write("xarray-2026-vm\tprealloc\t%s\t1\tB\tmounts=1\txarray-2026\tx\n" % ("m" * 100))
    big = os.path.join(WORK, "too-big.json")
    if os.path.exists(big):
        os.unlink(big)
    cases = {0: set(), 1: set(), 2: set()}

    def case(code, reason, *a, **k):
        cases[code].add(check(code, reason, *a, **k))

    case(0, "Success", ["run", "--design", "xarray"] + QUICK)
    case(0, "Success", ["run", "--design", "xarray", "--json", "/dev/null"] + QUICK)
    case(0, "Success", ["kernel", "--design", "prealloc", "--host-shrinkers", "64"] + KSMALL)

    case(0, "Success", ["containers", "--design", "prealloc"] + CSMALL)
    case(1, "measuring failed", ["run", "--design", "prealloc", "--experiment", "xarray-2026-vm",
                                 "--mounts", "5000", "--cgroups", "100", "--mem-budget", "6M",
                                 "--quiet"], "memory budget")
    case(1, "writing an output failed", ["run", "--design", "xarray", "--json", big] + QUICK,
         "--json", preexec=fsize_limit, after=absent(big))
    case(1, "gnuplot missing or failing",
         ["reproduce", "--experiment", "unit-cache-2026", "--scale", "quick", "--quiet",
          "--plots", os.path.join(WORK, "plots")], "SHRINKLAB_GNUPLOT",
         env={"SHRINKLAB_GNUPLOT": "/nonexistent/gnuplot"})
    with open("/dev/full", "w") as full:
        case(1, "standard output could not be written", ["run", "--design", "xarray"] + QUICK,
             "standard output", stdout=full)

    case(2, "an unknown or repeated option", ["reproduce", "--bogus"], "--bogus")
    case(2, "an unknown or repeated option", ["run", "--design", "xarray", "--design", "flat"],
         "more than once")
    case(2, "a bad value", ["run", "--design", "xarray", "--nodes", "0"], "--nodes")
    case(2, "a bad value", ["kernel", "--design", "indexed+units=kmalloc+units=cache"] + KSMALL,
         "units")
    case(2, "a bad value", ["kernel", "--design", "flat+expand_batch=8+expand_batch=16"] +
         KSMALL, "expand_batch")
    case(2, "a bad value", ["kernel", "--design", "prealloc", "--host-shrinkers", "100"] +
         KSMALL, "--host-shrinkers")
    case(2, "a bad value", ["containers", "--design", "prealloc", "--mix", "ext4+nfs"] +
         CSMALL, "--mix")
    case(2, "a bad value", ["containers", "--design", "prealloc", "--bg", "100+0"] + CSMALL,
         "--bg")
    case(2, "a bad value", ["containers", "--design", "prealloc", "--containers", "0"] +
         CSMALL, "--containers")
    case(2, "a bad value", ["containers", "--design", "prealloc", "--phases", "kswapd"] +
         CSMALL, "--phases")
    case(2, "a bad value", ["containers", "--design", "nope"] + CSMALL, "--design")
    case(2, "an unknown or repeated option", ["containers", "--design", "prealloc", "--bytes",
                                              "4096"] + CSMALL, "--bytes")
    case(2, "an impossible scale", ["run", "--design", "xarray", "--mounts", "50000000",
                                    "--cgroups", "60000"], "more than")
    case(2, "a memory budget below the estimate of what the mounts need",
         ["reproduce", "--experiment", "xarray-2026-vm", "--scale", "quick", "--mem-budget", "1M",
          "--no-plots"], "memory budget")
    case(2, "a --data file that cannot be read or holds no figures",
         ["reproduce", "--data", "/nonexistent/seed_figures.tsv"] + QUICK, "--data")
    case(2, "a --data file that cannot be read or holds no figures",
         ["reproduce", "--data", WORK] + QUICK, "--data")
    case(2, "a --data file that cannot be read or holds no figures",
         ["reproduce", "--data", empty] + QUICK, "no figures")
    case(2, "a --data file that cannot be read or holds no figures",
         ["reproduce", "--data", comments] + QUICK, "no figures")
    case(2, "a --data file that cannot be read or holds no figures",
         ["reproduce", "--data", long_field] + QUICK, "no field longer")
    not_json = os.path.join(WORK, "judge-not-json.json")
    no_guests = os.path.join(WORK, "judge-no-guests.json")
    with open(not_json, "w") as f:
        f.write('{"kernel": [')
    with open(no_guests, "w") as f:
        f.write('{"model": []}')
    for doc, why in (("/nonexistent/judge.json", "No such file"), (not_json, "a value expected"),
                     (no_guests, '"kernel"')):
        case(2, "a judge document that cannot be read or is not one", ["judge", "lab", doc], why)
    if starts_under_as_limit(EXE):
        case(2, "an address-space limit too low for the run",
             ["run", "--design", "xarray", "--experiment", "xarray-2026-vm", "--scale",
              "quick", "--quiet", "--no-plots"], "address-space limit",
             preexec=as_limit(100 << 20))
    else:
        # The man page's reason stays tested in the plain build.
        cases[2].add("an address-space limit too low for the run")
        print("skip: the address-space case: %s cannot start under a limit (a sanitizer "
              "build's shadow memory)" % EXE)
    unwritable = "an output that cannot be written"
    case(2, unwritable, ["run", "--design", "xarray", "--json", "/nonexistent-dir/x.json"] +
         QUICK, "--json")
    case(2, unwritable, ["run", "--design", "xarray", "--json", WORK] + QUICK, "--json")
    case(2, unwritable, ["run", "--design", "xarray", "--json", "/dev/full"] + QUICK, "--json")
    case(2, unwritable, ["run", "--design", "xarray", "--json", "/proc/version"] + QUICK,
         "--json")
    case(2, unwritable, ["containers", "--design", "prealloc", "--json",
                         "/nonexistent-dir/x.json"] + CSMALL, "--json")
    case(2, unwritable, ["kernel", "--design", "prealloc", "--json", "/dev/full"] + KSMALL,
         "--json")
    case(2, unwritable, ["kernel", "--design", "prealloc", "--json", "/proc/version"] + KSMALL,
         "--json")
    with open("/dev/full", "w") as full:
        case(2, unwritable, ["run", "--design", "xarray", "--json", "-"] + QUICK, "--json",
             stdout=full)
    if os.geteuid() == 0:
        node = os.path.join(WORK, "blockdev")
        if os.path.exists(node):
            os.unlink(node)
        # major 240: reserved for local use, nothing behind it; never opened.
        os.mknod(node, stat.S_IFBLK | 0o600, os.makedev(240, 0))
        case(2, unwritable, ["run", "--design", "xarray", "--json", node] + QUICK,
             "block device")
        os.unlink(node)
    else:
        print("skip: the block device node needs root (mknod)")

    documented = man_reasons()
    for code in (0, 1, 2):
        for reason in cases[code]:
            if reason != "Success" and not any(item.startswith(reason)
                                               for item in documented.get(code, [])):
                failures.append("man page, exit %d: %r" % (code, reason))
                print("FAIL: shrinklab.1 does not give %r under exit %d (it gives %r)" %
                      (reason, code, documented.get(code)))
        for reason in documented.get(code, []):
            if code and not any(reason.startswith(r) for r in cases[code]):
                failures.append("untested, exit %d: %r" % (code, reason))
                print("FAIL: shrinklab.1 gives %r under exit %d, and no case here tests it" %
                      (reason, code))
    if failures:
        print("FAIL: %d of the checks" % len(failures))
        sys.exit(1)
    print("ok: every exit status and every reason shrinklab.1 gives for it")


main()
