# SPDX-License-Identifier: GPL-2.0
"""The lab's experiment registry, read from shrinklab (`shrinklab
experiments --json`, schema shrinklab-experiments/1: each experiment's id,
thread, title, designs and metrics, each metric's unit, the geometry keys
its figure depends on and what it is). klab keeps no copy of them: its
seed tables (reproduce.py) name an experiment by id and add what only a
kernel run has (the guest run that measures it, the kernel designs, boot
arguments); titles, metric words and geometry keys come from here."""
import json
import subprocess

SCHEMA = "shrinklab-experiments/1"
_loaded = {}


def parse(text):
    """{id: experiment} of a registry document's @text (ValueError when it
    is not one)."""
    doc = json.loads(text)
    if doc.get("schema") != SCHEMA:
        raise ValueError("not a %s document (schema %r)" % (SCHEMA, doc.get("schema")))
    return {e["id"]: e for e in doc["experiments"]}


def load(exe):
    """The registry of the shrinklab at @exe, read once per process."""
    if exe not in _loaded:
        r = subprocess.run([exe, "experiments", "--json"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise RuntimeError("%s experiments --json: exit %d: %s" % (exe, r.returncode,
                                                                       r.stderr.strip()))
        _loaded[exe] = parse(r.stdout)
    return _loaded[exe]


def metric(reg, exp, name):
    """The registry's metric @name of experiment @exp, or None."""
    e = reg.get(exp)
    return next((m for m in e["metrics"] if m["name"] == name), None) if e else None


def seeds(reg):
    """The seeds' figures of the registry @reg (each experiment's
    seed_figures, read by shrinklab from data/seed_figures.tsv), keyed
    (experiment, design, metric): unit, value (None for "the same as the
    base"), relation ('=', '<', '>'), same (bool) and the geometry as
    shrinklab gives it."""
    out = {}
    for exp, e in reg.items():
        for f in e.get("seed_figures", []):
            same = f["relation"] == "same"
            out[(exp, f["design"], f["metric"])] = dict(
                f, experiment=exp, same=same, relation="=" if same else f["relation"])
    return out
