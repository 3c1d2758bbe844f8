# SPDX-License-Identifier: GPL-2.0
"""A guest boot within a run: timed as a step, its console, stdout and dmesg
saved as <out>/<label>.{console,out,dmesg}, and checked: a guest that did
not finish or whose dmesg holds a splat is a failure of the run."""
import json

from . import boot, paths, record, report
from .run import log


def checked_boot(run, label, spec, splats_fail=True):
    """Boot @spec as step "boot @label"; return its BootResult. A splat in
    its dmesg fails the run unless not @splats_fail (a negative control
    that is meant to warn: its caller judges the splats)."""
    spec.dmesg = True
    spec.env = dict(spec.env, KLAB_LABEL=label)   # names a UML boot's host profile (uml.py)
    spec.timeout = int(spec.timeout * paths.timeout_factor())
    with open(run.path(label + ".console"), "w") as live:
        with run.step("boot %s" % label):
            r = boot.boot(spec, console_stream=[live])
    run.boot_done(r.wall)
    run.save(label + ".out", r.stdout)
    run.save(label + ".dmesg", r.dmesg)
    log("%s: %s, /init at %.1f s uptime, exit %s, %.1f s wall" %
        (label, "UML" if r.machine == "uml" else "accel " + r.accel_words(),
         r.init_uptime or -1, r.status, r.wall))
    if r.status is None:
        run.fail("%s: guest did not finish (%s); see %s" % (
            label, "timeout" if r.timed_out else "no exit status", run.path(label + ".console")))
    sp = report.splats(r.dmesg if r.status is not None else r.console)
    if sp and splats_fail:
        run.fail("%s: %d splat line(s) in dmesg, first:\n%s" % (label, len(sp), sp[0]))
    return r


def guest_document(run, label, r, prog, on, host, load_start, check=None, against=""):
    """The document @prog wrote on its standard output in boot @r (@label),
    stamped with the machine @on, its accelerator and clock and the host
    (record.stamp: @host, the load at @load_start and now); None, the run
    failed, when the guest failed or wrote no document. @check(doc) lists
    how its rows depart from the data file @against, each a failure."""
    if r.status != 0:
        if r.status is not None:
            run.fail("%s: %s exited %d (see %s)" % (label, prog, r.status,
                                                     run.path(label + ".console")))
        return None
    try:
        doc = json.loads(r.stdout)
    except ValueError as e:
        run.fail("%s: no JSON from the guest (%s)" % (label, e))
        return None
    for problem in (check(doc) if check else ()):
        run.fail("%s: the guest's rows depart from %s: %s" % (label, against, problem))
    doc["machine"]["accelerator"] = r.accel_words()
    doc["machine"]["clock"] = r.clock
    doc["machine"]["machine"] = on
    return record.stamp(doc, on, host, load_start)
