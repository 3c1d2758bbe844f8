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


def minutes(seconds):
    """@seconds in words: "3 min 20 s", "40 s"."""
    m, s = divmod(int(round(seconds)), 60)
    return "%d min %d s" % (m, s) if m else "%d s" % s


class Run:
    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.steps = []          # (name, wall s, CPU s or None, start), in the order they end
        self.fails = []          # what failed, one message each
        self.load_at_start = load_average()
        self.t0, self.cpu0 = time.monotonic(), children_cpu()
        self.boots_planned = 0   # guest boots the run's commands said they would make
        self.boot_walls = []     # wall seconds of each boot made (boots.checked_boot)

    @contextlib.contextmanager
    def step(self, name):
        """Time the block as step @name (also when it raises)."""
        t0, c0 = time.monotonic(), children_cpu()
        try:
            yield
        finally:
            self.add_step(name, time.monotonic() - t0, children_cpu() - c0, t0)

    def add_step(self, name, seconds, cpu=None, start=None):
        """A step of @seconds that began at @start (time.monotonic(); by
        default it ends now)."""
        if start is None:
            start = time.monotonic() - seconds
        self.steps.append((name, seconds, cpu, start))
        log("%-44s %7.1f s" % (name, seconds) + ("" if cpu is None else " (CPU %.1f s)" % cpu))

    def plan_boots(self, n):
        """@n more guest boots are to come (the progress lines count them)."""
        self.boots_planned += n

    def boot_done(self, seconds):
        """A boot of @seconds ended: log boots done / to do and the time
        left at the mean boot's wall time so far."""
        self.boot_walls.append(seconds)
        done, total = len(self.boot_walls), max(self.boots_planned, len(self.boot_walls))
        left = (total - done) * sum(self.boot_walls) / done
        log("progress: %d of %d boots done, %d to do, about %s left (%.0f s a boot so far)"
            % (done, total, total - done, minutes(left), sum(self.boot_walls) / done))

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

    def nested(self, i):
        """Is step @i inside another step (its time within the other's)? A
        stage of klab try holds the boots and builds it ran."""
        _, s, _, t = self.steps[i]
        return any(j != i and t0 <= t and t + s <= t0 + s0 and (s0, j) > (s, i)
                   for j, (_, s0, _, t0) in enumerate(self.steps))

    def times_text(self):
        """Every step, a step inside another indented under it (printed
        before it: steps are listed as they end); the total of the
        outermost steps."""
        lines = ["", "step times (this machine; load at start: %s)" % self.load_at_start,
                 "  %-46s %8s %10s" % ("step", "wall", "CPU")]
        wall = cpu = 0
        for i, (name, s, c, _) in enumerate(self.steps):
            inner = self.nested(i)
            lines.append("  %-46s %8.1f s %8s" % (("  " if inner else "") + name, s,
                                                  "-" if c is None else "%.1f s" % c))
            if not inner:
                wall += s
                cpu += c or 0
        lines.append("  %-46s %8.1f s %8.1f s" % ("total (outermost steps)", wall, cpu))
        lines.append("  %-46s %8.1f s %8.1f s" % ("the whole run (waits for a tree lock too)",
                                                 time.monotonic() - self.t0,
                                                 children_cpu() - self.cpu0))
        return "\n".join(lines) + "\n"
