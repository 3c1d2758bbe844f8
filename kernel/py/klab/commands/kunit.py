# SPDX-License-Identifier: GPL-2.0
"""klab kunit: the KUnit suite of the shrinker bookkeeping
(mm/tests/shrinker_kunit.c, a patch of the series that change what it
tests), run by the base's own tools/testing/kunit/kunit.py on User-Mode
Linux, as mm's KUnit tests are run: `kunit.py run --arch=um` with
kernel/config/shrinker.kunitconfig (KUNIT, CGROUPS, MEMCG and the suite's
option, nothing else) in the tree klab-<base>kunit of the cache (its O=
directory build/, one tree for every design: switching design rebuilds
what the series touch).

Designs: those whose series adds the suite (every such design of the base
when none is named; a design named without it is refused), and the
control, mainline with kernel/patches/debug/shrinker-kunit-mainline.patch:
the suite of fix-id-reuse on the unpatched source. Verdict: on a design
every case passes; on the control the cases that test the id-reuse fix
(FIX_CASES) fail and the others pass, or the suite could not tell the bug
from the fix. Each design's kunit.py output and its JSON are saved.
"""
import json
import os
import re
import subprocess
import sys

from .. import bases, designs, paths, tree
from ..run import log

SUITE_FILE = "mm/tests/shrinker_kunit.c"
SUITE = "shrinker"
KUNITCONFIG = os.path.join(paths.KDIR, "config", "shrinker.kunitconfig")
CONTROL = "mainline+kunit"
CONTROL_PATCH = "shrinker-kunit-mainline.patch"
# The cases that test fix-id-reuse: they must fail on mainline.
FIX_CASES = ("shrinker_test_unregistered_keeps_bit", "shrinker_test_reused_id_keeps_bit")
CONFIG = "kunit"
TIMEOUT = 600          # seconds for the suite's boot (kunit.py --timeout)
# The kernel's console of the boot (kunit.py keeps it in the build directory)
CONSOLE = os.path.join("build", "test.log")
# What a kernel that stays silent never prints
SPLAT_RE = re.compile(r"^.*(WARNING:|BUG:|Oops|Call Trace:|possible recursive locking|"
                      r"suspicious RCU usage|general protection fault).*$", re.M)


def arguments(p):
    designs.add_arguments(p, outside=False)
    p.add_argument("--no-control", action="store_true",
                   help="skip the control (mainline with the suite: the fix's cases "
                   "must fail there)")


def has_suite(design):
    return SUITE_FILE in design.touched_files()


def control(patches_dir=None):
    """mainline with the suite (debug/shrinker-kunit-mainline.patch)."""
    patches_dir = patches_dir or paths.PATCHES
    return designs.Design(CONTROL, (os.path.join(patches_dir, "debug", CONTROL_PATCH),))


def chosen_designs(named, available):
    """The designs of @available with the suite, or those @named (each must
    have it)."""
    if not named:
        return [d for d in available if has_suite(d)]
    # mainline has no suite: its run is the control
    picked = [d for d in designs.select(named, available) if d.name != designs.MAINLINE.name]
    without = [d.name for d in picked if not has_suite(d)]
    if without:
        raise SystemExit("klab kunit: %s: no %s in the series" % (", ".join(without),
                                                                  SUITE_FILE))
    return picked


def cases(report):
    """{case: PASS, FAIL, SKIP or ERROR} of suite SUITE in @report (the
    text of kunit.py's --json)."""
    found = {}

    def walk(group, in_suite):
        in_suite = in_suite or group.get("name") == SUITE
        if in_suite:
            for c in group.get("test_cases", []):
                found[c["name"]] = c["status"]
        for g in group.get("sub_groups", []):
            walk(g, in_suite)
    walk(json.loads(report), False)
    return found


def splats(console):
    """The lines of @console (the boot's kernel log) that a silent kernel
    does not print."""
    return [m.group(0).strip() for m in SPLAT_RE.finditer(console or "")]


