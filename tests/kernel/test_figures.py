# SPDX-License-Identifier: GPL-2.0
"""Every figure the 7.3 series' cover letters and changelogs quote matches
the committed results file kernel/patches/figures.tsv names for it
(klab/figures.py), every cover letter's N/M counts the series' patches,
and every 7.3 series has a cover letter ending in `base-commit:` the 7.3
base's commit (bases.py: what kernel/scripts/base-tree makes of the
tarball klab applies the series to).
The checker is shown to fail first: on a figure changed by one digit, a
figure with no source, a results file that is not there, a table cell of
another kernel, a quote the message does not hold, a wrong N/M, and a
series with no cover letter, no base-commit, another base's, or one in a
patch.
Run: python3 tests/kernel/test_figures.py (make check: Meson test kernel_figures)."""
import os
import tempfile
import unittest

import klabtest  # noqa: F401  (the klab package on the path)
from klab import bases, designs, figures, paths

REPO = os.path.dirname(paths.KDIR)
MANIFEST = os.path.join(paths.PATCHES, "figures.tsv")


def series_73():
    """The 7.3 series' directories (design on base 7.3, in the repo)."""
    return [d.dir for d in designs.in_repo(paths.PATCHES, base="7.3") if d.dir]


def messages_73():
    out = []
    for d in series_73():
        out += sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".patch"))
        cover = d + ".cover"
        if os.path.exists(cover):
            out.append(cover)
    return out


TABLE = """== qizheng (clock: icount)
  metric            better  kernel:mainline        kernel:xarray
  ----------------  ------  ---------------------  ---------------------
  write_ns_per_mib  lower   211.23 ms [172..246]*  381.49 ms [328..440]
                                                   x1.81 [1.78..1.86] higher
"""


class Repo(unittest.TestCase):
    def test_the_73_series_figures_match_their_results(self):
        msgs = messages_73()
        self.assertTrue(msgs)
        bad = figures.check(REPO, paths.PATCHES, figures.read_manifest(MANIFEST), msgs)
        self.assertEqual(bad, [], "\n".join(bad))

    def test_the_73_cover_letters_count_their_patches(self):
        bad = []
        for d in series_73():
            for c in [os.path.join(d, "0000-cover-letter.patch"), d + ".cover"]:
                if os.path.exists(c):
                    bad += figures.cover_numbering(d, c)
        self.assertEqual(bad, [], "\n".join(bad))

    def test_every_73_series_names_its_base_commit(self):
        commit = bases.BASES["7.3"].commit
        self.assertRegex(commit, r"^[0-9a-f]{40}$")
        series = series_73()
        self.assertGreaterEqual(len(series), 8)
        bad = []
        for d in series:
            bad += figures.base_commit(d, commit)
        self.assertEqual(bad, [], "\n".join(bad))


