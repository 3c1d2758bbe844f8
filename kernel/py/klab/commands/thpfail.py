# SPDX-License-Identifier: GPL-2.0
"""klab thpfail: the THP deferred split queue's shrinker unit comes with its
list_lru list (review A1), shown with failure injection on the 7.3 design
series that allocate units on demand, array-ondemand and seed-xarray.

Per design two kernels of the 7.3 lab config:
  DESIGN+fail       the series and its debug patch that fails every unit
                    allocation a list needs while shrinker.dbg_unit_fail is
                    1 (kernel/patches/debug/unit-fail-7.3.patch for
                    array-ondemand, unit-fail-seed-xarray-7.3.patch for
                    seed-xarray; shrinker.dbg_unit_fail_hits counts them);
  DESIGN+fail+lost  the same and debug/unit-lost-7.3.patch, the control: a
                    unit that cannot be allocated no longer fails the list,
                    so the list goes without its unit and the first
                    set_shrinker_bit() on it finds none and sets no bit, the
                    way the 6.12 series lost the THP queue's bit when its
                    GFP_NOWAIT allocation in set_shrinker_bit() failed.
Each boots kcheck's kcheck_thpfail and kcheck_thp (4 nodes): with the unit
allocations failing, a new cgroup faults THPs in and unmaps half of each,
then memory.reclaim of the cgroup with the failures off; then again without
failures. Expected: DESIGN+fail passes (the failures hit: the THPs fell back
to small pages; no queued THP stranded; the cgroup recovers) and is silent;
DESIGN+fail+lost fails kcheck_thpfail with THPs stranded (queued, never
split: the memcg walk has no bit for them). The run fails otherwise, and
when no unit allocation failed (nothing was injected).
"""
import dataclasses
import json
import os
import re

from .. import bases, boot, build, designs, guest, paths, report, tree
from ..boots import checked_boot
from ..geometry import CPUS, NODES

DESIGNS = {"array-ondemand": "unit-fail-7.3.patch",
           "seed-xarray": "unit-fail-seed-xarray-7.3.patch"}
LOST = "unit-lost-7.3.patch"
CHECKS = ("kcheck_thpfail", "kcheck_thp")
FAILING_RE = re.compile(r"thpfail: unit allocations failing \((-?\d+) failed, -1: not "
                        r"counted\): (\d+) of \d+ THP faults got a THP, (\d+) queued "
                        r"\(count (-?\d+) in the cgroup\); memory\.reclaim x (\d+) split "
                        r"(-?\d+), left (-?\d+)")
AFTER_RE = re.compile(r"thpfail: then without failures: (\d+) of \d+ THPs queued \(count "
                      r"(-?\d+)\); memory\.reclaim x (\d+) split (-?\d+), left (-?\d+)")


def arguments(p):
    p.add_argument("--boots", type=int, default=1, help="boots per kernel (default 1)")
    p.add_argument("designs", nargs="*", metavar="DESIGN",
                   help="of %s (default: both)" % ", ".join(sorted(DESIGNS)))


def kernels(names=None, patches_dir=None):
    """[(fixed, control)] of Design per design named (default: all of
    DESIGNS) of the run's base."""
    patches_dir = patches_dir or paths.PATCHES
    debug = os.path.join(patches_dir, "debug")
    have = {d.name: d for d in designs.in_repo(patches_dir)}
    out = []
    for name in names or sorted(DESIGNS):
        if name not in DESIGNS:
            raise SystemExit("klab thpfail: %s: not one of %s" % (name, ", ".join(
                sorted(DESIGNS))))
        if name not in have:
            raise SystemExit("klab thpfail: no %s on base %s" % (name,
                                                                bases.current().name))
        fail = have[name].patches + (os.path.join(debug, DESIGNS[name]),)
        out.append((designs.Design(name + "+fail", fail),
                    designs.Design(name + "+fail+lost", fail + (os.path.join(debug, LOST),))))
    return out


@dataclasses.dataclass
class Boot:
    kernel: str
    control: bool
    tap: dict           # check name: "ok", "not ok", "skip" or "none"
    failing: list       # hits, faulted, queued, count, rounds, split, left (or [])
    after: list         # queued, count, rounds, split, left (or [])
    splats: int
    first_splat: str
    status: int


