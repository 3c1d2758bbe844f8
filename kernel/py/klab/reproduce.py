# SPDX-License-Identifier: GPL-2.0
"""klab reproduce: every seed table a guest can run, each seed figure beside
the kernel's figure of the same design and the model's, with a verdict per
seed claim for the kernel and for the model, judged alike: by shrinklab
judge claims (tools/shrinklab/lab/claims.c, the verdicts' one rule), which
klab hands the rows; klab judges nothing itself, and prints no figure
itself either: shrinklab prints each cell (compare.Cells, compare.printed()).

The tables are shrinklab reproduce's experiments, with the same ids, and
the titles and metrics of shrinklab's registry (registry.py,
from_registry()); an id names the thread (docs/THREADS.md) and its table:

  xarray-2026-vm    the xarray thread's VM table (base: unit-cache, then
                    the thread's xarray and old array on demand): kseeds
                    --table vm, booted as its VM (1 node, 4 CPUs), 20000
                    mounts, 2000 cgroups;
  unit-cache-2026   the unit-cache thread's table (mainline, unit-cache):
                    measured in the same boot at 8000 mounts on the way up;
  xarray-2026-host  the xarray thread's host table, scaled: kseeds --table
                    host with 4 nodes as its host but 2 CPUs of its 48,
                    20000 mounts of its 50000 and 2000 cgroups of its 20000;
  bitmap-2018       the 2018 bitmap thread's drop_caches test (4001 memcgs,
                    each with its own tmpfs holding a file; echo 3 >
                    drop_caches five times): kwork's tkhai, on every design,
                    nobitmap the base;
  nonslab-2026-pods the non-slab shrinkers thread's pods (a cgroup and 4
                    mounts, one pod after another) under
                    cgroup.memory=nokmem: kwork's pods, on mainline,
                    nonslab-ids and nokmem-noinfo (and batched).

The guest's kseeds names its experiments as shrinklab does; a guest
document of an earlier run may carry an experiment's old id (the
registry's old_id). The bitmap and pod tables are read from the workload
experiments of kwork (guest_exp below).

Each guest run boots every design of its tables K times, interleaved
(boot k of every design, then boot k+1); a kernel figure is the median of
the boots' medians [min..max of every sample], merged by shrinklab judge
claims (kernel_rows(): the merge of klab lab's tables); a ratio is of those
medians, its range paired over the boots (the per-boot ratios) when K is
2 or more, else the widest the two designs' samples allow. The model is
shrinklab reproduce's own run of the experiment (its verdicts are printed
as it prints them) plus a shrinklab run of each model design a kernel
design maps to that its table lacks, at the same scale.

Where the kernel's verdict and the model's differ, the table says so.
"""
import dataclasses
import datetime
import json
import os
import subprocess

from . import bases, boot, compare, model, record
from .boots import checked_boot, guest_document

# The verdicts' names, as shrinklab judge writes them.
AGREES = "agrees"
DISAGREES = "DISAGREES"
INCONCLUSIVE = "inconclusive"
NOT_COMPARED = "not compared"
NOT_MEASURED = "not measured"
NOT_JUDGED = "-"
JSON_NAMES = {"agrees": AGREES, "disagrees": DISAGREES, "inconclusive": INCONCLUSIVE,
              "not_compared": NOT_COMPARED, "not_measured": NOT_MEASURED,
              "not_judged": NOT_JUDGED}


@dataclasses.dataclass
class Table:
    exp: str                 # shrinklab's experiment id (and data/seed_figures.tsv's)
    guest_run: str           # the GuestRun that measures it
    designs: tuple           # (kernel design, model design), the seed's base first
    # from the registry (from_registry): the title, and (metric, geometry
    # keys, words) in order, the kernel's own rows last
    title: str = ""
    metrics: tuple = ()
    model_scale: str = "default"    # shrinklab's --scale for its run
    guest_exp: str = None           # the guest's experiment id, when not @exp
    old_id: str = None              # from the registry: @exp's id in earlier guest documents
    extra_designs: tuple = ()       # kernel designs beside the seed's
    every_design: bool = False      # also every other kernel design, beside the seed's
    # a design every other one is also set against (kernel and model, each
    # row's ratio to it and its class): the seed's question of the table
    versus: str = None
    notes: tuple = ()


@dataclasses.dataclass
class GuestRun:
    name: str
    prog: str                # a guest program (guest.PROGRAMS)
    args: dict               # geometry name -> the program's arguments
    nodes: int
    cpus: int
    mem: int                 # MiB
    timeout: int             # s
    append: str = ""
    words: str = ""
    # geometry name -> how it departs from the seed's (the tables print it)
    scaled: dict = dataclasses.field(default_factory=dict)
    # MiB on UML, whose memory is the host's (what the seed geometry needs,
    # with room: the guest's own memory figures are deltas, not absolutes)
    uml_mem: int = None


