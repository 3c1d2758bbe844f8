#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check every #include of the tree against the layers of docs/design/ARCHITECTURE.md.

The document's ```layers block names each layer, its folder, the layers it
may include, and, for the library's layers, the order of its modules: a
module may include its own headers and those of modules listed before it
in the same layer, nothing listed after it. A module is a file's stem with
a trailing "_internal" dropped (memcg.c and memcg_internal.h are "memcg").
Lines "exception: A -> B" allow one edge against that order. Any other
include of a library header is an error, and so is a module of the tree
the block does not list: the graph cannot grow an edge or a file unseen.

A layer's folder may sit inside another's (tools/shrinklab/lab/ inside
tools/shrinklab/): a file belongs to the deepest layer whose folder holds
it. Headers are included by their name alone, so two headers of the tree
with the same name are an error too (an include of it would be ambiguous).

The Python of a layer whose folder is under kernel/py/ (klab) is checked
the same way, from its imports (an ast pass): `from . import x` and
`from .x import y` name module x of the file's own package, `from .. import
x` module x of the package above; a subpackage (klab's commands/) is a
module of its parent's list, and a layer of its own. A package's
__init__.py need not be listed.

Usage: check_include_graph.py SOURCE_ROOT
       check_include_graph.py --self-test   (the checker finds planted
                                             violations in a scratch tree)
Exit status 0 when the graph conforms, 1 with one line per violation.
"""
import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = sys.argv[1] if len(sys.argv) > 1 else '.'
DOC = os.path.join(ROOT, 'docs', 'design', 'ARCHITECTURE.md')
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def parse_doc():
    text = open(DOC, encoding='utf-8').read()
    m = re.search(r'```layers\n(.*?)```', text, re.S)
    if not m:
        sys.exit(f'{DOC}: no ```layers block')
    layers, exceptions, order = {}, set(), []
    for line in m.group(1).splitlines():
        line = line.split('#', 1)[0].strip()
        if not line:
            continue
        if line.startswith('exception:'):
            a, b = (x.strip() for x in line[len('exception:'):].split('->'))
            exceptions.add((a, b))
            continue
        # name  folder  -> lower layers  [: module order]
        head, _, modules = line.partition(':')
        name, folder, *rest = head.split()
        lower = [x for x in rest if x != '->']
        layers[name] = {'folder': folder.rstrip('/') + '/', 'lower': lower,
                        'modules': modules.split()}
        order.append(name)
    return layers, order, exceptions


def module_of(path):
    stem = os.path.splitext(os.path.basename(path))[0]
    return stem[:-len('_internal')] if stem.endswith('_internal') else stem


def layer_of(layers, order, rel):
    # The longest folder that contains the file.
    best = None
    for name in order:
        folder = layers[name]['folder']
        if rel.startswith(folder) and (best is None or
                                       len(folder) > len(layers[best]['folder'])):
            best = name
    return best


PYTHON_ROOT = 'kernel/py/'


