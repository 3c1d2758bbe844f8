# SPDX-License-Identifier: GPL-2.0
"""Seed claims judged as shrinklab reproduce judges them
(tools/shrinklab/verdict.c and seeds.c, which this follows line by line:
the two must class every ratio alike, and tests/kernel/test_reproduce.py
checks this module against the verdicts of a saved shrinklab document).

A claim is a ratio of a design's figure to its table's base design (the
seed's first), "about the same as the base", a bound ("over 100 ms", "under
10 ms": the ratio of a bound is a bound), or a count. Ours is the ratio of
the medians and a range: paired (the per-round ratios, round k of the
design against round k of the base) when the two were taken in rounds,
else unpaired (the widest ratio the two ranges allow). A ratio is lower
below 0.8, higher above 1.25, about the same between; a range across one
of those boundaries is inconclusive.

A row here is a dict in the shape of a shrinklab/2 result: design, metric,
unit, timed, value, min, max, n, samples, geometry (mounts, units, cgroups,
nodes, cpus), plus "paired": whether its samples are rounds that pair
with the base's (the model's are; a kernel's per-boot medians are when
the boots were interleaved).
"""

SAME_LO = 0.8
SAME_HI = 1.25
GEO_KEYS = ("mounts", "units", "cgroups", "nodes", "cpus")

AGREES = "agrees"
DISAGREES = "DISAGREES"
INCONCLUSIVE = "inconclusive"
NOT_COMPARED = "not compared"
NOT_MEASURED = "not measured"
# The names shrinklab's JSON gives them.
JSON_NAMES = {"agrees": AGREES, "disagrees": DISAGREES, "inconclusive": INCONCLUSIVE,
              "not_compared": NOT_COMPARED, "not_measured": NOT_MEASURED, "not_judged": "-"}


def classify(lo, hi):
    if hi < SAME_LO:
        return "lower"
    if lo > SAME_HI:
        return "higher"
    if lo >= SAME_LO and hi <= SAME_HI:
        return "same"
    return "straddles"


def cls_word(c):
    return {"lower": "lower", "higher": "higher", "same": "about the same"}.get(
        c, "across a boundary")


# ------------------------------------------------------------ seed figures

def parse_geometry(text):
    """{key: (lo, hi)} for the known keys, {key: None} for "?" (seeds.c)."""
    g = {}
    if text == "-":
        return g
    for tok in text.split():
        k, _, v = tok.partition("=")
        if k not in GEO_KEYS or k in g or not v:
            raise ValueError("bad geometry %r" % text)
        if v == "?":
            g[k] = None
            continue
        lo, _, hi = v.partition("..")
        g[k] = (int(lo), int(hi or lo))
    return g


def format_geometry(g):
    out = []
    for k in GEO_KEYS:
        if k not in g:
            continue
        v = g[k]
        out.append("%s=?" % k if v is None else "%s=%d" % (k, v[0]) if v[0] == v[1]
                   else "%s=%d..%d" % (k, v[0], v[1]))
    return " ".join(out)


def load_seeds(path):
    """The seeds' figures of data/seed_figures.tsv, keyed (experiment, design, metric)."""
    out = {}
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line or line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) != 8:
                raise ValueError("%s:%d: expected 8 tab-separated fields" % (path, lineno))
            exp, design, metric, value, unit, geo, sfile, source = fields
            fig = dict(experiment=exp, design=design, metric=metric, unit=unit, file=sfile,
                       source=source, geometry=parse_geometry(geo), same=False, relation="=",
                       value=None)
            if value == "same":
                fig["same"] = True
            else:
                if value[0] in "<>":
                    fig["relation"], value = value[0], value[1:]
                fig["value"] = float(value)
            out[(exp, design, metric)] = fig
    return out


