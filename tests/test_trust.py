"""No silent green: planted faults that must turn a run red (fake tools, crafted cases).

Each test plants one way a green run could lie and checks that the run, the results
and the gate say so: a golden perturbed past the tolerance, a known bug's message
changed, a case deleted or unloadable, a worker killed mid-item, --runxfail on a known
bug, an IR check of another target under --target, and a lint that rejects loose
expectations, naming file and field.
"""


import numpy as np
import pytest

from harness.cli import main as cli_main
from harness.lint import lint_case
from helpers import (IDENTITY_INPUT, compile_case, numeric_case, plugin_args, processes_mentioning,
                     results_by_item, run_pytest_subprocess, to_toml, write_case)

# The "bug": the fake module adds one to every element (run mode "wrong").
KNOWN_WRONG_NUMBERS = {"targets": ["cpu"], "compiler": ">=3.0", "outcome": "compare-fail",
                       "match": "output 0: 6/6 elements differ[^;]*; max abs err 1,",
                       "reason": "a bug: every element off by one"}

# The fake releases and windows here straddle 3.3.0; their subject is trust, not levels.
pytestmark = pytest.mark.usefixtures("levels_everywhere")


def run(pytester, fake_tools, *args):
    reports = pytester.path / "reports"
    result = pytester.runpytest(*plugin_args(fake_tools, pytester.path / "cache", reports), *args)
    return result, reports


def known_wrong_numbers_case(root, slug="bug-case"):
    return numeric_case(root, slug, run="wrong", expect=[KNOWN_WRONG_NUMBERS])


def test_a_known_wrong_numbers_bug_xfails_and_a_perturbed_golden_fails(pytester, fake_tools):
    """The eager comparison still reproduces the known bug exactly, but the golden moved
    past the tolerance: the golden itself is wrong, and no expectation may hide that."""
    d = known_wrong_numbers_case(pytester.path / "cases")
    result, reports = run(pytester, fake_tools, "cases")
    result.assert_outcomes(xfailed=1)
    np.save(d / "expected" / "output0.npy", IDENTITY_INPUT + 100)
    result, reports = run(pytester, fake_tools, "cases")
    result.assert_outcomes(failed=1)
    _, items = results_by_item(reports)
    assert items["bug-case::cpu-O0"]["verdict"] == "FAIL"
    assert "golden outputs no longer match PyTorch eager" in items["bug-case::cpu-O0"]["message"]


def test_the_known_bug_with_other_numbers_fails(pytester, fake_tools):
    """Same outcome, other numbers (a new miscompile on top of the old one): not the bug."""
    numeric_case(pytester.path / "cases", "bug-case", run="wrong", expect=[
        dict(KNOWN_WRONG_NUMBERS, match="output 0: 3/6 elements differ")])
    result, _ = run(pytester, fake_tools, "cases")
    result.assert_outcomes(failed=1)


def test_a_known_bug_failing_with_another_message_fails(pytester, fake_tools):
    compile_case(pytester.path / "cases", "crashy", "error", expect=[
        {"targets": ["cpu"], "compiler": ">=3.0", "outcome": "compile-fail",
         "match": "failed to bufferize", "reason": "the known bug"}])
    result, reports = run(pytester, fake_tools, "cases")
    result.assert_outcomes(failed=1)
    assert "but the case expects compile-fail matching /failed to bufferize/" in result.stdout.str()


def test_runxfail_reports_a_known_bug_as_failed_never_passed(pytester, fake_tools):
    known_wrong_numbers_case(pytester.path / "cases")
    result, _ = run(pytester, fake_tools, "cases", "--runxfail")
    result.assert_outcomes(failed=1)
    assert "known bug (--runxfail)" in result.stdout.str()


