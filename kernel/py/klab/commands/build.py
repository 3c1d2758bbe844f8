# SPDX-License-Identifier: GPL-2.0
"""klab build: build each design's kernel (lab config, debug config, or both)."""
from .. import build, designs, tree


def arguments(p):
    designs.add_arguments(p)
    p.add_argument("--config", choices=["lab", "debug", "all"], default="all",
                   help="which configs (default all)")


def main(run, args):
    cache = tree.Cache()
    chosen = designs.from_args(args)
    for c in ["lab", "debug"] if args.config == "all" else [args.config]:
        for name, img in build.build_all(cache, c, chosen, run).items():
            print("%s/%s: %s" % (c, name, img))
