# SPDX-License-Identifier: GPL-2.0
"""klab's command table: every row has its module's arguments() and main();
`kernel/klab --help` lists every command and `klab CMD --help` works for
each (run by path, as a user runs it); an unknown command exits 2; every
command is in kernel/README.md.
Run: python3 tests/kernel/test_cli.py (make check: Meson test kernel_cli)."""
import argparse
import os
import subprocess
import sys
import unittest

import klabtest
from klab import cli

KLAB = os.path.join(klabtest.REPO, "kernel", "klab")


def klab(*args):
    return subprocess.run([sys.executable, KLAB] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=60)


class Table(unittest.TestCase):
    def test_rows(self):
        names = [c.name for c in cli.COMMANDS]
        self.assertEqual(len(names), len(set(names)))
        for c in cli.COMMANDS:
            self.assertTrue(callable(c.arguments) and callable(c.main), c.name)
            p = argparse.ArgumentParser()
            c.arguments(p)

    def test_help_lists_every_command(self):
        r = klab("--help")
        self.assertEqual(r.returncode, 0, r.stderr)
        for c in cli.COMMANDS:
            self.assertIn("  %s " % c.name, r.stdout)
            h = klab(c.name, "--help")
            self.assertEqual(h.returncode, 0, c.name + h.stderr)
            self.assertIn("usage: klab " + c.name, h.stdout)

    def test_no_command_and_unknown_command_exit_2(self):
        self.assertEqual(klab().returncode, 2)
        r = klab("nope")
        self.assertEqual(r.returncode, 2)
        self.assertIn("unknown command", r.stderr)

    def test_readme_names_every_command(self):
        with open(os.path.join(klabtest.REPO, "kernel", "README.md")) as f:
            text = f.read()
        for c in cli.COMMANDS:
            self.assertTrue("klab " + c.name in text, "kernel/README.md does not name klab " + c.name)


if __name__ == "__main__":
    unittest.main()
