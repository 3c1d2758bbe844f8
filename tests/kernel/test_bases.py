# SPDX-License-Identifier: GPL-2.0
"""klab.bases and the base of each series:
  - a series' directory names its base in its file `base`; a group's
    directories are designs (history-* ones only when named); one name per
    base; a series without the file is on every base;
  - the run's base: --base, else the one the designs named share (7.3 when
    they are on both or none is named), an error when they share none;
  - every series of kernel/patches/ names a base klab knows, and every
    base's mainline config keeps every option asked for, less the ones a
    klab-drop line of the base's fragment takes out;
  - the archive URI for the private apt sources list comes from the
    machine's own (deb822 or one-line), never the security archive;
  - each base has its own trees, images and results.
Run: python3 tests/kernel/test_bases.py (make check: Meson test kernel_bases)."""
import os
import tempfile
import unittest
from unittest import mock

import klabtest  # noqa: F401  (the klab package on the path)
from kernelsrc import FILES, edit, patch_text, write_series
from klab import bases, build, designs, paths, tree


def series(d, base=None):
    write_series(d, [patch_text({"mm/shrinker.c": edit(FILES["mm/shrinker.c"], 1, "x")})])
    if base:
        with open(os.path.join(d, "base"), "w") as f:
            f.write(base + "\n")


class SeriesBase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        pd = self.pd = self.tmp.name
        series(os.path.join(pd, "fix"), "7.3")
        series(os.path.join(pd, "stable-6.12", "fix"), "6.12")
        series(os.path.join(pd, "history-6.12", "old"), "6.12")
        series(os.path.join(pd, "anybase"))

    def tearDown(self):
        self.tmp.cleanup()

    def names(self, base, history=False):
        return [d.name for d in designs.in_repo(self.pd, base, history)]

    def test_each_base_its_designs(self):
        self.assertEqual(self.names("7.3"), ["mainline", "anybase", "fix"])
        self.assertEqual(self.names("6.12"), ["mainline", "anybase", "fix"])
        self.assertEqual(self.names("6.12", history=True), ["mainline", "anybase", "fix", "old"])
        on = {d.base for d in designs.in_repo(self.pd, "6.12") if d.name == "fix"}
        self.assertEqual(on, {"6.12"})

    def test_the_base_of_the_designs_named(self):
        self.assertEqual(bases.resolve("6.12", []), "6.12")
        self.assertEqual(bases.resolve(None, []), "7.3")
        self.assertEqual(bases.resolve(None, designs.bases_of(["fix"], self.pd)), "7.3")
        self.assertEqual(bases.resolve(None, designs.bases_of(["old"], self.pd)), "6.12")
        self.assertEqual(bases.resolve(None, designs.bases_of(["anybase", "old"], self.pd)),
                         "6.12")
        series(os.path.join(self.pd, "new"), "7.3")
        with self.assertRaises(SystemExit):
            bases.resolve(None, designs.bases_of(["new", "old"], self.pd))
        with self.assertRaises(SystemExit):
            bases.get("5.4")

    def test_two_of_one_name_on_one_base_is_an_error(self):
        series(os.path.join(self.pd, "stable-6.12", "old"), "6.12")
        with self.assertRaisesRegex(RuntimeError, "two designs old"):
            designs.in_repo(self.pd, "6.12", history=True)

    def test_a_bad_base_file(self):
        with open(os.path.join(self.pd, "fix", "base"), "w") as f:
            f.write("7.3 6.12\n")
        with self.assertRaises(RuntimeError):
            designs.every_series(self.pd)


class TheRepo(unittest.TestCase):
    def test_every_series_names_a_known_base(self):
        for d in designs.every_series():
            self.assertIn(d.base, bases.BASES, "%s: no `base` file, or an unknown base" % d.dir)

    def test_the_history_is_on_6_12_and_not_by_default(self):
        hist = [d for d in designs.every_series() if d.history]
        self.assertTrue(hist)
        for d in hist:
            self.assertEqual(d.base, "6.12", d.dir)
            self.assertNotIn(d.name, [x.name for x in designs.in_repo(base="6.12")])

    def test_every_fragment_option_is_a_kconfig_line(self):
        for b in bases.BASES.values():
            for config in build.CONFIG_FRAGMENTS:
                want = build.wanted(build.fragments(config, b))
                self.assertIn("CONFIG_MEMCG", want)
                for k in want:
                    self.assertTrue(k.startswith("CONFIG_"), k)
        w73 = build.wanted(build.fragments("lab", bases.get("7.3")))
        self.assertNotIn("CONFIG_PROC_SYSCTL", w73)         # klab-drop
        self.assertEqual(w73["CONFIG_SYSCTL"], "y")
        self.assertEqual(build.wanted(build.fragments("lab", bases.get("6.12")))
                         ["CONFIG_PROC_SYSCTL"], "y")


