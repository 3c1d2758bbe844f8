# SPDX-License-Identifier: GPL-2.0
"""The workloads with objects under real reclaim (kernel/guest/kwork): their
boots and geometries, the disks and files their guests need, the metrics
data file they are held to (data/kernel_workloads.tsv), and one verdict
table per workload.

A workload is one guest boot running one or more kwork experiments:

  containers  cgroups holding dentries, inodes and page cache on mounts of
              their own (ext4 images on a virtio disk, procfs, tmpfs) beside
              background mounts: memory.reclaim, memory.high, kswapd (a
              balloon), drop_caches, teardown
  reviewers   stress-ng --ramfs (LKP's case), Kirill Tkhai's drop_caches test
              (seed 003), Qi Zheng's slab-shrink stress (a swap disk)
  pods        seed 001's pod creation, booted with cgroup.memory=nokmem

Each runs on every design with the same parameters, boots interleaved
(round 1 of every design, then round 2, ...). The verdict table of an
experiment: rows = metrics, columns = kernel:mainline and every design,
each cell the kernel's median over boots (the median of the boots'
medians) [min..max of every sample], and for a design its ratio to
mainline [unpaired range: min/max over max/min] classed as the lab classes
(lower below 0.8, higher above 1.25, same between, or across a boundary);
the best median of a metric that has a direction is marked *. Under the
kernel's line, the model's (`shrinklab containers` at the guest's
geometry, workmodel.py) with model/kernel, or "not modelled" and a
footnote saying what the model leaves out (page cache, kswapd). shrinklab
judge work judges and prints them (tools/shrinklab/lab/work_join.c);
klab hands it the documents (judged()).
"""
import dataclasses
import datetime
import json
import os
import re
import shutil
import subprocess

from . import boot, compare, paths, record
from .boots import checked_boot, guest_document

DATA = os.path.join(paths.REPO, "data", "kernel_workloads.tsv")
NODES = 4
CPUS = 2

