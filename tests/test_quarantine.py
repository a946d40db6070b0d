"""Flaky items (--retries) and quarantine.toml: visible, not gating until expiry."""

from __future__ import annotations

import datetime

import pytest

from harness.report import quarantine
from harness.report.summary import build
from helpers import numeric_case, plugin_args, results_by_item


TODAY = datetime.date(2026, 11, 23)


def write_quarantine(path, item="flip::cpu-O0", expires="2026-12-20", outcomes='["flaky"]', extra=""):
    path.write_text(f'[[quarantine]]\nitem = "{item}"\noutcomes = {outcomes}\nreason = "lavapipe flips one run in five"\n'
                    f'issue = "iree-org/iree#1"\nexpires = {expires}\n{extra}')
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
    held = quarantine.load(write_quarantine(tmp_path / "q.toml"), today=TODAY)
    model = build(reports / "results.jsonl", quarantine=held, today=TODAY)
    assert model.gate_lines() == [] and "quarantined until 2026-12-20" in model.quarantined_lines()[0]
    expired = build(reports / "results.jsonl", quarantine=held, today=datetime.date(2026, 12, 20))
    assert expired.gate_lines() == ["flaky: flip::cpu-O0 (compare-fail then pass then pass) "
                                    "[quarantine expired 2026-12-20: iree-org/iree#1]"]


def test_without_retries_nothing_reruns(pytester, fake_tools, monkeypatch, tmp_path):
    numeric_case(pytester.path / "cases", "flip", run="flaky")
    monkeypatch.setenv("IREE_REGRESS_FAKE_FLAKY_COUNTER", str(tmp_path / "runs"))
    reports = pytester.path / "reports"
    pytester.runpytest(*plugin_args(fake_tools, pytester.path / "cache", reports), "cases")
    record = results_by_item(reports)[1]["flip::cpu-O0"]
    assert record["attempts"] == [] and record["verdict"] == "FAIL"


@pytest.mark.harness
def test_a_whole_case_is_quarantined_only_when_it_says_all_items(tmp_path):
    entry = quarantine.load(write_quarantine(tmp_path / "q.toml", item="flip", extra="all_items = true\n"),
                            today=TODAY)[0]
    assert entry.covers("flip::cpu-O0") and entry.covers("flip::ir-x") and not entry.covers("flipper::cpu-O0")
    with pytest.raises(quarantine.QuarantineError, match="names a whole case"):
        quarantine.load(write_quarantine(tmp_path / "q.toml", item="flip"), today=TODAY)


@pytest.mark.harness
def test_a_far_expiry_is_refused(tmp_path):
    """The issue's probe: a quarantine set to 9999-12-31 is a mute button, refused."""
    with pytest.raises(quarantine.QuarantineError, match="more than 30 days after today"):
        quarantine.load(write_quarantine(tmp_path / "q.toml", expires="9999-12-31"), today=TODAY)
    assert quarantine.load(write_quarantine(tmp_path / "q.toml", expires="2026-12-23"), today=TODAY)


def _record(key, verdict, outcome):
    from harness.record import ItemRecord

    case, item = key.split("::")
    return ItemRecord(case=case, item=item, outcome=outcome, verdict=verdict, target="cpu", opt_level="O0")


@pytest.mark.harness
def test_a_quarantined_item_failing_another_way_gates(tmp_path):
    """Quarantined for run-timeout, it fails with wrong numbers (a planted wrong golden):
    the gate fails and says the quarantine holds run-timeout only."""
    from harness.report.quarantine import split_gate
    from harness.report.rundiff import gate

    held = quarantine.load(write_quarantine(tmp_path / "q.toml", item="topk-sigmoid::cpu-O0",
                                            outcomes='["run-timeout"]'), today=TODAY)
    timeout = [_record("topk-sigmoid::cpu-O0", "FAIL", "run-timeout")]
    assert split_gate(gate(timeout), held, TODAY)[0] == []
    wrong = [_record("topk-sigmoid::cpu-O0", "FAIL", "compare-fail")]
    gating, kept = split_gate(gate(wrong), held, TODAY)
    assert kept == [] and gating == ["fail: topk-sigmoid::cpu-O0 (compare-fail) "
                                     "[quarantined for run-timeout only: this is compare-fail]"]


@pytest.mark.harness
def test_entries_naming_nothing_or_holding_nothing_are_reported(tmp_path):
    from harness.report.quarantine import idle, missing_from_suite, unknown_items

    held = quarantine.load(write_quarantine(tmp_path / "q.toml", item="no-such-case::cpu-O0"), today=TODAY)
    assert unknown_items(held, {"flip::cpu-O0"}) == ["quarantine names no-such-case::cpu-O0, which has no such case"]
    assert "no such case" in missing_from_suite(held)[0]
    wrong_item = quarantine.load(write_quarantine(tmp_path / "q.toml", item="topk-dynamic-slice::cpu-O9"), today=TODAY)
    assert "has no item 'cpu-O9'" in missing_from_suite(wrong_item)[0]
    real = quarantine.load(write_quarantine(tmp_path / "q.toml", item="flip::cpu-O0"), today=TODAY)
    quiet = [{"flip::cpu-O0": _record("flip::cpu-O0", "PASS", "pass")}] * 7
    assert idle(real, quiet) == ["quarantine of flip::cpu-O0 held nothing over the last 7 nights: end it"]
    assert idle(real, quiet[:6]) == []  # fewer nights than that: too early to say


@pytest.mark.parametrize("body, complaint", [
    ('[[quarantine]]\nitem = "a::cpu-O0"\noutcomes = ["flaky"]\nreason = "x"\nissue = "iree-org/iree#1"\n',
     r"missing field\(s\) expires"),
    ('[[quarantine]]\nitem = "a::cpu-O0"\noutcomes = ["flaky"]\nreason = "x"\nissue = "#1"\nexpires = 2026-12-01\n',
     "field 'issue'"),
    ('[[quarantine]]\nitem = "a::cpu-O0"\noutcomes = ["flaky"]\nreason = "x"\nissue = "o/r#1"\nexpires = "soon"\n',
     "field 'expires'"),
    ('[[quarantine]]\nitem = "a::cpu-O0"\noutcomes = ["flaky"]\nreason = " "\nissue = "o/r#1"\nexpires = 2026-12-01\n',
     "field 'reason' is empty"),
    ('[[quarantine]]\nitem = "a::cpu-O0"\noutcomes = ["flaky"]\nreason = "x"\nissue = "o/r#1"\nexpires = 2026-12-01\n'
     'owner = "me"\n', "unknown field"),
    ('[[quarantine]]\nitem = "a::cpu-O0"\nreason = "x"\nissue = "o/r#1"\nexpires = 2026-12-01\n',
     r"missing field\(s\) outcomes"),
    ('[[quarantine]]\nitem = "a::cpu-O0"\noutcomes = ["sometimes"]\nreason = "x"\nissue = "o/r#1"\n'
     'expires = 2026-12-01\n', "field 'outcomes'"),
])
@pytest.mark.harness
def test_a_bad_quarantine_file_names_file_and_field(tmp_path, body, complaint):
    path = tmp_path / "quarantine.toml"
    path.write_text(body)
    with pytest.raises(quarantine.QuarantineError, match=complaint) as e:
        quarantine.load(path, today=TODAY)
    assert str(path) in str(e.value)