class Config(unittest.TestCase):
    def test_a_dropped_option_need_not_stick(self):
        with tempfile.TemporaryDirectory() as t:
            a, b, dot = (os.path.join(t, n) for n in ("a", "b", ".config"))
            with open(a, "w") as f:
                f.write("CONFIG_OLD=y\nCONFIG_KEPT=y\n")
            with open(b, "w") as f:
                f.write("# klab-drop: CONFIG_OLD (gone)\nCONFIG_NEW=y\n")
            with open(dot, "w") as f:
                f.write("CONFIG_KEPT=y\nCONFIG_NEW=y\n")
            build.check_config(dot, (a, b))
            with self.assertRaisesRegex(RuntimeError, "CONFIG_OLD"):
                build.check_config(dot, (a,))
            with open(dot, "w") as f:
                f.write("CONFIG_KEPT=y\n# CONFIG_NEW is not set\n")
            with self.assertRaisesRegex(RuntimeError, "CONFIG_NEW"):
                build.check_config(dot, (a, b))


class Apt(unittest.TestCase):
    def test_archive_uri(self):
        with tempfile.TemporaryDirectory() as t:
            d = os.path.join(t, "sources.list.d")
            os.makedirs(d)
            with open(os.path.join(d, "debian.sources"), "w") as f:
                f.write("Types: deb\nURIs: http://security.example/debian-security\n"
                        "Suites: bookworm-security\n\nTypes: deb\nURIs: http://mirror.example/"
                        "debian\nSuites: bookworm bookworm-updates\nComponents: main\n")
            self.assertEqual(bases.archive_uri((d,), os.path.join(t, "none")),
                             "http://mirror.example/debian")
            one = os.path.join(t, "sources.list")
            with open(one, "w") as f:
                f.write("deb http://security.example/x bookworm-security main\n"
                        "deb [arch=amd64] http://line.example/debian bookworm main\n")
            self.assertEqual(bases.archive_uri((), one), "http://line.example/debian")
            self.assertEqual(bases.archive_uri((), os.path.join(t, "none")),
                             "http://deb.debian.org/debian")

    def test_the_private_setup_leaves_the_machines_apt_alone(self):
        opts = bases.apt_options("/c/apt73")
        for key in ("Dir::Etc::sourcelist=/c/apt73/", "Dir::Etc::sourceparts=-",
                    "Dir::State::Lists=/c/apt73/", "Dir::Cache=/c/apt73/"):
            self.assertTrue(any(o.startswith(key) for o in opts), key)


class Version(unittest.TestCase):
    def setUp(self):
        bases.installed_version.cache_clear()
        self.addCleanup(bases.installed_version.cache_clear)

    def test_a_bookworm_base_names_the_package_installed(self):
        """Debian moved linux-source-6.12 from 6.12.117-1~deb12u1 to
        6.12.118-1~deb12u1: the tables name what was built, not the
        version klab last measured; 7.3's is pinned and checked at fetch."""
        b = bases.get("6.12")
        with mock.patch.object(bases, "sh") as sh:
            sh.return_value = mock.Mock(returncode=0, stdout="6.12.118-1~deb12u1")
            self.assertEqual(b.words(), "Linux 6.12.118 (Debian linux-source-6.12 "
                             "6.12.118-1~deb12u1)")
            self.assertEqual(sh.call_args[0][0][:2], ["dpkg-query", "-W"])
            self.assertEqual(bases.get("7.3").words(), "Linux 7.3-rc7 (Debian "
                             "linux-source-7.3 7.3~rc7-1~exp1)")
        bases.installed_version.cache_clear()
        with mock.patch.object(bases, "sh") as sh:
            sh.return_value = mock.Mock(returncode=1, stdout="")
            self.assertEqual(b.words(), "%s (Debian linux-source-6.12 %s)" % (b.title, b.version))


class Apart(unittest.TestCase):
    def test_trees_images_and_results(self):
        with tempfile.TemporaryDirectory() as t, \
                mock.patch.dict(os.environ, {"KLAB_OUT": t, "KLAB_CACHE": t}):
            seen = set()
            for name in ("7.3", "6.12"):
                b = bases.get(name)
                c = tree.Cache(base=b)
                cfg = build.config_of("lab", designs.MAINLINE, b)
                bases.select(name)
                where = (c.tree_dir(cfg.name), c.image_dir(cfg.name, "mainline"),
                         c.selftests_dir(), paths.out_dir())
                self.assertFalse(seen & set(where))
                seen |= set(where)
            self.assertEqual(tree.Cache(base=bases.get("6.12")).tree_dir("lab"),
                             os.path.join(t, "klab-lab"))       # the warm 6.12 cache
            bases.select("7.3")
            self.assertEqual(tree.Cache().tarball,
                             os.path.join(t, "apt73", "linux-source-7.3.tar.xz"))


if __name__ == "__main__":
    unittest.main()