# The workloads, per geometry: the guest's memory (MiB), its timeout (s),
# more kernel command line, and the experiments with their parameters.
# "full" is the geometry (make kernel-lab); "short" is CI's, one
# small geometry per workload (check-kernel).
# "mid" is between: what fits 3 boots of 8 designs in about an hour of a
# shared, loaded 2-core machine (a full containers boot alone is 10 min or
# more there, a short one 12 min on 2026-12-01's load): short's containers
# (3, with short's files) at the 0 and 20000 background mounts,
# memory.reclaim, drop_caches and teardown only (no memory.high writer, no
# balloon: they are most of a containers boot); Tkhai's test at 1000 memcgs
# (of the 4000), stress-ng --ramfs at 200 ops, Qi Zheng's at
# short's 200 memcgs (run before Tkhai's: they share one farm of memcgs);
# seed 001's 400 pods beside 400 cgroups.
WORKLOADS = {
    "containers": {
        "full": dict(mem=2048, timeout=7200, exps=[("containers", dict(
            containers=12, mix="ext4+proc+tmpfs+tmpfs", files=2000, dirs=8, bytes=4096,
            negative=2000, tmpfs_files=16, bg="0+20000", samples=5, writer_files=3000,
            high_margin_kib=2048, balloon_pct=60, img_mib=64))]),
        "short": dict(mem=1024, timeout=1200, exps=[("containers", dict(
            containers=3, mix="ext4+proc+tmpfs+tmpfs", files=200, dirs=4, bytes=4096,
            negative=200, tmpfs_files=8, bg="0+500", samples=3, writer_files=200,
            high_margin_kib=256, balloon_pct=60, img_mib=32))]),
        "mid": dict(mem=1024, timeout=3600, exps=[("containers", dict(
            containers=3, mix="ext4+proc+tmpfs+tmpfs", files=200, dirs=4, bytes=4096,
            negative=200, tmpfs_files=8, bg="0+20000", samples=3, writer_files=200,
            high_margin_kib=256, balloon_pct=60, img_mib=32, phases="reclaim+drop"))]),
    },
    "reviewers": {
        "full": dict(mem=3072, timeout=7200, exps=[
            ("ramfs", dict(ops=2000, runs=3)),
            ("tkhai", dict(memcgs=4000, files=1, calls=5, what=3)),
            ("qizheng", dict(memcgs=4000, writes=96, mib=1, writers=16, headroom_mib=64, rounds=3,
                             swap="/dev/vda"))]),
        "short": dict(mem=1024, timeout=1200, exps=[
            ("ramfs", dict(ops=100, runs=3)),
            ("tkhai", dict(memcgs=200, files=1, calls=5, what=3)),
            ("qizheng", dict(memcgs=200, writes=48, mib=1, writers=8, headroom_mib=32, rounds=2,
                             swap="/dev/vda"))]),
        # Qi Zheng's first: the farm of memcgs is one (Tkhai's test grows it
        # to 1000 after), and his writers' reclaim over 1000 memcgs took
        # more than 9 min of a boot on the loaded machine.
        "mid": dict(mem=1024, timeout=3600, exps=[
            ("ramfs", dict(ops=200, runs=3)),
            ("qizheng", dict(memcgs=200, writes=48, mib=1, writers=8, headroom_mib=32, rounds=2,
                             swap="/dev/vda")),
            ("tkhai", dict(memcgs=1000, files=1, calls=5, what=3))]),
    },
    "pods": {
        "full": dict(mem=2048, timeout=3600, append="cgroup.memory=nokmem", exps=[
            ("pods", dict(pods=1000, mounts="proc+tmpfs+tmpfs+tmpfs", cgroups_per_pod=1,
                          bg_cgroups=1000, bg_mounts=0))]),
        "short": dict(mem=1024, timeout=900, append="cgroup.memory=nokmem", exps=[
            ("pods", dict(pods=100, mounts="proc+tmpfs+tmpfs+tmpfs", cgroups_per_pod=1,
                          bg_cgroups=50, bg_mounts=0))]),
        "mid": dict(mem=1024, timeout=1800, append="cgroup.memory=nokmem", exps=[
            ("pods", dict(pods=400, mounts="proc+tmpfs+tmpfs+tmpfs", cgroups_per_pod=1,
                          bg_cgroups=400, bg_mounts=0))]),
    },
}
# The workloads of the reply to seed 000's reviewer (docs/upstream/): run
# when named (klab work --workload density), never by default (CI, make
# kernel-lab). density boots a config of its own on UML (overlayfs and the
# lock tracepoints: kernel/config/density.config); tar, the machine's.
WORKLOADS.update({
    "density": {
        "full": dict(mem=1536, timeout=7200, config={"uml": "uml-density"}, exps=[
            ("density", dict(pods=4000, alive=500, creators=2, sample_every=10,
                             layer_files=1000, layer_dirs=20, layer_bytes=4096, upper_files=8,
                             proc_depth=1, disk="/dev/vda"))]),
        "mid": dict(mem=1024, timeout=3600, config={"uml": "uml-density"}, exps=[
            ("density", dict(pods=2000, alive=400, creators=2, sample_every=10,
                             layer_files=500, layer_dirs=20, layer_bytes=4096, upper_files=8,
                             proc_depth=1, disk="/dev/vda"))]),
        "short": dict(mem=512, timeout=900, config={"uml": "uml-density"}, exps=[
            ("density", dict(pods=120, alive=40, creators=2, sample_every=5,
                             layer_files=200, layer_dirs=10, layer_bytes=4096, upper_files=4,
                             proc_depth=1, disk="/dev/vda"))]),
    },
    "tar": {
        "full": dict(mem=1024, timeout=3600, exps=[
            ("tar", dict(cgroups=32, limit_mib=8, rounds=3, disk="/dev/vda"))]),
        "mid": dict(mem=1024, timeout=2400, exps=[
            ("tar", dict(cgroups=8, limit_mib=8, rounds=3, disk="/dev/vda"))]),
        "short": dict(mem=512, timeout=900, exps=[
            ("tar", dict(cgroups=4, limit_mib=8, rounds=2, disk="/dev/vda"))]),
    },
})
ORDER = ["containers", "reviewers", "pods"]
NAMED = ["density", "tar"]
CHOICES = ORDER + NAMED
# The archive the tar workload extracts: TAR_FILES files of TAR_BYTES bytes
# (the last of every 16 TAR_BYTES * 4), in TAR_DIRS directories.
TAR_FILES, TAR_DIRS, TAR_BYTES = 2000, 40, 1024
TAR_GUEST = "/klab/small.tar"


