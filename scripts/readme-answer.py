#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""README.md's kernel answer, from the committed `klab reproduce` output it cites.

  readme-answer.py README            rewrite the table between the markers
                                     from the results file the BEGIN marker names
  readme-answer.py --check README    (the test readme_kernel_answer) exit 1 when
                                     the README's table is not what that file gives

The BEGIN marker names the file (`docs/results/...txt`, a saved `klab
reproduce` text output) and the table is generated from it: the conditions
(base, machine, clock, boots, geometry, date) from its header lines, then per
metric the base design's figures and each design's ratio to it, on the seed,
the kernel and the model, with the verdicts the file gives. Nothing is
computed: every figure is copied from the file. A new base or machine (a
7.3 run, UML) is a new results file: point the marker at it and rerun.

A results file is `klab reproduce`'s text output (reproduce-GEOMETRY.txt,
e.g. docs/results/2026-12-02/uml-reproduce-bitmap-pods.txt): its section
header gives the geometry, boots, clock and date, each experiment's kernel
line the machine, the guest's shape, the base and the scaling. Output of an
older klab, whose header and kernel line lack the date, machine and base,
needs a title above it, as docs/results/2026-12-01-reproduce-kernel.txt
has: a first line `klab reproduce on real kernels (BASE), YYYY-MM-DD`,
then, after its underline, a paragraph that opens with the machine and a
comma (`QEMU TCG, icount clock ...`). "the host's load A-B on N cores"
anywhere in the file is copied too.

