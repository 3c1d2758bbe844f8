# SPDX-License-Identifier: GPL-2.0
"""klab build: build each design's kernel (lab config, debug config, UML,
or lab and debug)."""
from .. import build, designs, tree


def arguments(p):
    designs.add_arguments(p)
    p.add_argument("--config", choices=["lab", "debug", "uml", "uml-density", "all"],
                   default="all",
                   help="which configs: lab and debug (QEMU's bzImage), uml (User-Mode "
                   "Linux's linux, kernel/config/uml.config), uml-density (uml with "
                   "overlayfs and the lock tracepoints: the density workload's); default "
                   "all = lab and debug")


def main(run, args):
    cache = tree.Cache()
    chosen = designs.from_args(args)
    for c in ["lab", "debug"] if args.config == "all" else [args.config]:
        for name, img in build.build_all(cache, c, chosen, run).items():
            print("%s/%s: %s" % (c, name, img))
