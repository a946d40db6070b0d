"""Triage: the pass localisation and phase walk from fake dumps, the program's signature
and inputs, and one whole triage of a real case on two real releases."""

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from harness.triage.phases import differences
from harness.triage import passes
from harness.triage.program import SignatureError, inputs_for, signature, size


def dump(*sections):
    """`--mlir-print-ir-after-*` text: (pass class, flag, module) per section."""
    return "".join(f"// -----// IR Dump After {name} ({flag}) ('builtin.module' operation) //----- //\n{ir}\n"
                   for name, flag, ir in sections)


START = "%0 = linalg.transpose ins(%arg0) permutation = [1, 0] loc(\"m\":1:1)"


def test_the_culprit_is_the_first_pass_whose_module_the_good_release_never_made():
    canon = "%0 = linalg.transpose ins(%arg0) permutation = [1, 0]"
    wrong = "%0 = linalg.generic ins(%arg0) index on the old dim"
    right = "%0 = linalg.generic ins(%arg0) index remapped"
    good = dump(("Canonicalizer", "canonicalize", canon), ("PropagateLinalgTransposePass",
                 "iree-global-opt-propagate-linalg-transpose", right))
    # The bad release renamed an SSA value and runs a new pass first: neither counts.
    bad = dump(("NewNoOpPass", "iree-new-noop", canon.replace("%0", "%7")),
               ("PropagateLinalgTransposePass", "iree-global-opt-propagate-linalg-transpose", wrong))
    found = passes.first_changed_pass(START, good, START, bad)
    assert found.argument == "iree-global-opt-propagate-linalg-transpose"
    assert found.good_instead == "iree-global-opt-propagate-linalg-transpose"
    assert any(line.startswith("-") and "remapped" in line for line in found.diff)
    assert any(line.startswith("+") and "old dim" in line for line in found.diff)
    assert passes.first_changed_pass(START, good, START, good).argument == ""
    # A pass whose change a later pass undoes is not the culprit: the last agreement decides.
    detour = dump(("NewNoOpPass", "iree-new-noop", canon + " // reordered"),
                  ("Canonicalizer", "canonicalize", canon),
                  ("PropagateLinalgTransposePass", "iree-global-opt-propagate-linalg-transpose", wrong))
    assert passes.first_changed_pass(START, good, START, detour.replace("// reordered", "attr")).argument \
        == "iree-global-opt-propagate-linalg-transpose"


TARGET_38 = ('#executable_target_embedded_elf_x86_64_ = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", '
             '{cpu = "znver4", native_vector_size = 64 : i64}>\n')
TARGET_39 = ('#executable_target_embedded_elf_x86_64 = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", '
             '{cpu = "znver4", iree.encoding.resolver = #iree_cpu.cpu_encoding_layout<>, '
             'max_stack_allocation_size = 32768 : i64, native_vector_size = 64 : i64}>\n')


def test_target_attribute_noise_does_not_move_the_named_pass():
    """Releases whose executable target attributes differ (an extra resolver key, another
    alias name) agree on every module until the pass that really differs; one pass only
    the bad release runs is listed as a suspect, and the diff says which release is which."""
    variant = "hal.executable.variant public @x target({alias}) {{ {body} }}"
    good = dump(("FormDispatchRegionsPass", "iree-dispatch-creation-form-dispatch-regions",
                 TARGET_38 + variant.format(alias="#executable_target_embedded_elf_x86_64_", body="regions")),
                ("FuseFooPass", "iree-fuse-foo",
                 TARGET_38 + variant.format(alias="#executable_target_embedded_elf_x86_64_", body="fused right")))
    bad = dump(("FormDispatchRegionsPass", "iree-dispatch-creation-form-dispatch-regions",
                TARGET_39 + variant.format(alias="#executable_target_embedded_elf_x86_64", body="regions")),
               ("CollapseDimensionsPass", "iree-dispatch-creation-collapse-dimensions",
                TARGET_39 + variant.format(alias="#executable_target_embedded_elf_x86_64", body="collapsed")),
               ("FuseFooPass", "iree-fuse-foo",
                TARGET_39 + variant.format(alias="#executable_target_embedded_elf_x86_64", body="fused wrong")))
    found = passes.first_changed_pass(TARGET_38 + START, good, TARGET_39 + START, bad,
                                      labels=("IREE 3.8.0", "IREE 3.9.0"))
    assert found.argument == "iree-dispatch-creation-collapse-dimensions", found
    assert found.only_bad == ("iree-dispatch-creation-collapse-dimensions",) and found.only_good == ()
    assert found.good_instead == "iree-fuse-foo"  # what the good release made of the same module
    assert found.diff[0].startswith("--- IREE 3.8.0 after iree-fuse-foo")
    assert found.diff[1].startswith("+++ IREE 3.9.0 after iree-dispatch-creation-collapse-dimensions")


