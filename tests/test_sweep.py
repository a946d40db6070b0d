"""Sweeps: the spec as data, the grid, ids, samples, lint, and variants run as items."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

from harness.case import CaseError
from harness.lint import lint_sweep
from harness.record import ItemRecord, ItemRef, StageResult
from harness.sweep.spec import load_sweep, spell
from helpers import plugin_args, results_by_item

ROOT = Path(__file__).resolve().parent.parent

BUILDER = '''
from harness.sweep.program import Program, model_source

BODIES = {"same": ["return x * 1"], "plus": ["return x + 0"], "broken": ["raise ValueError('planted')"]}


def build(p):
    body = BODIES[p["op"]]
    inputs = [f"values([{p['n']}, 3], torch.float32, 'random', seed=0)"]
    return Program(model_source(f"{p}", ["x"], body, inputs), dtype="f32", results=1)
'''


def write_sweep(root: Path, body: str, name: str = "tiny") -> Path:
    folder = root / "sweeps"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.py").write_text(BUILDER)
    path = folder / f"{name}.toml"
    path.write_text(body)
    return path


HEAD = '''[sweep]
family = "topk"
title = "tiny"
builder = "tiny.py"
'''
TINY = HEAD + '''
[axes]
op = ["same", "plus"]
n = [2, 4]

[matrix]
cpu = ["O0", "O3"]
'''


O0_VS_O3 = '''
[[differ]]
name = "o0-vs-o3"
target = "cpu"
a = {opt_level = "O0"}
b = {opt_level = "O3"}
'''
DIFFERENTIAL = TINY.replace('[sweep]', '[sweep]\noracle = "differential"') + O0_VS_O3


def expect(where: str, match: str = "", outcome: str = "compare-fail", reason: str = "planted") -> str:
    """An [[expect]] entry on cpu from 3.0 on; `where` and `match` left out when empty."""
    lines = ["", "[[expect]]", *([f"where = {{ {where} }}"] if where else []), 'targets = ["cpu"]',
             'compiler = ">=3.0"', f'outcome = "{outcome}"', *([f"match = {match!r}"] if match else []),
             f'reason = "{reason}"']
    return "\n".join(lines) + "\n"


@pytest.mark.harness
@pytest.mark.parametrize("body, field", [
    (TINY.replace('builder = "tiny.py"', 'builder = "../outside.py"'), "sweep.builder"),
    (TINY.replace('n = [2, 4]', 'n = [2, 2]'), "axes.n"),
    (TINY.replace('n = [2, 4]', 'n = ["a,b"]'), "axes.n[0]"),
    (TINY + '[[exclude]]\nwhen = { size = 2 }\nreason = "x"\n', "exclude[0].when.size"),
    (TINY + '[[exclude]]\nwhen = { n = 3 }\nreason = "x"\n', "exclude[0].when.n"),
    (TINY + '[[exclude]]\nwhen = { n = 2 }\n', "exclude[0].reason"),
    (TINY.replace('[sweep]', '[sweep]\nstrategy = "random"'), "sweep.strategy"),
    (TINY.replace('[sweep]', '[sweep]\nfrontend = "tflite"'), "sweep.frontend"),
    (TINY + '[[expect]]\noutcome = "compile-oops"\nreason = "x"\n', "expect[0].outcome"),
    (TINY + expect("size = [1]"), "expect[0].where.size"),
    (TINY + expect('op = ["pluss"]'), "expect[0].where.op"),
    (TINY.replace('cpu = ["O0", "O3"]', 'cpu = ["O9"]'), "matrix.cpu"),
    (TINY + '[[exclude]]\nwhen = { n = [2, 4] }\nreason = "x"\n', "exclude"),
    (TINY.replace('[sweep]', '[sweep]\noracle = "majority"'), "sweep.oracle"),
    (TINY.replace('[sweep]', '[sweep]\noracle = "differential"'), "differ"),
    (TINY + O0_VS_O3 + "outputs = 1\n", "differ[0].outputs"),
    (TINY + O0_VS_O3.replace('"O3"', '"O2"'), "differ[0].b"),
    (TINY + O0_VS_O3 + expect("", outcome="differ-fail").replace('targets = ["cpu"]', 'differ = ["o0-vs-o2"]'),
     "expect[0].differ"),
])
def test_a_malformed_spec_names_its_file_and_field(tmp_path, body, field):
    path = write_sweep(tmp_path, body)
    with pytest.raises(CaseError) as e:
        load_sweep(path)
    assert str(path) in str(e.value) and f"'{field}'" in str(e.value), e.value


FLAGGED = '''[sweep]
grid = "tiny.toml"
name = "tiny-flags"
title = "tiny under flags"

[axes]
flags = ["tiled", "fused"]

[flag_sets]
tiled = ["--iree-opt-data-tiling=true"]
fused = ["--iree-dispatch-creation-enable-aggressive-fusion=true"]

[matrix]
cpu = ["O0"]
'''


@pytest.mark.harness
def test_a_grid_under_flags_takes_the_grids_axes_and_adds_the_flags(tmp_path):
    """`grid = "x.toml"`: the grid's builder, axes and exclusions, the flags axis paired
    with them; the grid's own variants (ids, expectations) stay as they are."""
    write_sweep(tmp_path, TINY + '[[exclude]]\nwhen = { op = "plus", n = 4 }\nreason = "x"\n')
    path = tmp_path / "sweeps" / "tiny_flags.toml"
    path.write_text(FLAGGED)
    flagged, grid = load_sweep(path), load_sweep(tmp_path / "sweeps" / "tiny.toml")
    assert (flagged.family, flagged.builder, flagged.name) == (grid.family, grid.builder, "tiny-flags")
    ids = {v.id for v in flagged.variants()}
    assert ids == {f"flags={f},{g.id}" for f in ("fused", "tiled") for g in grid.variants()}
    assert not any("op=plus" in i and "n=4" in i for i in ids)  # the grid's exclusion holds
    point = flagged.find("flags=tiled,n=2,op=same").values()
    assert flagged.flags_of(point) == ("--iree-opt-data-tiling=true",)
    # An axis of the grid is never redefined, and a grid that extends one is refused.
    path.write_text(FLAGGED.replace('flags = ["tiled", "fused"]', 'flags = ["tiled"]\nn = [8]'))
    with pytest.raises(CaseError, match=r"'axes\.n'.*add axes"):
        load_sweep(path)
    (tmp_path / "sweeps" / "twice.toml").write_text(FLAGGED.replace('grid = "tiny.toml"', 'grid = "tiny_flags.toml"'))
    path.write_text(FLAGGED)
    with pytest.raises(CaseError, match=r"'sweep\.grid'.*extends a grid itself"):
        load_sweep(tmp_path / "sweeps" / "twice.toml")


