# SPDX-License-Identifier: GPL-2.0
"""Where things are: the repository and kernel/, the source cache
($KLAB_CACHE), the results ($KLAB_OUT/<base>/) and make's jobs ($KLAB_JOBS)."""
import os

PKG = os.path.dirname(os.path.realpath(__file__))
KDIR = os.path.dirname(os.path.dirname(PKG))         # kernel/
REPO = os.path.dirname(KDIR)
PATCHES = os.path.join(KDIR, "patches")
CONFIGS = os.path.join(KDIR, "config")
GUEST = os.path.join(KDIR, "guest")
HOST_TESTS = os.path.join(REPO, "tests", "kernel")


def cache_dir():
    """Source and build trees, kept images ($KLAB_CACHE)."""
    return os.environ.get("KLAB_CACHE", "/var/cache/libshrinker")


def out_dir():
    """Where a run writes its results: $KLAB_OUT/<base>/ (default
    build-kernel/7.3/; each base its own, bases.py)."""
    from . import bases
    d = os.path.join(os.environ.get("KLAB_OUT", os.path.join(REPO, "build-kernel")),
                     bases.current().name)
    os.makedirs(d, exist_ok=True)
    return d


def jobs():
    """make -j ($KLAB_JOBS, default the number of CPUs)."""
    return os.environ.get("KLAB_JOBS", str(os.cpu_count() or 2))


def timeout_factor():
    """$KLAB_TIMEOUT_FACTOR: every guest's timeout times this (default 1; a
    heavily loaded host gives a guest a few percent of a CPU)."""
    v = os.environ.get("KLAB_TIMEOUT_FACTOR", "1")
    try:
        f = float(v)
    except ValueError:
        f = 0
    if f <= 0:
        raise SystemExit("klab: KLAB_TIMEOUT_FACTOR=%r is not a positive number" % v)
    return f
