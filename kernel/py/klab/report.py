# SPDX-License-Identifier: GPL-2.0
"""Reading what the guests wrote: dmesg splats and selftest results. (The
lab's JSON and its tables, kernel beside model: compare.py and shrinklab
judge lab.)"""
import re

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
# kselftest's whole-suite skip (ksft_exit_skip before any test): "1..0 # SKIP why"
WHOLE_SKIP_RE = re.compile(r"^1\.\.0\s*#\s*(?:SKIP|skip)\s*(.*)$")


def parse_selftests(stdout):
    """{program: {"tests": {name: "pass"|"fail"|"skip"}, "exit": int}} from the
    guest's selftest script output (kselftest TAP between our markers); a
    program that skipped whole ("1..0 # SKIP why") has "skipped": why too."""
    res, cur = {}, None
    for line in stdout.split("\n"):
        line = line.strip()
        if line.startswith("KLAB-SELFTEST-BEGIN "):
            cur = line.split()[1]
            res[cur] = {"tests": {}, "exit": None}
        elif line.startswith("KLAB-SELFTEST-END ") and cur:
            res[cur]["exit"] = int(line.split()[2])
            cur = None
        elif cur and WHOLE_SKIP_RE.match(line):
            res[cur]["skipped"] = WHOLE_SKIP_RE.match(line).group(1).strip() or "no reason"
        elif cur:
            m = TAP_RE.match(line)
            if m:
                name = m.group(2).strip()
                state = "skip" if m.group(3) else ("pass" if m.group(1) == "ok" else "fail")
                res[cur]["tests"][name] = state
    return res
