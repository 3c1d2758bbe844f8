#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_torture_rejects.py TORTURE: torture refuses a bad length.

The test suite bounds torture by work (--ops N); a run given a bad budget,
or both a time and a budget, must exit 2 before any design runs (nothing
on stdout) and say what was wrong on stderr, not run with a default."""
import subprocess
import sys

BAD = [
    (['-d', 'xarray', '--ops', '0'], '--ops'),
    (['-d', 'xarray', '--ops', '10x'], '--ops'),
    (['-d', 'xarray', '--ops', '-5'], '--ops'),
    (['-d', 'xarray', '--ops'], '--ops'),
    (['-d', 'xarray', '-t', '1', '--ops', '5'], 'not both'),
    (['-d', 'xarray', '--ops', '5', '-t', '1'], 'not both'),
]

torture = sys.argv[1]
failed = 0
for args, named in BAD:
    r = subprocess.run([torture] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=60)
    why = None
    if r.returncode != 2:
        why = 'exit %d, want 2' % r.returncode
    elif r.stdout:
        why = 'printed on stdout (ran a design?): %r' % r.stdout[:200]
    elif named not in r.stderr:
        why = 'stderr does not say %r: %r' % (named, r.stderr)
    print('%s %s: %s' % ('FAIL' if why else 'ok', ' '.join(args), why or r.stderr.split('\n')[0]))
    failed += why is not None
sys.exit(1 if failed else 0)
