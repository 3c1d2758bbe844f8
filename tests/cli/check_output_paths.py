#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every kind of output path, for every subcommand that writes outputs and
every output option it has: the exit status shrinklab(1) gives, and no
file left behind by a run that failed (issue 28, "The class").

The table, per subcommand (run, compare, kernel, containers) and option
(--json, --csv, --markdown where the subcommand has it):
  a FIFO with no reader   2, at once (the up-front check must not block)
  a FIFO with a reader    0, and the reader gets the whole output
  /dev/full               2 (opens, refuses every write)
  /proc/version           2 (a pseudo-file: keeps nothing)
  a directory             2
  a missing directory     2
and per subcommand, with every output it has at once:
  the same path twice     2, and the path not created
  one file, two spellings 2 ("x" and "./x"), and an existing file kept
  stdout at /dev/full     1, and none of the files it created left
  stdout closed           1, and none left (no output may take fd 1)
  stdout's reader gone    1 with a message, not death by SIGPIPE, none left
  an existing file        kept as it was when stdout fails (1)
  a file size limit       1 (RLIMIT_FSIZE, SIGXFSZ ignored), none left

Each run is bounded by work (the smallest geometry of each subcommand);
the timeout is only there to report a hang as a failure.

usage: check_output_paths.py SHRINKLAB WORKDIR
"""
import os
import resource
import shutil
import signal
import subprocess
import sys
import threading

EXE, WORK = sys.argv[1], sys.argv[2]
from small_runs import CSMALL, ERROR, KSMALL, QUICK

SUBS = {
    "run": (["run", "--design", "xarray"] + QUICK, ["--json", "--csv", "--markdown"]),
    "compare": (["compare", "--design", "prealloc,xarray"] + QUICK,
                ["--json", "--csv", "--markdown"]),
    "kernel": (["kernel", "--design", "prealloc", "--host-shrinkers", "64"] + KSMALL,
               ["--json", "--csv"]),
    "containers": (["containers", "--design", "prealloc"] + CSMALL, ["--json", "--csv"]),
}
HANG = 120  # seconds: a run that takes this long is a hang, reported as one
failures = []


def run(args, stdout=subprocess.DEVNULL, preexec=None):
    try:
        return subprocess.run([EXE] + args, stdout=stdout, stderr=subprocess.PIPE, text=True,
                              timeout=HANG, preexec_fn=preexec)
    except subprocess.TimeoutExpired:
        return None


def verdict(what, r, code, leftovers=(), kept=None, says=None):
    """Record one case: exit @code, one error line when failing, none of
    @leftovers on disk, @kept {path: contents} unchanged."""
    bad = None
    err = r.stderr.strip("\n") if r else ""
    lines = err.split("\n") if err else []
    if r is None:
        bad = "no exit within %d s (blocked?)" % HANG
    elif r.returncode < 0:
        bad = "killed by signal %d" % -r.returncode
    elif r.returncode != code:
        bad = "exit %d (want %d)" % (r.returncode, code)
    elif code and (len(lines) != 1 or not ERROR.match(lines[0])):
        bad = "want one error line 'shrinklab: <subcommand>: <what>', got %r" % err[-400:]
    elif says and says not in err:
        bad = "the error does not say %r: %r" % (says, err[-300:])
    else:
        left = [p for p in leftovers if os.path.lexists(p)]
        changed = [p for p, text in (kept or {}).items() if read(p) != text]
        if left:
            bad = "left behind: %s" % ", ".join(left)
        elif changed:
            bad = "an existing file changed: %s" % ", ".join(changed)
    if bad:
        failures.append(what)
        print("FAIL: %s: %s" % (what, bad))
    else:
        print("ok: %s: exit %d%s" % (what, code, (": " + lines[0]) if lines else ""))


def read(path):
    with open(path) as f:
        return f.read()


def fresh(name):
    path = os.path.join(WORK, name)
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)
    return path


def fifo_with_reader(path, got):
    """A FIFO at @path with its read end open before this returns (so a
    reader is there when shrinklab looks, however late a thread runs on a
    busy machine), drained by a thread that appends what it reads to @got
    once the returned close() has closed this side's own write end (which
    keeps the reader from seeing the end before shrinklab has opened it)."""
    os.mkfifo(path)
    rfd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO's read end: at once
    wfd = os.open(path, os.O_WRONLY)  # a reader exists: at once
    os.set_blocking(rfd, True)

    def reader():
        with os.fdopen(rfd, "rb") as f:
            got.append(f.read())
    t = threading.Thread(target=reader, daemon=True)
    t.start()
    return t, lambda: os.close(wfd)


def per_option(sub, base, opt):
    tag = "%s %s" % (sub, opt)
    fifo = fresh("fifo")
    os.mkfifo(fifo)
    verdict("%s FIFO with no reader" % tag, run(base + [opt, fifo]), 2, says="FIFO")
    os.unlink(fifo)
    got = []
    t, close = fifo_with_reader(fresh("fifo"), got)
    r = run(base + [opt, os.path.join(WORK, "fifo")])
    close()
    t.join(HANG)
    verdict("%s FIFO with a reader" % tag, r, 0)
    if r and r.returncode == 0 and not (got and got[0]):
        failures.append(tag + " FIFO reader")
        print("FAIL: %s FIFO with a reader: the reader got nothing" % tag)
    os.unlink(os.path.join(WORK, "fifo"))
    verdict("%s /dev/full" % tag, run(base + [opt, "/dev/full"]), 2, says=opt)
    verdict("%s /proc/version" % tag, run(base + [opt, "/proc/version"]), 2, says=opt)
    d = fresh("adir")
    os.mkdir(d)
    verdict("%s a directory" % tag, run(base + [opt, d]), 2, says=opt)
    missing = os.path.join(fresh("missing"), "x")
    verdict("%s a missing directory" % tag, run(base + [opt, missing]), 2, says=opt)


def close_stdout():
    os.close(1)


def fsize_limit():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))  # every output is larger


def per_subcommand(sub, base, opts):
    files = [fresh("%s.%s" % (sub, o.lstrip("-"))) for o in opts]
    every = [a for o, f in zip(opts, files) for a in (o, f)]
    same = fresh("same")
    verdict("%s %s and %s on one path" % (sub, opts[0], opts[1]),
            run(base + [opts[0], same, opts[1], same]), 2, [same], says="same file")
    verdict("%s one new file, two spellings" % sub,
            run(base + [opts[0], same, opts[1], os.path.join(WORK, ".", "same")]), 2, [same],
            says="same file")
    with open(same, "w") as f:
        f.write("keep\n")
    verdict("%s one existing file, two spellings" % sub,
            run(base + [opts[1], same, opts[0], os.path.join(WORK, ".", "same")]), 2,
            kept={same: "keep\n"}, says="same file")
    with open("/dev/full", "w") as full:
        verdict("%s stdout at /dev/full" % sub, run(base + every, stdout=full), 1, files,
                says="standard output")
        verdict("%s stdout at /dev/full, an existing file" % sub,
                run(base + [opts[0], same], stdout=full), 1, kept={same: "keep\n"},
                says="standard output")
    verdict("%s stdout closed" % sub, run(base + every, preexec=close_stdout), 1, files,
            says="standard output")
    rd, wr = os.pipe()
    os.close(rd)  # the reader is gone before the first write
    r = run(base + every, stdout=wr)
    os.close(wr)
    verdict("%s stdout's reader gone" % sub, r, 1, files, says="Broken pipe")
    verdict("%s a file size limit" % sub, run(base + every, preexec=fsize_limit), 1, files,
            says="writing failed")
    verdict("%s every output, fine" % sub, run(base + every), 0)
    for f in files:
        if not os.path.exists(f) or not os.path.getsize(f):
            failures.append("%s: %s" % (sub, f))
            print("FAIL: %s every output, fine: %s missing or empty" % (sub, f))
        elif os.path.exists(f):
            os.unlink(f)


def main():
    os.makedirs(WORK, exist_ok=True)
    for sub, (base, opts) in SUBS.items():
        for opt in opts:
            per_option(sub, base, opt)
        per_subcommand(sub, base, opts)
    if failures:
        print("FAIL: %d case(s): %s" % (len(failures), "; ".join(failures)))
        sys.exit(1)
    print("ok: every output path kind, every subcommand and output option")


main()
