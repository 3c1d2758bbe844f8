#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The public API as the headers declare it, against what a library exports.

  public_api.py exports INCLUDEDIR LIBRARY... [--cc CC]
      Every function declared in INCLUDEDIR/shrinker/*.h must be a defined
      global symbol of each LIBRARY and nothing else may be: for a shared
      library the dynamic symbols (nm -D --defined-only), each with the
      version LIBSHRINKER_<n>; for a static one the global symbols of its
      members (nm -g --defined-only). Prints both differences; exit 1 on
      any.

  public_api.py test-callers INCLUDEDIR DIR... [--cc CC]
      Every function declared in INCLUDEDIR/shrinker/*.h must be called
      (NAME followed by '(', outside comments) from a C or C++ source under
      one of the DIRs (the tests and the examples): a public function
      without a caller is dead code or untested. Prints the functions
      without one; exit 1 if there are any.

  public_api.py umbrella-source INCLUDEDIR OUTPUT [--cc CC]
      Write a program (C11, or C++ when OUTPUT ends in .cc) whose only
      include of the library is <shrinker/shrinker-all.h> and that takes the
      address of every declared function: it compiles only if the umbrella
      header declares the whole API. Exit 1 without writing it when the
      umbrella's #include lines are not exactly the other public headers.

  public_api.py abi-list LIST SHARED [STATIC...]
      The ABI as committed (src/libshrinker.symbols: a "soname NAME" line,
      then "SYMBOL VERSION" lines) against the built libraries: SHARED must
      have that soname and export exactly those symbols with those versions
      (nm -D), each STATIC exactly those names. A symbol removed, renamed,
      added or moved to another version node fails, and so does a new
      soname, until the list is updated in the same change: that is where a
      reviewer sees an ABI change (docs/design/ABI.md, "Version policy"). Prints
      each difference and what it takes; exit 1 on any.

  public_api.py abi-write LIST SHARED
      Write LIST from SHARED (after an ABI change was decided).

  public_api.py cxx-source INCLUDEDIR OUTPUT [--cc CC]
      Write a C++ program that includes every public header and takes the
      address of every declared function. It links against libshrinker only
      if every header gives its functions C linkage (extern "C"); it prints
      "N public functions linked" and exits 0.

The declarations come from the headers themselves, preprocessed as C11 with
the compiler CC (default: cc) so that macros and #ifdef __cplusplus blocks
are resolved: a top-level declaration ending in ';' whose declarator is
followed by a parameter list is a function; static inline definitions,
typedefs, struct and enum definitions are not. Functions declared without
SHR_API are therefore still found, and reported as missing from the
library.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

IDENT = r'[A-Za-z_]\w*'
VERSION_NODE = r'LIBSHRINKER_\d+(\.\d+)*'


def headers(incdir):
    d = os.path.join(incdir, 'shrinker')
    names = sorted(n for n in os.listdir(d) if n.endswith('.h'))
    if not names:
        sys.exit(f'public_api: no headers in {d}')
    return d, names


def our_text(incdir, cc):
    """The preprocessed text that comes from the public headers only."""
    d, names = headers(incdir)
    src = ''.join(f'#include <shrinker/{n}>\n' for n in names)
    cmd = shlex.split(cc) + ['-E', '-std=c11', '-I', incdir, '-x', 'c', '-']
    res = subprocess.run(cmd, input=src, capture_output=True, text=True)
    if res.returncode:
        sys.exit(f'public_api: {" ".join(cmd)} failed:\n{res.stderr}')
    real_d = os.path.realpath(d)
    keep, out = False, []
    for line in res.stdout.splitlines():
        m = re.match(r'#\s*(?:line\s+)?\d+\s+"([^"]*)"', line)
        if m:
            keep = os.path.dirname(os.path.realpath(m.group(1))) == real_d
            continue
        if keep:
            out.append(line)
    return ' '.join(out), names


def strip_attributes(text):
    """Remove __attribute__((...)) (balanced parentheses)."""
    out, i = [], 0
    while True:
        j = text.find('__attribute__', i)
        if j < 0:
            out.append(text[i:])
            return ''.join(out)
        out.append(text[i:j])
        k = text.index('(', j)
        depth = 0
        while True:
            if text[k] == '(':
                depth += 1
            elif text[k] == ')':
                depth -= 1
                if depth == 0:
                    break
            k += 1
        i = k + 1


def skip_block(text, i):
    """Index just past the '}' matching the '{' at text[i]."""
    depth = 0
    while True:
        if text[i] == '{':
            depth += 1
        elif text[i] == '}':
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1


def declarations(text):
    """Top-level declarations ending in ';'; function bodies dropped."""
    decls, cur, i = [], [], 0
    while i < len(text):
        c = text[i]
        if c == '{':
            end = skip_block(text, i)
            if ''.join(cur).rstrip().endswith(')'):
                cur = []  # a function definition (static inline)
            else:
                cur.append(' {} ')  # struct, union or enum body
            i = end
            continue
        if c == ';':
            decls.append(' '.join(''.join(cur).split()))
            cur = []
        else:
            cur.append(c)
        i += 1
    return [d for d in decls if d]


def public_symbols(incdir, cc):
    """(functions, variables) declared by the public headers."""
    text, _ = our_text(incdir, cc)
    funcs, variables = set(), set()
    for d in declarations(strip_attributes(text)):
        words = d.split()
        if words[0] in ('typedef', 'static'):
            continue
        paren = d.find('(')
        if paren < 0:
            # "extern T name;" is a variable; "struct x;" and "enum e {};"
            # declare types only.
            if words[0] == 'extern':
                variables.add(re.findall(IDENT, d.split('[')[0])[-1])
            continue
        m = re.search(r'(' + IDENT + r')\s*$', d[:paren])
        if not m:
            continue
        if d[paren + 1:].lstrip().startswith('*'):
            # "T (*name)(...)": a function pointer variable.
            variables.add(re.match(r'\s*\*\s*(' + IDENT + ')', d[paren + 1:]).group(1))
            continue
        funcs.add(m.group(1))
    return funcs, variables


def nm(args):
    res = subprocess.run(['nm'] + args, capture_output=True, text=True)
    if res.returncode:
        sys.exit(f'public_api: nm {" ".join(args)} failed:\n{res.stderr}')
    return res.stdout.splitlines()


def library_symbols(lib):
    """{name: version or None} of the defined global symbols of @lib."""
    syms, problems = {}, []
    if lib.endswith('.a'):
        for line in nm(['-g', '--defined-only', lib]):
            parts = line.split()
            if len(parts) == 3:
                syms[parts[2]] = None
        return syms, problems
    for line in nm(['-D', '--defined-only', '--with-symbol-versions', lib]):
        parts = line.split()
        if len(parts) != 3:
            continue
        kind, name = parts[1], parts[2]
        base, _, version = name.partition('@')
        version = version.lstrip('@')
        if kind == 'A' and re.fullmatch(VERSION_NODE, base):
            continue  # the version node itself
        syms[base] = version or None
        if not re.fullmatch(VERSION_NODE, version or ''):
            problems.append(f'{base}: symbol version {version or "(none)"}, '
                            'expected LIBSHRINKER_<n>')
    return syms, problems


def cmd_exports(args):
    funcs, variables = public_symbols(args.includedir, args.cc)
    declared = funcs | variables
    ok = True
    for lib in args.libraries:
        syms, problems = library_symbols(lib)
        missing = sorted(declared - syms.keys())
        extra = sorted(syms.keys() - declared)
        print(f'{lib}: {len(funcs)} functions and {len(variables)} variables declared '
              f'in the public headers, {len(syms)} symbols exported')
        for name in missing:
            print(f'  declared but not exported: {name}')
        for name in extra:
            print(f'  exported but not declared: {name}')
        for p in problems:
            print(f'  {p}')
        if missing or extra or problems:
            ok = False
    return 0 if ok else 1


COMMENTS = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
SOURCE_SUFFIXES = ('.c', '.h', '.cc', '.cpp')


def cmd_test_callers(args):
    funcs, _ = public_symbols(args.includedir, args.cc)
    text = []
    for top in args.dirs:
        for root, _, files in os.walk(top):
            for name in sorted(files):
                if name.endswith(SOURCE_SUFFIXES):
                    with open(os.path.join(root, name), encoding='utf-8') as f:
                        text.append(COMMENTS.sub(' ', f.read()))
    text = '\n'.join(text)
    uncalled = sorted(f for f in funcs if not re.search(r'\b' + f + r'\s*\(', text))
    print(f'{len(funcs)} public functions, {len(funcs) - len(uncalled)} called from '
          f'{", ".join(args.dirs)}')
    for name in uncalled:
        print(f'  no caller in the tests: {name}')
    return 1 if uncalled else 0


def soname_of(lib):
    res = subprocess.run(['readelf', '-d', lib], capture_output=True, text=True)
    if res.returncode:
        sys.exit(f'public_api: readelf -d {lib} failed:\n{res.stderr}')
    m = re.search(r'Library soname: \[([^\]]+)\]', res.stdout)
    return m.group(1) if m else None


def read_abi_list(path):
    soname, syms = None, {}
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            words = line.split()
            if len(words) != 2:
                sys.exit(f'public_api: {path}:{n}: expected "soname NAME" or "SYMBOL VERSION"')
            if words[0] == 'soname':
                soname = words[1]
            elif words[0] in syms:
                sys.exit(f'public_api: {path}:{n}: {words[0]} listed twice')
            else:
                syms[words[0]] = words[1]
    if not soname:
        sys.exit(f'public_api: {path}: no "soname NAME" line')
    return soname, syms


def cmd_abi_list(args):
    soname, listed = read_abi_list(args.list)
    ok = True
    built = soname_of(args.shared)
    print(f'{args.list}: {len(listed)} symbols of {soname}')
    if built != soname:
        ok = False
        print(f'  the library\'s soname is {built}, the list\'s {soname}: a new soname is an '
              'ABI change; write the new list (public_api.py abi-write) in the same change, '
              'with its entry in docs/design/ABI.md')
    for lib in [args.shared] + args.static:
        syms, problems = library_symbols(lib)
        shared = not lib.endswith('.a')
        removed = sorted(listed.keys() - syms.keys())
        added = sorted(syms.keys() - listed.keys())
        moved = sorted(n for n in listed.keys() & syms.keys()
                       if shared and syms[n] != listed[n])
        print(f'{lib}: {len(syms)} symbols exported')
        for n in removed:
            print(f'  removed: {n} ({listed[n]}): a removal breaks every program that uses it; '
                  f'it takes a new soname (docs/design/ABI.md)')
        for n in added:
            print(f'  added, not in the list: {n}: review it, give it a version node, list it')
        for n in moved:
            print(f'  {n}: version {syms[n]}, the list says {listed[n]}')
        for p in problems:
            print(f'  {p}')
        if removed or added or moved or problems:
            ok = False
    return 0 if ok else 1


def cmd_abi_write(args):
    syms, problems = library_symbols(args.shared)
    if problems:
        sys.exit('public_api: ' + '; '.join(problems))
    head = []
    with open(args.list, encoding='utf-8') as f:
        for line in f:
            if not line.startswith('#'):
                break
            head.append(line)
    lines = head + [f'soname {soname_of(args.shared)}\n']
    lines += [f'{n} {v}\n' for n, v in sorted(syms.items())]
    with open(args.list, 'w', encoding='utf-8') as f:
        f.writelines(lines)
    print(f'{args.list}: {len(syms)} symbols of {soname_of(args.shared)}')
    return 0


def cmd_cxx_source(args):
    funcs, _ = public_symbols(args.includedir, args.cc)
    _, names = headers(args.includedir)
    lines = ['// Generated by tests/api/public_api.py: every function of the public',
             '// headers, by address. An undefined reference to a C++-mangled name at',
             '// link time means a header lacks extern "C".']
    lines += [f'#include <shrinker/{n}>' for n in names]
    lines += ['#include <cstdio>', '', 'typedef void (*any_fn)(void);', '',
              'static const any_fn functions[] = {']
    lines += [f'\treinterpret_cast<any_fn>(&{f}),' for f in sorted(funcs)]
    lines += ['};', '', 'int main()', '{', '\tunsigned int n = 0;', '',
              '\tfor (any_fn f : functions)', '\t\tn += f != nullptr;',
              '\tstd::printf("%u public functions linked\\n", n);',
              '\treturn n == sizeof(functions) / sizeof(functions[0]) ? 0 : 1;', '}', '']
    with open(args.output, 'w') as f:
        f.write('\n'.join(lines))
    return 0


UMBRELLA = 'shrinker-all.h'


def cmd_umbrella_source(args):
    """A program that sees the public API through the umbrella header alone."""
    d, names = headers(args.includedir)
    with open(os.path.join(d, UMBRELLA), encoding='utf-8') as f:
        included = re.findall(r'^#\s*include\s*<shrinker/([^>]+)>', f.read(), re.M)
    expected = [n for n in names if n != UMBRELLA]
    if sorted(included) != expected:
        for n in sorted(set(expected) - set(included)):
            print(f'public_api: {UMBRELLA} does not include <shrinker/{n}>')
        for n in sorted(set(included) - set(expected)):
            print(f'public_api: {UMBRELLA} includes <shrinker/{n}>, not a public header')
        if len(included) != len(set(included)):
            print(f'public_api: {UMBRELLA} includes a header twice')
        return 1
    funcs, _ = public_symbols(args.includedir, args.cc)
    cxx = args.output.endswith('.cc')
    cast = 'reinterpret_cast<any_fn>(&{})' if cxx else '(any_fn)&{}'
    lang = 'C++' if cxx else 'C11'
    lines = [f'/* Generated by tests/api/public_api.py: every public function, by',
             f' * address, with <shrinker/{UMBRELLA}> the only header of the library. */',
             f'#include <shrinker/{UMBRELLA}>', '',
             '#include <cstdio>' if cxx else '#include <stdio.h>', '',
             'typedef void (*any_fn)(void);', '',
             'static const any_fn functions[] = {']
    lines += ['\t' + cast.format(f) + ',' for f in sorted(funcs)]
    lines += ['};', '', 'int main(void)' if not cxx else 'int main()', '{',
              '\tunsigned int n = 0;', '',
              '\tfor (unsigned int i = 0; i < sizeof(functions) / sizeof(functions[0]); i++)',
              '\t\tn += functions[i] != 0;',
              f'\tprintf("%u public functions through <shrinker/{UMBRELLA}> ({lang})\\n", n);',
              '\treturn n == sizeof(functions) / sizeof(functions[0]) ? 0 : 1;', '}', '']
    with open(args.output, 'w') as f:
        f.write('\n'.join(lines))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    e = sub.add_parser('exports')
    e.add_argument('includedir')
    e.add_argument('libraries', nargs='+')
    e.add_argument('--cc', default=os.environ.get('CC', 'cc'))
    x = sub.add_parser('cxx-source')
    x.add_argument('includedir')
    x.add_argument('output')
    x.add_argument('--cc', default=os.environ.get('CC', 'cc'))
    a = sub.add_parser('abi-list')
    a.add_argument('list')
    a.add_argument('shared')
    a.add_argument('static', nargs='*')
    w = sub.add_parser('abi-write')
    w.add_argument('list')
    w.add_argument('shared')
    t = sub.add_parser('test-callers')
    t.add_argument('includedir')
    t.add_argument('dirs', nargs='+')
    t.add_argument('--cc', default=os.environ.get('CC', 'cc'))
    u = sub.add_parser('umbrella-source')
    u.add_argument('includedir')
    u.add_argument('output')
    u.add_argument('--cc', default=os.environ.get('CC', 'cc'))
    args = ap.parse_args()
    return {'exports': cmd_exports, 'cxx-source': cmd_cxx_source,
            'umbrella-source': cmd_umbrella_source,
            'test-callers': cmd_test_callers, 'abi-list': cmd_abi_list,
            'abi-write': cmd_abi_write}[args.cmd](args)


if __name__ == '__main__':
    sys.exit(main())
