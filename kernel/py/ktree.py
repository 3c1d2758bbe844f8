# SPDX-License-Identifier: GPL-2.0
"""Source cache, design series and kernel builds.

Layout under $KLAB_CACHE (default /var/cache/libshrinker), outside the repo:
  linux-pristine/          git repo of Debian's linux-source-6.12 tarball:
                           commit "pristine" (tag klab-pristine), then one
                           commit dropping Debian's top-level ignore-all
                           .gitignore rule (branch master: the base)
  klab-<config>/           git worktree of that repo, one per config; the
                           design being built is checked out in it
  klab-<config>/build/     its O= build directory (a direct child of the
                           source tree, so Kbuild uses relative paths and
                           ccache hits across trees)
  klab-images/<config>/<design>/bzImage   each design's kernel, with a stamp

A design is the base plus kernel/patches/<design>/*.patch applied in order
(`git apply --cached` on a scratch index, then `git commit-tree`, with fixed
dates: the same series gives the same commit). Switching designs is a
`git checkout` of that commit: git rewrites only the files that differ, so
make rebuilds only what depends on them, and ccache serves any file content
it has compiled before (switching back to an earlier design costs seconds).
"""
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time

TARBALL = "/usr/src/linux-source-6.12.tar.xz"
KDIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
PATCHES = os.path.join(KDIR, "patches")
CONFIGS = os.path.join(KDIR, "config")
FIXED_DATE = "1700000000 +0000"

# Each config: the fragments applied, in order, on top of tinyconfig.
CONFIG_FRAGMENTS = {
    "lab": ["lab.config"],
    "debug": ["lab.config", "debug.config"],
}


def cache_dir():
    return os.environ.get("KLAB_CACHE", "/var/cache/libshrinker")


class Timer:
    """Wall times of the steps of a run, in order."""

    def __init__(self):
        self.steps = []

    def run(self, name, fn, *a, **kw):
        t0 = time.monotonic()
        try:
            return fn(*a, **kw)
        finally:
            self.add(name, time.monotonic() - t0)

    def add(self, name, seconds):
        self.steps.append((name, seconds))
        log("%-44s %7.1f s" % (name, seconds))


def log(msg):
    print("klab: " + msg, file=sys.stderr, flush=True)


def sh(cmd, cwd=None, env=None, quiet=False, check=True, capture=False):
    e = dict(os.environ)
    if env:
        e.update(env)
    r = subprocess.run(cmd, cwd=cwd, env=e, text=True,
                       stdout=subprocess.PIPE if (quiet or capture) else None,
                       stderr=subprocess.STDOUT if quiet else None)
    if check and r.returncode != 0:
        out = (r.stdout or "")[-4000:] if quiet else ""
        raise RuntimeError("command failed (%d): %s\n%s" % (r.returncode, " ".join(cmd), out))
    return r


def git(repo, *args, env=None, capture=True, check=True):
    e = {"GIT_AUTHOR_NAME": "klab", "GIT_AUTHOR_EMAIL": "klab@libshrinker",
         "GIT_COMMITTER_NAME": "klab", "GIT_COMMITTER_EMAIL": "klab@libshrinker",
         "GIT_AUTHOR_DATE": FIXED_DATE, "GIT_COMMITTER_DATE": FIXED_DATE}
    if env:
        e.update(env)
    r = sh(["git", "-C", repo] + list(args), env=e, capture=capture, check=check)
    return (r.stdout or "").strip()


# ---------------------------------------------------------------- packages

HOST_PACKAGES = ["linux-source-6.12", "build-essential", "flex", "bison", "bc", "libelf-dev",
                 "libssl-dev", "dwarves", "cpio", "qemu-system-x86", "busybox-static",
                 "ccache", "e2fsprogs", "git", "xz-utils", "python3"]


def install_packages(timer):
    """apt-get install what is missing (nothing at all when all are there)."""
    missing = []
    for p in HOST_PACKAGES:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", p], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
        if "install ok installed" not in r.stdout:
            missing.append(p)
    if not missing:
        return
    log("missing Debian packages: " + " ".join(missing))
    if os.getuid() != 0:
        raise RuntimeError("run as root, or: apt-get install " + " ".join(missing))

    def inst():
        sh(["apt-get", "update", "-qq"])
        sh(["apt-get", "install", "-y", "-qq", "--no-install-recommends"] + missing,
           env={"DEBIAN_FRONTEND": "noninteractive"})
    timer.run("apt-get install (%d packages)" % len(missing), inst)


