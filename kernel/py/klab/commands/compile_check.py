# SPDX-License-Identifier: GPL-2.0
"""klab compile: each series applied one patch at a time, and after each
patch the objects of every .c file the series touched so far compiled at W=1
(build.compile_series, in the tree klab-compile of the cache, never fully
built): a series must build at every step and print no warning. Seconds
per patch, whatever headers the series touches."""
from .. import build, designs, tree


def arguments(p):
    designs.add_arguments(p)


def compile_designs(run, cache, chosen):
    """The check for every design of @chosen with a series."""
    for d in chosen:
        if not d.patches:
            continue
        for patch, found in build.compile_series(cache, d, run):
            run.fail("%s: W=1 of the touched objects after %s:\n    %s"
                     % (d.name, patch.rsplit("/", 1)[-1], "\n    ".join(found[:20])))


def main(run, args):
    cache = tree.Cache()
    chosen = designs.from_args(args)
    compile_designs(run, cache, chosen)
