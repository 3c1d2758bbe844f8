# SPDX-License-Identifier: GPL-2.0
"""The record every result document carries, as mmtests and LKP record
theirs: the CPU model, the kind of machine, the load at the start and at
the end (data/shrinklab.schema.json, machine; shrinklab writes the same
fields for its own runs, tools/shrinklab/lab/machine.c). A guest cannot see
them, so klab adds them to each guest's document when it saves it:

    host = record.host()                 # once per command
    load = record.loadavg()              # before each boot
    r = checked_boot(...)
    record.stamp(doc, on, host, load)    # on: "uml" or "qemu"

A guest's kind is its machine (UML, QEMU), its CPU model that of the host
CPU that ran it (UML runs the kernel's code on it natively, QEMU's TCG
translates onto it), its load the host's around the boot (the guest's own
is only the workload); the host's facts, its kernel among them, go under
machine.host.
"""
import os
import platform

from .run import load_average

KIND = {"uml": "UML", "qemu": "QEMU"}


def loadavg(path="/proc/loadavg"):
    """[1, 5, 15 minutes] of the host's load average now; None unreadable."""
    try:
        with open(path) as f:
            return [float(x) for x in f.read().split()[:3]]
    except (OSError, ValueError):
        return None


def load_words(docs):
    """The host's load over @docs' boots, for a table's heading: the range
    of the 1-minute load average at their starts and ends (stamp()), or
    "host load not recorded" when no document has one."""
    loads = [load[0] for d in docs for load in (d.get("machine", {}).get("load_start"),
                                                  d.get("machine", {}).get("load_end"))
             if load]
    if not loads:
        return "host load not recorded"
    return "host load %.1f-%.1f (1-minute average at each boot's start and end)" % (
        min(loads), max(loads))


def _first(path, key=None):
    """The first line of @path (with @key: the value of the first
    "key: value" line starting with @key), or ""."""
    try:
        with open(path) as f:
            for line in f:
                if key is None:
                    return line.strip()
                if line.startswith(key) and ":" in line:
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def host_kind(cpu_model):
    """The host's kind, by shrinklab's rule (machine.c, machine_kind())."""
    vendor = _first("/sys/class/dmi/id/sys_vendor")
    hv = _first("/sys/hypervisor/type")
    if platform.machine() == "um":
        return "UML"
    if "QEMU" in cpu_model or "QEMU" in vendor:
        return "QEMU"
    if "hypervisor" in _first("/proc/cpuinfo", "flags").split() or hv:
        return "virtual machine (%s)" % (hv or vendor or "the hypervisor does not say which")
    return "native"


def host():
    """The host's facts, for machine.host of each guest's document."""
    mem = _first("/proc/meminfo", "MemTotal").split()
    u = platform.uname()
    model = _first("/proc/cpuinfo", "model name")
    return {"cpus": os.cpu_count(), "memory_bytes": int(mem[0]) * 1024 if mem else 0,
            "hostname": u.node, "kernel": "%s %s %s %s" % (u.system, u.release, u.version,
                                                           u.machine),
            "cpu_model": model, "kind": host_kind(model), "load": load_average()}


def stamp(doc, on, host_facts, load_start):
    """Complete guest document @doc, booted on machine @on, with the record:
    kind, the host's CPU model, the host's load at @load_start (loadavg()
    before the boot) and now, and @host_facts (host()) as machine.host."""
    m = doc["machine"]
    m["kind"] = KIND[on]
    m["cpu_model"] = host_facts["cpu_model"]
    m["load_start"] = load_start
    m["load_end"] = loadavg()
    m["host"] = host_facts
    return doc
