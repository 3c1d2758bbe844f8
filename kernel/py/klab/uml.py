# SPDX-License-Identifier: GPL-2.0
"""One guest boot on User-Mode Linux: the kernel is a host program
(`linux`, built with ARCH=um), its root a host directory (hostfs) holding
busybox, the same /init as QEMU's initramfs (boot.INIT_TEMPLATE) and the
guest's programs, all static.

    r = uml.boot(boot.BootSpec(kernel=linux, prog=exe, machine="uml", mem=3072))

The root is a fresh temporary directory per boot:
  /init            boot.INIT_TEMPLATE; the program's stdout goes to /klab/out
                   and the status lines to /klab/status, files the host
                   reads once the kernel has ended (the guest's writes are the
                   host's: hostfs, then sync and poweroff)
  /klab/env, /klab/args, /bin/busybox, /klab/bin/PROG, the spec's files
  /mnt             a tmpfs (the init mounts it): the guests' mountpoints live
                   in guest memory as under QEMU, whose root is the initramfs'
                   tmpfs, not on the host's disk
The console (con0, and printk through the stderr console) is the process's
stdout and stderr, one file copied to the console streams as it grows.

What the machine is, for the tables (klab's docs/design/KERNEL-LAB.md,
"User-Mode Linux"): the kernel's own code runs natively (no emulation),
on the host's clock (wall: the host's load moves it; no icount); one node
(no NUMA); one CPU on 6.12 (UML SMP exists from 7.x on the x86-64 subarch:
ncpus=N and seccomp=on on the command line: SMP needs the SECCOMP
userspace, where a guest's system call is a signal in the guest process,
not a ptrace stop); its memory is a file on the host's /dev/shm
of mem= bytes, touched pages only; its timer is a host timer (HZ=100,
signals); disks are ubd (/dev/ubda, ...), host files.

The guest's memory is host memory: size @spec.mem to the geometry (several
guests and helpers share the host).
"""
import os
import re
import resource
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time

from . import boot as qboot

# /init's root setup on UML: the mountpoints' tmpfs.
ROOT_SETUP = "mount -t tmpfs tmpfs /mnt"
OUT = "/klab/out"
STATUS = "/klab/status"
# UML's memory file: a tmpfs (the host's dirty-page writeback would
# otherwise write the guest's memory to disk).
MEM_DIR = "/dev/shm"


def disk_name(i):
    """The guest's name of the @i-th disk (ubd<i>= on the command line)."""
    return "/dev/ubd" + chr(ord("a") + i)


VIRTIO_DISK = re.compile(r"/dev/vd([a-z])\b")


def ubd_words(text):
    """@text with QEMU's disk names (/dev/vda, ...) as UML's (/dev/ubda,
    ...): the guests' programs take their disks' names as arguments, written
    for QEMU; the disks are attached in the same order."""
    return VIRTIO_DISK.sub(r"/dev/ubd\1", text)


def guest_env(spec):
    """/klab/env of @spec's guest on UML (its disks are ubd)."""
    env = qboot.guest_env(spec)
    if spec.workdisk:
        env["KLAB_WORKDISK"] = disk_name(0)
    if spec.swapdisk:
        env["KLAB_SWAPDISK"] = disk_name(1 if spec.workdisk else 0)
    return env


def smp_of(kernel):
    """Does the UML kernel @kernel run more than one CPU? From the config
    kept beside it (build.py keeps <image>.config); False without one."""
    try:
        with open(kernel + ".config") as f:
            return "CONFIG_SMP=y\n" in f.read()
    except OSError:
        return False


def perf_prefix(label):
    """`perf record` before UML's command when $KLAB_UML_PERF names a
    directory: a host profile of the guest kernel's own code (UML has no
    function tracer; the linux binary's symbols are the kernel's), one
    file per boot, <dir>/<label>.perf.data, sampled on the host's CPU clock
    (this host shows no hardware counters)."""
    d = os.environ.get("KLAB_UML_PERF")
    if not d:
        return []
    os.makedirs(d, exist_ok=True)
    return ["perf", "record", "-q", "-e", "cpu-clock", "-F", "499", "-g", "-o",
            os.path.join(d, label + ".perf.data"), "--"]