@pytest.mark.harness
def test_a_new_variants_failure_with_a_written_entrys_message_is_drafted_as_such(tmp_path):
    """A variant no entry is about (a new share of a generated sweep's seeds) failing with
    the message of one of the sweep's entries on other variants is drafted with that
    entry's match, same_as and reason, said as a shared message; another message stays a
    placeholder."""
    from harness.sweep.draft import drafts

    entry = expect("", match="invalid dimension [0-9]", outcome="compile-fail", reason="the bug of case tiny-case")
    entry = entry.replace("[[expect]]", '[[expect]]\nvariants = ["n=2,op=plus"]').replace(
        'reason = "the bug', 'same_as = "tiny-case"\nreason = "the bug')
    sweep = load_sweep(write_sweep(tmp_path, TINY + entry))

    def failed(variant, text):
        return ItemRecord(case=f"topk::{variant}", item="cpu-O0", outcome="compile-fail", verdict="FAIL",
                          target="cpu", opt_level="O0", compiler="3.13.0rc20261016",
                          stages=[StageResult("compile", "fail", f"exit code 1: /x/m.mlir:1:2: error: {text}")])

    blocks = drafts(sweep, [failed("n=4,op=plus", "invalid dimension 7"), failed("n=4,op=same", "unbounded alloca")])
    shared = next(b for b in blocks if "n=4,op=plus" in b)
    other = next(b for b in blocks if "n=4,op=same" in b)
    assert "other variants of this sweep fail with this message" in shared and 'same_as = "tiny-case"' in shared
    assert 'match = "invalid dimension [0-9]"' in shared, shared
    assert "describe it" in other and "same_as" not in other, other


@pytest.mark.harness
def test_a_failure_the_scans_table_explains_is_drafted_with_its_reason(tmp_path):
    """`sweep expect` after a kept scan: a 3.13.0 failure an [[explain]] entry of the scans'
    table takes is drafted with that entry's reason; a message failure takes its case as
    same_as (lint checks it), wrong numbers name the case in the reason only and keep their
    own exact match; an entry naming other programs, or another release, takes nothing."""
    import re

    from packaging.specifiers import SpecifierSet

    from harness.sweep.draft import drafts
    from harness.sweep.explained import Explanation

    sweep = load_sweep(write_sweep(tmp_path, TINY))

    def failed(variant, outcome, text):
        stage = "compare" if outcome == "compare-fail" else "compile"
        return ItemRecord(case=f"topk::{variant}", item="cpu-O0", outcome=outcome, verdict="FAIL",
                          target="cpu", opt_level="O0", compiler="3.13.0rc20261016",
                          stages=[StageResult(stage, "fail", text)])

    def explanation(match, outcome="compile-fail", case="", variants=(), compiler=">=3.12.0"):
        return Explanation(("topk",), SpecifierSet(compiler), outcome, re.compile(match), f"planted: {match}",
                           case, None, frozenset(variants))

    wrong = "vs golden: output 0: 15/16 elements differ (atol=0, rtol=0); max abs err 1024, max rel err 1.4"
    records = [failed("n=4,op=plus", "compile-fail", "exit code 1: /x/m.mlir:1:2: error: invalid dimension 7"),
               failed("n=2,op=plus", "compare-fail", wrong),
               failed("n=2,op=same", "compile-fail", "exit code 1: /x/m.mlir:1:2: error: unbounded alloca")]
    table = [explanation("invalid dimension", case="tiny-case"),
             explanation(r"max abs err 1024\b", "compare-fail", case="tiny-case", variants=["topk::n=2,op=plus"]),
             explanation("unbounded alloca", variants=["topk::n=4,op=same"]),  # another program
             explanation("unbounded alloca", compiler="<3.13.0")]  # another release
    blocks = drafts(sweep, records, explained=table)
    message = next(b for b in blocks if "n=4,op=plus" in b)
    numbers = next(b for b in blocks if "n=2,op=plus" in b)
    untaken = next(b for b in blocks if "n=2,op=same" in b)
    assert 'same_as = "tiny-case"' in message and 'match = "invalid dimension"' in message, message
    assert "takes this message in this sweep" in message and "planted: invalid dimension" in message
    assert "same_as" not in numbers and "names this program" in numbers, numbers
    assert "max abs err 1024" not in numbers.split("reason")[0] and "15)/16 elements differ" in numbers, numbers
    assert "describe it" in untaken and "same_as" not in untaken, untaken
    assert all("describe it" in b for b in drafts(sweep, records, explained=[]))  # the table is what said it