# The VM's mounts: the guest boots with 20 shrinkers and kseeds counts 4 more
# ids, so 20040 mounts take ids up to 20064, the seed's 314 units per node
# (its shrinker_nr_max was 20096 at 20000 mounts: its VM had more shrinkers
# before them); 20000 would give 313 units, where no per-cgroup claim is
# compared.
GUEST_RUNS = {
    "vm": GuestRun("vm", "kseeds", {
        "seed": ["--table", "vm", "--mounts", "20040", "--units-mounts", "8000",
                 "--cgroups", "2000", "--units-cgroups", "200", "--obj-cgroups", "2000",
                 "--register-more", "4000", "--samples", "5"],
        "short": ["--table", "vm", "--mounts", "1000", "--units-mounts", "400",
                  "--cgroups", "100", "--units-cgroups", "20", "--obj-cgroups", "20",
                  "--register-more", "400", "--samples", "3"],
        "fit": ["--table", "vm", "--mounts", "20040", "--units-mounts", "8000",
                "--cgroups", "100", "--units-cgroups", "50", "--obj-cgroups", "100",
                "--register-more", "4000", "--samples", "5"]},
        nodes=1, cpus=4, mem=6144, timeout=7200, uml_mem=4096,
        words="1 node and 4 vCPUs as the seed's VM",
        scaled={"fit": "1 node and 4 vCPUs as the seed's VM, its 314 units (20040 mounts; "
                "8000 for the unit-cache table) "
                "and its 4000 more, 100 cgroups of its 2000 (50 for the slab and mkdir/rmdir "
                "rows): "
                "the per-cgroup rows are at the seed's geometry, the whole-host rows "
                "(register with the cgroups alive, drop_caches) are not compared"}),
    "host": GuestRun("host", "kseeds", {
        "seed": ["--table", "host", "--mounts", "20040", "--cgroups", "2000",
                 "--units-cgroups", "200", "--register-batch", "640", "--samples", "5"],
        "short": ["--table", "host", "--mounts", "1000", "--cgroups", "100",
                  "--units-cgroups", "20", "--register-batch", "128", "--samples", "3"],
        "fit": ["--table", "host", "--mounts", "5000", "--cgroups", "100",
                "--units-cgroups", "25", "--register-batch", "640", "--samples", "3"]},
        nodes=4, cpus=2, mem=6144, timeout=7200,
        scaled={"fit": "5000 mounts of the seed's 50000 (79 units per node of 783), "
                "100 cgroups of its 20000 (25 for the slab rows), 4 nodes as its host, "
                "2 vCPUs of its 48, the seed's 640-mount batch"},
        words="4 nodes as the seed's host, 2 vCPUs of its 48; 20040 mounts of its 50000 "
              "(314 units per node of 783), 2000 cgroups of its 20000"),
    "bitmap": GuestRun("bitmap", "kwork", {
        "seed": ["tkhai:memcgs=4001,files=1,calls=5,what=3"],
        "short": ["tkhai:memcgs=100,files=1,calls=5,what=3"],
        "fit": ["tkhai:memcgs=400,files=1,calls=5,what=3"]},
        nodes=1, cpus=4, mem=4096, timeout=7200, uml_mem=3072,
        scaled={"fit": "1 node and 4 vCPUs as the model's run (the seed does not say); 400 "
                "memcgs of the seed's 4001, each with its own tmpfs and a file"},
        words="1 node and 4 vCPUs as the model's run (the seed does not say)"),
    "pods": GuestRun("pods", "kwork", {
        "seed": ["pods:pods=400,mounts=tmpfs+tmpfs+tmpfs+tmpfs,cgroups_per_pod=1,"
                 "bg_cgroups=2000,bg_mounts=2000"],
        "short": ["pods:pods=40,mounts=tmpfs+tmpfs+tmpfs+tmpfs,cgroups_per_pod=1"],
        "fit": ["pods:pods=400,mounts=tmpfs+tmpfs+tmpfs+tmpfs,cgroups_per_pod=1,"
                "bg_cgroups=2000,bg_mounts=2000"]},
        nodes=1, cpus=4, mem=4096, timeout=7200, append="cgroup.memory=nokmem", uml_mem=2048,
        words="cgroup.memory=nokmem, 1 node and 4 vCPUs as the model's run (the seed does "
              "not say); 400 pods as the model's default (the seed does not say), made on a "
              "host already holding 2000 cgroups and 2000 tmpfs mounts (the seed's is a "
              "production host; the model's run has no background: in an empty guest the "
              "shrinker bookkeeping is a few % of a pod, see the nonslab-ids cover)"),
}

