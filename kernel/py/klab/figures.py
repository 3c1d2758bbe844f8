# SPDX-License-Identifier: GPL-2.0
"""The figures the 7.3 series' cover letters and changelogs quote, checked
against the committed results they come from (tests/kernel/test_figures.py,
make check; no kernel needed).

A message is a cover letter's text (0000-*.patch below its header, or a
<design>.cover beside the series) or a patch's changelog (below its header,
above the `---`). A figure in it is a number with a unit or a count: a
ratio (1.81x), a time or size (1.5 s, 211 ms, 78 KB, 12%), "N of M", or a
count of things (352 dentries, 3 boots). The manifest,
kernel/patches/figures.tsv, names for each quote that holds figures where
they come from, one row each, tab-separated:

  FILE     the message's file under kernel/patches/ (a glob: the copies of
           one patch in several series share a row)
  QUOTE    text of the message (white space as in one line) holding figures
  RESULTS  the committed results file, from the repository's top
  WHERE    where in RESULTS: `text:LITERAL` (&& between several), text the
           file holds; or `table:SECTION/METRIC/KERNEL`, the cell of a klab
           verdict table (a `== SECTION` heading, a row METRIC, the column
           kernel:KERNEL: the value line and the ratio line under it)

The check fails on a figure no row's quote covers, a quote the message does
not hold, a results file that does not exist, a WHERE the file does not
hold, and a number of a quote's figure that is not in its WHERE (times
compared in one unit: 1.5 s is 1500 ms). It also fails on a cover letter's
"N/M" whose M is not the number of the series' patches, and on a series
whose cover letter does not end in the `base-commit:` of its base
(base_commit(): the commit kernel/scripts/base-tree makes of the base's
tarball, bases.Base.commit), or that has none.
"""
import csv
import fnmatch
import glob
import os
import re

FIGURE_RE = re.compile(
    r"(?<![\w.])\d+(?:\.\d+)?(?:"
    r"x?-\d+(?:\.\d+)?x(?![\w])"                               # 2.7x-6.0x
    r"|x(?![\w])"                                              # 1.81x
    r"|\s?%"
    r"|\s(?:ns|us|µs|ms|s|kB|KB|MB|MiB|GiB|KiB)(?![\w])"
    r"|\sof\s\d+(?![\w.])"
    r"|\s(?:dentries|objects|THPs|boots|rounds|samples|runs)(?![\w])"
    r")")
NUMBER_RE = re.compile(r"(?<!\w)(?<!\d\.)(\d+(?:\.\d+)?)\s?(ns|us|µs|ms|s)?(?![\w])")
TIME = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
TABLE_WHERE = re.compile(r"^table:([^/]+)/([^/]+)/(.+)$")
NM_RE = re.compile(r"(?<![\w/.])(\d+)/(\d+)(?![\w/.])")


def normal(text):
    return re.sub(r"\s+", " ", text).strip()


def message(path):
    """The message text of @path: a cover letter's or changelog's body."""
    with open(path, errors="replace") as f:
        text = f.read()
    if path.endswith(".cover"):
        return text
    _, _, body = text.partition("\n\n")
    if not os.path.basename(path).startswith("0000-"):
        body = body.split("\n---\n", 1)[0]
    return body


def figures(text):
    """[(start, end, figure)] of normal(@text)."""
    return [(m.start(), m.end(), m.group()) for m in FIGURE_RE.finditer(normal(text))]


def numbers(text):
    """The numbers of @text, a time also in seconds: a set of floats, and
    the set of the times in seconds."""
    plain, times = set(), set()
    for m in NUMBER_RE.finditer(text):
        v = float(m.group(1))
        plain.add(v)
        if m.group(2):
            times.add(round(v * TIME[m.group(2)], 12))
    # a ratio printed x1.81 in a table
    for m in re.finditer(r"x(\d+(?:\.\d+)?)", text):
        plain.add(float(m.group(1)))
    return plain, times