@pytest.mark.harness
def test_a_flagged_failure_the_grids_expectation_takes_is_drafted_as_its_bug(tmp_path):
    """`sweep expect` on a grid under flags: a failure the grid's own expectation for the
    same variant takes (outcome, match, release) is drafted with its same_as and reason;
    one it does not take (another message) stays a placeholder, never borrowed."""
    from harness.sweep.draft import drafts

    write_sweep(tmp_path, TINY + expect('op = ["plus"]', match="invalid dimension [0-9]", outcome="compile-fail",
                                        reason="the bug of case tiny-case").replace(
        'reason = "the bug', 'same_as = "tiny-case"\nreason = "the bug'))
    path = tmp_path / "sweeps" / "tiny_flags.toml"
    path.write_text(FLAGGED)
    sweep = load_sweep(path)

    def failed(variant, text):
        return ItemRecord(case=f"tiny-flags::{variant}", item="cpu-O0", outcome="compile-fail", verdict="FAIL",
                          target="cpu", opt_level="O0", compiler="3.13.0rc20261016",
                          stages=[StageResult("compile", "fail", f"exit code 1: /x/m.mlir:1:2: error: {text}")])

    blocks = drafts(sweep, [failed("flags=tiled,n=4,op=plus", "invalid dimension 3"),
                            failed("flags=fused,n=4,op=plus", "unbounded stack allocation")])
    taken = next(b for b in blocks if "invalid dimension" in b)
    other = next(b for b in blocks if "unbounded" in b)
    assert 'same_as = "tiny-case"' in taken and "as on the grid's own variant" in taken, taken
    assert "same_as" not in other and "describe it" in other, other
    path.write_text(path.read_text() + "\n" + "\n".join(blocks))
    assert len(load_sweep(path).expectations) == 2  # the drafts read back

    # A pairwise grid: the flags axis pairs anew, so some flagged points are not the
    # grid's. Their failure, taken by a grid entry's match on other variants, is said so.
    grid = HEAD.replace('[sweep]', '[sweep]\nstrategy = "pairwise"') + \
        '[axes]\nop = ["same", "plus"]\nn = [2, 4]\nm = [1, 3, 5]\n\n[matrix]\ncpu = ["O0"]\n' + \
        expect('op = ["plus"], n = [4], m = [1]', match="invalid dimension [0-9]", outcome="compile-fail",
               reason="the bug of case tiny-case")
    write_sweep(tmp_path, grid)
    path.write_text(FLAGGED)
    sweep = load_sweep(path)
    grid_ids = {v.id for v in sweep.grid.variants()}
    new = next(v.id for v in sweep.variants() if sweep.grid.variant(sweep.grid_point(v.values())).id not in grid_ids)
    [block] = drafts(sweep, [failed(new, "invalid dimension 3")])
    assert "a point the grid does not have" in block and "the bug of case tiny-case" in block, block


@pytest.mark.harness
def test_pairwise_covers_every_allowed_pair_and_never_an_excluded_point(tmp_path):
    body = HEAD + '''strategy = "pairwise"
[axes]
a = [1, 2, 3, 4]
b = ["x", "y", "z"]
c = [true, false]
d = ["p", "q", "r"]

[[exclude]]
when = { a = 1, b = "x" }
reason = "not a program"

[matrix]
cpu = ["O0"]
'''
    sweep = load_sweep(write_sweep(tmp_path, body))
    variants = sweep.variants()
    points = [v.values() for v in variants]
    assert all(not (p["a"] == 1 and p["b"] == "x") for p in points)
    for (x, xs), (y, ys) in itertools.combinations(sweep.axes.items(), 2):
        for u, w in itertools.product(xs, ys):
            if {x: u, y: w} == {"a": 1, "b": "x"}:
                continue
            assert any(p[x] == u and p[y] == w for p in points), (x, u, y, w)
    assert len(variants) < 4 * 3 * 2 * 3  # far fewer than the product
    assert [v.id for v in sweep.variants()] == [v.id for v in variants]  # deterministic