def test_target_option_filters_ir_checks_by_the_target_they_compile_for(pytester, fake_tools):
    d = compile_case(pytester.path / "cases", "irs", ir=[
        {"name": "on-vulkan", "tool": "iree-compile", "checks": "checks.mlir",
         "args": ["--iree-hal-target-device=vulkan", "--compile-to=executable-targets"]},
        {"name": "on-cpu", "tool": "iree-compile", "checks": "checks.mlir",
         "args": ["--iree-hal-local-target-device-backends=llvm-cpu", "--compile-to=flow"]},
        {"name": "any-target", "checks": "checks.mlir", "args": ["--canonicalize"]}])
    (d / "checks.mlir").write_text("// CHECK: produced-by\n")
    result, _ = run(pytester, fake_tools, "cases", "--target", "cpu", "--collect-only", "-q")
    out = result.stdout.str()
    assert "irs/case.toml::cpu-O0" in out and "::ir-on-cpu" in out and "::ir-any-target" in out
    assert "ir-on-vulkan" not in out


def test_a_deleted_or_unloadable_case_fails_the_gate(pytester, fake_tools, tmp_path):
    cases = pytester.path / "cases"
    compile_case(cases, "stays")
    gone = compile_case(cases, "goes")
    _, reports = run(pytester, fake_tools, "cases")
    before = tmp_path / "before.jsonl"
    before.write_text((reports / "results.jsonl").read_text())
    for plant in ("unloadable", "deleted"):
        if plant == "unloadable":
            (gone / "case.toml").write_text((gone / "case.toml").read_text().replace('kind = "compile"', 'kind = "nope"'))
        else:
            import shutil
            shutil.rmtree(gone)
        _, reports = run(pytester, fake_tools, "cases")
        code = cli_main(["report", str(reports / "results.jsonl"), "--previous", str(before),
                         "--out", str(tmp_path / plant), "--fail-on-regression"])
        assert code == 1, plant
        summary = (tmp_path / plant / "summary.md").read_text()
        assert "vanished: goes::cpu-O0" in summary
        if plant == "unloadable":
            assert "error: goes::(collect) (collect-error)" in summary


def test_a_worker_killed_mid_item_leaves_a_result_for_that_item(tmp_path, fake_tools):
    cases = tmp_path / "cases"
    compile_case(cases, "killer", "kill-worker")
    compile_case(cases, "fine")
    reports = tmp_path / "reports"
    # --no-sandbox: the fake compile kills its parent, which in the tools' sandbox is the
    # sandbox's own init, never the worker (a worker's death is what this test needs).
    result = run_pytest_subprocess(tmp_path, [*plugin_args(fake_tools, tmp_path / "cache", reports),
                                              "-n", "2", "--no-sandbox", "cases"], timeout=180)
    assert result.ret != 0
    _, items = results_by_item(reports)
    assert items["fine::cpu-O0"]["verdict"] == "PASS"
    crashed = items["killer::cpu-O0"]
    assert (crashed["outcome"], crashed["verdict"]) == ("worker-crash", "ERROR")
    assert "during the compile stage" in crashed["message"]
    # The dead worker's compile (still hanging) was killed, not orphaned.
    assert processes_mentioning(str(cases)) == []


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_no_process_of_a_run_outlives_it(tmp_path, fake_tools, workers):
    """A tool's child that escaped its process group (setsid) is killed when the tool ends."""
    cases = tmp_path / "cases"
    compile_case(cases, "leaky", "leak")
    reports = tmp_path / "reports"
    result = run_pytest_subprocess(tmp_path, [*plugin_args(fake_tools, tmp_path / "cache", reports),
                                              *workers, "cases"], timeout=120)
    assert result.ret == 0
    assert processes_mentioning(str(cases)) == []


# ------------------------------------------------------------------------------- lint

LINT_BASE = {"title": "t", "kind": "compile", "issues": ["iree-org/iree#1"],
             "source": {"mlir": "model.mlir"}, "matrix": {"targets": ["cpu"], "opt_levels": ["O0"]},
             "expect": [{"targets": ["cpu"], "compiler": ">=3.3,<=3.4.0", "outcome": "compile-fail",
                         "match": "failed to bufferize", "reason": "the bug"}],
             "history": {"bad_outcome": "compile-fail", "bad_match": "failed to bufferize",
                         "window": [{"last_good": "3.2.0", "first_bad": "3.3.0", "last_bad": "3.4.0",
                                     "first_good": "3.5.0"}]}}


