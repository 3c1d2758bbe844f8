# SPDX-License-Identifier: GPL-2.0
"""klab: the kernel lab of libshrinker (kernel/README.md).

One job per module, from the bottom up (a module imports only those above
it in this list):

  paths      where things are: the repo, kernel/, the cache, the output
  run        one run of a command: its output directory, its timed steps
             (`with run.step(name):`), its failures; log()
  shell      sh(): run a host command, fail with its output
  packages   the Debian packages the lab needs
  designs    a design (dataclass): its name and series; the designs in
             kernel/patches/ (debug/ excluded); build order
  tree       the source cache: unpacked trees, switching series (patch -R
             with unchanged files' mtimes kept)
  build      config, make, kept images, W=1 of the touched files
  boot       one guest boot: BootSpec and BootResult, the initramfs, QEMU
  guest      the guest programs and the cgroup selftests, compiled on the host
  report     what the guests wrote: dmesg splats, selftest TAP
  flakes     the selftest regression rule (retry, then mainline again)
  geometry   the guests' experiment geometries
  metrics    the metrics data file the guest and the model are checked against
  model      shrinklab kernel runs at a guest's geometry
  compare    kernel beside model: the join, the tables, the combined JSON
  commands/  one module per command (boot, build, lab, selftests, torture,
             checkpatch, check)
  cli        the command table and the dispatch

Add a command: write commands/<name>.py with arguments(parser) and
main(run, args) (see commands/__init__.py), and add its row to cli.COMMANDS.
"""