def test_the_failing_pass_of_a_local_reproducer():
    pipeline = "builtin.module(hal.executable(hal.executable.variant(builtin.module(func.func(" \
               "iree-llvmcpu-check-ir-before-llvm-conversion{fail-on-out-of-bounds=true})))))"
    assert passes.innermost(pipeline) == "iree-llvmcpu-check-ir-before-llvm-conversion"


def test_every_differing_phase_in_order_then_where_the_bad_release_stopped(tmp_path):
    def phases(folder, texts):
        folder.mkdir()
        for i, (name, text) in enumerate(texts, 1):
            (folder / f"m.{i}.{name}.mlir").write_text(text)
        return folder

    good = phases(tmp_path / "good", [("input", "a"), ("flow", "f"), ("stream", "s"), ("hal", "h")])
    bad = phases(tmp_path / "bad", [("input", "a"), ("flow", "F"), ("stream", "S")])
    found = [(d.phase, bool(d.missing)) for d in differences(good, bad)]
    assert found == [("flow", False), ("stream", False), ("hal", True)]


def test_signature_and_inputs():
    sig = signature("util.func public @main(%arg0: tensor<?x3xf32> {x.y}, %arg1: tensor<i1>)"
                    " -> (tensor<?xi64>, tensor<2xf32>) attributes {a} {")
    assert [t.dims for t in sig.args] == [(None, 3), ()] and len(sig.results) == 2
    case_inputs = [np.ones((5, 3), np.float32), np.array(True)]
    assert inputs_for(sig, case_inputs)[0] is not case_inputs and \
        inputs_for(sig, case_inputs)[1] == "the case's inputs"
    made, how = inputs_for(sig, [np.ones((5, 4), np.float32)])  # does not fit: generated
    again, _ = inputs_for(sig, [])
    assert "generated" in how and made[0].shape == (4, 3) and np.array_equal(made[0], again[0])
    with pytest.raises(SignatureError, match="argument 0 is a !hal.buffer_view"):
        signature("util.func public @main(%arg0: !hal.buffer_view) -> !hal.buffer_view {")
    text = "#loc1 = loc(\"m.py\":3:1)\nmodule {\n  %0 = arith.addf %a, %b : f32 loc(#loc1)\n\n  util.return %0 : f32\n}\n"
    assert size(text) == (2, 4)


# --------------------------------------------------------------- real releases (PyPI)

CASE, ITEM, GOOD, BAD = "transpose-propagation-index-semantics", "cpu-O3", "3.0.0", "3.1.0"


@pytest.fixture(scope="module")
def triaged(tmp_path_factory):
    """`iree-regress triage` of a wrong-numbers case between its real last good and first
    bad releases (installed under the cache on first use)."""
    out = tmp_path_factory.mktemp("triage") / "bundle"
    repo = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-m", "harness.cli", "triage", f"{CASE}::{ITEM}",
                           "--good", GOOD, "--bad", BAD, "--out", str(out)],
                          cwd=repo, capture_output=True, text=True, timeout=1200)
    if "cannot install IREE" in done.stdout + done.stderr:
        pytest.skip("the releases cannot be installed here (no package index)")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out, json.loads((out / "TRIAGE.json").read_text())


def test_triage_names_the_boundary_phase_and_pass(triaged):
    _, data = triaged
    assert (data["bad"]["version"], data["good"]["version"]) == (BAD, GOOD)
    assert data["bad"]["revision"].startswith("d2242207") and data["good"]["revision"].startswith("29c451b0")
    assert data["phase"] == "global-optimization"
    assert all("as expected" in line for line in data["confirmation"])
    assert data["pass"] == "iree-global-opt-propagate-linalg-transpose"


def test_the_reduced_program_shows_the_bug_on_the_bad_release_only(triaged):
    """Asked again, outside the triage: the bad release's outputs differ from the good
    release's expected/ ones, and the good release reproduces its own."""
    from harness.triage.oracle import Question, interesting, shows_bug

    out, data = triaged
    assert data["reduced_shows_bug"] is True
    q = Question.load(out / "work" / "question.json")
    program = out / "input.mlir"
    yes, why = interesting(q, program)
    assert yes, why
    reference = [np.load(p) for p in sorted((out / "expected").glob("*.npy"))]
    assert shows_bug(q, q.bad, program, (), reference)[0] is True
    assert shows_bug(q, q.good, program, (), reference)[0] is False


