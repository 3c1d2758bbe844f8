# SPDX-License-Identifier: GPL-2.0
"""klab spread: how far the kernel's figures move over boots, from saved
`klab lab --boots K` runs, one table per run and the runs side by side.

    kernel/klab lab --geometry short --boots 3 --clock icount mainline   # KLAB_OUT=a
    kernel/klab lab --geometry short --boots 3 --clock wall mainline     # KLAB_OUT=b
    kernel/klab spread "icount=a" "wall=b"

A run is [LABEL=]PATH: a kernel-lab-GEOMETRY.json, or the directory that
holds one. The figures are the guests' own (each boot's median of each
row), nothing is measured here.
"""
import glob
import os
import sys

from .. import compare, model, spread


def arguments(p):
    p.add_argument("runs", nargs="+", metavar="[LABEL=]RUN",
                   help="a kernel-lab-GEOMETRY.json of klab lab, or its directory")
    p.add_argument("--all-rows", action="store_true",
                   help="the side by side table with the exact rows (memory, counts) too")


def lab_json(path):
    if os.path.isdir(path):
        found = sorted(glob.glob(os.path.join(path, "kernel-lab-*.json")))
        if len(found) != 1:
            raise SystemExit("klab spread: %s holds %d kernel-lab-*.json, not one"
                             % (path, len(found)))
        return found[0]
    return path


def host_words(docs):
    """The host's load over the run's boots, from each guest's document."""
    loads = []
    for d in docs:
        hl = d.get("run", {}).get("host_load") or {}
        for k in ("start", "end"):
            if hl.get(k):
                loads.append(float(hl[k].split()[0]))
    if not loads:
        h = (docs[0].get("machine", {}).get("host") or {}) if docs else {}
        return "host load at the start %s" % h.get("load", "unknown")
    return "host loadavg (1 min) at the boots' starts and ends %.2f..%.2f" % (
        min(loads), max(loads))


def run_words(doc):
    docs = doc["kernel"]
    clocks = "; ".join(sorted(set(d["machine"].get("clock", "not recorded") for d in docs)))
    return "%s geometry, %d boot(s) per design; kernel clock: %s; %s" % (
        doc.get("geometry", "?"), doc.get("boots", 0), clocks, host_words(docs))


def main(run, args):
    runs = []
    for spec in args.runs:
        label, eq, path = spec.partition("=")
        if not eq:
            label, path = os.path.basename(os.path.normpath(spec)), spec
        try:
            doc = compare.load(lab_json(path))
        except (OSError, ValueError) as e:
            print("klab spread: %s: %s" % (path, e), file=sys.stderr)
            return 2
        if doc.get("schema") != "klab-lab/1":
            print("klab spread: %s: not a klab lab document (schema %r)"
                  % (path, doc.get("schema")), file=sys.stderr)
            return 2
        runs.append((label, doc["kernel"], run_words(doc)))
    exe = model.shrinklab_path(run)
    runs = [(label, spread.rows(docs, exe), words) for label, docs, words in runs]
    sys.stdout.write(compare.printed(exe, lambda cells: "".join(
        "\n%s%s" % (label, spread.text(rows, cells, words)) for label, rows, words in runs) +
        "\n" + spread.side_by_side(runs, cells, timed_only=not args.all_rows)))
    return 0
