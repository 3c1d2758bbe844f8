# SPDX-License-Identifier: GPL-2.0
"""A miniature linux-source-6.12 for the host tests: a tarball of a few
real files in a temp dir, and series made against it with difflib (the
format of git format-patch: --- a/path, +++ b/path), so klab's source cache
switches real trees with patch(1), no kernel needed."""
import difflib
import os
import subprocess

FILES = {
    "Makefile": "# the top Makefile\nall:\n",
    "mm/shrinker.c": "".join("shrinker line %d\n" % i for i in range(40)),
    "mm/list_lru.c": "".join("list_lru line %d\n" % i for i in range(40)),
    "include/linux/shrinker.h": "".join("header line %d\n" % i for i in range(40)),
    "tools/testing/selftests/cgroup/test_kmem.c": "int main(void) { return 0; }\n",
    "tools/include/linux/kernel.h": "/* tools */\n",
}

COVER = """From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
Subject: [PATCH 0/2] a cover letter

It carries no diff; patch(1) would call it garbage.
--
2.39.5
"""


def make_tarball(tmp):
    """The tarball (linux-source-6.12/ inside, as Debian's); its path."""
    top = os.path.join(tmp, "src", "linux-source-6.12")
    for rel, text in FILES.items():
        os.makedirs(os.path.dirname(os.path.join(top, rel)), exist_ok=True)
        with open(os.path.join(top, rel), "w") as f:
            f.write(text)
    tarball = os.path.join(tmp, "linux-source-6.12.tar.xz")
    subprocess.run(["tar", "-cJf", tarball, "-C", os.path.join(tmp, "src"),
                    "linux-source-6.12"], check=True)
    return tarball


def edit(text, line, new):
    lines = text.split("\n")
    lines[line] = new
    return "\n".join(lines)


def patch_text(changes, base=None):
    """A patch of @changes ({path: new content}) against @base (default the
    pristine FILES)."""
    base = base or FILES
    out = ["From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n",
           "Subject: [PATCH] a change\n", "\n", "---\n"]
    for rel, new in sorted(changes.items()):
        out += difflib.unified_diff(base[rel].splitlines(True), new.splitlines(True),
                                    "a/" + rel, "b/" + rel)
    return "".join(out)


def write_series(directory, patches, cover=False):
    """@directory/000N-*.patch from @patches (texts), with a cover letter."""
    os.makedirs(directory, exist_ok=True)
    if cover:
        with open(os.path.join(directory, "0000-cover-letter.patch"), "w") as f:
            f.write(COVER)
    for i, text in enumerate(patches, 1):
        with open(os.path.join(directory, "%04d-change.patch" % i), "w") as f:
            f.write(text)
    return directory