@pytest.mark.harness
def test_ids_spell_sorted_axes_and_the_sample_holds_every_value(tmp_path):
    sweep = load_sweep(write_sweep(tmp_path, TINY))
    ids = [v.id for v in sweep.variants()]
    assert ids == ["n=2,op=plus", "n=2,op=same", "n=4,op=plus", "n=4,op=same"]
    assert sweep.variants()[0].case_id == "topk::n=2,op=plus"
    sample = sweep.sample_of(2)
    for axis, values in sweep.axes.items():
        assert {spell(v) for v in values} <= {spell(s.values()[axis]) for s in sample}
    assert spell(True) == "true"


@pytest.mark.harness
def test_item_refs_of_cases_and_variants():
    assert ItemRef.parse("topk::k=1,dim=-1::cpu-O2") == ItemRef("topk::k=1,dim=-1", "cpu-O2")
    assert ItemRef.of_nodeid("sweeps/topk.toml::dim=-1,k=1::cpu-O2") == ItemRef("topk::dim=-1,k=1", "cpu-O2")
    assert ItemRef.of_nodeid("cases/topk-sigmoid/case.toml::cpu-O3") == ItemRef("topk-sigmoid", "cpu-O3")
    assert ItemRef.of_nodeid("sweeps/topk.toml") == ItemRef("topk", "")
    with pytest.raises(ValueError):
        ItemRef.parse("no-item")


@pytest.mark.harness
def test_expectations_are_scoped_by_axis_values(tmp_path):
    body = TINY + expect('op = ["plus"], n = [4]', "output 0")
    sweep = load_sweep(write_sweep(tmp_path, body))
    assert sweep.expectations_for({"op": "plus", "n": 4})[0]["match"] == "output 0"
    assert "where" not in sweep.expectations_for({"op": "plus", "n": 4})[0]
    assert sweep.expectations_for({"op": "plus", "n": 2}) == []


def test_expectations_scoped_by_variant_id_and_a_misspelt_id_refused(tmp_path):
    body = TINY + expect("", "output 0").replace("[[expect]]", '[[expect]]\nvariants = ["n=4,op=plus"]')
    sweep = load_sweep(write_sweep(tmp_path, body))
    assert [e["match"] for e in sweep.expectations_for({"op": "plus", "n": 4})] == ["output 0"]
    assert sweep.expectations_for({"op": "same", "n": 4}) == []
    assert "variants" not in sweep.expectations_for({"op": "plus", "n": 4})[0]
    with pytest.raises(CaseError, match=r"expect\[0\]\.variants: 'n=4,op=pluss' is not a variant"):
        load_sweep(write_sweep(tmp_path, body.replace("n=4,op=plus", "n=4,op=pluss")))


def test_drafted_expectations_are_exact_and_read_back(tmp_path):
    """`sweep expect` drafts: one entry per exact product of variants x targets x levels,
    with the failure's own message; appended, they load and scope to those variants only."""
    from harness.sweep.draft import drafts

    path = write_sweep(tmp_path, TINY)
    sweep = load_sweep(path)

    def failed(variant, level, text="error: 'tensor.expand_shape' op invalid dimension 3"):
        return ItemRecord(case=f"topk::{variant}", item=f"cpu-{level}", outcome="compile-fail", verdict="FAIL",
                          target="cpu", opt_level=level, compiler="3.13.0rc20261016",
                          stages=[StageResult("compile", "fail", f"exit code 1: /x/m.mlir:1:2: {text}")])

    records = [failed("n=4,op=plus", "O0"), failed("n=4,op=plus", "O3"), failed("n=2,op=plus", "O0"),
               ItemRecord(case="topk::n=2,op=same", item="cpu-O0", outcome="pass", verdict="PASS")]
    blocks = drafts(sweep, records)
    assert len(blocks) == 2
    both = next(b for b in blocks if "n=4,op=plus" in b)
    one = next(b for b in blocks if "n=2,op=plus" in b)
    assert "opt_levels" not in both and 'opt_levels = ["O0"]' in one
    assert all('match = "\x27tensor\\\\.expand_shape\x27 op invalid dimension"' in b for b in blocks)
    path.write_text(path.read_text() + "\n" + "\n".join(blocks))
    again = load_sweep(path)
    assert [e["opt_levels"] for e in again.expectations_for({"op": "plus", "n": 2})] == [["O0"]]
    assert again.expectations_for({"op": "same", "n": 2}) == []


@pytest.mark.harness
def test_a_differential_items_failure_is_drafted_under_its_differ_name(tmp_path):
    """A failing differential item (no target, no level) is drafted, never skipped: an
    entry naming the item by `differ`, read back as covering that item only."""
    from harness.sweep.draft import drafts

    path = write_sweep(tmp_path, DIFFERENTIAL)
    sweep = load_sweep(path)
    detail = "a (cpu-O0) vs b (cpu-O3): b vs side a: output 0: 6/6 elements differ (atol=0.0001, rtol=0.0001); " \
             "max abs err 1, max rel err 0.85"
    split = ItemRecord(case="topk::n=2,op=plus", item="differ-o0-vs-o3", outcome="differ-fail", verdict="FAIL",
                       differ="o0-vs-o3", compiler="3.13.0rc20261016", stages=[StageResult("differ", "fail", detail)])
    [block] = drafts(sweep, [split])
    assert 'differ = ["o0-vs-o3"]' in block and "targets" not in block and "opt_levels" not in block
    path.write_text(path.read_text() + "\n" + block)
    again = load_sweep(path)
    [entry] = again.expectations_for({"op": "plus", "n": 2})
    assert entry["differ"] == ["o0-vs-o3"] and entry["outcome"] == "differ-fail"
    parsed = again.parsed_expectations()[0]
    assert parsed.covers(None, None, None, "o0-vs-o3") and not parsed.covers("cpu", "O0", None, None)


