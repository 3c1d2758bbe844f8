# SPDX-License-Identifier: GPL-2.0
"""The selftest regression rule: no selftest may fail on a design that
passes on mainline, and under TCG on a loaded host some fail now and then on
mainline and designs alike (test_memcg_low, test_memcg_sock,
test_memcg_reclaim did). So:

  1. a test that passes on mainline's boot and fails on the design's is
     run again: the design boots a second time;
  2. passing there, it is flaky (failed once): reported, not failed;
  3. failing twice, mainline boots a second time: failing (or skipped)
     there too, it is flaky on both: reported, not failed;
  4. passing again on mainline (or missing from its second boot's
     results), it is a regression: the run fails.

Results are report.parse_selftests()'s: {program: {"tests": {name:
"pass"|"fail"|"skip"}, "exit": int}}.
"""
import dataclasses


def tests_in(res):
    """{test: state} over every program of @res."""
    return {name: st for prog in res.values() for name, st in prog.get("tests", {}).items()}


def regressions(base, res):
    """The tests that fail in @res and pass in @base, in @res's order."""
    b = tests_in(base)
    return [name for name, st in tests_in(res).items() if st == "fail" and b.get(name) == "pass"]


@dataclasses.dataclass
class Judgement:
    regressed: list = dataclasses.field(default_factory=list)   # the run fails on these
    flaky: list = dataclasses.field(default_factory=list)       # (test, what happened)


def judge(base, first, boot_design_again, boot_mainline_again):
    """The rule for one design: @first its results, @base mainline's.
    @boot_design_again() and @boot_mainline_again() boot once more and
    return the results (the latter may return None: mainline is not in the
    run, and a test failing twice is then a regression). They are called
    only when the rule needs them."""
    j = Judgement()
    suspects = regressions(base, first)
    if not suspects:
        return j
    again = regressions(base, boot_design_again())
    twice = [t for t in suspects if t in again]
    j.flaky += [(t, "failed once, passed on retry") for t in suspects if t not in again]
    if not twice:
        return j
    mres = boot_mainline_again()
    if mres is not None:
        mstate = tests_in(mres)
        for t in twice:
            if mstate.get(t, "pass") != "pass":
                j.flaky.append((t, "failed twice here and on mainline's second boot"))
            else:
                j.regressed.append(t)
    else:
        j.regressed += twice
    return j
