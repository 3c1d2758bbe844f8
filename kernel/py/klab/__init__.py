# SPDX-License-Identifier: GPL-2.0
"""klab: the kernel lab of libshrinker (kernel/README.md).

One job per module. The modules' order, from the bottom up (a module
imports only those before it), is the `klab` and `klab-cmd` lines of the
layers block in docs/design/ARCHITECTURE.md, which the include_graph test
checks against every import here (an ast pass): the list lives there once.

Add a command: write commands/<name>.py with arguments(parser) and
main(run, args) (see commands/__init__.py), and add its row to cli.COMMANDS.
"""
