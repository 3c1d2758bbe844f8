# SPDX-License-Identifier: GPL-2.0
"""klab boot (kernel/boot): boot a kernel and run one static program in it,
the smoke test. Its stdout is printed on stdout; the exit status is the
program's (125 when the guest did not finish: panic, hang or timeout)."""
import os
import sys

from .. import boot

DESCRIPTION = ("Boot BZIMAGE in QEMU with a busybox initramfs whose /init runs PROG ARGS "
               "(a static binary from the host), or a UML kernel (klab build --config uml: "
               "an ELF host program, booted as one with a hostfs root holding the same "
               "/init). The program's stdout is printed on stdout; "
               "the exit status is the program's (125 when the guest did not finish: panic, "
               "hang or timeout).")


def arguments(p):
    p.description = DESCRIPTION
    p.add_argument("bzimage")
    p.add_argument("prog")
    p.add_argument("args", nargs="...")
    p.add_argument("--machine", choices=["auto", "qemu", "uml"], default="auto",
                   help="auto (default): uml for an ELF kernel (UML's linux), qemu for a "
                   "bzImage")
    p.add_argument("--cpus", type=int, default=2, help="vCPUs (UML: 1 unless its kernel "
                   "has SMP)")
    p.add_argument("--nodes", type=int, default=1, help="fake NUMA nodes (numa=fake=N)")
    p.add_argument("--mem", type=int, default=2048, help="guest memory, MiB")
    p.add_argument("--accel", choices=["auto", "kvm", "tcg"], default="auto")
    p.add_argument("--append", default="", help="extra kernel command line")
    p.add_argument("--clock", default="wall", help="the guest's clock: wall (default), "
                   "icount or icount=N (TCG: guest time counts instructions, 2^N ns each)")
    p.add_argument("--file", action="append", default=[], metavar="HOST:GUEST",
                   help="extra file in the initramfs")
    p.add_argument("--disk", action="append", default=[], help="raw image as virtio-blk")
    p.add_argument("--timeout", type=int, default=900, help="seconds before the guest is killed")
    p.add_argument("--dmesg", metavar="FILE", help="write the guest's dmesg at exit to FILE")
    p.add_argument("--console", metavar="FILE",
                   help="write the serial console to FILE ('-': stream it to stderr)")


def main(run, a):
    files = []
    for spec in a.file:
        host, _, guest = spec.partition(":")
        files.append((host, guest or "/klab/" + os.path.basename(host)))
    spec = boot.BootSpec(kernel=a.bzimage, prog=a.prog, args=a.args, cpus=a.cpus,
                         nodes=a.nodes, mem=a.mem, accel=a.accel, append=a.append,
                         clock=a.clock, machine=None if a.machine == "auto" else a.machine,
                         files=files, disks=a.disk, timeout=a.timeout, dmesg=bool(a.dmesg))
    try:
        r = boot.boot(spec, console_stream=[sys.stderr] if a.console == "-" else None)
    except boot.BootError as e:
        print("klab boot: %s" % e, file=sys.stderr)
        return 2
    sys.stdout.write(r.stdout)
    if a.console and a.console != "-":
        with open(a.console, "w") as f:
            f.write(r.console)
    if a.dmesg:
        with open(a.dmesg, "w") as f:
            f.write(r.dmesg)
    if r.status is None:
        why = "timed out after %d s" % a.timeout if r.timed_out else "ended without an exit status"
        print("klab boot: guest %s; accel %s; console tail:" % (why, r.accel_words()),
              file=sys.stderr)
        sys.stderr.write("".join(r.console.splitlines(True)[-30:]))
        return 125
    print("klab boot: %s, /init at %.2f s guest uptime, exit %d, %.1f s wall"
          % ("UML" if r.machine == "uml" else "accel " + r.accel_words(), r.init_uptime or -1,
             r.status, r.wall), file=sys.stderr)
    return r.status
