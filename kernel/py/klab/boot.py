# SPDX-License-Identifier: GPL-2.0
"""One guest boot: QEMU with a busybox initramfs whose /init runs one program,
or User-Mode Linux with a hostfs root whose /init is the same script (uml.py).

    r = boot.boot(boot.BootSpec(kernel=img, prog=exe, args=["--x"], nodes=4))
    r = boot.boot(boot.BootSpec(kernel=linux, prog=exe, machine="uml"))

The guest has three serial ports, each a file on the host (a file never
blocks the guest's writes; a pipe read by a starved host thread would, and
the guest would spend its own time waiting, under icount too):
  ttyS0  console: kernel messages and the program's stderr, copied as it
         grows to the console streams
  ttyS1  the program's stdout, nothing else (raw mode: JSON arrives intact)
  ttyS2  status: "KLAB-INIT <uptime>", then the guest's dmesg at the end
         (when asked), then "KLAB-EXIT <status>"
A guest that never writes KLAB-EXIT (panic, hang, timeout) is a failure of
the boot, reported with the tail of the console.

Accelerator: KVM when /dev/kvm is usable and the CPU shows vmx/svm, with a
fallback to TCG when the kernel does not reach /init in time under KVM
(on these machines /dev/kvm is a software hypervisor and kernels hang).
"""
import dataclasses
import gzip
import io
import os
import shlex
import shutil
import subprocess
import tempfile
import threading
import time

BUSYBOX = "/bin/busybox"
KVM_INIT_TIMEOUT = 60
ICOUNT_SHIFT = 3
ICOUNT_SEED = 1
# The clock of the guests whose times the lab compares (klab lab, check,
# try; docs/results/2026-12-01/kernel-lab.md, "Repeatable timings", has the
# figures that chose it).
DEFAULT_CLOCK = "icount"

# /init of the initramfs (busybox sh). /klab/args holds the program's
# arguments shell-quoted; /klab/env the options the host chose. @OUT@ and
# @STATUS@ are where the program's stdout and the status lines go: QEMU's
# second and third serial ports, or files of UML's hostfs root (uml.py);
# @ROOT_SETUP@ what the machine's root needs before the program runs.
INIT_TEMPLATE = r"""#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /tmp /mnt /sbin /usr/bin /usr/sbin /work
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup
@ROOT_SETUP@
. /klab/env
dmesg -n 5
echo "KLAB-INIT $(cut -d' ' -f1 /proc/uptime)" > @STATUS@
if [ -n "$KLAB_WORKDISK" ]; then
	mount -t ext4 "$KLAB_WORKDISK" /work || echo "klab init: cannot mount $KLAB_WORKDISK" >&2
fi
if [ -n "$KLAB_SWAPDISK" ]; then
	mkswap "$KLAB_SWAPDISK" >/dev/null && swapon "$KLAB_SWAPDISK" || echo "klab init: no swap on $KLAB_SWAPDISK" >&2
fi
eval "set -- $(cat /klab/args)"
cd "${KLAB_CWD:-/}"
"$@" > @OUT@ 2> /dev/console
rc=$?
cd /
if [ "$KLAB_DMESG" = 1 ]; then
	echo "KLAB-DMESG-BEGIN" >> @STATUS@
	dmesg >> @STATUS@
	echo "KLAB-DMESG-END" >> @STATUS@
fi
echo "KLAB-EXIT $rc" >> @STATUS@
sync
poweroff -f
"""


def init_script(out, status, root_setup):
    """/init for a machine whose program's stdout goes to @out and status
    lines to @status, after the shell lines @root_setup."""
    return (INIT_TEMPLATE.replace("@OUT@", out).replace("@STATUS@", status)
            .replace("@ROOT_SETUP@", root_setup))


# QEMU's: the serial ports in raw mode (the JSON arrives intact).
INIT_SCRIPT = init_script("/dev/ttyS1", "/dev/ttyS2",
                          "stty -F /dev/ttyS1 raw -echo 2>/dev/null\n"
                          "stty -F /dev/ttyS2 raw -echo 2>/dev/null")


