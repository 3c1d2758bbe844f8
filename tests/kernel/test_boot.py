# SPDX-License-Identifier: GPL-2.0
"""klab.boot without QEMU: the initramfs is a valid newc archive that holds
busybox, /init, the program, its arguments (shell-quoted) and environment,
with a fresh inode per entry and the same bytes for the same input (no
counter carried from one archive to the next); the QEMU command line and
/klab/env follow the BootSpec; the status port's lines fill the result.
Run: python3 tests/kernel/test_boot.py (make check: Meson test kernel_boot)."""
import os
import shlex
import tempfile
import unittest

import klabtest  # noqa: F401  (the klab package on the path)
from klab import boot


def read_newc(data):
    """[(name, ino, mode, rdevmajor, rdevminor, bytes)] of a newc archive."""
    out, off = [], 0
    while True:
        assert data[off:off + 6] == b"070701", "bad magic at %d" % off
        f = [int(data[off + 6 + 8 * i: off + 14 + 8 * i], 16) for i in range(13)]
        ino, mode, filesize, rmaj, rmin, namesize = f[0], f[1], f[6], f[9], f[10], f[11]
        off += 110
        name = data[off:off + namesize - 1].decode()
        off += namesize + (-(110 + namesize) % 4)
        body = data[off:off + filesize]
        off += filesize + (-filesize % 4)
        if name == "TRAILER!!!":
            return out
        out.append((name, ino, mode, rmaj, rmin, body))


class Initramfs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.prog = os.path.join(self.tmp.name, "prog")
        with open(self.prog, "wb") as f:
            f.write(b"\x7fELF program")
        self.old_busybox = boot.BUSYBOX
        boot.BUSYBOX = self.prog    # any file will do: it is only copied

    def tearDown(self):
        boot.BUSYBOX = self.old_busybox
        self.tmp.cleanup()

    def archive(self):
        return boot.initramfs([(self.prog, "/klab/bin/prog"), (self.prog, "/a/b/c/data")],
                              {"KLAB_X": "two words", "KLAB_DMESG": "1"},
                              ["/klab/bin/prog", "--design", "it's"])

    def test_entries(self):
        e = {name: (ino, mode, rmaj, rmin, body)
             for name, ino, mode, rmaj, rmin, body in read_newc(self.archive())}
        for d in ("bin", "klab", "klab/bin", "a", "a/b", "a/b/c", "dev"):
            self.assertEqual(e[d][1], 0o040755, d)
        self.assertEqual(e["dev/console"][1:4], (0o020600, 5, 1))
        self.assertEqual(e["klab/bin/prog"][4], b"\x7fELF program")
        self.assertEqual(e["bin/busybox"][4], b"\x7fELF program")
        self.assertTrue(e["init"][4].startswith(b"#!/bin/busybox sh"))
        self.assertEqual(shlex.split(e["klab/args"][4].decode()),
                         ["/klab/bin/prog", "--design", "it's"])
        env = dict(line.split("=", 1) for line in e["klab/env"][4].decode().split("\n") if line)
        self.assertEqual(shlex.split(env["KLAB_X"]), ["two words"])

    def test_fresh_inodes_and_same_bytes_each_time(self):
        a, b = self.archive(), self.archive()
        self.assertEqual(a, b)
        inos = [x[1] for x in read_newc(a)]
        self.assertEqual(len(inos), len(set(inos)))


class Spec(unittest.TestCase):
    def test_qemu_command_line(self):
        s = boot.BootSpec(kernel="bz", prog="p", cpus=2, nodes=4, mem=6144, append="no5lvl",
                          disks=["w.img", "s.img"], panic_on_oops=True)
        cmd = boot.qemu_cmd(s, "initrd.gz", "tcg", "console", "out", "status")
        self.assertEqual(cmd[cmd.index("-m") + 1], "6144")
        self.assertEqual(cmd[cmd.index("-smp") + 1], "2")
        append = cmd[cmd.index("-append") + 1].split()
        for word in ("numa=fake=4", "oops=panic", "no5lvl", "console=ttyS0"):
            self.assertIn(word, append)
        self.assertEqual(cmd[cmd.index("-accel") + 1], "tcg")
        drives = [cmd[i + 1] for i, x in enumerate(cmd) if x == "-drive"]
        self.assertEqual([d.split(",")[0] for d in drives], ["file=w.img", "file=s.img"])
        one = boot.qemu_cmd(boot.BootSpec(kernel="bz", prog="p"), "i", "tcg", "c", "o", "s")
        self.assertNotIn("numa=fake=1", " ".join(one))

    def test_clock(self):
        spec = boot.BootSpec(kernel="bz", prog="p", clock="icount=2")
        cmd = boot.qemu_cmd(spec, "i", "tcg", "c", "o", "s")
        self.assertEqual(cmd[cmd.index("-icount") + 1], "shift=2,sleep=off,align=off")
        self.assertIn("-seed", cmd)
        for clock, accel in (("wall", "tcg"), ("icount", "kvm")):
            cmd = boot.qemu_cmd(boot.BootSpec("bz", "p", clock=clock), "i", accel, "c", "o", "s")
            self.assertNotIn("-icount", cmd)
        self.assertEqual(boot.parse_clock("icount"), boot.ICOUNT_SHIFT)
        self.assertIsNone(boot.parse_clock("wall"))
        for bad in ("icount=", "icount=x", "icount=11", "cycles"):
            with self.assertRaises(ValueError):
                boot.parse_clock(bad)
        self.assertIn("icount shift=3", boot.clock_words("icount", "tcg"))
        self.assertTrue(boot.clock_words("icount", "kvm").startswith("wall"))

    def test_guest_env_names_the_disks(self):
        both = boot.guest_env(boot.BootSpec("bz", "p", workdisk=True, swapdisk=True,
                                            cwd="/work", dmesg=True))
        self.assertEqual((both["KLAB_WORKDISK"], both["KLAB_SWAPDISK"], both["KLAB_CWD"],
                          both["KLAB_DMESG"]), ("/dev/vda", "/dev/vdb", "/work", "1"))
        swap = boot.guest_env(boot.BootSpec("bz", "p", swapdisk=True))
        self.assertEqual(swap["KLAB_SWAPDISK"], "/dev/vda")
        self.assertNotIn("KLAB_WORKDISK", swap)

    def test_specs_do_not_share_lists(self):
        a, b = boot.BootSpec("bz", "p"), boot.BootSpec("bz", "p")
        a.files.append(("x", "/x"))
        self.assertEqual(b.files, [])

    def test_status_port(self):
        r = boot.BootResult()
        boot.parse_status("KLAB-INIT 3.25\nKLAB-DMESG-BEGIN\n[ 1.0] one\n[ 2.0] two\n"
                          "KLAB-DMESG-END\nKLAB-EXIT 7\n", r)
        self.assertEqual((r.init_uptime, r.status, r.dmesg), (3.25, 7, "[ 1.0] one\n[ 2.0] two"))
        r = boot.BootResult()
        boot.parse_status("KLAB-INIT 3.25\n", r)
        self.assertIsNone(r.status)


if __name__ == "__main__":
    unittest.main()
