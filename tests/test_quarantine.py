"""Flaky items (--retries) and quarantine.toml: visible, not gating until expiry."""

from __future__ import annotations

import datetime

import pytest

from harness.report import quarantine
from harness.report.summary import build
from helpers import numeric_case, plugin_args, results_by_item


TODAY = datetime.date(2026, 11, 23)


def write_quarantine(path, item="flip::cpu-O0", expires="2026-12-31"):
    path.write_text(f'[[quarantine]]\nitem = "{item}"\nreason = "lavapipe flips one run in five"\n'
                    f'issue = "iree-org/iree#1"\nexpires = {expires}\n')
    return path


def test_a_flaky_item_shows_both_outcomes_and_gates_unless_quarantined(pytester, fake_tools, monkeypatch, tmp_path):
    numeric_case(pytester.path / "cases", "flip", run="flaky")
    monkeypatch.setenv("IREE_REGRESS_FAKE_FLAKY_COUNTER", str(tmp_path / "runs"))
    reports = pytester.path / "reports"
    result = pytester.runpytest(*plugin_args(fake_tools, pytester.path / "cache", reports), "cases",
                                "--retries", "2")
    record = results_by_item(reports)[1]["flip::cpu-O0"]
    assert record["attempts"] == ["compare-fail", "pass", "pass"]
    assert "FLAKY: compare-fail then pass then pass" in result.stdout.str()

    model = build(reports / "results.jsonl", today=TODAY)
    assert model.gate_lines() == ["flaky: flip::cpu-O0 (compare-fail then pass then pass)"]
    held = quarantine.load(write_quarantine(tmp_path / "q.toml"))
    model = build(reports / "results.jsonl", quarantine=held, today=TODAY)
    assert model.gate_lines() == [] and "quarantined until 2026-12-31" in model.quarantined_lines()[0]
    expired = build(reports / "results.jsonl", quarantine=held, today=datetime.date(2026, 12, 31))
    assert expired.gate_lines() == ["flaky: flip::cpu-O0 (compare-fail then pass then pass) "
                                    "[quarantine expired 2026-12-31: iree-org/iree#1]"]


def test_without_retries_nothing_reruns(pytester, fake_tools, monkeypatch, tmp_path):
    numeric_case(pytester.path / "cases", "flip", run="flaky")
    monkeypatch.setenv("IREE_REGRESS_FAKE_FLAKY_COUNTER", str(tmp_path / "runs"))
    reports = pytester.path / "reports"
    pytester.runpytest(*plugin_args(fake_tools, pytester.path / "cache", reports), "cases")
    record = results_by_item(reports)[1]["flip::cpu-O0"]
    assert record["attempts"] == [] and record["verdict"] == "FAIL"


@pytest.mark.harness
def test_a_whole_case_can_be_quarantined(tmp_path):
    entry = quarantine.load(write_quarantine(tmp_path / "q.toml", item="flip"))[0]
    assert entry.covers("flip::cpu-O0") and entry.covers("flip::ir-x") and not entry.covers("flipper::cpu-O0")


@pytest.mark.parametrize("body, complaint", [
    ('[[quarantine]]\nitem = "a::cpu-O0"\nreason = "x"\nissue = "iree-org/iree#1"\n', r"missing field\(s\) expires"),
    ('[[quarantine]]\nitem = "a"\nreason = "x"\nissue = "#1"\nexpires = 2026-01-01\n', "field 'issue'"),
    ('[[quarantine]]\nitem = "a"\nreason = "x"\nissue = "o/r#1"\nexpires = "soon"\n', "field 'expires'"),
    ('[[quarantine]]\nitem = "a"\nreason = " "\nissue = "o/r#1"\nexpires = 2026-01-01\n', "field 'reason' is empty"),
    ('[[quarantine]]\nitem = "a"\nreason = "x"\nissue = "o/r#1"\nexpires = 2026-01-01\nowner = "me"\n', "unknown field"),
])
@pytest.mark.harness
def test_a_bad_quarantine_file_names_file_and_field(tmp_path, body, complaint):
    path = tmp_path / "quarantine.toml"
    path.write_text(body)
    with pytest.raises(quarantine.QuarantineError, match=complaint) as e:
        quarantine.load(path)
    assert str(path) in str(e.value)
