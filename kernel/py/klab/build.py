# SPDX-License-Identifier: GPL-2.0
"""Kernel builds: config (tinyconfig + fragments + olddefconfig), make, the
kept images, and a series' touched objects compiled at W=1 after each of
its patches (compile_series: bisectable and W=1 clean, in seconds per patch
in a tree that is never fully built).

Each design's bzImage is kept in klab-images/<config>/<design>/ with a stamp
(series hash, config hash, compiler); a current image is not rebuilt. The
uml config builds User-Mode Linux (ARCH=um): its image is the host program
`linux`, kept with its .config beside it (linux.config: uml.py reads SMP
from it).
"""
import dataclasses
import hashlib
import os
import re
import shutil

from . import bases, paths
from . import designs
from .designs import build_order
from .run import log
from .shell import sh

# Each config: the fragments applied, in order, on top of tinyconfig; the
# base's own (bases.Base.extra_fragments) come right after lab.config.
CONFIG_FRAGMENTS = {
    "lab": ["lab.config"],
    "debug": ["lab.config", "debug.config"],
    "uml": ["uml.config"],
    # the density workload's: overlayfs and the lock tracepoints (density.config)
    "uml-density": ["uml.config", "density.config"],
}
# The configs that are not x86's: their ARCH; their make target and image
# (under build/) and the kept image's name.
CONFIG_ARCH = {"uml": "um", "uml-density": "um"}
IMAGE = {None: ("bzImage", "arch/x86/boot/bzImage", "bzImage"),
         "um": ("linux", "linux", "linux")}


# The bases whose UML has SMP (7.3's x86-64 subarch; 6.12's UML has none).
UML_SMP_BASES = {"7.3"}


def fragments(config, base):
    names = list(CONFIG_FRAGMENTS[config])
    if CONFIG_ARCH.get(config) == "um" and base.name in UML_SMP_BASES:
        names.append("uml-smp.config")
    return tuple(os.path.join(paths.CONFIGS, f)
                 for f in names[:1] + list(base.extra_fragments) + names[1:])


@dataclasses.dataclass(frozen=True)
class Config:
    """A config as built: its name (the tree klab-<name>, the images
    klab-images/<name>/) and its fragments' paths, in order."""
    name: str
    fragments: tuple
    arch: str = None         # make's ARCH= (None: the host's, x86)

    def hash(self):
        h = hashlib.sha256()
        for frag in self.fragments:
            with open(frag, "rb") as f:
                h.update(f.read())
        return h.hexdigest()[:16]


def config_of(config, design, base=None):
    """The Config @design builds with for @config (lab, debug, uml) on @base
    (default: the run's): the lab's own, or with the design's fragment on
    top, in a tree of its own. Its name is the base's for it (lab on 6.12,
    7.3-lab on 7.3)."""
    base = base or bases.current()
    frags = fragments(config, base)
    name = base.config_name(config)
    arch = CONFIG_ARCH.get(config)
    if not design.fragment:
        return Config(name, frags, arch)
    return Config("%s+%s" % (name, design.name), frags + (design.fragment,), arch)


def compiler():
    return "ccache gcc" if shutil.which("ccache") else "gcc"


def make(tree, *targets, extra=(), check=True, arch=None):
    return sh(["make", "-C", tree, "O=build", "-j" + paths.jobs(), "CC=" + compiler()] +
              (["ARCH=" + arch] if arch else []) + list(extra) + list(targets), quiet=True,
              check=check)


def configure(tree, cfg, run):
    """tinyconfig + @cfg's fragments + olddefconfig, unless the tree has
    this config already; every fragment line must stick."""
    build = os.path.join(tree, "build")
    stamp = os.path.join(build, ".klab-config")
    want = cfg.hash()
    if os.path.exists(stamp) and open(stamp).read().strip() == want:
        return
    with run.step("config %s" % cfg.name):
        os.makedirs(build, exist_ok=True)
        make(tree, "tinyconfig", arch=cfg.arch)
        sh([os.path.join(tree, "scripts/kconfig/merge_config.sh"), "-m", "-O", build,
            os.path.join(build, ".config")] + list(cfg.fragments), cwd=tree, quiet=True,
           env={"ARCH": cfg.arch} if cfg.arch else None)
        make(tree, "olddefconfig", arch=cfg.arch)
        check_config(os.path.join(build, ".config"), cfg.fragments)
    with open(stamp, "w") as f:
        f.write(want + "\n")


