# SPDX-License-Identifier: GPL-2.0
"""Reading what the guests wrote: dmesg splats, selftest results, lab JSON,
and the tables printed from them."""
import json
import re
import statistics

# A line of the guest's dmesg that means the kernel found a bug. The OOM
# killer's own report (selftests provoke it) is not one.
SPLAT_PATTERNS = [
    r"WARNING:", r"\bBUG:", r"BUG: KASAN", r"UBSAN:", r"\bOops\b", r"Kernel panic",
    r"general protection fault", r"possible circular locking dependency",
    r"possible recursive locking", r"possible irq lock inversion",
    r"inconsistent lock state", r"deadlock", r"suspicious RCU usage",
    r"list_add corruption", r"list_del corruption", r"list corruption",
    r"unreferenced object", r"suspected memory leak", r"Poison overwritten",
    r"Redzone overwritten", r"Object padding overwritten", r"Bad page",
    r"double free", r"refcount_t:", r"ODEBUG:", r"self-detected stall",
    r"detected stalls", r"blocked for more than", r"kernel BUG at",
    r"Unable to handle", r"invalid opcode", r"\bslab error\b", r"stack-protector",
    r"INFO: lockdep is turned off", r"\bBUG [\w-]+ \(",
]
SPLAT_RE = re.compile("|".join(SPLAT_PATTERNS))


def splats(dmesg):
    """Lines of @dmesg that are splats (with 2 lines of context after each)."""
    out = []
    lines = dmesg.split("\n")
    for i, line in enumerate(lines):
        if SPLAT_RE.search(line):
            out.append("\n".join(lines[i:i + 3]))
    return out


TAP_RE = re.compile(r"^(not ok|ok) \d+ (.*?)(?:\s+#\s*(SKIP|skip).*)?$")


def parse_selftests(stdout):
    """{program: {"tests": {name: "pass"|"fail"|"skip"}, "exit": int}} from the
    guest's selftest script output (kselftest TAP between our markers)."""
    res, cur = {}, None
    for line in stdout.split("\n"):
        line = line.strip()
        if line.startswith("KLAB-SELFTEST-BEGIN "):
            cur = line.split()[1]
            res[cur] = {"tests": {}, "exit": None}
        elif line.startswith("KLAB-SELFTEST-END ") and cur:
            res[cur]["exit"] = int(line.split()[2])
            cur = None
        elif cur:
            m = TAP_RE.match(line)
            if m:
                name = m.group(2).strip()
                state = "skip" if m.group(3) else ("pass" if m.group(1) == "ok" else "fail")
                res[cur]["tests"][name] = state
    return res


def merge_lab(docs):
    """One document from the guests' documents (every design, every boot).
    Rows keep their boot index in "boot"; experiments are merged by id."""
    merged = {"schema": None, "scale": "kernel", "factor": 1, "samples": 0,
              "guests": [], "experiments": []}
    exps = {}
    for boot, doc in enumerate(docs):
        merged["schema"] = doc["schema"]
        g = dict(doc.get("guest", {}))
        g["boot"] = boot
        merged["guests"].append(g)
        for e in doc["experiments"]:
            if e["id"] not in exps:
                exps[e["id"]] = {"id": e["id"], "scale": e["scale"], "results": []}
                merged["experiments"].append(exps[e["id"]])
            for r in e["results"]:
                r = dict(r)
                r["boot"] = boot
                exps[e["id"]]["results"].append(r)
    return merged


# Ratios taken within one boot: (name, numerator metric, denominator metric).
RATIOS = [
    ("drop_caches N cgroups / none (top rung)", "drop_caches_ns", "drop_caches_ns_no_cgroups"),
    ("drop_caches N cgroups / none (0 mounts)", "drop_caches_ns_no_mounts",
     "drop_caches_ns_no_cgroups_no_mounts"),
    ("register a batch with N cgroups / without", "register_*_mounts_ns_cgroups_alive",
     "register_*_mounts_ns_no_cgroups"),
    ("release at top rung / at 0 mounts", "release_ns_per_cgroup",
     "release_ns_per_cgroup_no_mounts"),
    ("rmdir at top rung / at 0 mounts", "rmdir_ns_per_cgroup", "rmdir_ns_per_cgroup_no_mounts"),
    ("mkdir at top rung / at 0 mounts", "mkdir_ns_per_cgroup", "mkdir_ns_per_cgroup_no_mounts"),
    ("slab per cgroup after umount / before mounts",
     "slab_bytes_per_empty_cgroup_after_umount", "slab_bytes_per_empty_cgroup_before_mounts"),
]