def lint(tmp_path, mutate=None, failures=()):
    import copy

    m = copy.deepcopy(LINT_BASE)
    if mutate:
        mutate(m)
    d = write_case(tmp_path / "cases", "linted", m, {"model.mlir": "func.func @main() { return }\n"})
    return [str(p) for p in lint_case(d / "case.toml", list(failures))]


def test_lint_passes_a_precise_case(tmp_path):
    assert lint(tmp_path) == []


def _other_failure(text):
    from harness.record import ItemRecord, StageResult

    return ItemRecord(case="other-case", item="cpu-O3", outcome="compile-fail", verdict="XFAIL",
                      stages=[StageResult("compile", "fail", text)])


@pytest.mark.parametrize("name,mutate,field,text", [
    ("expect without match", lambda m: m["expect"][0].pop("match"), "expect[0].match", "missing"),
    ("atol 1e9", lambda m: m.update(compare={"atol": 1e9}), "compare.atol", "tolerance_reason"),
    ("atol -1", lambda m: m.update(compare={"atol": -1.0}), "compare.atol", "finite number >= 0"),
    ("expect on the fixed release", lambda m: m["expect"][0].update(compiler=">=3.3"), "expect[0]",
     "at 3.5.0, where history.window[0] says it does not show"),
    ("window without an expect", lambda m: m["expect"][0].update(compiler=">=3.4,<=3.4.0"),
     "history.window[0]", "says the bug shows on 3.3.0"),
    ("expect of another outcome in the window",
     lambda m: m["expect"].insert(0, {"targets": ["cpu"], "compiler": "==3.3.0", "outcome": "compile-crash",
                                      "match": "SIGSEGV", "reason": "x"}),
     "expect[0]", "expects compile-crash on cpu-O0 at 3.3.0"),
    ("path out of the case", lambda m: m["source"].update(mlir="../../secret.mlir"), "source.mlir",
     "outside"),
    ("unscoped expect", lambda m: (m["expect"][0].pop("compiler"), m["expect"][0].pop("targets")),
     "expect[0].compiler", "missing"),
    ("no history", lambda m: (m.pop("history"), m.pop("expect")), "history", "nothing measured"),
    ("a guard without a reason", lambda m: (m.update(history={"status": "guard"}), m.pop("expect")),
     "history.reason", "a guard says why"),
])
def test_lint_rejects_naming_file_and_field(tmp_path, name, mutate, field, text):
    problems = lint(tmp_path, mutate)
    assert any(f"linted/case.toml: field '{field}'" in p and text in p for p in problems), problems


def _second_window(issue=""):
    def mutate(m):
        m["history"]["window"].append({"last_good": "3.6.0", "first_bad": "3.7.0", "last_bad": "3.8.0",
                                       "first_good": "3.9.0", **({"issue": issue} if issue else {})})
        m["expect"].append({"targets": ["cpu"], "compiler": ">=3.7,<=3.8.0", "outcome": "compile-fail",
                            "match": "failed to bufferize", "reason": "the bug again"})
    return mutate


def test_a_later_window_is_credited_to_its_own_issue(tmp_path):
    """A bug fixed and broken again by another change: its second window is never the
    first window's issue; lint asks until one is given."""
    problems = lint(tmp_path, _second_window())
    assert any("history.window[1].issue" in p and "never to the first window's" in p for p in problems), problems
    assert lint(tmp_path, _second_window("iree-org/iree#77")) == []


def test_the_scan_credits_each_window_its_own_issue():
    from types import SimpleNamespace

    from harness.case import History, Window
    from harness.commands.history import credited
    from harness.history.writeback import _reason

    case = SimpleNamespace(threads=("iree-org/iree#1",), found_by="",
                           history=History("fixed", (Window("3.3.0", "3.4.0"), Window("3.7.0", "3.8.0", issue="iree-org/iree#77"))))
    found = (Window("3.3.0", "3.4.0", "3.2.0", "3.5.0"), Window("3.7.0", "3.9.0", "3.6.0", "3.10.0"))
    kept = credited(case, found, [])
    assert [w.issue for w in kept] == ["", "iree-org/iree#77"]  # a rescan keeps what a person said
    assert [w.issue for w in credited(case, found, ["0=iree-org/iree#5"])] == ["iree-org/iree#5", "iree-org/iree#77"]
    assert _reason(case, kept[0], 0, "3.3.0", "3.4.0", False).startswith("iree-org/iree#1:")
    assert _reason(case, found[1], 1, "3.7.0", "3.9.0", False).startswith("not credited yet:")  # never the first window's
    assert _reason(case, kept[1], 1, "3.7.0", "3.8.0", False).startswith("iree-org/iree#77:")


