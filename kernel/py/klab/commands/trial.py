# SPDX-License-Identifier: GPL-2.0
"""klab try: an outside series through the whole lab in one command, beside
mainline and our designs.

    kernel/klab try --series ~/my-series [--name mine] [--config-fragment my.config]
    kernel/klab try --git ~/linux --range v7.3-rc7..my-branch --name mine
    kernel/klab try --series ~/my-series mainline indexed     # beside these only

The stages, in order (STAGES): checkpatch --strict of the outside series
(reported, not failed: the series is not ours), every design built, the
lab's experiments kernel beside model (--geometry, --clock), the workloads
(klab work, short), the cgroup selftests and kcheck against mainline's
baseline, and the torture of the outside design's debug kernel. Any stage's failure fails the run; every
stage runs. --machine auto (default) boots the lab (4 nodes) on QEMU and the
workloads on UML; --machine uml boots both on UML and leaves the selftests
and the torture (QEMU's) out; --machine qemu boots everything on QEMU. Every
boot logs the boots done, to do, and the time left.
"""
import dataclasses
import os

from .. import build, designs, guest, machine, tree
from ..geometry import GEOMETRY, NODES
from . import checkpatch, lab, selftests, torture, work


EPILOG = """example: a series written with `git format-patch` against the run's
base (--base: 7.3-rc7 by default, or 6.12.117), kept anywhere outside the repo:
`kernel/klab try --series /tmp/outside-series --name unlikely-offline mainline`
runs it beside mainline alone (name more designs, or none for every design
of kernel/patches/); results go to $KLAB_OUT/<base>/ (default build-kernel/7.3/).
docs/results/2026-12-01/kernel-lab.md has the measured time of that run."""


def arguments(p):
    p.epilog = EPILOG
    designs.add_arguments(p)
    p.add_argument("--geometry", choices=sorted(GEOMETRY), default="short",
                   help="the lab's geometry (default short)")
    lab.add_clock_argument(p)
    machine.add_argument(p)


@dataclasses.dataclass
class Trial:
    """What the stages share."""
    cache: object
    chosen: list             # mainline, the designs named, the outside one
    outside: object          # the outside Design
    geometry: str
    clock: str
    progs: dict = None       # guest programs
    images: dict = None      # lab images by design
    machine: str = "auto"    # --machine
    uml_images: dict = None  # UML images by design (a stage on UML)

    def on(self, nodes):
        """The machine of a stage whose guests have @nodes nodes."""
        return machine.choose("uml" if self.machine == "uml" else self.machine,
                              1 if self.machine == "uml" else nodes)

    def images_of(self, run, m):
        """The images of machine @m, built the first time they are asked for."""
        if m == "qemu":
            if self.images is None:
                self.images = build.build_all(self.cache, "lab", self.chosen, run)
            return self.images
        if self.uml_images is None:
            self.uml_images = build.build_all(self.cache, "uml", self.chosen, run)
        return self.uml_images


def stage_checkpatch(run, t):
    """checkpatch --strict of the outside series: its findings are printed,
    not counted as failures."""
    mine = type(run)(run.out_dir)
    checkpatch.checkpatch(mine, t.cache, [t.outside])
    run.steps += mine.steps
    text = "\ncheckpatch --strict of %s: %s\n" % (
        t.outside.name, "clean" if not mine.fails else "%d patch(es) with findings" %
        len(mine.fails))
    for f in mine.fails:
        text += "  " + f.replace("\n", "\n  ") + "\n"
    print(text)
    run.save("checkpatch-%s.txt" % t.outside.name, text)


def stage_lab(run, t):
    m = t.on(NODES)
    lab.lab(run, t.chosen, t.images_of(run, m), t.progs["klab-guest"], t.geometry, 1, t.clock,
            m)


def stage_work(run, t):
    """The workloads (klab work), short, one boot per design and workload."""
    m = t.on(1)
    work.work(run, t.chosen, t.images_of(run, m), t.progs["kwork"], "short", 1, clock=t.clock,
              on=m)


def stage_selftests(run, t):
    if t.machine == "uml":
        print("klab try --machine uml: no selftests (QEMU's: a virtio disk and swap)")
        return
    selftests.selftests(run, t.chosen, t.images_of(run, "qemu"),
                        guest.compile_selftests(t.cache, run))


def stage_torture(run, t):
    if t.machine == "uml":
        print("klab try --machine uml: no torture (QEMU's debug kernel: KASAN)")
        return
    dbg = build.build_all(t.cache, "debug", [t.outside], run)
    torture.torture(run, [t.outside], dbg, t.progs["ktorture"], "short")


# (name, stage): run in this order. A stage is stage(run, trial).
STAGES = (
    ("checkpatch", stage_checkpatch),
    ("lab", stage_lab),
    ("work", stage_work),
    ("selftests", stage_selftests),
    ("torture", stage_torture),
)


def main(run, args):
    chosen = designs.from_args(args)
    if not chosen[-1].origin:
        raise SystemExit("klab try: name an outside series: --series DIR, or --git TREE "
                         "--range BASE..TIP (klab try --help)")
    t = Trial(tree.Cache(), chosen, chosen[-1], args.geometry, args.clock,
              machine=args.machine)
    t.progs = guest.compile_programs(run)
    for m in sorted({t.on(NODES), t.on(1)}):
        t.images_of(run, m)
    for name, stage in STAGES:
        with run.step("try: %s" % name):
            try:
                stage(run, t)
            except RuntimeError as e:
                run.fail("%s: %s" % (name, e))
    print("klab try %s (%s): results in %s" % (t.outside.name, t.outside.origin,
                                              os.path.abspath(run.out_dir)))