# ------------------------------------------------------------------ source

def repo_dir():
    return os.path.join(cache_dir(), "linux-pristine")


def ensure_repo(timer):
    """The pristine source as a git repo, unpacked once from the tarball."""
    repo = repo_dir()
    if os.path.isdir(os.path.join(repo, ".git")):
        git(repo, "rev-parse", "--verify", "master^{commit}")
        return repo
    if not os.path.exists(TARBALL):
        raise RuntimeError("%s missing (apt-get install linux-source-6.12)" % TARBALL)
    os.makedirs(cache_dir(), exist_ok=True)
    tmp = repo + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    timer.run("untar linux-source-6.12", sh,
              ["tar", "-xf", TARBALL, "-C", tmp, "--strip-components=1"])

    def commit():
        git(tmp, "init", "-q", "-b", "master")
        git(tmp, "config", "core.bigFileThreshold", "1m")
        git(tmp, "add", "-f", "-A", ".")
        git(tmp, "commit", "-q", "-m", "linux-source-6.12 (Debian), pristine")
        git(tmp, "tag", "klab-pristine")
        # Debian's top-level .gitignore ignores everything ("/*"): drop that
        # rule so build products and new files show up as they do upstream.
        gi = os.path.join(tmp, ".gitignore")
        with open(gi) as f:
            lines = f.read().split("\n")
        with open(gi, "w") as f:
            f.write("\n".join(x for x in lines if x not in ("/*", "!/debian/")))
        git(tmp, "commit", "-q", "-am", "gitignore: drop Debian's top-level ignore-all rule")
    timer.run("git commit of the pristine source", commit)
    os.rename(tmp, repo)
    return repo


# ----------------------------------------------------------------- designs

def designs_available():
    """mainline plus every kernel/patches/<design>/ that holds *.patch."""
    out = ["mainline"]
    for d in sorted(glob.glob(os.path.join(PATCHES, "*"))):
        if os.path.isdir(d) and glob.glob(os.path.join(d, "*.patch")):
            out.append(os.path.basename(d))
    return out


def series(design):
    if design == "mainline":
        return []
    s = sorted(glob.glob(os.path.join(PATCHES, design, "*.patch")))
    if not s:
        raise RuntimeError("no patches in %s" % os.path.join(PATCHES, design))
    return s


def touched_files(design):
    files = set()
    for p in series(design):
        with open(p, errors="replace") as f:
            for line in f:
                if line.startswith("+++ b/") or line.startswith("--- a/"):
                    files.add(line[6:].strip())
    return files


def build_order(designs):
    """mainline first, then the designs touching the fewest headers."""
    def key(d):
        if d == "mainline":
            return (-1, d)
        return (sum(1 for f in touched_files(d) if f.endswith(".h")), d)
    return sorted(designs, key=key)


def design_commit(repo, design):
    """The commit of base + series (made once; the same series, the same id)."""
    base = git(repo, "rev-parse", "master^{commit}")
    if design == "mainline":
        return base
    with tempfile.TemporaryDirectory(prefix="klab-idx-") as tmp:
        env = {"GIT_INDEX_FILE": os.path.join(tmp, "index")}
        git(repo, "read-tree", base, env=env)
        for p in series(design):
            r = sh(["git", "-C", repo, "apply", "--cached", "--whitespace=nowarn",
                    os.path.abspath(p)], env=env, capture=True, check=False)
            if r.returncode != 0:
                raise RuntimeError("%s: %s does not apply to linux-source-6.12:\n%s"
                                   % (design, os.path.basename(p), r.stdout))
        tree = git(repo, "write-tree", env=env)
    msg = "klab design %s\n\n%s\n" % (design, "\n".join(os.path.basename(p)
                                                      for p in series(design)))
    return sh(["git", "-C", repo, "commit-tree", tree, "-p", base, "-m", msg],
              env={"GIT_AUTHOR_NAME": "klab", "GIT_AUTHOR_EMAIL": "klab@libshrinker",
                   "GIT_COMMITTER_NAME": "klab", "GIT_COMMITTER_EMAIL": "klab@libshrinker",
                   "GIT_AUTHOR_DATE": FIXED_DATE, "GIT_COMMITTER_DATE": FIXED_DATE},
              capture=True).stdout.strip()