# Each seed table: shrinklab's experiment (its id; its title and metrics come
# from the registry, registry.py), the kernel design that stands for each of
# the seed's designs (in the model's names, the seed's base first), and what
# only the kernel run has. The seed's xarray is kseed1's series; ours is
# `xarray`.
TABLES = (
    Table("xarray-2026-vm", "vm",
          (("unit-cache", "prealloc+units=cache"), ("seed-xarray", "xarray"),
           ("array-ondemand", "array-ondemand"), ("mainline", "prealloc")),
          extra_designs=("xarray", "indexed", "lru-index"),
          versus="array-ondemand"),
    Table("unit-cache-2026", "vm",
          (("mainline", "prealloc"), ("unit-cache", "prealloc+units=cache"))),
    Table("xarray-2026-host", "host",
          (("unit-cache", "prealloc+units=cache"), ("array-ondemand", "array-ondemand"),
           ("seed-xarray", "xarray"), ("mainline", "prealloc")),
          versus="array-ondemand",
          notes=("scaled: the seed's host does not fit a guest (48 CPUs; 20000 cgroups of "
                 "783 units per node are 64 GB on the base); the model's run is at its own "
                 "default scale (50000 mounts, 2000 cgroups, 48 CPUs); neither is at the "
                 "seed's geometry, so no claim is compared (as shrinklab reproduce says)",)),
    Table("bitmap-2018", "bitmap", (("nobitmap", "nobitmap"), ("mainline", "flat")),
          model_scale="seed", every_design=True, guest_exp="tkhai",
          notes=("the seed's kernels are 2018's, before and after the bitmap; here the bitmap "
                 "is 6.12 (mainline; the model's flat stands for 2018's bitmap) and the "
                 "kernel before it is the nobitmap series (every memcg-aware shrinker called "
                 "for every memcg on 6.12)",)),
    Table("nonslab-2026-pods", "pods",
          (("mainline", "flat"), ("nonslab-ids", "flat+nonslab_ids"),
           ("nokmem-noinfo", "flat+nonslab_ids"), (None, "prealloc")),
          guest_exp="pods", extra_designs=("batched-8", "batched-32"),
          notes=("the seed's base is 6.6.102 (one id per expansion: the model's flat); the "
                 "kernel's base is 6.12 (one 64-id unit per expansion), so the kernel judges "
                 "the seed's ratios against mainline 6.12; the seed's 6.12.76 bound (prealloc) "
                 "has no kernel of its own here: mainline is the base",
                 "the kernel's longest registration is the longest mount(2) of a pod, which "
                 "holds shrinker_mutex for the expansion and does the rest of the mount; the "
                 "model's is the longest hold of its registry mutex",
                 "nokmem-noinfo (upstream's later answer: slab shrinkers take no memcg id "
                 "under nokmem) is judged against the seed's claim for its nonslab ids; the "
                 "model has no design that does its work (the model's nonslab_ids root still "
                 "takes every id), so its model cells are empty")),
)


def from_registry(tables, reg, seeds):
    """@tables with their titles and metrics from the registry @reg
    (registry.load): each experiment's metrics the seeds give a figure
    for, in the registry's order, with the geometry keys and words it
    gives them, then the rows only the kernel measures (the registry's
    kernel_metrics). ValueError names an
    experiment or a seed figure's metric the registry lacks."""
    out = []
    for t in tables:
        e = reg.get(t.exp)
        if e is None:
            raise ValueError("experiment %s is not in shrinklab's registry" % t.exp)
        claimed = {m for x, _, m in seeds if x == t.exp}
        metrics = tuple((m["name"], tuple(m["geometry"]), m["what"]) for m in e["metrics"]
                        if m["name"] in claimed)
        missing = claimed - {m for m, _, _ in metrics}
        if missing:
            raise ValueError("%s: seed figures of %s, which shrinklab's registry does not "
                             "list" % (t.exp, ", ".join(sorted(missing))))
        kernel = tuple((m["name"], tuple(m["geometry"]), m["what"])
                       for m in e.get("kernel_metrics", ()))
        out.append(dataclasses.replace(t, title=e["title"], metrics=metrics + kernel,
                                       old_id=e.get("old_id")))
    return tuple(out)


