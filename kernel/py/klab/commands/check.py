# SPDX-License-Identifier: GPL-2.0
"""klab check (make check-kernel), the CI part: the lab's host tests
(tests/kernel/, run by path), checkpatch --strict of every series, every
design built (lab config) with its W=1 report, a short lab run, the
selftests, and the torture of the designs' debug kernels."""
import subprocess
import sys

from .. import build, designs, guest, paths, tree
from . import checkpatch, lab, selftests, torture


def arguments(p):
    designs.add_arguments(p)


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
    host_tests(run)
    checkpatch.checkpatch(run, cache, chosen)
    progs = guest.compile_programs(run)
    tests = guest.compile_selftests(cache, run)
    images = build.build_all(cache, "lab", chosen, run)
    for d in chosen:
        w1 = build.w1_findings(cache, "lab", d)
        if w1:
            run.fail("%s: W=1 warnings in the files its series touches:\n    %s"
                     % (d.name, "\n    ".join(w1)))
    lab.lab(run, chosen, images, progs["klab-guest"], "short", 1)
    selftests.selftests(run, chosen, images, tests)
    # The torture is for the patches: mainline's debug kernel is built and
    # tortured only when it is the sole design (klab torture tortures it on
    # request).
    patched = [d for d in chosen if d.patches] or chosen
    dbg = build.build_all(cache, "debug", patched, run)
    torture.torture(run, patched, dbg, progs["ktorture"], "short")
