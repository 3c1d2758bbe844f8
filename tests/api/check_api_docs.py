#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every public function has its documentation comment, in our style.

  check_api_docs.py INCLUDEDIR SYMBOLS [--cc CC] [--html DIR]

The public functions are those the headers INCLUDEDIR/shrinker/*.h declare
(found as tests/api/public_api.py finds them: the headers preprocessed as
C11) and those the ABI list SYMBOLS (src/libshrinker.symbols) names. For
each one, the comment just before its declaration in the header must be a
kernel-doc comment ("/**") that:

- opens with "NAME() - summary", NAME being the declared function (a
  comment copied from a neighbour and left naming it fails);
- describes every named parameter of the declaration as "@name:", and
  no other name (a renamed parameter leaves a stale line);
- has a "Context:" section (who may call it, what it takes, whether it
  blocks), and a "Return:" section unless the function returns void
  (the kernel-doc convention: a void function has nothing to return).

With --html DIR (the API reference Doxygen generated from these comments,
docs/api/, built or installed), each function must also have its entry
there, under its header's page. Prints every function that falls short and
why; exit 1 if any does.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from public_api import IDENT, headers, public_symbols, read_abi_list  # noqa: E402

CHUNK = re.compile(r'(/\*.*?\*/)|(//[^\n]*)', re.S)
NAME_LINE = re.compile(r'\s*\*?\s*(' + IDENT + r')\(\)\s+-\s+\S')


def split_chunks(text):
    """[(comment or None, code)]: each comment with the code after it."""
    out, pos, last = [], 0, None
    for m in CHUNK.finditer(text):
        out.append((last, text[pos:m.start()]))
        last = m.group(1)  # None for a // comment
        pos = m.end()
    out.append((last, text[pos:]))
    return out


def declared_name(code):
    """The function a declaration names, or None (macro, struct, ...)."""
    code = re.sub(r'^\s*#[^\n]*$', ' ', code, flags=re.M)
    end = min([i for i in (code.find(';'), code.find('{')) if i >= 0] or [len(code)])
    decl = code[:end]
    paren = decl.find('(')
    if paren < 0 or decl.lstrip().startswith(('typedef', 'struct', 'enum', 'union')) \
            and '(' not in decl.split('{')[0]:
        return None, None
    m = re.search(r'(' + IDENT + r')\s*$', decl[:paren])
    if not m or decl[paren + 1:].lstrip().startswith('*'):
        return None, None
    return m.group(1), decl


def parameters(decl):
    """Named parameters of a prototype (void and ... have none)."""
    inner = decl[decl.index('(') + 1:decl.rindex(')')]
    names = []
    depth, cur, parts = 0, '', []
    for c in inner:
        if c == '(':
            depth += 1
        elif c == ')':
            depth -= 1
        if c == ',' and depth == 0:
            parts.append(cur)
            cur = ''
        else:
            cur += c
    parts.append(cur)
    for p in parts:
        p = p.strip()
        if p in ('', 'void', '...'):
            continue
        fp = re.search(r'\(\s*\*\s*(' + IDENT + r')\s*\)', p)  # function pointer
        if fp:
            names.append(fp.group(1))
            continue
        words = re.findall(IDENT, p.split('[')[0])
        if len(words) > 1:
            names.append(words[-1])
    return names


def returns_void(decl):
    head = decl[:decl.index('(')]
    words = [w for w in re.findall(IDENT + r'|\*', head)
             if not w.startswith(('SHR_', '__'))]
    return words[:-1] == ['void']


def without_bodies(code):
    """@code with every {...} emptied (inline bodies, struct members)."""
    out, depth = [], 0
    for c in code:
        if c == '{':
            if depth == 0:
                out.append('{')
            depth += 1
        elif c == '}':
            depth -= 1
            if depth == 0:
                out.append('}')
        elif depth == 0:
            out.append(c)
    return ''.join(out)


def documented(includedir):
    """{function: (header, comment or None, declaration)} from the raw headers."""
    d, names = headers(includedir)
    found = {}
    for n in names:
        with open(os.path.join(d, n), encoding='utf-8') as f:
            text = f.read()
        for comment, code in split_chunks(text):
            # The comment belongs to the first declaration after it; any
            # other declaration before the next comment has none.
            for stmt in re.split(r'(?<=[;}])', without_bodies(code)):
                name, decl = declared_name(stmt)
                if name is None:
                    continue
                found.setdefault(name, (n, comment, decl))
                comment = None
    return found


def problems_of(name, header, comment, decl):
    if comment is None or not comment.startswith('/**'):
        return [f'{header}: no kernel-doc comment ("/**") just before its declaration']
    lines = comment[3:].splitlines()
    first = next((ln for ln in lines if ln.strip(' *')), '')
    out = []
    m = NAME_LINE.match(first)
    if not m:
        out.append(f'{header}: the comment does not open with "{name}() - summary"')
    elif m.group(1) != name:
        out.append(f'{header}: the comment documents {m.group(1)}(), not {name}()')
    params = parameters(decl)
    for p in re.findall(r'^\s*\*\s*@(' + IDENT + r')\s*:', comment, re.M):
        if p not in params:
            out.append(f'{header}: describes @{p}:, which is not a parameter')
    for p in params:
        if not re.search(r'^\s*\*\s*@' + p + r'\s*:', comment, re.M):
            out.append(f'{header}: parameter {p} not described ("@{p}:")')
    if not re.search(r'^\s*\*\s*Context:', comment, re.M):
        out.append(f'{header}: no "Context:" section')
    if not returns_void(decl) and not re.search(r'^\s*\*\s*Return:', comment, re.M):
        out.append(f'{header}: returns a value but has no "Return:" section')
    return out


def missing_from_reference(html, docs, names):
    """Functions without an entry on their header's page of the reference."""
    missing = 0
    for name in names:
        if name not in docs:
            continue
        # Doxygen's page names: '_' doubled, '.' as '_8'.
        page = os.path.join(html, docs[name][0].replace('_', '__').replace('.', '_8') + '.html')
        try:
            with open(page, encoding='utf-8') as f:
                text = f.read()
        except OSError as e:
            print(f'{name}: no reference page for {docs[name][0]}: {e}')
            missing += 1
            continue
        if not re.search(r'<h2 class="memtitle">.*</span>' + name + r'\(\)</h2>', text):
            print(f'{name}: no entry in {page}')
            missing += 1
    print(f'reference {html}: {len(names) - missing} of {len(names)} functions have an entry')
    return missing


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('includedir')
    ap.add_argument('symbols')
    ap.add_argument('--cc', default='cc')
    ap.add_argument('--html', help="the generated reference's html directory")
    args = ap.parse_args()
    funcs, _ = public_symbols(args.includedir, args.cc)
    _, listed = read_abi_list(args.symbols)
    docs = documented(args.includedir)
    bad = 0
    names = sorted(funcs | set(listed))
    for name in names:
        if name not in docs:
            print(f'{name}: in {os.path.basename(args.symbols) if name in listed else "a header"}'
                  ' but declared in no public header')
            bad += 1
            continue
        probs = problems_of(name, *docs[name])
        for p in probs:
            print(f'{name}: {p}')
        bad += bool(probs)
    print(f'{len(names)} public functions, {len(names) - bad} documented in style')
    if args.html:
        bad += missing_from_reference(args.html, docs, names)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
