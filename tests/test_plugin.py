"""The pytest plugin's selection options, release-dependent behaviour and verdicts."""

from __future__ import annotations

import pytest
from packaging.version import Version

from harness.case import load_case
from harness.runner import FAIL, PASS, SKIP, XFAIL, XPASS, ItemResult, verdict
from harness.stages import StageResult
from helpers import (compile_case, compile_manifest, make_toolchain, mlir_text, plugin_args,
                     results_by_item, write_case)

pytestmark = pytest.mark.harness


def run(pytester, tools, *args):
    reports = pytester.path / "reports"
    result = pytester.runpytest(*plugin_args(tools, pytester.path / "cache", reports), *args)
    items = results_by_item(reports)[1] if (reports / "results.jsonl").exists() else {}
    return result, items


def test_target_and_level_selection_and_markers(pytester, fake_tools):
    compile_case(pytester.path / "cases", "a", matrix={"targets": ["cpu", "vulkan", "hip"],
                                                       "opt_levels": ["O0", "O3"]})
    result = pytester.runpytest(*plugin_args(fake_tools, pytester.path / "cache",
                                             pytester.path / "r"), "cases", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["*cases/a/case.toml::cpu-O0", "*cases/a/case.toml::cpu-O3",
                                 "*cases/a/case.toml::vulkan-O0", "*cases/a/case.toml::hip-O3",
                                 "6 tests collected*"])
    result, items = run(pytester, fake_tools, "cases", "--target", "cpu,hip", "--opt-level", "O3")
    assert set(items) == {"a::cpu-O3", "a::hip-O3"}
    result, items = run(pytester, fake_tools, "cases", "-m", "vulkan and O0")
    assert set(items) == {"a::vulkan-O0"}
    result.assert_outcomes(passed=1, deselected=5)


def test_collect_only_keeps_the_previous_results(pytester, fake_tools):
    compile_case(pytester.path / "cases", "a")
    result, items = run(pytester, fake_tools, "cases")
    assert set(items) == {"a::cpu-O0"}
    run(pytester, fake_tools, "cases", "--collect-only")
    assert set(results_by_item(pytester.path / "reports")[1]) == {"a::cpu-O0"}


def test_unknown_target_option_is_a_usage_error(pytester, fake_tools):
    compile_case(pytester.path / "cases", "a")
    result = pytester.runpytest(*plugin_args(fake_tools, pytester.path / "cache",
                                             pytester.path / "r"), "cases", "--target", "tpu")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "unknown ['tpu']" in result.stderr.str()


def test_tools_dir_without_tools_is_a_usage_error(pytester, tmp_path):
    compile_case(pytester.path / "cases", "a")
    (tmp_path / "empty").mkdir()
    result = pytester.runpytest(*plugin_args(tmp_path / "empty", pytester.path / "cache",
                                             pytester.path / "r"), "cases")
    assert result.ret != pytest.ExitCode.OK
    assert "lacks iree-compile, iree-opt, iree-run-module" in result.stdout.str() + result.stderr.str()


def test_older_release_uses_its_variant_flags_and_expectations(pytester, tmp_path):
    """A 3.11 compiler gets model.pre-3.12.mlir, --iree-hip-target, and the <3.12 [[expect]]."""
    tools = make_toolchain(tmp_path / "tools-3.11", version="3.11.0rc20260316")
    m = compile_manifest(matrix={"targets": ["hip"], "opt_levels": ["O0"]},
                         expect=[{"compiler": ">=3.12", "outcome": "compile-fail",
                                  "reason": "newer releases only"},
                                 {"compiler": "<3.12", "outcome": "compile-crash",
                                  "reason": "iree-org/iree#5: crashes before 3.12"}])
    m["source"]["variant"] = [{"compiler": "<3.12", "mlir": "model.pre-3.12.mlir"}]
    write_case(pytester.path / "cases", "old", m,
               {"model.mlir": mlir_text("old", "ok"),
                "model.pre-3.12.mlir": mlir_text("old-variant", "segfault")})
    result, items = run(pytester, tools, "cases")
    result.assert_outcomes(xfailed=1)
    record = items["old::hip-O0"]
    assert record["compiler"] == "3.11.0rc20260316"
    assert record["outcome"] == "compile-crash" and record["verdict"] == "XFAIL"
    command = next(s["command"] for s in record["stages"] if s["stage"] == "compile")
    assert "model.pre-3.12.mlir" in command
    assert "--iree-hip-target=gfx942" in command and "--iree-rocm-target" not in command
    assert "--iree-opt-level=O0" in command


def test_pre_3_3_release_gets_no_opt_level_flag(pytester, tmp_path):
    tools = make_toolchain(tmp_path / "tools-3.2", version="3.2.0rc20250206")
    compile_case(pytester.path / "cases", "a", matrix={"targets": ["cpu"], "opt_levels": ["O3"]})
    result, items = run(pytester, tools, "cases")
    result.assert_outcomes(passed=1)
    command = next(s["command"] for s in items["a::cpu-O3"]["stages"] if s["stage"] == "compile")
    assert "--iree-opt-level" not in command and "--iree-llvmcpu-target-cpu=host" in command


