#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""No path of one machine in the docs or in the tools' help text.

  check_machine_paths.py SOURCE_ROOT [SHRINKLAB]

Reads the prose a reader follows (README.md, kernel/README.md,
kernel/patches/README.md, every docs/**/*.md but the run output of
docs/results/, the man page) and the help text (`klab --help` and each
`klab COMMAND --help`, `shrinklab --help` when SHRINKLAB is given), and
fails on a path that exists on one machine only: a work area (/work/...),
a home directory (/home/NAME, /root/), or a path inside the kernel cache
(/var/cache/libshrinker/...: write $KLAB_CACHE/...). Naming the cache's
default itself (/var/cache/libshrinker) is allowed. Exit 1 with each
occurrence, file and line.
"""
import os
import re
import subprocess
import sys

BAD = re.compile(r'(?<![\w$}.])(/work/\S*|/home/\w\S*|/root/\S*|/var/cache/libshrinker/\S*)')


def docs(root):
    yield from ('README.md', 'kernel/README.md', 'kernel/patches/README.md',
                'tools/shrinklab/shrinklab.1')
    for d, dirs, files in os.walk(os.path.join(root, 'docs')):
        rel = os.path.relpath(d, root)
        if rel == os.path.join('docs', 'results') or rel.startswith(os.path.join('docs', 'results') + os.sep):
            dirs[:] = []
            continue
        for f in sorted(files):
            if f.endswith('.md'):
                yield os.path.join(rel, f)


def help_texts(root, shrinklab):
    klab = os.path.join(root, 'kernel', 'klab')
    out = subprocess.run([sys.executable, klab, '--help'], capture_output=True, text=True)
    yield 'klab --help', out.stdout + out.stderr
    commands = re.findall(r'^  ([a-z][a-z-]*)\s{2,}', out.stdout, re.M)
    if not commands:
        yield 'klab --help', '(lists no command: cannot read the commands\' help) /work/'
    for c in commands:
        r = subprocess.run([sys.executable, klab, c, '--help'], capture_output=True, text=True)
        yield f'klab {c} --help', r.stdout + r.stderr
    if shrinklab:
        r = subprocess.run([shrinklab, '--help'], capture_output=True, text=True)
        yield 'shrinklab --help', r.stdout + r.stderr


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1]
    bad = []
    for path in docs(root):
        full = os.path.join(root, path)
        if not os.path.exists(full):
            continue
        for n, line in enumerate(open(full, encoding='utf-8'), 1):
            for m in BAD.finditer(line):
                bad.append(f'{path}:{n}: {m.group(1)}')
    for name, text in help_texts(root, argv[2] if len(argv) == 3 else None):
        for n, line in enumerate(text.splitlines(), 1):
            for m in BAD.finditer(line):
                bad.append(f'{name}, line {n}: {m.group(1)}')
    for b in bad:
        print(b)
    print('machine paths: ' + (f'{len(bad)} found (use a variable: $KLAB_CACHE, $HOME, a '
                               'placeholder such as /path/to/linux)' if bad else 'none'))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
