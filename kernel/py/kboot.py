# SPDX-License-Identifier: GPL-2.0
"""Boot a kernel in QEMU with a busybox initramfs that runs one program.

The guest has three serial ports, each a file or pipe on the host:
  ttyS0  console: kernel messages and the program's stderr
  ttyS1  the program's stdout, nothing else (raw mode: JSON arrives intact)
  ttyS2  status: "KLAB-INIT <uptime>", then the guest's dmesg at the end
         (when asked), then "KLAB-EXIT <status>"
A guest that never writes KLAB-EXIT (panic, hang, timeout) is a failure of
the boot, reported with the tail of the console.

Accelerator: KVM when /dev/kvm is usable and the CPU shows vmx/svm, with a
fallback to TCG when the kernel does not reach /init in time under KVM
(on these machines /dev/kvm is a software hypervisor and kernels hang).
"""
import gzip
import io
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time

BUSYBOX = "/bin/busybox"
KVM_INIT_TIMEOUT = 60

# /init of the initramfs (busybox sh). /klab/args holds the program's
# arguments shell-quoted; /klab/env the options the host chose.
INIT_SCRIPT = r"""#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /tmp /mnt /sbin /usr/bin /usr/sbin /work
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup
stty -F /dev/ttyS1 raw -echo 2>/dev/null
stty -F /dev/ttyS2 raw -echo 2>/dev/null
. /klab/env
dmesg -n 5
echo "KLAB-INIT $(cut -d' ' -f1 /proc/uptime)" > /dev/ttyS2
if [ -n "$KLAB_WORKDISK" ]; then
	mount -t ext4 "$KLAB_WORKDISK" /work || echo "klab init: cannot mount $KLAB_WORKDISK" >&2
fi
if [ -n "$KLAB_SWAPDISK" ]; then
	mkswap "$KLAB_SWAPDISK" >/dev/null && swapon "$KLAB_SWAPDISK" || echo "klab init: no swap on $KLAB_SWAPDISK" >&2
fi
eval "set -- $(cat /klab/args)"
cd "${KLAB_CWD:-/}"
"$@" > /dev/ttyS1 2> /dev/console
rc=$?
cd /
if [ "$KLAB_DMESG" = 1 ]; then
	echo "KLAB-DMESG-BEGIN" > /dev/ttyS2
	dmesg > /dev/ttyS2
	echo "KLAB-DMESG-END" > /dev/ttyS2
fi
echo "KLAB-EXIT $rc" > /dev/ttyS2
sync
poweroff -f
"""


class BootError(Exception):
    pass


def _cpio_entry(out, name, mode, data=b"", rdev=(0, 0), ino=[1]):
    """One newc cpio entry (owner root, mtime 0: the image is reproducible)."""
    ino[0] += 1
    namez = name.encode() + b"\0"
    fields = [ino[0], mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(namez), 0]
    out.write(b"070701" + b"".join(b"%08X" % f for f in fields))
    out.write(namez)
    out.write(b"\0" * (-(110 + len(namez)) % 4))
    out.write(data)
    out.write(b"\0" * (-len(data) % 4))


def make_initramfs(path, files, env, args):
    """Write a gzip'd newc initramfs to path.

    files: list of (host_path, guest_path); guest paths are absolute, their
    directories are created. env: dict written to /klab/env. args: argv of
    the program the guest runs.
    """
    buf = io.BytesIO()
    dirs = set(["bin", "klab", "dev"])
    entries = [("bin/busybox", BUSYBOX), ("init", None)]
    for host, guest in files:
        g = guest.lstrip("/")
        entries.append((g, host))
        parts = g.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]))
    for d in sorted(dirs):
        _cpio_entry(buf, d, 0o040755)
    # The kernel opens /dev/console before /init runs.
    _cpio_entry(buf, "dev/console", 0o020600, b"", rdev=(5, 1))
    for g, host in entries:
        if host is None:
            continue
        with open(host, "rb") as f:
            _cpio_entry(buf, g, 0o100755, f.read())
    _cpio_entry(buf, "init", 0o100755, INIT_SCRIPT.encode())
    envtext = "".join("%s=%s\n" % (k, shlex.quote(str(v))) for k, v in sorted(env.items()))
    _cpio_entry(buf, "klab/env", 0o100644, envtext.encode())
    _cpio_entry(buf, "klab/args", 0o100644, (" ".join(shlex.quote(a) for a in args) + "\n").encode())
    _cpio_entry(buf, "TRAILER!!!", 0)
    with gzip.open(path, "wb", compresslevel=1) as f:
        f.write(buf.getvalue())