def kernel_designs(tables, available):
    """The kernel designs that @tables (of one guest run) boot, in order,
    mainline first: their designs that exist (all of them for a table that
    runs on every design), then the pods' extras. A table not asked for
    boots nothing, though it shares the guest run."""
    want = []
    for t in tables:
        names = [k for k, _ in t.designs if k] + list(t.extra_designs)
        if t.every_design:
            names += sorted(available)
        for n in names:
            if n in available and n not in want:
                want.append(n)
    return sorted(want, key=lambda n: n != "mainline")


# ------------------------------------------------------------------ kernel

def guest_docs(run, run_name, chosen, images, progs, geometry, boots, clock, on="qemu"):
    """Boot each design of @chosen @boots times, interleaved, on machine @on
    (machine.py: uml or qemu); {design: [doc per boot]}."""
    gr = GUEST_RUNS[run_name]
    if on == "uml":
        accel = "uml"
    else:
        accel = "kvm" if boot.kvm_usable()[0] else "tcg"
    out = {d.name: [] for d in chosen}
    host = record.host()
    run.plan_boots(boots * len(chosen))
    for rnd in range(boots):
        for d in chosen:
            label = "reproduce-%s-%s-%s-%d" % (run_name, geometry, d.name, rnd)
            date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            args = ["--design", "kernel:" + d.name, "--accel", accel, "--date", date] + \
                (["--clock", clock] if gr.prog == "kwork" else []) + gr.args[geometry]
            load_start = record.loadavg()
            r = checked_boot(run, label, boot.BootSpec(
                kernel=images[d.name], prog=progs[gr.prog], args=args, cpus=gr.cpus,
                nodes=gr.nodes, mem=gr.uml_mem if on == "uml" and gr.uml_mem else gr.mem,
                timeout=gr.timeout, append=gr.append, clock=clock, machine=on))
            doc = guest_document(run, label, r, gr.prog, on, host, load_start)
            if doc is None:
                continue
            doc["run"]["boot"] = rnd
            with open(run.path(label + ".json"), "w") as f:
                json.dump(doc, f, indent=1)
            out[d.name].append(doc)
    return out


def load_docs(dirs, geometry):
    """The guest documents earlier runs at @geometry saved in @dirs: {run:
    {design: [doc per boot, in boot order]}}; a design found in two
    directories keeps the first's."""
    out = {}
    for d in dirs:
        found = {}
        for name in sorted(os.listdir(d)):
            for r in GUEST_RUNS:
                head = "reproduce-%s-%s-" % (r, geometry)
                if not (name.startswith(head) and name.endswith(".json")):
                    continue
                design, _, k = name[len(head):-len(".json")].rpartition("-")
                if not design or not k.isdigit():
                    continue
                with open(os.path.join(d, name)) as f:
                    found.setdefault(r, {}).setdefault(design, []).append((int(k), json.load(f)))
        for r, designs in found.items():
            for design, docs in designs.items():
                out.setdefault(r, {}).setdefault(design, [doc for _, doc in sorted(
                    docs, key=lambda x: x[0])])
    return out


def boot_rows(docs, table, metric):
    """@metric's rows of @table's experiment (by its id, its old id, or the
    guest's experiment it is read from) in the boots' documents @docs, in
    boot order."""
    ids = {i for i in (table.exp, table.old_id, table.guest_exp) if i}
    return [r for doc in docs for e in doc["experiments"] if e["id"] in ids
            for r in e["results"] if r["metric"] == metric]


def kernel_rows(exe, wanted):
    """The kernel's row of each key of @wanted ({key: boot_rows()}), None
    for a key without rows: shrinklab judge claims' boots (the shrinklab at
    @exe) merge the boots (the median of their medians, the min and max of
    every sample); the boots' medians are the row's samples, paired over
    the boots when there are two or more; its geometry is the first
    boot's."""
    keys = [k for k, rows in wanted.items() if rows]
    merged = compare.judge_claims(exe, dict(boots=[wanted[k] for k in keys]))["boots"] \
        if keys else []
    out = dict.fromkeys(wanted)
    for k, m in zip(keys, merged):
        rows = wanted[k]
        first = rows[0]
        out[k] = dict(design=first["design"], metric=first["metric"], unit=first["unit"],
                      timed=bool(first["timed"]), value=m["value"], min=m["min"], max=m["max"],
                      n=len(rows), samples=[r["value"] for r in rows], paired=len(rows) >= 2,
                      samples_per_boot=len(first["samples"] or [1]),
                      geometry=first["geometry"], note=first["geometry"].get("note", ""))
    return out


# ------------------------------------------------------------------- model

def model_scale(table, geometry):
    """shrinklab's --scale for @table's model run at the guest's @geometry."""
    return "quick" if geometry == "short" else table.model_scale