def table_cell(text, section, metric, kernel):
    """The value and ratio lines' cell of @kernel in row @metric of the
    verdict table under `== @section`; None when there is none."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if not line.startswith("== %s " % section) and line != "== " + section:
            continue
        header = None
        for j in range(i + 1, len(lines)):
            if lines[j].startswith("== "):
                break
            if header is None and lines[j].lstrip().startswith("metric "):
                header = lines[j]
                cols = [(m.start(), m.group()[len("kernel:"):])
                        for m in re.finditer(r"kernel:\S+", header)]
                continue
            if header is not None and lines[j].split()[:1] == [metric]:
                names = [c[1] for c in cols]
                if kernel not in names:
                    return None
                k = names.index(kernel)
                start = cols[k][0]
                end = cols[k + 1][0] if k + 1 < len(cols) else None
                ratio = lines[j + 1] if j + 1 < len(lines) else ""
                return (lines[j][start:end] + " " + ratio[start:end]).strip()
    return None


def where_text(repo, results, where):
    """The text @where names in @results (under @repo), or None."""
    path = os.path.join(repo, results)
    if not os.path.isfile(path):
        return None
    with open(path, errors="replace") as f:
        text = f.read()
    m = TABLE_WHERE.match(where)
    if m:
        return table_cell(text, *m.groups())
    if not where.startswith("text:"):
        return None
    parts = [p.strip() for p in where[len("text:"):].split("&&")]
    flat = normal(text)
    if all(normal(p) in flat for p in parts):
        return " ".join(parts)
    return None


def read_manifest(path):
    rows = []
    with open(path, newline="") as f:
        for n, row in enumerate(csv.reader(f, delimiter="\t"), 1):
            if not row or row[0].startswith("#"):
                continue
            if len(row) != 4:
                raise ValueError("%s:%d: %d fields, want 4" % (path, n, len(row)))
            rows.append((n,) + tuple(row))
    return rows


def figure_in(fig, plain, times):
    """Are the numbers of figure @fig among @plain (or @times)?"""
    unit = re.search(r"(ns|us|µs|ms|s)$", fig)
    for v in re.findall(r"\d+(?:\.\d+)?", fig):
        v = float(v)
        if unit and not fig.rstrip().endswith(("x", "%")):
            if round(v * TIME[unit.group(1)], 12) not in times and v not in plain:
                return False
        elif v not in plain:
            return False
    return True


def series_patches(d):
    return sorted(p for p in glob.glob(os.path.join(d, "0*.patch"))
                  if not os.path.basename(p).startswith("0000-"))


def check(repo, patches_dir, manifest, messages):
    """The findings (strings) for @messages (paths under @patches_dir)
    against @manifest (rows of read_manifest)."""
    bad = []
    for n, pat, quote, results, where in manifest:
        files = [m for m in messages
                 if fnmatch.fnmatch(os.path.relpath(m, patches_dir), pat)]
        if not files:
            bad.append("figures.tsv:%d: no message matches %s" % (n, pat))
        for m in files:
            if normal(quote) not in normal(message(m)):
                bad.append("figures.tsv:%d: %s does not say: %s" % (
                    n, os.path.relpath(m, patches_dir), quote))
        got = where_text(repo, results, where)
        if got is None:
            bad.append("figures.tsv:%d: %s does not hold %s" % (n, results, where))
            continue
        plain, times = numbers(got)
        for _, _, fig in figures(quote):
            if not figure_in(fig, plain, times):
                bad.append("figures.tsv:%d: %r is not what %s says (%s: %s)" % (
                    n, fig, results, where, got))
    for m in messages:
        rel = os.path.relpath(m, patches_dir)
        text = normal(message(m))
        spans = []
        for n, pat, quote, _, _ in manifest:
            if fnmatch.fnmatch(rel, pat):
                i = text.find(normal(quote))
                while i >= 0:
                    spans.append((i, i + len(normal(quote))))
                    i = text.find(normal(quote), i + 1)
        for s, e, fig in figures(text):
            if not any(a <= s and e <= b for a, b in spans):
                bad.append("%s: %r has no source in figures.tsv" % (rel, fig))
    return bad


def cover_numbering(d, cover):
    """Findings for the N/M of @cover: M must be the number of patches of
    series @d, N at most M."""
    total = len(series_patches(d))
    bad = []
    for m in NM_RE.finditer(normal(message(cover))):
        n, of = int(m.group(1)), int(m.group(2))
        if of != total or not 1 <= n <= of:
            bad.append("%s: %s, but the series has %d patches" % (
                os.path.basename(cover), m.group(), total))
    return bad


BASE_COMMIT_RE = re.compile(r"^base-commit: ([0-9a-f]{40})$", re.M)


def base_commit(d, commit):
    """Findings for series @d against its base's commit @commit: it needs a
    cover letter whose last line is `base-commit: @commit`, and no other
    base-commit line in the series."""
    name = os.path.basename(d)
    covers = sorted(glob.glob(os.path.join(d, "0000-*.patch")))
    if len(covers) != 1:
        return ["%s: %d cover letters, want one with the base-commit" % (name, len(covers))]
    bad = []
    with open(covers[0], errors="replace") as f:
        lines = f.read().rstrip("\n").split("\n")
    m = BASE_COMMIT_RE.match(lines[-1])
    if not m:
        bad.append("%s: the cover letter does not end in a base-commit line" % name)
    elif m.group(1) != commit:
        bad.append("%s: base-commit %s, but the base's commit is %s" % (
            name, m.group(1), commit))
    for p in series_patches(d):
        with open(p, errors="replace") as f:
            if BASE_COMMIT_RE.search(f.read()):
                bad.append("%s: a base-commit line in a patch: %s" % (
                    name, os.path.basename(p)))
    return bad