def kvm_usable():
    """Return (usable, reason)."""
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


class BootResult:
    def __init__(self):
        self.status = None          # program's exit status, None when it never ended
        self.stdout = ""            # the program's stdout (ttyS1)
        self.dmesg = ""             # guest dmesg (when asked)
        self.console = ""           # ttyS0
        self.accel = None
        self.accel_note = ""
        self.init_uptime = None     # guest uptime when /init ran (s)
        self.wall = None            # host seconds from qemu start to its end
        self.timed_out = False


def _qemu_cmd(kernel, initrd, accel, opt, out_path, status_path):
    # A big log buffer: the host reads the whole dmesg at the end.
    append = "console=ttyS0 panic=-1 log_buf_len=16M"
    if opt.get("panic_on_oops"):
        append += " oops=panic"
    if opt["nodes"] > 1:
        append += " numa=fake=%d" % opt["nodes"]
    if opt.get("append"):
        append += " " + opt["append"]
    cmd = ["qemu-system-x86_64", "-m", str(opt["mem"]), "-smp", str(opt["cpus"]),
           "-display", "none", "-monitor", "none", "-no-reboot",
           "-kernel", kernel, "-initrd", initrd, "-append", append,
           "-serial", "stdio", "-serial", "file:" + out_path, "-serial", "file:" + status_path]
    if accel == "kvm":
        cmd += ["-accel", "kvm", "-cpu", "host"]
    else:
        cmd += ["-accel", "tcg", "-cpu", "max"]
    for i, disk in enumerate(opt.get("disks", [])):
        cmd += ["-drive", "file=%s,if=virtio,format=raw,cache=unsafe" % disk]
    return cmd


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace").replace("\r", "")
    except OSError:
        return ""


def _run_once(kernel, initrd, accel, opt, tmp, console_stream):
    out_path = os.path.join(tmp, "ttyS1")
    status_path = os.path.join(tmp, "ttyS2")
    for p in (out_path, status_path):
        if os.path.exists(p):
            os.unlink(p)
    cmd = _qemu_cmd(kernel, initrd, accel, opt, out_path, status_path)
    res = BootResult()
    res.accel = accel
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    console = []

    def pump():
        for line in iter(proc.stdout.readline, b""):
            text = line.decode("utf-8", "replace").replace("\r", "")
            console.append(text)
            for st in console_stream or ():
                st.write(text)
                st.flush()

    th = threading.Thread(target=pump, daemon=True)
    th.start()
    init_deadline = t0 + KVM_INIT_TIMEOUT if accel == "kvm" else None
    deadline = t0 + opt["timeout"]
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
    th.join(timeout=5)
    res.wall = time.monotonic() - t0
    res.console = "".join(console)
    res.stdout = _read(out_path)
    status = _read(status_path)
    if hung_before_init:
        return None
    in_dmesg = False
    dmesg = []
    for line in status.split("\n"):
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
    return res


