# SPDX-License-Identifier: GPL-2.0
"""klab profile: where a workload's time goes in each design's kernel.

Each design boots its lab kernel (the one klab work measures) on one
workload of klab work, at its geometry and on its clock, with the
experiments named (--exp: all of the workload's by default).
kernel/guest/kprofile.sh runs kwork under `perf record -a -g -e cpu-clock
-c PERIOD` (one sample per PERIOD ns of a CPU's time, with the kernel's
call chain from its ORC unwinder; on icount, one per PERIOD/8
instructions) and leaves perf.data on a raw disk. The lab kernel has no
kallsyms: the host reads the samples' addresses with its own perf
(Debian's linux-perf, `perf script -F ip`) and names them from the
System.map kept beside the image (klab build keeps it; the kernel is not
relocatable, so it runs at those addresses). Per design,
profile-WORKLOAD-DESIGN.txt: for each phase (the samples whose call chain
holds the phase's entry: memcg limit reclaim, drop_caches, shrinker
registration), its CPU time and the share of the functions asked about
and of the hottest ones, inclusive (the function or its callees) and
self, and the workload's own rows (kwork's figures of that boot).
profile-WORKLOAD.txt puts the designs side by side, each function's time
beside mainline's.

Reading it: on icount every instruction costs the same (a cache miss
nothing), so a share here is a share of instructions executed. A static
function the compiler inlined is its caller's (6.12's shrink_slab_memcg()
is inside shrink_slab()).
"""
import bisect
import collections
import datetime
import json
import os
import re
import shlex
import shutil
import subprocess
import tarfile

from .. import boot, build, compare, designs, guest, model, packages, paths, tree, workloads
from ..boots import checked_boot
from ..run import log
from .lab import add_clock_argument

KPROFILE = os.path.join(paths.GUEST, "kprofile.sh")
PERF = "/usr/bin/perf"

# The functions the tables follow (the issue's, and what the walk calls).
KEY = ["shrink_slab", "shrink_slab_memcg", "do_shrink_slab", "xa_find", "xa_find_after",
       "xas_find", "xas_find_marked", "xa_load", "idr_find", "_find_next_bit",
       "memcg_list_lru_alloc", "set_shrinker_bit", "expand_shrinker_info",
       "list_lru_count_one", "super_cache_count", "super_cache_scan", "count_shadow_nodes",
       "deferred_split_count", "shrink_node", "shrink_lruvec", "mem_cgroup_iter",
       "shrinker_register", "shrinker_alloc"]
# Phases: a sample belongs to a phase when its kernel call chain holds one
# of the phase's entry functions.
PHASES = [
    ("memcg reclaim", ("try_to_free_mem_cgroup_pages",)),
    ("drop_caches", ("drop_slab",)),
    ("registration", ("shrinker_register", "shrinker_alloc")),
    ("all (not idle)", ()),
]
IDLE = ("default_idle", "default_idle_call", "do_idle", "cpu_idle_poll", "pv_native_safe_halt")
TOP = 25


def arguments(p):
    designs.add_arguments(p)
    p.add_argument("--workload", choices=workloads.ORDER, required=True,
                   help="the klab work workload whose boot is profiled")
    p.add_argument("--exp", action="append", metavar="EXP",
                   help="only these of the workload's experiments, in its order "
                   "(repeat; default all)")
    p.add_argument("--geometry", choices=workloads.GEOMETRIES, default="mid",
                   help="klab work's geometry (default mid)")
    p.add_argument("--period", type=int, default=1000000,
                   help="perf's cpu-clock sampling period, ns of guest CPU time "
                   "(default 1000000: a sample per ms)")
    p.add_argument("--image", action="append", metavar="DESIGN=BZIMAGE", default=[],
                   help="boot BZIMAGE (a System.map beside it) for DESIGN instead of "
                   "building it (repeat)")
    p.add_argument("--from", dest="from_dirs", action="append", metavar="DIR",
                   help="no boots: the designs side by side from the profiles saved "
                   "by earlier runs (RUN/profile-WORKLOAD-DESIGN; repeat)")
    add_clock_argument(p)


# ---------------------------------------------------------------- parsing

CLONE = re.compile(r"\.(isra|constprop|part|cold|lto_priv)(\.\d+)?")
KERNEL_BASE = 0xffffffff80000000


