#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""README.md's result table, as shrinklab prints it.

  readme-table.py SHRINKLAB README            (make readme-table)
      Run the experiment below with every design (shrinklab reproduce
      --markdown) and put its decision table in README between the two
      marker lines, replacing what was there. Nothing else of README
      changes; the conclusion under the table is prose, written from it.

  readme-table.py --check SHRINKLAB README    (the test readme_result_table)
      The table between the markers is shrinklab's: the same experiment,
      run here at --scale quick (seconds), must print the same title (up to
      the geometry), the same header row (the designs, as the lab labels
      them), the same metrics in the same order, the same legend, and every
      row as many cells as the header. A table typed or edited by hand, or
      one left behind when the lab's designs or metrics change, fails.
      Exit 1 with what differs.
"""
import os
import re
import subprocess
import sys
import tempfile

EXPERIMENT = 'xarray-2026-vm'
BEGIN = '<!-- BEGIN shrinklab table: make readme-table runs ' \
        f'`shrinklab reproduce --experiment {EXPERIMENT} --markdown` -->'
END = '<!-- END shrinklab table -->'


def run_lab(lab, extra):
    with tempfile.TemporaryDirectory() as tmp:
        md = os.path.join(tmp, 'table.md')
        cmd = [lab, 'reproduce', '--experiment', EXPERIMENT, '--no-plots', '--quiet',
               '--markdown', md] + extra
        res = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if res.returncode:
            sys.exit(f'readme-table: {" ".join(cmd)} exited {res.returncode}:\n{res.stderr}')
        with open(md, encoding='utf-8') as f:
            return f.read().strip('\n')


def split_readme(path):
    with open(path, encoding='utf-8') as f:
        text = f.read()
    if text.count(BEGIN) != 1 or text.count(END) != 1:
        sys.exit(f'readme-table: {path} needs the lines\n  {BEGIN}\n  {END}\n'
                 'once each, in that order')
    head, rest = text.split(BEGIN, 1)
    table, tail = rest.split(END, 1)
    return head, table.strip('\n'), tail


def shape(md):
    """(title, header, separator, metrics, cells per row, legend) of a table."""
    lines = md.splitlines()
    title = re.sub(r'\): ours at .*', ')', lines[0]) if lines else ''
    rows = [ln for ln in lines if ln.startswith('|')]
    legend = [ln for ln in lines if ln.startswith('Bold:')]
    header, sep, body = (rows + ['', ''])[0], (rows + ['', ''])[1], rows[2:]
    metrics = [re.sub(r'\[\d+\]$', '', r.split('|')[1].strip()) for r in body]
    cells = {r.split('|')[1].strip(): r.count('|') for r in body}
    return title, header, sep, metrics, cells, legend


def check(lab, readme):
    _, table, _ = split_readme(readme)
    ours = shape(table)
    ref = shape(run_lab(lab, ['--scale', 'quick']))
    problems = []
    names = ('title', 'header row', 'separator row', 'metrics (in order)')
    for name, a, b in zip(names, ours[:4], ref[:4]):
        if a != b:
            problems.append(f'{name}: README has\n    {a}\n  shrinklab prints\n    {b}')
    width = ref[1].count('|')
    for metric, n in ours[4].items():
        if n != width:
            problems.append(f'row {metric}: {n - 1} cells, the header {width - 1}')
    if ours[5] != ref[5]:
        problems.append(f'legend: README has {ours[5]}, shrinklab prints {ref[5]}')
    if not ours[3]:
        problems.append('no metric rows between the markers')
    for p in problems:
        print('readme-table: ' + p)
    print(f'{readme}: {len(ours[3])} metric rows x {width - 2} designs of {EXPERIMENT}: '
          + ('as shrinklab prints them' if not problems else 'NOT as shrinklab prints them'))
    return 1 if problems else 0


def splice(lab, readme):
    head, _, tail = split_readme(readme)
    table = run_lab(lab, [])
    with open(readme, 'w', encoding='utf-8') as f:
        f.write(head + BEGIN + '\n' + table + '\n' + END + tail)
    print(f'{readme}: the {EXPERIMENT} table replaced')
    return 0


def main():
    args = sys.argv[1:]
    if args and args[0] == '--check':
        return check(*args[1:3]) if len(args) == 3 else sys.exit(__doc__)
    if len(args) != 2:
        sys.exit(__doc__)
    return splice(*args)


if __name__ == '__main__':
    sys.exit(main())
