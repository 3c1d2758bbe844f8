# SPDX-License-Identifier: GPL-2.0
"""The guest's programs built from an experiment script of
tools/shrinklab/scripts/ (klab.guest.shared_programs(): the script is
compiled into the guest as into shrinklab) compile on the host as klab
builds them, static, -O2 -Werror: a change to a script, or to the world
interface (world.h), is built for both worlds by make check, not first at
the next boot. (The guest's other programs are built from kernel/guest/
alone, at every klab run.)
Run: python3 tests/kernel/test_guest.py (make check: Meson test kernel_guest)."""
import os
import shutil
import subprocess
import tempfile
import unittest

import klabtest  # noqa: F401  (the klab package on the path)
from klab import guest, run


def static_libc():
    """Can gcc link a static program here (libc.a installed)?"""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "t.c")
        with open(src, "w") as f:
            f.write("int main(void) { return 0; }\n")
        r = subprocess.run(["gcc", "-static", "-o", os.path.join(tmp, "t"), src],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return r.returncode == 0


class Programs(unittest.TestCase):
    def test_klab_guest_is_built_from_the_script(self):
        self.assertIn("klab-guest", guest.shared_programs())
        self.assertIn("../../tools/shrinklab/scripts/kernel_lab.c", guest.PROGRAMS["klab-guest"])

    def test_shared_programs_build_static(self):
        if not shutil.which("gcc"):
            self.skipTest("no gcc")
        if not static_libc():
            self.skipTest("no static libc (libc6-dev's libc.a)")
        names = guest.shared_programs()
        with tempfile.TemporaryDirectory() as tmp:
            progs = guest.compile_programs(run.Run(tmp), only=names)
            self.assertEqual(sorted(progs), sorted(names))
            for name, path in progs.items():
                with open(path, "rb") as f:
                    self.assertEqual(f.read(4), b"\x7fELF", name)
                if shutil.which("file"):
                    out = subprocess.run(["file", path], stdout=subprocess.PIPE,
                                         text=True).stdout
                    self.assertIn("statically linked", out, name)


if __name__ == "__main__":
    unittest.main()
