"""The ONNX frontend (harness/onnx_frontend.py): a PyTorch program exported to ONNX,
imported by iree-import-onnx, compiled by the pinned release, judged against ONNX
Runtime. Real tools: torch, onnx, onnxruntime and the pinned iree-base-compiler."""

from __future__ import annotations

import numpy as np

from harness.case import load_case
from harness.item import settings_with
from harness.runner import run_matrix_item
from harness.toolchain import resolve
from helpers import torch_case_with_golden

MODEL = '''import torch


class Model(torch.nn.Module):
    def forward(self, x, y):
        return (x.permute(1, 0) * 2 + y).softmax(-1)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(3, 5, generator=g), torch.randn(5, 3, generator=g))
'''

CASE = '''title = "permute into softmax, through ONNX"
kind = "numeric"
issues = []
found_by = "a test"

[source]
torch = "model.py"
frontend = "onnx"

[matrix]
targets = ["cpu"]
opt_levels = ["O0"]
'''


def test_a_case_through_onnx_gets_onnx_runtimes_golden_and_fails_on_a_planted_wrong_value(tmp_path, monkeypatch):
    case_dir = torch_case_with_golden(tmp_path, monkeypatch, "permute-softmax-onnx", MODEL, CASE)
    assert not (case_dir / "import").exists()  # the exported model stays out of the case

    case = load_case(case_dir / "case.toml")
    x, y = (np.load(case_dir / "inputs" / f"input{i}.npy") for i in (0, 1))
    z = x.T * 2 + y
    want = np.exp(z - z.max(-1, keepdims=True))
    np.testing.assert_allclose(np.load(case_dir / "expected" / "output0.npy"),
                               want / want.sum(-1, keepdims=True), rtol=1e-5)

    settings = settings_with(resolve())
    result = run_matrix_item(case, "cpu", "O0", settings)
    assert result.outcome == "pass", result.message
    compare = result.stages[-1]
    assert "golden (= ONNX Runtime today)" in compare.detail
    mlir = next((tmp_path / "cache").rglob("model.mlir")).read_text()
    assert 'torch.operator "onnx.Softmax"' in mlir and "func.func @main(" in mlir

    planted = np.load(case_dir / "expected" / "output0.npy")
    planted[1, 2] += 0.5
    np.save(case_dir / "expected" / "output0.npy", planted)
    result = run_matrix_item(load_case(case_dir / "case.toml"), "cpu", "O0", settings)
    assert result.outcome == "compare-fail"
    assert "golden_drift" in result.stages[-1].data  # ONNX Runtime today disagrees with it


FALLBACK_MODEL = '''import torch


class Model(torch.nn.Module):
    def forward(self, x):
        idx = (torch.arange(x.shape[-1]) * 3) % x.shape[-1]
        return torch.index_select(x, -1, idx)


def example_inputs():
    return (torch.arange(24, dtype=torch.float32).reshape(4, 6),)


def dynamic_shapes():
    return {"x": {0: torch.export.Dim.AUTO, 1: torch.export.Dim.AUTO}}
'''


def test_a_program_the_dynamo_exporter_refuses_goes_through_the_torchscript_exporter(tmp_path):
    """A remainder by a symbolic size: torch.onnx's dynamo exporter fails on it (torch
    2.13), so the frontend falls back to the TorchScript exporter, dims named; ONNX Runtime
    then runs the model and agrees with PyTorch."""
    import onnx

    from harness.onnx_frontend import export_onnx, runtime_outputs
    from harness.reference import load_program

    program = tmp_path / "model.py"
    program.write_text(FALLBACK_MODEL)
    model = export_onnx(load_program(program), "dynamic_shapes", tmp_path)
    graph = onnx.load(model).graph
    assert graph.name == "main" and [d.dim_param for d in graph.input[0].type.tensor_type.shape.dim] == ["x_0", "x_1"]
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    (out,) = runtime_outputs(model, [x])
    np.testing.assert_array_equal(out, x[:, (np.arange(6) * 3) % 6])
