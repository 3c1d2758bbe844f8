# SPDX-License-Identifier: GPL-2.0
"""Bases: the kernel source a design's series is against.

  7.3   Linux 7.3-rc7, Debian's linux-source-7.3 7.3~rc7-1~exp1 (suite
        experimental), the seeds' own base and the one patches go to; the
        default
  6.12  Debian's linux-source-6.12 as bookworm installs it (6.12.117, and
        6.12.118 by 2026-12-04: Debian keeps only the newest, so it cannot
        be pinned; words() names the one built): the stable backports of the
        fixes, and the 6.12 design series (history)

Each base has its own cached trees, configs, images and results: under
$KLAB_CACHE the trees are klab-<config> for 6.12 (the names they had
before there were bases, so a warm cache stays warm) and klab-7.3-<config>
for 7.3, the images klab-images/<config>/ and klab-images/7.3-<config>/;
the results go to $KLAB_OUT/<base>/.

A series names its base in its directory's file `base` (one line: 7.3 or
6.12; designs.py reads it). A command's --base picks the base; without it,
the base is the one every design named has (7.3 when they are on both, or
none is named). The chosen base is process-wide (select()): every tree,
image and table of the run is of that base.

linux-source-7.3 is not in bookworm: fetch() gets it with a private apt
sources list and lists directory under $KLAB_CACHE/apt73/ (the archive URI
the machine's apt already uses, suite experimental; the machine's own apt
setup is not touched), pinned to the version tested, and keeps the tarball
from the .deb beside it.
"""
import dataclasses
import functools
import glob
import os
import re

from . import paths
from .run import log
from .shell import sh


@dataclasses.dataclass(frozen=True)
class Base:
    name: str              # 7.3, 6.12: what --base and a series' `base` file say
    title: str             # in every table's heading
    package: str           # the Debian package of the source
    version: str           # the package version built (pinned for 7.3)
    suite: str             # where Debian serves it
    tree_prefix: str       # klab-<prefix><config>; klab-images/<prefix><config>/
    extra_fragments: tuple = ()   # config fragments after lab.config (kernel/config/)
    # the `base-commit:` of its series: the commit kernel/scripts/base-tree makes
    # of the tarball (its whole tree, identity and date from the tarball), which
    # is what klab applies them to; None: the series name no common commit
    commit: str = None

    def config_name(self, config):
        """The cache's name for @config (lab, debug, compile) of this base."""
        return self.tree_prefix + config

    def tarball(self):
        if self.suite == "bookworm":
            return "/usr/src/%s.tar.xz" % self.package
        return os.path.join(apt_dir(self), "%s.tar.xz" % self.package)

    def words(self):
        """The base as every table's heading names it. A bookworm base is
        the package installed, whatever version Debian has moved it on to
        (6.12.117-1~deb12u1, and 6.12.118-1~deb12u1 by 2026-12-04):
        its title and version are what was last measured, not a pin."""
        got = installed_version(self.package) if self.suite == "bookworm" else None
        if got and got != self.version:
            return "Linux %s (Debian %s %s)" % (got.split("-")[0], self.package, got)
        return "%s (Debian %s %s)" % (self.title, self.package, self.version)


BASES = {
    "7.3": Base("7.3", "Linux 7.3-rc7", "linux-source-7.3", "7.3~rc7-1~exp1", "experimental",
                "7.3-", ("base-7.3.config",), commit="7de65519e88b3537606af58240ac1932fec9c39f"),
    "6.12": Base("6.12", "Linux 6.12.117", "linux-source-6.12", "6.12.117-1~deb12u1",
                 "bookworm", ""),
}
DEFAULT = "7.3"

_current = [os.environ.get("KLAB_BASE") or DEFAULT]


def get(name):
    if name not in BASES:
        raise SystemExit("klab: --base %r: one of %s" % (name, ", ".join(BASES)))
    return BASES[name]


def select(name):
    """Make @name the base of this process (and of the klab runs it starts)."""
    get(name)
    _current[0] = name
    os.environ["KLAB_BASE"] = name


def current():
    return get(_current[0])


def resolve(asked, named_bases):
    """The base of a run: @asked (--base) if given, else the one base all
    the designs named are on (@named_bases: a set of base names per design
    named), 7.3 when they are on both or none is named."""
    if asked:
        return get(asked).name
    common = set(BASES)
    for bs in named_bases:
        common &= bs
    if not common:
        raise SystemExit("klab: the designs named are on no one base: name --base")
    return DEFAULT if DEFAULT in common else sorted(common)[0]


def add_argument(p):
    p.add_argument("--base", choices=sorted(BASES), default=None,
                   help="the kernel the series are against: 7.3 (7.3-rc7, the default "
                   "for designs on 7.3) or 6.12 (6.12.117: stable backports and the "
                   "6.12 design series); each base has its own trees, images and results")


# --- linux-source-7.3 from Debian's experimental suite ----------------------

def apt_dir(base):
    return os.path.join(paths.cache_dir(), "apt" + base.name.replace(".", ""))