def verdict(name, results, is_control, console=""):
    """The failures of design @name's @results ({case: status}) and its
    boot's @console."""
    bad = ["%s: the kernel printed %s" % (name, line) for line in splats(console)[:5]]
    if not results:
        return bad + ["%s: no case of suite %s ran" % (name, SUITE)]
    for case, status in sorted(results.items()):
        want = "FAIL" if is_control and case in FIX_CASES else "PASS"
        if status != want:
            bad.append("%s: %s %s, expected %s" % (name, case, status, want))
    if is_control:
        bad += ["%s: %s did not run" % (name, c) for c in FIX_CASES if c not in results]
    return bad


def command(jobs, json_path, kunitconfig=KUNITCONFIG):
    """kunit.py run of the suite, in a source tree's root. Its own make
    command (no ccache: the kunit tree's config is no other tree's, so
    ccache would hit only on a design's earlier contents, and it costs
    its bookkeeping on every object of the cold build)."""
    return [sys.executable, "tools/testing/kunit/kunit.py", "run", "--arch=um",
            "--build_dir=build", "--kunitconfig=" + kunitconfig, "--jobs=" + jobs,
            "--timeout=%d" % TIMEOUT,
            "--json=" + json_path, SUITE]


def _read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def run_suite(run, cache, design):
    """Switch the kunit tree to @design and run the suite: ({case: status},
    kunit.py's output, the kernel's console)."""
    config = bases.current().config_name(CONFIG)
    json_path = run.path("kunit-%s.json" % design.name)
    with cache.locked(config):
        src = cache.switch(config, design, run)
        # No console of an earlier boot, should this one not boot
        if os.path.exists(os.path.join(src, CONSOLE)):
            os.remove(os.path.join(src, CONSOLE))
        with run.step("kunit.py run %s (%s)" % (design.name, config)):
            r = subprocess.run(command(paths.jobs(), json_path), cwd=src,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        console = _read(os.path.join(src, CONSOLE))
    run.save("kunit-%s.txt" % design.name, r.stdout)
    run.save("kunit-%s.console" % design.name, console)
    try:
        return cases(_read(json_path)), r.stdout, console
    except ValueError:
        return {}, r.stdout, console


def table(rows):
    """The cases by design: @rows is [(design, {case: status})]."""
    names = sorted({c for _, res in rows for c in res})
    lines = ["KUnit suite %s (kunit.py run --arch=um, %s; %s)"
             % (SUITE, os.path.relpath(KUNITCONFIG, paths.REPO), bases.current().words())]
    width = max([len(d) for d, _ in rows] + [6])
    lines.append("  %-*s %s" % (width, "design", "  ".join(names)))
    for d, res in rows:
        lines.append("  %-*s %s" % (width, d, "  ".join(
            "%-*s" % (len(c), res.get(c, "-")) for c in names)))
    lines.append("  (%s: mainline with the suite; its %s must fail)"
                 % (CONTROL, ", ".join(FIX_CASES)))
    return "\n".join(lines) + "\n"


def kunit(run, chosen, with_control=True):
    """Run the suite on each design of @chosen (and the control): the table."""
    if bases.current().name != "7.3":
        raise SystemExit("klab kunit: the suite is on 7.3's series (--base 7.3)")
    cache = tree.Cache()
    todo = [(d, False) for d in chosen] + ([(control(), True)] if with_control else [])
    rows = []
    for d, is_control in todo:
        log("kunit: %s" % d.name)
        results, out, console = run_suite(run, cache, d)
        rows.append((d.name, results))
        bad = verdict(d.name, results, is_control, console)
        if bad:
            # No case parsed: kunit.py's own words say why (config, build, boot)
            tail = "" if results else "\n" + out[-1500:]
            run.fail("kunit: " + "; ".join(bad) + tail)
    text = table(rows)
    print(text)
    run.save("kunit.txt", text)
    return rows


def main(run, args):
    chosen = chosen_designs(args.designs, designs.in_repo(history=bool(args.designs)))
    kunit(run, chosen, not args.no_control)