def config_of(name, on):
    """The build config of workload @name's images on machine @on
    (machine.CONFIG's unless the workload names its own)."""
    from . import machine
    own = WORKLOADS[name][GEOMETRIES[0]].get("config", {})
    if on not in own and own:
        raise SystemExit("klab work: workload %s boots only on %s (its config: %s)" % (
            name, ", ".join(sorted(own)), ", ".join(sorted(own.values()))))
    return own.get(on, machine.config(on))


def small_tar(path):
    """The tar workload's archive of small files (deterministic content)."""
    import io
    import tarfile
    with tarfile.open(path, "w", format=tarfile.USTAR_FORMAT) as t:
        for i in range(TAR_FILES):
            n = TAR_BYTES * (4 if i % 16 == 15 else 1)
            data = (("%d " % i) * n).encode()[:n]
            info = tarfile.TarInfo("src/d%d/f%d.c" % (i % TAR_DIRS, i))
            info.size, info.mtime, info.mode = len(data), 1700000000, 0o644
            t.addfile(info, io.BytesIO(data))


def ext4_disk(path, mib, inodes):
    """An empty ext4 of @mib MiB with @inodes inodes at @path."""
    with open(path, "wb") as f:
        f.truncate(mib << 20)
    subprocess.run(["mkfs.ext4", "-q", "-F", "-N", str(inodes), "-m", "0", "-O", "^has_journal",
                    "-E", "lazy_itable_init=0,lazy_journal_init=0,nodiscard", path],
                   check=True, stdout=subprocess.DEVNULL)


def symbol(image, name):
    """@name's address in the System.map kept beside @image (hex text), or
    "0" when there is none."""
    for m in (image + ".System.map", os.path.join(os.path.dirname(image), "System.map")):
        if os.path.exists(m):
            with open(m) as f:
                for line in f:
                    parts = line.split()
                    if len(parts) == 3 and parts[2] == name:
                        return "0x" + parts[0].lstrip("0")
    return "0"
GEOMETRIES = ["full", "mid", "short"]


def exp_arg(name, params):
    """kwork's argument for one experiment: name:key=value,..."""
    return name + ":" + ",".join("%s=%s" % kv for kv in params.items())


# ---------------------------------------------------------------- metrics

@dataclasses.dataclass(frozen=True)
class Metric:
    experiment: str
    name: str          # may hold {level}
    unit: str
    kind: str          # timed, reading
    better: str        # lower, higher, -
    what: str

    def regex(self):
        return re.compile(re.escape(self.name).replace(re.escape("{level}"),
                                                       "(_no_mounts|_m[0-9]+|)") + "$")


@dataclasses.dataclass(frozen=True)
class LeftOut:
    """What the model leaves out of the metrics @metric names (without
    their level; a trailing '*' any rest) of @experiment: @kind absent (no
    figure) or part (the slab part only); @what, said why in @why."""
    experiment: str
    metric: str
    kind: str
    what: str
    why: str


# A metric's {level} suffix (the containers experiment's background level).
LEVEL_RE = re.compile(r"(_no_mounts|_m[0-9]+)$")
_loaded = {}


def load_metrics(path=DATA):
    return _load(path)[0]


def not_modelled(experiment, metric, path=DATA):
    """(kind, what, why) of what the model leaves out of @metric of
    @experiment (the data file's "leaves_out" rows), or None: it models
    all of it, or the experiment is not one the model runs."""
    base = LEVEL_RE.sub("", metric)
    for m in _load(path)[1]:
        if m.experiment == experiment and (base == m.metric or m.metric.endswith("*") and
                                           base.startswith(m.metric[:-1])):
            return m.kind, m.what, m.why
    return None