def test_a_guard_that_says_why_passes_lint(tmp_path):
    def guard(m):
        m["history"] = {"status": "guard", "reason": "the all-static form, measured passing on 3.0-3.13"}
        m.pop("expect")
    assert lint(tmp_path, guard) == []


def test_lint_rejects_a_generic_match(tmp_path):
    generic = _other_failure("error: failed to bufferize op in another case")
    problems = lint(tmp_path, failures=[generic])
    assert any("field 'expect[0].match'" in p and "generic" in p and "other-case::cpu-O3" in p
               for p in problems), problems
    specific = _other_failure("error: failed to legalize operation 'foo'")
    assert lint(tmp_path, failures=[specific]) == []
    # Another outcome with the same words is nothing the expectation would take (a compile
    # crash is never a compile-fail expectation's): not generic.
    import dataclasses

    crash = dataclasses.replace(generic, outcome="compile-crash")
    assert lint(tmp_path, failures=[crash]) == []


def _stored(slug, outcome, text, item="cpu-O0"):
    from harness.case import Sample
    from harness.lint import StoredFailure

    return StoredFailure(slug, 0, Sample(outcome, item, "3.4.0", text))


def test_lint_tests_matches_against_other_cases_stored_failures_with_no_results(tmp_path):
    """A crash match of the signal alone takes another case's stored crash for this bug:
    refused from the windows' samples, whatever the results file holds."""
    def crash(m):
        m["expect"][0].update(outcome="compile-crash", match=r"crashed \(SIGSEGV\)")
        m["history"].update(bad_outcome="compile-crash", bad_match=r"crashed \(SIGSEGV\)")
        m["history"]["window"][0]["sample"] = {"outcome": "compile-crash", "item": "cpu-O0", "release": "3.3.0",
                                               "text": "crashed (SIGSEGV): at mlir::Foo::bar()"}
    import copy
    m = copy.deepcopy(LINT_BASE)
    crash(m)
    d = write_case(tmp_path / "cases", "linted", m, {"model.mlir": "func.func @main() { return }\n"})
    other = _stored("other-case", "compile-crash", "crashed (SIGSEGV): at mlir::Baz::qux()")
    problems = [str(p) for p in lint_case(d / "case.toml", [], None, [other])]
    assert any("field 'expect[0].match'" in p and "generic" in p and "other-case" in p for p in problems), problems
    assert any("field 'history.bad_match'" in p and "other-case" in p for p in problems), problems
    # its own stored failure is not another bug; one of another outcome or target is not taken
    assert lint_case(d / "case.toml", [], None, [_stored("linted", "compile-crash", "crashed (SIGSEGV): at x")]) == []
    assert lint_case(d / "case.toml", [], None, [_stored("o", "run-crash", "crashed (SIGSEGV): at x")]) == []
    assert lint_case(d / "case.toml", [], None, [_stored("o", "compile-crash", "crashed (SIGSEGV): x",
                                                         item="vulkan-O0")]) == []
    # a crash that printed its signal alone: no match can be narrower, the entries' scopes tell them apart
    assert lint_case(d / "case.toml", [], None, [_stored("o", "compile-crash", "crashed (SIGSEGV)")]) == []
    # same_as: the other case's failure is declared to be this bug
    m["expect"][0]["same_as"] = "other-case"
    d = write_case(tmp_path / "cases2", "linted", m, {"model.mlir": "func.func @main() { return }\n"})
    problems = [str(p) for p in lint_case(d / "case.toml", [], None, [other])]
    assert not any("expect[0].match" in p for p in problems), problems
    # (the claim itself is checked too: here it names a case that is only a stored failure)
    assert any("expect[0].same_as" in p and "no case 'other-case'" in p for p in problems), problems