@pytest.mark.harness
def test_lint_wants_a_match_a_where_and_no_generic_message(tmp_path):
    body = (TINY + expect("", outcome="compile-fail", reason="planted: no match, no where")
            + expect('op = ["plus"]', "error:", "compile-fail", "planted: generic"))
    path = write_sweep(tmp_path, body)
    other = ItemRecord(case="some-case", item="cpu-O0", outcome="compile-fail", verdict="FAIL",
                       stages=[StageResult("compile", "fail", "error: anything at all")])
    fields = {p.field for p in lint_sweep(path, [other])}
    assert {"expect[0].match", "expect[0].where", "expect[1].match"} <= fields
    for spec in sorted((ROOT / "sweeps").glob("*.toml")):
        # (a same_as nothing here can check is said, as unchecked: not a problem)
        assert [p for p in lint_sweep(spec, []) if not p.unchecked] == [], spec.name


def test_variants_run_as_items_and_only_their_own_bug_is_expected(pytester, fake_tools, monkeypatch):
    """A planted fault (every run gives wrong numbers): each variant's items FAIL, except
    where an expectation with the bug's message covers the variant."""
    body = TINY + expect('op = ["plus"], n = [4]', "output 0: 12/12 elements differ")
    write_sweep(pytester.path, body)
    reports = pytester.path / "reports"
    args = plugin_args(fake_tools, pytester.path / "cache", reports)
    result = pytester.runpytest(*args, "sweeps", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["*sweeps/tiny.toml::n=2,op=plus::cpu-O0"])
    assert "tiny.py" not in result.stdout.str()  # the builder is not a test module
    monkeypatch.setenv("IREE_REGRESS_FAKE_IREE_RUN_MODE", "wrong")
    pytester.runpytest(*args, "sweeps")
    _, items = results_by_item(reports)
    assert len(items) == 8
    verdicts = {k: r["verdict"] for k, r in items.items()}
    assert verdicts["topk::n=4,op=plus::cpu-O0"] == "XFAIL"
    assert verdicts["topk::n=2,op=plus::cpu-O3"] == "FAIL"  # 6 elements differ: not the bug
    assert all(v == "FAIL" for k, v in verdicts.items() if "op=same" in k)
    record = items["topk::n=2,op=same::cpu-O0"]
    assert record["family"] == "topk" and [s["stage"] for s in record["stages"]] == \
        ["import", "compile", "run", "compare"]
    monkeypatch.setenv("IREE_REGRESS_FAKE_IREE_RUN_MODE", "identity")
    pytester.runpytest(*args, "sweeps", "--no-iree-cache")  # runs are cached by module and inputs
    _, items = results_by_item(reports)
    assert items["topk::n=4,op=plus::cpu-O0"]["verdict"] == "XPASS"
    assert items["topk::n=2,op=same::cpu-O0"]["verdict"] == "PASS"


def test_a_variant_pytorch_cannot_run_fails_on_its_reference_stage_even_when_retried(pytester, fake_tools):
    """A planted fault in the program itself: no golden, so the item ends on the
    reference stage, a FAIL (never a pass); a retry makes the variant anew and agrees."""
    write_sweep(pytester.path, TINY.replace('op = ["same", "plus"]', 'op = ["broken"]')
                .replace("n = [2, 4]", "n = [2]").replace('cpu = ["O0", "O3"]', 'cpu = ["O0"]'))
    reports = pytester.path / "reports"
    pytester.runpytest(*plugin_args(fake_tools, pytester.path / "cache", reports), "sweeps",
                       "--retries", "1")
    _, items = results_by_item(reports)
    record = items["topk::n=2,op=broken::cpu-O0"]
    assert (record["outcome"], record["verdict"]) == ("reference-fail", "FAIL")
    assert "planted" in record["stages"][0]["log"]
    assert record["attempts"] == ["reference-fail", "reference-fail"]


def test_commands_take_a_variant_by_its_ref(tmp_path, monkeypatch):
    """repro, bisect, triage and run-bundle name a variant as records do."""
    from harness.refs import parse_ref

    write_sweep(tmp_path, TINY)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("IREE_REGRESS_CACHE", str(tmp_path / "cache"))
    case, item = parse_ref("topk::n=2,op=plus::cpu-O3")
    assert (case.slug, str(item)) == ("topk::n=2,op=plus", "cpu-O3")
    assert (case.expected_dir / "output0.npy").is_file()  # its golden was made
    assert parse_ref("topk::n=2,op=plus")[1] is None
    from harness.case import CaseError

    with pytest.raises(CaseError, match="no variant 'n=3,op=plus'"):  # library code raises;
        parse_ref("topk::n=3,op=plus::cpu-O3")
    with pytest.raises(CaseError, match="has no item 'cpu-O1'"):  # only the cli exits
        parse_ref("topk::n=2,op=plus::cpu-O1")