def test_issue_md_steps_run_as_pasted_in_an_empty_folder_and_show_the_bug(triaged, tmp_path):
    """ISSUE.md's shell blocks, pasted into an empty folder where each release's packages
    are installed (a venv per release, as the steps' pip line makes it): the whole program
    is wrong against the reference on the bad release and right on the good one, and the
    reduced program still differs between them."""
    from harness.history.releases import ReleaseSource, ensure

    out, _ = triaged
    issue = (out / "ISSUE.md").read_text()
    assert "compare-fail" not in issue.split("\n", 1)[0]  # a title in plain words
    blocks = re.findall(r"```sh\n(.*?)```", issue, re.S)
    assert len(blocks) == 2, "the whole program against the reference, then the reduced one"
    empty = tmp_path / "maintainer"
    empty.mkdir()
    for version in (BAD, GOOD):
        tc = ensure(version, ReleaseSource(), log=lambda *a: None)
        bin_ = empty / f"iree-{version}" / "bin"
        bin_.mkdir(parents=True)
        for name, tool in (("iree-compile", tc.compile), ("iree-run-module", tc.run_module)):
            (bin_ / name).symlink_to(tool)
        (bin_ / "python").symlink_to(sys.executable)
    whole, reduced = (subprocess.run(["bash", "-c", b], cwd=empty, capture_output=True, text=True, timeout=300)
                      for b in blocks)
    said = whole.stdout + reduced.stdout
    assert re.search(rf"IREE {BAD}: output 0: [1-9]\d*/\d+ elements differ from the reference's", whole.stdout), said
    assert re.search(rf"IREE {GOOD}: output 0: 0/\d+ elements differ from the reference's", whole.stdout), said
    assert re.search(rf"IREE {BAD}: output 0: [1-9]\d*/\d+ elements differ from IREE {GOOD}'s", reduced.stdout), said


CHAIN = """#map = affine_map<(d0) -> (d0)>
module {
  util.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = tensor.empty() : tensor<4xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%arg0 : tensor<4xf32>) outs(%0 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %5 = math.exp %in : f32
      linalg.yield %5 : f32
    } -> tensor<4xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%1 : tensor<4xf32>) outs(%0 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %5 = math.rsqrt %in : f32
      linalg.yield %5 : f32
    } -> tensor<4xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%2 : tensor<4xf32>) outs(%0 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %5 = math.tanh %in : f32
      linalg.yield %5 : f32
    } -> tensor<4xf32>
    util.return %3 : tensor<4xf32>
  }
}
"""


def test_operand_forwarding_keeps_only_what_the_oracle_needs():
    """A fake oracle that cares about the rsqrt only: the exp before it and the tanh after
    it are forwarded away, and the result still parses as one chain."""
    from harness.triage import forward

    asked = []

    def oracle(text):
        asked.append(text)
        return "math.rsqrt" in text

    text, n = forward.reduce_text(CHAIN, oracle)
    assert "math.rsqrt" in text and "math.exp" not in text and "math.tanh" not in text
    assert "ins(%arg0 : tensor<4xf32>)" in text and "util.return %2 : tensor<4xf32>" in text
    assert "%0 = tensor.empty()" in text and n == len(asked) <= 6
    # An oracle that needs everything keeps everything.
    needs_all = ("math.exp", "math.rsqrt", "math.tanh")
    assert forward.reduce_text(CHAIN, lambda t: all(op in t for op in needs_all))[0] == CHAIN


TORCH_CHAIN = """module @module {
  func.func @main(%arg0: !torch.vtensor<[4,16],si8>, %arg1: !torch.vtensor<[4,16],ui8>) -> !torch.vtensor<[4,16],ui8> {
    %int2 = torch.constant.int 2
    %0 = torch.aten.__rshift__.Scalar %arg1, %int2 : !torch.vtensor<[4,16],ui8>, !torch.int -> !torch.vtensor<[4,16],ui8>
    %1 = torch.aten.neg %0 : !torch.vtensor<[4,16],ui8> -> !torch.vtensor<[4,16],ui8>
    return %1 : !torch.vtensor<[4,16],ui8>
  }
}
"""