def model_docs(run, table, extra_labels, geometry):
    """shrinklab reproduce's document of @table's experiment, and one
    shrinklab run document per model design in @extra_labels; {label: row
    source doc}. The short geometry runs the model at --scale quick."""
    exe = model.shrinklab_path(run)
    scale = model_scale(table, geometry)
    docs = []
    base = run.path("reproduce-model-%s" % table.exp)
    cmd = [exe, "reproduce", "--quiet", "--no-plots", "--experiment", table.exp, "--json",
           base + ".json", "--scale", scale]
    with run.step("model %s (shrinklab reproduce)" % table.exp):
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    run.save(os.path.basename(base) + ".txt", r.stdout)
    if r.returncode != 0:
        run.fail("model run failed (exit %d): %s\n%s" % (r.returncode, " ".join(cmd),
                                                         r.stdout[-2000:]))
        return None, []
    with open(base + ".json") as f:
        main = json.load(f)
    for label in extra_labels:
        name = "%s-%s" % (base, label.replace("+", "_").replace("=", "-"))
        cmd = [exe, "run", "--quiet", "--no-plots", "--experiment", table.exp, "--json",
               name + ".json", "--scale", scale] + design_options(label)
        with run.step("model %s %s (shrinklab run)" % (table.exp, label)):
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
        run.save(os.path.basename(name) + ".txt", r.stdout)
        if r.returncode != 0:
            run.fail("model run failed (exit %d): %s\n%s" % (r.returncode, " ".join(cmd),
                                                             r.stdout[-2000:]))
            continue
        with open(name + ".json") as f:
            docs.append(json.load(f))
    return main, docs


def design_options(label):
    """shrinklab run's design options for a model label (measure.c's syntax:
    design[+units=S][+expand_batch=N][+nonslab_ids][+lru_reparent=M])."""
    parts = label.split("+")
    out = ["--design", parts[0]]
    for p in parts[1:]:
        k, _, v = p.partition("=")
        if k == "nonslab_ids":
            out.append("--nonslab-ids")
        elif k in ("units", "expand_batch", "lru_reparent"):
            out += ["--" + k.replace("_", "-"), v]
        elif k == "root_bits" and v == "off":
            out.append("--no-root-bits")
        else:
            raise ValueError("model label %r: no shrinklab run option for %r" % (label, p))
    return out


def model_row(doc, exp, label, metric):
    for e in (doc or {}).get("experiments", []):
        if e["id"] != exp:
            continue
        for r in e["results"]:
            if r["design"] == label and r["metric"] == metric and not r["unavailable"]:
                return dict(r, paired=bool(r["timed"]))
    return None


def model_verdict(doc, exp, label, base_label, metric):
    for e in (doc or {}).get("experiments", []):
        if e["id"] != exp:
            continue
        for v in e["verdicts"]:
            if v["metric"] == metric and v["design"] == label and \
                    v["base"] in (base_label, None, ""):
                return v
    return None


# ----------------------------------------------------------------- output

def fmt(v, unit, cells):
    """@v in @unit, as shrinklab prints it (bytes and times as every table
    of the lab prints them, a count at 4 digits)."""
    if v is None:
        return "-"
    return cells(value=v, unit=unit or "")


def size_cell(v):
    """The size verdict of @v (within 2x of the seed's ratio), "-" if none."""
    return v.get("size", NOT_JUDGED) if v else "-"


def agreement(kv, mv):
    """Do the kernel's and the model's verdicts on one claim agree?"""
    if kv is None or mv is None:
        return "-"
    k, m = kv["kind"], mv["kind"]
    if k in (NOT_COMPARED, NOT_MEASURED) or m in (NOT_COMPARED, NOT_MEASURED):
        return "-"
    if k == m:
        return "kernel and model agree"
    return "KERNEL AND MODEL DISAGREE"


def table_designs(table, available, series_model):
    """(kernel design, the seed's model design or None, the model design that
    does the kernel's work) of every row of @table: the seed's designs, then
    the extras that exist. series_model(design, cmdline) is the design map
    (designs.model_design's label) for a guest booted with @cmdline; a seed
    design with no kernel (None) is its own work."""
    cmdline = GUEST_RUNS[table.guest_run].append
    out = []
    for kd, ml in table.designs:
        out.append((kd, ml, series_model(kd, cmdline) if kd else ml))
    extra = list(table.extra_designs) + (sorted(available) if table.every_design else [])
    for kd in extra:
        if kd in available and kd not in [k for k, _, _ in out]:
            out.append((kd, None, series_model(kd, cmdline)))
    return out