def test_a_variant_is_promoted_to_a_case_that_loads(tmp_path, monkeypatch):
    """`sweep promote`: the variant's program, golden, family and tolerances as a case."""
    from harness.case import load_case
    from harness.cli import main as cli_main

    write_sweep(tmp_path, TINY)
    (tmp_path / "cases").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("IREE_REGRESS_CACHE", str(tmp_path / "cache"))
    assert cli_main(["sweep", "promote", "topk::n=4,op=plus::cpu-O0", "--slug", "tiny-plus"]) == 0
    case = load_case(tmp_path / "cases" / "tiny-plus" / "case.toml")
    assert (case.family, case.found_by, tuple(case.issues)) == ("topk", "iree-regress sweep", ())
    assert (case.atol, case.rtol) == (1e-5, 1e-5)
    assert "return x + 0" in (case.dir / "model.py").read_text()
    assert (case.expected_dir / "output0.npy").is_file()
    with pytest.raises(SystemExit, match="already exists"):
        cli_main(["sweep", "promote", "topk::n=4,op=plus", "--slug", "tiny-plus"])
    # A variant's flag set is part of what it is: a promoted case keeps it.
    write_sweep(tmp_path, TINY.replace('n = [2, 4]', 'n = [2, 4]\nflags = ["default", "tiled"]')
                + '\n[flag_sets]\ndefault = []\ntiled = ["--iree-opt-data-tiling=true"]\n')
    assert cli_main(["sweep", "promote", "topk::flags=tiled,n=4,op=plus", "--slug", "tiny-tiled"]) == 0
    assert load_case(tmp_path / "cases" / "tiny-tiled" / "case.toml").flags == ("--iree-opt-data-tiling=true",)


@pytest.mark.harness
def test_a_same_as_naming_an_unrelated_case_fails_lint():
    """same_as is a claim: the attention sweep's fully-masked-row expectation may name
    sdpa-fully-masked-row-nan only with a match that takes that case's stored sample (its
    own names this sweep's element counts); planted with topk-sigmoid (a guard with no such
    bug) or topk-dynamic-slice (a compile-fail bug), lint refuses it."""
    import dataclasses

    from harness.lint import _same_as_problems
    from harness.sweep.spec import load_sweep

    sweep = load_sweep(Path(__file__).resolve().parent.parent / "sweeps" / "attention.toml")
    parsed = sweep.parsed_expectations()
    i = next(j for j, e in enumerate(parsed) if "sdpa-fully-masked-row-nan" in e.reason and e.outcome == "compare-fail")
    # Its match names this sweep's counts; the bug's own words (NaN rows, no Inf) take the case's sample.
    bug_words = dataclasses.replace(parsed[i], match=re.compile(r"max abs err inf, max rel err \S+ \(got [1-9]\d* NaN, 0 Inf\)"))
    # Measured disagreement: a failure of the case's own in the results that the match does not take.
    theirs = ItemRecord(case="sdpa-fully-masked-row-nan", item="cpu-O0", outcome="compare-fail", verdict="XFAIL",
                        target="cpu", opt_level="O0",
                        stages=[StageResult("compare", "fail", "output 0: 16/64 elements differ; max abs err inf")])
    assert _same_as_problems([dataclasses.replace(parsed[i], same_as=("sdpa-fully-masked-row-nan",))], {},
                             failures=[theirs])
    assert _same_as_problems([dataclasses.replace(bug_words, same_as=("sdpa-fully-masked-row-nan",))], {}) == []
    for planted in ("topk-sigmoid", "topk-dynamic-slice"):
        problems = _same_as_problems([dataclasses.replace(bug_words, same_as=(planted,))], {})
        assert len(problems) == 1 and planted in problems[0][1], problems


@pytest.mark.harness
def test_another_sweeps_failure_is_an_entrys_own_only_when_both_name_the_same_case():
    """The ONNX attention and transpose sweeps both fail with the data-tiling verifier error
    of case onnx-batch-matmul-data-tiling-delinearize-basis: each entry may take the other
    sweep's failure only while both say same_as that case (lint's declared_same_as)."""
    from harness.lint import declared_same_as, lint_sweep

    sweeps = Path(__file__).resolve().parent.parent / "sweeps"
    text = ("exit code 1: model.mlir:7:10: error: 'affine.delinearize_index' op no basis element may be "
            "statically non-positive\n    %3 = torch.operator \"onnx.MatMul\"(%2, %arg1)")

    def failing(case):
        return ItemRecord(case=case, item="cpu-O0", outcome="compile-fail", verdict="XFAIL", target="cpu",
                          opt_level="O0", compiler="3.13.0", stages=[StageResult("compile", "fail", text)])

    failures = [failing("attention-onnx::flags=data_tiling,seed=24"),
                failing("transpose-onnx::flags=data_tiling,seed=152")]
    generic = [p for p in lint_sweep(sweeps / "transpose_onnx.toml", failures, (), declared_same_as(failures))
               if "is generic" in p.message]
    assert generic == []
    # Without the other sweep's claim (no same_as map), the shared message is generic.
    generic = [p for p in lint_sweep(sweeps / "transpose_onnx.toml", failures, (), {}) if "is generic" in p.message]
    assert generic and "attention-onnx" in generic[0].message


