#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Two rules of docs/design/ARCHITECTURE.md ("Sizes and tests"), checked on the tree.

  check_sizes_and_tests.py sizes SOURCE_ROOT
      No source file of ours (C, C++, Python, shell, under the folders
      ROOTS names) has more than 1,000 lines, but the exceptions the
      document's ```size-exceptions block names, each with its cap and its
      reason. A listed file over its cap fails, and so does a listed file
      that is no longer over 1,000 lines or no longer exists (the list
      cannot go stale), and a row without a reason.

  check_sizes_and_tests.py tests SOURCE_ROOT
      A test file per module: every module of src/<layer>/ (a .c file's
      stem) has tests/unit/<layer>/test_<module>.c, every file there is
      test_<module>.c or test_<module>_<aspect>.c of a module of its layer,
      and tests/meson.build builds each one.

  check_sizes_and_tests.py --self-test
      Both checks find planted violations in a scratch tree.

Exit status 0 when the tree follows the rules, 1 with one line per violation.
"""
import os
import re
import shutil
import sys
import tempfile

LIMIT = 1000
ROOTS = ['src', 'include', 'consumer', 'tools', 'tests', 'examples', 'kernel', 'scripts', 'docs/api']
SUFFIXES = ('.c', '.h', '.cc', '.hh', '.py', '.sh')
# Inputs and outputs, not code of ours to keep small.
SKIP = ('kernel/patches/', 'tests/fuzz/corpus/', 'tests/kernel/fixtures/')


def exceptions(root):
    doc = os.path.join(root, 'docs', 'design', 'ARCHITECTURE.md')
    text = open(doc, encoding='utf-8').read()
    m = re.search(r'```size-exceptions\n(.*?)```', text, re.S)
    if not m:
        return None, [f'{doc}: no ```size-exceptions block']
    rows, bad = {}, []
    for line in m.group(1).splitlines():
        if not line.strip() or line.lstrip().startswith('#'):
            continue
        # path  at-most-N  reason
        f = line.split(None, 2)
        if len(f) < 3 or not re.fullmatch(r'<=\d+', f[1]) or len(f[2].strip()) < 20:
            bad.append(f'ARCHITECTURE.md size-exceptions: "{line.strip()}": '
                       'want PATH <=CAP REASON (a reason of a sentence)')
            continue
        rows[f[0]] = int(f[1][2:])
    return rows, bad


def sources(root):
    for top in ROOTS:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(x for x in dirs if x not in ('__pycache__',) and not x.startswith('build'))
            for name in sorted(files):
                path = os.path.relpath(os.path.join(d, name), root)
                if name.endswith(SUFFIXES) and not path.startswith(SKIP):
                    yield path


def lines_of(root, path):
    with open(os.path.join(root, path), 'rb') as f:
        return f.read().count(b'\n')


def check_sizes(root):
    rows, bad = exceptions(root)
    if rows is None:
        return bad
    seen = set()
    for path in sources(root):
        n = lines_of(root, path)
        if path in rows:
            seen.add(path)
            if n > rows[path]:
                bad.append(f'{path}: {n} lines, over the cap of {rows[path]} its exception gives')
            elif n <= LIMIT:
                bad.append(f'{path}: {n} lines, no longer over {LIMIT}: remove its exception')
        elif n > LIMIT:
            bad.append(f'{path}: {n} lines, over {LIMIT} and not a named exception '
                       '(split it, or name it in ARCHITECTURE.md with a reason)')
    for path in sorted(set(rows) - seen):
        bad.append(f'{path}: named as an exception, but no such source file')
    return bad


def check_tests(root):
    bad = []
    build = open(os.path.join(root, 'tests', 'meson.build'), encoding='utf-8').read()
    src = os.path.join(root, 'src')
    for layer in sorted(os.listdir(src)):
        if not os.path.isdir(os.path.join(src, layer)):
            continue
        modules = sorted(f[:-2] for f in os.listdir(os.path.join(src, layer)) if f.endswith('.c'))
        tdir = os.path.join(root, 'tests', 'unit', layer)
        tests = sorted(f for f in os.listdir(tdir) if f.endswith('.c')) if os.path.isdir(tdir) else []
        for m in modules:
            if f'test_{m}.c' not in tests:
                bad.append(f'src/{layer}/{m}.c: no tests/unit/{layer}/test_{m}.c')
        for t in tests:
            stem = t[len('test_'):-2] if t.startswith('test_') else None
            if stem is None or not any(stem == m or stem.startswith(m + '_') for m in modules):
                bad.append(f'tests/unit/{layer}/{t}: names no module of src/{layer}/')
            if f'unit/{layer}/{t}' not in build:
                bad.append(f'tests/unit/{layer}/{t}: tests/meson.build does not build it')
    return bad


def self_test():
    big = 'x\n' * (LIMIT + 1)
    files = {
        'docs/design/ARCHITECTURE.md': (
            '```size-exceptions\n'
            'src/a/big.c        <=1100  one structure whose invariants its functions share\n'
            'src/a/small.c      <=1100  it was big once, the exception outlived it\n'
            'src/a/gone.c       <=1100  a file that was split away long ago, row left\n'
            'src/a/capped.c     <=1001  grows past the cap it was given here\n'
            'src/a/noreason.c   <=1100  short\n'
            '```\n'),
        'src/a/big.c': big, 'src/a/small.c': 'x\n', 'src/a/capped.c': 'x\n' * 1005,
        'src/a/noreason.c': big, 'src/a/unnamed.c': big, 'tools/t.py': big,
        'src/a/tested.c': '', 'src/a/untested.c': '',
        'tests/meson.build': "files('unit/a/test_tested.c')\nfiles('unit/a/test_big.c')\n",
        'tests/unit/a/test_tested.c': '', 'tests/unit/a/test_big.c': '',
        'tests/unit/a/test_tested_threads.c': '', 'tests/unit/a/test_nothing.c': '',
    }
    want_sizes = {'src/a/small.c: 1 lines, no longer',
                  'src/a/gone.c: named as an exception, but no such',
                  'src/a/capped.c: 1005 lines, over the cap of 1001',
                  'ARCHITECTURE.md size-exceptions: "src/a/noreason.c',
                  'src/a/unnamed.c: 1001 lines, over 1000 and not',
                  'tools/t.py: 1001 lines, over 1000 and not'}
    want_tests = {'src/a/untested.c: no tests/unit/a/test_untested.c',
                  'src/a/capped.c: no tests/unit/a/test_capped.c',
                  'tests/unit/a/test_nothing.c: names no module',
                  'tests/unit/a/test_tested_threads.c: tests/meson.build does not build it',
                  'tests/unit/a/test_nothing.c: tests/meson.build does not build it'}
    tmp = tempfile.mkdtemp()
    try:
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(tmp, path)), exist_ok=True)
            with open(os.path.join(tmp, path), 'w') as f:
                f.write(text)
        ok = True
        for name, got, want in (('sizes', check_sizes(tmp), want_sizes),
                                ('tests', check_tests(tmp), want_tests)):
            for w in sorted(want):
                if not any(g.startswith(w) for g in got):
                    print(f'self-test {name}: missed "{w}"; found:\n  ' + '\n  '.join(got))
                    ok = False
            if 'src/a/big.c' in ' '.join(got) and name == 'sizes':
                print('self-test sizes: flagged src/a/big.c, a named exception under its cap')
                ok = False
        print('self-test: ' + ('ok' if ok else 'FAILED'))
        return 0 if ok else 1
    finally:
        shutil.rmtree(tmp)


def main(argv):
    if argv[1:] == ['--self-test']:
        return self_test()
    if len(argv) != 3 or argv[1] not in ('sizes', 'tests'):
        print(__doc__, file=sys.stderr)
        return 2
    bad = (check_sizes if argv[1] == 'sizes' else check_tests)(argv[2])
    for b in bad:
        print(b)
    if not bad:
        print(f'check_sizes_and_tests {argv[1]}: ok')
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
