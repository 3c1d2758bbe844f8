# SPDX-License-Identifier: MIT
"""What the CLI tests share: the smallest run of each subcommand (a check
that is missing then shows as a wrong exit status within a second, not as
a timeout) and shrinklab's one error style."""
import re
import resource
import subprocess

ERROR = re.compile(r"^shrinklab: (\S+: )?\S.*$")
QUICK = ["--experiment", "unit-cache-2026", "--scale", "quick", "--quiet", "--no-plots"]
# A kernel-model run (its ladder apart: some tests give their own).
KSMALL_GEOMETRY = ["--cgroups", "2", "--units-cgroups", "1", "--churn-cgroups", "1",
                   "--highwater-mounts", "1", "--register-batch", "1", "--samples", "1",
                   "--churn-samples", "1", "--register-samples", "1", "--walk-points", "2",
                   "--quiet"]
KSMALL = ["--ladder", "1,2"] + KSMALL_GEOMETRY
# A container-model run (its background levels apart).
CSMALL_GEOMETRY = ["--containers", "1", "--files", "2", "--dirs", "1", "--negative", "1",
                   "--tmpfs-files", "1", "--proc-files", "1", "--samples", "1",
                   "--writer-files", "2", "--quiet"]
CSMALL = CSMALL_GEOMETRY + ["--bg", "0+2"]


def as_limit(limit):
    """A preexec_fn that sets an address-space limit of @limit bytes."""
    return lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def starts_under_as_limit(exe, limit=400 << 20):
    """Can @exe run at all under an address-space limit? A sanitizer build
    cannot: ASan and TSan reserve terabytes of shadow address space."""
    r = subprocess.run([exe, "--version"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, preexec_fn=as_limit(limit), timeout=120)
    return r.returncode == 0
