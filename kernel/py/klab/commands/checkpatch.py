# SPDX-License-Identifier: GPL-2.0
"""klab checkpatch: scripts/checkpatch.pl --strict on every patch of every
design; any finding fails the run. --no-signoff: the series carry no
Signed-off-by, which is left to whoever sends them (kernel/README.md).
--ignore UNKNOWN_COMMIT_ID: the source is a tarball without mainline's
history, so checkpatch cannot find the commit a Fixes: tag names (it warns
whenever git cannot show the commit)."""
import os
import subprocess

from .. import designs, tree
from ..run import log


def arguments(p):
    designs.add_arguments(p)


def checkpatch_tree(cache, run):
    """A tree of the base with scripts/checkpatch.pl: the lab tree or the
    compile tree, as it is (no series touches scripts/, and a build holding
    a tree's lock for an hour need not hold checkpatch up); when the base
    has neither, the compile tree unpacked under its lock (klab check
    compiles in it next, so a fresh cache unpacks one tree, not two)."""
    names = [cache.base.config_name(c) for c in ("lab", "compile")]
    for name in names:
        src = cache.tree_dir(name)
        if os.path.exists(os.path.join(src, "scripts", "checkpatch.pl")):
            return src
    with cache.locked(names[1]):
        return cache.ensure_tree(names[1], run)


def checkpatch(run, cache, chosen):
    src = checkpatch_tree(cache, run)
    script = os.path.join(src, "scripts", "checkpatch.pl")
    n = 0
    with run.step("checkpatch --strict"):
        for d in chosen:
            for p in d.patches:
                n += 1
                r = subprocess.run(["perl", script, "--strict", "--no-signoff",
                                    "--ignore", "UNKNOWN_COMMIT_ID", "--root=" + src, p],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                summary = [x for x in r.stdout.split("\n") if x.startswith("total:")]
                if r.returncode != 0 or not summary or \
                        "0 errors, 0 warnings, 0 checks" not in summary[0]:
                    run.fail("checkpatch --strict %s/%s:\n%s" % (d.name, os.path.basename(p),
                                                                 r.stdout[-3000:]))
    log("checkpatch --strict: %d patches" % n)


def main(run, args):
    checkpatch(run, tree.Cache(), designs.from_args(args))
