# SPDX-License-Identifier: GPL-2.0
"""klab.designs: every directory of a patches directory that holds *.patch
is a design, except debug/ (test aids); a cover letter is in no series;
mainline comes first, unknown names are refused, and designs build in order
of the headers they touch. The repo's own kernel/patches/ passes the same
rules, and names no author: an exported patch or cover letter carries no
From: header and no shortlog author line (the submitter adds their own),
no Signed-off-by (the submitter's) and no placeholder address (.invalid,
localhost, example domains) anywhere, nor does a <design>.cover. An outside series (--series DIR, or --git TREE --range BASE..TIP of a
real git repository here) joins them with its name, refused when it would
shadow a design; a config fragment gives it configs of its own. The
patches the 7.3 series share are what kernel/patches/README.md says
(SharedPatches).
Run: python3 tests/kernel/test_designs.py (make check: Meson test kernel_designs)."""
import argparse
import os
import re
import subprocess
import tempfile
import unittest
from unittest import mock

import kernelsrc
import klabtest  # noqa: F401  (the klab package on the path)
from kernelsrc import FILES, edit, patch_text, write_series
from klab import bases, build, designs


class Discovery(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        pd = self.pd = self.tmp.name
        header = patch_text({"include/linux/shrinker.h": edit(
            FILES["include/linux/shrinker.h"], 1, "x")})
        dotc = patch_text({"mm/shrinker.c": edit(FILES["mm/shrinker.c"], 1, "x")})
        write_series(os.path.join(pd, "zz-header"), [header, dotc], cover=True)
        write_series(os.path.join(pd, "aa-dotc"), [dotc])
        write_series(os.path.join(pd, "debug"), [dotc])      # test aids, not a design
        os.makedirs(os.path.join(pd, "empty"))
        with open(os.path.join(pd, "README.md"), "w") as f:
            f.write("not a design\n")

    def tearDown(self):
        self.tmp.cleanup()

    def test_in_repo(self):
        found = designs.in_repo(self.pd)
        self.assertEqual([d.name for d in found], ["mainline", "aa-dotc", "zz-header"])
        self.assertEqual(found[0], designs.MAINLINE)
        self.assertEqual(len(found[2].patches), 2)       # no cover letter
        self.assertEqual(found[2].headers_touched(), ["include/linux/shrinker.h"])

    def test_select(self):
        found = designs.in_repo(self.pd)
        self.assertEqual([d.name for d in designs.select(["zz-header", "mainline"], found)],
                         ["mainline", "zz-header"])
        self.assertEqual(designs.select([], found), found)
        with self.assertRaises(SystemExit):
            designs.select(["debug"], found)

    def test_build_order_puts_header_changes_last(self):
        found = designs.in_repo(self.pd)
        self.assertEqual([d.name for d in designs.build_order(list(reversed(found)))],
                         ["mainline", "aa-dotc", "zz-header"])

    def test_series_hash_follows_the_bytes(self):
        a = designs.in_repo(self.pd)[1]
        h = a.series_hash()
        with open(a.patches[0], "a") as f:
            f.write("\n")
        self.assertNotEqual(designs.from_dir("aa-dotc", a.dir).series_hash(), h)

    def test_directory_without_a_diff_is_refused(self):
        d = os.path.join(self.pd, "cover-only")
        os.makedirs(d)
        with open(os.path.join(d, "0000-cover-letter.patch"), "w") as f:
            f.write(kernelsrc.COVER)
        with self.assertRaisesRegex(RuntimeError, "no patches with a diff"):
            designs.from_dir("cover-only", d)

    def test_the_repos_designs(self):
        found = designs.in_repo()
        self.assertEqual(found[0].name, "mainline")
        self.assertNotIn("debug", [d.name for d in found])
        for d in found[1:]:
            self.assertTrue(d.patches, d.name)
            for p in d.patches:
                self.assertTrue(designs.has_diff(p), p)


def parse(argv):
    p = argparse.ArgumentParser()
    designs.add_arguments(p)
    return p.parse_args(argv)


class Outside(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = os.path.join(self.tmp.name, "out")
        self.env = mock.patch.dict(os.environ, {"KLAB_OUT": self.out})
        self.env.start()
        self.series = write_series(os.path.join(self.tmp.name, "myfix"), [patch_text(
            {"mm/shrinker.c": edit(FILES["mm/shrinker.c"], 3, "their change")})], cover=True)

    def tearDown(self):
        self.env.stop()
        self.tmp.cleanup()

    def test_directory(self):
        chosen = designs.from_args(parse(["--series", self.series, "mainline"]))
        self.assertEqual([d.name for d in chosen], ["mainline", "myfix"])
        self.assertEqual(len(chosen[1].patches), 1)          # cover letter left out
        self.assertEqual(chosen[1].origin, self.series)
        chosen = designs.from_args(parse(["--series", self.series, "--name", "theirs"]))
        self.assertEqual(chosen[-1].name, "theirs")
        self.assertEqual(chosen[:-1], designs.in_repo())     # beside every design

    def test_refused(self):
        for argv in (["--series", self.series, "--name", "mainline"],
                     ["--series", self.series, "--name", "debug"],
                     ["--series", self.series, "--name", "a/b"],
                     ["--series", self.tmp.name + "/nope"],
                     ["--series", self.series, "--git", self.tmp.name],
                     ["--git", self.tmp.name],
                     ["--name", "x"],
                     ["--series", self.series, "--config-fragment", "/nonexistent"]):
            with self.assertRaises(SystemExit, msg=argv):
                designs.from_args(parse(argv))

    def test_git_range(self):
        repo = os.path.join(self.tmp.name, "linux")
        git = ["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"]
        os.makedirs(os.path.join(repo, "mm"))
        with open(os.path.join(repo, "mm/shrinker.c"), "w") as f:
            f.write(FILES["mm/shrinker.c"])
        subprocess.run(["git", "init", "-q", repo], check=True)
        subprocess.run(git + ["add", "."], check=True)
        subprocess.run(git + ["commit", "-qm", "base"], check=True)
        subprocess.run(git + ["tag", "base"], check=True)
        for i in (1, 2):
            with open(os.path.join(repo, "mm/shrinker.c"), "w") as f:
                f.write(edit(FILES["mm/shrinker.c"], i, "commit %d" % i))
            subprocess.run(git + ["commit", "-qam", "change %d" % i], check=True)
        chosen = designs.from_args(parse(["--git", repo, "--range", "base..HEAD", "--name",
                                          "topic", "mainline"]))
        d = chosen[-1]
        self.assertEqual((d.name, len(d.patches)), ("topic", 2))
        self.assertTrue(d.dir.startswith(self.out))
        self.assertEqual(d.touched_files(), {"mm/shrinker.c"})
        with self.assertRaises(SystemExit):
            designs.from_args(parse(["--git", repo, "--range", "base", "--name", "t"]))

    def test_config_fragment_builds_apart(self):
        frag = os.path.join(self.tmp.name, "extra.config")
        with open(frag, "w") as f:
            f.write("CONFIG_KSM=y\n")
        d = designs.from_args(parse(["--series", self.series, "--config-fragment", frag,
                                     "mainline"]))[-1]
        plain = designs.from_args(parse(["--series", self.series, "mainline"]))[-1]
        self.assertNotEqual(d.series_hash(), plain.series_hash())
        cfg = build.config_of("lab", d)
        self.assertEqual(cfg.name, "7.3-lab+myfix")
        self.assertEqual(cfg.fragments[-1], frag)
        self.assertEqual(cfg.fragments[:-1], build.config_of("lab", plain).fragments)
        self.assertEqual(build.config_of("debug", plain, bases.get("6.12")).name, "debug")
        self.assertEqual(build.config_of("debug", plain, bases.get("7.3")).name, "7.3-debug")


PLACEHOLDER_ADDRESS = re.compile(r"@[\w.-]*(\.invalid|localhost|example\.(org|com|net))\b")


def not_theirs(line):
    """Is @line a sign-off (the sender's to give) or does it name a
    placeholder address?"""
    return line.startswith("Signed-off-by:") or bool(PLACEHOLDER_ADDRESS.search(line))


class NoAuthor(unittest.TestCase):
    def test_no_exported_file_names_an_author(self):
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                            "kernel", "patches")
        found = []
        for d, _, files in os.walk(root):
            for name in sorted(files):
                if not name.endswith(".patch"):
                    continue
                path = os.path.join(d, name)
                with open(path) as f:
                    head = f.read().split("\n---\n", 1)[0]
                lines = head.splitlines()
                for line in lines:
                    if line.startswith("From: "):
                        found.append("%s: %s" % (os.path.relpath(path, root), line))
                        break
                # The folded rest of a removed From: header: the mbox line is
                # followed by a header field, never by a continuation line.
                if len(lines) > 1 and lines[0].startswith("From ") and lines[1][:1] in (" ", "\t"):
                    found.append("%s: %s" % (os.path.relpath(path, root), lines[1]))
                if name.startswith("0000-"):
                    with open(path) as f:
                        for line in f:
                            if re.match(r"[^ ].* \(\d+\):$", line.rstrip()):
                                found.append("%s: %s" % (os.path.relpath(path, root),
                                                         line.rstrip()))
        self.assertTrue(os.path.isdir(root))
        self.assertEqual(found, [], "exported patches name an author")

    def test_no_signoff_and_no_placeholder_identity(self):
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                            "kernel", "patches")
        found = []
        for d, _, files in os.walk(root):
            for name in sorted(files):
                if not name.endswith((".patch", ".cover")):
                    continue
                path = os.path.join(d, name)
                with open(path, errors="replace") as f:
                    for line in f:
                        if not_theirs(line):
                            found.append("%s: %s" % (os.path.relpath(path, root),
                                                     line.rstrip()))
        self.assertEqual(found, [], "a sign-off or a placeholder identity")

    def test_the_identity_check_finds_them(self):
        for line in ("Signed-off-by: A Person <a@kernel.org>\n",
                     "From: libshrinker lab <lab@libshrinker.invalid>\n",
                     "Reviewed-by: scratch <scratch@localhost>\n",
                     " Tester <t@example.org>,\n"):
            self.assertTrue(not_theirs(line), line)
        for line in ("Cc: Qi Zheng <qi.zheng@linux.dev>\n", "Assisted-by: Claude:unknown\n",
                     "+\tsigned-off-by in a comment is code\n"):
            self.assertFalse(not_theirs(line), line)


