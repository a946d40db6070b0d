"""`expect --update`: expectations rewritten from a run, so the same release reruns clean."""

from __future__ import annotations

import pytest
from packaging.version import Version

from harness.case import load_case
from harness.cli import main as cli_main
from helpers import compile_case, plugin_args, results_by_item

pytestmark = pytest.mark.harness


def test_update_then_rerun_gives_no_fail_or_xpass(pytester, fake_tools, capsys, monkeypatch):
    cases = pytester.path / "cases"
    # A new failure nobody expects yet.
    compile_case(cases, "newly-broken", fake="error", matrix={"targets": ["cpu"], "opt_levels": ["O0", "O3"]})
    # A known bug that stopped failing on cpu; vulkan is not run here and keeps its expectation.
    fixed = compile_case(cases, "fixed-on-cpu", matrix={"targets": ["cpu", "vulkan"], "opt_levels": ["O0", "O3"]},
                         expect=[{"targets": ["cpu", "vulkan"], "compiler": ">=3.0", "outcome": "compile-fail",
                                  "match": "went wrong", "reason": "iree-org/iree#1"}])
    manifest = fixed / "case.toml"
    manifest.write_text("# kept: a comment above everything\n" + manifest.read_text())

    def run(reports):
        pytester.runpytest(*plugin_args(fake_tools, pytester.path / "cache", pytester.path / reports),
                                    "cases", "--target", "cpu")
        return {k: r["verdict"] for k, r in results_by_item(pytester.path / reports)[1].items()}

    before = run("r1")
    assert before == {"newly-broken::cpu-O0": "FAIL", "newly-broken::cpu-O3": "FAIL",
                      "fixed-on-cpu::cpu-O0": "XPASS", "fixed-on-cpu::cpu-O3": "XPASS"}
    monkeypatch.chdir(pytester.path)
    results = str(pytester.path / "r1" / "results.jsonl")
    assert cli_main(["expect", "--update", "--from", results]) == 0  # shows, writes nothing
    assert "would change" in capsys.readouterr().out
    assert "[[expect]]" not in (cases / "newly-broken" / "case.toml").read_text()
    assert cli_main(["expect", "--update", "--from", results, "--write"]) == 0
    out = capsys.readouterr().out
    assert "+[[expect]]" in out and "rewritten" in out
    # The report of the first run names the command, for each case that needs it.
    assert cli_main(["report", results, "--out", str(pytester.path / "rep")]) == 0
    summary = (pytester.path / "rep" / "summary.md").read_text()
    assert f"iree-regress expect --update fixed-on-cpu --from {results} --write" in summary
    assert f"iree-regress expect --update newly-broken --from {results} --write" in summary

    after = run("r2")
    assert set(after.values()) <= {"PASS", "XFAIL"}, after
    assert after["newly-broken::cpu-O0"] == "XFAIL" and after["fixed-on-cpu::cpu-O0"] == "PASS"
    text = manifest.read_text()
    assert text.startswith("# kept: a comment above everything")
    case = load_case(manifest, require_golden=False)
    vulkan = case.expectation_for("vulkan", "O0", None, Version("3.13.0"))
    assert vulkan is not None and vulkan.outcome == "compile-fail"  # not measured: still expected
    assert case.expectation_for("cpu", "O0", None, Version("3.12.0"))  # older releases: as before
    assert case.expectation_for("cpu", "O0", None, Version("3.13.0")) is None
    new = load_case(cases / "newly-broken" / "case.toml", require_golden=False).expectations[0]
    assert new.match is not None and new.match.search("error: something went wrong in the fake compiler")
