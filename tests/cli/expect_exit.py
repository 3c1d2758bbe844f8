#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""expect_exit.py CODE CMD ARGS...: run CMD and require exit status CODE.
A failure (CODE != 0) must explain itself in shrinklab's one error style:
exactly one line on stderr, "shrinklab: <subcommand>: <what was wrong>"
(or "shrinklab: <what>" at the top level); a usage error (2) is found before
anything runs, so it prints nothing on stdout."""
import re
import subprocess
import sys

want = int(sys.argv[1])
r = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                   timeout=120)
err = r.stderr.strip("\n")
if r.returncode != want:
    print("FAIL: exit %d (want %d), stderr %r" % (r.returncode, want, r.stderr))
    sys.exit(1)
if want:
    lines = err.split("\n") if err else []
    if len(lines) != 1 or not re.match(r"^shrinklab: (\S+: )?\S.*$", lines[0]):
        print("FAIL: want one line 'shrinklab: <subcommand>: <what>' on stderr, got %r" % err)
        sys.exit(1)
    if want == 2 and r.stdout:
        print("FAIL: a usage error printed to stdout: %r" % r.stdout[:200])
        sys.exit(1)
print("ok: exit %d: %s" % (r.returncode, err))
