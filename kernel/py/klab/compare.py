# SPDX-License-Identifier: GPL-2.0
"""Kernel beside model: the guests' documents (klab-guest, one per design and
boot) and the model's (shrinklab kernel, the same experiments at the same
geometry) joined metric by metric, and the tables printed from the join.

Every figure on either side is a measurement of that side; nothing here
scales one to the other. Per experiment and metric:

  - each kernel design's value (median; over boots, the median of the boots'
    medians) with the min and max of every sample, the same design's value
    in the model, and model/kernel (the ratio of the two medians);
  - which design is better: each design's ratio to the base design
    (kernel:mainline, and in the model the design mainline maps to), with a
    range, classed as shrinklab's verdicts class ratios: lower below 0.8,
    higher above 1.25, the same in between, or across a boundary. The
    kernel's range is unpaired (separate boots: min/max over max/min), and
    so is the model's when its designs ran in separate processes (klab runs
    them so, as the kernel boots them); when both rows come from one
    shrinklab kernel run (designs in lockstep), the range of the per-round
    ratios. Verdict per design: agree (the same class on both sides),
    disagree (different classes, neither across a boundary), inconclusive
    (either range across a boundary, or a time taken once, whose spread is
    unknown); per metric: disagree if any design
    disagrees, else inconclusive if any is, else agree.

Derived ratios within a design (drop_caches with N cgroups over none,
registration with cgroups over without, churn at the top rung over 0
mounts, slab after unmount over before mounts: the "ratio" rows of
data/kernel_metrics.tsv, metrics.ratios()) are rows of their own: the
issue's targets are stated on them.
"""
import json
import os
import statistics

from . import bases
from .designs import model_design
from .metrics import ratios as derived_ratios
from . import verdict as rule

# The class boundaries are the verdicts' (verdict.py, as shrinklab's).
SAME_LO, SAME_HI = rule.SAME_LO, rule.SAME_HI
BASE = "mainline"

# Said of every mapping: where the model's work is not the kernel's.
COMMON_NOTES = [
    "an empty cgroup in the model is its shrinker bookkeeping and the rest of a memcg "
    "beside it: the slab the kernel lab measured for an empty memcg beyond the "
    "bookkeeping (data/memcg_slab.tsv, the row of the run's nodes and nearest vCPUs), "
    "really allocated from the model's slab allocator; the kernel's per-CPU statistics "
    "(not slab) are in neither; documents written before 2026-12-02 have the "
    "bookkeeping alone",
    "a mount in the model is a shrinker and two list_lrus; the kernel's also allocates a "
    "superblock, root inode and dentry, and runs the mount syscall and namespace work",
    "rmdir in the model runs offline (list_lru reparenting) before it returns; the kernel "
    "runs offline from a worker after rmdir returns, so its split between rmdir and "
    "release depends on scheduling: compare rmdir_release",
    "release in the model is an RCU barrier; the guest polls nr_dying_descendants every "
    "0.5 ms",
    "the model runs natively on the host, the guest under QEMU (TCG when KVM is not "
    "usable): absolute times differ by the emulation, ratios within a side do not",
]



def kernel_name(design):
    return design[len("kernel:"):] if design.startswith("kernel:") else design


# ------------------------------------------------------------------ cells

def match_metric(metric, pattern):
    """Is @metric named by @pattern (one '*' standing for a number)?"""
    if "*" not in pattern:
        return metric == pattern
    pre, post = pattern.split("*")
    mid = metric[len(pre):len(metric) - len(post)]
    return metric.startswith(pre) and metric.endswith(post) and mid.isdigit()


