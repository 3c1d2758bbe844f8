# SPDX-License-Identifier: GPL-2.0
"""klab check (make check-kernel), the CI part: the lab's host tests
(tests/kernel/, run by path), then per design as the CI plan says
(kernel/ci.tsv, klab/ci.py): checkpatch --strict and the per-patch W=1
compile of every series, a short lab run of the designs it boots, the
short workloads of its work designs, the selftests and kcheck of its
selftests designs against mainline's baseline, the torture of its
torture designs' debug kernels, the short lab on UML of its uml designs,
and klab idreuse (QEMU or UML) when a design's row names it. --all: every stage
on every design."""
import subprocess
import sys

from .. import build, ci, designs, guest, paths, tree
from ..run import log
from . import checkpatch, compile_check, idreuse, kunit, lab, selftests, torture, work


def arguments(p):
    designs.add_arguments(p)
    p.add_argument("--all", action="store_true",
                   help="every stage on every design, not the CI plan's (kernel/ci.tsv)")
    lab.add_clock_argument(p)


def host_tests(run):
    """tests/kernel/test_*.py, as a separate process (the product does not
    import its tests)."""
    with run.step("host tests (tests/kernel)"):
        r = subprocess.run([sys.executable, "-m", "unittest", "discover", "-s",
                            paths.HOST_TESTS, "-p", "test_*.py"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        run.fail("host tests (tests/kernel) failed:\n" + r.stdout[-3000:])


def main(run, args):
    cache = tree.Cache()
    chosen = designs.from_args(args)
    plan = ci.plan(chosen, args.all)
    text = ci.words(plan)
    print(text)
    run.save("ci-plan.txt", text + "\n")
    by_name = {d.name: d for d in chosen}

    def stage(name):
        return [by_name[n] for n in plan.stages[name]]
    host_tests(run)
    checkpatch.checkpatch(run, cache, chosen)
    progs = guest.compile_programs(run)
    compile_check.compile_designs(run, cache, chosen)
    booted = stage("boot")
    if booted:
        images = build.build_all(cache, "lab", booted, run)
        lab.lab(run, booted, images, progs["klab-guest"], "short", 1, args.clock)
    worked = stage("work")
    if worked:
        images = build.build_all(cache, "lab", worked, run)
        work.work(run, worked, images, progs["kwork"], "short", 1)
    tested = stage("selftests")
    if tested:
        images = build.build_all(cache, "lab", tested, run)
        selftests.selftests(run, tested, images, guest.compile_selftests(cache, run))
    tortured = stage("torture")
    if tortured:
        dbg = build.build_all(cache, "debug", tortured, run)
        torture.torture(run, tortured, dbg, progs["ktorture"], "short")
    on_uml = stage("uml")
    if on_uml:
        images = build.build_all(cache, "uml", on_uml, run)
        lab.lab(run, on_uml, images, progs["klab-guest"], "short", 1, args.clock, "uml")
    if plan.stages["idreuse"]:
        idreuse.window(run, cache)
    if plan.stages["idreuse-uml"]:
        idreuse.window(run, cache, machine="uml")
    suites = [d for d in stage("kunit") if kunit.has_suite(d)]
    if suites:
        kunit.kunit(run, suites)
    log("CI plan done: %s" % "; ".join("%s %d" % (s, len(plan.stages[s])) for s in ci.STAGES))
