#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Doxygen input filter: our headers' kernel-doc comments as Doxygen reads them.

  kerneldoc2doxygen.py HEADER      (Doxygen's INPUT_FILTER; prints to stdout)

The public headers are documented in kernel-doc style (the kernel's
Documentation/doc-guide/kernel-doc.rst; tests/api/check_api_docs.py checks
it). Doxygen reads "@word" as a command, so each "/**" comment is rewritten,
line for line (line numbers are kept, so Doxygen's warnings point at the
header itself):

  "name() - summary", "struct name - summary"   ->  "@brief summary"
  "@param: text" (a function's)                 ->  "@param param text"
  "@field: text" (a struct's or an enum's)      ->  "- @c field: text"
  "Context: text"                               ->  "@context text" (alias)
  "Return: text"                                ->  "@return text"
  "@name" elsewhere in the text                 ->  "@p name"
  "<", ">", "#", "%" in the text                ->  escaped for Doxygen

The header's opening "/*" comment (the module's design comment) becomes the
file's documentation ("/** @file"). Other comments pass unchanged.
"""
import re
import sys

IDENT = r'[A-Za-z_]\w*'
NAME_LINE = re.compile(r'^(\s*\*?\s*)(?:(?:struct|enum|union)\s+' + IDENT + r'|' + IDENT
                       + r'\(\))(?:\s*/\s*' + IDENT + r'\(\))*\s+-\s+(.*)$')
MEMBER = re.compile(r'^(\s*\*\s*)@(' + IDENT + r'):\s*(.*)$')
SECTION = re.compile(r'^(\s*\*\s*)(Context|Return):\s*(.*)$')


def escape(text):
    """Doxygen-special characters of prose, and @name references."""
    text = text.replace('\\', '\\\\')
    for c in '<>#%':
        text = text.replace(c, '\\' + c)
    return re.sub(r'@(' + IDENT + ')', r'@p \1', text)


def convert_comment(lines, is_struct):
    out = []
    for n, line in enumerate(lines):
        head, body = '', line
        if n == 0:
            head, body = line[:3], line[3:]  # "/**"
        m = NAME_LINE.match(body)
        if m and not any('@brief' in o for o in out):
            out.append(head + m.group(1) + '@brief ' + escape(m.group(2)))
            continue
        m = MEMBER.match(body)
        if m:
            if is_struct:
                out.append(head + m.group(1) + '- @c ' + m.group(2) + ': ' + escape(m.group(3)))
            else:
                out.append(head + m.group(1) + '@param ' + m.group(2) + ' '
                           + escape(m.group(3)))
            continue
        m = SECTION.match(body)
        if m:
            cmd = '@context ' if m.group(2) == 'Context' else '@return '
            out.append(head + m.group(1) + cmd + escape(m.group(3)))
            continue
        if body.rstrip().endswith('*/'):
            end = body.rstrip()[:-2]
            out.append(head + escape(end) + '*/')
        else:
            out.append(head + escape(body))
    return out


def convert(text):
    lines = text.split('\n')
    out, i, seen_file_comment = [], 0, False
    while i < len(lines):
        line = lines[i]
        stripped = line.lstrip()
        if not stripped.startswith('/*'):
            out.append(line)
            i += 1
            continue
        j = i
        while '*/' not in lines[j]:
            j += 1
        block = lines[i:j + 1]
        if stripped.startswith('/**') and not stripped.startswith('/***'):
            kind = block[0] + ' ' + (block[1] if len(block) > 1 else '')
            is_struct = re.search(r'\b(struct|enum|union)\s+' + IDENT + r'\s+-', kind) is not None
            out.extend(convert_comment(block, is_struct))
        elif not seen_file_comment and len(block) > 2 and i < 5:
            seen_file_comment = True
            out.append(line.replace('/*', '/** @file', 1))
            out.extend(escape(b) for b in block[1:-1])
            out.append(block[-1])
        else:
            out.extend(block)
        i = j + 1
    return '\n'.join(out)


def main():
    with open(sys.argv[1], encoding='utf-8') as f:
        sys.stdout.write(convert(f.read()))
    return 0


if __name__ == '__main__':
    sys.exit(main())
