#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""shrinklab(1) renders without a troff warning ("cannot adjust line",
"can't break line", ...) at the terminal widths people read it at: groff
with every warning on (-ww), as man(1) runs it, at 60 to 132 columns.

usage: check_man_render.py MANPAGE
"""
import subprocess
import sys

MAN = sys.argv[1]
failures = 0
for width in (60, 72, 80, 100, 120, 132):
    r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-rLL=%dn" % width, MAN],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       timeout=120)
    if r.returncode or r.stderr.strip():
        failures += 1
        print("FAIL: %d columns: exit %d: %s" % (width, r.returncode, r.stderr.strip()))
    else:
        print("ok: %d columns, no warning" % width)
sys.exit(1 if failures else 0)
