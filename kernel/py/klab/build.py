# SPDX-License-Identifier: GPL-2.0
"""Kernel builds: config (tinyconfig + fragments + olddefconfig), make, the
kept images, and W=1 of the files a series touches.

Each design's bzImage is kept in klab-images/<config>/<design>/ with a stamp
(series hash, config hash, compiler); a current image is not rebuilt. Its
W=1 report (w1.txt, lab config only) lists the warnings the series' .c
files print at W=1 (empty when clean).
"""
import hashlib
import os
import shutil

from . import paths
from .designs import build_order
from .run import log
from .shell import sh

# Each config: the fragments applied, in order, on top of tinyconfig.
CONFIG_FRAGMENTS = {
    "lab": ["lab.config"],
    "debug": ["lab.config", "debug.config"],
}


def config_hash(config):
    h = hashlib.sha256()
    for frag in CONFIG_FRAGMENTS[config]:
        with open(os.path.join(paths.CONFIGS, frag), "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def compiler():
    return "ccache gcc" if shutil.which("ccache") else "gcc"


def make(tree, *targets, extra=(), check=True):
    return sh(["make", "-C", tree, "O=build", "-j" + paths.jobs(), "CC=" + compiler()] +
              list(extra) + list(targets), quiet=True, check=check)


def configure(tree, config, run):
    """tinyconfig + fragments + olddefconfig, unless the tree has this
    config already; every fragment line must stick."""
    build = os.path.join(tree, "build")
    stamp = os.path.join(build, ".klab-config")
    want = config_hash(config)
    if os.path.exists(stamp) and open(stamp).read().strip() == want:
        return
    with run.step("config %s" % config):
        os.makedirs(build, exist_ok=True)
        make(tree, "tinyconfig")
        frags = [os.path.join(paths.CONFIGS, f) for f in CONFIG_FRAGMENTS[config]]
        sh([os.path.join(tree, "scripts/kconfig/merge_config.sh"), "-m", "-O", build,
            os.path.join(build, ".config")] + frags, cwd=tree, quiet=True)
        make(tree, "olddefconfig")
        check_config(os.path.join(build, ".config"), frags)
    with open(stamp, "w") as f:
        f.write(want + "\n")


def _config_lines(path):
    """{CONFIG_X: value} of a .config or fragment ('n' for "is not set")."""
    out = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("CONFIG_"):
                k, _, v = line.partition("=")
                out[k] = v
            elif line.startswith("# CONFIG_") and line.endswith(" is not set"):
                out[line[2:-11]] = "n"
    return out


def check_config(dotconfig, frags):
    have = _config_lines(dotconfig)
    bad = ["%s=%s (got %s)" % (k, v, have.get(k, "n"))
           for frag in frags for k, v in _config_lines(frag).items() if have.get(k, "n") != v]
    if bad:
        raise RuntimeError("config options that did not stick: " + ", ".join(bad))


def build_design(cache, config, design, run):
    """Build @design in @config's tree unless its image is current; return
    the kept bzImage."""
    out = cache.image_dir(config, design.name)
    stamp = "%s %s %s\n" % (design.series_hash(), config_hash(config), compiler())
    img = os.path.join(out, "bzImage")
    w1 = os.path.join(out, "w1.txt") if config == "lab" and design.patches else None
    if os.path.exists(img) and os.path.exists(img + ".stamp") and \
            open(img + ".stamp").read() == stamp:
        log("%s/%s: image is current" % (config, design.name))
        if w1 and not os.path.exists(w1):
            tree = cache.switch(config, design, run)
            configure(tree, config, run)
            w1_check(tree, design, w1, run)
        return img
    tree = cache.switch(config, design, run)
    configure(tree, config, run)
    with run.step("build %s/%s" % (config, design.name)):
        make(tree, "bzImage")
    os.makedirs(out, exist_ok=True)
    shutil.copyfile(os.path.join(tree, "build/arch/x86/boot/bzImage"), img)
    if w1:
        w1_check(tree, design, w1, run)
    with open(img + ".stamp", "w") as f:
        f.write(stamp)
    return img


def build_all(cache, config, designs, run):
    """{design name: bzImage}, built in build_order."""
    return {d.name: build_design(cache, config, d, run) for d in build_order(designs)}


def w1_objects(design):
    """The objects of the .c files @design's series touches."""
    return sorted(f[:-2] + ".o" for f in design.touched_files() if f.endswith(".c"))


def w1_check(tree, design, report, run):
    """Compile the series' .c files again at W=1 and keep the warnings they
    print in @report (empty when clean). The next build compiles them back
    at the normal level (Kbuild sees the command line change)."""
    objs = w1_objects(design)
    with run.step("W=1 %s (touched .c files)" % design.name):
        r = make(tree, *objs, extra=["W=1"], check=False)
    found = [line for line in (r.stdout or "").split("\n")
             if "warning:" in line or "error:" in line]
    if r.returncode != 0 and not found:
        found = ["make W=1 %s exited %d" % (" ".join(objs), r.returncode)]
    with open(report, "w") as f:
        f.write("".join(line + "\n" for line in found))


def w1_findings(cache, config, design):
    """The W=1 warnings of @design's kept image (none for mainline, for the
    debug config, or when the report is missing)."""
    try:
        with open(os.path.join(cache.image_dir(config, design.name), "w1.txt")) as f:
            return [line for line in f.read().split("\n") if line]
    except OSError:
        return []