def test_lint_says_when_a_window_sample_is_not_the_bug(tmp_path):
    def mutate(m):
        m["history"]["window"][0]["sample"] = {"outcome": "compile-fail", "item": "cpu-O0", "release": "3.3.0",
                                               "text": "error: failed to legalize operation 'foo'"}
    problems = lint(tmp_path, mutate)
    assert any("field 'history.window[0].sample'" in p for p in problems), problems


@pytest.mark.parametrize("pattern, field", [
    (".*", "expect[0].match"), ("fail|", "expect[0].match"), ("error:", "expect[0].match"),
    ("compile-fail", "expect[0].match"), (".*", "history.bad_match"), ("crashed", "history.bad_match"),
])
def test_lint_refuses_a_match_that_accepts_anything_without_any_results(tmp_path, pattern, field):
    """A planted `bad_match = ".*"` (prove and bisect would take any failure for the bug)
    is refused with no results file to test it against."""
    def mutate(m):
        if field == "history.bad_match":
            m["history"]["bad_match"] = pattern
        else:
            m["expect"][0]["match"] = pattern
    problems = lint(tmp_path, mutate)
    assert any(f"field '{field}'" in p and ("empty string" in p or "bare outcome" in p) for p in problems), problems


def test_lint_command_exits_non_zero_and_names_the_field(tmp_path, monkeypatch, capsys):
    m = dict(LINT_BASE, expect=[{k: v for k, v in LINT_BASE["expect"][0].items() if k != "match"}])
    write_case(tmp_path / "cases", "linted", to_toml(m) + "\n", {"model.mlir": "func.func @main() { return }\n"})
    monkeypatch.chdir(tmp_path)
    assert cli_main(["lint", "--results", str(tmp_path / "none.jsonl")]) == 1
    assert "field 'expect[0].match': missing" in capsys.readouterr().out


def test_another_chip_joins_the_cases_of_its_family_only_when_asked(pytester, fake_tools):
    compile_case(pytester.path / "cases", "on-hip", matrix={"targets": ["hip"], "opt_levels": ["O0"]})
    compile_case(pytester.path / "cases", "on-cpu", matrix={"targets": ["cpu"], "opt_levels": ["O0"]})
    result, _ = run(pytester, fake_tools, "cases", "--collect-only", "-q")
    assert "hip-gfx1100" not in result.stdout.str()
    result, _ = run(pytester, fake_tools, "cases", "--target", "hip-gfx1100", "--collect-only", "-q")
    out = result.stdout.str()
    assert "on-hip/case.toml::hip-gfx1100-O0" in out and "on-cpu" not in out


def test_env_and_version_commands(fake_tools, capsys):
    from harness.cli import main as cli_main

    assert cli_main(["env", "--iree-tools-dir", str(fake_tools)]) == 0
    out = capsys.readouterr().out
    assert "IREE compiler   3.13.0rc20261016" in out and "host CPU" in out
    assert cli_main(["env", "--json", "--iree-tools-dir", str(fake_tools)]) == 0
    assert '"compiler_version": "3.13.0rc20261016"' in capsys.readouterr().out
    with pytest.raises(SystemExit) as done:
        cli_main(["--version"])
    assert done.value.code == 0 and "iree-regress" in capsys.readouterr().out


def test_an_exception_in_the_harness_leaves_a_result_and_fails_the_gate(pytester, fake_tools, monkeypatch):
    import harness.plugin

    def broken(*args, **kwargs):
        raise RuntimeError("planted: the runner broke")

    monkeypatch.setattr(harness.plugin, "run_item", broken)
    compile_case(pytester.path / "cases", "victim")
    result, reports = run(pytester, fake_tools, "cases")
    result.assert_outcomes(failed=1)
    _, items = results_by_item(reports)
    record = items["victim::cpu-O0"]
    assert (record["outcome"], record["verdict"]) == ("harness-error", "ERROR")
    assert "RuntimeError: planted: the runner broke" in record["message"]
    assert cli_main(["report", str(reports / "results.jsonl"), "--out", str(pytester.path / "r"),
                     "--fail-on-regression"]) == 1
