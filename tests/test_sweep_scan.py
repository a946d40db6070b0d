"""`sweep scan`: each item's outcomes over releases, read from one results file per
release; found regressions, and releases that failed as a whole left out."""

from __future__ import annotations

import pytest

from harness.record import ItemRecord, StageResult
from harness.results import ResultsWriter
from harness.sweep.scan import read_scan, render

pytestmark = pytest.mark.harness

RELEASES = ["3.0.0", "3.1.0", "3.2.0", "3.3.0"]


def _record(variant: str, outcome: str, detail: str = "") -> ItemRecord:
    stage = StageResult("compile", "ok") if outcome == "pass" else \
        StageResult(outcome.split("-")[0], outcome.split("-")[1], detail or f"error: {outcome} of {variant}")
    return ItemRecord(case=f"topk::{variant}", item="cpu-O0", outcome=outcome,
                      verdict="PASS" if outcome == "pass" else "FAIL", target="cpu", opt_level="O0",
                      stages=[stage])


def _write(out, release, records):
    writer = ResultsWriter(out / release / "results.jsonl")
    writer.start({"run_id": release})
    for r in records:
        writer.append(r)


def test_an_item_whose_outcome_changes_between_releases_is_a_found_regression(tmp_path):
    outcomes = {"3.0.0": "pass", "3.1.0": "compare-fail", "3.2.0": "compare-fail", "3.3.0": "pass"}
    for release, outcome in outcomes.items():
        _write(tmp_path, release, [_record("k=1", outcome), _record("k=3", "pass"),
                                   _record("k=5", "compile-fail", "error: always broken")])
    scan = read_scan(tmp_path, RELEASES)
    assert [h.key for h in scan.found] == ["topk::k=1::cpu-O0"]
    assert scan.found[0].windows(RELEASES) == [("3.0.0", "3.0.0", "pass"), ("3.1.0", "3.2.0", "compare-fail"),
                                               ("3.3.0", "3.3.0", "pass")]
    assert {h.key for h in scan.items.values() if h.ever_fails} == {"topk::k=1::cpu-O0", "topk::k=5::cpu-O0"}
    text = render(scan)
    assert "found regressions (outcome changes between releases): 1 items, 1 variants" in text
    assert "3.1.0..3.2.0: compare-fail" in text


def test_a_release_that_fails_as_a_whole_is_said_once_and_left_out(tmp_path):
    """A planted release-wide failure (every item: a flag the compiler does not know)
    must not make every variant a regression."""
    variants = [f"k={k}" for k in range(12)]
    for release in RELEASES:
        if release == "3.0.0":
            _write(tmp_path, release, [_record(v, "compile-fail", "error: unknown flag --iree-opt-level")
                                       for v in variants])
        else:
            _write(tmp_path, release, [_record(v, "pass") for v in variants])
    scan = read_scan(tmp_path, RELEASES)
    assert list(scan.unusable) == ["3.0.0"] and "12/12 items compile-fail" in scan.unusable["3.0.0"]
    assert scan.found == []
    assert "3.0.0 left out" in render(scan)


def test_a_few_items_failing_alike_are_theirs_not_the_releases(tmp_path):
    """Planted: one program rescanned alone, wrong on 3.1.0 and 3.2.0: its failure is its
    own (the release-wide rule needs ten items; with one, every failing release was left
    out and the program's window lost)."""
    for release, outcome in {"3.0.0": "pass", "3.1.0": "compare-fail", "3.2.0": "compare-fail", "3.3.0": "pass"}.items():
        _write(tmp_path, release, [_record("k=1", outcome)])
    scan = read_scan(tmp_path, RELEASES)
    assert scan.unusable == {} and [h.key for h in scan.found] == ["topk::k=1::cpu-O0"]


def test_an_item_missing_from_a_release_has_no_verdict_there_and_is_said(tmp_path):
    """Planted: a release killed mid-write holds one item of two. The other has no
    verdict there (said, and the command fails), never read as an item that did not run."""
    for release in RELEASES:
        records = [_record("k=1", "pass"), _record("k=3", "pass")]
        _write(tmp_path, release, records[:1] if release == "3.2.0" else records)
    scan = read_scan(tmp_path, RELEASES)
    assert scan.no_verdict == {"3.2.0": ["topk::k=3::cpu-O0"]}
    assert "3.2.0" not in scan.items["topk::k=3::cpu-O0"].outcomes


def test_a_release_without_results_is_not_scanned(tmp_path):
    _write(tmp_path, "3.1.0", [_record("k=1", "pass")])
    scan = read_scan(tmp_path, RELEASES)
    assert scan.releases == ["3.1.0"]