def python_imports(path):
    """(package levels up, module, line) of every relative import of @path."""
    tree = ast.parse(open(path, encoding='utf-8').read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            names = [node.module.split('.')[0]] if node.module else [a.name for a in node.names]
            for name in names:
                yield node.level, name, node.lineno


def check_python(layers, order, exceptions):
    """The import order of the Python layers (under PYTHON_ROOT)."""
    errors, nfiles = [], 0
    by_folder = {layers[n]['folder']: n for n in order}
    for name in order:
        folder = layers[name]['folder']
        if not folder.startswith(PYTHON_ROOT):
            continue
        for n in sorted(os.listdir(os.path.join(ROOT, folder))):
            if not n.endswith('.py'):
                continue
            rel = folder + n
            nfiles += 1
            mod = n[:-3]
            mods = layers[name]['modules']
            if mod != '__init__' and mod not in mods:
                errors.append(f'{rel}: module "{mod}" is not in the {name} layer\'s list')
                continue
            for level, target, line in python_imports(os.path.join(ROOT, rel)):
                pkg = folder
                for _ in range(level - 1):
                    pkg = pkg.rstrip('/').rsplit('/', 1)[0] + '/'
                tlayer = by_folder.get(pkg)
                if tlayer is None:
                    errors.append(f'{rel}:{line}: imports {pkg}{target}, which no layer holds')
                    continue
                tmods = layers[tlayer]['modules']
                if target not in tmods:
                    errors.append(f'{rel}:{line}: imports {pkg}{target}, which the '
                                  f'{tlayer} layer does not list')
                elif tlayer == name:
                    if mod == '__init__' or (f'{name}/{mod}', f'{name}/{target}') in exceptions:
                        continue
                    if tmods.index(target) >= tmods.index(mod):
                        errors.append(f'{rel}:{line}: imports {pkg}{target}: {name}/{mod} may '
                                      f'not depend on {name}/{target} (listed after it)')
                elif tlayer not in layers[name]['lower']:
                    errors.append(f'{rel}:{line}: imports {pkg}{target}: layer {name} may not '
                                  f'depend on {tlayer}')
    return errors, nfiles


def main():
    layers, order, exceptions = parse_doc()
    headers = {}  # include name as written -> (layer, module, path)
    files = []
    dup = []
    for name in order:
        folder = os.path.join(ROOT, layers[name]['folder'])
        for dirpath, _, names in os.walk(folder):
            for n in sorted(names):
                if not n.endswith(('.c', '.h')):
                    continue
                path = os.path.join(dirpath, n)
                rel = os.path.relpath(path, ROOT)
                if layer_of(layers, order, rel) != name:
                    continue  # a deeper layer's folder
                files.append((name, rel))
                if n.endswith('.h'):
                    key = 'shrinker/' + n if name == 'public' else n
                    if key in headers:
                        dup.append(f'{rel}: header name "{key}" is also '
                                   f'{headers[key][2]}: an include of it is ambiguous')
                    headers[key] = (name, module_of(n), rel)
    errors = dup
    for name, rel in files:
        mods = layers[name]['modules']
        mod = module_of(rel)
        if mods and mod not in mods:
            errors.append(f'{rel}: module "{mod}" is not in the {name} layer\'s list')
            continue
        text = open(os.path.join(ROOT, rel), encoding='utf-8').read()
        for kind, inc in INCLUDE.findall(text):
            target = headers.get(inc)
            if target is None:
                generated = os.path.join(ROOT, os.path.dirname(rel), inc + '.in')
                if kind == '"' and not os.path.exists(generated):
                    errors.append(f'{rel}: includes "{inc}", which no layer holds')
                continue  # a system header, or one the build generates
            tlayer, tmod, trel = target
            if tlayer == name:
                if not mods or tmod == mod:
                    continue
                if (f'{name}/{mod}', f'{name}/{tmod}') in exceptions:
                    continue
                if tmod in mods and mods.index(tmod) < mods.index(mod):
                    continue
                errors.append(f'{rel}: includes {trel}: {name}/{mod} may not depend on '
                              f'{name}/{tmod} (listed after it)')
            elif tlayer not in layers[name]['lower']:
                errors.append(f'{rel}: includes {trel}: layer {name} may not depend on {tlayer}')
    py_errors, py_files = check_python(layers, order, exceptions)
    errors += py_errors
    for e in errors:
        print(e)
    print(f'# {len(files) + py_files} files, {len(errors)} violations of '
          'docs/design/ARCHITECTURE.md')
    return 1 if errors else 0


def self_test():
    """A scratch tree with one edge of each kind the checker must refuse."""
    doc = """```layers
public  include/shrinker/
low     src/low/  -> public : a b g
high    src/high/ -> low public : c d
inner   src/high/inner/ -> low public : f g
py      kernel/py/pkg/ -> : p q sub
pysub   kernel/py/pkg/sub/ -> py : s
exception: high/d -> high/c
```
"""
    files = {
        'include/shrinker/api.h': '',
        'src/low/a.h': '#include <shrinker/api.h>\n',
        'src/low/b.c': '#include "a.h"\n',
        'src/high/c.c': '#include "a.h"\n#include "d.h"\n',  # c -> d: after c
        'src/high/d.h': '#include "c_internal.h"\n',            # exception
        'src/high/c_internal.h': '',
        'src/low/a.c': '#include "c_internal.h"\n#include "missing.h"\n',
        'src/low/e.c': '',                                      # unlisted
        'src/high/inner/f.c': '#include "a.h"\n#include "d.h"\n',  # up a floor
        'src/low/g.h': '',
        'src/high/inner/g.h': '',                               # name taken
        'kernel/py/pkg/__init__.py': 'from . import q\n',
        'kernel/py/pkg/p.py': 'from . import q\n',                # p -> q: after p
        'kernel/py/pkg/q.py': 'from .p import x\n',
        'kernel/py/pkg/r.py': '',                                  # unlisted
        'kernel/py/pkg/sub/__init__.py': '',
        'kernel/py/pkg/sub/s.py': 'from .. import p\nfrom .. import nope\n',
    }
    want = {'src/high/c.c: includes src/high/d.h',
            'src/low/a.c: includes src/high/c_internal.h',
            'src/low/a.c: includes "missing.h"',
            'src/low/e.c: module "e"',
            'src/high/inner/f.c: includes src/high/d.h: layer inner may not depend on high',
            'src/high/inner/g.h: header name "g.h"',
            'kernel/py/pkg/p.py:1: imports kernel/py/pkg/q: py/p may not depend on py/q',
            'kernel/py/pkg/r.py: module "r"',
            'kernel/py/pkg/sub/s.py:2: imports kernel/py/pkg/nope'}
    tmp = tempfile.mkdtemp()
    try:
        os.makedirs(os.path.join(tmp, 'docs', 'design'))
        open(os.path.join(tmp, 'docs', 'design', 'ARCHITECTURE.md'), 'w').write(doc)
        for rel, text in files.items():
            os.makedirs(os.path.join(tmp, os.path.dirname(rel)), exist_ok=True)
            open(os.path.join(tmp, rel), 'w').write(text)
        r = subprocess.run([sys.executable, __file__, tmp], capture_output=True, text=True)
    finally:
        shutil.rmtree(tmp)
    lines = r.stdout.splitlines()[:-1]
    found = {w for w in want if any(line.startswith(w) for line in lines)}
    if r.returncode != 1 or found != want or len(lines) != len(want):
        print(r.stdout, end='')
        print(f'# self-test failed: exit {r.returncode}, missed {sorted(want - found)}')
        return 1
    print(f'# self-test: the {len(want)} planted violations were found, nothing else')
    return 0


if __name__ == '__main__':
    sys.exit(self_test() if ROOT == '--self-test' else main())