def extra_model_labels(table, available, series_model):
    """The model designs a table's kernel designs do the work of that its
    shrinklab reproduce table lacks (each gets a shrinklab run)."""
    own = {m for _, m in table.designs}
    return sorted({w for _, _, w in table_designs(table, available, series_model)
                   if w and w not in own})


def judge_table(table, kdocs, mdoc, extra_docs, seeds, available, series_model, exe):
    """Every row of @table, per metric and kernel design: the seed's figure,
    the kernel's row, the model's row of the design that does the kernel's
    work, the kernel's verdict on the seed's claim, the model's on the same
    claim for that same work, and shrinklab's own verdict on the seed's
    designs (the same claim when the two pairs are the same). Every
    verdict and ratio is shrinklab judge claims' (the shrinklab at @exe)."""
    out = []
    base_k, base_m = table.designs[0]
    rows_of = table_designs(table, available, series_model)
    base_w = rows_of[0][2]
    docs = [mdoc] + list(extra_docs)
    claims, ratios, asked = [], [], []

    def mrow(label, metric):
        return next((r for r in (model_row(d, table.exp, label, metric) for d in docs) if r),
                    None)

    def claim(design, metric, keys, r, b):
        claims.append(dict(experiment=table.exp, design=design, base=base_m, metric=metric,
                           geometry=list(keys), row=r, base_row=b))
        return len(claims) - 1

    def ratio(r, b):
        ratios.append(dict(row=r, base_row=b))
        return len(ratios) - 1

    krow = kernel_rows(exe, {(kd, metric): boot_rows(kdocs.get(kd, []), table, metric)
                             for metric, _, _ in table.metrics
                             for kd in [base_k] + [kd for kd, _, _ in rows_of if kd]})
    for metric, keys, words in table.metrics:
        bk = krow[(base_k, metric)]
        bm = mrow(base_w, metric)
        for kd, ml, wl in rows_of:
            f = seeds.get((table.exp, ml, metric)) if ml else None
            kr = krow[(kd, metric)] if kd else None
            mr = mrow(wl, metric)
            row = dict(metric=metric, words=words, kernel_design=kd, seed_design=ml,
                       model_design=wl, unit=(kr or mr or {}).get("unit") or
                       (f or {}).get("unit"), kernel=kr, model=mr, seed=f,
                       kernel_verdict=None, model_verdict=None, shrinklab_verdict=None,
                       available=kd in available)
            if f and (kd != base_k or f["unit"] == "count"):
                k = claim(ml, metric, keys, kr, bk if kd != base_k else kr)
                m = None
                row["shrinklab_verdict"] = model_verdict(mdoc, table.exp, ml, base_m, metric)
                if kd is None:
                    pass  # no kernel: shrinklab's verdict alone
                elif (ml, base_m) == (wl, base_w):
                    row["model_verdict"] = from_json(row["shrinklab_verdict"])
                elif mr and bm:
                    m = claim(ml, metric, keys, mr, mr if kd == base_k else bm)
                asked.append((row, "claim", k, m))
            elif kd != base_k and bk and kr and bk["value"]:
                # No seed figure: the kernel's ratio to the base, for information.
                asked.append((row, "ratio", ratio(kr, bk), None))
            out.append(row)
    versus = []
    if table.versus:
        for metric, _, _ in table.metrics:
            mrows = [r for r in out if r["metric"] == metric]
            vs = next((r for r in mrows if r["kernel_design"] == table.versus), None)
            for r in mrows:
                if vs is None or r is vs:
                    continue
                versus.append((r, versus_ratio(r["kernel"], vs["kernel"], ratio),
                               versus_ratio(r["model"], vs["model"], ratio)))
    answer = compare.judge_claims(exe, dict(claims=claims, ratios=ratios)) \
        if claims or ratios else dict(claims=[], ratios=[])
    for row, kind, k, m in asked:
        if kind == "ratio":
            row["ratio"] = answer["ratios"][k]
            continue
        a = answer["claims"][k]
        row["kernel_verdict"] = kv = from_claim(a)
        row["seed_ratio"] = (a["seed_relation"], a["seed_ratio"])
        if row["kernel_design"] is None:
            kv["text"] = "no kernel of this model design in the lab"
        elif row["kernel_design"] not in available:
            kv["text"] = "kernel:%s is not a series in kernel/patches/" % row["kernel_design"]
        if m is not None:
            row["model_verdict"] = from_claim(answer["claims"][m])
    for r, kq, mq in versus:
        r["versus"] = dict(kernel=answer["ratios"][kq] if kq is not None else None,
                           model=answer["ratios"][mq] if mq is not None else None)
    size_agreements(out, exe)
    return out


