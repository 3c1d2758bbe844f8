# SPDX-License-Identifier: GPL-2.0
"""klab.uml and klab.machine without a kernel: the machine a guest gets
(auto: UML for one node, QEMU for more; UML refused for NUMA), the clock
each keeps, an image's machine from its bytes, UML's command line (hostfs
root, memory, ubd disks, ncpus only for an SMP kernel), its hostfs root
(the same /init as QEMU's, with files for the program's stdout and the
status), QEMU's disk names rewritten as UML's, and a boot that refuses what
UML cannot do before it starts anything.
Run: python3 tests/kernel/test_uml.py (make check: Meson test kernel_uml)."""
import os
import shlex
import tempfile
import unittest

import klabtest  # noqa: F401  (the klab package on the path)
from klab import boot, machine, uml


class Machine(unittest.TestCase):
    def test_auto_is_uml_for_one_node_and_qemu_for_more(self):
        self.assertEqual(machine.choose("auto", 1), "uml")
        self.assertEqual(machine.choose("auto", 4), "qemu")

    def test_asked_machine_is_kept(self):
        self.assertEqual(machine.choose("qemu", 1), "qemu")
        self.assertEqual(machine.choose("uml", 1), "uml")

    def test_uml_with_numa_is_refused(self):
        with self.assertRaises(SystemExit):
            machine.choose("uml", 4)

    def test_clock(self):
        self.assertEqual(machine.clock("uml", "icount"), "wall")
        self.assertEqual(machine.clock("qemu", "icount"), "icount")
        self.assertEqual(machine.clock("qemu", "wall"), "wall")

    def test_config(self):
        self.assertEqual(machine.config("uml"), "uml")
        self.assertEqual(machine.config("qemu"), "lab")
        self.assertEqual(machine.config("qemu", "debug"), "debug")

    def test_of_image(self):
        with tempfile.TemporaryDirectory() as tmp:
            elf, bz = os.path.join(tmp, "linux"), os.path.join(tmp, "bzImage")
            with open(elf, "wb") as f:
                f.write(b"\x7fELF\x02\x01\x01")
            with open(bz, "wb") as f:
                f.write(b"MZ\xea\x07")
            self.assertEqual(machine.of_image(elf), "uml")
            self.assertEqual(machine.of_image(bz), "qemu")
            self.assertEqual(machine.of_image(os.path.join(tmp, "none")), "qemu")


class Root(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.prog = os.path.join(self.tmp.name, "prog")
        with open(self.prog, "wb") as f:
            f.write(b"\x7fELF program")
        self.busybox = os.path.join(self.tmp.name, "busybox")
        with open(self.busybox, "wb") as f:
            f.write(b"\x7fELF busybox")
        self.old_busybox = boot.BUSYBOX
        boot.BUSYBOX = self.busybox
        self.kernel = os.path.join(self.tmp.name, "linux")
        with open(self.kernel, "wb") as f:
            f.write(b"\x7fELF kernel")
        os.chmod(self.kernel, 0o755)

    def tearDown(self):
        boot.BUSYBOX = self.old_busybox
        self.tmp.cleanup()

    def spec(self, **kw):
        kw.setdefault("kernel", self.kernel)
        return boot.BootSpec(prog=self.prog, machine="uml", **kw)

    def test_root_holds_init_program_args_env(self):
        root = os.path.join(self.tmp.name, "root")
        spec = self.spec(args=["a b", "swap=/dev/vda"], env={"X": "1 2"}, workdisk=True)
        argv = uml.make_root(spec, root)
        self.assertEqual(argv, ["/klab/bin/prog", "a b", "swap=/dev/ubda"])
        with open(os.path.join(root, "klab/args")) as f:
            self.assertEqual(shlex.split(f.read()), argv)
        with open(os.path.join(root, "klab/env")) as f:
            env = f.read()
        self.assertIn("X='1 2'\n", env)
        self.assertIn("KLAB_WORKDISK=/dev/ubda\n", env)
        with open(os.path.join(root, "init")) as f:
            init = f.read()
        self.assertIn('"$@" > /klab/out 2> /dev/console', init)
        self.assertIn('echo "KLAB-EXIT $rc" >> /klab/status', init)
        self.assertIn("mount -t tmpfs tmpfs /mnt", init)
        self.assertNotIn("ttyS", init)
        self.assertTrue(os.access(os.path.join(root, "init"), os.X_OK))
        with open(os.path.join(root, "bin/busybox"), "rb") as f:
            self.assertEqual(f.read(), b"\x7fELF busybox")
        with open(os.path.join(root, "klab/bin/prog"), "rb") as f:
            self.assertEqual(f.read(), b"\x7fELF program")

    def test_qemu_init_is_unchanged_by_the_template(self):
        self.assertIn('"$@" > /dev/ttyS1 2> /dev/console', boot.INIT_SCRIPT)
        self.assertIn("stty -F /dev/ttyS2 raw -echo", boot.INIT_SCRIPT)
        self.assertNotIn("@", boot.INIT_SCRIPT.replace("$@", ""))

    def test_command_line(self):
        cmd = uml.command(self.spec(mem=3072, disks=["/d0", "/d1"], append="x=1 y"), "/r")
        self.assertEqual(cmd[0], self.kernel)
        for w in ("mem=3072M", "rootfstype=hostfs", "hostfs=/r", "init=/init", "ubd0=/d0",
                  "ubd1=/d1", "x=1", "y"):
            self.assertIn(w, cmd)
        self.assertFalse(any(w.startswith("ncpus=") for w in cmd))
        self.assertNotIn("seccomp=on", cmd)

    def test_ncpus_only_for_an_smp_kernel(self):
        with open(self.kernel + ".config", "w") as f:
            f.write("CONFIG_UML=y\nCONFIG_SMP=y\n")
        cmd = uml.command(self.spec(cpus=4), "/r")
        self.assertIn("ncpus=4", cmd)
        self.assertIn("seccomp=on", cmd)  # 7.3's UML refuses SMP under ptrace

    def test_ubd_words(self):
        self.assertEqual(uml.ubd_words("disk=/dev/vdb,swap=/dev/vda"),
                         "disk=/dev/ubdb,swap=/dev/ubda")
        self.assertEqual(uml.ubd_words("/dev/vdaa /dev/vda1"), "/dev/vdaa /dev/vda1")

    def test_refused_before_anything_runs(self):
        with self.assertRaises(boot.BootError):
            boot.boot(self.spec(nodes=4))
        with self.assertRaises(boot.BootError):
            boot.boot(self.spec(clock="icount"))
        with self.assertRaises(boot.BootError):
            boot.boot(self.spec(kernel=os.path.join(self.tmp.name, "missing")))


if __name__ == "__main__":
    unittest.main()
