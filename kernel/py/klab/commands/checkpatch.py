# SPDX-License-Identifier: GPL-2.0
"""klab checkpatch: scripts/checkpatch.pl --strict on every patch of every
design; any finding fails the run. --no-signoff: the series carry no
Signed-off-by, which is left to the person who sends them."""
import os
import subprocess

from .. import designs, tree
from ..run import log


def arguments(p):
    designs.add_arguments(p)


def checkpatch(run, cache, chosen):
    src = cache.ensure_tree("lab", run)
    script = os.path.join(src, "scripts", "checkpatch.pl")
    n = 0
    with run.step("checkpatch --strict"):
        for d in chosen:
            for p in d.patches:
                n += 1
                r = subprocess.run(["perl", script, "--strict", "--no-signoff", "--root=" + src,
                                    p], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   text=True)
                summary = [x for x in r.stdout.split("\n") if x.startswith("total:")]
                if r.returncode != 0 or not summary or \
                        "0 errors, 0 warnings, 0 checks" not in summary[0]:
                    run.fail("checkpatch --strict %s/%s:\n%s" % (d.name, os.path.basename(p),
                                                                 r.stdout[-3000:]))
    log("checkpatch --strict: %d patches" % n)


def main(run, args):
    checkpatch(run, tree.Cache(), designs.from_args(args))
