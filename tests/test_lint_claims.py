"""Claims lint could pass unchecked, planted: an explained entry naming another case, a
reason whose "measured A..B" is not its range. Each is caught (or said unchecked, never
passed) after the change; the plants are the ones an audit made by hand."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from harness.lint import lint_case, lint_explained
from harness.record import ItemRecord, StageResult
from helpers import compile_manifest, write_case

REPO = Path(__file__).resolve().parent.parent
RIGHT = 'case = "scatter-dynamic-unbounded-stack-alloca"'
PLANTED = 'case = "argsort-dynamic-unbounded-alloca"'  # the same outcome; its match still says aten.scatter


def _planted_explained(tmp_path: Path) -> Path:
    path = tmp_path / "scan.toml"
    text = (REPO / "sweeps" / "explained" / "scan.toml").read_text()
    assert RIGHT in text
    path.write_text(text.replace(RIGHT, PLANTED, 1))
    return path


def _argsort_failure() -> ItemRecord:
    text = ("exit code 1: model.mlir:5:10: error: 'memref.alloca' op expected no unbounded stack allocations\n"
            "    %0 = torch.aten.argsort %arg0, %int0, %false : !torch.vtensor<[?],f32>")
    return ItemRecord(case="argsort-dynamic-unbounded-alloca", item="cpu-O0", outcome="compile-fail", verdict="XFAIL",
                      target="cpu", opt_level="O0", compiler="3.4.0",
                      stages=[StageResult("compile", "fail", text)])


@pytest.mark.harness
def test_an_explained_case_that_is_another_bug_is_never_passed(tmp_path):
    path = _planted_explained(tmp_path)
    assert not [p for p in lint_explained(REPO / "sweeps" / "explained" / "scan.toml") if not p.unchecked]
    # Without results nothing can check it: said unchecked, never passed silently.
    said = [p for p in lint_explained(path) if "argsort-dynamic-unbounded-alloca" in p.message]
    assert said and all(p.unchecked for p in said)
    # With the named case's failures in the results, the plant is a problem.
    found = [p for p in lint_explained(path, failures=[_argsort_failure()])
             if "argsort-dynamic-unbounded-alloca" in p.message]
    assert found and not any(p.unchecked for p in found), found


@pytest.mark.harness
@pytest.mark.parametrize("compiler, reason, bad", [
    (">=3.4.0", "found by a sweep: measured 3.1.0..3.13.0, still open", True),  # the audit's hip entry
    (">=3.4.0", "found by a sweep: measured 3.4.0..3.13.0, still open", False),
    (">=2.9.0,<=3.6.0", "hidden (measured 3.2.0..3.6.0, and 2.9.0..3.1.0 once an op is removed)", False),
    (">=3.8.0,<=3.10.0", "measured 3.8.0..3.10.0; 3.3.0 to 3.7.0 compile it", False),
    (">=3.8.0,<=3.10.0", "measured 3.3.0..3.10.0", True),
])
def test_a_reason_whose_measured_range_is_not_its_scope_is_a_problem(tmp_path, compiler, reason, bad):
    expect = [{"targets": ["cpu"], "opt_levels": ["O0"], "compiler": compiler, "outcome": "compile-fail",
               "match": "failed to bufferize", "reason": reason}]
    manifest = write_case(tmp_path, "c", compile_manifest(expect=expect), {"model.mlir": "module {}\n"}) / "case.toml"
    said = [p for p in lint_case(manifest, []) if p.field == "expect[0].reason"]
    assert bool(said) == bad, said


@pytest.mark.harness
def test_a_failure_of_a_case_no_longer_in_the_tree_is_left_out_and_said():
    """A results file outlives a probe deleted since: its failure, the same program as a
    case, made the case's match read as generic (seen: a scatter_reduce probe against
    scatter-reduce-uint8-amin-amax-compares-signed). Such failures are left out; planted:
    with it kept, the case's expectation is called generic."""
    from harness.lint import of_the_tree

    slug = "scatter-reduce-uint8-amin-amax-compares-signed"
    probe = ItemRecord(case="zz-probe", item="cpu-O0", outcome="compare-fail", verdict="FAIL", target="cpu",
                       opt_level="O0", compiler="3.13.0",
                       stages=[StageResult("compare", "fail", "output 0: 22/32 elements differ (atol=0, rtol=0); "
                                                              "max abs err 221, max rel err 23")])
    manifest = REPO / "cases" / slug / "case.toml"
    assert any("is generic" in p.message for p in lint_case(manifest, [probe]))
    kept, gone = of_the_tree([probe], {slug})
    assert kept == [] and gone == [probe]
    assert not any("is generic" in p.message for p in lint_case(manifest, kept))
    assert of_the_tree([probe], {"zz-probe"}) == ([probe], [])
