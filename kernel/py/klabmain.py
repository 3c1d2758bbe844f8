# SPDX-License-Identifier: GPL-2.0
"""klab's commands: build, lab, selftests, torture, checkpatch, check."""
import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import tempfile

import kboot
import kcompare
import kreport
import ktree
from ktree import log

KDIR = ktree.KDIR
GUEST = os.path.join(KDIR, "guest")
REPO_ROOT = os.path.dirname(KDIR)

# Guest geometries. "full" is the issue's; "short" is CI's (seconds per boot).
GEOMETRY = {
    "full": dict(mem=6144, timeout=5400, args=[
        "--ladder", "1,35,126,314", "--cgroups", "2000", "--units-cgroups", "200",
        "--churn-cgroups", "1000", "--samples", "5", "--churn-samples", "3",
        "--register-batch", "640", "--register-samples", "5", "--highwater-mounts", "2000",
        "--walk-points", "5"]),
    "short": dict(mem=2048, timeout=900, args=[
        "--ladder", "1,12", "--cgroups", "200", "--units-cgroups", "50",
        "--churn-cgroups", "100", "--samples", "5", "--churn-samples", "3",
        "--register-batch", "128", "--register-samples", "3", "--highwater-mounts", "200",
        "--walk-points", "3"]),
}
NODES = 4
CPUS = 2
SELFTESTS = ["test_kmem", "test_memcontrol"]
TORTURE = dict(short=["--workers", "4", "--ops", "300"], full=["--workers", "4", "--ops", "2000"])
# no5lvl: QEMU's "-cpu max" offers LA57 under TCG, and with 5-level paging
# an interrupt that arrives while the boot CPU is still being identified made
# KASAN report a wild access in rcu_is_watching() at 0.015 s of uptime, long
# before /init (once in 13 debug boots, on lru-index, whose patches run
# nothing at boot). The debug kernels boot with 4-level paging.
DEBUG_APPEND = "slub_debug=FZPU no5lvl"


def out_dir():
    d = os.environ.get("KLAB_OUT", os.path.join(REPO_ROOT, "build-kernel"))
    os.makedirs(d, exist_ok=True)
    return d


def designs_arg(names):
    have = ktree.designs_available()
    if not names:
        return have
    for n in names:
        if n not in have:
            raise SystemExit("klab: no design %r (have: %s)" % (n, ", ".join(have)))
    return ["mainline"] + [n for n in names if n != "mainline"]


# ------------------------------------------------------------ guest programs

