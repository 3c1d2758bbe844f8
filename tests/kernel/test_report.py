# SPDX-License-Identifier: GPL-2.0
"""klab.report, what the host reads from the guests: the splat check
catches each kind of report and passes an OOM-killer report and the debug
kernel's banners; the selftest parser counts passes, failures and skips.
Run: python3 tests/kernel/test_report.py (make check: Meson test kernel_report)."""
import unittest

import klabtest  # noqa: F401  (the klab package on the path)
from klab import report

SPLATS = [
    "[   12.1] WARNING: CPU: 1 PID: 77 at mm/shrinker.c:120 shrinker_free+0x1/0x2",
    "[   12.1] BUG: KASAN: slab-use-after-free in shrink_slab+0x10/0x20",
    "[   12.1] BUG: kernel NULL pointer dereference, address: 0000000000000008",
    "[   12.1] Oops: 0000 [#1] SMP",
    "[   12.1] WARNING: possible circular locking dependency detected",
    "[   12.1] WARNING: suspicious RCU usage",
    "[   12.1] list_add corruption. next->prev should be prev (ffff), but was 0000",
    "[   12.1] kmemleak: 3 new suspected memory leaks (see /sys/kernel/debug/kmemleak)",
    "unreferenced object 0xffff888003a1c000 (size 1024):",
    "[   12.1] Kernel panic - not syncing: Fatal exception",
    "[   12.1] BUG kmalloc-1k (Not tainted): Poison overwritten",
    "[   12.1] rcu: INFO: rcu_preempt self-detected stall on CPU",
    "[   12.1] BUG radix_tree_node (Tainted: G    B): Object already free",
]

CLEAN = """[    1.0] Linux version 6.12.117+ (root@host) (gcc 12) #1 SMP
[    5.2] test_memcontrol invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0
[    5.2] CPU: 0 UID: 0 PID: 88 Comm: test_memcontrol Not tainted 6.12.117+ #1
[    5.2] Call Trace:
[    5.2]  <TASK>
[    5.2]  dump_stack_lvl+0x1/0x2
[    5.2] memory: usage 30720kB, limit 30720kB, failcnt 10
[    5.2] Memory cgroup out of memory: Killed process 89 (test_memcontrol)
[    6.0] kasan: KernelAddressSanitizer initialized (generic)
[    6.0] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar
"""

TAP = """KLAB-SELFTEST-BEGIN test_kmem
TAP version 13
1..3
ok 1 test_kmem_basic
not ok 2 test_kmem_memcg_deletion
ok 3 test_percpu_basic # SKIP no percpu
KLAB-SELFTEST-END test_kmem 1
"""


class Splats(unittest.TestCase):
    def test_each_kind_is_caught(self):
        for line in SPLATS:
            self.assertTrue(report.splats(CLEAN + line + "\n"), line)

    def test_oom_report_and_boot_banners_pass(self):
        self.assertEqual(report.splats(CLEAN), [])


class Selftests(unittest.TestCase):
    def test_parse(self):
        r = report.parse_selftests(TAP)
        self.assertEqual(r["test_kmem"]["exit"], 1)
        self.assertEqual(r["test_kmem"]["tests"], {
            "test_kmem_basic": "pass", "test_kmem_memcg_deletion": "fail",
            "test_percpu_basic": "skip"})

    def test_whole_suite_skip(self):
        r = report.parse_selftests("KLAB-SELFTEST-BEGIN test_memcontrol\nTAP version 13\n"
                                   "1..0 # SKIP memory controller isn't available\n"
                                   "KLAB-SELFTEST-END test_memcontrol 4\n")
        self.assertEqual(r["test_memcontrol"], {
            "tests": {}, "exit": 4, "skipped": "memory controller isn't available"})
        self.assertNotIn("skipped", report.parse_selftests(TAP)["test_kmem"])


if __name__ == "__main__":
    unittest.main()
