# SPDX-License-Identifier: GPL-2.0
"""The source cache: one unpacked source tree per base and config
(bases.py), holding one design's series at a time.

Layout under the cache's root ($KLAB_CACHE), outside the repo (<config> is
the base's name for it: lab, debug for 6.12, 7.3-lab, 7.3-debug for 7.3):
  klab-<config>/           the base's tarball unpacked once per config,
                           with the current design's series applied
  klab-<config>/build/     its O= build directory (a direct child of the
                           source tree, so Kbuild uses relative paths and
                           ccache hits across trees)
  klab-<config>/.klab-applied/   the design applied now (`design`: name and
                           series hash) and a copy of its patches, reversed
                           from this copy whatever happened to the series since
  klab-<base>selftests-src/  the pristine selftests and tools/include
                           (klab-selftests-src for 6.12, klab-7.3-selftests-src)
  klab-images/<config>/<design>/   each design's kernel (build.py)

Each tree has a lock file beside it (klab-<config>.lock): a command holds
it (flock, exclusive) from switching the tree's series until it has taken
what it needs from the tree (a kept image, compiled objects), so two klab
runs sharing one $KLAB_CACHE wait for each other instead of patching and
building one tree at once. Boots and guests need no tree and run in
parallel.

Switching design reverses the applied series (patch -R, last patch first)
and applies the new one, then gives back their old mtime to the files the
switch left with the same content: make rebuilds only what depends on the
files that really changed, and ccache answers for any content it compiled
before, so going back to an earlier design costs seconds. A tree whose
series does not reverse cleanly is unpacked again. No git: on a fresh
machine unpacking is the whole cost (a git commit of the 80,000 files took
5 minutes on a loaded 2-core machine).
"""
import contextlib
import fcntl
import glob
import hashlib
import os
import shutil
import subprocess

from . import bases, paths
from .designs import MAINLINE, patched_files
from .run import log
from .shell import sh


