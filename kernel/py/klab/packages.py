# SPDX-License-Identifier: GPL-2.0
"""The Debian packages the lab needs, installed when missing."""
import os
import subprocess

from . import bases
from .run import log
from .shell import sh

# stress-ng: the reviewers' workload copies the host's binary and its libraries
# into the guest (workloads.py, LKP's --ramfs case).
# The base's source: linux-source-6.12 from bookworm (installed), or 7.3's
# .deb from experimental (bases.fetch: downloaded, never installed).
HOST_PACKAGES = ["build-essential", "flex", "bison", "bc", "libelf-dev",
                 "libssl-dev", "dwarves", "cpio", "qemu-system-x86", "busybox-static",
                 "ccache", "e2fsprogs", "patch", "xz-utils", "python3",
                 "stress-ng"]


# klab profile's alone: perf on the host reads the guests' perf.data, and
# the guests run the host's perf (copied in with its libraries).
PROFILE_PACKAGES = ["linux-perf"]


def wanted(base):
    """The packages a run on @base needs installed."""
    return ([base.package] if base.suite == "bookworm" else []) + HOST_PACKAGES


def missing(base=None):
    return not_installed(wanted(base or bases.current()))


def not_installed(packages):
    """The packages of @packages that dpkg does not have installed."""
    out = []
    for p in packages:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", p], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
        if "install ok installed" not in r.stdout:
            out.append(p)
    return out


def install(run, base=None):
    """apt-get install what is missing (nothing at all when all are there),
    then the base's source (bases.fetch: 7.3's .deb with a private apt
    setup, unless its tarball is in the cache)."""
    base = base or bases.current()
    install_missing(run, missing(base))
    bases.fetch(base, run)


def install_missing(run, need):
    if not need:
        return
    log("missing Debian packages: " + " ".join(need))
    if os.getuid() != 0:
        raise RuntimeError("run as root, or: apt-get install " + " ".join(need))
    with run.step("apt-get install (%d packages)" % len(need)):
        sh(["apt-get", "update", "-qq"])
        sh(["apt-get", "install", "-y", "-qq", "--no-install-recommends"] + need,
           env={"DEBIAN_FRONTEND": "noninteractive"})