def _load(path):
    """(metrics, leaves_out) of the data file, read once per process."""
    if path in _loaded:
        return _loaded[path]
    metrics, left, why = [], [], {}
    with open(path) as f:
        for i, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            if cols[0] == "why" and len(cols) == 3 and all(cols[1:]):
                why[cols[1]] = cols[2]
            elif cols[0] == "leaves_out" and len(cols) == 5 and all(cols[1:]) and \
                    cols[3] in ("absent", "part"):
                left.append(cols[1:])
            elif cols[0] != "metric" or len(cols) != 7 or cols[4] not in ("timed", "reading") \
                    or cols[5] not in ("lower", "higher", "-") or cols[3] not in \
                    ("ns", "B", "count"):
                raise ValueError("%s:%d: not a metric, leaves_out or why row: %r"
                                 % (path, i, line))
            else:
                metrics.append(Metric(*cols[1:]))
    for x in left:
        if x[3] not in why:
            raise ValueError("%s: leaves_out %s names %r, which no why row says" %
                             (path, x[1], x[3]))
    _loaded[path] = metrics, [LeftOut(*x, why[x[3]]) for x in left]
    return _loaded[path]


def find_metric(metrics, experiment, name):
    """The file's metric naming @name in @experiment, and its {level} suffix."""
    for m in metrics:
        if m.experiment == experiment:
            g = m.regex().match(name)
            if g:
                return m, (g.group(1) if g.groups() else None)
    return None, None


# The containers experiment's phases (its phases= parameter) and the
# prefix of their metrics; teardown always runs.
PHASE_PREFIX = {"reclaim": "reclaim_", "high": "high_", "balloon": "balloon_", "drop": "drop_"}


def phases_run(doc):
    """The containers phases @doc's command asked for."""
    for a in doc.get("command", []):
        if a.startswith("containers:"):
            for kv in a.split(":", 1)[1].split(","):
                if kv.startswith("phases="):
                    p = set(kv[len("phases="):].split("+"))
                    return set(PHASE_PREFIX) if "all" in p else p
    return set(PHASE_PREFIX)


def check(doc, path=DATA):
    """How a kwork document departs from the data file: a list of problems
    (a row the file does not name, with another unit or kind, or a metric
    of the file missing for an experiment, or for a level, the document
    has; the containers phases its command left out are not missing)."""
    metrics = load_metrics(path)
    skipped = tuple(PHASE_PREFIX[p] for p in set(PHASE_PREFIX) - phases_run(doc))
    metrics = [m for m in metrics if not (m.experiment == "containers" and
                                          m.name.startswith(skipped or ("\0",)))]
    problems = []
    for e in doc["experiments"]:
        have = {}
        for r in e["results"]:
            m, level = find_metric(metrics, e["id"], r["metric"])
            if m is None:
                problems.append("%s: %s is not in the data file" % (e["id"], r["metric"]))
                continue
            if m.unit != r["unit"] or (m.kind == "timed") != bool(r["timed"]):
                problems.append("%s: %s is %s/%s, the data file says %s/%s" % (
                    e["id"], r["metric"], r["unit"], "timed" if r["timed"] else "reading",
                    m.unit, m.kind))
            have.setdefault(level, set()).add(m.name)
        for level, names in have.items():
            want = {m.name for m in metrics if m.experiment == e["id"] and
                    (("{level}" in m.name) == (level is not None))}
            for miss in sorted(want - names):
                problems.append("%s: no row for %s%s" % (
                    e["id"], miss, " at level %r" % level if level is not None else ""))
    return problems


# ---------------------------------------------------------------- guests

def ct_disk(path, slots, mib):
    """A raw disk of @slots ext4 images of @mib MiB each, one after another
    (sparse: the template's blocks that are not zero, copied to each slot).
    No journal (no commit thread beside the measurements), inode tables
    zeroed on the host (no lazy init in the guest)."""
    tpl = path + ".template"
    subprocess.run(["mkfs.ext4", "-q", "-F", "-b", "4096", "-N", "16384", "-m", "0",
                    "-O", "^has_journal",
                    "-E", "lazy_itable_init=0,lazy_journal_init=0,nodiscard", tpl,
                    "%dM" % mib], check=True, stdout=subprocess.DEVNULL)
    with open(tpl, "rb") as f:
        data = f.read()
    os.unlink(tpl)
    zero = bytes(4096)
    blocks = [(i, data[i:i + 4096]) for i in range(0, len(data), 4096)
              if data[i:i + 4096] != zero]
    with open(path, "wb") as f:
        f.truncate(slots * mib << 20)
        for s in range(slots):
            for off, b in blocks:
                f.seek((s * mib << 20) + off)
                f.write(b)