What a file needs (tests/docs/check_readme_answer.py tries a committed UML
one): the experiments xarray-2026-vm and unit-cache-2026 (`klab reproduce
--table xarray-2026-vm --table unit-cache-2026`), each metric of ROWS with a
row of its base and of every design ROWS names (seed-xarray,
array-ondemand, indexed; unit-cache over mainline); at the seeds' own
geometry (`--geometry seed`) the kernel line has no "scaled:" and the
conditions say so; a run without the model (--no-model) leaves its cells
"-". The prose above the table may quote only ratios the table has.
"""
import os
import re
import subprocess
import sys

BEGIN = re.compile(r'<!-- BEGIN kernel answer: scripts/readme-answer.py from (\S+) -->')
END = '<!-- END kernel answer -->'

# What the first screen shows: (experiment, metric, label, designs); the base
# design of each metric is the one its claims are "over".
ROWS = [
    ('xarray-2026-vm', 'slab_bytes_per_empty_cgroup', 'slab per empty cgroup',
     ['seed-xarray', 'array-ondemand', 'indexed']),
    ('xarray-2026-vm', 'walk_ns_empty_cgroup', 'shrink_slab() of an empty cgroup',
     ['seed-xarray', 'array-ondemand', 'indexed']),
    ('xarray-2026-vm', 'walk_ns_cgroup_objects_100', 'shrink_slab() of a cgroup with objects on 100 mounts',
     ['seed-xarray', 'array-ondemand', 'indexed']),
    ('xarray-2026-vm', 'mkdir_rmdir_ns_per_cgroup', 'mkdir + rmdir per cgroup',
     ['seed-xarray', 'array-ondemand', 'indexed']),
    ('unit-cache-2026', 'slab_bytes_per_empty_cgroup', 'slab per empty cgroup at 8000 mounts, seed 002\'s table',
     ['unit-cache']),
]


def cols(line):
    return re.split(r'\s{2,}', line.strip())


# A cell of klab reproduce's tables, by what it holds: where a cell is as
# wide as its column it meets the next with one space, so a row is read by
# its cells' shapes, not by the spaces between them.
_FIG = (r'(?:-|not measured|same|= ?\S+|-?[0-9][0-9.e+-]*(?: (?:[KMG]i?B|B|ns|us|ms|s))?'
        r'(?: \[[^]]*\])?)')
_CLAIM = r'(?:-|not measured|-?[0-9][0-9.e+-]*(?: \[[^]]*\])?: [A-Za-z][A-Za-z ,]*?)'
_SIZE = r'(?:agrees|DISAGREES|inconclusive|not judged|-)'
ROW = re.compile(r'^(\S+)\s+(\S+)\s+(%s)\s+(%s)\s+(\S+)\s+(%s)$' % (_FIG, _FIG, _FIG))
CLAIM = re.compile(r'^(\S+)\s+(%s)\s+(%s)\s+(%s)\s+(%s)\s+(%s)(?:\s+(.*))?$'
                   % (_FIG, _CLAIM, _SIZE, _CLAIM, _SIZE))


def fields(line, shape):
    """@line's cells, read by @shape (ROW, CLAIM), or split at runs of
    spaces where the line has another shape (files of an older klab)."""
    m = shape.match(line.strip())
    return [g for g in m.groups() if g is not None] if m else cols(line)


def metric_line(md, line):
    """One line of a metric's block: its base, a claim, or a design's row."""
    m = re.match(r'^\s+claims over (\S+):', line)
    if m:
        md['base'] = m.group(1)
        # Files since the size verdict came in carry a column of it after
        # each direction verdict (kernel size, then the model's).
        md['sized'] = 'kernel size' in line
        return
    if line.startswith('     kernel design') or line.startswith('         '):
        return  # the header, a claim's note
    if line.startswith('       '):
        m = re.match(r'^(\S+)\s+no seed figure; kernel over \S+ (.*)$', line.strip())
        if m:
            md['noseed'][m.group(1)] = m.group(2)
        elif not re.match(r'^\S+\s+over \S+:', line.strip()):  # not a ratio to another design
            f = fields(line, CLAIM) if md.get('sized') else cols(line)
            md['claims'][f[0]] = f
        return
    f = fields(line, ROW)
    if len(f) == 5:  # a long model design runs into its figure
        label, _, fig = f[4].partition(' ')
        f = f[:4] + [label, fig]
    if len(f) >= 6:
        md['rows'][f[0]] = f


def parse(text):
    """{experiment: {'head': its section's header line, 'kernel': its kernel
    line, 'metrics': {metric: {'base': design, 'rows': {design: fields},
    'claims': {design: fields}, 'noseed': {design: text}}}}}"""
    out = {}
    head = exp = metric = None
    for line in text.split('\n'):
        if line.startswith('klab reproduce, geometry'):
            head = line
        m = re.match(r'^== (\S+): ', line)
        if m:
            exp, metric = m.group(1), None
            out[exp] = {'head': head, 'kernel': '', 'metrics': {}}
        elif exp is None:
            continue
        elif line.startswith('   kernel: '):
            out[exp]['kernel'] = line[len('   kernel: '):]
        elif re.match(r'^   [a-z0-9_]+: ', line):
            metric = line.split(':')[0].strip()
            out[exp]['metrics'][metric] = {'rows': {}, 'claims': {}, 'noseed': {}, 'base': None}
        elif metric is not None and line.startswith('     '):
            metric_line(out[exp]['metrics'][metric], line)
    return out


def ratio(cell):
    """'0.053 [0.0513..0.0547]: agrees' -> '0.053x [0.0513..0.0547]: agrees';
    a cell without a ratio ('-' of a run without the model) as it is."""
    m = re.match(r'^(-?[0-9][0-9.e+-]*)( .*)?$', cell)
    if not m:
        return cell
    return m.group(1) + 'x' + (m.group(2) or '')


def versus_kernel(claim, col):
    """Is the model's ratio within 2x of the kernel's (shrinklab judge
    claims' size of one against the other): the last word of @claim's
    cell @col, which first says whether the two directions agree; None
    in files without it."""
    if len(claim) <= col:
        return None
    m = re.match(r'^.*?\s+(%s)$' % _SIZE, claim[col])
    return m.group(1) if m and m.group(1) != '-' else None


def sized(cell, md, claim, col):
    """A claim's ratio cell with its size verdict ('; size: agrees'), when
    the file has that column and the claim a verdict in it."""
    if not md.get('sized') or len(claim) <= col:
        return cell
    verdict = claim[col]
    if verdict.endswith(' -'):  # a verdict as wide as its column meets the next
        verdict = verdict[:-2]
    if verdict == '-':
        return cell
    return f'{cell}; size: {verdict}'


HEAD = re.compile(r"^klab reproduce, geometry (?P<geometry>\S+), (?P<boots>\d+) boot\(s\) per design"
                  r"(?:, (?P<date>\d{4}-\d\d-\d\d)[^;]*)?(?:; machines: [^;]*)?; "
                  r"the kernel's clock: (?P<clock>.*)$")


def conditions(text, data, cited):
    """The run's conditions, each copied from the file's own lines: the
    section header klab reproduce prints (geometry, boots, clock, and the
    date in later versions), the experiment's kernel line (the guest's
    shape, the machine and base in later versions, the scaling), and a
    title written above the output when the header lacks them."""
    lines = text.split('\n')
    exp = experiment(data, ROWS[0][0], cited)
    head = HEAD.match(exp['head'] or '')
    # At a scaled geometry (fit, short) the kernel line says how; at the
    # seeds' own (seed) it says nothing.
    k = re.match(r'^(?P<shape>.*?)(?:; scaled: (?P<scaled>.*?))?; kernel clock ', exp['kernel'])
    if not head or not k:
        raise SystemExit(f'readme-answer: {cited}: {ROWS[0][0]} has no geometry, boots and '
                         'clock header or no kernel line')
    shape = k.group('shape')
    title = re.match(r'^klab reproduce on real kernels \((.*)\), (\d{4}-\d\d-\d\d)$', lines[0].strip())
    on = re.match(r'^(?P<machine>[^(,]+?) \(.*\), (?P<shape>.*) on (?P<base>Linux .*)$', shape)
    if on:  # the kernel line names the machine and the base
        machine, shape, base = on.group('machine'), on.group('shape'), on.group('base')
        date = head.group('date') or (title.group(2) if title else None)
    elif title:  # a title names the base and date, the paragraph under it the machine
        base, date = title.groups()
        machine = next((ln.strip() for ln in lines[1:12] if ln.strip() and not ln.startswith('=')), '')
        machine = machine.split(',')[0]
    else:
        machine = base = date = None
    if not (machine and base and date):
        raise SystemExit(f'readme-answer: {cited}: names no machine, base or date '
                         '(klab reproduce prints them, or a title line gives them)')
    host = re.search(r"the host's load ([0-9.]+-[0-9.]+) on (\d+) cores", text)
    if host:
        shape += f', on a host of {host.group(2)} cores at a load of {host.group(1)}'
    return [f'base {base}, with our series', f'machine {machine}, {shape}',
            f'clock {head.group("clock")}', f'{head.group("boots")} boots per design, interleaved',
            f'geometry `{head.group("geometry")}`' + (
                f': {k.group("scaled")}' if k.group('scaled') else ": the seeds' own"),
            f'date {date}']


def seedcell(fig, claim):
    if fig == claim == 'same':
        return 'the same'
    return f'{fig}, {ratio(claim)}'


def experiment(data, exp, cited):
    """@data's experiment @exp, or SystemExit naming what the table needs."""
    if exp not in data:
        need = ', '.join(sorted({e for e, _, _, _ in ROWS}))
        raise SystemExit(f'readme-answer: {cited} has no {exp} (the table needs {need}: '
                         'klab reproduce --table of each)')
    return data[exp]


