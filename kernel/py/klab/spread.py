# SPDX-License-Identifier: GPL-2.0
"""How repeatable the guests' figures are over boots: per design and
metric, each boot's median, their median, min..max, and the largest
distance of a boot's median from their median (in % of it), all merged
by shrinklab judge claims (its boots: the merge klab lab's tables use).
The target of a kernel timing, +-10% (issue 21, "Repeatable kernel
timings"), is shrinklab's too (LAB_BOOT_SPREAD_TARGET).

    rows = spread.rows(guest_docs, exe)      # klab-guest documents, any boots
    print(compare.printed(exe, lambda c: spread.text(rows, c, "clock: ...")))
    print(compare.printed(exe, lambda c: spread.side_by_side(
        [("icount idle", rows_a, words_a), ...], c)))

`klab spread RUN.json...` prints the side by side table of saved runs
(kernel-lab-GEOMETRY.json of `klab lab`): the same design over runs on
different clocks or host loads.
"""
from . import compare, metrics
from .compare import kernel_name


def fmt(v, unit, cells):
    """@v in @unit as the kernel lab's tables print it, by shrinklab
    (compare.Cells: bytes and times by lab_fmt_value(), a ratio with its
    x, anything else at 2 places)."""
    if v is None:
        return "-"
    return cells(value=v, unit=unit or "", decimals=2)


def known_cause(metric, spreads):
    """Why @metric moves over boots other than by the clock (the "moves"
    rows of data/kernel_metrics.tsv), when the row of its whole work is
    among @spreads and within the target."""
    for m in metrics.moves():
        if metric.startswith(m.prefix):
            name = m.whole + metric[len(m.prefix):]
            if any(s.metric == name and s.within() for s in spreads):
                return m.why
    return None


class Spread:
    """One design's metric over boots: @values the boots' medians, in boot
    order (a boot without the row leaves it out), and what shrinklab judge
    claims' boots make of them (merge())."""

    def __init__(self, design, experiment, metric, unit, timed):
        self.design, self.experiment, self.metric = design, experiment, metric
        self.unit, self.timed = unit, timed
        self.values, self.rows = [], []
        self.median = self.lo = self.hi = self.deviation = None
        self.within_target = False

    def merge(self, answer):
        """The median of the boots' medians, their min..max, the largest
        distance of one from the median over it (None below 2 boots or at
        a median of 0) and whether that is within the target, from one
        of shrinklab's answers."""
        self.median, self.deviation = answer["value"], answer["boot_spread"]
        self.lo, self.hi = answer["verdict_min"], answer["verdict_max"]
        self.within_target = answer["within_target"]

    def within(self):
        return self.within_target


class Spreads(list):
    """The Spread of every row, and the target they are judged by (the
    fraction of the median a boot's median may lie from it)."""

    def __init__(self, spreads, target):
        super().__init__(spreads)
        self.target = target


def rows(docs, exe):
    """Spread of every row of the guests' documents @docs (shrinklab/2 of
    klab-guest), in the documents' order of designs, experiments, rows,
    merged by the shrinklab at @exe."""
    out, index = [], {}
    for doc in docs:
        for e in doc["experiments"]:
            for r in e["results"]:
                if r.get("unavailable") or r.get("value") is None:
                    continue
                key = (r["design"], e["id"], r["metric"])
                s = index.get(key)
                if s is None:
                    s = index[key] = Spread(kernel_name(r["design"]), e["id"], r["metric"],
                                            r["unit"], bool(r.get("timed")))
                    out.append(s)
                s.values.append(r["value"])
                s.rows.append(dict(value=r["value"], unit=r["unit"]))
    answer = compare.judge_claims(exe, dict(boots=[s.rows for s in out]))
    for s, a in zip(out, answer["boots"]):
        s.merge(a)
    return Spreads(out, answer["boot_spread_target"])


