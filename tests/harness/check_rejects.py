#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_rejects.py TEST: the harness refuses bad command lines.

Each bad command line below must exit 2 before any test runs (nothing on
stdout) and name the offending argument on stderr: a misspelt option
(--desgin flat) must not run and pass the default design."""
import subprocess
import sys

BAD = [
    (['--desgin', 'flat'], '--desgin'),
    (['--design', 'flta'], 'flta'),
    (['--design'], '--design'),
    (['--units', 'slab'], 'slab'),
    (['--expand-batch', '8x'], '--expand-batch'),
    (['--expand-batch', '0'], '--expand-batch'),
    (['--nodes', '-1'], '--nodes'),
    (['--seed', 'abc'], '--seed'),
    (['--only'], '--only'),
    (['flat'], 'flat'),
]

test = sys.argv[1]
failed = 0
for args, named in BAD:
    r = subprocess.run([test] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=60)
    why = None
    if r.returncode != 2:
        why = 'exit %d, want 2' % r.returncode
    elif r.stdout:
        why = 'printed on stdout (ran tests?): %r' % r.stdout[:200]
    elif named not in r.stderr:
        why = 'stderr does not name %r: %r' % (named, r.stderr)
    print('%s %s: %s' % ('FAIL' if why else 'ok', ' '.join(args), why or r.stderr.split('\n')[0]))
    failed += why is not None
sys.exit(1 if failed else 0)
