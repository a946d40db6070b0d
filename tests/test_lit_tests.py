"""IREE's lit-test functions as programs: split, rewritten as @main, refused by reason,
evaluated in numpy (the golden), and run for numbers (a planted wrong evaluation fails)."""

from __future__ import annotations

import numpy as np
import pytest

from harness.case import load_case
from harness.item import settings_with
from harness.runner import run_matrix_item
from harness.sweep.lit_tests import (NotRunnable, chunks, functions, module_text, program_of, read_corpus,
                                     reference_source)
from harness.sweep.mlir_text import strip_comments
from harness.toolchain import resolve
from helpers import write_case

PATH = "compiler/src/iree/compiler/DispatchCreation/test/example.mlir"

LIT = '''// RUN: iree-opt --split-input-file --pass-pipeline="..." %s | FileCheck %s

#map = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>
util.func public @row_sum(%arg0: tensor<?x8xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %d0 = tensor.dim %arg0, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%d0) : tensor<?xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#map, #red], iterator_types = ["parallel", "reduction"]}
      ins(%arg0 : tensor<?x8xf32>) outs(%f : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    %s = arith.addf %m, %out : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  util.return %r : tensor<?xf32>
}
// CHECK-LABEL: util.func public @row_sum

// -----

util.func public @flow_op(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = flow.tensor.reshape %arg0 : tensor<4xf32> -> tensor<4xf32>
  util.return %0 : tensor<4xf32>
}

// -----

util.func public @scalar_arg(%arg0: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  util.return %arg0 : tensor<4xf32>
}

// -----

util.func public @reads_empty(%arg0: tensor<4x4xf32>, %arg1: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %0 = linalg.matmul ins(%arg0, %arg1 : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  util.return %0 : tensor<4x4xf32>
}

// -----

func.func @invalid(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{something}}
  return %arg0 : tensor<4xf32>
}

// -----

func.func private @external(tensor<4xf32>) -> tensor<4xf32>

// -----

func.func @slice_then_matmul(%a: tensor<6x5xf32>, %b: tensor<4x3xf32>) -> tensor<3x3xf32> {
  %s = tensor.extract_slice %a[1, 1] [3, 4] [1, 1] : tensor<6x5xf32> to tensor<3x4xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
  %m = linalg.matmul ins(%s, %b : tensor<3x4xf32>, tensor<4x3xf32>) outs(%f : tensor<3x3xf32>) -> tensor<3x3xf32>
  %t = linalg.transpose ins(%m : tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) permutation = [1, 0]
  return %t : tensor<3x3xf32>
}

// -----

func.func @sort_rows(%arg0: tensor<3x8xf32>) -> tensor<3x8xf32> {
  %0 = iree_linalg_ext.sort dimension(1) outs(%arg0 : tensor<3x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  } -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}

// -----

func.func @sort_uninitialized(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %0 = iree_linalg_ext.sort dimension(0) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  } -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
'''

bindings = pytest.importorskip("iree.compiler.ir", reason="reading a lit function needs the compiler's bindings")


def _evaluate(program):
    scope: dict = {}
    exec(reference_source("doc", program.arguments, program.draw, program.params, program.body), scope)
    inputs = scope["example_inputs"]()
    return inputs, scope["evaluate"](*inputs)


@pytest.mark.harness
def test_a_lit_function_becomes_main_with_its_chunks_aliases():
    chunk = strip_comments(chunks(LIT)[0])
    (name, text), = functions(chunk)
    mlir = module_text(chunk, name, text)
    assert name == "row_sum" and "func.func @main(" in mlir and "return %r" in mlir
    assert "util." not in mlir and "#map = affine_map" in mlir and "RUN" not in mlir and "CHECK" not in mlir


@pytest.mark.harness
def test_what_cannot_run_is_counted_by_reason_never_dropped():
    programs, refused = read_corpus({PATH: LIT})
    assert sorted(p.id for p in programs) == ["DispatchCreation.example.row_sum",
                                              "DispatchCreation.example.slice_then_matmul",
                                              "DispatchCreation.example.sort_rows"]
    # numpy does not evaluate the sort here: it is run all the same, judged differentially
    assert {p.function: p.unevaluated for p in programs} == {
        "row_sum": "", "slice_then_matmul": "", "sort_rows": "no numpy evaluation of iree_linalg_ext.sort"}
    why = {i: reason for reason, ids in refused.items() for i in ids}
    assert why["DispatchCreation.example.flow_op"] == "uses flow ops (a later phase's IR)"
    assert why["DispatchCreation.example.scalar_arg"] == "a non-tensor argument"
    assert why["DispatchCreation.example.reads_empty"].startswith("reads an uninitialized tensor")
    # a LinalgExt op numpy does not evaluate is still refused when it sorts an uninitialized
    # tensor: no oracle, golden or differential, can judge an undefined result
    assert why["DispatchCreation.example.sort_uninitialized"].startswith("reads an uninitialized tensor")
    assert why["DispatchCreation.example.invalid"].startswith("a test of invalid IR")
    assert why["DispatchCreation.example.external"] == "a declaration (no body to run)"
    assert len(programs) + len(why) == 9


