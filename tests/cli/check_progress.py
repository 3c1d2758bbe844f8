#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""shrinklab compare's progress line: on a terminal (stderr a pseudo-
terminal here) it says the time so far, the experiment (k/n), the phase,
the round, the design (k/n), the samples done and to do and the design's
label, and the counts add up; never as wide as the terminal; it never reaches stdout (the text tables there and
--json - carry no byte of it); --quiet turns it off, and so does a stderr
that is no terminal.

usage: check_progress.py SHRINKLAB
"""
import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import threading

EXE = sys.argv[1]
COMPARE = ["compare", "--design", "prealloc,xarray", "--scale", "quick"]
COLUMNS = 130
NARROW = 60
LINE = re.compile(r"^\d+ (min \d\d )?s so far, xarray-2026-vm 1/1, ")
ROUND = re.compile(r": round (\d+)/(\d+), design ([12])/2, (\d+)/(\d+) done, (\d+) to do: "
                   r"(prealloc|xarray)$")


def fail(what, detail=""):
    print("FAIL:", what)
    if detail:
        print(detail[-3000:])
    sys.exit(1)


def on_terminal(args, columns=COLUMNS):
    """Run shrinklab @args with stderr on a pseudo-terminal @columns wide and
    stdout a pipe: (exit status, stdout bytes, what the terminal got)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    got = []

    def drain():
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:        # EIO: the child closed the terminal
                return
            if not chunk:
                return
            got.append(chunk)
    t = threading.Thread(target=drain)
    t.start()
    p = subprocess.run([EXE] + args, stdout=subprocess.PIPE, stderr=slave,
                       stdin=subprocess.DEVNULL, timeout=300)
    os.close(slave)
    t.join()
    os.close(master)
    return p.returncode, p.stdout, b"".join(got).decode(errors="replace")


def progress_lines(term):
    """The lines the terminal drew: each redraw starts with CR, ESC [ K."""
    return [x for x in term.replace("\r\n", "\n").split("\r\x1b[K") if x and x != "\n"]


def clean_stdout(what, out):
    if b"\r" in out or b"\x1b" in out or b"so far" in out:
        fail("%s: progress on stdout" % what, out.decode(errors="replace"))


def main():
    rc, out, term = on_terminal(COMPARE)
    if rc != 0:
        fail("compare on a terminal: exit %d" % rc, term)
    clean_stdout("text tables", out)
    if b"== xarray-2026-vm" not in out:
        fail("the tables are not on stdout", out.decode(errors="replace"))
    lines = progress_lines(term)
    rounds = [x for x in lines if ": round " in x]
    if not rounds or not all(LINE.match(x) and ROUND.search(x.rstrip("\n")) for x in rounds):
        fail("no progress line with the time so far, the experiment and the rounds",
             "\n".join(lines[:20]))
    for x in rounds:
        rnd, nr, design, done, total, todo, label = ROUND.search(x.rstrip("\n")).groups()
        if (int(done) != (int(rnd) - 1) * 2 + int(design) - 1 or int(total) != int(nr) * 2
                or int(todo) != int(total) - int(done)
                or label != ("prealloc", "xarray")[int(design) - 1]):
            fail("a progress line whose counts do not add up", x)
    for design in ("design 1/2", "design 2/2"):
        if not any(design in x for x in rounds):
            fail("no progress line names %s" % design, "\n".join(rounds[:20]))
    rc, out, term = on_terminal(COMPARE + ["--json", "-"], NARROW)
    if rc != 0:
        fail("compare --json - on a terminal: exit %d" % rc, term)
    clean_stdout("--json -", out)
    try:
        json.loads(out)
    except ValueError as e:
        fail("--json - with the progress line on: stdout is not JSON (%s)" % e)
    if "so far" not in term or "== xarray-2026-vm" not in term:
        fail("--json -: the tables and the progress line belong on stderr", term)
    lines = [x for x in progress_lines(term) if LINE.match(x)]
    wide = [x for x in lines if len(x.split("\n")[0]) >= NARROW]
    if wide or not any(": round " in x for x in lines):
        fail("progress lines as wide as a %d-column terminal or wider" % NARROW,
             "\n".join(wide[:5]))

    rc, out, term = on_terminal(COMPARE + ["--quiet"])
    if rc != 0 or "so far" in term or "\x1b" in term:
        fail("--quiet: a progress line (exit %d)" % rc, term)

    p = subprocess.run([EXE] + COMPARE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, timeout=300)
    if p.returncode != 0 or b"so far" in p.stderr or b"\x1b" in p.stderr:
        fail("stderr no terminal: a progress line (exit %d)" % p.returncode,
             p.stderr.decode(errors="replace"))
    clean_stdout("stderr a pipe", p.stdout)
    print("ok: progress on a terminal only, never on stdout (%d lines drawn, %d of rounds)"
          % (len(lines), len(rounds)))


main()
