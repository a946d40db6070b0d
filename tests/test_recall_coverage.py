"""Recall on the suite's history and op-pair coverage: computed from records and recipes,
each shown failing on a planted fault."""

import re

import pytest

from harness.case import CaseError, Window
from harness.record import ItemRecord
from harness.sweep.coverage import held_pairs, read_survey_pairs, summary_line, Row as SurveyRow
from harness.sweep.recall import Target, catches, markdown, recall, share, why_missed
from harness.sweep.scan import ItemHistory, Scan

RELEASES = ["3.3.0", "3.4.0", "3.5.0", "3.6.0"]
BUG = "error: 'tensor.expand_shape' op expected number of static shape dims"


def history(key, outcomes, text=BUG, ops=("index_put",)):
    h = ItemHistory(key)
    for release, outcome in outcomes.items():
        h.outcomes[release] = outcome
        if outcome != "pass":
            h.records[release] = ItemRecord.from_dict({
                "case": key, "item": "cpu-O0", "outcome": outcome, "verdict": "FAIL",
                "traits": [f"op={o}" for o in ops],
                "stages": [{"stage": "compile", "status": "fail", "detail": text, "log": ""}]})
    return h


def target(outcome="compile-fail", match=r"expected number of static shape dims"):
    w = Window(first_bad="3.4.0", last_bad="3.5.0", last_good="3.3.0", first_good="3.6.0")
    return Target("case-a", "scatter", w, (outcome,), re.compile(match) if match else None)


def test_an_item_catches_a_case_only_with_its_signature_in_its_window():
    t = target()
    right = history("g::seed=1::cpu-O0", {"3.3.0": "pass", "3.4.0": "compile-fail", "3.5.0": "compile-fail", "3.6.0": "pass"})
    assert catches(t, right)
    # planted: each way it is not the case's bug
    still_bad = history("g::seed=2::cpu-O0", {"3.4.0": "compile-fail", "3.5.0": "compile-fail", "3.6.0": "compile-fail"})
    other_message = history("g::seed=3::cpu-O0", {"3.4.0": "compile-fail", "3.5.0": "compile-fail", "3.6.0": "pass"},
                            text="error: failed to bufferize op")
    onset_bad = history("g::seed=4::cpu-O0", {"3.3.0": "compile-fail", "3.4.0": "compile-fail", "3.5.0": "compile-fail",
                                              "3.6.0": "pass"})
    half_window = history("g::seed=5::cpu-O0", {"3.4.0": "compile-fail", "3.5.0": "pass", "3.6.0": "pass"})
    never_in_window = history("g::seed=6::cpu-O0", {"3.6.0": "pass"})
    for h in (still_bad, other_message, onset_bad, half_window, never_in_window):
        assert not catches(t, h), h.key
    # an unsupported release inside the window hides the bug there: no pass, still caught
    hidden = history("g::seed=8::cpu-O0", {"3.4.0": "unsupported", "3.5.0": "compile-fail", "3.6.0": "pass"})
    assert catches(t, hidden)
    # wrong numbers carry no message from one program to another: the outcome, the window and
    # one of the case's own ops are the signature
    numbers = Target("case-n", "other", t.window, ("compare-fail",), re.compile(r"output 0: \(27\)/75"),
                     frozenset({"remainder", "add"}))
    wrong = {"3.4.0": "compare-fail", "3.5.0": "compare-fail", "3.6.0": "pass"}
    assert catches(numbers, history("g::seed=7::cpu-O0", wrong, text="output 1: 3/8 elements differ",
                                    ops=("remainder", "flip")))
    assert not catches(numbers, history("g::seed=9::cpu-O0", wrong, ops=("flip",)))  # none of its ops
    assert not catches(numbers, history("g::seed=10::cpu-O0", wrong, ops=("add",)))  # add says nothing
    # nor a cast or a compare (measured: a bf16 cast alone took rshift-signedness-swapped's credit)
    shift = Target("case-r", "other", t.window, ("compare-fail",), None, frozenset({"shift", "cast", "compare"}))
    assert not catches(shift, history("g::seed=11::cpu-O0", wrong, ops=("cast", "compare", "amax")))
    assert catches(shift, history("g::seed=12::cpu-O0", wrong, ops=("shift",)))
    # a window of a real model names ATen ops: read as the calls they are (a T5 window's sdpa)
    sdpa = Target("case-s", "attention", t.window, ("compare-fail",), None, frozenset({"sdpa"}))
    assert catches(sdpa, history("w::window=t5.sdpa.down3::cpu-O0", wrong, ops=("scaled_dot_product_attention",)))
    assert not catches(sdpa, history("w::window=t5.linear.up2::cpu-O0", wrong, ops=("linear",)))
    # a wrong shape is another symptom than wrong values, each as the case's own sample shows
    # (measured: a grouped conv_transpose2d's wrong shape took f32-to-f16-truncf-generic-cpu's
    # credit through a shared expand)
    values = Target("case-v", "other", t.window, ("compare-fail",), None, frozenset({"expand"}), wrong_shape=False)
    import numpy as np

    from harness.compare import _wrong_shape

    # the words the comparison itself writes, so the pattern cannot drift from them
    shape = _wrong_shape(0, np.zeros((3, 2, 13, 13)), np.zeros((3, 6, 13, 13))).message
    assert not catches(values, history("g::seed=13::cpu-O0", wrong, text=shape, ops=("expand",)))
    assert catches(values, history("g::seed=14::cpu-O0", wrong, text="output 0: 1/1 elements differ", ops=("expand",)))
    shaped = Target("case-w", "other", t.window, ("compare-fail",), None, frozenset({"expand"}), wrong_shape=True)
    assert catches(shaped, history("g::seed=15::cpu-O0", wrong, text=shape, ops=("expand",)))
    assert not catches(shaped, history("g::seed=16::cpu-O0", wrong, text="output 0: 1/1 elements differ", ops=("expand",)))


