#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare two shrinklab/2 documents (shrinklab ... --json) for a change that
must not change what the lab measures, e.g. a restructuring of the tool.

Checks, and prints one line per difference:
  - the same experiments, in the same order, with the same seed titles,
    seed geometry and requested geometry;
  - per experiment the same hosts (design labels, availability, geometry)
    and the same rows: (design, metric) pairs in the same order, with the
    same unit, timed flag, availability and geometry (note included);
  - untimed rows (memory in B, counts): value, min, max, n and samples
    equal to the last digit (they are readings of the slab allocator, not
    clocks);
  - timed rows (every row in ns, sampled or derived from samples, such as
    a slope): the same number of samples (their values are clocks and
    differ from run to run; their medians are printed side by side with
    --timed);
  - the same verdicts (metric, design, base, claim), and the same kind for
    verdicts on untimed metrics.

usage: compare-lab-json.py BEFORE.json AFTER.json [--timed]
Exit status 0 when nothing differs, 1 otherwise.
"""
import json
import sys


def load(path):
    with open(path, encoding='utf-8') as f:
        return json.load(f)


def rows(exp):
    return [((r['design'], r['metric']), r) for r in exp['results']]


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    show_timed = '--timed' in sys.argv[1:]
    if len(args) != 2:
        sys.exit(__doc__)
    a, b = load(args[0]), load(args[1])
    diffs = []

    def differ(where, what, x, y):
        diffs.append(f'{where}: {what}: {x!r} -> {y!r}')

    ea, eb = a['experiments'], b['experiments']
    if [e['id'] for e in ea] != [e['id'] for e in eb]:
        differ('document', 'experiments', [e['id'] for e in ea], [e['id'] for e in eb])
    untimed = timed = 0
    for x, y in zip(ea, eb):
        eid = x['id']
        for key in ('seed_title', 'seed_geometry', 'geometry', 'scale'):
            if x.get(key) != y.get(key):
                differ(eid, key, x.get(key), y.get(key))
        if x['hosts'] != y['hosts']:
            differ(eid, 'hosts', x['hosts'], y['hosts'])
        rx, ry = rows(x), rows(y)
        if [k for k, _ in rx] != [k for k, _ in ry]:
            differ(eid, 'rows (design, metric)', [k for k, _ in rx], [k for k, _ in ry])
        for (key, r), (_, s) in zip(rx, ry):
            where = f'{eid} {key[0]} {key[1]}'
            for field in ('unit', 'timed', 'unavailable', 'geometry'):
                if r.get(field) != s.get(field):
                    differ(where, field, r.get(field), s.get(field))
            if r.get('timed') or r.get('unit') == 'ns':
                timed += 1
                if r.get('n') != s.get('n') or len(r.get('samples') or []) != len(
                        s.get('samples') or []):
                    differ(where, 'samples', r.get('n'), s.get('n'))
                elif show_timed:
                    print(f'timed {where}: {r.get("value")} -> {s.get("value")}')
                continue
            untimed += 1
            for field in ('value', 'min', 'max', 'n', 'samples'):
                if r.get(field) != s.get(field):
                    differ(where, field, r.get(field), s.get(field))
        timed_metrics = {r['metric'] for r in x['results']
                         if r.get('timed') or r.get('unit') == 'ns'}
        va = [(v['metric'], v['design'], v.get('base'), v['claim'], v['verdict'])
              for v in x.get('verdicts', [])]
        vb = [(v['metric'], v['design'], v.get('base'), v['claim'], v['verdict'])
              for v in y.get('verdicts', [])]
        if [v[:4] for v in va] != [v[:4] for v in vb]:
            differ(eid, 'verdicts', [v[:4] for v in va], [v[:4] for v in vb])
        for v, w in zip(va, vb):
            if v[0] not in timed_metrics and v != w:
                differ(eid, 'verdict on an untimed metric', v, w)
    for d in diffs:
        print(d)
    print(f'# {len(ea)} experiments, {untimed} untimed rows compared value by value, '
          f'{timed} timed rows compared by shape; {len(diffs)} differences')
    return 1 if diffs else 0


if __name__ == '__main__':
    sys.exit(main())
