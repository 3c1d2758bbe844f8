# SPDX-License-Identifier: GPL-2.0
"""kernel/scripts/export-series renders a sendable series: from a branch of
a kernel git repository it writes the patches and the cover letter with
the To: and Cc: that the tree's scripts/get_maintainer.pl names (the
cover's for the whole series, each patch's for that patch, through
kernel/scripts/cover-recipients), `base-commit:` the base branch's id, and
no From: header; it fails when the tree has no get_maintainer.pl to ask.
The tree here is a small git repository with its own get_maintainer.pl,
which names a maintainer and a list for mm/shrinker.c and a reviewer more
for mm/list_lru.c.
Run: python3 tests/kernel/test_export.py (make check: Meson test kernel_export)."""
import os
import shutil
import subprocess
import tempfile
import unittest

import klabtest

EXPORT = os.path.join(klabtest.REPO, "kernel", "scripts", "export-series")

GET_MAINTAINER = r"""#!/usr/bin/perl
# names people by the files the patches given touch
my %files;
for my $p (grep { !/^--/ } @ARGV) {
	open(my $f, '<', $p) or die "$p: $!";
	while (<$f>) { $files{$1} = 1 if m{^\+\+\+ b/(\S+)}; }
}
if ($files{'mm/shrinker.c'} || $files{'mm/list_lru.c'}) {
	print "Ann Keeper <ann\@example.org> (maintainer:SHRINKER)\n";
}
if ($files{'mm/list_lru.c'}) {
	print "Bo Reader <bo\@example.org> (reviewer:MEMCG)\n";
}
print "linux-mm\@kvack.org (open list:SHRINKER)\n";
"""


def git(repo, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.org",
               GIT_AUTHOR_DATE="@1764633600 +0000", GIT_COMMITTER_DATE="@1764633600 +0000",
               GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    return subprocess.run(["git", "-C", repo] + list(args), env=env, check=True,
                          capture_output=True, text=True).stdout.strip()


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def header(text):
    return text.partition("\n\n")[0]


@unittest.skipUnless(shutil.which("git") and shutil.which("perl"), "needs git and perl")
class ExportSeries(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.repo = repo = os.path.join(cls.tmp.name, "linux")
        os.makedirs(repo)
        git(repo, "init", "-q", "-b", "master")
        write(os.path.join(repo, "MAINTAINERS"), "SHRINKER\nF:\tmm/shrinker.c\n")
        write(os.path.join(repo, "scripts/get_maintainer.pl"), GET_MAINTAINER)
        write(os.path.join(repo, "mm/shrinker.c"), "int a;\n")
        write(os.path.join(repo, "mm/list_lru.c"), "int b;\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "base")
        cls.base = git(repo, "rev-parse", "HEAD")
        git(repo, "checkout", "-q", "-b", "s")
        write(os.path.join(repo, "mm/shrinker.c"), "int a = 1;\n")
        git(repo, "commit", "-q", "-am", "mm: shrinker: one\n\nThe first change.")
        write(os.path.join(repo, "mm/list_lru.c"), "int b = 2;\n")
        git(repo, "commit", "-q", "-am", "mm: list_lru: two\n\nThe second change.")
        cls.exported = cls.export("out")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    @classmethod
    def export(cls, name):
        patches = os.path.join(cls.tmp.name, name)
        write(os.path.join(patches, "s.cover"), "the series\n\nWhat it does.\n")
        r = subprocess.run([EXPORT, "-C", cls.repo, "--patches", patches, "s"],
                           capture_output=True, text=True)
        return r, os.path.join(patches, "s")

    def files(self):
        r, d = self.exported
        self.assertEqual(r.returncode, 0, r.stderr)
        out = {}
        for f in sorted(os.listdir(d)):
            with open(os.path.join(d, f)) as fh:
                out[f] = fh.read()
        return out

    def test_the_cover_and_each_patch_carry_their_recipients(self):
        files = self.files()
        cover, one, two = (files[f] for f in sorted(files))
        self.assertIn("Subject: [PATCH 0/2] the series\n"
                      "To: Ann Keeper <ann@example.org>\n"
                      "Cc: Bo Reader <bo@example.org>,\n linux-mm@kvack.org", header(cover))
        self.assertIn("To: Ann Keeper <ann@example.org>\nCc: linux-mm@kvack.org",
                      header(one))
        self.assertNotIn("Bo Reader", one)
        self.assertIn("Cc: Bo Reader <bo@example.org>,\n linux-mm@kvack.org", header(two))

    def test_the_cover_names_the_base_and_no_author(self):
        files = self.files()
        cover = files[sorted(files)[0]]
        self.assertEqual(cover.rstrip("\n").split("\n")[-1], "base-commit: " + self.base)
        self.assertIn("What it does.", cover)
        for name, text in files.items():
            self.assertNotRegex(header(text), r"(?m)^From: ", name)
        self.assertNotIn("t (2):", cover)          # the shortlog's author line went too

    def with_get_maintainer(self, text, name):
        path = os.path.join(self.repo, "scripts/get_maintainer.pl")
        try:
            if text is None:
                os.remove(path)
            else:
                write(path, text)
            return self.export(name)
        finally:
            write(path, GET_MAINTAINER)

    def test_no_get_maintainer_no_export(self):
        r, d = self.with_get_maintainer(None, "none")
        self.assertEqual(r.returncode, 2)
        self.assertIn("get_maintainer.pl", r.stderr)
        self.assertFalse(os.path.exists(d))

    def test_a_failing_get_maintainer_fails_the_export(self):
        r, _ = self.with_get_maintainer("exit 3;\n", "failing")
        self.assertEqual(r.returncode, 1)
        self.assertIn("no To/Cc", r.stderr)


if __name__ == "__main__":
    unittest.main()