def containers_slots(params):
    levels = len(str(params["bg"]).split("+"))
    ext4 = str(params["mix"]).split("+").count("ext4")
    return levels * int(params["containers"]) * ext4


STRESS_NG = "/usr/bin/stress-ng"


def stress_ng_files():
    """(host, guest) of Debian's stress-ng and the shared libraries it loads
    (ldd), at the paths the guest's loader looks for them."""
    return program_files(STRESS_NG)


def program_files(prog):
    """(host, guest) of the dynamic program @prog (a path on the host, the
    same in the guest) and the shared libraries it loads (ldd), at the
    paths the guest's loader looks for them."""
    if not os.path.exists(prog):
        raise RuntimeError("%s not found (its Debian package: kernel/py/klab/packages.py)"
                           % prog)
    out = [(prog, prog)]
    r = subprocess.run(["ldd", prog], stdout=subprocess.PIPE, text=True, check=True)
    for line in r.stdout.splitlines():
        parts = line.split()
        lib = parts[2] if "=>" in parts and len(parts) > 2 else parts[0]
        if lib.startswith("/"):
            out.append((os.path.realpath(lib), lib))
    return out


# The clock the guests' times count by default: icount, as klab lab's (the
# guest's CLOCK_MONOTONIC counts instructions, so host load does not move
# it); "wall" gives the host's time passing.
DEFAULT_CLOCK = boot.DEFAULT_CLOCK


def boot_spec(name, geometry, image, prog, tmp, design, accel, date, clock=DEFAULT_CLOCK,
              on="qemu"):
    """The BootSpec of workload @name at @geometry for @design (disks made
    in @tmp), its guest on @clock (boot.parse_clock) on machine @on (UML: one
    node, machine.py)."""
    g = WORKLOADS[name][geometry]
    disks, files = [], []
    for exp, params in g["exps"]:
        if exp == "containers" and "ext4" in str(params["mix"]).split("+"):
            disk = os.path.join(tmp, "containers.img")
            ct_disk(disk, containers_slots(params), int(params["img_mib"]))
            disks.append(disk)
        elif exp == "qizheng" and params.get("swap", "none") != "none":
            disk = os.path.join(tmp, "swap.img")
            with open(disk, "wb") as f:
                f.truncate(2 << 30)
            disks.append(disk)
        elif exp == "ramfs":
            files += stress_ng_files()
        elif exp == "density":
            disk = os.path.join(tmp, "image.img")
            ext4_disk(disk, 64, 8192)
            disks.append(disk)
        elif exp == "tar":
            disk = os.path.join(tmp, "tar.img")
            arch = os.path.join(tmp, "small.tar")
            small_tar(arch)
            n = int(params["cgroups"]) * int(params["rounds"])
            # a 4 KiB block per file and directory, 12 MiB per extraction
            ext4_disk(disk, 64 + 12 * n, n * (TAR_FILES + TAR_DIRS + 8) + 1024)
            disks.append(disk)
            files.append((arch, TAR_GUEST))
    exps = [(e, dict(p, shrinker_mutex=symbol(image, "shrinker_mutex")) if e == "density" and
             "shrinker_mutex" not in p else p) for e, p in g["exps"]]
    if on == "uml":
        # kwork's containers default to QEMU's first disk: name it, so that
        # uml.py gives the guest UML's name of it (/dev/ubda).
        exps = [(e, dict(p, disk="/dev/vda") if e == "containers" and disks else p)
                for e, p in exps]
    args = ["--design", "kernel:" + design, "--accel", accel, "--scale", geometry,
            "--date", date, "--clock", clock] + [exp_arg(e, p) for e, p in exps]
    return boot.BootSpec(kernel=image, prog=prog, args=args, cpus=CPUS,
                         nodes=1 if on == "uml" else NODES, mem=g["mem"],
                         timeout=g["timeout"], append=g.get("append", ""), files=files,
                         disks=disks, clock=clock, machine=on)


