# SPDX-License-Identifier: GPL-2.0
"""The guests' experiment geometries (klab-guest's options): "full" is the
issue's, "short" is CI's (seconds per boot). Every lab guest has CPUS vCPUs
and NODES fake NUMA nodes."""

GEOMETRY = {
    "full": dict(mem=6144, timeout=5400, args=[
        "--ladder", "1,35,126,314", "--cgroups", "2000", "--units-cgroups", "200",
        "--churn-cgroups", "1000", "--samples", "5", "--churn-samples", "3",
        "--register-batch", "640", "--register-samples", "5", "--highwater-mounts", "2000",
        "--walk-points", "5"]),
    # 7, 5 and 5 samples: under icount a sample that a periodic kernel job on
    # the other vCPU lands in (vmstat, PSI, khugepaged: their instructions
    # count in the interval) moves a median of 3 by up to 30%, not one of 5.
    "short": dict(mem=2048, timeout=900, args=[
        "--ladder", "1,12", "--cgroups", "200", "--units-cgroups", "50",
        "--churn-cgroups", "100", "--samples", "7", "--churn-samples", "5",
        "--register-batch", "128", "--register-samples", "5", "--highwater-mounts", "200",
        "--walk-points", "3"]),
}
NODES = 4
CPUS = 2
