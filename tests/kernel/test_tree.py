# SPDX-License-Identifier: GPL-2.0
"""klab.tree, switching a cached source tree from one series to another,
on real files (a miniature linux-source tarball, kernelsrc.py):
  - a switch reverses the applied series (patch -R) and applies the next;
    the files it leaves with the same content get their old mtime back
    (make skips them), the others are rewritten;
  - a cover letter (no diff) is not part of the series;
  - a series that does not reverse (the tree was edited by hand) makes the
    tree unpacked again, then the next series applies;
  - a series that does not apply fails with its name, the tree left as
    mainline;
  - the applied series is reversed from the cache's own copy, whatever
    happened to the design's directory since;
  - a tree's lock keeps a second klab process out while the first holds
    it, and lets it in once the first has let go.
Run: python3 tests/kernel/test_tree.py (make check: Meson test kernel_tree)."""
import fcntl
import multiprocessing
import os
import shutil
import tempfile
import unittest
from unittest import mock

import kernelsrc
import klabtest  # noqa: F401  (the klab package on the path)
from kernelsrc import FILES, edit, patch_text, write_series
from klab import bases, designs, tree
from klab.run import Run

OLD = 1_000_000_000 * 10**9   # an mtime (ns) no file of the test has by chance

HEADER_A = edit(FILES["include/linux/shrinker.h"], 10, "header changed by a and b")
SHRINKER_A = edit(FILES["mm/shrinker.c"], 5, "shrinker changed by a")
LRU_B = edit(FILES["mm/list_lru.c"], 20, "list_lru changed by b")


class Switching(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="klab-test-tree-")
        self.cache = tree.Cache(root=os.path.join(self.tmp, "cache"),
                                tarball=kernelsrc.make_tarball(self.tmp),
                                base=bases.get("6.12"))
        self.run_ = Run(os.path.join(self.tmp, "out"))
        pd = os.path.join(self.tmp, "patches")
        # a: the header and mm/shrinker.c, in two patches, with a cover letter
        write_series(os.path.join(pd, "a"), [
            patch_text({"include/linux/shrinker.h": HEADER_A}),
            patch_text({"mm/shrinker.c": SHRINKER_A})], cover=True)
        # b: the same header change, and mm/list_lru.c
        write_series(os.path.join(pd, "b"), [
            patch_text({"include/linux/shrinker.h": HEADER_A, "mm/list_lru.c": LRU_B})])
        # broken: a change against content the tree does not have
        write_series(os.path.join(pd, "broken"), [patch_text(
            {"mm/shrinker.c": "other\n"}, base=dict(FILES, **{"mm/shrinker.c": "not it\n"}))])
        self.d = {d.name: d for d in designs.in_repo(pd)}
        self.tree = self.cache.tree_dir("lab")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def read(self, rel):
        with open(os.path.join(self.tree, rel)) as f:
            return f.read()

    def mtime(self, rel):
        return os.stat(os.path.join(self.tree, rel)).st_mtime_ns

    def age_all(self):
        """Every file of the tree gets mtime OLD (as after a build long ago)."""
        for rel in FILES:
            os.utime(os.path.join(self.tree, rel), ns=(OLD, OLD))

    def test_cover_letter_is_not_in_the_series(self):
        self.assertEqual([os.path.basename(p) for p in self.d["a"].patches],
                         ["0001-change.patch", "0002-change.patch"])
        self.assertTrue(designs.has_diff(self.d["a"].patches[0]))
        self.assertFalse(designs.has_diff(os.path.join(self.d["a"].dir,
                                                       "0000-cover-letter.patch")))

    def test_switch_keeps_the_mtimes_of_unchanged_files(self):
        self.cache.switch("lab", self.d["a"], self.run_)
        self.assertEqual(self.read("include/linux/shrinker.h"), HEADER_A)
        self.assertEqual(self.read("mm/shrinker.c"), SHRINKER_A)
        self.assertEqual(self.cache.applied("lab"), ("a", self.d["a"].series_hash()))
        self.age_all()
        self.cache.switch("lab", self.d["b"], self.run_)
        self.assertEqual(self.read("include/linux/shrinker.h"), HEADER_A)
        self.assertEqual(self.read("mm/shrinker.c"), FILES["mm/shrinker.c"])
        self.assertEqual(self.read("mm/list_lru.c"), LRU_B)
        # the shared header change: rewritten twice, same content, old mtime
        self.assertEqual(self.mtime("include/linux/shrinker.h"), OLD)
        # what really changed is newer, so make rebuilds it
        self.assertGreater(self.mtime("mm/shrinker.c"), OLD)
        self.assertGreater(self.mtime("mm/list_lru.c"), OLD)
        # files no series touches were never rewritten
        self.assertEqual(self.mtime("Makefile"), OLD)
        self.age_all()
        self.cache.switch("lab", designs.MAINLINE, self.run_)
        for rel, text in FILES.items():
            self.assertEqual(self.read(rel), text, rel)
        self.assertGreater(self.mtime("include/linux/shrinker.h"), OLD)
        self.assertEqual(self.mtime("mm/shrinker.c"), OLD)  # pristine under b as now
        self.assertEqual(self.cache.applied("lab")[0], "mainline")

    def test_switch_to_the_applied_design_touches_nothing(self):
        self.cache.switch("lab", self.d["a"], self.run_)
        self.age_all()
        self.cache.switch("lab", self.d["a"], self.run_)
        for rel in FILES:
            self.assertEqual(self.mtime(rel), OLD, rel)

    def test_series_that_does_not_reverse_unpacks_the_tree_again(self):
        self.cache.switch("lab", self.d["a"], self.run_)
        marker = os.path.join(self.tree, "build-output-of-a")
        open(marker, "w").close()
        with open(os.path.join(self.tree, "mm/shrinker.c"), "w") as f:
            f.write("edited by hand\n")
        self.cache.switch("lab", self.d["b"], self.run_)
        self.assertFalse(os.path.exists(marker))    # a new tree
        self.assertEqual(self.read("mm/shrinker.c"), FILES["mm/shrinker.c"])
        self.assertEqual(self.read("mm/list_lru.c"), LRU_B)
        self.assertEqual(self.cache.applied("lab")[0], "b")
        self.assertIn("untar linux-source-6.12 (lab)", [s[0] for s in self.run_.steps])

    def test_series_that_does_not_apply_fails_and_leaves_mainline(self):
        self.cache.switch("lab", self.d["a"], self.run_)
        with self.assertRaisesRegex(RuntimeError, "broken: 0001-change.patch does not apply"):
            self.cache.switch("lab", self.d["broken"], self.run_)
        for rel, text in FILES.items():
            self.assertEqual(self.read(rel), text, rel)
        self.assertEqual(self.cache.applied("lab")[0], "mainline")

    def test_reversed_from_the_cache_copy_after_the_series_changed(self):
        self.cache.switch("lab", self.d["a"], self.run_)
        # the design's directory changes under the tree (a rebase, a new version)
        shutil.rmtree(self.d["a"].dir)
        self.cache.switch("lab", designs.MAINLINE, self.run_)
        for rel, text in FILES.items():
            self.assertEqual(self.read(rel), text, rel)
        self.assertNotIn("untar linux-source-6.12 (lab)",
                         [s[0] for s in self.run_.steps][1:])

    def test_selftests_source_kept_pristine(self):
        self.cache.switch("lab", self.d["a"], self.run_)
        st = self.cache.ensure_selftests(self.run_)
        self.assertTrue(os.path.exists(os.path.join(
            st, "tools/testing/selftests/cgroup/test_kmem.c")))