def table(text, cited):
    data = parse(text)
    out = ['Conditions (from `%s`): %s.' % (cited, '; '.join(conditions(text, data, cited))), '']
    out.append('| metric | design | seed | kernel: median [min..max], ratio to the base [range]: verdict | model |')
    out.append('|---|---|---|---|---|')
    for exp, metric, label, designs in ROWS:
        md = experiment(data, exp, cited)['metrics'].get(metric)
        if md is None:
            raise SystemExit(f'readme-answer: {cited} has no {exp} {metric}')
        base = md['base']
        if base not in md['rows']:
            raise SystemExit(f'readme-answer: {cited}: {exp} {metric}: no row of its base {base}')
        b = md['rows'][base]
        out.append(f'| {label} (`{metric}`) | `{base}` (base) | {b[2]} | {b[3]} | {b[5]} |')
        for d in designs:
            if d not in md['rows']:
                raise SystemExit(f'readme-answer: {cited}: {exp} {metric}: no row of {d}')
            r = md['rows'][d]
            if d in md['claims']:
                c = md['claims'][d]
                seed = seedcell(r[2], c[1])
                kernel = r[3] if r[3] == 'not measured' else f'{r[3]}, {sized(ratio(c[2]), md, c, 3)}'
                mcol = 4 if md.get('sized') else 3
                model = r[5] if c[mcol] == '-' else f'{r[5]}, {sized(ratio(c[mcol]), md, c, mcol + 1)}'
                beside = versus_kernel(c, mcol + 2)
                if beside and c[mcol] != '-':
                    model += f"; size vs the kernel's: {beside}"
            else:
                seed = '-'
                kernel = r[3]
                if d in md['noseed']:
                    kernel += ', ' + ratio(md['noseed'][d])
                model = r[5]
            out.append(f'| | `{d}` | {seed} | {kernel} | {model} |')
    return '\n'.join(out)