class ModelMap(unittest.TestCase):
    """The one design map: a series' file `model`, mainline's constant."""

    def write(self, tmp, text):
        with open(os.path.join(tmp, "model"), "w") as f:
            f.write(text)

    def test_mapping_file_of_a_series_wins(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.write(tmp, "# root bits kept, as the series does\nindexed+units=kmalloc\n")
            label, notes = designs.model_design("indexed", tmp)
        self.assertEqual(label, "indexed+units=kmalloc")
        self.assertEqual(notes, ["root bits kept, as the series does"])
        # Without a directory: the series of that name in kernel/patches/.
        with open(os.path.join(klabtest.REPO, "kernel", "patches", "history-6.12", "indexed",
                               "model")) as f:
            label = [x.strip() for x in f if x.strip() and not x.startswith("#")][0]
        self.assertEqual(designs.model_design("indexed")[0], label)
        self.assertIsNone(designs.model_design("zztest")[0])
        self.assertEqual(designs.model_design("mainline")[0], designs.MAINLINE_MODEL[0])

    def test_a_command_line_word_picks_its_label(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.write(tmp, "# a note\nprealloc\nwhen cgroup.memory=nokmem: flat+nonslab_ids\n"
                       "when nosmp: -\n")
            self.assertEqual(designs.model_design("x", tmp), ("prealloc", ["a note"]))
            self.assertEqual(designs.model_design("x", tmp, "quiet cgroup.memory=nokmem")[0],
                             "flat+nonslab_ids")
            label, why = designs.model_design("x", tmp, "nosmp")
            self.assertIsNone(label)
            self.assertIn("booted with nosmp", why[0])
            self.write(tmp, "prealloc\nwhen cgroup.memory=nokmem\n")
            with self.assertRaises(RuntimeError):
                designs.model_design("x", tmp)

    def test_the_repos_nokmem_labels(self):
        nokmem = "cgroup.memory=nokmem"
        self.assertEqual(designs.model_design("nonslab-ids", None, nokmem)[0],
                         "prealloc+nonslab_ids")
        self.assertEqual(designs.model_design("nonslab-ids")[0], "prealloc")
        self.assertIsNone(designs.model_design("nokmem-noinfo", None, nokmem)[0])


class SharedPatches(unittest.TestCase):
    """What kernel/patches/README.md promises of the patches the 7.3 series
    share: fix-id-reuse's patch opens array-ondemand, seed-xarray, xarray
    and indexed, message and diff byte for byte; the unit cache's patch is
    their second, the same change (its blob ids and hunk line numbers are
    those of the tree it applies to); indexed is xarray's first six, then
    lru-index's patch, then xarray's KUnit patch, each unchanged in that
    sense. A shared patch edited in one directory and not the others fails
    here, naming both files."""
    PATCHES = os.path.join(klabtest.REPO, "kernel", "patches")

    def series(self, design):
        d = os.path.join(self.PATCHES, design)
        return [os.path.join(d, f) for f in sorted(os.listdir(d))
                if f.endswith(".patch") and not f.startswith("0000-")]

    @staticmethod
    def message_and_diff(path, positions=True):
        """@path's subject (unfolded, its [PATCH k/N] dropped) and all below
        its headers; without @positions, blob ids and hunk line numbers
        blanked."""
        with open(path) as f:
            head, body = f.read().split("\n\n", 1)
        subject = re.search(r"^Subject: (.*(?:\n .*)*)", head, re.M).group(1)
        text = re.sub(r"^\[PATCH[^]]*\] ", "", subject.replace("\n ", " ")) + "\n" + body
        if not positions:
            text = re.sub(r"^index \w+\.\.\w+", "index", text, flags=re.M)
            text = re.sub(r"^@@ -\d+(,\d+)? \+\d+(,\d+)? @@", "@@", text, flags=re.M)
        return text

    def assertSamePatch(self, a, b, positions=True):
        self.assertEqual(self.message_and_diff(a, positions), self.message_and_diff(b, positions),
                         "%s and %s differ" % (os.path.relpath(a, self.PATCHES),
                                               os.path.relpath(b, self.PATCHES)))

    def test_the_fix_opens_every_on_demand_and_xarray_series(self):
        fix = self.series("fix-id-reuse")[0]
        for d in ("array-ondemand", "seed-xarray", "xarray", "indexed"):
            self.assertSamePatch(fix, self.series(d)[0])

    def test_the_unit_cache_is_their_second_patch(self):
        cache = self.series("unit-cache")[0]
        for d in ("array-ondemand", "seed-xarray", "xarray", "indexed"):
            self.assertSamePatch(cache, self.series(d)[1], positions=False)

    def test_indexed_is_xarray_then_lru_index(self):
        xarray, indexed = self.series("xarray"), self.series("indexed")
        self.assertEqual(len(indexed), len(xarray) + 1)
        for a, b in zip(xarray[:-1], indexed):
            self.assertSamePatch(a, b)
        self.assertSamePatch(self.series("lru-index")[0], indexed[-2], positions=False)
        self.assertSamePatch(xarray[-1], indexed[-1])

    def test_an_edited_copy_fails(self):
        """The comparison sees one changed line of a shared patch's diff
        and of its message, and blanks only ids and hunk positions."""
        fix = self.series("fix-id-reuse")[0]
        with open(fix) as f:
            text = f.read()
        with tempfile.TemporaryDirectory() as t:
            for old, new in (("rcu_read_unlock();", "rcu_read_lock();"),
                             ("under rcu_read_lock() only", "under rcu_read_lock()")):
                self.assertIn(old, text)
                edited = os.path.join(t, "edited.patch")
                with open(edited, "w") as f:
                    f.write(text.replace(old, new, 1))
                with self.assertRaises(AssertionError):
                    self.assertSamePatch(fix, edited, positions=False)
            moved = os.path.join(t, "moved.patch")
            with open(moved, "w") as f:
                f.write(re.sub(r"^@@ -(\d+)", lambda m: "@@ -%d" % (int(m.group(1)) + 10), text,
                               flags=re.M))
            self.assertSamePatch(fix, moved, positions=False)
            with self.assertRaises(AssertionError):
                self.assertSamePatch(fix, moved)


if __name__ == "__main__":
    unittest.main()