@pytest.mark.harness
def test_operand_forwarding_reads_torch_dialect_types():
    """A torch-dialect import (the start of a bug in torch-mlir's lowering) is forwarded
    too: its argument types `!torch.vtensor<[4,16],ui8>` hold a comma."""
    from harness.triage import forward

    text, n = forward.reduce_text(TORCH_CHAIN, lambda t: "__rshift__" in t)
    assert "torch.aten.neg" not in text and "return %0" in text and n >= 1
    text, n = forward.reduce_text(TORCH_CHAIN, lambda t: "torch.aten.neg" in t)  # onto an argument
    assert "__rshift__" not in text and "torch.aten.neg %arg1" in text


def test_the_oracle_wants_the_bug_on_the_bad_release_and_the_start_behaviour_on_the_good(monkeypatch, tmp_path):
    """What a candidate must do on each release, with the tools stubbed out."""
    from harness.runner import ItemResult
    from harness.stages import StageResult
    from harness.toolchain import Toolchain
    from harness.triage import oracle

    def side(version):
        tc = Toolchain(tmp_path / "c", tmp_path / "o", tmp_path / "r", version, "", "", "test")
        return oracle.Side(tc, ())

    q = oracle.Question("outcome", side("3.2.0"), side("3.1.0"), ("compile-fail",), "boom",
                        target="cpu", work=str(tmp_path))
    said = {}

    def fake_observe(question, s, program, run, extra=()):
        status, detail = said[s.toolchain.compiler_version]
        result = ItemResult(None, "triage", "cpu", None, None, s.toolchain.compiler_version)
        result.stages.append(StageResult("compile", status, detail))
        return oracle.Observation(result)

    monkeypatch.setattr(oracle, "observe", fake_observe)
    cases = [({"3.2.0": ("fail", "error: boom"), "3.1.0": ("ok", "")}, True),
             ({"3.2.0": ("fail", "error: boom"), "3.1.0": ("fail", "error: boom")}, False),  # good has it too
             ({"3.2.0": ("fail", "error: other"), "3.1.0": ("ok", "")}, False),  # not the bug's message
             ({"3.2.0": ("fail", "error: boom"), "3.1.0": ("fail", "error: parse")}, False)]  # good wanders
    for outcomes, wanted in cases:
        said.update(outcomes)
        assert oracle.interesting(q, tmp_path / "x.mlir")[0] is wanted, outcomes
    said.update({"3.2.0": ("fail", "error: boom"), "3.1.0": ("fail", "error: parse")})
    assert oracle.interesting(q.with_good_outcome("compile-fail"), tmp_path / "x.mlir")[0] is True
    # An open bug no release passes: the bad release alone is asked, for the bug's own message.
    alone = oracle.Question("outcome", side("3.2.0"), None, ("compile-fail",), "boom", target="cpu",
                            work=str(tmp_path))
    assert oracle.Question.load(alone.save(tmp_path / "q.json")) == alone
    said.update({"3.2.0": ("fail", "error: boom")})
    assert oracle.interesting(alone, tmp_path / "x.mlir")[0] is True
    said.update({"3.2.0": ("fail", "error: other")})
    assert oracle.interesting(alone, tmp_path / "x.mlir")[0] is False


def test_a_window_with_an_onset_and_a_fix_triages_the_one_asked_for():
    from types import SimpleNamespace

    from harness.case import History, Window
    from harness.triage.flow import default_ends

    case = SimpleNamespace(history=History("fixed", (Window("3.3.0", "3.4.0", "3.2.0", "3.6.0"),)))
    assert default_ends(case) == [("3.2.0", "3.3.0", "broken"), ("3.6.0", "3.4.0", "fixed")]
    assert default_ends(case, "fixed") == [("3.6.0", "3.4.0", "fixed")]
    assert default_ends(case, "broken") == [("3.2.0", "3.3.0", "broken")]
    # Another failure hides the onset (insert-slice-store, 3.4-3.8): the fix comes first.
    hidden = SimpleNamespace(history=History("fixed", (Window("3.9.0", "3.11.0", "3.3.0", "3.12.0", "3.8.0", "crash"),)))
    assert default_ends(hidden) == [("3.12.0", "3.11.0", "fixed"), ("3.3.0", "3.9.0", "broken")]