def _hold_lock(root, holding, release):
    """In a second process: hold the lab tree's lock until @release."""
    with tree.Cache(root=root).locked("lab"):
        holding.set()
        release.wait(60)


class Stale(unittest.TestCase):
    """A tree of a bookworm base is unpacked again when Debian has moved the
    package on (linux-source-6.12: 6.12.117, 6.12.118 by 2026-12-04); a
    tree of the installed version, of a pinned base or of a test's own
    tarball stays."""
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="klab-test-stale-")
        self.addCleanup(shutil.rmtree, self.tmp)
        bases.installed_version.cache_clear()
        self.addCleanup(bases.installed_version.cache_clear)
        self.cache = tree.Cache(root=self.tmp, base=bases.get("6.12"))
        self.tree = self.cache.tree_dir("lab")
        os.makedirs(self.tree)
        with open(os.path.join(self.tree, "Makefile"), "w") as f:
            f.write("VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 117\nEXTRAVERSION =\n")

    def ensure(self, installed):
        with mock.patch.object(bases, "installed_version", return_value=installed), \
                mock.patch.object(tree.Cache, "unpack") as unpack:
            self.cache.ensure_tree("lab", None)
        return unpack.called

    def test_a_tree_of_an_older_point_release_is_unpacked_again(self):
        self.assertTrue(self.ensure("6.12.118-1~deb12u1"))

    def test_a_tree_of_the_installed_release_stays(self):
        self.assertFalse(self.ensure("6.12.117-1~deb12u1"))
        self.assertFalse(self.ensure(None))

    def test_a_pinned_base_or_a_tests_tarball_stays(self):
        self.cache = tree.Cache(root=self.tmp, base=bases.get("7.3"))
        self.tree = self.cache.tree_dir("lab")
        self.assertFalse(self.cache.stale(self.tree))
        self.cache = tree.Cache(root=self.tmp, tarball="/nonexistent.tar.xz",
                                base=bases.get("6.12"))
        self.assertFalse(self.ensure("6.12.118-1~deb12u1"))


class Locking(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="klab-test-lock-")
        self.cache = tree.Cache(root=os.path.join(self.tmp, "cache"))

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def _try_lock(self):
        with open(self.cache.tree_dir("lab") + ".lock", "a") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            fcntl.flock(f, fcntl.LOCK_UN)
            return True

    def test_second_process_waits_for_the_tree_lock(self):
        ctx = multiprocessing.get_context("fork")
        holding, release = ctx.Event(), ctx.Event()
        other = ctx.Process(target=_hold_lock, args=(self.cache.root, holding, release))
        other.start()
        try:
            self.assertTrue(holding.wait(60), "the other process never took the lock")
            self.assertFalse(self._try_lock(), "the lock let a second process in")
        finally:
            release.set()
            other.join(60)
        self.assertEqual(other.exitcode, 0)
        self.assertTrue(self._try_lock(), "the lock stayed held after its holder let go")
        with self.cache.locked("lab"):
            self.assertFalse(self._try_lock(), "locked() did not take the lock")


if __name__ == "__main__":
    unittest.main()