def symbol(word):
    """The function of a symbol @word: gcc's clone suffixes (.isra.0,
    .constprop.0, .part.0, .cold) dropped."""
    return CLONE.sub("", word)


class SystemMap:
    """A kernel's text symbols (System.map): the function an address is in."""

    def __init__(self, text):
        syms = []
        for line in text.splitlines():
            parts = line.split()
            if len(parts) >= 3 and parts[1] in "tTwW":
                try:
                    syms.append((int(parts[0], 16), symbol(parts[2])))
                except ValueError:
                    continue
        syms.sort()
        self.addrs = [a for a, _ in syms]
        self.names = [n for _, n in syms]

    def __call__(self, addr):
        i = bisect.bisect_right(self.addrs, addr) - 1
        return self.names[i] if i >= 0 else "[kernel %x]" % addr


def parse_script(text, resolve):
    """The samples of `perf script -F comm,tid,cpu,ip` output: a list of
    (comm, [kernel functions, leaf first]) (@resolve names an address;
    user frames are left out)."""
    samples, comm, chain = [], None, None
    for line in text.splitlines():
        if not line.strip():
            if comm is not None:
                samples.append((comm, chain))
            comm, chain = None, None
            continue
        if comm is None:
            comm, chain = line.split()[0], []
            continue
        try:
            addr = int(line.split()[0], 16)
        except (ValueError, IndexError):
            continue
        if addr >= KERNEL_BASE:
            chain.append(resolve(addr))
    if comm is not None:
        samples.append((comm, chain))
    return samples


def split(samples, entries):
    """The samples of a phase (@entries in the chain; () = every sample not
    idle), and per function the samples it is in (inclusive) and at the
    leaf of (self)."""
    incl, self_, n = collections.Counter(), collections.Counter(), 0
    for _, chain in samples:
        if not chain:
            chain = ["[user]"]
        if chain[0] in IDLE or any(f in IDLE for f in chain[:4]):
            continue
        if entries and not any(f in entries for f in chain):
            continue
        n += 1
        self_[chain[0]] += 1
        for f in set(chain):
            incl[f] += 1
    return n, incl, self_


def workload_rows(stdout):
    """[(experiment, metric, value, unit)] of kwork's document @stdout (the
    boot's own figures of the workload); [] when it is no document."""
    try:
        doc = json.loads(stdout)
    except ValueError:
        return []
    return [(e.get("id"), r["metric"], r.get("value"), r.get("unit"))
            for e in doc.get("experiments", []) for r in e.get("results", [])]


# ---------------------------------------------------------------- the text

def ms(samples, period):
    return samples * period / 1e6


def design_text(name, samples, rows, period, header, cells):
    """The profile of one design: each phase's split, then the workload's
    rows of the same boot; @cells prints its figures (compare.printed())."""
    lines = list(header)
    for phase, entries in PHASES:
        n, incl, self_ = split(samples, entries)
        if not n:
            lines.append("\n== %s: no samples" % phase)
            continue
        lines.append("\n== %s: %d samples = %s ms of CPU%s" % (
            phase, n, msec(n, period, cells), " (chains through %s)" % ", ".join(entries)
            if entries else ""))
        lines.append("  %-34s %10s %7s %10s %7s" % ("function", "incl ms", "incl%",
                                                    "self ms", "self%"))
        shown = [f for f in KEY if incl.get(f)]
        hot = [f for f, _ in incl.most_common() if f not in shown and f not in IDLE]
        for f in shown + ["--"] + hot[:TOP]:
            if f == "--":
                lines.append("  -- the hottest others, inclusive:")
                continue
            lines.append("  %-34s %10s %7s %10s %7s" % (
                f[:34], msec(incl[f], period, cells), cells(percent=incl[f] / n),
                msec(self_[f], period, cells), cells(percent=self_[f] / n)))
        lines.append("  -- the hottest, self:")
        for f, c in self_.most_common(TOP):
            lines.append("  %-34s %10s %7s %10s %7s" % (f[:34], "", "", msec(c, period, cells),
                                                        cells(percent=c / n)))
    lines.append("\n== the workload's rows of this boot (kwork, perf running)")
    if not rows:
        lines.append("  (no document)")
    for exp, metric, value, unit in rows:
        lines.append("  %-10s %-34s %16s %s" % (exp, metric, value, unit))
    return "\n".join(lines) + "\n"