def test_a_release_without_levels_gives_one_verdict_per_target_not_four(pytester, tmp_path):
    """Before 3.3.0 O0-O3 are one compile: the first level's item is it (level "default"),
    the others skip naming it; a release with levels runs each."""
    tools = make_toolchain(tmp_path / "tools-3.2", version="3.2.0rc20250206")
    compile_case(pytester.path / "cases", "a", matrix={"targets": ["cpu"], "opt_levels": ["O0", "O1", "O3"]})
    result, items = run(pytester, tools, "cases")
    result.assert_outcomes(passed=1, skipped=2)
    assert items["a::cpu-O0"]["level"] == "default" and items["a::cpu-O0"]["outcome"] == "pass"
    for name in ("a::cpu-O1", "a::cpu-O3"):
        said = items[name]["stages"][0]["detail"]
        assert items[name]["outcome"] == "skip" and "one compile with cpu-O0" in said and "3.3.0" in said
    result, items = run(pytester, make_toolchain(tmp_path / "tools-3.3", version="3.3.0rc20250320"), "cases")
    result.assert_outcomes(passed=3)
    assert items["a::cpu-O3"]["level"] == ""


# --------------------------------------------------------------------------- verdicts

@pytest.fixture
def case(tmp_path):
    d = compile_case(tmp_path, "v", expect=[{"outcome": "compile-fail", "match": "bufferize",
                                            "reason": "iree-org/iree#7"}])
    return load_case(d / "case.toml")


def item(case, *stages):
    r = ItemResult(case, "cpu-O0", "cpu", "O0", None, "3.13.0")
    r.stages.extend(stages)
    return r


OK_IMPORT = StageResult("import", "ok", "mlir input model.mlir")


def test_verdict_table(case):
    e = case.expectations[0]
    passing = item(case, OK_IMPORT, StageResult("compile", "ok"))
    failing = item(case, OK_IMPORT, StageResult("compile", "fail", "exit code 1: error: x",
                                                "failed to bufferize op"))
    other = item(case, OK_IMPORT, StageResult("compile", "crash", "crashed (SIGSEGV)"))
    unmatched = item(case, OK_IMPORT, StageResult("compile", "fail", "exit code 1: error: y"))
    assert verdict(passing, None).kind == PASS
    assert verdict(failing, None).kind == FAIL
    assert verdict(failing, None).message == "compile-fail: exit code 1: error: x"
    assert verdict(failing, e).kind == XFAIL  # match found in the log
    assert verdict(passing, e).kind == XPASS
    assert verdict(other, e).kind == FAIL
    assert verdict(unmatched, e).kind == FAIL
    assert "matching /bufferize/" in verdict(unmatched, e).message


def test_outcome_is_the_first_bad_stage_and_skips_are_not_failures(case):
    r = item(case, OK_IMPORT, StageResult("compile", "ok"), StageResult("run", "skip", "no dev"))
    assert r.outcome == "pass" and r.compile_only
    v = verdict(r, None)
    assert v.kind == PASS and v.message == "no dev"
    r = item(case, StageResult("ir", "skip", "for other compilers"))
    assert r.outcome == "skip" and verdict(r, None).kind == SKIP
    r = item(case, OK_IMPORT, StageResult("compile", "timeout"), StageResult("run", "crash"))
    assert r.outcome == "compile-timeout"


def test_expectation_applies_by_release(case, tmp_path):
    d = compile_case(tmp_path, "w", expect=[{"compiler": ">=3.4,<3.6", "outcome": "run-fail",
                                            "reason": "r", "targets": ["cpu"]}])
    c = load_case(d / "case.toml")
    assert c.expectation_for("cpu", "O0", None, Version("3.5.0")) is not None
    assert c.expectation_for("cpu", "O0", None, Version("3.6.0")) is None
    assert c.expectation_for("vulkan", "O0", None, Version("3.5.0")) is None


def test_xdist_run_writes_results_into_a_new_reports_folder(pytester, fake_tools):
    """Under xdist the controller collects no items; results.jsonl must still be started
    (with its environment header) and every worker's items appended to it."""
    compile_case(pytester.path / "cases", "a", matrix={"targets": ["cpu", "vulkan"],
                                                       "opt_levels": ["O0", "O3"]})
    reports = pytester.path / "fresh" / "reports"  # does not exist yet
    result = pytester.runpytest_subprocess(*plugin_args(fake_tools, pytester.path / "cache", reports),
                                           "cases", "-n", "2")
    result.assert_outcomes(passed=4)
    header, items = results_by_item(reports)
    assert header["environment"]["compiler_version"] and len(items) == 4


def test_an_items_ref_is_read_back_from_a_nodeid_that_xdist_grouped():
    """With -n the plugin groups a program's items (loadgroup), and xdist appends
    `@<group>` to their node ids: a worker crash is still recorded on the right item."""
    from harness.record import ItemRef

    assert ItemRef.of_nodeid("cases/a-b/case.toml::cpu-O0@a-b") == ItemRef("a-b", "cpu-O0")
    assert ItemRef.of_nodeid("cases/a-b/case.toml::differ-x@a-b") == ItemRef("a-b", "differ-x")
    assert ItemRef.of_nodeid("sweeps/t.toml::flags=a,seed=1::cpu-O3@t/flags=a,seed=1") == \
        ItemRef("t::flags=a,seed=1", "cpu-O3")
    assert ItemRef.of_nodeid("cases/a-b/case.toml::cpu-O0") == ItemRef("a-b", "cpu-O0")