def test_a_run_names_one_toolchain(pytester, fake_tools):
    from helpers import plugin_args

    result = pytester.runpytest(*plugin_args(fake_tools, pytester.path / "c", pytester.path / "r"),
                                "--iree-release", "3.4.0")
    result.stdout.fnmatch_lines(["*--iree-release and --iree-tools-dir name two toolchains*"])
    assert result.ret != 0


def test_an_op_a_release_cannot_read_yet_is_support_arriving_not_a_regression(tmp_path):
    unknown = "error: custom op 'torch.aten._assert_tensor_metadata' is unknown"
    for release, (outcome, text) in {"3.0.0": ("compile-fail", unknown), "3.1.0": ("pass", ""),
                                     "3.2.0": ("compare-fail", "output 0: 3/8 elements differ"),
                                     "3.3.0": ("pass", "")}.items():
        fillers = [_record(f"n={n}", "pass") for n in range(8)]  # the release as a whole is fine
        _write(tmp_path, release, [_record("k=1", outcome, text), *fillers,
                                   _record("k=2", "compile-fail" if release == "3.0.0" else "pass", unknown)])
    scan = read_scan(tmp_path, RELEASES)
    assert [h.key for h in scan.found] == ["topk::k=1::cpu-O0"]  # the wrong numbers, not the import
    assert scan.items["topk::k=1::cpu-O0"].windows(RELEASES)[0] == ("3.0.0", "3.0.0", "unsupported")
    assert not scan.items["topk::k=2::cpu-O0"].ever_fails
    # each release's counts: 10 items; 3.0.0 could not read two of them, 3.2.0 failed one
    rows = [line for line in render(scan).splitlines() if line.startswith("| 3.")]
    assert rows == ["| 3.0.0 | 10 | 8 (80%) | 2 | 8 | 0 |", "| 3.1.0 | 10 | 10 (100%) | 0 | 10 | 0 |",
                    "| 3.2.0 | 10 | 10 (100%) | 0 | 9 | 1 |", "| 3.3.0 | 10 | 10 (100%) | 0 | 10 | 0 |"]


def test_an_item_with_no_verdict_on_a_release_is_said_never_dropped(tmp_path):
    """A planted harness error on one release: not an outcome of the item's windows, and
    not silent either."""
    broken = ItemRecord(case="topk::k=1", item="cpu-O0", outcome="harness-error", verdict="ERROR",
                        target="cpu", opt_level="O0", message="RuntimeError: planted")
    _write(tmp_path, "3.0.0", [broken, _record("k=2", "pass")])
    _write(tmp_path, "3.1.0", [_record("k=1", "pass"), _record("k=2", "pass")])
    scan = read_scan(tmp_path, RELEASES)
    assert scan.no_verdict == {"3.0.0": ["topk::k=1::cpu-O0"]}
    assert scan.items["topk::k=1::cpu-O0"].outcomes == {"3.1.0": "pass"}
    assert "3.0.0: 1 items with no verdict" in render(scan)


def test_support_lost_is_a_regression_and_grouped_as_such(tmp_path):
    """A planted support loss: the variant compiles and passes on 3.0.0-3.1.0, then its op
    no longer legalizes: found, said as support lost, never as support arriving."""
    from harness.sweep.scan import groups

    lost = "error: failed to legalize operation 'torch.aten.flip' that was explicitly marked illegal"
    for release in RELEASES:
        outcome, text = ("pass", "") if release in ("3.0.0", "3.1.0") else ("compile-fail", lost)
        _write(tmp_path, release, [_record("k=1", outcome, text), *[_record(f"n={n}", "pass") for n in range(8)]])
    scan = read_scan(tmp_path, RELEASES)
    h = scan.items["topk::k=1::cpu-O0"]
    assert [x.key for x in scan.found] == [h.key] and h.support_lost() == [("3.1.0", "3.2.0")]
    (group,) = groups(scan, {})
    assert group.support_lost and group.disposition.startswith("unexplained")
    assert "| support lost | 3.0.0..3.1.0: pass; 3.2.0..3.3.0: unsupported |" in render(scan, [group])
    # The other way round is support arriving: not found.
    for release in RELEASES:
        outcome, text = ("compile-fail", lost) if release in ("3.0.0", "3.1.0") else ("pass", "")
        _write(tmp_path / "arriving", release, [_record("k=1", outcome, text),
                                                *[_record(f"n={n}", "pass") for n in range(8)]])
    assert read_scan(tmp_path / "arriving", RELEASES).found == []