def test_a_matrix_item_of_a_wrong_numbers_or_ir_bug_is_triaged_by_its_numbers():
    """A case whose bug is wrong numbers or a failing IR check: its cpu item is asked
    whether the releases' numbers differ (it was asked for an outcome and 'passed')."""
    from types import SimpleNamespace

    from harness.bug import Bug
    from harness.item import ItemId
    from harness.triage.flow import _item_outcomes, _mode

    bug = Bug(("compare-fail", "ir-fail"), None, ())
    matrix = SimpleNamespace(bug=bug, item=ItemId.parse("cpu-O3"))
    ir = SimpleNamespace(bug=bug, item=ItemId.parse("ir-column-store-fold"))
    assert (_item_outcomes(matrix), _mode(matrix)) == (("compare-fail",), "differential")
    assert (_item_outcomes(ir), _mode(ir)) == (("ir-fail",), "ir")


@pytest.mark.harness
def test_a_bug_that_is_wrong_numbers_on_the_bad_release_is_asked_for_numbers():
    """Wrong numbers on some releases, a run crash on others (replication-pad2d): the
    question follows what the bad release showed in the bisect."""
    from types import SimpleNamespace

    from harness.bug import Bug
    from harness.history.bisect import BisectResult, Probe
    from harness.item import ItemId
    from harness.triage.flow import _mode

    bug = Bug(("compare-fail", "run-crash"), None, ())
    probes = [Probe("3.7.0", "good", "pass", 0), Probe("3.6.0", "bad", "compare-fail", 0)]
    wrong = SimpleNamespace(bug=bug, item=ItemId.parse("cpu-O0"), bisect=BisectResult(["3.7.0", "3.6.0"], probes,
                                                                                       "3.6.0", "3.7.0"))
    assert _mode(wrong) == "differential"
    crash = [Probe("3.7.0", "good", "pass", 0), Probe("3.3.0", "bad", "run-crash", 0)]
    wrong.bisect = BisectResult(["3.7.0", "3.3.0"], crash, "3.3.0", "3.7.0")
    assert _mode(wrong) == "outcome"


@pytest.mark.harness
def test_issue_md_names_no_machine_path():
    from harness.cache import cache_root
    from harness.triage.issue import _no_machine_paths

    text = (f'#loc4 = loc("{cache_root()}/v2/torch/4c73/model.mlir":5:10)\n'
            f"error: {cache_root()}/v2/torch/4c73/model.mlir:5:10: 'memref.alloca' op expected")
    assert _no_machine_paths(text) == ('#loc4 = loc("model.mlir":5:10)\n'
                                       "error: model.mlir:5:10: 'memref.alloca' op expected")


FAKE_OPT = """#!/bin/sh
# a fake iree-opt: copies its input to -o, appending {extra!r}; exits {code}
in="$1"; out=""; prev=""
for a; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
[ {code} -ne 0 ] && {{ echo "error: unknown pass" >&2; exit {code}; }}
cat "$in" > "$out"; printf '%s\\n' {extra!r} >> "$out"
"""


def _opt(folder, name, extra="", code=0):
    tool = folder / name
    tool.write_text(FAKE_OPT.format(extra=extra, code=code))
    tool.chmod(0o755)
    return tool


def test_the_named_pass_is_rerun_alone_with_both_releases_tools(tmp_path):
    found = passes.PassDiff("iree-foo", "FooPass", before="util.func @main() {}\n", anchor="util.func")
    same = passes.rerun_alone({"good": _opt(tmp_path, "a", "x"), "bad": _opt(tmp_path, "b", "x")}, found, tmp_path)
    assert same[0] is False and "the same module" in same[1] and "util.func(iree-foo)" in same[1]
    differ = passes.rerun_alone({"good": _opt(tmp_path, "c", "x"), "bad": _opt(tmp_path, "d", "y")}, found, tmp_path)
    assert differ[0] is True and "different modules" in differ[1]
    broken = passes.rerun_alone({"good": _opt(tmp_path, "e", code=1), "bad": _opt(tmp_path, "f")}, found, tmp_path)
    assert broken[0] is None and "unknown pass" in broken[1]