def source_version():
    """(meson's project version, git describe of the repo or None)."""
    version = "unknown"
    try:
        with open(os.path.join(REPO_ROOT, "meson.build")) as f:
            m = re.search(r"version\s*:\s*'([^']+)'", f.read())
            version = m.group(1) if m else version
    except OSError:
        pass
    r = subprocess.run(["git", "-C", REPO_ROOT, "describe", "--always", "--dirty", "--abbrev=12"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return version, (r.stdout.strip() or None) if r.returncode == 0 else None


def compile_guest(timer):
    """The static guest programs, compiled on the host into out/guest/."""
    out = os.path.join(out_dir(), "guest")
    os.makedirs(out, exist_ok=True)
    progs = {
        "klab-guest": ["klab-guest.c", "kutil.c", "kjson.c"],
        "ktorture": ["ktorture.c", "kutil.c"],
        "smoke": ["smoke.c"],
    }
    version, rev = source_version()
    defs = ['-DKLAB_VERSION="%s"' % version, '-DKLAB_GIT_REVISION="%s"' % (rev or "")]

    def cc():
        for name, srcs in progs.items():
            ktree.sh(["gcc", "-static", "-O2", "-Wall", "-Wextra", "-Werror"] + defs +
                     ["-o", os.path.join(out, name)] + [os.path.join(GUEST, s) for s in srcs]
                     + ["-lm"])
    timer.run("compile guest programs", cc)
    return {n: os.path.join(out, n) for n in progs}


def compile_selftests(timer):
    """test_kmem and test_memcontrol of the pristine source, static, -O0 (at
    -O2 gcc drops the loops that touch pages and the tests fail falsely)."""
    out = os.path.join(out_dir(), "selftests")
    os.makedirs(out, exist_ok=True)
    src = os.path.join(ktree.ensure_selftests_src(timer), "tools/testing/selftests/cgroup")

    def cc():
        for t in SELFTESTS:
            ktree.sh(["gcc", "-static", "-O0", "-Wall", "-pthread", "-I..",
                      "-I../../../include", "-o", os.path.join(out, t), t + ".c",
                      "cgroup_util.c"], cwd=src, quiet=True)
    timer.run("compile cgroup selftests (-O0, static)", cc)
    return {t: os.path.join(out, t) for t in SELFTESTS}


# ------------------------------------------------------------------- boots

def save(path, text):
    with open(path, "w") as f:
        f.write(text)


def run_boot(timer, label, img, prog, args, fails, **kw):
    """Boot once; save console, stdout and dmesg; check exit status and dmesg."""
    base = os.path.join(out_dir(), label)
    with open(base + ".console", "w") as live:
        r = timer.run("boot %s" % label, kboot.boot, img, prog, args, cpus=CPUS, nodes=NODES,
                      dmesg=True, console_stream=[live], **kw)
    save(base + ".out", r.stdout)
    save(base + ".dmesg", r.dmesg)
    acc = r.accel + (" (%s)" % r.accel_note if r.accel_note else "")
    log("%s: accel %s, /init at %.1f s uptime, exit %s, %.1f s wall" %
        (label, acc, r.init_uptime or -1, r.status, r.wall))
    if r.status is None:
        fails.append("%s: guest did not finish (%s); see %s.console" %
                     (label, "timeout" if r.timed_out else "no exit status", base))
    sp = kreport.splats(r.dmesg if r.status is not None else r.console)
    if sp:
        fails.append("%s: %d splat line(s) in dmesg, first:\n%s" % (label, len(sp), sp[0]))
    return r


def host_machine():
    """The host's facts, for machine.host of each guest's document."""
    mem = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem = int(line.split()[1]) * 1024
    u = platform.uname()
    return {"cpus": os.cpu_count(), "memory_bytes": mem, "hostname": u.node,
            "kernel": "%s %s %s %s" % (u.system, u.release, u.version, u.machine),
            "load": load_note()}


def lab_boots(designs, images, guest, geometry, boots, timer, fails):
    """Boot every design @boots times (interleaved); each guest's own
    shrinklab/2 document, with the host's facts added, in boot order."""
    g = GEOMETRY[geometry]
    docs = []
    accel = kboot.kvm_usable()[0] and "kvm" or "tcg"
    host = host_machine()
    for rnd in range(boots):
        for d in designs:
            label = "lab-%s-%s-%d" % (geometry, d, rnd)
            date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            args = ["--design", "kernel:" + d, "--accel", accel, "--scale", geometry,
                    "--date", date] + g["args"]
            r = run_boot(timer, label, images[d], guest, args, fails, mem=g["mem"],
                         timeout=g["timeout"])
            if r.status != 0:
                if r.status is not None:
                    fails.append("%s: klab-guest exited %d" % (label, r.status))
                continue
            try:
                doc = json.loads(r.stdout)
            except ValueError as e:
                fails.append("%s: no JSON from the guest (%s)" % (label, e))
                continue
            doc["machine"]["accelerator"] = r.accel + (" (%s)" % r.accel_note
                                                       if r.accel_note else "")
            doc["machine"]["host"] = host
            doc["run"]["boot"] = rnd
            with open(os.path.join(out_dir(), label + ".json"), "w") as f:
                json.dump(doc, f, indent=1)
            docs.append(doc)
    return docs


# ------------------------------------------------------------------ model

def shrinklab_path(timer):
    """./build/shrinklab of this repo, built (make build) when missing, brought
    up to date (ninja) otherwise; $KLAB_SHRINKLAB names another."""
    exe = os.environ.get("KLAB_SHRINKLAB")
    if exe:
        return exe
    build = os.path.join(REPO_ROOT, "build")
    if os.path.exists(os.path.join(build, "build.ninja")):
        timer.run("build shrinklab (ninja)", ktree.sh, ["ninja", "-C", build, "shrinklab"],
                  quiet=True)
    else:
        timer.run("build shrinklab (make build)", ktree.sh, ["make", "-C", REPO_ROOT, "build"],
                  quiet=True)
    return os.path.join(build, "shrinklab")


def _row(doc, exp, pattern):
    for e in doc["experiments"]:
        if e["id"] == exp:
            for r in e["results"]:
                if kcompare._match(r["metric"], pattern):
                    return r
    return None


def model_geometry(doc, geometry):
    """shrinklab kernel's options for the geometry guest @doc really ran:
    the guest's own options, its shrinker ids and CPUs and nodes, and the N
    it used at each step (the guest cuts N to its memory)."""
    args = list(GEOMETRY[geometry]["args"])
    first = doc["experiments"][0]["results"][0]["geometry"]
    cg = {}
    for opt, exp, metric in (("--cgroups", "drop_caches", "drop_caches_ns_no_mounts"),
                             ("--register-cgroups", "register",
                              "register_*_mounts_ns_cgroups_alive"),
                             ("--top-cgroups", "drop_caches", "drop_caches_ns")):
        r = _row(doc, exp, metric)
        if r is None:
            raise RuntimeError("guest document without %s/%s" % (exp, metric))
        cg[opt] = str(r["geometry"]["cgroups"])
    i = args.index("--cgroups")
    del args[i:i + 2]
    for opt, v in cg.items():
        args += [opt, v]
    args += ["--host-shrinkers", str(first["host_shrinkers"]), "--nodes",
             str(doc["machine"]["nodes"]), "--cpus", str(doc["machine"]["cpus"])]
    return args


def model_runs(docs, geometry, timer, fails):
    """shrinklab kernel at each guest's geometry, once per model design the
    kernel designs map to, each in its own process as each kernel design
    boots alone (in one process the prealloc hosts' walks over gigabytes of
    units leave the caches cold for the next design's samples); the model's
    shrinklab/2 documents."""
    runs = []
    for doc in docs:
        d = kcompare.kernel_name(doc["run"]["design"])
        label, _ = kcompare.model_design(d, ktree.PATCHES)
        if not label:
            log("kernel:%s: no model design mapped; the table shows the kernel alone" % d)
            continue
        key = (label, tuple(model_geometry(doc, geometry)))
        if key not in runs:
            runs.append(key)
    if not runs:
        return []
    exe = shrinklab_path(timer)
    out = []
    for i, (label, args) in enumerate(runs):
        base = os.path.join(out_dir(), "model-%s-%d-%s" % (geometry, i,
                                                          re.sub(r"[^\w.=-]", "_", label)))
        cmd = [exe, "kernel", "--quiet", "--json", base + ".json", "--design", label] + list(args)
        log("model: " + " ".join(cmd))
        r = timer.run("model %s (shrinklab kernel)" % label, subprocess.run, cmd,
                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        save(base + ".txt", r.stdout)
        if r.returncode != 0:
            fails.append("model run failed (exit %d): %s\n%s" % (r.returncode, " ".join(cmd),
                                                                 r.stdout[-3000:]))
            continue
        with open(base + ".json") as f:
            out.append(json.load(f))
    return out


def lab(designs, images, guest, geometry, boots, timer, fails):
    """The kernel guests, the model at their geometry, the tables and the
    combined JSON (kernel-lab-GEOMETRY.{json,txt})."""
    docs = lab_boots(designs, images, guest, geometry, boots, timer, fails)
    if not docs:
        return None
    models = model_runs(docs, geometry, timer, fails)
    cmp = kcompare.join(docs, models, ktree.PATCHES)
    words = "kernel lab, geometry %s: %s; %d boot(s) per design; accelerator %s" % (
        geometry, docs[0]["experiments"][0]["scale"], boots,
        "; ".join(sorted(set(d["machine"]["accelerator"] for d in docs))))
    text = kcompare.tables(cmp, words)
    path = os.path.join(out_dir(), "kernel-lab-%s.json" % geometry)
    with open(path, "w") as f:
        json.dump(kcompare.combined(docs, models, cmp, {"geometry": geometry, "boots": boots}),
                  f, indent=1)
    save(os.path.join(out_dir(), "kernel-lab-%s.txt" % geometry), text)
    print(text)
    log("JSON: %s" % path)
    return cmp


def selftest_boots(designs, images, tests, timer, fails):
    """The cgroup selftests in each design's guest (ext4 /work, swap);
    a test that passes on mainline and fails on a design fails the run
    when it fails again on a second boot of the design and passes again on
    a second boot of mainline (a test that is flaky on both is reported,
    not failed)."""
    script = os.path.join(GUEST, "selftests.sh")
    files = [(p, "/klab/" + t) for t, p in tests.items()]
    results = {}

    def one(d, attempt):
        with tempfile.TemporaryDirectory(prefix="klab-disk-") as tmp:
            work = os.path.join(tmp, "work.img")
            swap = os.path.join(tmp, "swap.img")
            for p, size in ((work, 1 << 30), (swap, 512 << 20)):
                with open(p, "wb") as f:
                    f.truncate(size)
            ktree.sh(["mkfs.ext4", "-q", "-F", work], quiet=True)
            label = "selftests-%s-%s" % (d, attempt)
            r = run_boot(timer, label, images[d], script, [], fails, mem=2048, timeout=900,
                         files=files, disks=[work, swap], workdisk=True, swapdisk=True,
                         cwd="/work")
        return kreport.parse_selftests(r.stdout)

    for d in designs:
        results[d] = one(d, 0)
    base = results.get("mainline", {})
    lines = []
    for d in designs:
        res = results[d]
        for t in SELFTESTS:
            tests_ = res.get(t, {}).get("tests", {})
            npass = sum(1 for v in tests_.values() if v == "pass")
            failed = sorted(k for k, v in tests_.items() if v == "fail")
            lines.append("  %-10s %-16s %2d/%-2d passed%s" % (
                d, t, npass, len(tests_), ("; failing: " + ", ".join(failed)) if failed else ""))
            if not tests_:
                fails.append("selftests %s: %s produced no results" % (d, t))
        if d == "mainline":
            continue
        regress = regressions(base, res)
        if regress:
            log("selftests %s: %s fail here and pass on mainline; retrying once" %
                (d, ", ".join(regress)))
            again = regressions(base, one(d, 1))
            twice = [t for t in regress if t in again]
            for t in regress:
                if t not in again:
                    lines.append("  %-10s FLAKY: %s failed once, passed on retry" % (d, t))
            if twice and "mainline" in images:
                # A test that fails twice here may still be one that fails
                # now and then on mainline too (test_memcg_low and
                # test_memcg_sock did under TCG on a loaded host): boot
                # mainline once more, and count as a regression only what
                # passes there again.
                log("selftests %s: %s failed twice; mainline again" % (d, ", ".join(twice)))
                mres = one("mainline", "re-%s" % d)
                mfail = {name for t in SELFTESTS for name, st in
                         mres.get(t, {}).get("tests", {}).items() if st != "pass"}
                for t in [t for t in twice if t in mfail]:
                    lines.append("  %-10s FLAKY: %s failed twice here and on mainline's "
                                 "second boot" % (d, t))
                twice = [t for t in twice if t not in mfail]
            for t in twice:
                fails.append("selftests %s: %s passes on mainline (twice), fails here (twice)"
                             % (d, t))
    text = "\ncgroup selftests (baseline: mainline in this run)\n" + "\n".join(lines) + "\n"
    print(text)
    save(os.path.join(out_dir(), "selftests.txt"), text)
    with open(os.path.join(out_dir(), "selftests.json"), "w") as f:
        json.dump(results, f, indent=1)
    return results


def regressions(base, res):
    out = []
    for t in SELFTESTS:
        b = base.get(t, {}).get("tests", {})
        for name, state in res.get(t, {}).get("tests", {}).items():
            if state == "fail" and b.get(name) == "pass":
                out.append(name)
    return out


def torture_seed():
    """$KLAB_TORTURE_SEED replays a run; otherwise a new seed per run (the
    guest prints it first), so successive CI runs try other interleavings."""
    s = os.environ.get("KLAB_TORTURE_SEED")
    if s is not None:
        if not s.isdigit():
            raise SystemExit("klab: KLAB_TORTURE_SEED=%r is not a number" % s)
        return int(s)
    return int.from_bytes(os.urandom(4), "little") or 1


def torture_boots(designs, images, torture, size, timer, fails):
    seed = torture_seed()
    log("torture seed %d (KLAB_TORTURE_SEED=%d replays it)" % (seed, seed))
    for d in designs:
        label = "torture-%s" % d
        r = run_boot(timer, label, images[d], torture, TORTURE[size] + ["--seed", str(seed)],
                     fails, mem=2048, timeout=2400, append=DEBUG_APPEND)
        if r.status not in (0, None):
            fails.append("%s: ktorture exited %d (see %s.out)" % (label, r.status, label))
        print(r.stdout)


def checkpatch(designs, timer, fails):
    repo = ktree.ensure_tree("lab", timer)
    script = os.path.join(repo, "scripts", "checkpatch.pl")
    n = 0
    for d in designs:
        for p in ktree.series(d):
            n += 1
            r = subprocess.run(["perl", script, "--strict", "--root=" + repo, p],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            summary = [x for x in r.stdout.split("\n") if x.startswith("total:")]
            if r.returncode != 0 or not summary or "0 errors, 0 warnings, 0 checks" not in \
                    summary[0]:
                fails.append("checkpatch --strict %s/%s:\n%s" % (d, os.path.basename(p),
                                                                 r.stdout[-3000:]))
    log("checkpatch --strict: %d patches" % n)


def self_test(fails):
    """The host side's own tests (splat patterns, selftest parsing)."""
    import unittest
    import test_kreport
    suite = unittest.defaultTestLoader.loadTestsFromModule(test_kreport)
    r = unittest.TextTestRunner(stream=sys.stderr, verbosity=0).run(suite)
    if not r.wasSuccessful():
        fails.append("kernel/py/test_kreport.py failed")


def print_times(timer):
    lines = ["", "step times (this machine; load at start: %s)" % load_note(),
             "  %-46s %8s %10s" % ("step", "wall", "CPU")]
    wall = cpu = 0
    for name, s, c in timer.steps:
        lines.append("  %-46s %8.1f s %8s" % (name, s, "-" if c is None else "%.1f s" % c))
        wall += s
        cpu += c or 0
    lines.append("  %-46s %8.1f s %8.1f s" % ("total", wall, cpu))
    text = "\n".join(lines) + "\n"
    print(text)
    save(os.path.join(out_dir(), "times.txt"), text)


_load = None


def load_note():
    global _load
    if _load is None:
        with open("/proc/loadavg") as f:
            _load = " ".join(f.read().split()[:3]) + " (%d cpus)" % os.cpu_count()
    return _load


# ---------------------------------------------------------------- commands

COMMANDS = ("build", "lab", "selftests", "torture", "checkpatch", "check")


def main(cmd, argv):
    if cmd not in COMMANDS:
        print("klab: unknown command %r (klab --help)" % cmd, file=sys.stderr)
        return 2
    p = argparse.ArgumentParser(prog="klab " + cmd)
    p.add_argument("designs", nargs="*", help="designs (default: mainline + every "
                   "kernel/patches/<design>/)")
    p.add_argument("--geometry", choices=sorted(GEOMETRY), default="full" if cmd == "lab"
                   else "short")
    p.add_argument("--boots", type=int, default=1, help="lab boots per design (interleaved)")
    p.add_argument("--config", choices=["lab", "debug", "all"], default="all",
                   help="build: which configs (default all); selftests: debug runs them "
                   "on the debug kernels (default: lab)")
    a = p.parse_args(argv)
    load_note()
    timer = ktree.Timer()
    fails = []
    designs = designs_arg(a.designs)
    log("designs: %s; cache %s; output %s" % (", ".join(designs), ktree.cache_dir(), out_dir()))
    try:
        ktree.install_packages(timer)
        if cmd == "build":
            for c in (["lab", "debug"] if a.config == "all" else [a.config]):
                for d, img in ktree.build_all(c, designs, timer).items():
                    print("%s/%s: %s" % (c, d, img))
        elif cmd == "lab":
            images = ktree.build_all("lab", designs, timer)
            guest = compile_guest(timer)["klab-guest"]
            lab(designs, images, guest, a.geometry, a.boots, timer, fails)
        elif cmd == "selftests":
            images = ktree.build_all("debug" if a.config == "debug" else "lab", designs, timer)
            tests = compile_selftests(timer)
            selftest_boots(designs, images, tests, timer, fails)
        elif cmd == "torture":
            images = ktree.build_all("debug", designs, timer)
            torture_boots(designs, images, compile_guest(timer)["ktorture"], a.geometry,
                          timer, fails)
        elif cmd == "checkpatch":
            checkpatch(designs, timer, fails)
        elif cmd == "check":
            self_test(fails)
            checkpatch(designs, timer, fails)
            progs = compile_guest(timer)
            tests = compile_selftests(timer)
            images = ktree.build_all("lab", designs, timer)
            for d in designs:
                w1 = ktree.w1_findings("lab", d)
                if w1:
                    fails.append("%s: W=1 warnings in the files its series touches:\n    %s"
                                 % (d, "\n    ".join(w1)))
            lab(designs, images, progs["klab-guest"], "short", 1, timer, fails)
            selftest_boots(designs, images, tests, timer, fails)
            # The torture is for the patches: mainline's debug kernel is
            # built and tortured only when it is the sole design (klab
            # torture tortures it on request).
            patched = [d for d in designs if d != "mainline"] or designs
            dbg = ktree.build_all("debug", patched, timer)
            torture_boots(patched, dbg, progs["ktorture"], "short", timer, fails)
        else:
            raise SystemExit("klab: unknown command %r" % cmd)
    except (RuntimeError, kboot.BootError) as e:
        fails.append(str(e))
    print_times(timer)
    if fails:
        print("klab %s: FAILED\n  - %s" % (cmd, "\n  - ".join(fails)), file=sys.stderr)
        return 1
    print("klab %s: ok" % cmd)
    return 0