@pytest.mark.harness
def test_the_numpy_evaluation_is_the_functions_meaning():
    """A reduction generic over a dynamic dim (sized by the first size tried) and a slice,
    matmul and transpose: each against numpy written by hand."""
    programs, _ = read_corpus({PATH: LIT})
    by_name = {p.function: p for p in programs if not p.unevaluated}
    (x,), (sums,) = _evaluate(by_name["row_sum"])
    assert x.shape == (4, 8) and np.allclose(sums, (x * x).sum(axis=1), rtol=1e-6)
    (a, b), (t,) = _evaluate(by_name["slice_then_matmul"])
    assert np.allclose(t, (a[1:4, 1:5] @ b).T, rtol=1e-6)


def _item(tmp_path, monkeypatch, body_edit=None):
    monkeypatch.setenv("IREE_REGRESS_CACHE", str(tmp_path / "cache"))
    chunk = strip_comments(chunks(LIT)[0])
    (name, text), = functions(chunk)
    p = program_of(PATH, chunk, name, text, "DispatchCreation.example.row_sum")
    body = [body_edit(line) for line in p.body] if body_edit else p.body
    manifest = {"title": "a lit program", "kind": "numeric", "issues": [], "found_by": "iree-regress sweep",
                "source": {"mlir": "model.mlir", "function": "main", "reference": "reference.py"},
                "matrix": {"targets": ["cpu"], "opt_levels": ["O0"]}, "compare": {"atol": 1e-5, "rtol": 1e-5}}
    case_dir = write_case(tmp_path / "cases", "lit", manifest,
                          {"model.mlir": p.mlir,
                           "reference.py": reference_source("doc", p.arguments, p.draw, p.params, body)})
    from harness.cli import main as cli
    assert cli(["golden", str(case_dir)]) == 0
    return run_matrix_item(load_case(case_dir / "case.toml"), "cpu", "O0", settings_with(resolve()))


def test_a_lit_program_compiles_runs_and_matches_numpy(tmp_path, monkeypatch):
    result = _item(tmp_path, monkeypatch)
    assert result.outcome == "pass", result.failure_text()[:1000]


def test_a_planted_wrong_evaluation_fails_the_item(tmp_path, monkeypatch):
    """Planted: the golden sums x + x where the program sums x * x."""
    result = _item(tmp_path, monkeypatch, lambda line: line.replace(" * ", " + "))
    assert result.outcome == "compare-fail" and "elements differ" in result.failure_text()


def test_a_function_that_does_not_parse_is_refused_with_the_parsers_words():
    broken = "util.func public @bad(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = arith.nosuchop %arg0\n  util.return %0 : tensor<4xf32>\n}\n"
    with pytest.raises(NotRunnable, match="does not parse alone"):
        program_of(PATH, broken, "bad", broken, "x.bad")


CONVS = '''
func.func @conv(%x: tensor<1x7x7x3xf32>, %w: tensor<3x3x3x4xf32>) -> tensor<1x3x3x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3x3x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
     ins(%x, %w : tensor<1x7x7x3xf32>, tensor<3x3x3x4xf32>) outs(%f : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  return %c : tensor<1x3x3x4xf32>
}

// -----

func.func @depthwise(%x: tensor<1x6x6x3xf32>, %w: tensor<2x2x3xf32>) -> tensor<1x4x4x3xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %c = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
     ins(%x, %w : tensor<1x6x6x3xf32>, tensor<2x2x3xf32>) outs(%f : tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  return %c : tensor<1x4x4x3xf32>
}

// -----

func.func @compare_concat(%x: tensor<4xf32>, %y: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<8xf32>) {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %one = arith.constant dense<1> : tensor<4xi32>
  %a = arith.cmpf olt, %x, %zero : tensor<4xf32>
  %b = arith.cmpi sgt, %y, %one : tensor<4xi32>
  %c = tensor.concat dim(0) %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  return %a, %b, %c : tensor<4xi1>, tensor<4xi1>, tensor<8xf32>
}

// -----

func.func @to_scalar(%x: tensor<5xf32>) -> tensor<f32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                       iterator_types = ["reduction"]} ins(%x : tensor<5xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

func.func @abs_map(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %m = linalg.map ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>)
    (%in: f32, %out: f32) {
      %a = math.absf %in : f32
      linalg.yield %a : f32
    }
  return %m : tensor<4xf32>
}

// -----

func.func @written_twice(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %e = tensor.empty() : tensor<2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "parallel"]} ins(%x : tensor<2x3xf32>) outs(%e : tensor<2xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<2xf32>
  return %r : tensor<2xf32>
}
'''


