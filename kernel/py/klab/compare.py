# SPDX-License-Identifier: GPL-2.0
"""Kernel beside model: klab lab hands the guests' documents (klab-guest, one
per design and boot) and the model's (shrinklab kernel, the same experiments
at the same geometry) to shrinklab judge lab, which joins them metric by
metric, judges which design is better on each side with the verdicts' one
rule and prints the tables (tools/shrinklab/output/beside.c says how).
klab adds what only it knows: each kernel design's model design and notes
(designs.model_design, from the series), the kernel base and the run's
words for the heading, the kernel's clock.

klab work's tables are judged the same way (shrinklab judge work,
workloads.judged()).
"""
import json
import os
import subprocess
import tempfile

from . import bases
from .designs import model_design

BASE = "mainline"
JUDGE_SCHEMA = "klab-judge/1"
CLAIMS_SCHEMA = "klab-claims/1"


def kernel_name(design):
    return design[len("kernel:"):] if design.startswith("kernel:") else design


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


def judge(exe, doc, tables="lab"):
    """shrinklab judge @tables (lab: klab lab's; work: klab work's; the
    shrinklab at @exe) over the judge_input() document @doc: (the
    comparison, as JSON data; the tables' text). RuntimeError with
    shrinklab's message when it fails."""
    with tempfile.TemporaryDirectory(prefix="klab-judge-") as tmp:
        path = os.path.join(tmp, "comparison.json")
        r = subprocess.run([exe, "judge", tables, "--json", path, "-"], input=json.dumps(doc),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise RuntimeError("%s judge %s: exit %d: %s" % (exe, tables, r.returncode,
                                                             r.stderr.strip()))
        with open(path) as f:
            return json.load(f), r.stdout


def judge_claims(exe, doc):
    """shrinklab judge claims (the shrinklab at @exe) over the klab-claims/1
    document @doc: its shrinklab-claims/1 answer, as JSON data.
    RuntimeError with shrinklab's message when it fails."""
    doc = dict(doc, schema=CLAIMS_SCHEMA)
    r = subprocess.run([exe, "judge", "claims", "-"], input=json.dumps(doc),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s judge claims: exit %d: %s" % (exe, r.returncode,
                                                            r.stderr.strip()))
    return json.loads(r.stdout)


class Cells:
    """The figures a table prints, each printed by shrinklab judge claims
    (its cells: tools/shrinklab/lab/claims.c), so klab formats none: a
    first rendering asks (and prints "?"), resolve() gets every answer in
    one call, a second rendering prints them (printed())."""

    def __init__(self, exe):
        self.exe, self.asked, self.answers = exe, {}, {}

    def __call__(self, **cell):
        key = json.dumps(cell, sort_keys=True)
        if key in self.answers:
            return self.answers[key]
        self.asked.setdefault(key, cell)
        return "?"

    def resolve(self):
        """Ask shrinklab every cell asked since the last call: True if any."""
        if not self.asked:
            return False
        keys = list(self.asked)
        answer = judge_claims(self.exe, dict(cells=[self.asked[k] for k in keys]))
        self.answers.update(zip(keys, answer["cells"]))
        self.asked = {}
        return True


def printed(exe, render):
    """The text @render(cells) gives with every figure printed by the
    shrinklab at @exe (Cells)."""
    cells = Cells(exe)
    text = render(cells)
    if cells.resolve():
        text = render(cells)
    if cells.asked:
        raise RuntimeError("a table asked other figures the second time it was rendered")
    return text


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
