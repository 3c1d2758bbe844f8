# SPDX-License-Identifier: GPL-2.0
"""Source trees, design series and kernel builds.

Layout under $KLAB_CACHE (default /var/cache/libshrinker), outside the repo:
  klab-<config>/           the tarball unpacked once per config (lab, debug),
                           with the current design's series applied
  klab-<config>/build/     its O= build directory (a direct child of the
                           source tree, so Kbuild uses relative paths and
                           ccache hits across trees)
  klab-<config>/.klab-applied/   the design applied now, and a copy of its
                           patches (reversed from this copy, whatever
                           happened to kernel/patches since)
  klab-selftests-src/      the pristine selftests and tools/include
  klab-images/<config>/<design>/bzImage   each design's kernel, with a stamp

Switching design reverses the applied series (patch -R, last patch first)
and applies the new one: only the files the two series touch are rewritten,
make rebuilds only what depends on them, and ccache answers for any file
content it compiled before, so going back to an earlier design costs
seconds. A tree whose series does not reverse cleanly is unpacked again.
No git: on a fresh machine unpacking is the whole cost (a git commit of
the 80,000 files took 5 minutes on a loaded 2-core machine).
"""
import glob
import hashlib
import os
import resource
import shutil
import subprocess
import sys
import time

TARBALL = "/usr/src/linux-source-6.12.tar.xz"
KDIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
PATCHES = os.path.join(KDIR, "patches")
CONFIGS = os.path.join(KDIR, "config")

# Each config: the fragments applied, in order, on top of tinyconfig.
CONFIG_FRAGMENTS = {
    "lab": ["lab.config"],
    "debug": ["lab.config", "debug.config"],
}


def cache_dir():
    return os.environ.get("KLAB_CACHE", "/var/cache/libshrinker")


class Timer:
    """Wall and CPU times of the steps of a run, in order. The CPU time is
    that of the step's child processes (make, QEMU), which does not grow
    with the machine's load: wall time on an idle machine is about CPU time
    over the CPUs the step keeps busy."""

    def __init__(self):
        self.steps = []

    def run(self, name, fn, *a, **kw):
        t0 = time.monotonic()
        c0 = children_cpu()
        try:
            return fn(*a, **kw)
        finally:
            self.add(name, time.monotonic() - t0, children_cpu() - c0)

    def add(self, name, seconds, cpu=None):
        self.steps.append((name, seconds, cpu))
        log("%-44s %7.1f s" % (name, seconds) +
            ("" if cpu is None else " (CPU %.1f s)" % cpu))


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


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


# ---------------------------------------------------------------- packages

HOST_PACKAGES = ["linux-source-6.12", "build-essential", "flex", "bison", "bc", "libelf-dev",
                 "libssl-dev", "dwarves", "cpio", "qemu-system-x86", "busybox-static",
                 "ccache", "e2fsprogs", "patch", "xz-utils", "python3"]


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

def tree_dir(config):
    return os.path.join(cache_dir(), "klab-" + config)


def selftests_src():
    return os.path.join(cache_dir(), "klab-selftests-src")


def unpack(dest, timer, label):
    """Unpack the tarball into @dest (replacing it); keep a pristine copy of
    the selftests the first time."""
    if not os.path.exists(TARBALL):
        raise RuntimeError("%s missing (apt-get install linux-source-6.12)" % TARBALL)
    os.makedirs(cache_dir(), exist_ok=True)
    tmp = dest + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    timer.run("untar linux-source-6.12 (%s)" % label, sh,
              ["tar", "-xf", TARBALL, "-C", tmp, "--strip-components=1"])
    st = selftests_src()
    if not os.path.isdir(st):
        os.makedirs(st + ".tmp", exist_ok=True)
        for d in ("tools/testing/selftests", "tools/include"):
            shutil.copytree(os.path.join(tmp, d), os.path.join(st + ".tmp", d),
                            symlinks=True, dirs_exist_ok=True)
        os.rename(st + ".tmp", st)
    shutil.rmtree(dest, ignore_errors=True)
    os.rename(tmp, dest)


def ensure_tree(config, timer):
    tree = tree_dir(config)
    if not os.path.exists(os.path.join(tree, "Makefile")):
        unpack(tree, timer, config)
    return tree


def ensure_selftests_src(timer):
    """Pristine tools/testing/selftests and tools/include (copied when a tree
    is unpacked; taken from the tarball when the trees predate that)."""
    st = selftests_src()
    if not os.path.isdir(st):
        os.makedirs(st + ".tmp", exist_ok=True)
        timer.run("untar the selftests", sh,
                  ["tar", "-xf", TARBALL, "-C", st + ".tmp", "--strip-components=1",
                   "linux-source-6.12/tools/testing/selftests",
                   "linux-source-6.12/tools/include"])
        os.rename(st + ".tmp", st)
    return st


# ----------------------------------------------------------------- designs

def designs_available():
    """mainline plus every kernel/patches/<design>/ that holds *.patch."""
    out = ["mainline"]
    for d in sorted(glob.glob(os.path.join(PATCHES, "*"))):
        if os.path.isdir(d) and glob.glob(os.path.join(d, "*.patch")):
            out.append(os.path.basename(d))
    return out


def has_diff(path):
    """Does @path change files? (A git format-patch cover letter,
    0000-cover-letter.patch, does not: patch(1) would call it garbage.)"""
    with open(path, errors="replace") as f:
        return any(line.startswith("--- ") or line.startswith("diff ") for line in f)


def series(design):
    if design == "mainline":
        return []
    # A cover letter (0000-cover-letter.patch) carries no diff.
    s = [p for p in sorted(glob.glob(os.path.join(PATCHES, design, "*.patch"))) if has_diff(p)]
    if not s:
        raise RuntimeError("no patches in %s" % os.path.join(PATCHES, design))
    return s


