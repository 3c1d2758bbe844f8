# SPDX-License-Identifier: GPL-2.0
"""Designs: a name and the series that makes it from a base's source
(bases.py: 7.3-rc7 or 6.12.117).

mainline is the unpatched source, on every base. Every directory of
kernel/patches/ that holds *.patch is a design, except those in
NOT_DESIGNS; a directory without patches is a group, whose directories
are designs too (stable-6.12/, history-6.12/). A series names its base in
its directory's file `base` (one line, e.g. "7.3"); a directory without
one (an outside series) is on whichever base the run is. A design is on
one base, and its name is unique on its base (fix-id-reuse/ is on 7.3,
stable-6.12/fix-id-reuse/ on 6.12). The designs of a group whose name
starts with "history" are history: they build when named (on their base),
and no command takes them by default. A series is its
*.patch files in name order, less those that change no file (a git
format-patch cover letter, 0000-cover-letter.patch: patch(1) would call it
garbage).

The design map, kernel design -> the model design that does its work, is
here alone (model_design()): each series' file `model` beside its patches,
and for mainline, which has no directory, MAINLINE_MODEL. In the file, the
first line that is neither a note ('#') nor a `when` line is the label;
'#' lines are notes (what the model does differently); a line
`when WORD: LABEL` names the label for a guest booted with WORD on its
command line (e.g. `when cgroup.memory=nokmem: prealloc+nonslab_ids`),
LABEL `-` when the model has no design doing that work.

An outside series (every command's --series DIR, or --git TREE --range
BASE..TIP, with --name and optionally --config-fragment) is a design like
the others, beside those of kernel/patches/: a directory of patches is
taken as it is; a git range is exported with git format-patch into
<out>/series/<name>/. A config fragment makes the design build in trees of
its own (build.config_for).
"""
import dataclasses
import glob
import hashlib
import os
import re
import shutil
import subprocess

from . import bases, paths
from .run import log

# Directories of kernel/patches/ that hold patches but are not designs.
NOT_DESIGNS = {
    "debug": "test aids applied by hand (kernel/patches/README.md), part of no series",
}
BASE_FILE = "base"
MODEL_FILE = "model"
HISTORY_PREFIX = "history"
NO_MODEL = "-"

# Mainline has no series directory: its model design and notes.
MAINLINE_MODEL = ("prealloc", [
    "units from kmalloc-1k and a pointer array per cgroup and node sized by "
    "shrinker_nr_max, every list_lru visited at offline: mainline's work"])


@dataclasses.dataclass(frozen=True)
class Design:
    name: str
    patches: tuple = ()      # the series' files with a diff, applied in this order
    dir: str = None          # the directory the series came from (None: mainline)
    fragment: str = None     # a config fragment on top of each config's (outside series)
    origin: str = None       # where an outside series came from, in words
    base: str = None         # the base its directory's `base` file names (None: any)
    history: bool = False    # in a history group: built only when named

    def touched_files(self):
        return patched_files(self.patches)

    def headers_touched(self):
        return sorted(f for f in self.touched_files() if f.endswith(".h"))

    def series_hash(self):
        """Names the design and its series' bytes: a kept image is current
        while this is."""
        h = hashlib.sha256(self.name.encode())
        for p in self.patches + ((self.fragment,) if self.fragment else ()):
            with open(p, "rb") as f:
                h.update(f.read())
        return h.hexdigest()[:16]


MAINLINE = Design("mainline")


def has_diff(path):
    """Does @path change files?"""
    with open(path, errors="replace") as f:
        return any(line.startswith("--- ") or line.startswith("diff ") for line in f)


def patched_files(patches):
    files = set()
    for p in patches:
        with open(p, errors="replace") as f:
            for line in f:
                if line.startswith("+++ b/") or line.startswith("--- a/"):
                    files.add(line[6:].strip())
    return files


def base_of(directory):
    """The base @directory's `base` file names, or None (no file)."""
    try:
        with open(os.path.join(directory, BASE_FILE)) as f:
            words = f.read().split()
    except FileNotFoundError:
        return None
    if len(words) != 1:
        raise RuntimeError("%s: one word, the base (e.g. 7.3)" % os.path.join(directory,
                                                                             BASE_FILE))
    return words[0]


