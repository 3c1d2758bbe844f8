# SPDX-License-Identifier: GPL-2.0
"""sh(): run a host command; a failure raises with the tail of its output."""
import os
import subprocess


def sh(cmd, cwd=None, env=None, quiet=False, check=True, capture=False):
    """Run @cmd. @quiet: keep its output (stdout and stderr in the result's
    stdout) instead of passing it through; @capture: keep stdout alone.
    With @check, a non-zero exit raises RuntimeError (with the output's tail
    when it was kept)."""
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