@pytest.mark.harness
def test_a_grid_failure_is_a_flag_entrys_own_only_under_the_very_same_claim(tmp_path, monkeypatch):
    """A grid and the grid under flags: the flags entry may take the grid's failure when the
    grid's own entry takes it with the very outcome and match (lint's declared_matches);
    with another match on the grid's side the shared message is generic."""
    import harness.lint as lint
    from harness.lint import declared_matches, lint_sweep

    entry = expect('op = ["plus"]', match="invalid dimension [0-9]", outcome="compile-fail", reason="planted")
    write_sweep(tmp_path, TINY + entry)
    flagged = tmp_path / "sweeps" / "tiny_flags.toml"
    flagged.write_text(FLAGGED + entry)

    def failing(case):
        return ItemRecord(case=case, item="cpu-O0", outcome="compile-fail", verdict="XFAIL", target="cpu",
                          opt_level="O0", compiler="3.13.0",
                          stages=[StageResult("compile", "fail", "exit code 1: m.mlir:1:2: error: invalid dimension 3")])

    failures = [failing("topk::n=4,op=plus"), failing("tiny-flags::flags=tiled,n=4,op=plus")]
    sweeps = {s.name: s for s in (load_sweep(tmp_path / "sweeps" / "tiny.toml"), load_sweep(flagged))}
    monkeypatch.setattr(lint, "sweeps_by_name", lambda: sweeps)  # the tmp sweeps, not the repository's
    assert [p for p in lint_sweep(flagged, failures, (), {}, declared_matches(failures))
            if "is generic" in p.message] == []
    # The grid's entry says it with another match: not the same claim.
    write_sweep(tmp_path, TINY + entry.replace("invalid dimension [0-9]", "invalid dim"))
    sweeps["topk"] = load_sweep(tmp_path / "sweeps" / "tiny.toml")
    generic = [p for p in lint_sweep(flagged, failures, (), {}, declared_matches(failures)) if "is generic" in p.message]
    assert generic and "topk::n=4,op=plus" in generic[0].message, generic


@pytest.mark.harness
def test_a_scan_disposes_of_a_flagged_failure_by_the_grids_entry_for_the_same_variant(tmp_path):
    """`sweep scan` of a grid under flags over releases: a failure the grid's own entry for
    the same variant takes (its match, on its releases), or an explained entry naming the
    grid, is that entry's; another message, or a release the entry does not name, stays
    unexplained."""
    from harness.results import ResultsWriter
    from harness.sweep.explained import load_explained
    from harness.sweep.scan import groups, read_scan

    grid_entry = expect('op = ["plus"]', match="invalid dimension [0-9]", outcome="compile-fail",
                        reason="the bug of case tiny-case").replace('compiler = ">=3.0"', 'compiler = ">=3.1,<3.3"')
    write_sweep(tmp_path, TINY + grid_entry)
    path = tmp_path / "sweeps" / "tiny_flags.toml"
    path.write_text(FLAGGED)
    flagged = load_sweep(path)
    sweeps = {"tiny-flags": flagged}
    table = tmp_path / "scan.toml"
    table.write_text(f'[[explain]]\nsweeps = ["{flagged.grid.name}"]\ncompiler = ">=3.1.0"\n'
                     'outcome = "compile-fail"\nmatch = "failed to legalize"\nreason = "an importer gap"\n')
    assert flagged.grid.name != flagged.name  # the entry names the grid only
    releases = ["3.0.0", "3.1.0", "3.2.0", "3.3.0"]
    failing = {  # variant: (message, releases it fails on)
        "flags=tiled,n=4,op=plus": ("invalid dimension 3", {"3.1.0", "3.2.0"}),  # the grid's entry takes it
        "flags=fused,n=4,op=plus": ("unbounded stack allocation", {"3.1.0", "3.2.0"}),  # another message
        "flags=tiled,n=2,op=same": ("failed to legalize 'x'", {"3.1.0", "3.2.0"}),  # explained, via the grid
        "flags=fused,n=2,op=same": ("invalid dimension 3", {"3.3.0"}),  # a release the entry does not name
    }

    def record(variant, release):
        text, bad_on = failing.get(variant, ("", set()))
        bad = release in bad_on
        return ItemRecord(case=f"tiny-flags::{variant}", item="cpu-O0", outcome="compile-fail" if bad else "pass",
                          verdict="FAIL" if bad else "PASS", target="cpu", opt_level="O0",
                          compiler=f"{release}rc20250101",
                          stages=[StageResult("compile", "fail", f"error: {text}")] if bad else
                          [StageResult("compile", "ok")])

    for release in releases:
        writer = ResultsWriter(tmp_path / "scan" / release / "results.jsonl")
        writer.start({"run_id": release})
        for v in flagged.variants():
            writer.append(record(v.id, release))
    said = {h.key.split("::")[1]: g.disposition  # (a group is a window and a message: say each item's)
            for g in groups(read_scan(tmp_path / "scan", releases), sweeps, load_explained(table)) for h in g.items}
    assert said["flags=tiled,n=4,op=plus"] == "explained: the bug of case tiny-case"
    assert said["flags=tiled,n=2,op=same"] == "explained: an importer gap"
    assert said["flags=fused,n=4,op=plus"].startswith("unexplained")
    assert said["flags=fused,n=2,op=same"].startswith("unexplained")