def command(spec, root):
    """The host command line of @spec's UML guest with hostfs root @root."""
    words = ["mem=%dM" % spec.mem, "rootfstype=hostfs", "hostfs=" + root, "rw",
             "init=/init", "con=null", "con0=null,fd:1", "panic=0", "log_buf_len=16M"]
    if smp_of(spec.kernel):
        # 7.3's UML runs more than one CPU only with the SECCOMP userspace
        # (arch/um/os-Linux/start_up.c: "SMP is not supported with PTRACE
        # userspace"): every boot of an SMP kernel uses it, whatever its
        # CPUs, so that all of a base's UML figures have one syscall path
        words += ["ncpus=%d" % spec.cpus, "seccomp=on"]
    if spec.panic_on_oops:
        words.append("oops=panic")
    for i, disk in enumerate(spec.disks):
        words.append("ubd%d=%s" % (i, disk))
    if spec.append:
        words += spec.append.split()
    return [spec.kernel] + words


def make_root(spec, root):
    """Lay out @spec's hostfs root in @root; return the guest's argv."""
    guest_prog = "/klab/bin/" + os.path.basename(spec.prog)
    files = [(qboot.BUSYBOX, "/bin/busybox"), (spec.prog, guest_prog)] + list(spec.files)
    for d in ("klab", "dev", "mnt", "tmp", "proc", "sys"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    for host, guest in files:
        dest = os.path.join(root, guest.lstrip("/"))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(host, dest)
        os.chmod(dest, 0o755)
    args = [guest_prog] + [ubd_words(a) for a in spec.args]
    with open(os.path.join(root, "init"), "w") as f:
        f.write(qboot.init_script(OUT, STATUS, ROOT_SETUP))
    os.chmod(os.path.join(root, "init"), 0o755)
    env = guest_env(spec)
    with open(os.path.join(root, "klab/env"), "w") as f:
        f.write("".join("%s=%s\n" % (k, shlex.quote(str(v)))
                        for k, v in sorted(env.items())))
    with open(os.path.join(root, "klab/args"), "w") as f:
        f.write(" ".join(shlex.quote(a) for a in args) + "\n")
    return args


def _no_core():
    """In the child: no core file (UML dumps core on panic: a file the size
    of the guest's memory)."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _kill_group(proc):
    """End UML and its host threads and processes (its own session)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def boot(spec, console_stream=None):
    """Boot @spec on UML; return its BootResult (accel "uml")."""
    if spec.nodes > 1:
        raise qboot.BootError("UML has no NUMA: %d nodes need --machine qemu" % spec.nodes)
    if qboot.parse_clock(spec.clock) is not None:
        raise qboot.BootError("UML runs on the host's clock: --clock wall (icount is QEMU's)")
    if not os.access(spec.kernel, os.X_OK):
        raise qboot.BootError("%s: not an executable UML kernel (klab build --machine uml)"
                              % spec.kernel)
    if not os.path.exists(qboot.BUSYBOX):
        raise qboot.BootError("%s not found (apt-get install busybox-static)" % qboot.BUSYBOX)
    with tempfile.TemporaryDirectory(prefix="klab-uml-") as tmp:
        root = os.path.join(tmp, "root")
        make_root(spec, root)
        console_path = os.path.join(tmp, "console")
        res = qboot.BootResult(accel="uml", machine="uml")
        env = dict(os.environ, TMPDIR=MEM_DIR)
        t0 = time.monotonic()
        with open(console_path, "wb") as con:
            label = spec.env.get("KLAB_LABEL") or os.path.basename(spec.prog)
            proc = subprocess.Popen(perf_prefix(label) + command(spec, root),
                                    stdin=subprocess.DEVNULL, stdout=con,
                                    stderr=subprocess.STDOUT, cwd=tmp, env=env,
                                    start_new_session=True, preexec_fn=_no_core)
        done = threading.Event()
        th = threading.Thread(target=qboot.pump_console, args=(console_path, console_stream, done),
                              daemon=True)
        th.start()
        try:
            proc.wait(timeout=spec.timeout)
        except subprocess.TimeoutExpired:
            res.timed_out = True
        finally:
            # Never leave a guest behind (timeout, or klab killed).
            if proc.returncode is None:
                _kill_group(proc)
                proc.wait()
        done.set()
        th.join(timeout=5)
        res.wall = time.monotonic() - t0
        res.console = qboot._read(console_path)
        res.stdout = qboot._read(os.path.join(root, OUT.lstrip("/")))
        qboot.parse_status(qboot._read(os.path.join(root, STATUS.lstrip("/"))), res)
        res.clock = clock_words()
        return res


def clock_words():
    """What a UML guest's clock counted, for tables and documents."""
    return ("wall (UML: the host's clock, native execution; it moves with the host's "
            "load)")