DROP = "# klab-drop: "


def _config_lines(path):
    """{CONFIG_X: value} of a .config or fragment ('n' for "is not set";
    None for a fragment's "# klab-drop: CONFIG_X (why)": an option of an
    earlier fragment that this base does not have)."""
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith(DROP):
                out[line[len(DROP):].split()[0]] = None
            elif line.startswith("CONFIG_"):
                k, _, v = line.partition("=")
                out[k] = v
            elif line.startswith("# CONFIG_") and line.endswith(" is not set"):
                out[line[2:-11]] = "n"
    return out


def wanted(frags):
    """{CONFIG_X: value} the fragments @frags ask for, a later one over an
    earlier; the options a klab-drop line took out are not in it."""
    want = {}
    for frag in frags:
        want.update(_config_lines(frag))
    return {k: v for k, v in want.items() if v is not None}


def check_config(dotconfig, frags):
    have = _config_lines(dotconfig)
    bad = ["%s=%s (got %s)" % (k, v, have.get(k, "n"))
           for k, v in wanted(frags).items() if have.get(k, "n") != v]
    if bad:
        raise RuntimeError("config options that did not stick: " + ", ".join(bad))


def build_design(cache, config, design, run):
    """Build @design for @config (lab, debug, uml) unless its image is
    current; return the kept image (bzImage, or UML's linux)."""
    cfg = config_of(config, design, cache.base)
    out = cache.image_dir(cfg.name, design.name)
    # The source is in the stamp: a bookworm base's package moves on.
    stamp = "%s %s %s %s\n" % (design.series_hash(), cfg.hash(), compiler(), cache.base.words())
    img = os.path.join(out, IMAGE[cfg.arch][2])
    if _current(img, stamp):
        log("%s/%s: image is current" % (cfg.name, design.name))
        return img
    with cache.locked(cfg.name):
        if _current(img, stamp):
            log("%s/%s: image is current (another run built it)" % (cfg.name, design.name))
            return img
        _build_locked(cache, cfg, design, img, stamp, run)
    return img


def _current(img, stamp):
    try:
        with open(img + ".stamp") as f:
            return os.path.exists(img) and f.read() == stamp
    except OSError:
        return False


def _build_locked(cache, cfg, design, img, stamp, run):
    """Switch, configure and build @cfg's tree for @design and keep its
    image; the caller holds the tree's lock."""
    out = os.path.dirname(img)
    tree = cache.switch(cfg.name, design, run)
    configure(tree, cfg, run)
    target, built, _ = IMAGE[cfg.arch]
    with run.step("build %s/%s" % (cfg.name, design.name)):
        make(tree, target, arch=cfg.arch)
    os.makedirs(out, exist_ok=True)
    # a new file renamed over the old: a guest booting the old image reads it whole
    shutil.copyfile(os.path.join(tree, "build", built), img + ".tmp")
    shutil.copymode(os.path.join(tree, "build", built), img + ".tmp")
    os.replace(img + ".tmp", img)
    shutil.copyfile(os.path.join(tree, "build/.config"), img + ".config")
    # the image's symbols (klab profile: the lab kernel has no kallsyms)
    if os.path.exists(os.path.join(tree, "build/System.map")):
        shutil.copyfile(os.path.join(tree, "build/System.map"), system_map(img) + ".tmp")
        os.replace(system_map(img) + ".tmp", system_map(img))
    with open(img + ".stamp", "w") as f:
        f.write(stamp)


def system_map(img):
    """The System.map kept beside the kept image @img (its kernel's symbols:
    with CONFIG_RELOCATABLE off, the addresses it runs at)."""
    return os.path.join(os.path.dirname(img), "System.map")