class BootError(Exception):
    pass


@dataclasses.dataclass
class BootSpec:
    """What to boot and how. Disks are raw images attached as virtio-blk
    (/dev/vda, /dev/vdb, ... in order); @workdisk says the first is the ext4
    working directory (/work), @swapdisk that the next is the swap device."""
    kernel: str
    prog: str                      # a static program on the host
    args: list = dataclasses.field(default_factory=list)
    cpus: int = 2
    nodes: int = 1                 # fake NUMA nodes (numa=fake=N)
    mem: int = 2048                # MiB
    accel: str = "auto"            # auto, kvm, tcg
    append: str = ""               # more kernel command line
    files: list = dataclasses.field(default_factory=list)   # (host, guest path)
    disks: list = dataclasses.field(default_factory=list)
    workdisk: bool = False
    swapdisk: bool = False
    cwd: str = None                # the program's working directory
    env: dict = dataclasses.field(default_factory=dict)     # more /klab/env
    timeout: int = 900             # seconds before the guest is killed
    dmesg: bool = False            # read the guest's dmesg at the end
    panic_on_oops: bool = False
    clock: str = "wall"            # the guest's clock: "wall", or "icount=N" (see parse_clock)
    machine: str = None            # "qemu" (a bzImage), "uml" (UML's linux); None: the image's


@dataclasses.dataclass
class BootResult:
    status: int = None             # the program's exit status; None when it never ended
    stdout: str = ""               # the program's stdout (ttyS1)
    dmesg: str = ""                # the guest's dmesg (when asked)
    console: str = ""              # ttyS0
    accel: str = None
    accel_note: str = ""           # why not KVM, when it was asked for
    init_uptime: float = None      # guest uptime when /init ran (s)
    wall: float = None             # host seconds from QEMU's start to its end
    timed_out: bool = False
    clock: str = ""                # clock_words() of the boot
    machine: str = "qemu"

    def accel_words(self):
        return self.accel + (" (%s)" % self.accel_note if self.accel_note else "")


class Cpio:
    """A newc cpio archive in memory (owner root, mtime 0: reproducible)."""

    def __init__(self):
        self.buf = io.BytesIO()
        self.ino = 1

    def entry(self, name, mode, data=b"", rdev=(0, 0)):
        self.ino += 1
        namez = name.encode() + b"\0"
        fields = [self.ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(namez), 0]
        self.buf.write(b"070701" + b"".join(b"%08X" % f for f in fields))
        self.buf.write(namez)
        self.buf.write(b"\0" * (-(110 + len(namez)) % 4))
        self.buf.write(data)
        self.buf.write(b"\0" * (-len(data) % 4))

    def bytes(self):
        return self.buf.getvalue()


def initramfs(files, env, args):
    """The initramfs (newc cpio, not compressed) with busybox, /init, @files
    ((host path, absolute guest path); their directories are made), @env
    in /klab/env and @args, the program's argv, in /klab/args."""
    c = Cpio()
    dirs = {"bin", "klab", "dev"}
    for _, guest in files:
        parts = guest.lstrip("/").split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]))
    for d in sorted(dirs):
        c.entry(d, 0o040755)
    # The kernel opens /dev/console before /init runs.
    c.entry("dev/console", 0o020600, rdev=(5, 1))
    for host, guest in [(BUSYBOX, "/bin/busybox")] + list(files):
        with open(host, "rb") as f:
            c.entry(guest.lstrip("/"), 0o100755, f.read())
    c.entry("init", 0o100755, INIT_SCRIPT.encode())
    envtext = "".join("%s=%s\n" % (k, shlex.quote(str(v))) for k, v in sorted(env.items()))
    c.entry("klab/env", 0o100644, envtext.encode())
    c.entry("klab/args", 0o100644, (" ".join(shlex.quote(a) for a in args) + "\n").encode())
    c.entry("TRAILER!!!", 0)
    return c.bytes()