def touched_files(design):
    return patched_files(series(design))


def patched_files(patches):
    files = set()
    for p in patches:
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


def series_hash(design):
    h = hashlib.sha256(design.encode())
    for p in series(design):
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def _patch(tree, path, reverse=False):
    cmd = ["patch", "-p1", "-s", "-f", "--no-backup-if-mismatch", "-d", tree, "-i", path]
    cmd += ["-R"] if reverse else ["-N"]
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def applied_dir(tree):
    return os.path.join(tree, ".klab-applied")


def current_design(tree):
    try:
        with open(os.path.join(applied_dir(tree), "design")) as f:
            name, h = f.read().split()
        return name, h
    except (OSError, ValueError):
        return "mainline", series_hash("mainline")


def switch_design(config, design, timer):
    """Make @config's tree hold @design (reverse the applied series, apply
    the new one); unpack the tree again if the applied series won't reverse."""
    tree = ensure_tree(config, timer)
    want = series_hash(design)
    cur, h = current_design(tree)
    if (cur, h) == (design, want):
        return tree
    ad = applied_dir(tree)
    saved = sorted(glob.glob(os.path.join(ad, "*.patch")))
    before = file_states(tree, patched_files(saved) | touched_files(design))
    for p in reversed(saved):
        r = _patch(tree, p, reverse=True)
        if r.returncode != 0:
            log("%s: series of %s does not reverse (%s); unpacking the tree again"
                % (config, cur, r.stdout.strip()[:200]))
            unpack(tree, timer, config)
            before = {}
            break
    shutil.rmtree(ad, ignore_errors=True)
    done = []
    for p in series(design):
        r = _patch(tree, p)
        if r.returncode != 0:
            for q in reversed(done):
                _patch(tree, q, reverse=True)
            raise RuntimeError("%s: %s does not apply to linux-source-6.12:\n%s"
                               % (design, os.path.basename(p), r.stdout))
        done.append(p)
    os.makedirs(ad, exist_ok=True)
    for i, p in enumerate(done):
        shutil.copyfile(p, os.path.join(ad, "%04d.patch" % i))
    with open(os.path.join(ad, "design"), "w") as f:
        f.write("%s %s\n" % (design, want))
    kept = keep_unchanged_mtimes(tree, before)
    log("%s: %s -> %s; %d of %d touched files unchanged (make skips them)"
        % (config, cur, design, kept, len(before)))
    return tree


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
    """Give back their old mtime to the files that a switch of series left
    with the same content, so make rebuilds only what really changed (two
    designs sharing patches, e.g. xarray and indexed, share those objects).
    Return how many files kept their mtime."""
    kept = 0
    for rel, (digest, mtime_ns) in before.items():
        now = file_states(tree, [rel]).get(rel)
        if now and now[0] == digest:
            os.utime(os.path.join(tree, rel), ns=(mtime_ns, mtime_ns))
            kept += 1
    return kept


# ------------------------------------------------------------------ builds

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


def make(tree, *targets, quiet=True):
    jobs = os.environ.get("KLAB_JOBS", str(os.cpu_count() or 2))
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


def build_design(config, design, timer):
    """Build @design in @config's tree unless its image is current; return bzImage."""
    out = image_dir(config, design)
    stamp = "%s %s %s\n" % (series_hash(design), config_hash(config), compiler())
    img = os.path.join(out, "bzImage")
    w1 = os.path.join(out, "w1.txt") if config == "lab" and design != "mainline" else None
    if os.path.exists(img) and os.path.exists(img + ".stamp") and \
            open(img + ".stamp").read() == stamp:
        log("%s/%s: image is current" % (config, design))
        if w1 and not os.path.exists(w1):
            tree = switch_design(config, design, timer)
            configure(tree, config, timer)
            timer.run("W=1 %s (touched .c files)" % design, w1_check, tree, design, w1)
        return img
    tree = switch_design(config, design, timer)
    configure(tree, config, timer)
    timer.run("build %s/%s" % (config, design), make, tree, "bzImage")
    os.makedirs(out, exist_ok=True)
    shutil.copyfile(os.path.join(tree, "build/arch/x86/boot/bzImage"), img)
    if w1:
        timer.run("W=1 %s (touched .c files)" % design, w1_check, tree, design, w1)
    with open(img + ".stamp", "w") as f:
        f.write(stamp)
    return img


def w1_objects(design):
    """The objects of the .c files @design's series touches."""
    return sorted(f[:-2] + ".o" for f in touched_files(design) if f.endswith(".c"))


def w1_check(tree, design, report):
    """Compile the series' .c files again at W=1 and keep the warnings they
    print in @report (empty when clean). The next build compiles them back
    at the normal level (Kbuild sees the command line change)."""
    objs = w1_objects(design)
    r = sh(["make", "-C", tree, "O=build", "-j" + os.environ.get("KLAB_JOBS", str(
        os.cpu_count() or 2)), "CC=" + compiler(), "W=1"] + objs, quiet=True, check=False)
    found = [line for line in (r.stdout or "").split("\n") if "warning:" in line or
             "error:" in line]
    if r.returncode != 0 and not found:
        found = ["make W=1 %s exited %d" % (" ".join(objs), r.returncode)]
    with open(report, "w") as f:
        f.write("".join(line + "\n" for line in found))


def w1_findings(config, design):
    """The W=1 warnings of @design's kept image (none for mainline, for the
    debug config, or when the report is missing)."""
    try:
        with open(os.path.join(image_dir(config, design), "w1.txt")) as f:
            return [line for line in f.read().split("\n") if line]
    except OSError:
        return []


def build_all(config, designs, timer):
    return {d: build_design(config, d, timer) for d in build_order(designs)}