def work_boots(run, chosen, images, prog, geometry, boots, names, clock=DEFAULT_CLOCK,
               on="qemu", images_of=None):
    """Every workload @names on every design, @boots rounds interleaved,
    the guests on @clock on machine @on; the guests' documents in boot
    order. @images_of: {workload: {design: image}} for the workloads whose
    config is not the machine's (config_of), beside @images."""
    docs = []
    if on == "uml":
        accel = "uml"
    else:
        accel = "kvm" if boot.kvm_usable()[0] else "tcg"
    host = record.host()
    run.plan_boots(boots * len(names) * len(chosen))
    for rnd in range(boots):
        for name in names:
            for d in chosen:
                label = "work-%s-%s-%s-%d" % (geometry, name, d.name, rnd)
                date = datetime.datetime.now(datetime.timezone.utc).strftime(
                    "%Y-%m-%dT%H:%M:%SZ")
                tmp = run.path(label + ".disks")
                os.makedirs(tmp, exist_ok=True)
                load_start = record.loadavg()
                try:
                    img = (images_of or {}).get(name, images)[d.name]
                    spec = boot_spec(name, geometry, img, prog, tmp, d.name, accel, date, clock,
                                     on)
                    r = checked_boot(run, label, spec)
                finally:
                    shutil.rmtree(tmp, ignore_errors=True)
                doc = guest_document(run, label, r, "kwork", on, host, load_start, check,
                                     "data/kernel_workloads.tsv")
                if doc is None:
                    continue
                doc["run"]["boot"] = rnd
                doc["run"]["workload"] = name
                doc["run"]["clock"] = clock
                doc["run"]["series_hash"] = d.series_hash()
                doc["run"]["guest_wall_s"] = r.wall
                with open(run.path(label + ".json"), "w") as f:
                    json.dump(doc, f, indent=1)
                docs.append(doc)
    return docs


# ----------------------------------------------------------------- tables

def judged(exe, kernel_docs, model_docs=(), series_dirs=None, words="", clock="not recorded"):
    """shrinklab judge work (the shrinklab at @exe) over the guests'
    documents and the model's: (the comparison, the tables' text). One
    table per experiment: a line of medians per metric, under it a line of
    ratios to mainline with their class, then the model's line; * marks
    the best median. @clock, the guests' clock (short: boot.clock_name),
    heads each table."""
    return compare.judge(exe, compare.judge_input(kernel_docs, list(model_docs), series_dirs,
                                                  words, clock), "work")


def combined(kernel_docs, model_docs, cmp, extra=None):
    doc = {"schema": "klab-work/1", "kernel": kernel_docs, "model": list(model_docs),
           "comparison": cmp}
    doc.update(extra or {})
    return doc


def boot_seconds(docs):
    """{workload: [guest wall seconds per boot]}, for the CI budget."""
    out = {}
    for d in docs:
        out.setdefault(d["run"].get("workload", "?"), []).append(d["run"].get("guest_wall_s"))
    return out


def clocks(docs):
    """The clocks @docs' guests counted (clock_words), sorted; "?" for a
    document that does not say."""
    return sorted(set(d["machine"].get("clock") or "?" for d in docs))


def summary_words(docs, geometry, boots):
    accel = sorted(set(d["machine"]["accelerator"] for d in docs))
    machines = sorted(set(d["machine"].get("machine", "qemu") for d in docs))
    dates = sorted(str(d.get("date") or d["run"].get("date", "")) for d in docs)
    secs = boot_seconds(docs)
    return ("kernel workloads, geometry %s; %s boot(s) per design and workload, interleaved; "
            "machine %s; booted %s to %s; %s; "
            "clock: %s (the guest's CLOCK_MONOTONIC); accelerator %s; guest wall per boot: %s"
            % (geometry, boots, ", ".join(machines), dates[0] if dates else "?",
               dates[-1] if dates else "?", record.load_words(docs), "; ".join(clocks(docs)),
               "; ".join(accel), ", ".join(
                "%s %.0f-%.0f s" % (w, min(v), max(v)) for w, v in secs.items()
                if all(x is not None for x in v))))