class Cell:
    """One side's figure of one design and metric: value, range, samples
    (per boot or per document), and how it may be paired.

    lo..hi is every sample's range (printed); vlo..vhi the range the
    verdicts use: over two boots or more, the boots' medians' range (a
    sample that a kernel job on the other vCPU fell into, under icount,
    moves one sample, not a boot's median), with one boot its samples'."""

    def __init__(self, rows, unit):
        self.unit = unit
        vals = [r["value"] for r in rows if r["value"] is not None]
        self.value = statistics.median(vals) if vals else None
        self.lo = min(r["min"] for r in rows) if vals else None
        self.hi = max(r["max"] for r in rows) if vals else None
        if len(vals) >= 2:
            self.vlo, self.vhi = min(vals), max(vals)
        else:
            self.vlo, self.vhi = self.lo, self.hi
        self.n = sum(r["n"] for r in rows)
        self.timed = any(r.get("timed") for r in rows)
        self.rows = rows
        self.boot_spread = boot_spread(vals)

    def as_json(self):
        return {"value": self.value, "min": self.lo, "max": self.hi, "n": self.n,
                "boots": len(self.rows), "boot_spread": self.boot_spread,
                "verdict_min": self.vlo, "verdict_max": self.vhi}


def boot_spread(values):
    """How far the boots' medians @values stray from their median: the
    largest |v - median| / median (None for fewer than 2 boots or a median
    of 0). The repeatability target of a kernel timing is 0.10."""
    if len(values) < 2:
        return None
    med = statistics.median(values)
    if med == 0:
        return None
    return max(abs(v - med) for v in values) / abs(med)


class Ratio:
    """A ratio with a range (derived within a design, or design/base).
    @spread False: a time taken once (or a fit of times) is part of it, so
    its range says nothing about the noise."""

    def __init__(self, value, lo, hi, paired=False, spread=True):
        self.value, self.lo, self.hi, self.paired, self.spread = value, lo, hi, paired, spread
        self.vlo, self.vhi = lo, hi
        self.unit = "ratio"
        self.timed = lo != hi
        self.n = 2 if spread else 1

    def as_json(self):
        return {"value": self.value, "min": self.lo, "max": self.hi, "paired": self.paired,
                "spread_known": self.spread}


def spread_known(c):
    """A memory reading is exact; a time needs samples to have a spread."""
    if isinstance(c, Ratio):
        return c.spread
    return c.unit != "ns" or c.n >= 2