def split(readme):
    lines = readme.split('\n')
    starts = [i for i, ln in enumerate(lines) if BEGIN.match(ln)]
    ends = [i for i, ln in enumerate(lines) if ln == END]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise SystemExit('readme-answer: README needs one BEGIN kernel answer marker and one END after it')
    return lines, starts[0], ends[0], BEGIN.match(lines[starts[0]]).group(1)


def main(argv):
    check = argv[1:2] == ['--check']
    args = argv[2:] if check else argv[1:]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    path = args[0]
    with open(path) as f:
        readme = f.read()
    lines, s, e, cited = split(readme)
    src = os.path.join(os.path.dirname(os.path.abspath(path)), cited)
    if not os.path.exists(src):
        print(f'readme-answer: README cites {cited}, which does not exist', file=sys.stderr)
        return 1
    top = os.path.dirname(os.path.abspath(path))
    tracked = subprocess.run(['git', '-C', top, 'ls-files', '--error-unmatch', cited],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    inside = subprocess.run(['git', '-C', top, 'rev-parse', '--git-dir'],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if check and inside.returncode == 0 and tracked.returncode != 0:
        print(f'readme-answer: README cites {cited}, which git does not track: '
              'commit the results file it cites', file=sys.stderr)
        return 1
    with open(src) as f:
        want = table(f.read(), cited)
    have = '\n'.join(lines[s + 1:e]).strip('\n')
    if check:
        # The prose above the table quotes its ratios: each must be the table's.
        head = [i for i, ln in enumerate(lines[:s]) if ln.startswith('## ')]
        prose = '\n'.join(lines[head[-1] if head else 0:s])
        stale = [r for r in re.findall(r'\b(\d+(?:\.\d+)?x)\b', prose) if r not in want]
        if stale:
            print(f'readme-answer: the README\'s answer quotes {", ".join(stale)}, '
                  f'which {cited} does not give', file=sys.stderr)
            return 1
        if have != want:
            print(f'readme-answer: the README\'s kernel answer is not what {cited} gives '
                  '(scripts/readme-answer.py README.md rewrites it):', file=sys.stderr)
            for a, b in zip(have.split('\n') + [''] * 99, want.split('\n')):
                if a != b:
                    print(f'  README has   {a}\n  {cited} gives {b}', file=sys.stderr)
            return 1
        print(f'readme-answer: the README\'s kernel answer is {cited}\'s')
        return 0
    new = lines[:s + 1] + [want] + lines[e:]
    with open(path, 'w') as f:
        f.write('\n'.join(new))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
