# SPDX-License-Identifier: GPL-2.0
"""How repeatable the guests' figures are over boots: per design and
metric, each boot's median, their median, min..max, and the largest
distance of a boot's median from their median (in % of it). The target of
a kernel timing is +-10% (issue 21, "Repeatable kernel timings").

    rows = spread.rows(guest_docs)           # klab-guest documents, any boots
    print(compare.printed(exe, lambda c: spread.text(rows, c, "clock: ...")))
    print(compare.printed(exe, lambda c: spread.side_by_side(
        [("icount idle", rows_a, words_a), ...], c)))

`klab spread RUN.json...` prints the side by side table of saved runs
(kernel-lab-GEOMETRY.json of `klab lab`): the same design over runs on
different clocks or host loads.
"""
import statistics

from . import metrics
from .compare import kernel_name

TARGET = 0.10


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
    order (a boot without the row leaves it out)."""

    def __init__(self, design, experiment, metric, unit, timed):
        self.design, self.experiment, self.metric = design, experiment, metric
        self.unit, self.timed = unit, timed
        self.values = []

    @property
    def median(self):
        return statistics.median(self.values) if self.values else None

    @property
    def deviation(self):
        """max |boot median - median| / median; None below 2 boots or at a
        median of 0."""
        med = self.median
        if len(self.values) < 2 or not med:
            return None
        return max(abs(v - med) for v in self.values) / abs(med)

    def within(self, target=TARGET):
        d = self.deviation
        return d is not None and d <= target

    def as_json(self):
        return {"design": self.design, "experiment": self.experiment,
                "metric": self.metric, "unit": self.unit, "timed": self.timed,
                "boots": self.values, "median": self.median,
                "min": min(self.values) if self.values else None,
                "max": max(self.values) if self.values else None,
                "deviation": self.deviation}


def rows(docs):
    """Spread of every row of the guests' documents @docs (shrinklab/2 of
    klab-guest), in the documents' order of designs, experiments, rows."""
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
    return out


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
           % (round(100 * TARGET), (": " + words) if words else "")]
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
                 "%s..%s" % (fmt(min(s.values), s.unit, cells),
                             fmt(max(s.values), s.unit, cells)),
                 "+-" + _pct(s.deviation, cells), "" if s.within() or not s.timed else "OUTSIDE"]
                for s in mine]
        out.append("")
        out.append("  kernel:%s" % d)
        out += _table(["metric", "kind", "boots", "median", "min..max", "max dev", ""], body)
        n, of = count_within(mine)
        m, mof = count_within(mine, timed=False)
        out.append("  kernel:%s: %d of %d timed metrics within +-%d%% of their median over "
                   "boots (untimed, memory and counts: %d of %d)"
                   % (d, n, of, round(100 * TARGET), m, mof))
        for s in mine:
            why = known_cause(s.metric, mine) if s.timed and not s.within() else None
            if why:
                out.append("    %s: %s" % (s.metric, why))
    return "\n".join(out) + "\n"


def side_by_side(runs, cells, timed_only=True):
    """One table of several runs (@runs: (label, spreads, words)): per
    design and metric, each run's median and largest distance from it;
    @cells prints its figures (compare.printed())."""
    out = ["== spread over boots, run beside run (median +-largest distance of a boot's "
           "median from the median; target +-%d%%)" % round(100 * TARGET)]
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
    body.append(["", "within +-%d%%" % round(100 * TARGET)] + counts)
    out.append("")
    out += _table(["design", "metric"] + [r[0] for r in runs], body)
    out.append("  (! : outside +-%d%%)" % round(100 * TARGET))
    return "\n".join(out) + "\n"