def archive_uri(sources_dirs=("/etc/apt/sources.list.d",), sources_list="/etc/apt/sources.list"):
    """The URI of the Debian archive the machine's apt uses (a deb822
    .sources stanza or a one-line entry for suite bookworm, not the
    security archive); deb.debian.org when none is found."""
    texts = []
    for d in sources_dirs:
        for f in sorted(glob.glob(os.path.join(d, "*.sources")) +
                        glob.glob(os.path.join(d, "*.list"))):
            texts.append(open(f).read())
    if os.path.isfile(sources_list):
        texts.append(open(sources_list).read())
    for text in texts:
        for stanza in re.split(r"\n\s*\n", text):
            uris = re.search(r"^URIs:\s*(\S+)", stanza, re.M)
            suites = re.search(r"^Suites:\s*(.*)$", stanza, re.M)
            if uris and suites and "bookworm" in suites.group(1).split() and \
                    "security" not in uris.group(1):
                return uris.group(1)
        for m in re.finditer(r"^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+bookworm\s", text, re.M):
            if "security" not in m.group(1):
                return m.group(1)
    return "http://deb.debian.org/debian"


def apt_options(d):
    """apt-get options that use @d's sources list, lists and caches only."""
    return ["-o", "Dir::Etc::sourcelist=" + os.path.join(d, "sources.list"),
            "-o", "Dir::Etc::sourceparts=-",
            "-o", "Dir::State::Lists=" + os.path.join(d, "lists"),
            "-o", "Dir::Cache=" + os.path.join(d, "cache"),
            "-o", "Dir::Cache::archives=" + os.path.join(d, "archives"),
            "-o", "APT::Get::List-Cleanup=0",
            "-o", "APT::Sandbox::User=root"]   # a root-owned private directory


def deb_path(base):
    return os.path.join(apt_dir(base), "%s_%s_all.deb" % (base.package,
                                                          base.version.replace(":", "%3a")))


@functools.lru_cache(maxsize=None)
def installed_version(package):
    """The version of @package dpkg has installed, or None."""
    r = sh(["dpkg-query", "-W", "-f=${Version}", package], quiet=True, check=False)
    return r.stdout.strip() if r.returncode == 0 and r.stdout.strip() else None


def deb_version(deb):
    return sh(["dpkg-deb", "-f", deb, "Version"], quiet=True).stdout.strip()


def fetch(base, run):
    """Make @base's tarball exist; return its path. For a bookworm base it is
    the installed package's (packages.py installs it); for 7.3, download
    the pinned .deb with the private apt setup and take the tarball out."""
    tb = base.tarball()
    if base.suite == "bookworm" or os.path.exists(tb):
        return tb
    d = apt_dir(base)
    deb = deb_path(base)
    if not os.path.exists(deb):
        for sub in ("lists/partial", "cache", "archives/partial"):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
        uri = archive_uri()
        with open(os.path.join(d, "sources.list"), "w") as f:
            f.write("deb %s %s main\n" % (uri, base.suite))
        log("%s: fetching %s=%s from %s %s (private apt lists in %s)"
            % (base.name, base.package, base.version, uri, base.suite, d))
        with run.step("apt-get update (%s, private lists)" % base.suite):
            sh(["apt-get"] + apt_options(d) + ["-qq", "update"])
        with run.step("apt-get download %s=%s" % (base.package, base.version)):
            r = sh(["apt-get"] + apt_options(d) + ["-qq", "download",
                                                   "%s=%s" % (base.package, base.version)],
                   cwd=d, check=False)
        if r.returncode != 0 or not os.path.exists(deb):
            have = sh(["apt-cache"] + apt_options(d) + ["policy", base.package],
                      quiet=True, check=False).stdout
            raise RuntimeError("%s %s is not in %s any more (the version klab is pinned "
                               "to; the archive has:\n%s)" % (base.package, base.version,
                                                               base.suite, have))
    got = deb_version(deb)
    if got != base.version:
        raise RuntimeError("%s is version %s, not %s" % (deb, got, base.version))
    with run.step("tarball out of %s" % os.path.basename(deb)):
        tmp = tb + ".tmp"
        sh(["sh", "-c", "dpkg-deb --fsys-tarfile \"$1\" | tar -xO ./usr/src/%s.tar.xz > \"$2\""
            % base.package, "-", deb, tmp])
        os.rename(tmp, tb)
    log("%s: %s" % (base.name, base.words()))
    return tb


def source_version(tree):
    """The Makefile's version of an unpacked tree (7.3.0-rc7)."""
    v = {}
    try:
        with open(os.path.join(tree, "Makefile")) as f:
            for line in f:
                m = re.match(r"^(VERSION|PATCHLEVEL|SUBLEVEL|EXTRAVERSION)\s*=\s*(\S*)", line)
                if m:
                    v[m.group(1)] = m.group(2)
                if len(v) == 4:
                    break
    except OSError:
        return None
    if "VERSION" not in v:
        return None
    return "%s.%s.%s%s" % (v.get("VERSION"), v.get("PATCHLEVEL"), v.get("SUBLEVEL"),
                           v.get("EXTRAVERSION", ""))