def test_a_differential_sweep_is_judged_by_its_differ_items_and_a_planted_split_is_a_scan_group(
        pytester, fake_tools, monkeypatch):
    """oracle = "differential": an item passes by running to the end (no golden compare);
    the [[differ]] item is the verdict. Planted: a fake release that miscompiles at O3
    only. The split fails the differential item (and only its own expectation takes it);
    the same sweep on a release without the fault agrees, and the scan over the two
    releases finds the differential item changing."""
    from harness.sweep.scan import read_scan

    write_sweep(pytester.path, DIFFERENTIAL + expect('op = ["plus"], n = [4]', "output 0: 12/12 elements differ",
                                                     outcome="differ-fail")
                .replace('targets = ["cpu"]', 'differ = ["o0-vs-o3"]'))
    result = pytester.runpytest(*plugin_args(fake_tools, pytester.path / "cache", pytester.path / "r"),
                                "sweeps", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["*sweeps/tiny.toml::n=2,op=plus::differ-o0-vs-o3"])
    by_release = {}
    for release, fault in (("3.0.0", None), ("3.1.0", "O3")):
        if fault:
            monkeypatch.setenv("IREE_REGRESS_FAKE_WRONG_AT", fault)
        reports = pytester.path / "scan" / release
        pytester.runpytest(*plugin_args(fake_tools, pytester.path / "cache", reports), "sweeps", "--no-iree-cache")
        _, by_release[release] = results_by_item(reports)
    clean, faulty = by_release["3.0.0"], by_release["3.1.0"]
    assert len(clean) == len(faulty) == 12  # 4 variants x (cpu-O0, cpu-O3, differ-o0-vs-o3)
    assert {r["verdict"] for k, r in clean.items() if "op=same" in k} == {"PASS"}
    assert clean["topk::n=4,op=plus::differ-o0-vs-o3"]["verdict"] == "XPASS"  # the expectation is the fault's
    record = faulty["topk::n=2,op=same::cpu-O3"]  # wrong numbers, but no golden: ran to the end
    assert (record["verdict"], [s["stage"] for s in record["stages"]]) == ("PASS", ["import", "compile", "run"])
    split = faulty["topk::n=2,op=same::differ-o0-vs-o3"]
    assert (split["outcome"], split["verdict"]) == ("differ-fail", "FAIL")
    assert "a (cpu-O0) vs b (cpu-O3): b vs side a: output 0: 6/6 elements differ" in split["stages"][-1]["detail"]
    assert split["stages"][-1]["data"]["sides"] == ["cpu-O0", "cpu-O3"]  # what the majority reads
    assert faulty["topk::n=4,op=plus::differ-o0-vs-o3"]["verdict"] == "XFAIL"
    scan = read_scan(pytester.path / "scan", ["3.0.0", "3.1.0"])
    changed = {h.key for h in scan.found}
    assert "topk::n=2,op=same::differ-o0-vs-o3" in changed
    assert not any(k.endswith(("cpu-O0", "cpu-O3")) for k in changed)


@pytest.mark.harness
def test_another_cases_failure_is_an_entrys_own_only_when_both_name_the_same_case():
    """Two cases' index_puts over a dynamic dim abort on 3.1.0 with the stack of case
    index-put-dynamic-unit-dim-collapse (measured, frame for frame), and each says so with
    same_as: one case's entry may take the other's failure while both name that case; with
    no claim on the other side (no declared map) the shared message is generic."""
    from harness.lint import declared_same_as, lint_case

    cases = Path(__file__).resolve().parent.parent / "cases"
    text = "crashed (SIGABRT): at void llvm::function_ref<void ()>::callback_fn<mlir::PatternApplicator::matchAndRewrite"
    rank = "exit code 1: model.mlir:8:10: error: Rank Mismatch for Query. Expected: 4 Got: 3"
    failures = [ItemRecord(case="attention-graph::seed=1605", item="cpu-O0", outcome="compile-fail", verdict="XFAIL",
                           target="cpu", opt_level="O0", compiler="3.13.0", stages=[StageResult("compile", "fail", rank)]),
                ItemRecord(case="index-put-accumulate-self-updates-dynamic-unbounded-stack", item="cpu-O0",
                           outcome="compile-crash", verdict="XFAIL", target="cpu", opt_level="O0", compiler="3.1.0",
                           stages=[StageResult("compile", "crash", text)])]
    manifest = cases / "index-put-dynamic-store-into-readonly-binding" / "case.toml"
    assert [p for p in lint_case(manifest, failures, declared_same_as(failures)) if "is generic" in p.message] == []
    generic = [p for p in lint_case(manifest, failures, {}) if "is generic" in p.message]
    assert generic and "index-put-accumulate-self-updates-dynamic-unbounded-stack" in generic[0].message
