#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""expect_exit.py CODE CMD ARGS...: run CMD and require exit status CODE and
a message on stderr."""
import subprocess
import sys

want = int(sys.argv[1])
r = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
if r.returncode != want or (want and not r.stderr.strip()):
    print("FAIL: exit %d (want %d), stderr %r" % (r.returncode, want, r.stderr))
    sys.exit(1)
print("ok: exit %d: %s" % (r.returncode, r.stderr.strip()))
