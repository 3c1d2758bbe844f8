# SPDX-License-Identifier: GPL-2.0
"""The guest's programs, compiled on the host (static): kernel/guest/'s
programs into <out>/guest/, the kernel's cgroup selftests into
<out>/selftests/."""
import os
import re
import subprocess

from . import paths
from .shell import sh

# program: its sources in kernel/guest/ (an experiment script of
# tools/shrinklab/scripts/ by its path from there, as the model builds it too)
PROGRAMS = {
    "klab-guest": ["klab-guest.c", "world_kernel.c", "../../tools/shrinklab/scripts/kernel_lab.c",
                   "kutil.c", "kjson.c"],
    "ktorture": ["ktorture.c", "kwlib.c", "kutil.c", "kjson.c"],
    "kwork": ["kwork.c", "kwlib.c", "kw_containers.c", "kw_reviewers.c", "kw_pods.c",
              "kw_density.c", "kw_tar.c", "kutil.c", "kjson.c"],
    "smoke": ["smoke.c"],
    "knomemcg": ["knomemcg.c", "kutil.c"],
    "kseeds": ["kseeds.c", "kutil.c", "kjson.c"],
}
# The programs of a selftests boot: the kernel's cgroup selftests, then our
# reclaim checks (kernel/guest/kcheck.c), as kernel/guest/selftests.sh runs them.
KERNEL_SELFTESTS = ["test_kmem", "test_memcontrol"]
SELFTESTS = KERNEL_SELFTESTS + ["kcheck"]


def source_version():
    """(meson's project version, git describe of the repo or None)."""
    version = "unknown"
    try:
        with open(os.path.join(paths.REPO, "meson.build")) as f:
            m = re.search(r"version\s*:\s*'([^']+)'", f.read())
            version = m.group(1) if m else version
    except OSError:
        pass
    r = subprocess.run(["git", "-C", paths.REPO, "describe", "--always", "--dirty", "--abbrev=12"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return version, (r.stdout.strip() or None) if r.returncode == 0 else None


def shared_programs():
    """The programs built from a source outside kernel/guest/ (a script the
    model compiles too)."""
    return [n for n, srcs in PROGRAMS.items() if any(s.startswith("..") for s in srcs)]


def compile_programs(run, only=None):
    """{program: path} of kernel/guest/'s programs (or those named in
    @only), compiled into out/guest/."""
    out = run.path("guest")
    os.makedirs(out, exist_ok=True)
    version, rev = source_version()
    defs = ['-DKLAB_VERSION="%s"' % version, '-DKLAB_GIT_REVISION="%s"' % (rev or "")]
    names = [n for n in PROGRAMS if only is None or n in only]
    with run.step("compile guest programs"):
        for name in names:
            sh(["gcc", "-static", "-O2", "-Wall", "-Wextra", "-Werror"] + defs +
               ["-o", os.path.join(out, name)] +
               [os.path.join(paths.GUEST, s) for s in PROGRAMS[name]] + ["-lm"])
    return {n: os.path.join(out, n) for n in names}


def cgroup_util(src):
    """The selftests' helper library of the cgroup selftests in @src, as
    gcc arguments: cgroup_util.c beside the tests (6.12), or in lib/ with
    its header in lib/include/ (7.3)."""
    if os.path.exists(os.path.join(src, "lib", "cgroup_util.c")):
        return ["-Ilib/include", "lib/cgroup_util.c"]
    return ["cgroup_util.c"]


def compile_selftests(cache, run):
    """{program: path} of SELFTESTS: test_kmem and test_memcontrol of the
    pristine source, static, -O0 (at -O2 gcc drops the loops that touch
    pages and the tests fail falsely), and kcheck."""
    out = run.path("selftests")
    os.makedirs(out, exist_ok=True)
    src = os.path.join(cache.ensure_selftests(run), "tools/testing/selftests/cgroup")
    with run.step("compile cgroup selftests (-O0, static) and kcheck"):
        for t in KERNEL_SELFTESTS:
            sh(["gcc", "-static", "-O0", "-Wall", "-pthread", "-I..", "-I../../../include"] +
               cgroup_util(src) + ["-o", os.path.join(out, t), t + ".c"], cwd=src, quiet=True)
        sh(["gcc", "-static", "-O2", "-Wall", "-Wextra", "-Werror", "-o",
            os.path.join(out, "kcheck")] + [os.path.join(paths.GUEST, s)
                                            for s in ("kcheck.c", "kutil.c")])
    return {t: os.path.join(out, t) for t in SELFTESTS}