def boot(kernel, prog, args=(), cpus=2, nodes=1, mem=2048, accel="auto", append="",
         files=(), disks=(), env=None, timeout=900, dmesg=False, console_stream=None,
         workdisk=False, swapdisk=False, cwd=None, panic_on_oops=False):
    """Boot kernel, run prog with args as the guest's only job; return BootResult.

    console_stream: files the console is copied to as it arrives.
    files: extra (host, guest) files for the initramfs. disks: raw images
    attached as virtio-blk (/dev/vda, /dev/vdb, ... in order); workdisk and
    swapdisk say that the first (and second) is the ext4 working directory
    (/work) and the swap device.
    """
    if not shutil.which("qemu-system-x86_64"):
        raise BootError("qemu-system-x86_64 not found (apt-get install qemu-system-x86)")
    if not os.path.exists(BUSYBOX):
        raise BootError("%s not found (apt-get install busybox-static)" % BUSYBOX)
    env = dict(env or {})
    env["KLAB_DMESG"] = "1" if dmesg else "0"
    disks = list(disks)
    letters = "abcdefgh"
    if workdisk:
        env["KLAB_WORKDISK"] = "/dev/vd" + letters[0]
    if swapdisk:
        env["KLAB_SWAPDISK"] = "/dev/vd" + letters[1 if workdisk else 0]
    if cwd:
        env["KLAB_CWD"] = cwd
    opt = dict(cpus=cpus, nodes=nodes, mem=mem, append=append, disks=disks,
               timeout=timeout, panic_on_oops=panic_on_oops)
    with tempfile.TemporaryDirectory(prefix="klab-boot-") as tmp:
        initrd = os.path.join(tmp, "initrd.gz")
        guest_prog = "/klab/bin/" + os.path.basename(prog)
        make_initramfs(initrd, [(prog, guest_prog)] + list(files), env,
                       [guest_prog] + list(args))
        note = ""
        if accel == "auto":
            ok, why = kvm_usable()
            accel = "kvm" if ok else "tcg"
            note = "" if ok else why
        res = _run_once(kernel, initrd, accel, opt, tmp, console_stream)
        if res is None:
            note = "kvm did not reach /init in %d s" % KVM_INIT_TIMEOUT
            res = _run_once(kernel, initrd, "tcg", opt, tmp, console_stream)
        res.accel_note = note
        return res


def main_boot(argv):
    """`klab boot`: the smoke-test entry point."""
    import argparse
    p = argparse.ArgumentParser(
        prog="klab boot",
        description="Boot BZIMAGE in QEMU with a busybox initramfs whose /init runs "
                    "PROG ARGS (a static binary from the host). The program's stdout "
                    "is printed on stdout; the exit status is the program's "
                    "(125 when the guest did not finish: panic, hang or timeout).")
    p.add_argument("bzimage")
    p.add_argument("prog")
    p.add_argument("args", nargs=argparse.REMAINDER)
    p.add_argument("--cpus", type=int, default=2)
    p.add_argument("--nodes", type=int, default=1, help="fake NUMA nodes (numa=fake=N)")
    p.add_argument("--mem", type=int, default=2048, help="guest memory, MiB")
    p.add_argument("--accel", choices=["auto", "kvm", "tcg"], default="auto")
    p.add_argument("--append", default="", help="extra kernel command line")
    p.add_argument("--file", action="append", default=[], metavar="HOST:GUEST",
                   help="extra file in the initramfs")
    p.add_argument("--disk", action="append", default=[], help="raw image as virtio-blk")
    p.add_argument("--timeout", type=int, default=900, help="seconds before the guest is killed")
    p.add_argument("--dmesg", metavar="FILE", help="write the guest's dmesg at exit to FILE")
    p.add_argument("--console", metavar="FILE",
                   help="write the serial console to FILE ('-': stream it to stderr)")
    a = p.parse_args(argv)
    files = []
    for spec in a.file:
        host, _, guest = spec.partition(":")
        files.append((host, guest or "/klab/" + os.path.basename(host)))
    stream = [sys.stderr] if a.console == "-" else None
    try:
        r = boot(a.bzimage, a.prog, a.args, cpus=a.cpus, nodes=a.nodes, mem=a.mem,
                 accel=a.accel, append=a.append, files=files, disks=a.disk,
                 timeout=a.timeout, dmesg=bool(a.dmesg), console_stream=stream)
    except BootError as e:
        print("klab boot: %s" % e, file=sys.stderr)
        return 2
    sys.stdout.write(r.stdout)
    if a.console and a.console != "-":
        with open(a.console, "w") as f:
            f.write(r.console)
    if a.dmesg:
        with open(a.dmesg, "w") as f:
            f.write(r.dmesg)
    acc = r.accel + (" (%s)" % r.accel_note if r.accel_note else "")
    if r.status is None:
        why = "timed out after %d s" % a.timeout if r.timed_out else "ended without an exit status"
        print("klab boot: guest %s; accel %s; console tail:" % (why, acc), file=sys.stderr)
        sys.stderr.write("".join(r.console.splitlines(True)[-30:]))
        return 125
    print("klab boot: accel %s, /init at %.2f s guest uptime, exit %d, %.1f s wall"
          % (acc, r.init_uptime or -1, r.status, r.wall), file=sys.stderr)
    return r.status