def test_each_group_is_a_case_explained_or_unexplained_by_the_sweep_expectations(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from harness.sweep import scan as scan_module

    for release in RELEASES:
        bad = release in ("3.1.0", "3.2.0")
        _write(tmp_path, release, [
            _record("k=1", "compare-fail" if bad else "pass", "output 0: 3/8 elements differ"),
            _record("k=2", "compile-fail" if bad else "pass", "error: 'foo' op boom"),
            _record("k=3", "run-crash" if bad else "pass", "crashed (SIGSEGV)"),
            *[_record(f"n={n}", "pass") for n in range(8)]])
    expectations = {  # what the sweep's [[expect]] would say of each variant
        "topk::k=1": SimpleNamespace(takes=lambda o, t: True, same_as=("some-case",), reason="its bug"),
        "topk::k=2": SimpleNamespace(takes=lambda o, t: True, same_as=(), reason="an importer gap"),
        "topk::k=3": SimpleNamespace(takes=lambda o, t: False, same_as=(), reason="another failure"),
    }
    monkeypatch.setattr(scan_module._Disposer, "expectation", lambda self, r: expectations[r.case])
    found = scan_module.groups(read_scan(tmp_path, RELEASES), {})
    said = {g.items[0].key.split("::")[1]: g.disposition for g in found}
    assert said["k=1"] == "case some-case"
    assert said["k=2"] == "explained: an importer gap"
    assert said["k=3"].startswith("unexplained: 2 of 2 failures no expectation takes")
    assert found[0].disposition.startswith("unexplained")  # the ones to act on come first
    # What is left to do is listed: the untaken failures by release, none of a disposed group.
    text = scan_module.render(read_scan(tmp_path, RELEASES), found)
    untaken = text.split("## Untaken failures")[1].split("##")[0]
    assert "- 3.1.0 run-crash x1: crashed (SIGSEGV)" in untaken and "- 3.2.0 run-crash x1" in untaken
    assert "compile-fail" not in untaken and "compare-fail" not in untaken


def test_the_table_of_explained_failures_disposes_of_a_group_and_a_case_it_names_is_checked(tmp_path):
    """sweeps/explained/scan.toml: a failure no expectation takes is explained there (a
    reason, or a case whose stored sample its match takes); a planted claim naming an
    unrelated case fails lint."""
    from harness.lint import lint_explained
    from harness.sweep.explained import load_explained
    from harness.sweep.scan import groups

    import dataclasses

    for release in RELEASES:
        bad = release in ("3.1.0", "3.2.0")
        _write(tmp_path, release, [dataclasses.replace(r, compiler=f"{release}rc20250101") for r in [
            _record("k=1", "compile-fail" if bad else "pass", "error: failed to legalize operation 'foo.bar'"),
            _record("k=2", "compile-fail" if bad else "pass", "error: something else"),
            *[_record(f"n={n}", "pass") for n in range(8)]]])
    table = tmp_path / "scan.toml"
    table.write_text('[[explain]]\nsweeps = ["topk"]\ncompiler = ">=3.1.0,<3.3.0"\noutcome = "compile-fail"\n'
                     'match = "failed to legalize operation .foo\\\\.bar."\nreason = "an importer gap"\n')
    found = groups(read_scan(tmp_path, RELEASES), {}, load_explained(table))
    said = {g.items[0].key.split("::")[1]: g.disposition for g in found}
    assert said == {"k=1": "explained: an importer gap",
                    "k=2": said["k=2"]} and said["k=2"].startswith("unexplained")
    assert lint_explained(table) == []
    table.write_text(table.read_text() + 'case = "topk-sigmoid"\n')
    problems = lint_explained(table)
    assert len(problems) == 1 and "explain[0].case" in str(problems[0]) and "topk-sigmoid" in str(problems[0])


def _each_refused_naming_its_field(table, bad_tables):
    """Each (text, field): the table refused on load, the error naming the file and field."""
    from harness.case import CaseError
    from harness.sweep.explained import load_explained

    for bad, field in bad_tables:
        table.write_text(bad)
        with pytest.raises(CaseError, match=f"{table}.*{field}"):
            load_explained(table)


def test_an_explanation_scoped_to_variants_takes_only_theirs_and_a_bad_scope_names_its_field(tmp_path):
    """`where` in sweeps/explained/scan.toml: as an [[expect]]'s, axes of the named sweeps;
    a failure of a variant outside it stays unexplained."""
    from packaging.version import Version

    from harness.sweep.explained import load_explained

    table = tmp_path / "scan.toml"
    entry = ('[[explain]]\nsweeps = ["topk"]\nwhere = { dtype = ["u8"] }\ncompiler = ">=3.1.0"\n'
             'outcome = "compare-fail"\nmatch = "elements differ"\nreason = "unsigned ordering"\n')
    table.write_text(entry)
    (e,) = load_explained(table)
    failure = ("topk", Version("3.2.0"), "compare-fail", "output 0: 3/8 elements differ")
    assert e.takes(*failure, {"dtype": "u8", "k": 3})
    assert not e.takes(*failure, {"dtype": "i8", "k": 3})
    assert not e.takes(*failure, None)  # no variant known: a scoped entry says nothing of it
    _each_refused_naming_its_field(table, [(entry.replace("dtype = [", "colour = ["), "colour"),
                                           (entry.replace('"u8"', '"u7"'), "dtype"),
                                           (entry.replace('sweeps = ["topk"]\n', ''), "where")])


def test_an_explanation_of_variants_by_id_takes_those_across_sweeps_and_names_a_bad_id(tmp_path):
    """`variants` in sweeps/explained/scan.toml: the drawn programs an entry was checked on,
    by their records' ids, in more than one sweep; any other variant stays unexplained."""
    from packaging.version import Version

    from harness.sweep.explained import load_explained

    table = tmp_path / "scan.toml"
    entry = ('[[explain]]\nvariants = ["wide-graph::seed=338", "wide-graph-3::seed=961"]\ncompiler = "<3.11.0"\n'
             'outcome = "compile-fail"\nmatch = "unresolved materialization"\nreason = "a pinned dim"\n')
    table.write_text(entry)
    (e,) = load_explained(table)
    assert set(e.sweeps) == {"wide-graph", "wide-graph-3"}
    failure = (Version("3.10.0"), "compile-fail", "error: failed to legalize unresolved materialization")
    assert e.takes("wide-graph", *failure, {"seed": 338})
    assert e.takes("wide-graph-3", *failure, {"seed": 961})
    # planted: the same seed in the other sweep, another seed, no variant known
    assert not e.takes("wide-graph-3", *failure, {"seed": 338})
    assert not e.takes("wide-graph", *failure, {"seed": 339})
    assert not e.takes("wide-graph", *failure, None)
    _each_refused_naming_its_field(table, [
        (entry.replace("seed=338", "seed=99999"), "variants"),
        (entry.replace("wide-graph::", "no-such-sweep::"), "variants"),
        (entry.replace("variants = [", 'sweeps = ["wide-graph"]\nvariants = ['), "sweeps")])


def test_a_group_part_a_case_and_part_explained_says_both(tmp_path, monkeypatch):
    from types import SimpleNamespace

    from harness.sweep import scan as scan_module

    for release in RELEASES:
        bad = release in ("3.1.0", "3.2.0")
        outcome = ("compare-fail" if release == "3.1.0" else "run-crash") if bad else "pass"
        _write(tmp_path, release, [_record("k=1", outcome, "output 0: 3/8 elements differ"),
                                   *[_record(f"n={n}", "pass") for n in range(8)]])
    said = {"compare-fail": SimpleNamespace(takes=lambda o, t: True, same_as=("some-case",), reason="its bug"),
            "run-crash": SimpleNamespace(takes=lambda o, t: True, same_as=(), reason="its crash face")}
    monkeypatch.setattr(scan_module._Disposer, "expectation", lambda self, r: said.get(r.outcome))
    (group,) = scan_module.groups(read_scan(tmp_path, RELEASES), {})
    assert group.disposition == "case some-case; explained: its crash face"


def test_an_earlier_scans_found_items_are_what_a_wider_scan_reruns(tmp_path):
    """`sweep scan --items-from DIR`: the node ids of the items DIR's scan found changing,
    of the named sweeps only; a folder with no scan says so."""
    import json
    from pathlib import Path

    from harness.case import CaseError
    from harness.commands.sweep import _found_items
    from harness.sweep.spec import load_sweep

    sweeps = Path(__file__).resolve().parent.parent / "sweeps"
    topk = load_sweep(sweeps / "topk.toml")
    (tmp_path / "scan.json").write_text(json.dumps({"found": [
        {"item": "topk::dim=first,k=1::cpu-O0"}, {"item": "scatter::op=gather::cpu-O3"}]}))
    assert _found_items([topk], tmp_path) == [f"{topk.path}::dim=first,k=1::cpu-O0"]
    with pytest.raises(CaseError, match="found no item of transpose"):
        _found_items([load_sweep(sweeps / "transpose.toml")], tmp_path)
    with pytest.raises(CaseError, match="not an earlier scan's folder nor a picked list"):
        _found_items([topk], tmp_path / "nothing")


def test_a_run_crash_is_matched_with_what_its_compile_warned():
    """A run that dies on its stack says why only in its compile's warnings (measured:
    plain-graph seed 208 on 3.8.0, "stack frame size (18446744073709551160) exceeds limit in
    function '..._scan_DxDxi64_...'", then SIGSEGV): the failure's text carries them, so an
    explanation can take the crash of a scan dispatch and leave another dispatch's crash."""
    from harness.sweep.explained import Explanation
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version
    import re

    def crashed(dispatch):
        warned = f"warning: stack frame size (18446744073709551160) exceeds limit in function 'main$async_dispatch_0_{dispatch}'\n"
        return ItemRecord(case="topk::k=1", item="cpu-O0", outcome="run-crash", verdict="FAIL", target="cpu",
                          opt_level="O0", stages=[StageResult("compile", "ok", "", warned),
                                                  StageResult("run", "crash", "crashed (SIGSEGV)")])

    scan_crash = Explanation(("topk",), SpecifierSet(">=3.4.0"), "run-crash",
                             re.compile(r"crashed \(SIGSEGV\)(?s:.*)stack frame size \(\d+\) exceeds limit in function '[^']*_scan_"),
                             "a scan dispatch's stack")
    assert scan_crash.takes("topk", Version("3.8.0"), "run-crash", crashed("scan_DxDxi64").failure_text())
    assert not scan_crash.takes("topk", Version("3.8.0"), "run-crash", crashed("sort_Dxf32").failure_text())
    # a compile that failed carries its own log once, never "warned"
    failed = ItemRecord(case="topk::k=1", item="cpu-O0", outcome="compile-fail", verdict="FAIL", target="cpu",
                        opt_level="O0", stages=[StageResult("compile", "fail", "exit code 1", "error: x\n")])
    assert "compile warned" not in failed.failure_text()


def test_kept_records_read_as_the_scan_they_came_from_and_a_bad_file_is_named(tmp_path):
    """`sweep scan --keep DIR`: the compact records give the same windows, signatures and
    failure texts (what groups, explanations and recall read), without the passes' stages."""
    import gzip

    from harness.case import CaseError
    from harness.process import strip_paths
    from harness.sweep.scan_records import keep

    warned = StageResult("compile", "ok", "", "/home/someone/.cache/x/model.mlir:3:1: warning: stack frame size (9) "
                         "exceeds limit\n" + "x" * 9000)
    for release, outcome in {"3.0.0": "pass", "3.1.0": "run-crash", "3.2.0": "compile-fail", "3.3.0": "pass"}.items():
        record = _record("k=1", outcome)
        if outcome == "run-crash":
            record = ItemRecord(case="topk::k=1", item="cpu-O0", outcome=outcome, verdict="FAIL", target="cpu",
                                opt_level="O0", traits=["op=topk"], stages=[warned, StageResult("run", "crash", "crashed (SIGSEGV)")])
        _write(tmp_path / "out", release, [record, _record("k=3", "pass")])
    sizes = keep(tmp_path / "out", RELEASES, tmp_path / "kept")
    assert set(sizes) == set(RELEASES)
    full, kept = read_scan(tmp_path / "out", RELEASES), read_scan(tmp_path / "kept", RELEASES)
    assert kept.releases == full.releases and set(kept.items) == set(full.items)
    for key, h in full.items.items():
        assert kept.items[key].outcomes == h.outcomes and kept.items[key].signatures == h.signatures
        for release, record in h.records.items():
            # the same text but for folders: kept records name no machine's paths
            assert kept.items[key].records[release].failure_text() == strip_paths(record.failure_text())
            assert "/home/someone" not in kept.items[key].records[release].failure_text()
            assert kept.items[key].records[release].traits == record.traits
    line = gzip.decompress((tmp_path / "kept" / "3.0.0" / "results.jsonl.gz").read_bytes()).decode().splitlines()[1]
    assert '"stages"' not in line  # a pass keeps its outcome only
    # the named sweeps' records only (one scan's folder can hold several generators')
    keep(tmp_path / "out", RELEASES, tmp_path / "other", {"scatter"})
    assert read_scan(tmp_path / "other", RELEASES).items == {}
    (tmp_path / "kept" / "3.3.0" / "results.jsonl.gz").write_bytes(b"not gzip")
    with pytest.raises(CaseError, match=r"3\.3\.0/results\.jsonl\.gz: cannot read"):
        read_scan(tmp_path / "kept", RELEASES)
