# SPDX-License-Identifier: GPL-2.0
"""The command table and the dispatch (the style of tools/shrinklab/main.c:
one row per command; `klab --help` prints the table)."""
import argparse
import dataclasses
import os
import sys

from . import bases, boot, designs, packages, paths
from .commands import boot as boot_cmd
from .commands import (build, check, checkpatch, compile_check, idreuse, kunit, lab,
                       profile, reproduce, selftests, spread, thpfail, torture, trial, work)
from .run import Run, log


@dataclasses.dataclass(frozen=True)
class Command:
    name: str
    summary: str
    arguments: object        # arguments(parser)
    main: object             # main(run, args)
    run: bool = True         # a Run: packages, step times and the verdict


COMMANDS = (
    Command("boot", "boot a kernel, run one static program in it (kernel/boot)",
            boot_cmd.arguments, boot_cmd.main, run=False),
    Command("build", "build the kernels: [--config lab|debug|all] [DESIGN...]",
            build.arguments, build.main),
    Command("lab", "the guests' experiments, kernel beside model (make kernel-lab)",
            lab.arguments, lab.main),
    Command("work", "the workloads with objects under real reclaim, a verdict table each",
            work.arguments, work.main),
    Command("profile", "where a workload's time goes: perf record -g in each design's lab "
            "kernel, the time split per function", profile.arguments, profile.main),
    Command("reproduce", "the seeds' tables on real kernels beside the seeds' and the "
            "model's figures, with verdicts", reproduce.arguments, reproduce.main),
    Command("selftests", "the cgroup selftests against mainline's baseline",
            selftests.arguments, selftests.main),
    Command("torture", "ktorture on the debug kernels, dmesg checked",
            torture.arguments, torture.main),
    Command("idreuse", "the id-reuse window: mainline strands objects, fix-id-reuse "
            "does not (kcheck_reuse, debug delay)", idreuse.arguments, idreuse.main),
    Command("thpfail", "the THP queue's unit under failure injection: array-ondemand and "
            "seed-xarray strand no THP, their controls do (kcheck_thpfail)",
            thpfail.arguments, thpfail.main),
    Command("kunit", "the KUnit suite of the shrinker bookkeeping (kunit.py run on UML) "
            "in the series that carry it, beside mainline's control", kunit.arguments,
            kunit.main),
    Command("checkpatch", "checkpatch.pl --strict on every patch", checkpatch.arguments,
            checkpatch.main),
    Command("compile", "every patch's touched objects at W=1, one patch at a time "
            "(bisectable)", compile_check.arguments, compile_check.main),
    Command("check", "CI (make check-kernel): host tests, checkpatch, builds, short lab, "
            "selftests, torture", check.arguments, check.main),
    Command("spread", "how far saved lab runs' figures move over boots (klab lab --boots K), "
            "runs side by side", spread.arguments, spread.main, run=False),
    Command("try", "an outside series through checkpatch, lab, work, selftests, torture, "
            "beside ours", trial.arguments, trial.main),
)

BASES = """bases (--base, every command but boot and spread): the kernel a series is against
  7.3    Linux 7.3-rc7 (Debian linux-source-7.3 7.3~rc7-1~exp1, fetched from suite
         experimental with a private apt setup under $KLAB_CACHE/apt73/): the default
  6.12   Linux 6.12 (bookworm's linux-source-6.12, as installed: 6.12.117, 6.12.118 by
         2026-12-04; the tables name the version built): the fixes as stable backports
         (kernel/patches/stable-6.12/) and the 6.12 design series (history-6.12/,
         built when named)
  without --base: the base of the designs named (7.3 if they are on both, or none is)
  each base has its own trees, configs, images and results ($KLAB_OUT/<base>/)"""

OUTSIDE = """designs: mainline, and each directory of kernel/patches/ with *.patch (a
git format-patch series; its file `base` names its base; kernel/patches/README.md).
A series from outside the repo, on every command that takes designs:
  --series DIR                       a directory of patches (cover letters skipped)
  --git TREE --range BASE..TIP       git format-patch of a range (BASE: the run's base,
                                     e.g. v7.3-rc7 in a git tree of it)
  --name NAME                        its name (default: the directory's or the tip's)
  --config-fragment FILE             config lines it builds with (in trees of its own)
e.g. klab try --series ~/fix --name myfix   (lab, work, selftests, torture, beside ours)
     klab lab --geometry short --git ~/linux --range v7.3-rc7..topic mainline"""

MACHINES = """machines (--machine on boot, lab, work, reproduce and try):
  uml    User-Mode Linux: the kernel built with ARCH=um (klab build --config uml) runs
         natively as a host process, on the host's clock (wall), 1 node (1 CPU on 6.12)
  qemu   QEMU TCG: NUMA nodes, the cgroup selftests' disks, the debug kernels; --clock
         icount (default) or wall
  auto   (work, reproduce, try: the default) uml for 1-node guests, qemu for NUMA"""

ENVIRONMENT = """environment:
  KLAB_BASE           the base when --base is not given (what --base sets for the klab
                      runs a run starts)
  KLAB_CACHE          source and build trees, kept images (default /var/cache/libshrinker)
  KLAB_OUT            results (default build-kernel/ in the repo)
  KLAB_JOBS           make -j (default: the number of CPUs)
  KLAB_TORTURE_SEED   replays a torture run (by default each run draws a seed)
  KLAB_TIMEOUT_FACTOR every guest's timeout times this (default 1: a loaded host)
  KLAB_SHRINKLAB      the shrinklab binary of the model runs (default: build/, built)
  KLAB_UML_PERF       a directory: each UML boot's host profile (perf record) goes there"""


def usage(out):
    print("usage: klab <command> [options]   (klab <command> --help: its options)\n\n"
          "commands:", file=out)
    for c in COMMANDS:
        print("  %-11s %s" % (c.name, c.summary), file=out)
    print("\n" + BASES + "\n\n" + MACHINES + "\n\n" + OUTSIDE + "\n\n" + ENVIRONMENT + "\n\nkernel/README.md has the details.",
          file=out)


def find(name):
    return next((c for c in COMMANDS if c.name == name), None)


def main(argv):
    if not argv or argv[0] in ("-h", "--help", "help"):
        if len(argv) >= 2 and argv[0] == "help" and find(argv[1]):
            argv = [argv[1], "--help"]
        else:
            usage(sys.stdout if argv else sys.stderr)
            return 0 if argv else 2
    cmd = find(argv[0])
    if cmd is None:
        print("klab: unknown command %r (klab --help)" % argv[0], file=sys.stderr)
        return 2
    p = argparse.ArgumentParser(prog="klab " + cmd.name, description=cmd.summary)
    cmd.arguments(p)
    if cmd.run:
        bases.add_argument(p)
    args = p.parse_args(argv[1:])
    if not cmd.run:
        return cmd.main(None, args)
    bases.select(bases.resolve(args.base or os.environ.get("KLAB_BASE"),
                               designs.bases_of(getattr(args, "designs", None) or [])))
    run = Run(paths.out_dir())
    log("%s: base %s; cache %s; output %s" % (cmd.name, bases.current().words(),
                                              paths.cache_dir(), run.out_dir))
    try:
        packages.install(run)
        cmd.main(run, args)
    except (RuntimeError, boot.BootError) as e:
        run.fail(str(e))
    text = run.times_text()
    print(text)
    run.save("times.txt", text)
    if run.fails:
        print("klab %s: FAILED\n  - %s" % (cmd.name, "\n  - ".join(run.fails)), file=sys.stderr)
        return 1
    print("klab %s: ok" % cmd.name)
    return 0
