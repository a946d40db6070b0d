"""IREE's own e2e check programs as items (harness/sweep/own_tests.py): a test function
rewritten so that @main returns what its checks look at, its golden the checks' constants.
The parsing tests need nothing; the planted ones compile and run with the installed IREE."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from harness.case import load_case
from harness.item import settings_with
from harness.runner import run_matrix_item
from harness.sweep.own_tests import NotRunnable, program_of, read_corpus, reference_source
from harness.toolchain import resolve
from helpers import write_case

# Shaped as tests/e2e files are: a splat, a nested list, a multi-line check with `%v#N`,
# a check against a computed value, a private helper, an alias.
FILE = '''#map = affine_map<(d0) -> (d0)>

func.func private @twice(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = arith.addi %x, %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

func.func @scatter_2d() {
  %original = util.unfoldable_constant dense<0> : tensor<2x2xi32>
  %update = util.unfoldable_constant dense<1> : tensor<1xi32>
  %indices = util.unfoldable_constant dense<[[0, 1]]> : tensor<1x2xi32>
  %result = iree_linalg_ext.scatter dimension_map = [0, 1] unique_indices(true)
                          ins(%update, %indices : tensor<1xi32>, tensor<1x2xi32>)
                          outs(%original : tensor<2x2xi32>) {
                    ^bb0(%arg0: i32, %arg1: i32):
                      iree_linalg_ext.yield %arg0 : i32
  } -> tensor<2x2xi32>
  check.expect_eq_const(%result, dense<[[0, 1],
      [0, 0]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  return
}

func.func @helper_and_float() {
  %a = util.unfoldable_constant dense<[1, 2, 3, 255]> : tensor<4xi32>
  %b = call @twice(%a) : (tensor<4xi32>) -> tensor<4xi32>
  %f = util.unfoldable_constant dense<[1.5, -2., 0.25]> : tensor<3xf32>
  %g = arith.mulf %f, %f : tensor<3xf32>
  %s:2 = "test.split"() : () -> (tensor<f32>, tensor<f32>)
  check.expect_eq_const(%b, dense<[2, 4, 6, 510]> : tensor<4xi32>) : tensor<4xi32>
  check.expect_almost_eq_const(%g, dense<[2.25, 4., 0.0625]> : tensor<3xf32>): tensor<3xf32>
  return
}

func.func @against_computed() {
  %a = util.unfoldable_constant dense<1> : tensor<4xi32>
  check.expect_eq(%a, %a) : tensor<4xi32>
  return
}

func.func @other_kind() {
  %a = util.unfoldable_constant dense<true> : tensor<4xi1>
  check.expect_all_true(%a) : tensor<4xi1>
  return
}
'''


@pytest.mark.harness
def test_a_test_function_becomes_main_returning_what_its_checks_look_at():
    p = program_of("tests/e2e/linalg_ext_ops/scatter.mlir", FILE, "scatter_2d")
    assert p.id == "linalg_ext_ops.scatter.scatter_2d"
    assert "func.func @main() -> (tensor<2x2xi32>)" in p.mlir and "return %result : tensor<2x2xi32>" in p.mlir
    assert "check." not in p.mlir and "@helper_and_float" not in p.mlir  # other tests left out
    assert "#map = affine_map" in p.mlir and "func.func private @twice" in p.mlir  # what the file declares
    (e,) = p.expected
    assert (e.dtype, e.shape, e.exact, e.splat) == ("int32", (2, 2), True, False)


@pytest.mark.harness
def test_expected_values_are_read_as_the_checks_state_them():
    p = program_of("tests/e2e/x.mlir", FILE, "helper_and_float")
    ints, floats = p.expected
    assert (ints.exact, floats.exact) == (True, False) and floats.literal == "[2.25, 4.0, 0.0625]"  # MLIR's `4.` read
    scope: dict = {}
    exec(reference_source(p, "doc"), scope)
    got = scope["reference"]()
    assert got[0].tolist() == [2, 4, 6, 510] and got[1].tolist() == [2.25, 4.0, 0.0625]
    assert "return %b, %g : tensor<4xi32>, tensor<3xf32>" in p.mlir


@pytest.mark.harness
def test_what_cannot_run_as_a_program_is_counted_by_reason():
    with pytest.raises(NotRunnable, match=r"a check of another kind \(expect_all_true\)"):
        program_of("tests/e2e/x.mlir", FILE, "other_kind")
    programs, refused = read_corpus({"tests/e2e/a/x.mlir": FILE})
    assert [p.function for p in programs] == ["scatter_2d", "helper_and_float", "against_computed"]
    assert refused == {"a check of another kind (expect_all_true)": ["a.x.other_kind"]}
    with pytest.raises(NotRunnable, match="an element type numpy has no dtype for: bf16"):
        program_of("tests/e2e/x.mlir", FILE.replace("dense<[2, 4, 6, 510]> : tensor<4xi32>",
                                                    "dense<1.0> : tensor<4xbf16>"), "helper_and_float")


SIMPLE = '''func.func @add() {
  %a = util.unfoldable_constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = arith.addf %a, %a : tensor<3xf32>
  check.expect_almost_eq_const(%b, dense<[2.0, 4.0, 6.0]> : tensor<3xf32>) : tensor<3xf32>
  return
}
'''


def _item(tmp_path, monkeypatch, text):
    monkeypatch.setenv("IREE_REGRESS_CACHE", str(tmp_path / "cache"))
    p = program_of("tests/e2e/simple.mlir", text, "add")
    manifest = {"title": "an e2e program", "kind": "numeric", "issues": [], "found_by": "iree-regress sweep",
                "source": {"mlir": "model.mlir", "function": "main", "reference": "reference.py"},
                "matrix": {"targets": ["cpu"], "opt_levels": ["O0"]}, "compare": {"atol": 1e-4, "rtol": 0.0}}
    case_dir = write_case(tmp_path / "cases", "e2e", manifest,
                          {"model.mlir": p.mlir, "reference.py": reference_source(p, "doc")})
    from harness.cli import main as cli
    assert cli(["golden", str(case_dir)]) == 0
    return run_matrix_item(load_case(case_dir / "case.toml"), "cpu", "O0", settings_with(resolve()))


def test_an_e2e_program_compiles_runs_and_matches_its_checks(tmp_path, monkeypatch):
    result = _item(tmp_path, monkeypatch, SIMPLE)
    assert result.outcome == "pass", result.failure_text()[:1000]


COMPUTED = '''func.func @add() {
  %a = util.unfoldable_constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %b = arith.addf %a, %a : tensor<3xf32>
  %c = arith.mulf %a, %a : tensor<3xf32>
  check.expect_almost_eq(%b, %b) : tensor<3xf32>
  return
}
'''


def test_a_check_of_two_computed_values_is_compared_in_the_program(tmp_path, monkeypatch):
    """expect_almost_eq(%a, %b): the program compares them where the check stood (an i1
    tensor, golden all true); planted: 2a against a*a differs where a != 2."""
    assert _item(tmp_path / "same", monkeypatch, COMPUTED).outcome == "pass"
    planted = _item(tmp_path / "planted", monkeypatch, COMPUTED.replace("(%b, %b)", "(%b, %c)"))
    assert planted.outcome == "compare-fail" and "2/3 elements differ" in planted.failure_text()


def test_a_planted_wrong_expected_value_fails_the_item(tmp_path, monkeypatch):
    """Planted: the check states 7.0 where the program computes 6.0."""
    result = _item(tmp_path, monkeypatch, SIMPLE.replace("6.0]>", "7.0]>"))
    assert result.outcome == "compare-fail" and "1/3 elements differ" in result.failure_text()


BUILD = '''
load("//build_tools/bazel:enforce_glob.bzl", "enforce_glob")

COMMON = [
    "add.mlir",
]

ALL_SRCS = enforce_glob(
    COMMON + [
        "sort.mlir",
    ],
    include = ["*.mlir"],
    exclude = ["masked.mlir"],
)

iree_check_single_backend_test_suite(
    name = "check_llvm-cpu_local-task",
    srcs = ALL_SRCS,
    compiler_flags = ["--iree-llvmcpu-target-cpu=generic"],  # ours: the host
    target_backend = "llvm-cpu",
)

iree_check_single_backend_test_suite(
    name = "check_llvm-cpu_i1",
    srcs = ["masked.mlir"],
    compiler_flags = [
        "--iree-llvmcpu-target-cpu=generic",
        "--iree-experimental-packed-i1-storage",
        "--iree-preprocessing-pass-pipeline=builtin.module\\\\(func.func\\\\(x\\\\)\\\\)",
    ],
    target_backend = "llvm-cpu",
)

iree_check_single_backend_test_suite(
    name = "check_cuda",
    srcs = ["large.mlir"] + COMMON,
    target_backend = "cuda",
)
'''


@pytest.mark.harness
def test_where_upstream_runs_a_file_and_with_which_flags_is_read_from_its_build_file():
    from harness.sweep.own_tests import upstream_of
    files = {"tests/e2e/x/BUILD.bazel": BUILD}
    assert upstream_of("tests/e2e/x/add.mlir", files) == (["cuda", "llvm-cpu"], ())
    assert upstream_of("tests/e2e/x/sort.mlir", files) == (["llvm-cpu"], ())
    assert upstream_of("tests/e2e/x/masked.mlir", files) == (
        ["llvm-cpu"], ("--iree-experimental-packed-i1-storage",
                       "--iree-preprocessing-pass-pipeline=builtin.module(func.func(x))"))
    assert upstream_of("tests/e2e/x/large.mlir", files) == (["cuda"], ())
    assert upstream_of("tests/e2e/y/none.mlir", files) == ([], ())


@pytest.mark.harness
def test_a_programs_own_flags_reach_its_items_and_are_checked_as_a_cases(tmp_path):
    from harness.case import CaseError, case_from_table
    from harness.sweep.materialize import case_table
    from harness.sweep.program import Program
    from harness.sweep.spec import load_sweep

    sweep = load_sweep(Path("sweeps/iree_e2e.toml"))
    variant = sweep.sample_of()[0]
    program = Program("def example_inputs():\n    return ()\n", "f32", mlir="func.func @main() {}",
                      flags=("--iree-experimental-packed-i1-storage",))
    table = case_table(sweep, variant, program)
    assert table["matrix"]["flags"][-1] == "--iree-experimental-packed-i1-storage"
    bad = Program(program.source, "f32", mlir=program.mlir, flags=("--iree-hal-dump-executable-files-to=/tmp",))
    with pytest.raises(CaseError):
        case_from_table(case_table(sweep, variant, bad), sweep.path, tmp_path, variant.case_id, require_golden=False)


@pytest.mark.harness
def test_a_splat_integer_is_read_signless_as_a_listed_one():
    """dense<128> : tensor<4xi8> is -128 in each element (a wrapped i8 sum's check), as
    dense<[255]> is -1: the splat once failed PyTorch (`cannot be converted to int8`)."""
    text = ("func.func @q() {\n  %a = util.unfoldable_constant dense<1> : tensor<4xi8>\n"
            "  check.expect_eq_const(%a, dense<128> : tensor<4xi8>) : tensor<4xi8>\n  return\n}\n")
    scope: dict = {}
    exec(reference_source(program_of("tests/e2e/x/q.mlir", text, "q"), "doc"), scope)
    (expected,) = scope["reference"]()
    assert expected.tolist() == [-128] * 4