def kvm_usable():
    """(usable, reason)."""
    if not os.path.exists("/dev/kvm"):
        return False, "no /dev/kvm"
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return False, "/dev/kvm not accessible"
    try:
        with open("/proc/cpuinfo") as f:
            flags = f.read()
    except OSError:
        flags = ""
    if " vmx" not in flags and " svm" not in flags:
        return False, "/dev/kvm present but the CPU shows no vmx/svm"
    return True, "kvm"


def guest_env(spec):
    """/klab/env of @spec's guest."""
    env = dict(spec.env)
    env["KLAB_DMESG"] = "1" if spec.dmesg else "0"
    if spec.workdisk:
        env["KLAB_WORKDISK"] = "/dev/vda"
    if spec.swapdisk:
        env["KLAB_SWAPDISK"] = "/dev/vdb" if spec.workdisk else "/dev/vda"
    if spec.cwd:
        env["KLAB_CWD"] = spec.cwd
    return env


def parse_clock(text):
    """The icount shift of clock @text ("icount=N", or "icount" for
    ICOUNT_SHIFT), None for "wall"; ValueError for anything else."""
    if text == "wall":
        return None
    if text == "icount":
        return ICOUNT_SHIFT
    if text.startswith("icount="):
        n = text[len("icount="):]
        if n.isdigit() and int(n) <= 10:
            return int(n)
    raise ValueError("clock %r: wall, icount or icount=N (N 0..10)" % text)


def clock_words(clock, accel):
    """What the guest's clock counted, for tables and documents."""
    shift = parse_clock(clock)
    if shift is None or accel == "kvm":
        return "wall (the host's time passing: under TCG it moves with the host's load)"
    return ("icount shift=%d (guest time = instructions executed x %d ns; sleep=off: an idle "
            "guest skips to its next timer; one host thread for all vCPUs)" % (shift, 1 << shift))


def clock_name(words):
    """The short name of clock_words() @words ("wall", "icount shift=3"),
    for a table's heading."""
    return words.split(" (")[0]


def qemu_cmd(spec, initrd, accel, console_path, out_path, status_path):
    # A big log buffer: the host reads the whole dmesg at the end.
    append = "console=ttyS0 panic=-1 log_buf_len=16M"
    if spec.panic_on_oops:
        append += " oops=panic"
    if spec.nodes > 1:
        append += " numa=fake=%d" % spec.nodes
    if spec.append:
        append += " " + spec.append
    cmd = ["qemu-system-x86_64", "-m", str(spec.mem), "-smp", str(spec.cpus),
           "-display", "none", "-monitor", "none", "-no-reboot",
           "-kernel", spec.kernel, "-initrd", initrd, "-append", append,
           "-serial", "file:" + console_path, "-serial", "file:" + out_path,
           "-serial", "file:" + status_path]
    if accel == "kvm":
        cmd += ["-accel", "kvm", "-cpu", "host"]
    else:
        cmd += ["-accel", "tcg", "-cpu", "max"]
    shift = parse_clock(spec.clock)
    if shift is not None and accel != "kvm":
        # The guest's random numbers (RDRAND) from a fixed seed: the same
        # hash seeds and random choices every boot, as the same clock.
        cmd += ["-icount", "shift=%d,sleep=off,align=off" % shift, "-seed", str(ICOUNT_SEED)]
    for disk in spec.disks:
        cmd += ["-drive", "file=%s,if=virtio,format=raw,cache=unsafe" % disk]
    return cmd


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace").replace("\r", "")
    except OSError:
        return ""


def parse_status(text, res):
    """Fill @res from the status port's @text."""
    in_dmesg = False
    dmesg = []
    for line in text.split("\n"):
        if line.startswith("KLAB-INIT "):
            try:
                res.init_uptime = float(line.split()[1])
            except (IndexError, ValueError):
                pass
        elif line == "KLAB-DMESG-BEGIN":
            in_dmesg = True
        elif line == "KLAB-DMESG-END":
            in_dmesg = False
        elif line.startswith("KLAB-EXIT "):
            res.status = int(line.split()[1])
        elif in_dmesg:
            dmesg.append(line)
    res.dmesg = "\n".join(dmesg)