# ------------------------------------------------------------------ builds

def tree_dir(config):
    return os.path.join(cache_dir(), "klab-" + config)


def image_dir(config, design):
    return os.path.join(cache_dir(), "klab-images", config, design)


def config_hash(config):
    h = hashlib.sha256()
    for frag in CONFIG_FRAGMENTS[config]:
        with open(os.path.join(CONFIGS, frag), "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def compiler():
    return "ccache gcc" if shutil.which("ccache") else "gcc"


def ensure_tree(repo, config, timer):
    tree = tree_dir(config)
    if not os.path.isdir(tree):
        timer.run("worktree klab-%s (checkout)" % config, git, repo, "worktree", "add",
                  "-q", "--detach", tree, "master")
    return tree


def make(tree, *targets, quiet=True):
    jobs = os.environ.get("KLAB_JOBS", "2")
    return sh(["make", "-C", tree, "O=build", "-j" + jobs, "CC=" + compiler()] + list(targets),
              quiet=quiet)


def configure(tree, config, timer):
    """tinyconfig + fragments + olddefconfig; every fragment line must stick."""
    build = os.path.join(tree, "build")
    stamp = os.path.join(build, ".klab-config")
    want = config_hash(config)
    if os.path.exists(stamp) and open(stamp).read().strip() == want:
        return

    def do():
        os.makedirs(build, exist_ok=True)
        make(tree, "tinyconfig")
        frags = [os.path.join(CONFIGS, f) for f in CONFIG_FRAGMENTS[config]]
        sh([os.path.join(tree, "scripts/kconfig/merge_config.sh"), "-m", "-O", build,
            os.path.join(build, ".config")] + frags, cwd=tree, quiet=True)
        make(tree, "olddefconfig")
        check_config(os.path.join(build, ".config"), frags)
    timer.run("config %s" % config, do)
    with open(stamp, "w") as f:
        f.write(want + "\n")


def check_config(dotconfig, frags):
    have = {}
    with open(dotconfig) as f:
        for line in f:
            line = line.strip()
            if line.startswith("CONFIG_"):
                k, _, v = line.partition("=")
                have[k] = v
            elif line.startswith("# CONFIG_") and line.endswith(" is not set"):
                have[line[2:-11]] = "n"
    bad = []
    for frag in frags:
        with open(frag) as f:
            for line in f:
                line = line.strip()
                if line.startswith("CONFIG_"):
                    k, _, v = line.partition("=")
                elif line.startswith("# CONFIG_") and line.endswith(" is not set"):
                    k, v = line[2:-11], "n"
                else:
                    continue
                if have.get(k, "n") != v:
                    bad.append("%s=%s (got %s)" % (k, v, have.get(k, "n")))
    if bad:
        raise RuntimeError("config options that did not stick: " + ", ".join(bad))


def build_design(repo, config, design, timer):
    """Build @design in @config's tree unless its image is current; return bzImage."""
    commit = design_commit(repo, design)
    out = image_dir(config, design)
    stamp = "%s %s %s\n" % (commit, config_hash(config), compiler())
    img = os.path.join(out, "bzImage")
    if os.path.exists(img) and os.path.exists(img + ".stamp") and \
            open(img + ".stamp").read() == stamp:
        log("%s/%s: image is current" % (config, design))
        return img
    tree = ensure_tree(repo, config, timer)
    git(tree, "checkout", "-q", "-f", "--detach", commit)
    configure(tree, config, timer)
    timer.run("build %s/%s" % (config, design), make, tree, "bzImage")
    os.makedirs(out, exist_ok=True)
    shutil.copyfile(os.path.join(tree, "build/arch/x86/boot/bzImage"), img)
    with open(img + ".stamp", "w") as f:
        f.write(stamp)
    return img


def build_all(config, designs, timer):
    repo = ensure_repo(timer)
    return {d: build_design(repo, config, d, timer) for d in build_order(designs)}
