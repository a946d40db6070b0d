"""The StableHLO frontend (harness/stablehlo_frontend.py): a PyTorch program traced by
torch.export and written as StableHLO, compiled by the pinned release, judged against
PyTorch eager. Real tools: torch and the pinned iree-base-compiler and runtime."""

from __future__ import annotations

import numpy as np
import pytest

from harness.case import load_case
from harness.cli import main as cli
from harness.item import settings_with
from harness.runner import run_matrix_item
from harness.toolchain import resolve

# One program through most of what the writer knows: a layout change, index arithmetic
# with a Python remainder of negative values, a scatter, a gather, an index_put, topk,
# a sort, reductions, a softmax, a matmul.
MODEL = '''import torch


class Model(torch.nn.Module):
    def forward(self, x, w):
        y = x.permute(1, 0, 2) * 2 + 1                     # [4, 6, 10]
        idx = ((torch.arange(y.shape[-1]) * 3 - 7) % y.shape[-1]).expand(y.shape)
        y = torch.zeros_like(y).scatter_add(2, idx, y)
        y = y.scatter_reduce(2, idx, y * 2, reduce="amax", include_self=True)
        rows = (torch.arange(y.shape[0]) * 3) % y.shape[0]
        y = y.index_put((rows,), y * 0.5, accumulate=True)
        y = torch.index_select(y, 1, (torch.arange(6) * 5) % 6)
        values, indices = torch.topk(y, 3, dim=1)
        ordered, order = torch.sort(y, dim=-1, descending=True)  # not of a slice: case stablehlo-sort-of-slice-*
        z = torch.matmul(torch.softmax(y.sum(dim=1, keepdim=True), dim=-1), w)
        z = torch.where(z > 0, z, -z) / 2
        return values, indices, ordered, order, z, y.amax(dim=0)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(6, 4, 10, generator=g), torch.randn(10, 5, generator=g))
'''

CASE = '''title = "a program through StableHLO"
kind = "numeric"
issues = []
found_by = "a test"

[source]
torch = "model.py"
frontend = "stablehlo"

[matrix]
targets = ["cpu"]
opt_levels = ["O0"]

[compare]
atol = 1e-4
rtol = 1e-4
'''


def _case(tmp_path, monkeypatch, model=MODEL, case=CASE):
    monkeypatch.setenv("IREE_REGRESS_CACHE", str(tmp_path / "cache"))
    case_dir = tmp_path / "cases" / "through-stablehlo"
    case_dir.mkdir(parents=True)
    (case_dir / "model.py").write_text(model)
    (case_dir / "case.toml").write_text(case)
    assert cli(["golden", str(case_dir)]) == 0
    return case_dir


def test_a_program_written_as_stablehlo_compiles_runs_and_matches_pytorch(tmp_path, monkeypatch):
    case_dir = _case(tmp_path, monkeypatch)
    case = load_case(case_dir / "case.toml")
    result = run_matrix_item(case, "cpu", "O0", settings_with(resolve()))
    imported = next(s for s in result.stages if s.stage == "import")
    assert imported.ok, imported.detail
    assert result.outcome == "pass", result.failure_text()[:2000]
    text = next((tmp_path / "cache").rglob("model.mlir")).read_text()
    for op in ("stablehlo.transpose", "stablehlo.scatter", "stablehlo.gather", "chlo.top_k", "stablehlo.sort",
               "stablehlo.reduce", "stablehlo.dot_general", "stablehlo.remainder"):
        assert op in text, op
    assert "torch." not in text  # nothing of the torch dialect: the StableHLO input conversion is what runs


def test_a_planted_wrong_golden_fails_the_stablehlo_case(tmp_path, monkeypatch):
    case_dir = _case(tmp_path, monkeypatch)
    golden = case_dir / "expected" / "output4.npy"
    planted = np.load(golden)
    planted[0, 0, 0] += 1
    np.save(golden, planted)
    case = load_case(case_dir / "case.toml")
    result = run_matrix_item(case, "cpu", "O0", settings_with(resolve()))
    assert result.outcome == "compare-fail"
    assert "output 4: 1/" in result.failure_text()


CUMSUM = ("import torch\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
          "        return torch.cumsum(x, 0)\n\n\ndef example_inputs():\n    return (torch.ones(3, 4),)\n")


def test_an_op_the_writer_does_not_know_is_the_frontends_failure_naming_it(tmp_path, monkeypatch):
    """Raised by the writer, and recorded on the item as the import's failure with the op
    named: the item never passes, and IREE is never blamed."""
    from harness.reference import load_program
    from harness.stablehlo_frontend import UnsupportedOp, export_stablehlo

    model = tmp_path / "model.py"
    model.write_text(CUMSUM)
    with pytest.raises(UnsupportedOp, match=r"no lowering for aten\.cumsum"):
        export_stablehlo(load_program(model))
    case_dir = _case(tmp_path, monkeypatch, model=CUMSUM, case=CASE.split("[compare]")[0])
    result = run_matrix_item(load_case(case_dir / "case.toml"), "cpu", "O0", settings_with(resolve()))
    assert result.outcome == "import-fail" and "no lowering for aten.cumsum" in result.failure_text()
    assert not any(s.stage == "compile" for s in result.stages)


def test_python_remainder_of_negative_values_is_the_divisors_sign(tmp_path, monkeypatch):
    """StableHLO's remainder takes the dividend's sign, PyTorch's the divisor's: the writer
    corrects it (without that, -7 % 10 would come out -7, not 3)."""
    model = ("import torch\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
             "        return x % 10, (x * -1) % -3\n\n\ndef example_inputs():\n"
             "    return (torch.arange(-12, 12, dtype=torch.int32),)\n")
    case_dir = _case(tmp_path, monkeypatch, model=model, case=CASE.split("[compare]")[0])
    case = load_case(case_dir / "case.toml")
    result = run_matrix_item(case, "cpu", "O0", settings_with(resolve()))
    assert result.outcome == "pass", result.failure_text()[:1000]


def test_f16_sums_and_contractions_are_written_as_pytorch_computes_them(tmp_path):
    """PyTorch's CPU kernels sum and contract f16 in f32 and round once; written in f16,
    the program would be another one (a 1-ulp difference at a cancellation, measured on
    the transpose sweep's seeds 20, 79, 148 and 157 before this)."""
    from harness.reference import load_program
    from harness.stablehlo_frontend import export_stablehlo

    model = tmp_path / "model.py"
    model.write_text("import torch\n\nclass Model(torch.nn.Module):\n    def forward(self, x, w):\n"
                     "        return torch.matmul(x, w), x.sum(dim=-1), torch.softmax(x, dim=-1)\n\n\n"
                     "def example_inputs():\n    return (torch.ones(3, 4, dtype=torch.float16), "
                     "torch.ones(4, 5, dtype=torch.float16))\n")
    text = export_stablehlo(load_program(model))
    dot = next(line for line in text.splitlines() if "dot_general" in line)
    assert "(tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>" in dot
    reduces = [line for line in text.splitlines() if "{dimensions = array<i64" in line]  # each reduce's types
    assert len(reduces) == 3 and all("xf32>, tensor<f32>) -> tensor<3xf32>" in line for line in reduces)
    assert "-> tensor<3x5xf16>" in text and "-> tensor<3xf16>" in text  # rounded once, at the end