def _model_file(series_dir):
    """(label, notes, {word: label or None}) of the file `model` in
    @series_dir, or None (no file, or no label in it)."""
    path = os.path.join(series_dir, MODEL_FILE)
    if not os.path.exists(path):
        return None
    label, notes, when = None, [], {}
    with open(path) as f:
        for line in (x.strip() for x in f):
            if not line:
                continue
            if line.startswith("#"):
                notes.append(line.lstrip("#").strip())
            elif line.startswith("when "):
                word, sep, alt = line[len("when "):].partition(":")
                if not sep or not word.strip() or not alt.strip():
                    raise RuntimeError("%s: %r: `when WORD: LABEL`" % (path, line))
                alt = alt.strip()
                when[word.strip()] = None if alt == NO_MODEL else alt
            elif label is None:
                label = line
    return (label, notes, when) if label else None


def model_design(design, series_dir=None, cmdline=""):
    """(model label, notes) for kernel design @design booted with kernel
    command line @cmdline, or (None, [why]): the file `model` in its
    series' directory @series_dir, else in another series of that name in
    kernel/patches/ (a design is the same work on every base unless its
    base's series says otherwise); mainline's is MAINLINE_MODEL."""
    if design == MAINLINE.name and not series_dir:
        return MAINLINE_MODEL[0], list(MAINLINE_MODEL[1])
    dirs = [series_dir] if series_dir else []
    dirs += [d.dir for d in every_series() if d.name == design and d.dir != series_dir]
    for d in dirs:
        found = _model_file(d)
        if not found:
            continue
        label, notes, when = found
        for word in cmdline.split():
            if word in when:
                if when[word] is None:
                    return None, ["the model has no design doing the work of kernel:%s "
                                  "booted with %s (%s)" % (design, word,
                                                           os.path.join(d, MODEL_FILE))]
                return when[word], list(notes)
        return label, list(notes)
    if design == MAINLINE.name:
        return MAINLINE_MODEL[0], list(MAINLINE_MODEL[1])
    return None, ["no model design is mapped to kernel:%s (a file `model` beside its series, "
                  "kernel/patches/README.md)" % design]


def from_dir(name, directory, fragment=None, origin=None, history=False):
    """The design @name whose series is @directory's *.patch."""
    s = [p for p in sorted(glob.glob(os.path.join(directory, "*.patch"))) if has_diff(p)]
    if not s:
        raise RuntimeError("no patches with a diff in %s" % directory)
    return Design(name, tuple(s), directory, fragment, origin, base_of(directory), history)


