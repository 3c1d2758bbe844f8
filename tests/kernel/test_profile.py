# SPDX-License-Identifier: GPL-2.0
"""klab profile (kernel/py/klab/commands/profile.py), no kernel needed:
  - perf script's samples are read with their kernel call chains, leaf
    first, each address named from the System.map (text symbols only, gcc's
    clone suffixes dropped), user frames left out (a user-only sample is
    "[user]");
  - a phase holds the samples whose chain has its entry, idle samples are in
    none, and a function counts once per sample (recursion) inclusive, at the
    leaf only for self;
  - the workload's rows of the boot come from kwork's document (none from
    output that is not one), and the side-by-side table puts a timed row's
    milliseconds beside mainline's;
  - --exp keeps the workload's experiments named, in the workload's order,
    and refuses one the workload lacks; kprofile.sh gets the output disk
    after the workload's own and runs kwork with the workload's arguments
    (the host's stress-ng is stood in for: make test runs before make
    check-kernel installs it, on a fresh machine).
Run: python3 tests/kernel/test_profile.py (make check: Meson test kernel_profile)."""
import os
import tempfile
import unittest
from unittest import mock

import klabtest
from klab import compare, workloads
from klab.commands import profile

SHRINKLAB = os.path.join(klabtest.REPO, "build", "shrinklab")

SYSTEM_MAP = """ffffffff81000000 T _text
ffffffff81000100 t default_idle
ffffffff81000200 T pv_native_safe_halt
ffffffff81100000 T xa_find
ffffffff81100080 T xa_find_after
ffffffff81100100 t shrink_slab
ffffffff81100300 T drop_slab
ffffffff81100380 d some_data
ffffffff81100400 t do_shrink_slab.constprop.0
ffffffff81100500 T try_to_free_mem_cgroup_pages
"""

SCRIPT = """kwork   101 [000]
	ffffffff81100020
	ffffffff81100140
	ffffffff81100150
	ffffffff81100310
	    7f0000000000
	               0

swapper     0 [001]
	ffffffff81000205
	ffffffff81000109

kwork   102 [001]
	ffffffff81100408
	ffffffff81100150
	ffffffff81100150
	ffffffff81100508

kwork   103 [000]
	          401000
"""

DOC = ('{"experiments": [{"id": "tkhai", "results": ['
       '{"metric": "drop_caches_ns", "value": 126000000, "unit": "ns"},'
       '{"metric": "dentries_freed", "value": 173, "unit": "count"}]}]}')


def parse():
    return profile.parse_script(SCRIPT, profile.SystemMap(SYSTEM_MAP))


class Script(unittest.TestCase):
    def test_chains(self):
        s = parse()
        self.assertEqual(len(s), 4)
        self.assertEqual(s[0][0], "kwork")
        self.assertEqual(s[0][1], ["xa_find", "shrink_slab", "shrink_slab", "drop_slab"])
        self.assertEqual(s[2][1][0], "do_shrink_slab", "after data, a clone's name")
        self.assertEqual(s[3][1], [])
        m = profile.SystemMap(SYSTEM_MAP)
        self.assertEqual(m(0xffffffff81100390), "drop_slab", "data symbols are not functions")
        self.assertTrue(m(0xffffffff80000000).startswith("[kernel "))

    def test_phases(self):
        s = parse()
        n, incl, self_ = profile.split(s, ("drop_slab",))
        self.assertEqual(n, 1)
        self.assertEqual(incl["xa_find"], 1)
        self.assertEqual(self_["xa_find"], 1)
        self.assertEqual(self_["shrink_slab"], 0)
        n, incl, self_ = profile.split(s, ())
        self.assertEqual(n, 3, "the idle sample is in no phase, the user one is")
        self.assertEqual(self_["[user]"], 1)
        self.assertEqual(incl["shrink_slab"], 2, "once per sample, recursion or not")
        n, _, _ = profile.split(s, ("try_to_free_mem_cgroup_pages",))
        self.assertEqual(n, 1)
        n, _, _ = profile.split(s, ("shrinker_register",))
        self.assertEqual(n, 0)

    def test_text_names_phases_and_rows(self):
        s = parse()
        rows = profile.workload_rows(DOC)
        self.assertEqual(rows[0], ("tkhai", "drop_caches_ns", 126000000, "ns"))
        self.assertEqual(profile.workload_rows("klab: not json"), [])
        text = compare.printed(SHRINKLAB, lambda c: profile.design_text(
            "mainline", s, rows, 1000000, ["header"], c))
        self.assertIn("== drop_caches: 1 samples = 1.0 ms of CPU", text)
        self.assertIn("== all (not idle): 3 samples", text)
        self.assertIn("== registration: no samples", text)
        self.assertRegex(text, r"tkhai\s+drop_caches_ns\s+126000000 ns")
        slower = [("tkhai", "drop_caches_ns", 189000000, "ns")]
        both = compare.printed(SHRINKLAB, lambda c: profile.side_by_side(
            {"mainline": dict(samples=s, rows=rows),
             "xarray": dict(samples=s + s[:1], rows=slower)}, 1000000, c))
        self.assertIn("2.0 x2.00", both)
        self.assertIn("189.0 x1.50", both)
        self.assertNotIn("dentries_freed", both, "only timed rows side by side")


class Spec(unittest.TestCase):
    def setUp(self):
        stand_in = [(workloads.STRESS_NG, workloads.STRESS_NG)]
        patcher = mock.patch.object(workloads, "stress_ng_files", return_value=stand_in)
        patcher.start()
        self.addCleanup(patcher.stop)

    def spec(self, exps):
        tmp = tempfile.mkdtemp()
        self.addCleanup(lambda: [os.unlink(os.path.join(tmp, f)) for f in os.listdir(tmp)] and
                        os.rmdir(tmp))
        return profile.profile_spec("reviewers", "mid", "/bzImage", "/kwork", tmp, "mainline",
                                    "tcg", "2026-12-01T00:00:00Z", "icount", exps, 1000000)

    def test_exp_filter(self):
        spec, outdisk = self.spec(["tkhai", "qizheng"])
        exps = [a.split(":", 1)[0] for a in spec.args if a.startswith(("ramfs:", "qizheng:",
                                                                       "tkhai:"))]
        self.assertEqual(exps, ["qizheng", "tkhai"], "the workload's order, ramfs left out")
        self.assertEqual(spec.prog, profile.KPROFILE)
        self.assertEqual(spec.args[0], "/dev/vdb", "after the swap disk")
        self.assertEqual(spec.args[1], "/klab/bin/kwork")
        self.assertEqual(spec.disks[-1], outdisk)
        self.assertIn("--date", spec.args)
        self.assertIn(("/kwork", "/klab/bin/kwork"), spec.files)
        self.assertEqual(spec.env["KPROF_PERIOD"], "1000000")

    def test_all_and_unknown(self):
        spec, _ = self.spec(None)
        full = workloads.WORKLOADS["reviewers"]["mid"]["exps"]
        for e, p in full:
            self.assertIn(workloads.exp_arg(e, p), spec.args)
        with self.assertRaises(SystemExit):
            self.spec(["nope"])


if __name__ == "__main__":
    unittest.main()
