# SPDX-License-Identifier: GPL-2.0
"""The metrics data file (data/kernel_metrics.tsv): the experiments' rows in
the order the guest (klab-guest) and the model (shrinklab kernel) both
write them. check(doc) lists how a shrinklab/2 document of either side
departs from it, at the geometry its own command line names."""
import dataclasses
import fnmatch
import os
import re

from . import paths

DATA = os.path.join(paths.REPO, "data", "kernel_metrics.tsv")


@dataclasses.dataclass(frozen=True)
class Metric:
    experiment: str
    name: str          # with {rung}, {cache}, {batch}
    unit: str
    kind: str          # timed, reading, fit
    samples: str       # the option that gives a timed row's n ("-": 1)
    what: str


@dataclasses.dataclass(frozen=True)
class Moves:
    """Rows that move against each other over boots for a known cause: a
    metric starting with @prefix, whose whole work is the row @whole with
    the same suffix."""
    prefix: str
    whole: str
    why: str


@dataclasses.dataclass(frozen=True)
class Ratio:
    """A ratio within one design of two rows of one experiment."""
    experiment: str
    numerator: str     # a metric, '*' standing for a number
    denominator: str
    name: str          # its name in the tables


def load(path=DATA):
    """(caches, metrics) of the data file."""
    return _load(path)[:2]


def ratios(path=DATA):
    """The data file's derived ratios, in order."""
    return _load(path)[2]


def moves(path=DATA):
    """The data file's rows that move against each other for a known cause."""
    return _load(path)[3]


def _load(path):
    caches, metrics, ratios_, moves_ = [], [], [], []
    with open(path) as f:
        for i, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            if cols[0] == "cache" and len(cols) == 2:
                caches.append(cols[1])
            elif cols[0] == "metric" and len(cols) == 7 and cols[4] in ("timed", "reading",
                                                                         "fit"):
                metrics.append(Metric(*cols[1:]))
            elif cols[0] == "ratio" and len(cols) == 5 and all(cols[1:]):
                ratios_.append(Ratio(*cols[1:]))
            elif cols[0] == "moves" and len(cols) == 4 and all(cols[1:]):
                moves_.append(Moves(*cols[1:]))
            else:
                raise ValueError("%s:%d: not a cache, metric, ratio or moves row: %r"
                                 % (path, i, line))
    return caches, metrics, ratios_, moves_


def options(doc):
    """{option: value} of the document's command line (--x v pairs)."""
    cmd = doc.get("command", [])
    return {a[2:]: b for a, b in zip(cmd, cmd[1:]) if a.startswith("--")}


def doc_caches(doc, design, path=DATA):
    """The caches @design's rows count, in order: the rows of the data
    file's {cache} metric at the first rung of the document's ladder."""
    m = next(m for m in load(path)[1] if "{cache}" in m.name)
    rung = "%su" % options(doc)["ladder"].split(",")[0]
    pattern = re.compile(re.escape(m.name).replace(re.escape("{cache}"), "(.+)").replace(
        re.escape("{rung}"), re.escape(rung)))
    out = []
    for e in doc["experiments"]:
        for r in e["results"]:
            g = pattern.fullmatch(r["metric"])
            if g and r["design"] == design and e["id"] == m.experiment:
                out.append(g.group(1))
    return out


def expand(metrics, opts, caches):
    """[(experiment, metric, unit, timed, n)] in order, at the geometry @opts.
    Consecutive rows with {rung} repeat as a block, once per rung; a row
    with {cache} repeats once per cache."""
    rungs = ["%su" % u for u in opts["ladder"].split(",")]
    out = []

    def rows(m, rung):
        name = m.name.replace("{batch}", opts["register-batch"]).replace("{rung}", rung or "")
        n = int(opts[m.samples]) if m.kind == "timed" and m.samples != "-" else 1
        for cache in (caches if "{cache}" in name else [None]):
            out.append((m.experiment, name.replace("{cache}", cache or ""), m.unit,
                        m.kind == "timed", n))
    i = 0
    while i < len(metrics):
        j = i + 1
        if "{rung}" in metrics[i].name:
            while j < len(metrics) and "{rung}" in metrics[j].name and \
                    metrics[j].experiment == metrics[i].experiment:
                j += 1
            for rung in rungs:
                for m in metrics[i:j]:
                    rows(m, rung)
        else:
            rows(metrics[i], None)
        i = j
    return out


def check(doc, path=DATA):
    """How @doc (a shrinklab/2 document of the guest or the model) departs
    from the data file: a list of problems, empty when it does not."""
    want_caches, metrics = load(path)
    opts = options(doc)
    need = {"ladder", "register-batch"} | {m.samples for m in metrics if m.samples != "-"}
    missing = sorted(need - set(opts))
    if missing:
        return ["its command line does not name --%s" % ", --".join(missing)]
    problems = []
    designs = []
    for e in doc["experiments"]:
        for r in e["results"]:
            if r["design"] not in designs:
                designs.append(r["design"])
    for d in designs:
        caches = doc_caches(doc, d)
        fixed = [c for c in want_caches if "*" not in c]
        if caches[:len(fixed)] != fixed or not all(
                any(fnmatch.fnmatch(c, p) for p in want_caches if "*" in p)
                for c in caches[len(fixed):]):
            problems.append("%s: caches %s, not %s" % (d, caches, want_caches))
            continue
        want = expand(metrics, opts, caches)
        have = [(e["id"], r["metric"], r["unit"], bool(r["timed"]), r["n"])
                for e in doc["experiments"] for r in e["results"] if r["design"] == d]
        if have == want:
            continue
        for i, (h, w) in enumerate(zip(have + [None] * len(want), want + [None] * len(have))):
            if h != w:
                problems.append("%s: row %d is %s, the data file says %s" % (d, i, h, w))
                break
    return problems