@pytest.mark.harness
def test_both_header_spellings_are_read():
    """Up to 3.11 a dump's header is `Pass (flag) ('op' operation: @x)`; from 3.12 it is
    `Pass: flag{options} ('op' operation: @x)`, or `Pass: flag` for a module pass."""
    old = ("// -----// IR Dump After CanonicalizerPass (canonicalize) ('func.func' operation: @main) //----- //\nA\n"
           "// -----// IR Dump After AutoInputConversionPipelinePass (iree-auto-input-conversion) //----- //\nB\n")
    new = ("// -----// IR Dump After CanonicalizerPass: canonicalize{cse-between-iterations=false    max-iterations=10 "
           "top-down=true} ('func.func' operation: @main) //----- //\nA\n"
           "// -----// IR Dump After DecomposeComplexOps: torch-decompose-complex-ops{legal-ops={aten.flatten.using_ints,"
           "aten.argmin}} ('func.func' operation: @main) //----- //\nB\n"
           "// -----// IR Dump After AutoInputConversionPipelinePass: iree-auto-input-conversion //----- //\nC\n"
           "// -----// IR Dump After ConvertFoo Failed: convert-foo ('util.func' operation: @main$async) //----- //\nD\n")
    assert [(s.name, s.argument, s.anchor, s.ir) for s in passes.states(old)] == [
        ("CanonicalizerPass", "canonicalize", "func.func", ("A",)),
        ("AutoInputConversionPipelinePass", "iree-auto-input-conversion", "", ("B",))]
    assert [(s.name, s.argument, s.anchor, s.ir) for s in passes.states(new)] == [
        ("CanonicalizerPass", "canonicalize", "func.func", ("A",)),
        ("DecomposeComplexOps", "torch-decompose-complex-ops", "func.func", ("B",)),
        ("AutoInputConversionPipelinePass", "iree-auto-input-conversion", "", ("C",)),
        ("ConvertFoo", "convert-foo", "util.func", ("D",))]


@pytest.mark.harness
def test_a_step_that_raises_is_said_and_triage_json_is_still_written(monkeypatch, tmp_path):
    """A release that will not install (or any step's exception) ends the triage with the
    problem in TRIAGE.json and ISSUE.md, never a traceback with nothing written."""
    from types import SimpleNamespace

    from harness.history.releases import ReleaseUnavailable
    from harness.item import ItemId
    from harness.triage import flow

    def broken(*a, **k):
        raise ReleaseUnavailable("iree-base-compiler==3.9.0: no matching distribution")

    monkeypatch.setattr(flow, "when", broken)
    case = SimpleNamespace(slug="c", title="a title", threads=())
    bug = SimpleNamespace(description="compile-fail")
    t = flow.triage(case, ItemId.parse("cpu-O0"), bug, tmp_path / "out", source=None)
    data = json.loads((tmp_path / "out" / "TRIAGE.json").read_text())
    assert data["problems"] == ["when: ReleaseUnavailable: iree-base-compiler==3.9.0: no matching distribution"]
    assert "no matching distribution" in (tmp_path / "out" / "ISSUE.md").read_text() and t.question is None


@pytest.mark.harness
def test_asking_for_the_end_a_window_lacks_is_refused_plainly(monkeypatch):
    """--fix on an open window: said so (it was triaged alone as if nothing ever passed)."""
    from types import SimpleNamespace

    from harness.case import History, Window
    from harness.item import ItemId
    from harness.triage import flow

    monkeypatch.setattr(flow.releases, "available", lambda source=None: ["3.2.0", "3.3.0", "3.13.0"])
    case = SimpleNamespace(slug="c", history=History("open", (Window("3.3.0", "3.13.0", "3.2.0"),)))
    t = flow.Triage(case, ItemId.parse("cpu-O0"), SimpleNamespace(description="x"))
    assert flow.when(t, None, None, None, "fixed") is False
    assert t.problems[0].startswith("the window has no fix to triage")


@pytest.mark.harness
def test_an_experiment_with_nothing_to_compare_is_undecided(monkeypatch, tmp_path):
    """A swap whose mixed compile runs but gives no outputs (or another number of them)
    neither shows the bug nor its absence: undecided, with why; never 'shows the bug'."""
    from harness.runner import ItemResult
    from harness.stages import StageResult
    from harness.toolchain import Toolchain
    from harness.triage import oracle

    tc = Toolchain(tmp_path / "c", tmp_path / "o", tmp_path / "r", "3.10.0", "", "", "test")
    q = oracle.Question("differential", oracle.Side(tc, ()), oracle.Side(tc, ()), target="cpu",
                        work=str(tmp_path), n_outputs=1)
    np.save(tmp_path / "in.npy", np.zeros(3, np.float32))
    q = oracle.Question(**{**q.__dict__, "inputs": (str(tmp_path / "in.npy"),)})
    given = {}

    def fake_observe(question, side, program, run, extra=()):
        result = ItemResult(None, "triage", "cpu", None, None, "3.10.0")
        result.stages += [StageResult("compile", "ok", ""), StageResult("run", "ok", "")]
        return oracle.Observation(result, given["outputs"])

    monkeypatch.setattr(oracle, "observe", fake_observe)
    reference = [np.arange(3, dtype=np.float32)]
    for outputs in ([], [np.arange(3, dtype=np.float32)] * 2):
        given["outputs"] = outputs
        shown, why = oracle.shows_bug(q, q.bad, tmp_path / "x.mlir", (), reference)
        assert shown is None and why.startswith("nothing to compare"), (outputs, why)
    given["outputs"] = [np.arange(3, dtype=np.float32) + 1]  # the planted wrong value still counts
    assert oracle.shows_bug(q, q.bad, tmp_path / "x.mlir", (), reference)[0] is True


