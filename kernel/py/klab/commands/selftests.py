# SPDX-License-Identifier: GPL-2.0
"""klab selftests: the kernel's cgroup selftests (test_kmem,
test_memcontrol) in each design's guest, with an ext4 working disk and a
swap disk, judged against mainline's results of the same run by the rule
of flakes.py. --append puts words on every guest's kernel command line
(mainline's too: the baseline boots the same way), e.g.
cgroup_disable=memory or cgroup.memory=nokmem (issue 31's configuration
boots)."""
import json
import os
import tempfile

from .. import bases, boot, build, designs, flakes, guest, report, tree
from ..boots import checked_boot
from ..geometry import CPUS, NODES
from ..paths import GUEST
from ..run import log
from ..shell import sh
from .lab import clock_arg


def arguments(p):
    designs.add_arguments(p)
    p.add_argument("--config", choices=["lab", "debug"], default="lab",
                   help="run them on the lab kernels (default) or the debug kernels")
    p.add_argument("--clock", default="wall", type=clock_arg,
                   help="the guests' clock: wall (default) or icount[=N]")
    p.add_argument("--append", default="", metavar="WORDS",
                   help="more kernel command line for every guest, mainline's too "
                   "(e.g. cgroup_disable=memory, cgroup.memory=nokmem)")


def selftest_boot(run, label, image, tests, clock="wall", append=""):
    """One boot of the selftests; their parsed results."""
    with tempfile.TemporaryDirectory(prefix="klab-disk-") as tmp:
        work = os.path.join(tmp, "work.img")
        swap = os.path.join(tmp, "swap.img")
        for p, size in ((work, 1 << 30), (swap, 512 << 20)):
            with open(p, "wb") as f:
                f.truncate(size)
        sh(["mkfs.ext4", "-q", "-F", work], quiet=True)
        r = checked_boot(run, label, boot.BootSpec(
            kernel=image, prog=os.path.join(GUEST, "selftests.sh"), cpus=CPUS, nodes=NODES,
            mem=2048, timeout=900, files=[(p, "/klab/" + t) for t, p in tests.items()],
            disks=[work, swap], workdisk=True, swapdisk=True, cwd="/work", clock=clock,
            append=append))
    return report.parse_selftests(r.stdout)


def summary_lines(name, res):
    lines = []
    for t in guest.SELFTESTS:
        if res.get(t, {}).get("skipped") and not res[t].get("tests"):
            lines.append("  %-10s %-16s skipped whole: %s" % (name, t, res[t]["skipped"]))
            continue
        tests_ = res.get(t, {}).get("tests", {})
        npass = sum(1 for v in tests_.values() if v == "pass")
        nskip = sum(1 for v in tests_.values() if v == "skip")
        failed = sorted(k for k, v in tests_.items() if v == "fail")
        lines.append("  %-10s %-16s %2d/%-2d passed%s%s" % (
            name, t, npass, len(tests_), " (%d skipped)" % nskip if nskip else "",
            ("; failing: " + ", ".join(failed)) if failed else ""))
    return lines


def selftests(run, chosen, images, tests, clock="wall", append=""):
    """Every design's selftests, each guest with @append on its command
    line; mainline's are the baseline. Returns {design: first boot's
    results}."""
    def one(name, n):
        return selftest_boot(run, "selftests-%s-%d" % (name, n), images[name], tests, clock,
                             append)

    results = {d.name: one(d.name, 0) for d in chosen}
    for d in chosen:
        for t in guest.SELFTESTS:
            r = results[d.name].get(t, {})
            if r.get("tests"):
                continue
            if not r.get("skipped"):
                run.fail("selftests %s: %s produced no results" % (d.name, t))
            elif results.get("mainline", {}).get(t, {}).get("tests"):
                # a whole skip is the configuration's (no memory controller)
                # only where mainline's suite skips as well
                run.fail("selftests %s: %s skips whole (%s), runs on mainline"
                         % (d.name, t, r["skipped"]))
    mainline_again = []   # mainline's second boot, once per run, when the rule needs it

    def boot_mainline_again():
        if "mainline" not in images:
            return None
        if not mainline_again:
            log("selftests: a test failed twice on a design; mainline again")
            mainline_again.append(one("mainline", 1))
        return mainline_again[0]

    lines = []
    base = results.get("mainline", {})
    for d in chosen:
        lines += summary_lines(d.name, results[d.name])
        if d.name == "mainline":
            continue
        j = flakes.judge(base, results[d.name], lambda: one(d.name, 1), boot_mainline_again)
        lines += ["  %-10s FLAKY: %s %s" % (d.name, t, why) for t, why in j.flaky]
        for t in j.regressed:
            run.fail("selftests %s: %s passes on mainline (twice), fails here (twice)"
                     % (d.name, t))
    text = ("\ncgroup selftests (baseline: mainline in this run; base %s%s)\n"
            % (bases.current().words(), "; command line + " + append if append else "") +
            "\n".join(lines) + "\n")
    print(text)
    run.save("selftests.txt", text)
    run.save("selftests.json", json.dumps(results, indent=1))
    return results


def main(run, args):
    cache = tree.Cache()
    chosen = designs.from_args(args)
    images = build.build_all(cache, args.config, chosen, run)
    selftests(run, chosen, images, guest.compile_selftests(cache, run), args.clock,
              args.append)
