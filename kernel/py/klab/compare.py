# SPDX-License-Identifier: GPL-2.0
"""Kernel beside model: klab lab hands the guests' documents (klab-guest, one
per design and boot) and the model's (shrinklab kernel, the same experiments
at the same geometry) to shrinklab judge lab, which joins them metric by
metric, judges which design is better on each side with the verdicts' one
rule and prints the tables (tools/shrinklab/output/beside.c says how).
klab adds what only it knows: each kernel design's model design and notes
(designs.model_design, from the series), the kernel base and the run's
words for the heading, the kernel's clock.

Still here for klab work's tables (workloads.py), until they move to
shrinklab judge too: the cells, the unpaired ratio, its class and the
figure format.
"""
import json
import os
import statistics
import subprocess
import tempfile

from . import bases
from .designs import model_design
from . import verdict as rule

# The class boundaries are the verdicts' (verdict.py, as shrinklab's).
SAME_LO, SAME_HI = rule.SAME_LO, rule.SAME_HI
BASE = "mainline"
JUDGE_SCHEMA = "klab-judge/1"


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


def classify(r):
    """'lower', 'same', 'higher', 'across' (the range straddles a boundary)
    or 'no spread' (a time taken once) for a ratio range."""
    if r is None:
        return None
    if not r.spread:
        return "no spread"
    c = rule.classify(r.lo, r.hi)
    return "across" if c == "straddles" else c


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


def _table(header, rows):
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    out = ["  " + "  ".join(str(h).ljust(w) for h, w in zip(header, widths)).rstrip(),
           "  " + "  ".join("-" * w for w in widths)]
    for r in rows:
        out.append("  " + "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())
    return out


def kernel_designs(kernel_docs):
    """The kernel designs of the guests' documents, in order (no prefix)."""
    out = []
    for doc in kernel_docs:
        d = kernel_name(doc["run"].get("design") or doc["experiments"][0]["results"][0]["design"])
        if d not in out:
            out.append(d)
    return out


def judge_input(kernel_docs, model_docs, series_dirs=None, geometry_words="", clock=""):
    """The document shrinklab judge lab reads: the guests' and the model's
    documents, each kernel design's model design and notes (@series_dirs:
    {design: its series' directory}, for their `model` files), the heading
    (the kernel base, @geometry_words) and @clock (the kernel's clock, short:
    boot.clock_name), which heads each table."""
    mapping = []
    for d in kernel_designs(kernel_docs):
        label, notes = model_design(d, (series_dirs or {}).get(d))
        mapping.append({"name": d, "model": label, "notes": notes})
    heading = ["kernel base: " + bases.current().words()]
    if geometry_words:
        heading.append(geometry_words)
    return {"schema": JUDGE_SCHEMA, "kernel": kernel_docs, "model": model_docs,
            "designs": mapping, "heading": heading, "clock": clock}


def judge(exe, doc):
    """shrinklab judge lab (the shrinklab at @exe) over the judge_input()
    document @doc: (the comparison, as JSON data; the tables' text).
    RuntimeError with shrinklab's message when it fails."""
    with tempfile.TemporaryDirectory(prefix="klab-judge-") as tmp:
        path = os.path.join(tmp, "comparison.json")
        r = subprocess.run([exe, "judge", "lab", "--json", path, "-"], input=json.dumps(doc),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise RuntimeError("%s judge lab: exit %d: %s" % (exe, r.returncode,
                                                              r.stderr.strip()))
        with open(path) as f:
            return json.load(f), r.stdout


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
