# SPDX-License-Identifier: GPL-2.0
"""Designs: a name and the series that makes it from linux-source-6.12.

mainline is the unpatched source. Every directory of kernel/patches/ that
holds *.patch is a design, except those in NOT_DESIGNS. A series is its
*.patch files in name order, less those that change no file (a git
format-patch cover letter, 0000-cover-letter.patch: patch(1) would call it
garbage). A design's directory may hold a file `model` naming its model
design (compare.model_design).
"""
import dataclasses
import glob
import hashlib
import os

from . import paths

# Directories of kernel/patches/ that hold patches but are not designs.
NOT_DESIGNS = {
    "debug": "test aids applied by hand (kernel/patches/README.md), part of no series",
}


@dataclasses.dataclass(frozen=True)
class Design:
    name: str
    patches: tuple = ()      # the series' files with a diff, applied in this order
    dir: str = None          # the directory the series came from (None: mainline)

    def touched_files(self):
        return patched_files(self.patches)

    def headers_touched(self):
        return sorted(f for f in self.touched_files() if f.endswith(".h"))

    def series_hash(self):
        """Names the design and its series' bytes: a kept image is current
        while this is."""
        h = hashlib.sha256(self.name.encode())
        for p in self.patches:
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


def from_dir(name, directory):
    """The design @name whose series is @directory's *.patch."""
    s = [p for p in sorted(glob.glob(os.path.join(directory, "*.patch"))) if has_diff(p)]
    if not s:
        raise RuntimeError("no patches with a diff in %s" % directory)
    return Design(name, tuple(s), directory)


def in_repo(patches_dir=None):
    """mainline, then every design of @patches_dir (kernel/patches/), by name."""
    patches_dir = patches_dir or paths.PATCHES
    out = [MAINLINE]
    for d in sorted(glob.glob(os.path.join(patches_dir, "*"))):
        name = os.path.basename(d)
        if os.path.isdir(d) and name not in NOT_DESIGNS and glob.glob(os.path.join(d, "*.patch")):
            out.append(from_dir(name, d))
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


def add_arguments(p):
    """The designs a command takes (positional)."""
    p.add_argument("designs", nargs="*", metavar="DESIGN",
                   help="designs (default: mainline and every kernel/patches/<design>/)")


def from_args(args):
    """The designs @args name, mainline first."""
    return select(args.designs, in_repo())
