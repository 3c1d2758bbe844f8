# SPDX-License-Identifier: GPL-2.0
"""klab's commands, one module each, listed in cli.COMMANDS.

A command module has:

  arguments(parser)   adds its options to its argparse parser (the
                      designs: designs.add_arguments);
  main(run, args)     does the work. @run is the run.Run (None for a
                      command whose row says run=False, e.g. boot): time each
                      step with `with run.step(name):`, report each failure
                      with run.fail(msg), write results with run.save() or
                      under run.path(). It returns nothing (a run command's
                      exit status is 1 when run.fails is not empty, else 0)
                      or, for a run=False command, its exit status.

The dispatcher (cli.py) installs the Debian packages first, turns a
RuntimeError or boot.BootError into a failure, and prints the step times and
the verdict at the end. A command that runs another's work calls that
module's functions (check.py calls lab.lab, selftests.selftests, ...).
"""