@pytest.mark.harness
def test_convolutions_compares_and_attributes_read_as_the_ir_states_them():
    """Strides and dilations as splat dense attributes, predicates and a concat's dim as
    integer attributes: each read as written (a reader that took the type's width for the
    value once gave stride 64)."""
    programs, refused = read_corpus({PATH: CONVS})
    assert refused == {"an output map without every parallel dim (one element written more than once: "
                       "no defined result)": ["DispatchCreation.example.written_twice"]}
    by_name = {p.function: p for p in programs}
    (x, w), (out,) = _evaluate(by_name["conv"])
    want = np.stack([np.stack([np.einsum("hwc,hwcf->f", x[0, i * 2:i * 2 + 3, j * 2:j * 2 + 3], w)
                               for j in range(3)]) for i in range(3)])[None]
    assert np.allclose(out, want, rtol=1e-5)
    (x, w), (out,) = _evaluate(by_name["depthwise"])
    want = np.stack([np.stack([np.einsum("hwc,hwc->c", x[0, i:i + 3:2, j:j + 3:2], w)
                               for j in range(4)]) for i in range(4)])[None]
    assert np.allclose(out, want, rtol=1e-5)
    (x, y), (a, b, c) = _evaluate(by_name["compare_concat"])
    assert (a == (x < 0)).all() and (b == (y > 1)).all() and (c == np.concatenate([x, x])).all()
    (x,), (absolute,) = _evaluate(by_name["abs_map"])  # a map's body takes no accumulator
    assert (absolute == np.abs(x)).all()
    # A 0-d result stays 0-d through reference() (np.ascontiguousarray once made it [1]).
    p = by_name["to_scalar"]
    scope: dict = {}
    exec(reference_source("doc", p.arguments, p.draw, p.params, p.body), scope)
    import torch
    (total,) = scope["reference"](*[torch.from_numpy(x) for x in scope["example_inputs"]()])
    assert tuple(total.shape) == ()


def test_a_function_numpy_does_not_evaluate_runs_without_a_golden_judged_by_its_differential_items(
        tmp_path, monkeypatch):
    """The sort has no numpy evaluation: its reference.py draws inputs and states no golden,
    and the program, compiled at O0 and at O3 on the installed release, must agree."""
    from harness.item import ItemId, run_item

    monkeypatch.setenv("IREE_REGRESS_CACHE", str(tmp_path / "cache"))
    programs, _ = read_corpus({PATH: LIT})
    p = next(p for p in programs if p.function == "sort_rows")
    assert p.body is None and p.draw == "small" and p.arguments == [("np.float32", (3, 8))]
    source = reference_source("doc", p.arguments, p.draw, p.params, p.body)
    scope: dict = {}
    exec(source, scope)
    assert scope["reference"](*scope["example_inputs"]()) == ()
    manifest = {"title": "a lit program without numpy", "kind": "run", "issues": [], "found_by": "iree-regress sweep",
                "source": {"mlir": "model.mlir", "function": "main", "reference": "reference.py"},
                "matrix": {"targets": ["cpu"], "opt_levels": ["O0", "O3"]},
                "differ": [{"name": "o0-vs-o3", "target": "cpu", "a": {"opt_level": "O0"},
                            "b": {"opt_level": "O3"}, "outputs": 1}]}
    case_dir = write_case(tmp_path / "cases", "lit-sort", manifest, {"model.mlir": p.mlir, "reference.py": source})
    from harness.cli import main as cli
    assert cli(["golden", str(case_dir)]) == 0
    case = load_case(case_dir / "case.toml")
    result = run_item(case, ItemId(differ="o0-vs-o3"), settings_with(resolve()))
    assert result.outcome == "pass", result.failure_text()[:1000]
    assert "agree within" in result.stages[-1].detail
