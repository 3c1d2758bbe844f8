# SPDX-License-Identifier: GPL-2.0
"""Which machine a guest boots on: User-Mode Linux or QEMU.

    m = machine.choose(args.machine, nodes=1)          # "uml" or "qemu"
    images = build.build_all(cache, machine.config(m), chosen, run)
    clock = machine.clock(m, args.clock)

--machine auto (the default of the commands that take it) is UML for every
1-node table and workload and QEMU for what UML cannot be: more than one
NUMA node (UML has none), and what a command names as QEMU's (the debug
kernels' torture and the cgroup selftests stay on QEMU: KASAN, the
selftests' swap and virtio disk). UML runs the kernel natively on the
host's clock (wall); QEMU's guests keep the clock asked for (icount by
default). What UML changes, and which figures must stay on QEMU:
docs/design/KERNEL-LAB.md, "User-Mode Linux".
"""
MACHINES = ("uml", "qemu")
CHOICES = ("auto",) + MACHINES
# The kernel config of each machine's images (build.CONFIG_FRAGMENTS).
CONFIG = {"uml": "uml", "qemu": "lab"}
ELF_MAGIC = b"\x7fELF"


def add_argument(p):
    p.add_argument("--machine", choices=CHOICES, default="auto",
                   help="uml (User-Mode Linux: native, the host's clock, 1 node) or qemu "
                   "(TCG, the clock of --clock, NUMA); auto (default): uml for 1-node "
                   "guests, qemu for more nodes")


def choose(choice, nodes=1):
    """The machine of a guest with @nodes NUMA nodes under --machine
    @choice; SystemExit when UML is asked for more than one node."""
    if choice == "auto":
        return "uml" if nodes <= 1 else "qemu"
    if choice == "uml" and nodes > 1:
        raise SystemExit("klab: --machine uml: this guest has %d NUMA nodes and UML has none "
                         "(--machine qemu or auto)" % nodes)
    return choice


def config(m, qemu_config="lab"):
    """The config of machine @m's images (@qemu_config on QEMU)."""
    return CONFIG["uml"] if m == "uml" else qemu_config


def clock(m, asked):
    """The guest's clock on machine @m: UML's is the host's (wall),
    whatever was asked; QEMU keeps @asked."""
    return "wall" if m == "uml" else asked


def of_image(path):
    """The machine an image boots on: UML's kernel is an ELF host program,
    QEMU's a bzImage."""
    try:
        with open(path, "rb") as f:
            return "uml" if f.read(4) == ELF_MAGIC else "qemu"
    except OSError:
        return "qemu"


def words(m):
    """The machine, for a table's heading."""
    if m == "uml":
        return "UML (User-Mode Linux: the kernel's code native, as a host process, 1 node)"
    return "QEMU (TCG)"