def from_git(name, tree, rev_range, dest, fragment=None):
    """The design @name whose series is @rev_range (BASE..TIP) of the git
    repository @tree, exported into @dest (replaced)."""
    if ".." not in rev_range:
        raise SystemExit("klab: --range %r: BASE..TIP" % rev_range)
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    r = subprocess.run(["git", "-C", tree, "format-patch", "--zero-commit", "--no-signature",
                        "--quiet", "-o", dest, rev_range], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        raise SystemExit("klab: git format-patch %s in %s failed:\n%s" % (rev_range, tree,
                                                                        r.stdout))
    log("%s: %d patches of %s (%s) in %s" % (name, len(glob.glob(os.path.join(dest, "*.patch"))),
                                             rev_range, tree, dest))
    return from_dir(name, dest, fragment, "%s %s" % (tree, rev_range))


def _series_dirs(patches_dir):
    """(directory, history) of every series of @patches_dir: its
    directories with *.patch, and those of its groups (directories
    without)."""
    for d in sorted(glob.glob(os.path.join(patches_dir, "*"))):
        name = os.path.basename(d)
        if not os.path.isdir(d) or name in NOT_DESIGNS:
            continue
        if glob.glob(os.path.join(d, "*.patch")):
            yield d, False
            continue
        for sub in sorted(glob.glob(os.path.join(d, "*"))):
            if os.path.isdir(sub) and glob.glob(os.path.join(sub, "*.patch")):
                yield sub, name.startswith(HISTORY_PREFIX)


def every_series(patches_dir=None):
    """Every design of @patches_dir (kernel/patches/), on every base."""
    return [from_dir(os.path.basename(d), d, history=h)
            for d, h in _series_dirs(patches_dir or paths.PATCHES)]


def on_base(d, base):
    return d.base is None or base is None or d.base == base


def in_repo(patches_dir=None, base=None, history=False):
    """mainline, then every design of @patches_dir (kernel/patches/) on
    @base (default: the run's), by name; the history designs too with
    @history. Two designs of one name on one base are an error."""
    base = base or bases.current().name
    out = [MAINLINE]
    for d in sorted(every_series(patches_dir), key=lambda d: d.name):
        if not on_base(d, base) or (d.history and not history):
            continue
        if d.name in {o.name for o in out}:
            raise RuntimeError("two designs %s on base %s: %s and %s" % (
                d.name, base, next(o.dir for o in out if o.name == d.name), d.dir))
        out.append(d)
    return out


def bases_of(names, patches_dir=None):
    """Per name of @names other than mainline: the set of bases a design
    of that name is on (every base for a name no series has: select()
    refuses it later)."""
    found = every_series(patches_dir)
    out = []
    for n in names:
        if n == MAINLINE.name:
            continue
        have = {d.base or b for d in found if d.name == n for b in bases.BASES
                if on_base(d, b)}
        out.append(have or set(bases.BASES))
    return out


def select(names, available):
    """The designs @names of @available, mainline first (every one when
    @names is empty); SystemExit names the unknown one."""
    have = {d.name: d for d in available}
    if not names:
        return list(available)
    for n in names:
        if n not in have:
            raise SystemExit("klab: no design %r (have: %s)" % (n, ", ".join(have)))
    return [MAINLINE] + [have[n] for n in dict.fromkeys(names) if n != "mainline"]


def build_order(designs):
    """mainline first, then the designs touching the fewest headers (a
    widely included header is then compiled once per content)."""
    return sorted(designs, key=lambda d: (d.name != "mainline", len(d.headers_touched()),
                                          d.name))


OUTSIDE_HELP = """an outside series, beside mainline and the designs named (or
every design when none is): --series DIR (its *.patch in name order, cover
letters left out) or --git TREE --range BASE..TIP (git format-patch of the
range; BASE is the run's base, --base: v7.3-rc7, or v6.12.117 with --base 6.12),
--name NAME (default: the directory's or the tip's name), and
--config-fragment FILE (lines CONFIG_X=y on top of each config; the design
then builds in trees of its own)"""


def add_arguments(p, outside=True):
    """The designs a command takes: DESIGN... and an outside series."""
    p.add_argument("designs", nargs="*", metavar="DESIGN",
                   help="designs (default: mainline and every kernel/patches/<design>/)")
    if not outside:
        return
    g = p.add_argument_group("outside series", OUTSIDE_HELP)
    g.add_argument("--series", metavar="DIR", help="a directory of patches")
    g.add_argument("--git", metavar="TREE", help="a git repository of the kernel")
    g.add_argument("--range", metavar="BASE..TIP", help="the commits of --git to take")
    g.add_argument("--name", help="the outside design's name")
    g.add_argument("--config-fragment", metavar="FILE",
                   help="config lines the outside design builds with")


NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def outside(args, available):
    """The outside design @args describe, or None."""
    series, git, rng = getattr(args, "series", None), getattr(args, "git", None), \
        getattr(args, "range", None)
    if not series and not git:
        if rng or getattr(args, "name", None) or getattr(args, "config_fragment", None):
            raise SystemExit("klab: --range, --name and --config-fragment go with --series "
                             "or --git")
        return None
    if series and git:
        raise SystemExit("klab: --series or --git, not both")
    if git and not rng:
        raise SystemExit("klab: --git needs --range BASE..TIP")
    name = args.name or os.path.basename(os.path.normpath(series) if series else
                                         rng.split("..")[-1] or "outside")
    if not NAME_RE.match(name) or name in NOT_DESIGNS or \
            name in {d.name for d in available}:
        raise SystemExit("klab: --name %r: letters, digits, '.', '_', '-', and not a design "
                         "of kernel/patches/ (%s)" % (name, ", ".join(d.name for d in available)))
    frag = args.config_fragment
    if frag:
        frag = os.path.abspath(frag)
        if not os.path.isfile(frag):
            raise SystemExit("klab: --config-fragment %s: no such file" % frag)
    if series:
        if not os.path.isdir(series):
            raise SystemExit("klab: --series %s: not a directory" % series)
        d = os.path.abspath(series)
        try:
            design = from_dir(name, d, frag, d)
        except RuntimeError as e:
            raise SystemExit("klab: --series: %s" % e)
        if not on_base(design, bases.current().name):
            raise SystemExit("klab: --series %s is on base %s (its `base` file); this run's "
                             "is %s (--base %s)" % (series, design.base, bases.current().name,
                                                    design.base))
        return design
    return from_git(name, os.path.abspath(git), rng,
                    os.path.join(paths.out_dir(), "series", name), frag)


def from_args(args):
    """The designs @args name, mainline first, then the outside one; those
    of the run's base (history ones only when named)."""
    available = in_repo(history=bool(args.designs))
    extra = outside(args, available)
    chosen = select(args.designs, available)
    if extra:
        chosen.append(extra)
        log("outside design %s: %d patches from %s%s" % (
            extra.name, len(extra.patches), extra.origin,
            ", config fragment " + extra.fragment if extra.fragment else ""))
    return chosen