def test_a_case_program_s_ops_are_read_from_its_source():
    from harness.sweep.recall import ops_spelled

    source = "y = x.permute(1, 0) % 3\nz = torch.index_select(y, 0, i) >> 1\nreturn torch.cumsum(z, 0)"
    assert {"permute", "remainder", "index_select", "shift", "cumsum"} <= ops_spelled(source)
    assert "sdpa" not in ops_spelled(source)


def test_a_name_spells_no_op():
    """A variable or a mode named like an op is not the op: case ui8-add-sub-sign-extended's
    `shifted = u + f` read as a shift, so a shift program could take its credit (found by
    reading the near misses); bilinear, perform and transforms spelled linear, erf, rms."""
    from harness.sweep.recall import ops_spelled

    names = ("shifted = u + f\nmode = 'bilinear'  # nonlinear\n"
             "performed = transforms + x")
    assert ops_spelled(names) == frozenset()
    calls = "a = x >> 2\nb = torch.bitwise_right_shift(u, s)\nc = self.linear(torch.erf(x))\nd = nn.Linear(4, 5)"
    assert {"shift", "linear", "erf"} <= ops_spelled(calls)


def test_a_case_s_ops_are_those_its_computation_runs_and_every_library_op_is_spelled():
    """A model file's export call spells exp and its docstring a compare: only forward(),
    __init__() and an MLIR case's reference() are read (a fault found by reading: the
    replication-pad case held exp and compare, so any exp program in its window could take
    its credit). Every library op but add and mul has a spelling: an op without one could
    never share a case's op (the wide-graph ops had none)."""
    from harness.sweep.ops import LIBRARY
    from harness.sweep.recall import SPELLINGS, computation, ops_spelled

    model = ('"""A pad that drops N*C > 1."""\nimport torch\n\nclass Model(torch.nn.Module):\n'
             '    def __init__(self):\n        super().__init__()\n        self.conv = torch.nn.Conv2d(2, 2, 3)\n\n'
             '    def forward(self, x):\n        """docstring: x.sum() < 3"""\n'
             '        return torch.nn.functional.pad(self.conv(x), (1, 1), mode="replicate")\n\n\n'
             'def dynamic_shapes():\n    return torch.export.Dim("n")\n')
    assert ops_spelled(computation(model)) == {"pad", "pad_replicate", "conv2d"}
    assert {"exp", "compare", "sum"} <= ops_spelled(model)  # what reading the whole file gave
    reference = "import torch\n\ndef reference(x, n):\n    return x.permute(0, 2, 1) < 3\n"
    assert ops_spelled(computation(reference)) == {"permute", "compare"}
    assert set(LIBRARY) - set(SPELLINGS) == {"add", "mul"}


