"""Differential items: a bug defined as a difference between two compiles of one program.

The fake iree-compile (helpers.py) turns a flag `--fake-run=wrong` into a module whose
run adds 1 to its input: the flag a side turns on plants wrong numbers on that side only.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.bug import Bug
from harness.cache import Cache
from harness.case import CaseError, load_case
from harness.item import ItemId, bug_items, run_item
from harness.outcomes import COMPILES_DISAGREE, PROBE_BAD, PROBE_GOOD, UNOBSERVED, XFAIL, XPASS, plain_words
from harness.runner import expectation_for, verdict
from harness.stages import Settings
from harness.toolchain import resolve
from helpers import FAKE_VERSION, numeric_case, plugin_args, results_by_item, run_pytest_subprocess, write_case

pytestmark = pytest.mark.harness

WRONG = ["--fake-run=wrong"]


def _differ(b_flags=WRONG, **more) -> dict:
    return {"name": "fake-flag", "target": "cpu", "opt_level": "O0", "b": {"flags": b_flags}, **more}


def _settings(tools: Path, tmp_path: Path) -> Settings:
    return Settings(toolchain=resolve(tools), cache=Cache(tmp_path / "cache"))


def _run(case_dir: Path, tools: Path, tmp_path: Path):
    case = load_case(case_dir / "case.toml")
    result = run_item(case, ItemId(differ="fake-flag"), _settings(tools, tmp_path))
    return case, result


def test_a_side_whose_flag_plants_wrong_numbers_is_the_bug_and_the_golden_says_which(tmp_path, fake_tools):
    case_dir = numeric_case(tmp_path, "flag-on-differs", differ=[_differ()])
    case, result = _run(case_dir, fake_tools, tmp_path)
    assert result.outcome == COMPILES_DISAGREE == "differ-fail"
    detail = result.failing_stage.detail
    assert "a (cpu-O0) vs b (cpu-O0 --fake-run=wrong)" in detail
    assert "a matches the golden; b is wrong against the golden" in detail
    assert "6/6 elements differ" in detail
    # Both compiles ran on the same inputs, each told as its side; the commands paste together.
    compiles = [s for s in result.stages if s.stage == "compile"]
    assert [s.data["side"] for s in compiles] == ["a", "b"]
    assert "-o module-a.vmfb" in compiles[0].command and "-o module-b.vmfb" in compiles[1].command
    assert "--fake-run=wrong" in compiles[1].command and "--fake-run=wrong" not in compiles[0].command
    record = result.record(verdict(result, None))
    assert record.differ == "fake-flag" and record.item == "differ-fake-flag" and record.verdict == "FAIL"
    assert plain_words(result.outcome) == "two compiles of the program disagree"


def test_sides_that_agree_pass_and_an_expected_difference_then_xpasses(tmp_path, fake_tools):
    expect = [{"differ": ["fake-flag"], "compiler": ">=3.0", "outcome": "differ-fail",
               "match": "elements differ", "reason": "the flag changes the result"}]
    case_dir = numeric_case(tmp_path, "flag-agrees", differ=[_differ(["--fake-run=identity"])], expect=expect)
    case, result = _run(case_dir, fake_tools, tmp_path)
    assert result.outcome == "pass"
    assert "agree within atol=0.0001, rtol=0.0001" in result.stages[-1].detail
    assert verdict(result, expectation_for(result, FAKE_VERSION)).kind == XPASS
    # Planted: the same case with the flag that makes side b wrong is the known bug again.
    planted = numeric_case(tmp_path, "flag-planted", differ=[_differ()], expect=expect)
    case, result = _run(planted, fake_tools, tmp_path)
    assert verdict(result, expectation_for(result, FAKE_VERSION)).kind == XFAIL


def test_two_sides_that_agree_on_wrong_numbers_are_wrong_numbers_not_a_pass(tmp_path, fake_tools):
    both = _differ(["--fake-run=wrong", "--another-flag"], a={"flags": WRONG})
    case, result = _run(numeric_case(tmp_path, "both-wrong", differ=[both]), fake_tools, tmp_path)
    assert result.outcome == "compare-fail"
    assert "agree, and both are wrong" in result.failing_stage.detail


def test_a_run_case_with_no_golden_is_judged_by_the_difference_alone(tmp_path, fake_tools):
    case_dir = numeric_case(tmp_path, "no-golden", differ=[_differ(outputs=1)])
    (case_dir / "expected" / "output0.npy").unlink()
    text = (case_dir / "case.toml").read_text().replace('kind = "numeric"', 'kind = "run"')
    (case_dir / "case.toml").write_text(text)
    case, result = _run(case_dir, fake_tools, tmp_path)
    assert result.outcome == COMPILES_DISAGREE
    assert "golden" not in result.failing_stage.detail


def test_a_side_that_only_compiles_observes_nothing(tmp_path, fake_tools):
    """A side on a target with no device here: compile-only, never a pass of a known difference."""
    expect = [{"differ": ["fake-flag"], "compiler": ">=3.0", "outcome": "differ-fail",
               "match": "elements differ", "reason": "r"}]
    differ = _differ(b={"target": "hip", "flags": WRONG})
    case, result = _run(numeric_case(tmp_path, "on-hip", differ=[differ], expect=expect), fake_tools, tmp_path)
    assert result.outcome == "pass" and result.compile_only
    assert verdict(result, expectation_for(result, FAKE_VERSION)).kind == UNOBSERVED


def test_the_bug_of_a_differential_case_is_probed_on_its_item(tmp_path, fake_tools):
    history = {"bad_outcome": "differ-fail", "bad_items": ["differ-fake-flag"], "bad_match": "elements differ",
               "window": [{"first_bad": "3.13.0", "last_bad": "3.13.0"}]}
    case_dir = numeric_case(tmp_path, "probed", differ=[_differ()], history=history)
    case, result = _run(case_dir, fake_tools, tmp_path)
    assert bug_items(case) == [ItemId(differ="fake-flag")]
    bug = Bug.of(case)
    assert bug.state(result).kind == PROBE_BAD
    good = numeric_case(tmp_path, "probed-good", differ=[_differ(["--fake-run=identity"])], history=history)
    _, passed = _run(good, fake_tools, tmp_path)
    assert bug.state(passed).kind == PROBE_GOOD


def test_item_names_and_expectation_scopes():
    assert ItemId.parse("differ-data-tiling") == ItemId(differ="data-tiling")
    assert ItemId(differ="data-tiling").name == "differ-data-tiling"
    assert ItemId(differ="x").scope == "differ" and ItemId(differ="x").name_in_scope == "x"


def test_an_expectation_of_matrix_items_does_not_cover_a_differential_item(tmp_path):
    expect = [{"targets": ["cpu"], "compiler": ">=3.0", "outcome": "compare-fail", "match": "x", "reason": "r"},
              {"differ": ["fake-flag"], "compiler": ">=3.0", "outcome": "differ-fail", "match": "x", "reason": "r"}]
    case = load_case(numeric_case(tmp_path, "scoped", differ=[_differ()], expect=expect) / "case.toml")
    assert ItemId.of(case) == [ItemId("cpu", "O0"), ItemId(differ="fake-flag")]
    matrix, differ = case.expectations
    assert ItemId("cpu", "O0").covered_by(matrix) and not ItemId("cpu", "O0").covered_by(differ)
    assert ItemId(differ="fake-flag").covered_by(differ) and not ItemId(differ="fake-flag").covered_by(matrix)


@pytest.mark.parametrize("differ, kind, field, message", [
    (_differ([]), "numeric", "differ[0].b", "the two sides compile the same way"),
    (_differ(), "compile", "differ[0].name", "runs the module"),
    ({**_differ(), "b": {"target": "tpu"}}, "numeric", "differ[0].b.target", "unknown target"),
    ({**_differ(), "colour": 1}, "numeric", "differ[0].colour", "unknown field"),
    (_differ(["--pass-plugin=/tmp/x.so"]), "numeric", "differ[0].b.flags", "pass-plugin"),
])
def test_bad_differ_tables_name_the_file_and_field(tmp_path, differ, kind, field, message):
    case_dir = numeric_case(tmp_path, "bad", differ=[differ])
    text = (case_dir / "case.toml").read_text().replace('kind = "numeric"', f'kind = "{kind}"')
    (case_dir / "case.toml").write_text(text)
    with pytest.raises(CaseError, match=re.escape(f"case.toml: field '{field}'") + ".*" + re.escape(message)):
        load_case(case_dir / "case.toml")


def test_a_run_case_must_say_how_many_outputs_to_compare(tmp_path):
    case_dir = write_case(tmp_path, "run-no-count", {
        "title": "t", "kind": "run", "issues": ["iree-org/iree#1"], "source": {"mlir": "model.mlir"},
        "matrix": {"targets": ["cpu"], "opt_levels": ["O0"]}, "differ": [_differ()]}, {"model.mlir": "// x\n"})
    with pytest.raises(CaseError, match=r"field 'differ\[0\].outputs'.*required when the case has no golden"):
        load_case(case_dir / "case.toml")


def test_the_plugin_runs_and_records_a_differential_item(tmp_path, fake_tools):
    """Collected as CASE::differ-NAME beside the matrix, marked `differ`, recorded with its name."""
    cases = tmp_path / "cases"
    numeric_case(cases, "plugin-differ", differ=[_differ()])
    reports = tmp_path / "reports"
    proc = run_pytest_subprocess(tmp_path, [str(cases), *plugin_args(fake_tools, tmp_path / "cache", reports),
                                            "-m", "differ"])
    _, items = results_by_item(reports)
    assert set(items) == {"plugin-differ::differ-fake-flag"}, proc.stdout
    record = items["plugin-differ::differ-fake-flag"]
    assert record["outcome"] == "differ-fail" and record["verdict"] == "FAIL" and record["differ"] == "fake-flag"


def test_an_mlir_differential_items_reproducer_is_both_compiles_and_runs(tmp_path, fake_tools):
    case, result = _run(numeric_case(tmp_path, "repro-line", differ=[_differ()]), fake_tools, tmp_path)
    line = result.reproducer()
    assert line.count("iree-compile ") == 2 and line.count("iree-run-module ") == 2
    assert "-o module-a.vmfb" in line and "--module=module-b.vmfb" in line and "--output=@b-out0.npy" in line
    assert "iree-regress triage repro-line::differ-fake-flag" in line


def test_the_report_shows_a_differential_item_beside_the_ir_checks(tmp_path, fake_tools):
    import json

    from harness.report.summary import build

    case, result = _run(numeric_case(tmp_path, "reported", differ=[_differ()]), fake_tools, tmp_path)
    results = tmp_path / "results.jsonl"
    results.write_text(json.dumps(result.record(verdict(result, None)).as_dict(), default=str) + "\n")
    model = build(results)
    (row,) = model.rows
    assert [i.item for i in row.named_cells] == ["differ-fake-flag"] and not row.cells and model.has_named


def test_triage_compiles_the_side_whose_outputs_moved_b_first(tmp_path):
    """A differential item is triaged across releases on one side's compile: b (the
    compile with the flag) first, then a; its target, level and flags are that side's."""
    from harness.triage.flow import Triage

    differ = _differ(a={"opt_level": "O1"}, b={"target": "vulkan", "flags": WRONG})
    case = load_case(numeric_case(tmp_path, "triaged", differ=[differ]) / "case.toml")
    t = Triage(case, ItemId(differ="fake-flag"), bug=None)
    assert t.configuration == ("vulkan", "O0", tuple(WRONG)) and t.target == "vulkan"
    t.side = "a"
    assert t.configuration == ("cpu", "O1", ())
    assert Triage(case, ItemId("cpu", "O0"), bug=None).configuration == ("cpu", "O0", ())