def build_all(cache, config, designs, run):
    """{design name: bzImage}, built in build_order."""
    return {d.name: build_design(cache, config, d, run) for d in build_order(designs)}


def touched_objects(patches):
    """The objects of the .c files @patches touch."""
    return sorted(f[:-2] + ".o" for f in designs.patched_files(patches) if f.endswith(".c"))


def named_objects(tree, objs, config=None):
    """The objects of @objs that a Makefile or Kbuild of @tree names, in
    the object's directory or an ancestor's (by its path from there): a .c
    file that another includes (a KUnit suite included at the end of the
    file it tests, mm/tests/shrinker_kunit.c) has no object of its own and
    is compiled with its includer. With @config ({CONFIG_X: value} of the
    tree's .config), an object only lines of a disabled option name
    (obj-$(CONFIG_MEMCG) += memcontrol.o at MEMCG=n) is not built by that
    config, and is left out too."""
    keep = []
    for obj in objs:
        d, rel = os.path.dirname(obj), os.path.basename(obj)
        while True:
            lines = [line for mk in ("Makefile", "Kbuild")
                     for line in _logical_lines(_read(os.path.join(tree, d, mk)))
                     if re.search(r"(^|[\s=])%s(\s|$)" % re.escape(rel), line)]
            if lines:
                if config is None or any(_line_enabled(line, config) for line in lines):
                    keep.append(obj)
                break
            if not d:
                break
            d, rel = os.path.dirname(d), os.path.basename(d) + "/" + rel
    return keep


def _logical_lines(text):
    """@text's lines with their backslash continuations joined."""
    return text.replace("\\\n", " ").split("\n")


def _line_enabled(line, config):
    """Does Makefile line @line build what it names under @config: false
    for name-$(CONFIG_X) with CONFIG_X neither y nor m, and for name-n."""
    m = re.match(r"\s*[\w.-]+-\$\((CONFIG_\w+)\)", line)
    if m:
        return config.get(m.group(1)) in ("y", "m")
    return not re.match(r"\s*[\w.-]+-n\b", line)


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def warnings_of(output):
    return [line for line in output.split("\n") if "warning:" in line or "error:" in line]


def compile_series(cache, design, run):
    """Bisectability and W=1 without a full build: apply @design's series
    one patch at a time and, after each, compile at W=1 the objects of every
    .c file the series has touched so far (a header change in patch k must
    not break a .c file patch j < k touched). Return [(patch file,
    [findings])] for the patches with findings (warnings, errors, or a
    failed make). It runs in a tree of its own, klab-compile (the lab
    config, never fully built: make builds only what the objects need), so
    the lab tree's objects and mtimes stay those of its last build: a
    header that a check switched away and back would otherwise look newer
    than every object and cost a whole rebuild."""
    lab = config_of("lab", design, cache.base)
    cfg = Config(lab.name.replace("lab", "compile", 1), lab.fragments)
    bad = []
    with cache.locked(cfg.name), \
            run.step("W=1 per patch %s (%d patches)" % (design.name, len(design.patches))):
        for k in range(1, len(design.patches) + 1):
            prefix = designs.Design("%s~%d" % (design.name, k), design.patches[:k], design.dir,
                                    design.fragment)
            tree = cache.switch(cfg.name, prefix, run)
            configure(tree, cfg, run)
            named = named_objects(tree, touched_objects(prefix.patches))
            objs = named_objects(tree, named,
                                 _config_lines(os.path.join(tree, "build", ".config")))
            off = [o for o in named if o not in objs]
            if off:
                log("%s: not built at this config, not compiled: %s"
                    % (prefix.name, " ".join(off)))
            if not objs:
                continue
            r = make(tree, *objs, extra=["W=1"], check=False)
            found = warnings_of(r.stdout or "")
            if r.returncode != 0 and not found:
                found = ["make W=1 %s exited %d: %s" % (" ".join(objs), r.returncode,
                                                         (r.stdout or "")[-500:])]
            log("%s: W=1 %s: %s" % (prefix.name, " ".join(objs),
                                     "%d finding(s)" % len(found) if found else "clean"))
            if found:
                bad.append((design.patches[k - 1], found))
    return bad