def geometry_matches(geo, keys, seed_geo):
    """(matches, why) for a row's geometry @geo on the keys @keys its metric
    depends on, against the seed's (seeds.c lab_seed_geometry_matches)."""
    differ, unknown = [], []
    for k in GEO_KEYS:
        if k not in keys:
            continue
        sv = seed_geo.get(k)
        if sv is None:
            unknown.append(k)
            continue
        ours = geo.get(k)
        if k == "units" and (ours is None or ours < 0):
            differ.append("units not measured")
        elif ours is None or ours < sv[0] or ours > sv[1]:
            differ.append("%s=%s" % (k, ours))
    if differ:
        return False, "ours at %s; the seed at %s" % (", ".join(differ),
                                                      format_geometry(seed_geo))
    return True, ("the seed does not give its %s" % ", ".join(unknown)) if unknown else ""


# ------------------------------------------------------------------ claims

def ratio_of(r, b):
    """(ours, lo, hi, rounds, paired) of row @r over base row @b."""
    ours = r["value"] / b["value"]
    if r.get("timed") and b.get("timed") and r.get("paired") and b.get("paired") and \
            r["n"] == b["n"] and r["n"]:
        qs = [x / y for x, y in zip(r["samples"], b["samples"]) if y > 0]
        if qs:
            return ours, min(qs), max(qs), len(qs), True
    lo = r["min"] / b["max"] if b["max"] > 0 else ours
    hi = r["max"] / b["min"] if b["min"] > 0 else ours
    return ours, lo, hi, min(r["n"], b["n"]), False


def sample_count(r):
    """Samples behind a row: its boots x samples per boot (a kernel row),
    or its samples (a model row)."""
    return r["n"] * r.get("samples_per_boot", 1)


SIZE_FACTOR = 2.0
NOT_JUDGED = "-"


def size_class(lo, hi, seed):
    """The size verdict, beside the direction (verdict.c lab_size_classify):
    our whole range @lo..@hi within 2x of @seed agrees, wholly beyond
    disagrees, across 0.5x or 2x is inconclusive; "-" without a seed ratio."""
    if seed is None or lo is None or hi is None or not seed > 0 or lo < 0 or hi < lo:
        return NOT_JUDGED
    if lo >= seed / SIZE_FACTOR and hi <= seed * SIZE_FACTOR:
        return AGREES
    if hi < seed / SIZE_FACTOR or lo > seed * SIZE_FACTOR:
        return DISAGREES
    return INCONCLUSIVE


def seed_relation(f, bf):
    if f["relation"] == "=" and bf["relation"] == "=":
        return "="
    if f["relation"] != ">" and bf["relation"] != "<":
        return "<"
    if f["relation"] != "<" and bf["relation"] != ">":
        return ">"
    return None


def _judge_point(v):
    cs, co = classify(v["seed"], v["seed"]), classify(v["lo"], v["hi"])
    if v["seed"] == 0:
        v["kind"] = AGREES if v["hi"] == 0 else DISAGREES
        v["text"] = "both zero" if v["hi"] == 0 else "the seed has none, we have some"
    elif v["hi"] == 0:
        v["kind"], v["text"] = DISAGREES, "we measured none, the seed some"
    elif co == "straddles":
        v["kind"] = INCONCLUSIVE
        v["text"] = "the seed's ratio is %s; ours spans %.3g..%.3g, across the 0.8/1.25 " \
                    "boundary" % (cls_word(cs), v["lo"], v["hi"])
    else:
        v["kind"] = AGREES if co == cs else DISAGREES
        v["text"] = "ours %s, the seed's %s" % (cls_word(co), cls_word(cs))


def _judge_same(v):
    co = classify(v["lo"], v["hi"])
    v["kind"] = AGREES if co == "same" else INCONCLUSIVE if co == "straddles" else DISAGREES
    v["text"] = {"same": "every round within 0.8..1.25",
                 "straddles": "the rounds span the 0.8/1.25 boundary",
                 "lower": "every round lower than 0.8"}.get(co, "every round higher than 1.25")