def versus_ratio(r, b, ask):
    """The index of row @r over row @b in the ratios asked (@ask), or None
    when either is missing or @b is 0."""
    if not r or not b or not b["value"]:
        return None
    return ask(r, b)


def size_agreements(rows, exe):
    """Each claim's size agreement (the model's range within 2x of the
    kernel's ratio: shrinklab judge claims' sizes) into "size_agreement"."""
    sizes, at = [], []
    for r in rows:
        kv, mv = r["kernel_verdict"], r["model_verdict"]
        r["size_agreement"] = "-"
        if kv and mv and kv.get("ours") is not None and mv.get("ours") is not None:
            sizes.append(dict(lo=mv["lo"], hi=mv["hi"], of=kv["ours"]))
            at.append(r)
    if sizes:
        answer = compare.judge_claims(exe, dict(sizes=sizes))
        for r, size in zip(at, answer["sizes"]):
            r["size_agreement"] = size


def from_claim(a):
    """A shrinklab judge claims answer in the shape from_json() gives."""
    v = from_json(a["verdict"])
    v["paired"] = a["paired"]
    return v


def from_json(v):
    """A shrinklab JSON verdict (shrinklab/2's): claim, relation, seed, ours,
    lo, hi, rounds, paired, kind, size, text."""
    if v is None:
        return None
    return dict(claim=v["claim"], relation=v["relation"], seed=v["seed"], ours=v["ours"],
                lo=v["ours_lo"], hi=v["ours_hi"], rounds=v["rounds"], paired=True,
                kind=JSON_NAMES.get(v["verdict"], v["verdict"]),
                size=JSON_NAMES.get(v.get("size_verdict"), NOT_JUDGED),
                text=v.get("why") or "")


def versus_cell(q, cells):
    if not q:
        return "-"
    return "%s %s, %s" % (cells(ratio=q["ours"], lo=q["lo"], hi=q["hi"]),
                          "paired" if q["paired"] else "unpaired", q["words"])


def seed_cell(f, cells):
    if not f:
        return "-"
    if f["same"]:
        return "same"
    return (f["relation"] if f["relation"] != "=" else "") + fmt(f["value"], f["unit"], cells)


def cell(r, unit, cells):
    if not r:
        return "-"
    return cells(value=r["value"], unit=unit or "", min=r["min"], max=r["max"])


def seed_ratio(f, stated, cells):
    """The seed's claim: "same", a count, or its ratio as shrinklab judge
    claims gives it (@stated: relation and ratio, the ratio None when the
    seed has none)."""
    if not f or f["same"]:
        return "same" if f else "-"
    if f["unit"] == "count":
        return "= " + cells(count=f["value"])
    rel, ratio = stated or (None, None)
    if ratio is None:
        return "-"
    return ("" if rel == "=" else rel) + cells(ratio=ratio)


def verdict_cell(v, cells):
    if v is None:
        return "-"
    if v["ours"] is None:
        return v["kind"]
    if v.get("claim") == "count":
        return "%s: %s" % (cells(count=v["ours"]), v["kind"])
    return "%s: %s" % (cells(ratio=v["ours"], lo=v["lo"], hi=v["hi"]), v["kind"])