@pytest.mark.harness
@pytest.mark.parametrize("phase_confirmed, pass_confirmed, failing, said", [
    (False, False, "", "not localized"),
    (False, None, "", "not localized"),
    (True, False, "", "localized to the `vm` phase"),
    (True, True, "", "the pass `iree-util-combine-initializers` (run alone"),
    (False, True, "", "localized to the pass `iree-util-combine-initializers`"),
    (False, False, "iree-codegen-x", "the pass `iree-codegen-x` (the bad release fails in it)"),
])
def test_the_summary_names_only_what_was_confirmed(phase_confirmed, pass_confirmed, failing, said):
    """The StableHLO reverse of the issue: every swap undecided, the vm phase named by
    elimination, its pass unconfirmed run alone: 'not localized', never the vm phase."""
    from types import SimpleNamespace

    from harness.item import ItemId
    from harness.triage import flow
    from harness.triage.phases import PhaseDiff

    t = flow.Triage(SimpleNamespace(slug="c"), ItemId.parse("cpu-O0"), SimpleNamespace(description="x"))
    t.phase, t.phase_confirmed = PhaseDiff("vm", 9, ()), phase_confirmed
    t.pass_diff = SimpleNamespace(argument="iree-util-combine-initializers")
    t.pass_confirmed, t.failing_pass = pass_confirmed, failing
    text = flow.localized(t)
    assert said in text, text
    if not phase_confirmed:
        assert "`vm` phase (" not in text
    if said == "not localized":
        assert "unconfirmed" in text and "combine-initializers` was not confirmed" in text



def _release_with_switch(root: Path, version: str, on: bool):
    """A fake release whose compiler computes wrong numbers while its switch `--fake-switch`
    is on, and whose switch is `on` unless the command line says otherwise."""
    from helpers import make_toolchain
    from harness.toolchain import Toolchain

    tools = make_toolchain(root / version, version=version)
    compile_ = tools / "iree-compile"
    compile_.write_text(compile_.read_text().replace("args = sys.argv[1:]", (
        "args = sys.argv[1:]\n"
        "said = [a.split('=', 1)[1] for a in args if a.startswith('--fake-switch=')]\n"
        "args = [a for a in args if not a.startswith('--fake-switch=')]\n"
        f"if (said[-1] if said else '{str(on).lower()}') == 'true':\n"
        "    args = ['--fake-run=wrong'] + args"), 1))
    return Toolchain(compile_, tools / "iree-opt", tools / "iree-run-module", version, "", version, "fake")