def _judge_bound(v):
    below = v["relation"] == "<"
    if (v["hi"] < v["seed"]) if below else (v["lo"] > v["seed"]):
        v["kind"] = AGREES
    elif (v["lo"] >= v["seed"]) if below else (v["hi"] <= v["seed"]):
        v["kind"] = DISAGREES
    else:
        v["kind"] = INCONCLUSIVE
    v["text"] = "the seed's figures bound the ratio %s %.3g; ours spans %.3g..%.3g" % (
        "below" if below else "above", v["seed"], v["lo"], v["hi"])


def judge(r, b, f, bf, keys):
    """The verdict on seed figure @f of row @r, against base row @b whose
    seed figure is @bf (None: the seed gives none); @keys: the geometry keys
    the metric depends on. Either row may be None (not measured)."""
    v = dict(claim="count" if f["unit"] == "count" else "same" if f["same"] else "ratio",
             relation="=", seed=None, ours=None, lo=None, hi=None, rounds=0, paired=False,
             kind=None, size=NOT_JUDGED, text="")
    if v["claim"] == "count":
        v["seed"] = f["value"]
        if r is None:
            v["kind"], v["text"] = NOT_MEASURED, "not measured"
            return v
        ok, why = geometry_matches(r["geometry"], keys, f["geometry"])
        if not ok:
            v["kind"], v["text"] = NOT_COMPARED, why
            return v
        v["ours"] = v["lo"] = v["hi"] = r["value"]
        v["rounds"] = r["n"]
        v["kind"] = AGREES if r["value"] == f["value"] else DISAGREES
        v["size"] = size_class(v["lo"], v["hi"], v["seed"])
        v["text"] = "exactly" if v["kind"] == AGREES else "differs"
        return v
    if r is None or b is None:
        v["kind"] = NOT_MEASURED
        v["text"] = "%s is unavailable in this run" % ("the design" if r is None
                                                      else "the base design")
        return v
    ok, why = geometry_matches(r["geometry"], keys, f["geometry"])
    bok, bwhy = geometry_matches(b["geometry"], keys, f["geometry"])
    if not ok or not bok:
        v["kind"] = NOT_COMPARED
        v["text"] = why if not ok else "the base, %s: %s" % (b["design"], bwhy)
        if b["value"]:
            # Not a verdict: the ratio at this geometry, for the reader.
            v["ours"], v["lo"], v["hi"], v["rounds"], v["paired"] = ratio_of(r, b)
        return v
    if not f["same"]:
        rel = seed_relation(f, bf) if bf else None
        if not bf or bf["same"] or not rel or bf["value"] == 0:
            v["kind"] = NOT_COMPARED
            v["text"] = ("the seed gives no figure for the base" if not bf or bf["same"]
                         else "the seed's two bounds point the same way" if not rel
                         else "the seed's base figure is zero")
            return v
        v["seed"] = f["value"] / bf["value"]
        v["relation"] = rel
        v["claim"] = "ratio" if rel == "=" else "bound"
    if b["value"] == 0:
        v["kind"], v["text"] = NOT_MEASURED, "the base measured 0: no ratio"
        return v
    v["ours"], v["lo"], v["hi"], v["rounds"], v["paired"] = ratio_of(r, b)
    if r.get("timed") and min(sample_count(r), sample_count(b)) < 2:
        # shrinklab never judges fewer than 5 rounds; a kernel figure from
        # one boot's one sample has no spread to judge.
        v["kind"] = INCONCLUSIVE
        v["text"] = "one sample: no spread to judge (more boots)"
        return v
    if f["same"]:
        _judge_same(v)
        v["size"] = size_class(v["lo"], v["hi"], 1.0)
    elif v["relation"] == "=":
        _judge_point(v)
        v["size"] = size_class(v["lo"], v["hi"], v["seed"])
    else:
        _judge_bound(v)
    if why:
        v["text"] += " (%s)" % why
    return v