def _pick(vals, pattern):
    """The value of the metric named @pattern ('*' matches a batch size)."""
    if "*" not in pattern:
        return vals.get(pattern)
    pre, post = pattern.split("*")
    for k, v in vals.items():
        if k.startswith(pre) and k.endswith(post) and k[len(pre):-len(post)].isdigit():
            return v
    return None


def _fmt(v, unit):
    if v is None:
        return "-"
    if unit == "ns":
        if abs(v) >= 1e9:
            return "%.2f s" % (v / 1e9)
        if abs(v) >= 1e6:
            return "%.2f ms" % (v / 1e6)
        if abs(v) >= 1e3:
            return "%.1f us" % (v / 1e3)
        return "%.0f ns" % v
    if unit == "B":
        if abs(v) >= 1e6:
            return "%.2f MB" % (v / 1e6)
        if abs(v) >= 1e3:
            return "%.1f kB" % (v / 1e3)
        return "%.0f B" % v
    return "%.2f" % v


def _table(title, header, rows):
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)] if rows else []
    out = ["", title]
    if not rows:
        return "\n".join(out + ["  (no rows)"])
    out.append("  " + "  ".join(str(h).ljust(w) for h, w in zip(header, widths)))
    out.append("  " + "  ".join("-" * w for w in widths))
    for r in rows:
        out.append("  " + "  ".join(str(c).ljust(w) for c, w in zip(r, widths)))
    return "\n".join(out)


def tables(merged):
    """Text: per experiment one table (metric x design: median over boots of
    the guest's medians, with the min/max over all samples), then the
    within-boot ratios."""
    designs = []
    for g in merged["guests"]:
        if g.get("design") not in designs:
            designs.append(g.get("design"))
    out = []
    by_design_boot = {}
    for e in merged["experiments"]:
        metrics, cells = [], {}
        for r in e["results"]:
            if r["metric"] not in metrics:
                metrics.append(r["metric"])
            cells.setdefault((r["metric"], r["design"]), []).append(r)
            by_design_boot.setdefault((r["design"], r["boot"]), {})[r["metric"]] = r["value"]
        rows = []
        for m in metrics:
            row = [m]
            unit = None
            base = None
            for d in designs:
                rs = cells.get((m, d), [])
                if not rs:
                    row.append("-")
                    continue
                unit = rs[0]["unit"]
                v = statistics.median(x["value"] for x in rs if x["value"] is not None)
                lo = min(x["min"] for x in rs)
                hi = max(x["max"] for x in rs)
                cell = _fmt(v, unit)
                if any(x["samples"] > 1 for x in rs):
                    cell += " [%s..%s]" % (_fmt(lo, unit), _fmt(hi, unit))
                if d == "kernel:mainline":
                    base = v
                elif base:
                    cell += " (%.3gx)" % (v / base)
                row.append(cell)
            rows.append(row)
        sc = e["scale"]
        nboots = max(len(set(r["boot"] for r in e["results"] if r["design"] == d))
                     for d in designs)
        title = "%s (last row at %s mounts, N=%s cgroups, %s nodes, %s cpus; %d boot(s) "\
            "per design)" % (e["id"], sc.get("mounts"), sc.get("cgroups"), sc.get("nodes"),
                             sc.get("cpus"), nboots)
        out.append(_table(title, ["metric"] + designs, rows))
    rows = []
    for name, num, den in RATIOS:
        row = [name]
        for d in designs:
            rs = []
            for (dd, _b), vals in sorted(by_design_boot.items()):
                a, b = _pick(vals, num), _pick(vals, den)
                if dd == d and a and b:
                    rs.append(a / b)
            row.append("%.2fx" % statistics.median(rs) + (" [%.2f..%.2f]" % (min(rs), max(rs))
                                                          if len(rs) > 1 else "")
                       if rs else "-")
        rows.append(row)
    out.append(_table("ratios within one boot (median over boots [min..max])",
                      ["ratio"] + designs, rows))
    accel = sorted(set("%s %s" % (g.get("accel"), g.get("release")) for g in merged["guests"]))
    out.append("\naccelerator / kernel: " + "; ".join(accel))
    return "\n".join(out) + "\n"


def load(path):
    with open(path) as f:
        return json.load(f)