def side_by_side(results, period, cells):
    """Each phase: per function, each design's inclusive ms (x mainline's);
    @cells prints its figures (compare.printed())."""
    names = list(results)
    base = "mainline" if "mainline" in results else names[0]
    lines = []
    for phase, entries in PHASES:
        per = {d: split(results[d]["samples"], entries) for d in names}
        lines.append("\n== %s: CPU ms in the function and its callees (x %s)" % (phase, base))
        lines.append("  %-28s" % "function" + "".join("%22s" % d[:21] for d in names))
        lines.append("  %-28s" % "(phase total)" + "".join(
            "%22s" % cell(ms(per[d][0], period), ms(per[base][0], period), cells)
            for d in names))
        for f in KEY:
            if not any(per[d][1].get(f) for d in names):
                continue
            lines.append("  %-28s" % f[:28] + "".join(
                "%22s" % cell(ms(per[d][1][f], period), ms(per[base][1][f], period), cells)
                for d in names))
    lines.append("\n== the workload's rows (kwork, perf running; x %s)" % base)
    lines.append("  %-38s" % "metric" + "".join("%22s" % d[:21] for d in names))
    values = {d: {(e, m): v for e, m, v, _ in results[d]["rows"]} for d in names}
    for e, m, _, unit in results[base]["rows"]:
        if unit != "ns":
            continue
        b = values[base].get((e, m))
        lines.append("  %-38s" % ("%s %s" % (e, m))[:38] + "".join(
            "%22s" % (cell(values[d][(e, m)] / 1e6, b / 1e6 if b else 0, cells)
                      if isinstance(values[d].get((e, m)), (int, float)) else "-")
            for d in names) + "  ms")
    return "\n".join(lines) + "\n"


def msec(samples, period, cells):
    """@samples of @period ns each, in ms at one place."""
    return cells(value=ms(samples, period), unit="ms", decimals=1)


def cell(v, b, cells):
    """@v ms, and its ratio to @b (none when @b is 0)."""
    if not b:
        return cells(value=v, unit="ms", decimals=1)
    return "%s x%s" % (cells(value=v, unit="ms", decimals=1),
                       cells(value=v / b, unit="", decimals=2))


# ---------------------------------------------------------------- boots

def perf_files():
    """(host, guest) of perf and the shared libraries it loads."""
    return workloads.program_files(PERF)


def profile_spec(name, geometry, image, prog, tmp, design, accel, date, clock, exps, period):
    """klab work's BootSpec of workload @name, its experiments cut to @exps,
    with kprofile.sh running kwork and an output disk last."""
    spec = workloads.boot_spec(name, geometry, image, prog, tmp, design, accel, date, clock)
    if exps:
        have = [workloads.exp_arg(e, p) for e, p in workloads.WORKLOADS[name][geometry]["exps"]]
        missing = set(exps) - set(a.split(":", 1)[0] for a in have)
        if missing:
            raise SystemExit("klab profile: workload %s has no experiment %s" % (
                name, ", ".join(sorted(missing))))
        spec.args = [a for a in spec.args if a not in have or a.split(":", 1)[0] in exps]
    outdisk = os.path.join(tmp, "profile.img")
    with open(outdisk, "wb") as f:
        f.truncate(1 << 30)
    spec.disks.append(outdisk)
    dev = "/dev/vd" + "abcdefgh"[len(spec.disks) - 1]
    guest_prog = "/klab/bin/" + os.path.basename(prog)
    spec.files = list(spec.files) + [(prog, guest_prog)] + perf_files()
    spec.args = [dev, guest_prog] + spec.args
    spec.prog = KPROFILE
    spec.env = dict(spec.env, KPROF_PERIOD=str(period))
    spec.mem += 256
    return spec, outdisk


def read_outdisk(img, dest):
    """Unpack kprofile.sh's tar archive from the raw disk @img into @dest."""
    os.makedirs(dest, exist_ok=True)
    with tarfile.open(img, "r:") as t:
        try:
            t.extractall(dest, filter="data")
        except TypeError:           # a Python without extraction filters
            t.extractall(dest)


def perf_script(d):
    cmd = [PERF, "script", "-i", os.path.join(d, "perf.data"), "-F", "comm,tid,cpu,ip"]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode:
        raise RuntimeError("perf script: %s" % r.stderr[-2000:])
    return cmd, r.stdout