def percent(target):
    """The target as the headings print it: whole percent."""
    return round(100 * target)


def count_within(spreads, timed=True):
    """(within the target, with a spread) of the timed (or untimed) rows."""
    mine = [s for s in spreads if s.timed == timed and s.deviation is not None]
    return sum(1 for s in mine if s.within()), len(mine)


def _pct(d, cells):
    return "-" if d is None else cells(percent=d)


def _table(header, body):
    widths = [max(len(str(x)) for x in col) for col in zip(header, *body)]
    out = ["  " + "  ".join(str(h).ljust(w) for h, w in zip(header, widths)).rstrip(),
           "  " + "  ".join("-" * w for w in widths)]
    for r in body:
        out.append("  " + "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())
    return out


def text(spreads, cells, words=""):
    """The spread table of one run (per design: every row with 2 boots or
    more, then how many timed rows are within the target); @cells prints
    its figures (compare.printed())."""
    out = ["", "== spread over boots (each boot's median; median, min..max of the boots' "
           "medians, the largest distance from their median; target +-%d%%)%s"
           % (percent(spreads.target), (": " + words) if words else "")]
    designs = []
    for s in spreads:
        if s.design not in designs:
            designs.append(s.design)
    for d in designs:
        mine = [s for s in spreads if s.design == d and s.deviation is not None]
        if not mine:
            out.append("  %s: fewer than 2 boots, no spread" % d)
            continue
        body = [[s.metric, "time" if s.timed else "other", len(s.values),
                 fmt(s.median, s.unit, cells),
                 "%s..%s" % (fmt(s.lo, s.unit, cells), fmt(s.hi, s.unit, cells)),
                 "+-" + _pct(s.deviation, cells), "" if s.within() or not s.timed else "OUTSIDE"]
                for s in mine]
        out.append("")
        out.append("  kernel:%s" % d)
        out += _table(["metric", "kind", "boots", "median", "min..max", "max dev", ""], body)
        n, of = count_within(mine)
        m, mof = count_within(mine, timed=False)
        out.append("  kernel:%s: %d of %d timed metrics within +-%d%% of their median over "
                   "boots (untimed, memory and counts: %d of %d)"
                   % (d, n, of, percent(spreads.target), m, mof))
        for s in mine:
            why = known_cause(s.metric, mine) if s.timed and not s.within() else None
            if why:
                out.append("    %s: %s" % (s.metric, why))
    return "\n".join(out) + "\n"


def side_by_side(runs, cells, timed_only=True):
    """One table of several runs (@runs: (label, spreads, words)): per
    design and metric, each run's median and largest distance from it;
    @cells prints its figures (compare.printed())."""
    target = percent(runs[0][1].target) if runs else None
    out = ["== spread over boots, run beside run (median +-largest distance of a boot's "
           "median from the median; target +-%s%%)" % target]
    for label, _, words in runs:
        out.append("  %s: %s" % (label, words))
    keys = []
    by = []
    for _, spreads, _ in runs:
        m = {}
        for s in spreads:
            if timed_only and not s.timed:
                continue
            k = (s.design, s.experiment, s.metric)
            m[k] = s
            if k not in keys:
                keys.append(k)
        by.append(m)
    body = []
    for k in keys:
        row = []
        for m in by:
            s = m.get(k)
            if s is None or s.median is None:
                row.append("-")
            else:
                row.append("%s +-%s%s" % (fmt(s.median, s.unit, cells), _pct(s.deviation, cells),
                                          "" if s.within() else " !"))
        body.append([k[0], k[2]] + row)
    counts = []
    for m in by:
        n, of = count_within(list(m.values()))
        counts.append("%d of %d" % (n, of))
    body.append(["", "within +-%s%%" % target] + counts)
    out.append("")
    out += _table(["design", "metric"] + [r[0] for r in runs], body)
    out.append("  (! : outside +-%s%%)" % target)
    return "\n".join(out) + "\n"