class Checker(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.repo = self.tmp.name
        self.pd = os.path.join(self.repo, "kernel/patches")
        os.makedirs(os.path.join(self.pd, "s"))
        os.makedirs(os.path.join(self.repo, "docs"))
        with open(os.path.join(self.repo, "docs/w.txt"), "w") as f:
            f.write(TABLE + "\nid-reuse: stale-bit delay 1500 ms; 352 352 352 left, 6/6\n")
        self.cover = os.path.join(self.pd, "s/0000-cover-letter.patch")
        self.patch = os.path.join(self.pd, "s/0001-x.patch")
        self.write("On the old form the stress ran 1.81x\nslower, 381.49 ms per MiB.\n",
                   "A delay of 1.5 s left 352 dentries in 6 of 6 rounds.\n")
        self.rows = [
            (1, "s/0000-*", "the stress ran 1.81x slower, 381.49 ms per MiB", "docs/w.txt",
             "table:qizheng/write_ns_per_mib/xarray"),
            (2, "s/0001-*", "A delay of 1.5 s left 352 dentries in 6 of 6 rounds",
             "docs/w.txt", "text:delay 1500 ms && 352 352 352 left, 6/6"),
        ]

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, cover_body, patch_body):
        with open(self.cover, "w") as f:
            f.write("From 0 Mon Sep 17 00:00:00 2001\nSubject: [PATCH 0/1] t\n\n"
                    "  1/1 the change\n\n" + cover_body)
        with open(self.patch, "w") as f:
            f.write("From 0 Mon Sep 17 00:00:00 2001\nSubject: [PATCH 1/1] t\n\n" +
                    patch_body + "\n---\n 1.99x in the diffstat is no figure\n")

    def check(self):
        return figures.check(self.repo, self.pd, self.rows, [self.cover, self.patch])

    def test_right_figures_pass(self):
        self.assertEqual(self.check(), [])
        self.assertEqual(figures.cover_numbering(os.path.join(self.pd, "s"), self.cover), [])

    def test_a_figure_one_digit_off_fails(self):
        self.write("On the old form the stress ran 1.82x\nslower, 381.49 ms per MiB.\n",
                   "A delay of 1.5 s left 352 dentries in 6 of 6 rounds.\n")
        self.rows[0] = (1, "s/0000-*", "the stress ran 1.82x slower, 381.49 ms per MiB",
                        "docs/w.txt", "table:qizheng/write_ns_per_mib/xarray")
        self.assertTrue(any("'1.82x' is not what" in b for b in self.check()))
        self.rows[1] = (2, "s/0001-*", "A delay of 1.5 s left 353 dentries in 6 of 6 rounds",
                        "docs/w.txt", "text:delay 1500 ms && 352 352 352 left, 6/6")
        self.assertTrue(any("'353 dentries'" in b for b in self.check()))

    def test_a_figure_without_a_source_fails(self):
        self.write("On the old form the stress ran 1.81x\nslower, 381.49 ms per MiB; "
                   "and 2 boots.\n", "A delay of 1.5 s left 352 dentries in 6 of 6 rounds.\n")
        self.assertEqual(self.check(), ["s/0000-cover-letter.patch: '2 boots' has no "
                                        "source in figures.tsv"])

    def test_another_kernels_cell_or_a_missing_file_fails(self):
        self.rows[0] = self.rows[0][:4] + ("table:qizheng/write_ns_per_mib/mainline",)
        self.assertTrue(any("is not what" in b for b in self.check()))
        self.rows[0] = self.rows[0][:3] + ("docs/none.txt", self.rows[0][4])
        self.assertTrue(any("does not hold" in b for b in self.check()))

    def test_a_quote_the_message_does_not_hold_fails(self):
        self.write("The stress ran 1.81x slower.\n",
                   "A delay of 1.5 s left 352 dentries in 6 of 6 rounds.\n")
        bad = self.check()
        self.assertTrue(any("does not say" in b for b in bad))
        self.assertTrue(any("'1.81x' has no source" in b for b in bad))

    def test_the_cover_counts_the_series_patches(self):
        with open(self.cover, "a") as f:
            f.write("\n  2/2 a patch that went\n")
        self.assertEqual(figures.cover_numbering(os.path.join(self.pd, "s"), self.cover),
                         ["0000-cover-letter.patch: 2/2, but the series has 1 patches"])

    def test_the_base_commit_ends_the_cover(self):
        d = os.path.join(self.pd, "s")
        base = "0123456789abcdef0123456789abcdef01234567"
        self.assertEqual(figures.base_commit(d, base),
                         ["s: the cover letter does not end in a base-commit line"])
        with open(self.cover, "a") as f:
            f.write("\n\nbase-commit: %s\n" % base.replace("0", "f"))
        self.assertEqual(figures.base_commit(d, base), [
            "s: base-commit %s, but the base's commit is %s" % (base.replace("0", "f"), base)])
        with open(self.cover, "a") as f:
            f.write("base-commit: %s\n" % base)
        self.assertEqual(figures.base_commit(d, base), [])
        with open(self.patch, "a") as f:
            f.write("\nbase-commit: %s\n" % base)
        self.assertEqual(figures.base_commit(d, base),
                         ["s: a base-commit line in a patch: 0001-x.patch"])
        os.remove(self.cover)
        self.assertEqual(figures.base_commit(d, base),
                         ["s: 0 cover letters, want one with the base-commit"])

    def test_what_counts_as_a_figure(self):
        got = [f for _, _, f in figures.figures(
            "7.3-rc7 and 6.12.117, patch 2/2 of v2, 64 ids; 1.81x, 2.7x-6.0x, 12%, "
            "1.5 s, 78 KB, 6 of 6, 3 boots")]
        self.assertEqual(got, ["1.81x", "2.7x-6.0x", "12%", "1.5 s", "78 KB", "6 of 6",
                               "3 boots"])


if __name__ == "__main__":
    unittest.main()