@pytest.mark.harness
@pytest.mark.parametrize("good_options, said", [
    ({"--fake-switch": "false"}, "with `--fake-switch=false` IREE 3.8.0 is right; with `--fake-switch=true` IREE 3.7.0 shows"),
    ({}, "new in 3.8.0, on by default"),  # a switch that arrived turned on: asked one way only
    (None, ""),  # another default changed, and the bug does not follow it: nothing named
])
def test_the_bad_release_with_the_good_release_option_defaults(monkeypatch, tmp_path, good_options, said):
    """Where the releases cannot read each other's IR, their option defaults still part
    them: a planted default that makes the bad release compute wrong numbers is named
    (both ways where the good release has the option); a default change that is not the
    bug is not."""
    from types import SimpleNamespace

    from harness.triage import options, oracle
    from harness.triage.where import localized

    good_tc, bad_tc = _release_with_switch(tmp_path, "3.7.0", False), _release_with_switch(tmp_path, "3.8.0", True)
    planted = {"3.7.0": good_options, "3.8.0": {"--fake-switch": "true", "--iree-x-dump-to": "/a"}}
    if good_options is None:  # the switch is no option the library lists; another one changed
        planted = {"3.7.0": {"--fake-other": "a"}, "3.8.0": {"--fake-other": "b"}}
    monkeypatch.setattr(options, "session_defaults", lambda tc: planted[tc.compiler_version])
    np.save(tmp_path / "in.npy", np.arange(4, dtype=np.float32))
    program = tmp_path / "p.mlir"
    program.write_text("// FAKE: ok\nutil.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n}\n")
    q = oracle.Question("differential", oracle.Side(bad_tc, ()), oracle.Side(good_tc, ()), target="cpu",
                        inputs=(str(tmp_path / "in.npy"),), n_outputs=1, work=str(tmp_path / "work"))
    reference = oracle.observe(q, q.good, program, True).outputs
    assert oracle.shows_bug(q, q.bad, program, (), reference)[0] is True  # the planted bug
    found = options.localize(q, program, reference, lambda line: None)
    t = SimpleNamespace(options=found, good=good_tc, bad=bad_tc, phase=None, pass_diff=None,
                        pass_confirmed=None, failing_pass="", phase_confirmed=False)
    text = localized(t)
    if said:
        assert found.found is not None and found.found.flag == "--fake-switch", found
        assert said in text and text.startswith("localized by the release options"), text
        assert found.on_bad and found.on_good is bool(good_options)
    else:
        assert found.found is None and text.startswith("not localized"), (found, text)
        assert "shows the bug" in found.lines[0] and "no bug" in found.lines[1], found.lines  # neither way
    assert all("dump" not in c.flag for c in found.changes)  # a path is no choice of the pipeline
    from harness.triage.issue import _options_lines  # ISSUE.md: every experiment, then the answer

    section = "\n".join(_options_lines(t, "3.8.0", "3.7.0"))
    assert all(line in section for line in found.lines)
    assert ("- answer: the release option `--fake-switch`" in section) if said else "- answer: none (" in section


@pytest.mark.harness
@pytest.mark.parametrize("answers, phase, confirmed", [
    # One swap as expected, the other undecided (the good release cannot read the bad
    # one's IR), then the phase the bad release stops in: the undecided phase is named,
    # unconfirmed, never the stopping phase as if a swap had confirmed it.
    ((False, None), "global-optimization", False),
    # A swap against the phase excludes it: the phase the bad release stops in is named.
    ((True, True), "executable-targets", True),
    # Both swaps carry the bug: the phase is confirmed.
    ((False, True), "global-optimization", True),
])
def test_a_swap_that_could_not_be_decided_neither_confirms_nor_excludes(monkeypatch, tmp_path,
                                                                        answers, phase, confirmed):
    """answers: what shows_bug said for (the bad release on the good one's output, the good
    release on the bad one's); the bad release shows the bug with its own output."""
    from types import SimpleNamespace

    from harness.triage import flow
    from harness.triage.phases import PhaseDiff

    diffs = [PhaseDiff("global-optimization", 4, ("-a", "+b")),
             PhaseDiff("executable-targets", 10, (), missing="only the good release dumped executable-targets")]
    monkeypatch.setattr(flow, "dump_phases", lambda *a, **k: None)
    monkeypatch.setattr(flow, "differences", lambda *a, **k: iter(diffs))
    monkeypatch.setattr(flow, "_phase_file", lambda dump, phase: tmp_path / f"{phase}.mlir")
    said = iter(answers)
    monkeypatch.setattr(flow, "shows_bug", lambda *a, **k: (next(said), "planted"))
    for step in ("_pass_in_phase", "_failing_pass", "_option_defaults"):
        monkeypatch.setattr(flow, step, lambda *a, **k: None)
    monkeypatch.setattr(flow, "_good_outputs", lambda t: None)
    side = SimpleNamespace(toolchain=None, flags=())
    t = flow.Triage(case=None, item=None, bug=None,
                    question=SimpleNamespace(good=side, bad=side, mode="outcome", work=str(tmp_path)),
                    good=SimpleNamespace(compiler_version="3.8.0"), bad=SimpleNamespace(compiler_version="3.9.0"),
                    start=tmp_path / "p.mlir")
    flow.where(t, tmp_path)
    assert (t.phase.phase, t.phase_confirmed) == (phase, confirmed), t.log
    summary = flow.localized(t)
    assert ("executable-targets` phase" in summary) == (phase == "executable-targets"), summary
