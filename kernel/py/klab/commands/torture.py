# SPDX-License-Identifier: GPL-2.0
"""klab torture: ktorture on each design's debug kernel (KASAN, lockdep,
PROVE_RCU, slub_debug, kmemleak); any splat in the guest's dmesg fails the
run. Each run draws a new seed and prints it; $KLAB_TORTURE_SEED replays one.
The guest gets a swap disk (/dev/vda, sparse on the host), so ktorture's
swap operation drives zswap (stores, loads, writeback) beside its THP
deferred splits."""
import os
import tempfile

from .. import boot, build, designs, guest, tree
from ..boots import checked_boot
from ..geometry import CPUS, NODES
from ..run import log
from .lab import clock_arg

SIZES = dict(short=["--workers", "4", "--ops", "300"], full=["--workers", "4", "--ops", "2000"])
# no5lvl: QEMU's "-cpu max" offers LA57 under TCG, and with 5-level paging
# an interrupt that arrives while the boot CPU is still being identified made
# KASAN report a wild access in rcu_is_watching() at 0.015 s of uptime, long
# before /init (once in 13 debug boots, on lru-index, whose patches run
# nothing at boot). The debug kernels boot with 4-level paging.
#
# acpi=noirq: on the debug kernel the ACPI interpreter ran QEMU's _PRT
# method past ACPICA's 30 s loop timeout (2026-12-01, on the wall clock and
# on icount alike), so the swap disk's PCI interrupt was never routed and its
# first read never completed; the BIOS's PIRQ table routes it instead.
DEBUG_APPEND = "slub_debug=FZPU no5lvl acpi=noirq"
# The guest's swap disk (zswap writes back to it).
SWAP_BYTES = 256 << 20


def arguments(p):
    designs.add_arguments(p)
    p.add_argument("--geometry", choices=sorted(SIZES), default="short",
                   help="operations per worker: short (CI) or full")
    p.add_argument("--clock", default="wall", type=clock_arg,
                   help="the guests' clock: wall (default) or icount[=N]")


def torture_seed():
    """$KLAB_TORTURE_SEED replays a run; otherwise a new seed per run (the
    guest prints it first), so successive CI runs try other interleavings."""
    s = os.environ.get("KLAB_TORTURE_SEED")
    if s is not None:
        if not s.isdigit():
            raise SystemExit("klab: KLAB_TORTURE_SEED=%r is not a number" % s)
        return int(s)
    return int.from_bytes(os.urandom(4), "little") or 1


def torture(run, chosen, images, prog, size, clock="wall"):
    seed = torture_seed()
    log("torture seed %d (KLAB_TORTURE_SEED=%d replays it)" % (seed, seed))
    for d in chosen:
        label = "torture-%s" % d.name
        with tempfile.TemporaryDirectory(prefix="klab-swap-") as tmp:
            swap = os.path.join(tmp, "swap.img")
            with open(swap, "wb") as f:
                f.truncate(SWAP_BYTES)
            r = checked_boot(run, label, boot.BootSpec(
                kernel=images[d.name], prog=prog,
                args=SIZES[size] + ["--seed", str(seed), "--swap", "/dev/vda"],
                cpus=CPUS, nodes=NODES, mem=2048, timeout=2400, append=DEBUG_APPEND,
                disks=[swap], clock=clock))  # ktorture itself swaps on (--swap)
        if r.status not in (0, None):
            run.fail("%s: ktorture exited %d (see %s)" % (label, r.status,
                                                          run.path(label + ".out")))
        print(r.stdout)


def main(run, args):
    chosen = designs.from_args(args)
    images = build.build_all(tree.Cache(), "debug", chosen, run)
    torture(run, chosen, images, guest.compile_programs(run)["ktorture"], args.geometry,
            args.clock)