def load(d):
    """A saved profile directory (perf.data, System.map, stdout): its samples
    and the workload's rows."""
    cmd, text = perf_script(d)
    with open(os.path.join(d, "System.map")) as f:
        resolve = SystemMap(f.read())
    try:
        with open(os.path.join(d, "stdout")) as f:
            rows = workload_rows(f.read())
    except OSError:
        rows = []
    return dict(samples=parse_script(text, resolve), rows=rows, script=cmd)


def main(run, args):
    period = args.period
    exe = model.shrinklab_path(run)
    if args.from_dirs:
        results = {}
        for d in args.from_dirs:
            _, workload, design = os.path.basename(d.rstrip("/")).split("-", 2)
            if workload != args.workload:
                raise SystemExit("klab profile --from: %s is a profile of %s, not %s" % (
                    d, workload, args.workload))
            results[design] = load(d)
        text = compare.printed(exe, lambda cells: side_by_side(results, period, cells))
        run.save("profile-%s.txt" % args.workload, text)
        print(text)
        return
    packages.install_missing(run, packages.not_installed(packages.PROFILE_PACKAGES))
    chosen = designs.from_args(args)
    given = {}
    for item in args.image:
        name, sep, path = item.partition("=")
        if not sep or not os.path.exists(path):
            raise SystemExit("klab profile --image %s: DESIGN=BZIMAGE, an image that exists"
                             % item)
        given[name] = os.path.abspath(path)
    images = dict(given)
    images.update(build.build_all(tree.Cache(), "lab",
                                  [d for d in chosen if d.name not in given], run))
    for d in chosen:
        if not os.path.exists(build.system_map(images[d.name])):
            raise SystemExit("klab profile: %s has no System.map beside it (built before "
                             "klab build kept one): remove %s.stamp and klab build --config "
                             "lab %s" % (images[d.name], images[d.name], d.name))
    prog = guest.compile_programs(run)["kwork"]
    accel = "kvm" if boot.kvm_usable()[0] else "tcg"
    results = {}
    for d in chosen:
        label = "profile-%s-%s" % (args.workload, d.name)
        tmp = run.path(label + ".disks")
        os.makedirs(tmp, exist_ok=True)
        date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        spec, outdisk = profile_spec(args.workload, args.geometry, images[d.name], prog, tmp,
                                     d.name, accel, date, args.clock, args.exp, period)
        r = checked_boot(run, label, spec)
        dest = run.path(label)
        try:
            read_outdisk(outdisk, dest)
            shutil.copyfile(build.system_map(images[d.name]), os.path.join(dest, "System.map"))
        except (tarfile.TarError, OSError) as e:
            run.fail("%s: no profile on the output disk (%s)" % (label, e))
            continue
        finally:
            for f in os.listdir(tmp):
                os.unlink(os.path.join(tmp, f))
        if r.status != 0:
            run.fail("%s: kwork exited %s (see %s)" % (label, r.status,
                                                       run.path(label + ".console")))
        with run.step("perf script %s" % label):
            results[d.name] = load(dest)
        cmdline = "kernel/klab profile --workload %s --geometry %s --clock %s --period %d%s %s" % (
            args.workload, args.geometry, args.clock, period,
            "".join(" --exp " + e for e in args.exp or []), d.name)
        header = [
            "klab profile: %s on %s (%s)" % (args.workload, d.name, cmdline),
            "series %s; kernel: the lab's (config/lab.config), %s, symbols from its "
            "System.map" % (d.series_hash(), images[d.name]),
            "guest: %s" % " ".join(shlex.quote(a) for a in spec.args[1:]),
            "clock: %s; accelerator %s; guest wall %.1f s; kwork exit %s" % (
                r.clock, r.accel_words(), r.wall or -1, r.status),
            "samples: perf record -a -g -e cpu-clock -c %d (one per %.3f ms of a CPU's "
            "time); read with: perf script -i perf.data -F comm,tid,cpu,ip, addresses "
            "named from System.map" % (period, period / 1e6),
        ]
        run.save(label + ".txt", compare.printed(exe, lambda cells: design_text(
            d.name, results[d.name]["samples"], results[d.name]["rows"], period, header,
            cells)))
        log("%s: %d samples" % (label, len(results[d.name]["samples"])))
    if results:
        text = compare.printed(exe, lambda cells: side_by_side(results, period, cells))
        run.save("profile-%s.txt" % args.workload, text)
        print(text)
