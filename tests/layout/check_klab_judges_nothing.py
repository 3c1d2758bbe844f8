#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""klab orchestrates (build, boot, collect); shrinklab judges and prints
(shrinklab judge, tools/shrinklab/lab/verdict.c). This checks kernel/py
against that, three ways, on every .py file:

  rule     a verdict rule: SAME_LO, SAME_HI or SIZE_FACTOR assigned, or a
           function classify, size_class, cls_word or ratio_of defined;
  format   a figure formatted: a string with a float conversion (%.3g,
           %.2f, {:.1f}, ...);
  metric   a string (docstrings aside) that names a metric of
           data/kernel_metrics.tsv, data/kernel_workloads.tsv or
           data/seed_figures.tsv (placeholders stand for what they expand
           to).

What is still there is listed below, per file and kind, with its count as
a cap and the reason; a file over its cap, a kind in a file not listed,
or a listed kind the file no longer has (the list cannot go stale) fails.
Moving a judge out of klab lowers a cap or removes a row; nothing adds one
without saying why here.

usage: check_klab_judges_nothing.py SOURCE_ROOT
       check_klab_judges_nothing.py --self-test
"""
import ast
import os
import re
import sys
import tempfile

# (file under kernel/py, kind): (cap, why it is still there)
LEFT = {
    ("klab/workloads.py", "format"): (2, "klab work's summary line: the guests' wall time per "
                                       "boot (not a lab figure)"),
    ("klab/commands/spread.py", "format"): (2, "the host's load average words of a saved "
                                             "run (not a lab figure)"),
    ("klab/commands/profile.py", "format"): (2, "klab profile's heading: the guest's wall "
                                              "time and perf's sampling period (not a lab "
                                              "figure)"),
    ("klab/run.py", "format"): (9, "klab's own step times and progress (not a lab figure)"),
    ("klab/boots.py", "format"): (2, "a boot's wall time and uptime (not a lab figure)"),
    ("klab/record.py", "format"): (2, "the host's load average words (not a lab figure)"),
    ("klab/commands/boot.py", "format"): (2, "klab boot's wall time (not a lab figure)"),
}

RULE = re.compile(r"^\s*(?:SAME_LO|SAME_HI|SIZE_FACTOR)\b[^=\n]*=(?!=)|"
                  r"^\s*def (?:classify|size_class|cls_word|ratio_of)\b", re.M)
FORMAT = re.compile(r"%[-+ 0#]*\d*\.\d+[fgeFGE]|\{[^{}]*:[-+ 0#]*\d*\.\d+[fgeFGE]\}")
SUBS = {"{rung}": r"\d+u", "{cache}": r"[a-z0-9_]+", "{batch}": r"\d+",
        "{level}": r"(?:_no_mounts|_m\d+)?"}


def metric_patterns(root):
    """A regex per metric name of the data files, whole words."""
    out = []
    for name, col, width in (("kernel_metrics.tsv", 2, None), ("kernel_workloads.tsv", 2, None),
                             ("seed_figures.tsv", 2, 8)):
        with open(os.path.join(root, "data", name)) as f:
            for line in f:
                c = line.rstrip("\n").split("\t")
                if line.startswith("#") or len(c) <= col:
                    continue
                if (width and len(c) != width) or (not width and c[0] != "metric"):
                    continue
                rx = re.escape(c[col])
                for k, v in SUBS.items():
                    rx = rx.replace(re.escape(k), v)
                out.append(re.compile(r"(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])" % rx))
    return out


def docstrings(tree):
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) \
                and n.body and isinstance(n.body[0], ast.Expr) and \
                isinstance(n.body[0].value, ast.Constant) and isinstance(n.body[0].value.value, str):
            out.add(id(n.body[0].value))
    return out


def counts(path, metrics):
    """{kind: count} of @path."""
    with open(path) as f:
        src = f.read()
    tree = ast.parse(src, path)
    skip = docstrings(tree)
    fmt, names = 0, set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            fmt += len(FORMAT.findall(n.value))
            if id(n) not in skip:
                names.update(m.group(0) for r in metrics for m in [r.search(n.value)] if m)
    out = {"rule": len(RULE.findall(src)), "format": fmt, "metric": len(names)}
    return {k: v for k, v in out.items() if v}


def check(root, left=LEFT):
    metrics = metric_patterns(root)
    base = os.path.join(root, "kernel", "py")
    found = {}
    for dirpath, _, files in os.walk(base):
        for f in sorted(files):
            if f.endswith(".py"):
                p = os.path.join(dirpath, f)
                for kind, n in counts(p, metrics).items():
                    found[(os.path.relpath(p, base), kind)] = n
    bad = []
    for key, n in sorted(found.items()):
        if key not in left:
            bad.append("kernel/py/%s: %d %s (klab judges nothing: shrinklab judge does; or list "
                       "it in %s with a reason)" % (key[0], n, key[1], os.path.basename(__file__)))
        elif n > left[key][0]:
            bad.append("kernel/py/%s: %d %s, over its cap %d" % (key[0], n, key[1], left[key][0]))
    for key in sorted(set(left) - set(found)):
        bad.append("kernel/py/%s: no %s left: remove its row" % key)
    return bad


def self_test():
    """Planted violations in a scratch tree are found."""
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "data"))
        os.makedirs(os.path.join(tmp, "kernel", "py", "klab"))
        with open(os.path.join(tmp, "data", "kernel_metrics.tsv"), "w") as f:
            f.write("metric\tunits\tslab_bytes_{rung}\tB\treading\t-\tw\n")
        for name in ("kernel_workloads.tsv", "seed_figures.tsv"):
            open(os.path.join(tmp, "data", name), "w").close()
        with open(os.path.join(tmp, "kernel", "py", "klab", "x.py"), "w") as f:
            f.write('"""slab_bytes_12u in a docstring is prose."""\nSAME_LO = 0.8\n'
                    'def classify(r):\n    return "%.3g" % r\nNAME = "slab_bytes_12u"\n')
        bad = check(tmp, {})
        want = ("2 rule", "1 format", "1 metric")
        if len(bad) != 3 or not all(any(w in b for b in bad) for w in want):
            return ["self-test: want %s, found %s" % (want, bad)]
        listed = {("klab/x.py", "rule"): (2, ""), ("klab/x.py", "format"): (1, ""),
                  ("klab/x.py", "metric"): (1, "")}
        if check(tmp, listed):
            return ["self-test: the listed file is still reported"]
        if check(tmp, {**listed, ("klab/x.py", "rule"): (1, "")}) == []:
            return ["self-test: a file over its cap is not reported"]
        if check(tmp, {**listed, ("klab/y.py", "rule"): (1, "")}) == []:
            return ["self-test: a stale row is not reported"]
    return []


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        bad = self_test()
    elif len(argv) == 2:
        bad = check(argv[1])
    else:
        print(__doc__.split("usage:")[1].strip(), file=sys.stderr)
        return 2
    for b in bad:
        print(b)
    if not bad:
        print("check_klab_judges_nothing: ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
