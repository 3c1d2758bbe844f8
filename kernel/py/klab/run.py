# SPDX-License-Identifier: GPL-2.0
"""One run of a command: where it writes, how long each step took, what
failed.

    run = Run(out_dir)
    with run.step("build lab/mainline"):
        build.make(tree, "bzImage")
    run.fail("selftests xarray: test_memcg_low fails here twice")

A step's wall time is the monotonic clock's; its CPU time is that of the
child processes it waited for (make, QEMU), which does not grow with the
host's load: on a shared machine it is the figure to read.
"""
import contextlib
import os
import resource
import sys
import time


def log(msg):
    print("klab: " + msg, file=sys.stderr, flush=True)


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def load_average():
    """The host's load average now, in words."""
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3]) + " (%d cpus)" % os.cpu_count()


class Run:
    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.steps = []          # (name, wall s, CPU s or None), in order
        self.fails = []          # what failed, one message each
        self.load_at_start = load_average()

    @contextlib.contextmanager
    def step(self, name):
        """Time the block as step @name (also when it raises)."""
        t0, c0 = time.monotonic(), children_cpu()
        try:
            yield
        finally:
            self.add_step(name, time.monotonic() - t0, children_cpu() - c0)

    def add_step(self, name, seconds, cpu=None):
        self.steps.append((name, seconds, cpu))
        log("%-44s %7.1f s" % (name, seconds) + ("" if cpu is None else " (CPU %.1f s)" % cpu))

    def fail(self, msg):
        self.fails.append(msg)

    def path(self, name):
        return os.path.join(self.out_dir, name)

    def save(self, name, text):
        """Write @text to the output file @name; return its path."""
        p = self.path(name)
        with open(p, "w") as f:
            f.write(text)
        return p

    def times_text(self):
        lines = ["", "step times (this machine; load at start: %s)" % self.load_at_start,
                 "  %-46s %8s %10s" % ("step", "wall", "CPU")]
        wall = cpu = 0
        for name, s, c in self.steps:
            lines.append("  %-46s %8.1f s %8s" % (name, s, "-" if c is None else "%.1f s" % c))
            wall += s
            cpu += c or 0
        lines.append("  %-46s %8.1f s %8.1f s" % ("total", wall, cpu))
        return "\n".join(lines) + "\n"