def test_recall_rows_say_what_caught_each_case_or_why_not():
    scan = Scan(RELEASES, {}, {h.key: h for h in [
        history("g::seed=1::cpu-O0", {"3.3.0": "pass", "3.4.0": "compile-fail", "3.5.0": "compile-fail", "3.6.0": "pass"})]})
    empty = Scan(RELEASES, {}, {})
    missed = Target("case-b", "other", Window("3.4.0", "3.5.0", None, "3.6.0"), ("run-crash",), None,
                    frozenset({"topk"}))
    rows = recall([target(), missed], {"graph": scan, "old": empty})
    assert share(rows, "graph") == (1, 2) and share(rows, "old") == (0, 2)
    assert rows[0].caught_by["graph"] == "g::seed=1::cpu-O0"
    assert why_missed(missed, scan) == "no program shows run-crash inside the window"
    glue = Target("case-g", "other", missed.window, ("compare-fail",), None, frozenset({"add", "cast"}))
    assert why_missed(glue, scan).startswith("its program holds only glue ops (add, cast)")
    text = markdown(rows, {"graph": scan, "old": empty}, {"graph": "1 program", "old": "none"})
    assert text.rstrip().endswith("overall recall: 1 of 2 (50%)")
    assert "| case-a | scatter | 3.3.0 < [3.4.0 .. 3.5.0] < 3.6.0 | caught by `g::seed=1::cpu-O0` | missed:" in text


def test_survey_pairs_are_checked_against_the_library(tmp_path):
    bad = tmp_path / "pairs.toml"
    bad.write_text('[[row]]\nthread = "iree-org/iree#1"\npairs = [["permute", "topkk"]]\n')
    with pytest.raises(CaseError, match=r"pairs\.toml: field 'row\[0\]\.pairs\[0\]': 'topkk' is not an op"):
        read_survey_pairs(bad)
    bad.write_text('[[row]]\nthread = "iree-org/iree#1"\npairs = []\n')
    with pytest.raises(CaseError, match=r"field 'row\[0\]\.why': a row with no pairs says why"):
        read_survey_pairs(bad)
    good = tmp_path / "good.toml"
    good.write_text('[[row]]\nthread = "iree-org/iree#1"\npairs = [["permute", "topk"], ["topk", "gather"]]\n')
    rows = read_survey_pairs(good)
    assert summary_line(rows, {("permute", "topk"): 3}) == "op-pair coverage: 1 of 2 survey pairs (50%)"
    assert summary_line(rows, {}) == "op-pair coverage: 0 of 2 survey pairs (0%)"


def test_the_programs_pairs_are_their_recipes_pairs():
    held = held_pairs(3)
    assert held and all(a != "input" for a, _ in held)
    assert all(n >= 1 for n in held.values())
    assert held == held_pairs(3)  # seeded: the same every time


def test_the_survey_pairs_file_reads():
    rows = read_survey_pairs()
    assert len(rows) >= 100 and sum(1 for r in rows if r.pairs) >= 50


def test_the_recall_table_names_kept_scans_and_a_bad_one_is_named(tmp_path):
    """`sweep recall` with no --scan reads scans/recall.toml: each label's kept scans.
    A label that is not a list, or a folder that is not there, is refused naming both."""
    from harness.sweep.scan_records import recall_specs

    (tmp_path / "graph-a").mkdir()
    table = tmp_path / "recall.toml"
    table.write_text('[recall]\ngraph = ["graph-a"]\n')
    assert recall_specs(table) == [f"graph={tmp_path / 'graph-a'}"]
    table.write_text('[recall]\ngraph = ["graph-a", "graph-b"]\n')
    with pytest.raises(CaseError, match=r"recall\.toml: recall\.graph: no kept scan graph-b"):
        recall_specs(table)
    table.write_text('[recall]\ngraph = "graph-a"\n')
    with pytest.raises(CaseError, match=r"recall\.toml: recall\.graph: a list"):
        recall_specs(table)