@pytest.mark.parametrize("failing, said", [
    ({"o0-vs-o3", "o3-vs-vulkan"}, "cpu-O3 is the odd one out (cpu-O0 and vulkan-O0 agree)"),
    ({"cpu-vs-vulkan", "o3-vs-vulkan"}, "vulkan-O0 is the odd one out (cpu-O0 and cpu-O3 agree)"),
    ({"o0-vs-o3", "cpu-vs-vulkan", "o3-vs-vulkan"}, "no side decidable: 3 of 3 pairs disagree"),
    ({"o0-vs-o3"}, "no side decidable: 1 of 3 pairs disagree (cpu-O0 vs cpu-O3)"),
    (set(), None),
])
def test_a_split_among_three_compiles_is_blamed_on_the_odd_one_only_when_the_majority_says_so(failing, said):
    """Three configurations compared pairwise: the one in both failing pairs, whose
    absence leaves a pair that agrees, is named; every other pattern names no side."""
    from harness.record import StageResult as Stage
    from harness.record import ItemRecord as Record
    from harness.report.majority import blame

    pairs = {"o0-vs-o3": ("cpu-O0", "cpu-O3"), "cpu-vs-vulkan": ("cpu-O0", "vulkan-O0"),
             "o3-vs-vulkan": ("cpu-O3", "vulkan-O0")}
    records = []
    for name, (a, b) in pairs.items():
        bad = name in failing
        detail = f"a ({a}) vs b ({b})" + (": b vs side a: output 0: 3/8 elements differ" if bad else " agree within")
        records.append(Record(case="iree-lit-differ::test=x", item=f"differ-{name}", differ=name,
                              outcome="differ-fail" if bad else "pass", verdict="FAIL" if bad else "PASS",
                              stages=[Stage("differ", "fail" if bad else "ok", detail, data={"sides": [a, b]})]))
    got = blame(records).get("iree-lit-differ::test=x")
    assert (got is None) if said is None else got.startswith(said), got
