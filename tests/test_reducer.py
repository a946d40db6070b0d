"""The reducer through the compiler library (real libIREECompiler.so, fake oracle)."""

import pytest

from harness import toolchain
from harness.triage import reducer

MATMUL_EXP = """func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %x = math.exp %m : tensor<4x4xf32>
  return %x : tensor<4x4xf32>
}
"""


@pytest.fixture
def installed():
    try:
        return toolchain.installed()
    except toolchain.ToolchainError as e:
        pytest.skip(str(e))


def test_reduces_to_what_the_oracle_cares_about(installed, tmp_path):
    mlir = tmp_path / "in.mlir"
    mlir.write_text(MATMUL_EXP)
    oracle = tmp_path / "oracle.sh"
    oracle.write_text('#!/bin/sh\ngrep -q "math.exp" "$1"\n')  # interesting: the exp is still there
    oracle.chmod(0o755)
    result = reducer.reduce(installed, mlir, oracle, tmp_path / "out.mlir")
    assert result.ok, result.detail
    text = result.output.read_text()
    assert "math.exp" in text and "linalg.matmul" not in text


def test_a_toolchain_without_the_library_says_so(tmp_path):
    from harness.toolchain import Toolchain

    fake = Toolchain(tmp_path / "iree-compile", tmp_path / "iree-opt", tmp_path / "iree-run-module",
                     "3.13.0", "", "", "test")
    result = reducer.reduce(fake, tmp_path / "in.mlir", tmp_path / "oracle.sh", tmp_path / "out.mlir")
    assert not result.ok and "libIREECompiler.so" in result.detail
