"""--shard K/N: shares that partition the items, balanced by measured seconds, and a
merged report equal to an unsharded run's."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from harness import shard
from harness.cli import main as cli_main
from harness.report.summary import build
from helpers import compile_case, numeric_case, plugin_args, results_by_item



@pytest.mark.harness
def test_least_duration_first_balances_and_is_deterministic():
    cases = {f"c{i}": ["cpu-O0", "cpu-O3"] for i in range(9)}
    seconds = {f"c{i}::cpu-O0": float(i + 1) for i in range(9)} | {f"c{i}::cpu-O3": 1.0 for i in range(9)}
    placed = shard.assign(cases, seconds, 2)
    assert placed == shard.assign(dict(reversed(cases.items())), seconds, 2)  # order does not matter
    loads, ratio = shard.balance(cases, seconds, 2)
    assert sum(loads) == pytest.approx(45 + 9) and ratio <= 1.05
    assert shard.assign(cases, {}, 3) and set(shard.assign(cases, {}, 3).values()) == {0, 1, 2}


@pytest.mark.harness
def test_the_costliest_cases_go_first_so_none_starts_last():
    """xdist hands whole cases to workers in collection order: a big case collected last
    leaves the other worker idle at the end (measured: 12 cases, cold 1.26x the bare tools
    in name order, 1.15x costliest first). Without a previous run, item counts decide."""
    cases = {"a-small": ["cpu-O0"], "b-big": ["cpu-O0", "cpu-O3", "vulkan-O0", "vulkan-O3"], "c-mid": ["cpu-O0", "cpu-O3"]}
    assert shard.heaviest_first(cases, {}) == ["b-big", "c-mid", "a-small"]
    measured = {"a-small::cpu-O0": 30.0, "b-big::cpu-O0": 1.0, "c-mid::cpu-O0": 2.0}
    assert shard.heaviest_first(cases, measured)[0] == "a-small"  # what a previous run measured wins


@pytest.mark.harness
@pytest.mark.parametrize("text", ["0/2", "3/2", "1", "a/b", "1/0"])
def test_a_bad_shard_is_refused(text):
    with pytest.raises(shard.ShardError, match="K/N"):
        shard.parse(text)


def test_shards_partition_the_items_and_merge_into_the_unsharded_report(pytester, fake_tools):
    for slug in ("a", "b", "c", "d", "e"):
        compile_case(pytester.path / "cases", slug, matrix={"targets": ["cpu", "vulkan"],
                                                            "opt_levels": ["O0", "O3"]})
    numeric_case(pytester.path / "cases", "n")
    cache = pytester.path / "cache"

    def run(reports, *extra):
        result = pytester.runpytest(*plugin_args(fake_tools, cache, pytester.path / reports), "cases", *extra)
        assert result.ret in (0, 1), result.stdout.str()[-2000:]
        return results_by_item(pytester.path / reports)

    _, whole = run("whole")
    durations = pytester.path / "whole" / "results.jsonl"
    shards = [run(f"s{k}", "--shard", f"{k}/3", "--shard-durations", str(durations)) for k in (1, 2, 3)]
    keys = [set(items) for _, items in shards]
    assert all(keys) and sum(len(k) for k in keys) == len(whole)  # exactly once each
    assert set().union(*keys) == set(whole)
    assert [h["shard"] for h, _ in shards] == ["1/3", "2/3", "3/3"]

    files = [str(pytester.path / f"s{k}" / "results.jsonl") for k in (1, 2, 3)]
    assert cli_main(["report", *files, "--out", str(pytester.path / "merged"),
                     "--junit", str(pytester.path / "merged" / "junit.xml")]) == 0
    merged = build([pytester.path / f"s{k}" / "results.jsonl" for k in (1, 2, 3)])
    alone = build(durations)
    view = lambda model: sorted((r.key, r.outcome, r.verdict, r.message) for r in model.items)  # noqa: E731
    assert view(merged) == view(alone) and merged.counts == alone.counts
    suite = ET.parse(pytester.path / "merged" / "junit.xml").getroot().find("testsuite")
    assert int(suite.get("tests")) == len(whole)


@pytest.mark.harness
def test_an_item_in_two_shards_with_different_results_is_said(tmp_path):
    def results(name, outcome):
        path = tmp_path / f"{name}.jsonl"
        path.write_text(json.dumps({"type": "run", "environment": {"compiler_version": "3.13.0"}}) + "\n"
                        + json.dumps({"case": "a", "item": "cpu-O0", "outcome": outcome,
                                      "verdict": "PASS" if outcome == "pass" else "FAIL"}) + "\n")
        return path

    model = build([results("one", "pass"), results("two", "compile-fail")])
    assert len(model.items) == 1
    assert any("a::cpu-O0 is in two files with different results" in w for w in model.warnings)


@pytest.mark.harness
def test_proofs_of_a_matrix_of_machines_merge_into_one_per_case():
    from harness.history.prove import merge_proofs

    def check(version, role, ok):
        return {"version": version, "role": role, "ok": ok, "detail": ""}

    old = [{"case": "a", "checks": [check("3.2.0", "last_good", True), check("3.3.0", "first_bad", True)]},
           {"case": "b", "checks": [check("3.2.0", "first_bad", True)]},
           {"case": "g", "guard": True, "checks": []}]
    new = [{"case": "a", "checks": [check("3.9.0", "last_bad", True), check("3.10.0", "first_good", True)]},
           {"case": "b", "checks": [check("3.10.0", "last_bad", False)]},
           {"case": "g", "guard": True, "checks": [check("3.13.0", "guard", True)]},
           {"case": "lost", "checks": []}]
    merged = merge_proofs(old + new)
    assert {k: m["status"] for k, m in merged.items()} == {"a": "PROVEN", "b": "NOT PROVEN",
                                                           "g": "GUARD", "lost": "NOT PROVEN"}
    assert len(merged["a"]["checks"]) == 4 and "no machine checked" in merged["lost"]["note"]


def test_a_missing_durations_file_is_a_usage_error(pytester, fake_tools):
    compile_case(pytester.path / "cases", "a")
    result = pytester.runpytest(*plugin_args(fake_tools, pytester.path / "cache", pytester.path / "r"),
                                "cases", "--shard", "1/2", "--shard-durations", "nowhere.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--shard-durations nowhere.jsonl: no such results file" in result.stderr.str()


def _shard_file(path, label, key="a::cpu-O0"):
    from harness.record import ItemRecord
    from harness.results import ResultsWriter

    w = ResultsWriter(path)
    w.start({"environment": {"compiler_version": "3.13.0"}, **({"shard": label} if label else {})})
    case, item = key.split("::")
    w.append(ItemRecord(case=case, item=item, outcome="pass", verdict="PASS", target="cpu", opt_level="O0"))
    return path


@pytest.mark.harness
def test_a_missing_or_repeated_shard_fails_the_merged_gate(tmp_path):
    """The issue's probes: shard 1/2 alone, and shard 1/2 twice, given to one report."""
    from harness.report.summary import build

    one = _shard_file(tmp_path / "s1.jsonl", "1/2")
    two = _shard_file(tmp_path / "s2.jsonl", "2/2", "b::cpu-O0")
    assert build([one, two]).gate_lines() == []
    assert build([one]).gate_lines() == ["shard 2/2 is missing: its items were never run"]
    twice = build([one, one, two]).gate_lines()
    assert len(twice) == 1 and twice[0].startswith("shard 1/2 is given twice")
    bundles = _shard_file(tmp_path / "gpu.jsonl", None)  # a device machine's bundle results: no shard
    assert build([one, two, bundles]).gate_lines() == []
    from harness.report.render import markdown

    assert "**shard 2/2 is missing" in markdown(build([one])).split("\n## ", 1)[0]  # said first