def _div(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def unpaired(a, b):
    """a/b with the widest range the two verdict ranges allow (None when
    undefined; 1 when both are exactly 0, as two empty caches are)."""
    known = spread_known(a) and spread_known(b)
    if a.value == 0 and b.value == 0 and a.vlo == a.vhi == b.vlo == b.vhi == 0:
        return Ratio(1.0, 1.0, 1.0, spread=known)
    v = _div(a.value, b.value)
    if v is None or a.vlo is None or b.vlo is None:
        return None
    lo = _div(a.vlo, b.vhi)
    hi = _div(a.vhi, b.vlo) if b.vlo > 0 else None
    if lo is None or hi is None:
        return None
    return Ratio(v, min(lo, v), max(hi, v), spread=known)


def paired(a, b):
    """Per-round ratios of two rows taken in the same rounds (one document
    each, the same number of samples), else None."""
    if len(a.rows) != 1 or len(b.rows) != 1 or a.rows[0]["_doc"] != b.rows[0]["_doc"]:
        return None
    sa, sb = a.rows[0].get("samples") or [], b.rows[0].get("samples") or []
    if not a.timed or not b.timed or len(sa) != len(sb) or len(sa) < 2 or \
            any(x <= 0 for x in sb):
        return None
    qs = [x / y for x, y in zip(sa, sb)]
    v = _div(a.value, b.value)
    if v is None:
        return None
    return Ratio(v, min(qs), max(qs), paired=True)


def classify(r):
    """'lower', 'same', 'higher', 'across' (the range straddles a boundary)
    or 'no spread' (a time taken once) for a ratio range."""
    if r is None:
        return None
    if not r.spread:
        return "no spread"
    c = rule.classify(r.lo, r.hi)
    return "across" if c == "straddles" else c


def size_verdict(rk, rm):
    """The size, beside the direction: is the model's ratio to the base
    within 2x of the kernel's (the model's range against the kernel's
    median; verdict.size_class)? "-" when either is missing."""
    if rk is None or rm is None:
        return rule.NOT_JUDGED
    return rule.size_class(rm.lo, rm.hi, rk.value)


def verdict(ck, cm):
    if ck is None or cm is None:
        return "not compared"
    if ck in ("across", "no spread") or cm in ("across", "no spread"):
        return "inconclusive"
    return "agree" if ck == cm else "disagree"


# -------------------------------------------------------------- documents

def _rows_by(docs):
    """{(experiment, metric, design): [rows]}, {(experiment, metric): unit},
    and the metrics' order per experiment. Each row is a copy that says which
    document it came from ("_doc"): only rows of one document can be paired
    by round."""
    cells, units, order = {}, {}, {}
    for i, doc in enumerate(docs):
        for e in doc["experiments"]:
            for r in e["results"]:
                if r.get("unavailable"):
                    continue
                key = (e["id"], r["metric"], r["design"])
                cells.setdefault(key, []).append(dict(r, _doc=i))
                units[(e["id"], r["metric"])] = r["unit"]
                order.setdefault(e["id"], [])
                if r["metric"] not in order[e["id"]]:
                    order[e["id"]].append(r["metric"])
    return cells, units, order


def _derived(cells, exp, design, num, den):
    """A derived ratio of one design, per boot (document) then merged."""
    nums = [k for k in cells if k[0] == exp and k[2] == design and match_metric(k[1], num)]
    dens = [k for k in cells if k[0] == exp and k[2] == design and match_metric(k[1], den)]
    if not nums or not dens:
        return None
    rn, rd = cells[nums[0]], cells[dens[0]]
    per = []
    for a, b in zip(rn, rd):  # the i-th row of each comes from the i-th document
        r = unpaired(Cell([a], a["unit"]), Cell([b], b["unit"]))
        if r:
            per.append(r)
    if not per:
        return None
    return Ratio(statistics.median(r.value for r in per), min(r.lo for r in per),
                 max(r.hi for r in per), spread=all(r.spread for r in per))


def join(kernel_docs, model_docs, series_dirs=None):
    """The comparison: mapping, per experiment the metrics with each design's
    kernel and model figures, and per metric the designs against the base.
    @series_dirs: {design: its series' directory}, for their `model` files."""
    kcells, kunits, korder = _rows_by(kernel_docs)
    ratios = derived_ratios()
    mcells, _, _ = _rows_by(model_docs)
    designs = []
    for doc in kernel_docs:
        d = kernel_name(doc["run"].get("design") or doc["experiments"][0]["results"][0]["design"])
        if d not in designs:
            designs.append(d)
    seen = list(designs)
    designs.sort(key=lambda d: (d != BASE, seen.index(d)))
    mapping = {}
    for d in designs:
        label, notes = model_design(d, (series_dirs or {}).get(d))
        mapping[d] = {"model": label, "notes": notes}
    out = {"designs": designs, "mapping": mapping, "common_notes": COMMON_NOTES,
           "experiments": []}
    for exp in korder:
        metrics = []
        names = list(korder[exp]) + [r.name for r in ratios if r.experiment == exp]
        for m in names:
            ratio = next((r for r in ratios if r.name == m), None)
            unit = "ratio" if ratio else kunits[(exp, m)]
            row = {"metric": m, "unit": unit, "derived": bool(ratio), "designs": {}}
            kc, mc = {}, {}
            for d in designs:
                label = mapping[d]["model"]
                if ratio:
                    k = _derived(kcells, exp, "kernel:" + d, ratio.numerator,
                                 ratio.denominator)
                    md = _derived(mcells, exp, label, ratio.numerator,
                                  ratio.denominator) if label else None
                else:
                    rows = kcells.get((exp, m, "kernel:" + d))
                    k = Cell(rows, unit) if rows else None
                    rows = mcells.get((exp, m, label)) if label else None
                    md = Cell(rows, unit) if rows else None
                kc[d], mc[d] = k, md
                row["designs"][d] = {
                    "model_design": label,
                    "kernel": k.as_json() if k else None,
                    "model": md.as_json() if md else None,
                    "model_over_kernel": _div(md.value, k.value) if k and md else None,
                }
            row["versus_base"], row["winner"], row["verdict"] = \
                _versus(designs, kc, mc, ratio is None)
            metrics.append(row)
        out["experiments"].append({"id": exp, "metrics": metrics})
    return out


def _versus(designs, kc, mc, may_pair):
    """Each design against the base on both sides; the winners; the verdict."""
    vs = []
    base_k, base_m = kc.get(BASE), mc.get(BASE)
    for d in designs:
        if d == BASE:
            continue
        k, m = kc.get(d), mc.get(d)
        rk = unpaired(k, base_k) if k and base_k else None
        rm = None
        if m and base_m:
            rm = (paired(m, base_m) if may_pair else None) or unpaired(m, base_m)
        ck, cm = classify(rk), classify(rm)
        vs.append({"design": d,
                   "kernel": dict(rk.as_json(), cls=ck) if rk else None,
                   "model": dict(rm.as_json(), cls=cm) if rm else None,
                   "verdict": verdict(ck, cm),
                   "size": size_verdict(rk, rm)})

    def lowest(cells):
        """The design with the lowest median; a list when several tie."""
        have = [(c.value, d) for d, c in cells.items() if c and c.value is not None]
        if not have:
            return None
        low = min(v for v, _ in have)
        ties = [d for v, d in have if v == low]
        return ties[0] if len(ties) == 1 else ties
    winner = {"kernel": lowest(kc), "model": lowest(mc)}
    kinds = [v["verdict"] for v in vs]
    if not kinds:
        overall = "one design"
    elif "disagree" in kinds:
        overall = "disagree"
    elif "inconclusive" in kinds or "not compared" in kinds:
        overall = "inconclusive"
    else:
        overall = "agree"
    return vs, winner, overall


# ----------------------------------------------------------------- tables

def fmt(v, unit):
    if v is None:
        return "-"
    if unit == "ratio":
        return "%.3gx" % v
    if unit == "ns":
        a = abs(v)
        if a >= 1e9:
            return "%.2f s" % (v / 1e9)
        if a >= 1e6:
            return "%.2f ms" % (v / 1e6)
        if a >= 1e3:
            return "%.1f us" % (v / 1e3)
        return "%.0f ns" % v
    if unit == "B":
        a = abs(v)
        if a >= 1e6:
            return "%.2f MB" % (v / 1e6)
        if a >= 1e3:
            return "%.1f kB" % (v / 1e3)
        return "%.0f B" % v
    return "%.2f" % v


def _cell_text(c, unit):
    if not c:
        return "-"
    s = fmt(c["value"], unit)
    if c["min"] is not None and c["min"] != c["max"]:
        s += " [%s..%s]" % (fmt(c["min"], unit), fmt(c["max"], unit))
    return s


def _winner_text(w):
    """The lowest design (by its kernel name, on either side), or a tie."""
    if w is None:
        return "-"
    return "tie: " + ", ".join(w) if isinstance(w, list) else w


def _ratio_text(r):
    if not r:
        return "-"
    s = "%.3g" % r["value"]
    if r["min"] != r["max"]:
        s += " [%.3g..%.3g]" % (r["min"], r["max"])
    return s + " " + r["cls"]


def _table(header, rows):
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    out = ["  " + "  ".join(str(h).ljust(w) for h, w in zip(header, widths)).rstrip(),
           "  " + "  ".join("-" * w for w in widths)]
    for r in rows:
        out.append("  " + "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())
    return out


def tables(cmp, geometry_words="", clock=""):
    """The text: per experiment, the figures, then which design is better;
    @clock (the kernel's clock, short: boot.clock_name) heads each table."""
    designs = cmp["designs"]
    out = ["kernel base: " + bases.current().words()]
    if geometry_words:
        out.append(geometry_words)
    out.append("")
    out.append("designs (kernel = model; what the model does differently):")
    for d in designs:
        m = cmp["mapping"][d]
        out.append("  kernel:%s = %s" % (d, m["model"] or "(no model design)"))
        for n in m["notes"]:
            out.append("    - " + n)
    out.append("  every design:")
    for n in cmp["common_notes"]:
        out.append("    - " + n)
    counts, disagree = {}, []
    for e in cmp["experiments"]:
        out.append("")
        spread = any((m["designs"][d]["kernel"] or {}).get("boot_spread") is not None
                     for m in e["metrics"] for d in designs)
        out.append("== %s: kernel beside model (%smedian [min..max]; %smodel/kernel = ratio "
                   "of the medians)" % (e["id"], "kernel clock %s; " % clock if clock else "",
                                        "boots +-: the boots' medians' largest distance "
                                        "from their median; " if spread else ""))
        rows = []
        for m in e["metrics"]:
            first = True
            for d in designs:
                c = m["designs"][d]
                row = [m["metric"] if first else "", d, _cell_text(c["kernel"], m["unit"])]
                if spread:
                    bs = (c["kernel"] or {}).get("boot_spread")
                    row.append("-" if bs is None else "%.1f%%" % (100 * bs))
                rows.append(row + [_cell_text(c["model"], m["unit"]),
                                   "%.3g" % c["model_over_kernel"]
                                   if c["model_over_kernel"] is not None else "-"])
                first = False
        out += _table(["metric", "design", "kernel"] + (["boots +-"] if spread else []) +
                      ["model", "model/kernel"], rows)
        if len(designs) < 2:
            out.append("  (one kernel design: no design to compare)")
            continue
        out.append("")
        out.append("   which design is better, %s%s: ratio to mainline [range] and its class "
                   "(<%.2g lower, >%.3g higher; ranges unpaired, min/max, unless the model's "
                   "designs ran in one process); lowest: the design with the lowest median "
                   "on each side (kernel names)" % (e["id"], " (kernel clock %s)" % clock
                                                    if clock else "", SAME_LO, SAME_HI))
        rows = []
        for m in e["metrics"]:
            first = True
            for v in m["versus_base"]:
                rows.append([m["metric"] if first else "", v["design"], _ratio_text(v["kernel"]),
                             _ratio_text(v["model"]), v["verdict"], v.get("size", "-")])
                first = False
            w = m["winner"]
            rows.append(["", "lowest:", _winner_text(w["kernel"]), _winner_text(w["model"]),
                         "=> " + m["verdict"], ""])
            counts[m["verdict"]] = counts.get(m["verdict"], 0) + 1
            if m["verdict"] == "disagree":
                disagree.append("%s %s (%s)" % (e["id"], m["metric"], ", ".join(
                    v["design"] for v in m["versus_base"] if v["verdict"] == "disagree")))
        out += _table(["metric", "design", "kernel", "model", "direction",
                       "size (model within 2x of kernel)"], rows)
    if counts:
        out.append("")
        out.append("model and kernel on which design is better, per metric: " +
                   ", ".join("%d %s" % (n, k) for k, n in sorted(counts.items())))
        for d in disagree:
            out.append("  disagree: " + d)
    return "\n".join(out) + "\n"


def combined(kernel_docs, model_docs, cmp, extra=None):
    """The one document of a klab lab run: every guest's and model run's own
    shrinklab/2 document, and the comparison."""
    doc = {"schema": "klab-lab/1", "kernel": kernel_docs, "model": model_docs,
           "comparison": cmp}
    doc.update(extra or {})
    return doc


def load(path):
    with open(path) as f:
        return json.load(f)
