# SPDX-License-Identifier: GPL-2.0
"""The Debian packages the lab needs, installed when missing."""
import os
import subprocess

from .run import log
from .shell import sh

# stress-ng: the reviewers' workload copies the host's binary and its libraries
# into the guest (workloads.py, LKP's --ramfs case).
HOST_PACKAGES = ["linux-source-6.12", "build-essential", "flex", "bison", "bc", "libelf-dev",
                 "libssl-dev", "dwarves", "cpio", "qemu-system-x86", "busybox-static",
                 "ccache", "e2fsprogs", "patch", "xz-utils", "python3",
                 "stress-ng"]


# klab profile's alone: perf on the host reads the guests' perf.data, and
# the guests run the host's perf (copied in with its libraries).
PROFILE_PACKAGES = ["linux-perf"]


def missing(packages=None):
    out = []
    for p in HOST_PACKAGES if packages is None else packages:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", p], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
        if "install ok installed" not in r.stdout:
            out.append(p)
    return out


def install(run, packages=None):
    """apt-get install what is missing of @packages (default HOST_PACKAGES;
    nothing at all when all are there)."""
    need = missing(packages)
    if not need:
        return
    log("missing Debian packages: " + " ".join(need))
    if os.getuid() != 0:
        raise RuntimeError("run as root, or: apt-get install " + " ".join(need))
    with run.step("apt-get install (%d packages)" % len(need)):
        sh(["apt-get", "update", "-qq"])
        sh(["apt-get", "install", "-y", "-qq", "--no-install-recommends"] + need,
           env={"DEBIAN_FRONTEND": "noninteractive"})