def table_text(table, rows, run_words, boots, clock="", model_scale=None,
               machine_words="", cells=None):
    """One seed table's text; @clock (the kernel's clock, short:
    boot.clock_name) and @machine_words (machine.words) are named in its
    heading; @model_scale, the model's --scale as run; @cells prints its
    figures (a compare.Cells: table_text runs under compare.printed())."""
    base_k, base_m = table.designs[0]
    base_w = next((r["model_design"] for r in rows if r["kernel_design"] == base_k), base_m)
    lines = ["", "== %s: %s" % (table.exp, table.title),
             "   kernel: %s%s on %s; kernel clock %s; %d boot(s) per design, interleaved "
             "(ranges %s)"
             % (machine_words + ", " if machine_words else "", run_words,
                bases.current().words(), clock or "not recorded", boots, "paired over boots"
                if boots >= 2 else
                 "unpaired: the widest the samples allow"),
             "   model: shrinklab reproduce --experiment %s --scale %s, and shrinklab run of "
             "each model design a kernel design does the work of that its table lacks" % (
                 table.exp, model_scale or table.model_scale)]
    lines += ["   note: " + n for n in table.notes]
    for metric, _, words in table.metrics:
        mrows = [r for r in rows if r["metric"] == metric]
        unit = next((r["unit"] for r in mrows if r["unit"]), "")
        lines += ["", "   %s: %s" % (metric, words),
                  "     %-16s %-24s %10s  %-32s %-26s %s" % (
                      "kernel design", "the seed's design", "seed", "kernel [min..max]",
                      "model design (same work)", "model [min..max]")]
        for r in mrows:
            k = cell(r["kernel"], unit, cells) if r["kernel"] else (
                "no kernel" if not r["kernel_design"] else
                "not a series here" if not r["available"] else "not measured")
            lines.append("     %-16s %-24s %10s  %-32s %-26s %s" % (
                r["kernel_design"] or "-", r["seed_design"] or "-", seed_cell(r["seed"], cells), k,
                r["model_design"] or "-", cell(r["model"], unit, cells)))
        claims = [r for r in mrows if r["kernel_verdict"] is not None]
        if claims:
            lines.append("     claims over %s: %-11s %-40s %-12s %-40s %-12s %-24s %s" % (
                base_k, "seed", "kernel: ratio [range]: direction", "kernel size",
                "model, same work: ratio [range]: direction", "model size",
                "kernel vs model", "model size vs kernel's"))
            for r in claims:
                kv, mv = r["kernel_verdict"], r["model_verdict"]
                lines.append("       %-16s %-11s %-40s %-12s %-40s %-12s %-24s %s" % (
                    r["kernel_design"] or "-", seed_ratio(r["seed"], r.get("seed_ratio"), cells),
                    verdict_cell(kv, cells), size_cell(kv), verdict_cell(mv, cells),
                    size_cell(mv),
                    agreement(kv, mv), r.get("size_agreement", "-")))
                kv = r["kernel_verdict"]
                if kv["kind"] in (NOT_COMPARED, NOT_MEASURED, INCONCLUSIVE):
                    lines.append("         kernel: " + kv["text"])
                sv = from_json(r["shrinklab_verdict"])
                if sv and (r["seed_design"], base_m) != (r["model_design"], base_w):
                    lines.append("         shrinklab reproduce on the seed's designs (%s over "
                                 "%s): %s" % (r["seed_design"], base_m, verdict_cell(sv, cells)))
        for r in mrows:
            v = r.get("versus")
            if not v or not (v["kernel"] or v["model"]):
                continue
            lines.append("       %-16s over %s: kernel %s; model %s" % (
                r["kernel_design"] or "-", table.versus, versus_cell(v["kernel"], cells),
                versus_cell(v["model"], cells)))
        for r in mrows:
            q = r.get("ratio")
            if q:
                lines.append("       %-16s no seed figure; kernel over %s %s: %s" % (
                    r["kernel_design"], base_k, cells(ratio=q["ours"], lo=q["lo"], hi=q["hi"]),
                    q["words"]))
    return "\n".join(lines)


def summary_text(all_rows, cells):
    counts = {"kernel": {}, "model, same work": {}, "shrinklab reproduce": {}}
    sizes = {side: {} for side in counts}
    disagree = []
    for exp, rows in all_rows:
        for r in rows:
            kv, mv = r["kernel_verdict"], r["model_verdict"]
            sv = from_json(r["shrinklab_verdict"])
            if kv is None:
                continue
            for side, v in (("kernel", kv), ("model, same work", mv),
                            ("shrinklab reproduce", sv)):
                if v:
                    counts[side][v["kind"]] = counts[side].get(v["kind"], 0) + 1
                    sizes[side][v.get("size", "-")] = sizes[side].get(v.get("size", "-"), 0) + 1
            if agreement(kv, mv) == "KERNEL AND MODEL DISAGREE":
                disagree.append("%s %s %s: kernel %s, model %s" % (
                    exp, r["metric"], r["kernel_design"], verdict_cell(kv, cells),
                    verdict_cell(mv, cells)))
    order = (AGREES, DISAGREES, INCONCLUSIVE, NOT_COMPARED, NOT_MEASURED)
    lines = ["", "== seed claims (each side's verdicts on the seed's figure: the direction, "
             "and the size within 2x)"]
    for side in counts:
        lines.append("   %-20s direction: %s" % (side, ", ".join(
            "%d %s" % (counts[side].get(k, 0), k) for k in order)))
        lines.append("   %-20s size: %s" % ("", ", ".join(
            "%d %s" % (sizes[side].get(k, 0), k if k != NOT_JUDGED else "not judged")
            for k in (AGREES, DISAGREES, INCONCLUSIVE, NOT_JUDGED))))
    lines.append("   where the kernel and the model disagree: %s" % (
        "none" if not disagree else ""))
    lines += ["     " + d for d in disagree]
    return "\n".join(lines) + "\n"
