"""Measurements tracked over nights: noise is not news, a real change is; the history
page of many nights."""

from __future__ import annotations

import json
import random

import pytest

from harness.report import perf
from harness.report.nights import histories, load_nights, page
from harness.record import ItemRecord, StageResult
from harness.report.summary import build

pytestmark = pytest.mark.harness


def record(key="a::cpu-O3", compile_s=2.0, mb=300.0, size=50_000, dispatches=3, run_s=0.1,
           verdict="PASS", outcome="pass"):
    case, item = key.split("::")
    return ItemRecord(case=case, item=item, outcome=outcome, verdict=verdict, target="cpu", opt_level="O3",
                      stages=[StageResult("compile", "ok", seconds=compile_s, peak_rss_mb=mb,
                                          data={"module_bytes": size, "dispatches": dispatches}),
                              StageResult("run", "ok", seconds=run_s)])


def noisy_nights(n=14, seed=0):
    rng = random.Random(seed)
    return [{"a::cpu-O3": record(compile_s=2.0 * rng.uniform(0.9, 1.1), mb=300 * rng.uniform(0.95, 1.05),
                                 run_s=0.1 * rng.uniform(0.8, 1.2))} for _ in range(n)]


def test_noise_is_not_flagged_and_a_real_change_is():
    nights = noisy_nights()
    assert perf.changes([record(compile_s=2.15, mb=310, run_s=0.115)], nights) == []
    flags = perf.changes([record(compile_s=4.0, size=80_000, dispatches=4)], nights)
    assert [f.metric for f in flags] == ["compile_s", "dispatches", "module_bytes"]
    assert "compile_s 4s vs median" in flags[0].line
    # A tiny item: 40 ms -> 60 ms is +50% but under the absolute floor.
    tiny = [{"a::cpu-O3": record(compile_s=0.04)} for _ in range(5)]
    assert perf.changes([record(compile_s=0.06)], tiny) == []
    # Too few nights: no baseline, no flag.
    assert perf.changes([record(compile_s=40.0)], nights[:2]) == []


def test_perf_flags_are_a_list_of_their_own_and_gate_only_when_asked(tmp_path):
    from harness.cli import main as cli_main

    results = tmp_path / "tonight.jsonl"
    results.write_text(json.dumps({"type": "run", "run_id": "20261123T060000-1"}) + "\n"
                       + json.dumps(record(compile_s=9.0).as_dict()) + "\n")
    history = tmp_path / "nights"
    history.mkdir()
    for i, night in enumerate(noisy_nights(5)):
        (history / f"night{i:02}.jsonl").write_text(
            json.dumps({"type": "run", "run_id": f"202611{10 + i}T060000-1"}) + "\n"
            + json.dumps(night["a::cpu-O3"].as_dict()) + "\n")
    args = ["report", str(results), "--nights-dir", str(history), "--out", str(tmp_path / "r")]
    assert cli_main(args + ["--fail-on-regression"]) == 0  # a slower compile is not a failure
    assert cli_main(args + ["--fail-on-perf"]) == 1
    assert "## Performance: 1 change(s)" in (tmp_path / "r" / "summary.md").read_text()


def test_history_page_of_thirty_nights(tmp_path):
    keys = [f"case{c}::cpu-O{o}" for c in range(20) for o in range(4)]
    for night in range(30):
        lines = [json.dumps({"type": "run", "run_id": f"202611{night:02}T060000-1"})]
        for k in keys:
            broken = k == "case3::cpu-O1" and 10 <= night < 20  # broke on night 10, fixed on 20
            flip = k == "case4::cpu-O0" and night % 2
            r = record(k, compile_s=2.0 + (night >= 25 and k == "case5::cpu-O2"),
                       verdict="FAIL" if broken or flip else "PASS",
                       outcome="compile-fail" if broken or flip else "pass")
            lines.append(json.dumps(r.as_dict()))
        (tmp_path / f"n{night:02}.jsonl").write_text("\n".join(lines) + "\n")
    nights = load_nights(tmp_path, last=30)
    assert [n.name for n in nights][:2] == ["n00", "n01"] and len(nights) == 30
    by_key = {h.key: h for h in histories(nights)}
    assert (by_key["case3::cpu-O1"].first_seen, by_key["case3::cpu-O1"].last_seen) == ("n10", "n19")
    assert by_key["case3::cpu-O1"].flips == 2 and by_key["case4::cpu-O0"].flips == 29
    html_text = page(nights)
    assert html_text.count("<tr>") == len(keys) + 1 and "<svg" in html_text and "http" not in html_text
    assert load_nights(tmp_path, last=7)[0].name == "n23"


def test_the_report_model_keeps_no_flags_without_history(tmp_path):
    results = tmp_path / "r.jsonl"
    results.write_text(json.dumps(record().as_dict()) + "\n")
    assert build(results).perf == []
