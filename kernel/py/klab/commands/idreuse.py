# SPDX-License-Identifier: GPL-2.0
"""klab idreuse: the id-reuse window of shrink_slab_memcg(), shown open on
the base's mainline and closed by fix-id-reuse.

Two kernels of the run's base, each with the debug delay that widens the
window (kernel/patches/debug/stale-bit-delay-mainline.patch on mainline,
debug/stale-bit-delay.patch on top of fix-id-reuse: a parameter that
sleeps between the lookup that finds an id free and clear_bit()), boot
kcheck's kcheck_reuse: per round a memcg fills a procfs mount's dentries,
the mount goes, a drop_caches meets its stale bit and sleeps 1.5 s while a
new procfs mount takes the same id and fills its list in the memcg; then
reclaim must reach every object. Expected: mainline strands objects in
every round whose walk slept on the stale bit (kcheck_reuse "not ok"), the
fix in none ("ok"). The run fails when either does otherwise, or when no
walk slept on a stale bit (the window was never opened: nothing shown).
"""
import dataclasses
import json
import os
import re
import time

from .. import bases, boot, build, designs, guest, paths, tree
from ..boots import checked_boot
from ..geometry import CPUS, NODES

MAINLINE_DELAY = "stale-bit-delay-mainline.patch"
DELAY_MS = 1500     # what kcheck_reuse writes to stale_bit_delay_ms (kcheck.c)
FIX_DELAY = "stale-bit-delay.patch"
FIX = "fix-id-reuse"
ROUND_RE = re.compile(r"reuse: round (\d+): (\d+) objects left after reclaim")
SLEPT_RE = re.compile(r"shrinker: .* stale bit \d+ node \d+ memcg \d+, waiting \d+ ms")


# --machine: the config the two kernels are built with and the nodes a boot has.
MACHINES = {"qemu": ("lab", NODES), "uml": ("uml", 1)}


def arguments(p):
    p.add_argument("--rounds", type=int, default=6,
                   help="kcheck_reuse rounds per boot (default 6)")
    p.add_argument("--boots", type=int, default=1, help="boots per kernel (default 1)")
    p.add_argument("--machine", choices=sorted(MACHINES), default="qemu",
                   help="qemu (default: TCG, %d vCPUs, %d fake nodes, the lab config) or uml "
                        "(User-Mode Linux, the uml config: 1 node, %d CPUs where the base's "
                        "UML has SMP)" % (CPUS, NODES, CPUS))


def kernels(patches_dir=None):
    """(mainline with the delay, fix-id-reuse with the delay) of the run's base."""
    patches_dir = patches_dir or paths.PATCHES
    debug = os.path.join(patches_dir, "debug")
    fix = {d.name: d for d in designs.in_repo(patches_dir, history=True)}.get(FIX)
    if fix is None:
        raise SystemExit("klab idreuse: no %s on base %s" % (FIX, bases.current().name))
    open_ = designs.Design("mainline+delay", (os.path.join(debug, MAINLINE_DELAY),))
    closed = designs.Design(FIX + "+delay", fix.patches + (os.path.join(debug, FIX_DELAY),))
    return open_, closed


@dataclasses.dataclass
class Boot:
    kernel: str
    tap: str            # "ok", "not ok", "skip" or "none"
    left: list          # objects left per round
    slept: int          # walks that slept on a stale bit (dmesg)
    status: int


def parse(kernel, r):
    text = (r.stdout or "") + "\n" + (r.console or "")
    tap = "none"
    for line in (r.stdout or "").splitlines():
        m = re.match(r"^(ok|not ok) \d+ kcheck_reuse( # SKIP)?", line)
        if m:
            tap = "skip" if m.group(2) else m.group(1)
    left = {}
    for m in ROUND_RE.finditer(text):
        left[int(m.group(1))] = int(m.group(2))
    return Boot(kernel, tap, [left[k] for k in sorted(left)],
                len(SLEPT_RE.findall(r.dmesg or r.console or "")), r.status)


def verdict(boots, open_name, closed_name):
    """The failures of @boots (a list of Boot): the window must show on
    @open_name and not on @closed_name."""
    bad = []
    for b in boots:
        if b.slept == 0:
            bad.append("%s: no walk slept on a stale bit: the window was not opened"
                       % b.kernel)
        if b.kernel == open_name and (b.tap != "not ok" or not any(b.left)):
            bad.append("%s: kcheck_reuse %s, objects left %s: the window did not strand "
                       "anything" % (b.kernel, b.tap, b.left))
        if b.kernel == closed_name and (b.tap != "ok" or any(b.left)):
            bad.append("%s: kcheck_reuse %s, objects left %s: the fix stranded objects"
                       % (b.kernel, b.tap, b.left))
    return bad


def document(boots, rounds, machine):
    """The run's JSON: what it ran on, when, and every boot."""
    return {"base": bases.current().words(), "machine": machine,
            "cpus": CPUS, "nodes": MACHINES[machine][1], "clock": "wall",
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "rounds": rounds, "stale_bit_delay_ms": DELAY_MS,
            "boots": [dataclasses.asdict(b) for b in boots]}


def table(boots, rounds, machine="qemu"):
    lines = ["id-reuse window (kcheck_reuse, %d rounds, stale-bit delay %d ms; base %s; "
             "machine %s, %d CPUs, %d node(s); wall clock; %s)" % (
                 rounds, DELAY_MS, bases.current().words(), machine, CPUS, MACHINES[machine][1],
                 time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())),
             "  %-22s %-4s %-7s %-9s %-8s %s" % ("kernel", "boot", "TAP", "stranded",
                                                  "slept", "objects left per round")]
    for i, b in enumerate(boots):
        lines.append("  %-22s %-4d %-7s %-9s %-8d %s" % (
            b.kernel, i // 2, b.tap, "%d/%d" % (sum(1 for x in b.left if x), len(b.left)),
            b.slept, " ".join(str(x) for x in b.left)))
    lines.append("  (stranded: rounds with objects left; slept: walks that slept on a stale "
                 "bit, from dmesg)")
    return "\n".join(lines) + "\n"


def main(run, args):
    if args.rounds < 1 or args.boots < 1:
        raise SystemExit("klab idreuse: --rounds and --boots must be at least 1")
    window(run, tree.Cache(), args.rounds, args.boots, args.machine)


def window(run, cache, rounds=6, nboots=1, machine="qemu"):
    """Build the two kernels for @machine, boot each @nboots times
    (@rounds rounds a boot), save the table and fail @run on the verdict's
    findings (klab idreuse, and klab check's idreuse stage)."""
    config, nodes = MACHINES[machine]
    open_, closed = kernels()
    images = build.build_all(cache, config, [open_, closed], run)
    kcheck = guest.compile_selftests(cache, run)["kcheck"]
    boots = []
    for k in range(nboots):
        for d in (open_, closed):
            r = checked_boot(run, "idreuse-%s-%d" % (d.name, k), boot.BootSpec(
                kernel=images[d.name], prog=kcheck, args=["--rounds", str(rounds),
                                                          "kcheck_reuse"],
                cpus=CPUS, nodes=nodes, mem=2048, timeout=600 + 60 * rounds,
                machine=machine))
            boots.append(parse(d.name, r))
    text = table(boots, rounds, machine)
    print(text)
    name = "idreuse" if machine == "qemu" else "idreuse-" + machine
    run.save(name + ".txt", text)
    run.save(name + ".json", json.dumps(document(boots, rounds, machine), indent=1))
    for msg in verdict(boots, open_.name, closed.name):
        run.fail("idreuse: " + msg)
