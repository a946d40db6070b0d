"""What did not run is never a pass: a known run-time bug on an item that only compiled
is not observed (never PASS or XPASS, never narrowed by expect --update), and an item
that ran before and only compiled now fails the gate as coverage lost."""

from __future__ import annotations


from harness.history.update import update_case
from harness.case import load_case
from harness.record import ItemRecord, StageResult
from harness.report.rundiff import diff_runs
from helpers import numeric_case, plugin_args, results_by_item

KNOWN_WRONG = [{"outcome": "compare-fail", "compiler": ">=3.0", "match": "elements differ",
                "reason": "iree-org/iree#1: wrong numbers on the device"}]


def test_a_known_runtime_bug_on_an_item_that_only_compiled_is_not_observed(pytester, fake_tools):
    """A planted device loss (hip: no device here): the known wrong-numbers bug neither
    xfails nor passes unexpectedly, and expect --update leaves the case alone."""
    cases = pytester.path / "cases"
    case_dir = numeric_case(cases, "known-wrong-on-hip", "identity", expect=KNOWN_WRONG,
                            matrix={"targets": ["hip"], "opt_levels": ["O0"]})
    reports = pytester.path / "reports"
    result = pytester.runpytest(*plugin_args(fake_tools, pytester.path / "cache", reports), "cases")
    _, items = results_by_item(reports)
    record = items["known-wrong-on-hip::hip-O0"]
    assert (record["compile_only"], record["verdict"]) == (True, "UNOBSERVED")
    assert "not observed" in record["message"]
    assert result.ret == 0  # not a failure by itself
    records = [ItemRecord.from_dict(r) for r in items.values()]
    assert records[0].cell_state == "unobserved"
    update = update_case(load_case(case_dir / "case.toml"), records)
    assert not update.changed


def _item(run: StageResult) -> ItemRecord:
    return ItemRecord(case="depthwise", item="vulkan-O0", outcome="pass", verdict="PASS", target="vulkan",
                      opt_level="O0", stages=[StageResult("compile", "ok"), run])


def test_an_item_that_ran_before_and_only_compiled_now_is_coverage_lost():
    before = _item(StageResult("run", "ok"))
    now = _item(StageResult("run", "skip", "no vulkan device here"))
    diff = diff_runs([before], [now])
    assert [i.key for i in diff.coverage_lost] == ["depthwise::vulkan-O0"]
    assert diff.regressed
    assert diff.gate_lines() == ["coverage lost: depthwise::vulkan-O0 ran before, only compiled now "
                                 "(no vulkan device here)"]
    assert not diff_runs([now], [now]).coverage_lost  # compile-only both times: nothing lost
    assert not diff_runs([before], [before]).coverage_lost