def parse(kernel, control, r):
    tap = {c: "none" for c in CHECKS}
    for line in (r.stdout or "").splitlines():
        m = re.match(r"^(ok|not ok) \d+ (\S+)( # SKIP)?", line)
        if m and m.group(2) in tap:
            tap[m.group(2)] = "skip" if m.group(3) else m.group(1)
    text = (r.stdout or "") + "\n" + (r.console or "")
    m, a = FAILING_RE.search(text), AFTER_RE.search(text)
    sp = report.splats(r.dmesg or r.console or "")
    return Boot(kernel, control, tap, [int(x) for x in m.groups()] if m else [],
                [int(x) for x in a.groups()] if a else [], len(sp), sp[0] if sp else "",
                r.status)


def stranded(b):
    """THPs of @b left queued after reclaim, in either phase."""
    left = (b.failing[6] if b.failing else 0) + (b.after[4] if b.after else 0)
    short = ((b.failing[2] - b.failing[5]) if b.failing else 0) + \
            ((b.after[0] - b.after[3]) if b.after else 0)
    return max(left, short, 0)


def verdict(boots):
    """The failures of @boots (a list of Boot)."""
    bad = []
    for b in boots:
        if not b.failing:
            bad.append("%s: kcheck_thpfail printed no figures (tap %s)" % (
                b.kernel, b.tap["kcheck_thpfail"]))
            continue
        if b.failing[0] == 0:
            bad.append("%s: no unit allocation failed: nothing was injected" % b.kernel)
        if b.control:
            if b.tap["kcheck_thpfail"] != "not ok" or not stranded(b):
                bad.append("%s: kcheck_thpfail %s, %d THPs stranded: the control lost no "
                           "bit" % (b.kernel, b.tap["kcheck_thpfail"], stranded(b)))
            continue
        for c in CHECKS:
            if b.tap[c] != "ok":
                bad.append("%s: %s %s" % (b.kernel, c, b.tap[c]))
        if b.splats:
            bad.append("%s: %d splat line(s) in dmesg, first:\n%s" % (
                b.kernel, b.splats, b.first_splat))
    return bad


def table(boots):
    lines = ["THP queue's unit under failure injection (kcheck_thpfail, 16 THPs, "
             "4 nodes; base %s)" % bases.current().words(),
             "  %-28s %-7s %-7s %-6s %-8s %-7s %-6s %-6s %-9s %s" % (
                 "kernel", "thpfail", "thp", "failed", "THPs", "queued", "split", "left",
                 "stranded", "then: queued/split/left")]
    for b in boots:
        f = b.failing or [-1] * 7
        a = b.after or [-1] * 5
        lines.append("  %-28s %-7s %-7s %-6d %-8s %-7d %-6d %-6d %-9d %d/%d/%d%s" % (
            b.kernel, b.tap["kcheck_thpfail"], b.tap["kcheck_thp"], f[0], "%d/16" % f[1],
            f[2], f[5], f[6], stranded(b), a[0], a[3], a[4],
            "  (%d splat lines)" % b.splats if b.splats else ""))
    lines.append("  (failed: unit allocations failed; THPs: faults that got a THP while "
                 "they failed; stranded: queued THPs memory.reclaim left unsplit, both "
                 "phases)")
    return "\n".join(lines) + "\n"


def main(run, args):
    if args.boots < 1:
        raise SystemExit("klab thpfail: --boots must be at least 1")
    pairs = kernels(args.designs)
    cache = tree.Cache()
    ks = [k for pair in pairs for k in pair]
    images = build.build_all(cache, "lab", ks, run)
    kcheck = guest.compile_selftests(cache, run)["kcheck"]
    boots = []
    for n in range(args.boots):
        for fixed, control in pairs:
            for d, is_control in ((fixed, False), (control, True)):
                r = checked_boot(run, "thpfail-%s-%d" % (d.name, n), boot.BootSpec(
                    kernel=images[d.name], prog=kcheck, args=list(CHECKS), cpus=CPUS,
                    nodes=NODES, mem=2048, timeout=900), splats_fail=not is_control)
                boots.append(parse(d.name, is_control, r))
    text = table(boots)
    print(text)
    run.save("thpfail.txt", text)
    run.save("thpfail.json", json.dumps([dataclasses.asdict(b) for b in boots], indent=1))
    for msg in verdict(boots):
        run.fail("thpfail: " + msg)