def test_docs_recall_is_what_the_kept_scans_give():
    """docs/recall.md is computed, never written by hand: from the records scans/recall.toml
    names, recall's table is the file's (a doc edited by hand, or records changed without
    it, fails here)."""
    from harness.case import CASES_DIR, discover, load_case
    from harness.history.releases import PYPI_RELEASES
    from harness.sweep.recall import historic_targets, read_scans
    from harness.sweep.recall import describe
    from harness.sweep.scan_records import recall_specs

    scans = dict(read_scans(spec, list(PYPI_RELEASES)) for spec in recall_specs())
    targets = historic_targets([load_case(m) for m in discover(CASES_DIR)], list(PYPI_RELEASES))
    expected = markdown(recall(targets, scans), scans, {label: describe(s) for label, s in scans.items()})
    assert (CASES_DIR.parent / "docs" / "recall.md").read_text() == expected


def test_a_pick_holds_what_it_names_fewest_ops_first_and_adds_to_a_list(tmp_path):
    """`sweep pick`: every picked program holds each op named (with the dtype its value has,
    where named), smallest first; a second rule adds to the list and skips its programs;
    the list is what `sweep scan --items-from` reads. Planted: without the dtype, programs
    whose shift is not of a byte come in."""
    from harness.commands.sweep import _found_items
    from harness.sweep.graph import draw_graph
    from harness.sweep.pick import PickError, Rule, parse_holding, pick, read_picked, write_picked
    from harness.sweep.spec import sweeps_by_name

    def made(item):
        sweep, seed = item.split("::")[0], int(item.split("::")[1].split("=")[1])
        return [v for v in draw_graph(seed, sweep).values if v.op != "input"]

    rule = Rule(("int-graph",), *parse_holding("shift:u8"), seeds=800)
    items = pick(rule, 6, "cpu", ["O0"])
    assert len(items) == 6 and all(any(v.op == "shift" and v.type.dtype == "u8" for v in made(i)) for i in items)
    sizes = [len(made(i)) for i in items]
    assert sizes == sorted(sizes)
    loose = pick(Rule(("int-graph",), *parse_holding("shift"), seeds=300), 30, "cpu", ["O0"])
    assert any(not any(v.op == "shift" and v.type.dtype == "u8" for v in made(i)) for i in loose)
    out = tmp_path / "picked.json"
    write_picked(out, items)
    more = pick(rule, 6, "cpu", ["O0", "O3"], {i.rsplit("::", 1)[0] for i in read_picked(out)})
    assert not {i.rsplit("::", 1)[0] for i in more} & {i.rsplit("::", 1)[0] for i in items} and len(more) == 12
    ids = _found_items([sweeps_by_name()["int-graph"]], out)
    assert ids[0] == f"{sweeps_by_name()['int-graph'].path}::{items[0].split('::', 1)[1]}"
    edge = pick(Rule(("wide-graph-3",), *parse_holding("permute>length_mask"), seeds=400), 3, "cpu", ["O0"])
    for item in edge:
        seed = int(item.split("::")[1].split("=")[1])
        assert ("permute", "length_mask") in draw_graph(seed, "wide-graph-3").pairs
    with pytest.raises(PickError, match=r"'lenght_mask' is not an op"):
        parse_holding("permute>lenght_mask")
    with pytest.raises(PickError, match=r"--holding 'shiftt': 'shiftt' is not an op"):
        parse_holding("shiftt")
    with pytest.raises(PickError, match=r"'u9' is not a dtype"):
        parse_holding("shift:u9")


def test_a_scan_is_described_by_the_releases_its_programs_ran_on():
    """An O3 item has no verdict of its own before 3.3.0 (those releases have no levels):
    a program scanned at O3 only is still a fifteen-release program, not one 'in parts'.
    Planted: an O0 item missing the same releases is in parts."""
    from harness.sweep.recall import describe

    releases = ["3.1.0", "3.2.0", "3.3.0", "3.4.0"]
    o3 = history("g::seed=1::cpu-O3", {"3.3.0": "pass", "3.4.0": "pass"})
    whole = history("g::seed=2::cpu-O0", {r: "pass" for r in releases})
    assert describe(Scan(releases, {}, {h.key: h for h in (o3, whole)})) == "2 programs of g, 4 releases"
    o0 = history("g::seed=1::cpu-O0", {"3.3.0": "pass", "3.4.0": "pass"})
    assert describe(Scan(releases, {}, {h.key: h for h in (o0, whole)})) == \
        "2 programs of g, 2 to 4 releases a program (scans in parts)"