class Cache:
    def __init__(self, root=None, tarball=None, base=None):
        self.root = root or paths.cache_dir()
        self.base = base or bases.current()
        self.own_tarball = tarball is None      # the base's: fetched when missing
        self.tarball = tarball or self.base.tarball()

    def tree_dir(self, config):
        return os.path.join(self.root, "klab-" + config)

    def selftests_dir(self):
        return os.path.join(self.root, "klab-%sselftests-src" % self.base.tree_prefix)

    def image_dir(self, config, design_name):
        return os.path.join(self.root, "klab-images", config, design_name)

    def _untar(self, dest, run, label, members=()):
        if not os.path.exists(self.tarball) and self.own_tarball:
            bases.fetch(self.base, run)
        if not os.path.exists(self.tarball):
            raise RuntimeError("%s missing (apt-get install %s)" % (self.tarball,
                                                                  self.base.package))
        with run.step("untar %s (%s)" % (self.base.package, label)):
            sh(["tar", "-xf", self.tarball, "-C", dest, "--strip-components=1"] + list(members))

    def unpack(self, dest, run, label):
        """Unpack the tarball into @dest (replacing it); keep a pristine copy
        of the selftests the first time."""
        os.makedirs(self.root, exist_ok=True)
        tmp = dest + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        self._untar(tmp, run, label)
        version = bases.source_version(tmp)
        if version:
            log("%s: %s, Makefile %s" % (label, self.base.words(), version))
        st = self.selftests_dir()
        if not os.path.isdir(st):
            os.makedirs(st + ".tmp", exist_ok=True)
            for d in ("tools/testing/selftests", "tools/include"):
                if os.path.isdir(os.path.join(tmp, d)):
                    shutil.copytree(os.path.join(tmp, d), os.path.join(st + ".tmp", d),
                                    symlinks=True, dirs_exist_ok=True)
            os.rename(st + ".tmp", st)
        shutil.rmtree(dest, ignore_errors=True)
        os.rename(tmp, dest)

    @contextlib.contextmanager
    def locked(self, config):
        """Hold @config's tree lock (exclusive flock of klab-<config>.lock;
        the kernel drops it if the process dies)."""
        os.makedirs(self.root, exist_ok=True)
        with open(self.tree_dir(config) + ".lock", "a") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                log("%s: another klab run holds the tree; waiting for it" % config)
                fcntl.flock(f, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def ensure_tree(self, config, run):
        tree = self.tree_dir(config)
        if os.path.exists(os.path.join(tree, "Makefile")) and self.stale(tree):
            log("%s: unpacked from Linux %s, %s is installed now: unpacked again"
                % (config, bases.source_version(tree), self.base.words()))
            self.unpack(tree, run, config)
        if not os.path.exists(os.path.join(tree, "Makefile")):
            self.unpack(tree, run, config)
        return tree

    def stale(self, tree):
        """Is @tree of another source than its base's installed package? A
        bookworm base moves on with Debian's point releases (its package
        cannot be pinned), so a tree unpacked before is of an older Linux
        than the tables would name; a pinned base's tree cannot be."""
        if not self.own_tarball or self.base.suite != "bookworm":
            return False
        got = bases.installed_version(self.base.package)
        return bool(got) and bases.source_version(tree) != got.split("-")[0]

    def ensure_selftests(self, run):
        """Pristine tools/testing/selftests and tools/include (copied when a
        tree is unpacked; taken from the tarball when the trees predate that)."""
        st = self.selftests_dir()
        if os.path.isdir(st):
            return st
        with self.locked(self.base.tree_prefix + "selftests-src"):
            if os.path.isdir(st):
                return st
            shutil.rmtree(st + ".tmp", ignore_errors=True)
            os.makedirs(st + ".tmp")
            self._untar(st + ".tmp", run, "selftests", [
                "--wildcards", "*/tools/testing/selftests", "*/tools/include"])
            os.rename(st + ".tmp", st)
        return st

    def applied(self, config):
        """(design name, series hash) applied to @config's tree now."""
        try:
            with open(os.path.join(applied_dir(self.tree_dir(config)), "design")) as f:
                name, h = f.read().split()
            return name, h
        except (OSError, ValueError):
            return MAINLINE.name, MAINLINE.series_hash()

    def switch(self, config, design, run):
        """Make @config's tree hold @design; return the tree."""
        tree = self.ensure_tree(config, run)
        want = design.series_hash()
        cur, h = self.applied(config)
        if (cur, h) == (design.name, want):
            return tree
        ad = applied_dir(tree)
        saved = sorted(glob.glob(os.path.join(ad, "*.patch")))
        before = file_states(tree, patched_files(saved) | design.touched_files())
        for p in reversed(saved):
            r = _patch(tree, p, reverse=True)
            if r.returncode != 0:
                log("%s: series of %s does not reverse (%s); unpacking the tree again"
                    % (config, cur, r.stdout.strip()[:200]))
                self.unpack(tree, run, config)
                before = {}
                break
        shutil.rmtree(ad, ignore_errors=True)
        done = []
        for p in design.patches:
            r = _patch(tree, p)
            if r.returncode != 0:
                for q in reversed(done):
                    _patch(tree, q, reverse=True)
                keep_unchanged_mtimes(tree, before)
                raise RuntimeError("%s: %s does not apply to %s:\n%s"
                                   % (design.name, os.path.basename(p), self.base.words(),
                                      r.stdout))
            done.append(p)
        os.makedirs(ad, exist_ok=True)
        for i, p in enumerate(done):
            shutil.copyfile(p, os.path.join(ad, "%04d.patch" % i))
        with open(os.path.join(ad, "design"), "w") as f:
            f.write("%s %s\n" % (design.name, want))
        kept = keep_unchanged_mtimes(tree, before)
        log("%s: %s -> %s; %d of %d touched files unchanged (make skips them)"
            % (config, cur, design.name, kept, len(before)))
        return tree


def applied_dir(tree):
    return os.path.join(tree, ".klab-applied")


def _patch(tree, path, reverse=False):
    cmd = ["patch", "-p1", "-s", "-f", "--no-backup-if-mismatch", "-d", tree, "-i", path]
    cmd += ["-R"] if reverse else ["-N"]
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def file_states(tree, files):
    """{path: (sha256 of content, mtime_ns)} of the files of @files that exist."""
    out = {}
    for rel in files:
        path = os.path.join(tree, rel)
        try:
            with open(path, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
            out[rel] = (digest, os.stat(path).st_mtime_ns)
        except OSError:
            pass
    return out


def keep_unchanged_mtimes(tree, before):
    """Give back their old mtime to the files of @before that a switch left
    with the same content (two designs sharing patches, e.g. xarray and
    indexed, share those objects). Return how many kept it."""
    kept = 0
    for rel, (digest, mtime_ns) in before.items():
        now = file_states(tree, [rel]).get(rel)
        if now and now[0] == digest:
            os.utime(os.path.join(tree, rel), ns=(mtime_ns, mtime_ns))
            kept += 1
    return kept
