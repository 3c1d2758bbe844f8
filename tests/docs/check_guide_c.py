#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every C block of the guides compiles without a warning.

  check_guide_c.py SOURCE_ROOT OUTDIR CC [CC...]

Each ```c block of docs/guides/*.md is compiled with each compiler named
(gcc, clang) with the project's flags, -std=c11 -Wall -Wextra -Wpedantic
-Werror, against the public headers (include/), as an object (-c): a
warning fails, so a snippet that ignores a result the library marks
warn_unused_result, or calls a function with the wrong arguments, fails.

A block that is a complete translation unit compiles as it stands. A block
that is a fragment (statements, or a function that needs its caller's
declarations) says where it sits with an HTML comment right above its
fence, which the rendered guide does not show:

    <!-- compile:
    #include <shrinker/shrinker-all.h>
    int start_reclaim(struct shr_host *host)
    {
    @BLOCK@
    }
    -->

@BLOCK@ is replaced by the block. A fragment without such a comment fails
with that advice. Exit 1 with the compiler's messages and each block's
file and line.
"""
import os
import re
import subprocess
import sys

FLAGS = ['-std=c11', '-Wall', '-Wextra', '-Wpedantic', '-Werror']
BLOCK = re.compile(r'(?:<!-- compile:\n(?P<ctx>.*?)-->\n)?^```c\n(?P<code>.*?)^```$', re.S | re.M)


def blocks(root):
    gdir = os.path.join(root, 'docs', 'guides')
    for name in sorted(os.listdir(gdir)):
        if not name.endswith('.md'):
            continue
        text = open(os.path.join(gdir, name), encoding='utf-8').read()
        for m in BLOCK.finditer(text):
            line = text.count('\n', 0, m.start('code'))  # the fence's line
            yield f'docs/guides/{name}:{line}', m.group('ctx'), m.group('code')


def source_of(ctx, code):
    if ctx is None:
        return code
    if '@BLOCK@' not in ctx:
        return None
    return ctx.replace('@BLOCK@', code.rstrip('\n'))


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    root, out, compilers = argv[1], argv[2], argv[3:]
    os.makedirs(out, exist_ok=True)
    failed = n = 0
    for where, ctx, code in blocks(root):
        n += 1
        src = source_of(ctx, code)
        if src is None:
            print(f'{where}: its compile comment has no @BLOCK@ line')
            failed += 1
            continue
        path = os.path.join(out, re.sub(r'[^A-Za-z0-9]+', '_', where) + '.c')
        with open(path, 'w', encoding='utf-8') as f:
            f.write(src)
        for cc in compilers:
            cmd = [cc] + FLAGS + ['-I', os.path.join(root, 'include'), '-c', path,
                                  '-o', os.devnull]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode or r.stderr.strip():
                failed += 1
                print(f'{where}: {cc} {" ".join(FLAGS)}: fails (source: {path})')
                print('  ' + r.stderr.strip().replace('\n', '\n  '))
                if ctx is None:
                    print(f'  (a fragment needs a "<!-- compile: ... @BLOCK@ ... -->" '
                          'comment above its fence: tests/docs/check_guide_c.py says how)')
            else:
                print(f'{where}: {cc}: ok')
    print(f'guide C blocks: {n} blocks, {len(compilers)} compilers, {failed} failures')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