def pump_console(path, streams, done):
    """Copy the console file @path to @streams as it grows, until @done is
    set (a thread of QEMU's and UML's boots)."""
    offset = 0
    while True:
        last = done.is_set()
        try:
            with open(path, "rb") as f:
                f.seek(offset)
                data = f.read()
        except OSError:
            data = b""
        if data:
            offset += len(data)
            text = data.decode("utf-8", "replace").replace("\r", "")
            for st in streams or ():
                st.write(text)
                st.flush()
        if last:
            return
        done.wait(0.2)


def _run_once(spec, initrd, accel, tmp, console_stream):
    """One QEMU run; None when KVM never reached /init."""
    console_path = os.path.join(tmp, "ttyS0")
    out_path = os.path.join(tmp, "ttyS1")
    status_path = os.path.join(tmp, "ttyS2")
    for p in (console_path, out_path, status_path):
        if os.path.exists(p):
            os.unlink(p)
    cmd = qemu_cmd(spec, initrd, accel, console_path, out_path, status_path)
    res = BootResult(accel=accel)
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    qemu_says = []
    done = threading.Event()

    def qemu_output():
        qemu_says.append(proc.stdout.read().decode("utf-8", "replace"))

    th = threading.Thread(target=pump_console, args=(console_path, console_stream, done),
                          daemon=True)
    th.start()
    tq = threading.Thread(target=qemu_output, daemon=True)
    tq.start()
    init_deadline = t0 + KVM_INIT_TIMEOUT if accel == "kvm" else None
    deadline = t0 + spec.timeout
    hung_before_init = False
    try:
        while proc.poll() is None:
            now = time.monotonic()
            if init_deadline and now > init_deadline:
                if "KLAB-INIT" not in _read(status_path):
                    hung_before_init = True
                    break
                init_deadline = None
            if now > deadline:
                res.timed_out = True
                break
            time.sleep(0.2)
    finally:
        # Never leave a guest behind (timeout, KVM hang, or klab killed).
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    done.set()
    th.join(timeout=5)
    tq.join(timeout=5)
    res.wall = time.monotonic() - t0
    res.console = _read(console_path) + "".join(qemu_says)
    res.stdout = _read(out_path)
    if hung_before_init:
        return None
    parse_status(_read(status_path), res)
    return res


def boot(spec, console_stream=None):
    """Boot @spec; return its BootResult. @console_stream: files the console
    is copied to as it arrives."""
    from . import machine, uml
    m = spec.machine or machine.of_image(spec.kernel)
    if m == "uml":
        return uml.boot(spec, console_stream)
    if m != "qemu":
        raise BootError("machine %r: one of %s" % (m, ", ".join(machine.MACHINES)))
    if not shutil.which("qemu-system-x86_64"):
        raise BootError("qemu-system-x86_64 not found (apt-get install qemu-system-x86)")
    if not os.path.exists(BUSYBOX):
        raise BootError("%s not found (apt-get install busybox-static)" % BUSYBOX)
    with tempfile.TemporaryDirectory(prefix="klab-boot-") as tmp:
        initrd = os.path.join(tmp, "initrd.gz")
        guest_prog = "/klab/bin/" + os.path.basename(spec.prog)
        with gzip.open(initrd, "wb", compresslevel=1) as f:
            f.write(initramfs([(spec.prog, guest_prog)] + list(spec.files), guest_env(spec),
                              [guest_prog] + list(spec.args)))
        accel, note = spec.accel, ""
        if accel == "auto":
            ok, why = kvm_usable()
            accel = "kvm" if ok else "tcg"
            note = "" if ok else why
        res = _run_once(spec, initrd, accel, tmp, console_stream)
        if res is None:
            note = "kvm did not reach /init in %d s" % KVM_INIT_TIMEOUT
            res = _run_once(spec, initrd, "tcg", tmp, console_stream)
        res.accel_note = note
        res.clock = clock_words(spec.clock, res.accel)
        return res
