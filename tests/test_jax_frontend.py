"""The StableHLO frontend (harness/jax_frontend.py): a PyTorch program traced by
torch.export, each ATen op a jax.numpy / lax call, the StableHLO what JAX lowers it to,
compiled by the pinned release, judged against PyTorch eager, with XLA CPU as the
second reference. Real tools: torch, jax and the pinned iree-base-compiler and runtime."""

from __future__ import annotations

import numpy as np
import pytest

from harness.case import load_case
from harness.item import settings_with
from harness.runner import run_matrix_item
from harness.toolchain import resolve
from helpers import torch_case_with_golden

# One program through most of what the table knows: a layout change, index arithmetic
# with a Python remainder of negative values, a scatter, a gather, an index_put, topk,
# a sort, reductions, a softmax, a matmul, a cumsum (which the hand-written StableHLO
# this replaced could not write).
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
        return values, indices, ordered, order, z, y.amax(dim=0), torch.cumsum(y, 1)


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
    return torch_case_with_golden(tmp_path, monkeypatch, "through-stablehlo", model, case)


def _item(case_dir):
    return run_matrix_item(load_case(case_dir / "case.toml"), "cpu", "O0", settings_with(resolve()))


def test_jax_writes_the_stablehlo_which_compiles_runs_and_matches_both_references(tmp_path, monkeypatch):
    case_dir = _case(tmp_path, monkeypatch)
    result = _item(case_dir)
    imported = next(s for s in result.stages if s.stage == "import")
    assert imported.ok, imported.detail
    assert result.outcome == "pass", result.failure_text()[:2000]
    job = next((tmp_path / "cache").rglob("model.mlir")).parent
    text = (job / "model.mlir").read_text()
    assert text.startswith("module @jit_function") and 'jax.result_info = "result[0]"' in text  # JAX's own text
    for op in ("stablehlo.transpose", "stablehlo.scatter", "stablehlo.gather", "chlo.top_k", "stablehlo.sort",
               "stablehlo.reduce", "stablehlo.dot_general", "stablehlo.reduce_window"):
        assert op in text, op
    assert "torch." not in text  # nothing of the torch dialect: the StableHLO input conversion is what runs
    assert len(list(job.glob("xla*.npy"))) == len(list(job.glob("eager*.npy"))) == 7  # the second reference


def test_a_planted_wrong_golden_is_a_reference_problem_never_iree_s_verdict(tmp_path, monkeypatch):
    """XLA agrees with IREE, the golden says otherwise: the references disagree, and the
    item says so instead of blaming the compiler."""
    case_dir = _case(tmp_path, monkeypatch)
    golden = case_dir / "expected" / "output4.npy"
    planted = np.load(golden)
    planted[0, 0, 0] += 1
    np.save(golden, planted)
    result = _item(case_dir)
    assert result.outcome == "reference-fail"
    assert "the references disagree, not IREE's verdict: XLA CPU vs golden (PyTorch eager): output 4: 1/" \
        in result.failure_text()


def test_a_planted_wrong_xla_output_is_a_reference_problem(tmp_path, monkeypatch):
    """The torch job's outputs as the compare stage gets them, XLA's one element off (the
    cache refuses a changed entry, so the plant is in what the job hands over)."""
    from harness import stages
    from harness.outcomes import OK
    from harness.record import StageResult
    from harness.reference import load_arrays, save_arrays

    case_dir = _case(tmp_path, monkeypatch)
    case = load_case(case_dir / "case.toml")
    golden = load_arrays(case.expected_dir)
    entry = tmp_path / "job"
    save_arrays(entry, "eager", golden)
    wrong = [g.copy() for g in golden]
    wrong[4][0, 0, 0] += 1
    save_arrays(entry, "xla", wrong)
    monkeypatch.setattr(stages, "torch_job", lambda *a, **k: (StageResult("import", OK), entry))
    result = stages.compare_stage(case, golden, settings_with(resolve()))
    assert (result.stage, result.status) == ("reference", "fail")
    assert "the references disagree, not IREE's verdict: XLA CPU vs golden (PyTorch eager): output 4: 1/" in result.detail
    save_arrays(entry, "xla", golden)  # the same check with XLA right: a pass
    assert stages.compare_stage(case, golden, settings_with(resolve())).ok


POOL = ("import torch\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
        "        return torch.nn.functional.avg_pool2d(x, 2)\n\n\ndef example_inputs():\n"
        "    return (torch.ones(1, 1, 4, 4),)\n")


def test_an_op_the_table_does_not_know_is_the_frontends_failure_naming_it(tmp_path, monkeypatch):
    """Raised by the frontend, and recorded on the item as the import's failure with the op
    named: the item never passes, and IREE is never blamed."""
    from harness.jax_frontend import UnsupportedOp, export_stablehlo
    from harness.reference import load_program

    model = tmp_path / "model.py"
    model.write_text(POOL)
    with pytest.raises(UnsupportedOp, match=r"no lowering for aten\.avg_pool2d"):
        export_stablehlo(load_program(model))
    case_dir = _case(tmp_path, monkeypatch, model=POOL, case=CASE.split("[compare]")[0])
    result = _item(case_dir)
    assert result.outcome == "import-fail" and "no lowering for aten.avg_pool2d" in result.failure_text()
    assert not any(s.stage == "compile" for s in result.stages)


def test_python_remainder_of_negative_values_is_the_divisors_sign(tmp_path, monkeypatch):
    """StableHLO's remainder takes the dividend's sign, PyTorch's the divisor's: jnp.remainder
    is Python's (without that, -7 % 10 would come out -7, not 3)."""
    model = ("import torch\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
             "        return x % 10, (x * -1) % -3\n\n\ndef example_inputs():\n"
             "    return (torch.arange(-12, 12, dtype=torch.int32),)\n")
    case_dir = _case(tmp_path, monkeypatch, model=model, case=CASE.split("[compare]")[0])
    result = _item(case_dir)
    assert result.outcome == "pass", result.failure_text()[:1000]


def _stablehlo_of(tmp_path, returns: str, inputs: str) -> str:
    """JAX's StableHLO of `forward(self, x, w): return <returns>` over `inputs`."""
    from harness.jax_frontend import export_stablehlo
    from harness.reference import load_program

    model = tmp_path / "model.py"
    model.write_text("import torch\n\nclass Model(torch.nn.Module):\n    def forward(self, x, w):\n"
                     f"        return {returns}\n\n\ndef example_inputs():\n    return ({inputs})\n")
    return export_stablehlo(load_program(model))


def test_f16_sums_are_accumulated_in_f32_as_jax_writes_them(tmp_path):
    """JAX sums and normalizes f16 in f32 and rounds once (the hand-written StableHLO once
    wrote them in f16: a false failure). The contraction states its f32 accumulator, as
    PyTorch computes it: left to the compiler, IREE's cpu target accumulated an f16 dot in
    f16 on an AVX2 host (topk-stablehlo seed 0 failed there and passed on another host)."""
    text = _stablehlo_of(tmp_path, "torch.matmul(x, w), x.sum(dim=-1), torch.softmax(x, dim=-1)",
                         "torch.ones(3, 4, dtype=torch.float16), torch.ones(4, 5, dtype=torch.float16)")
    dot = next(line for line in text.splitlines() if "dot_general" in line)
    assert "(tensor<3x4xf16>, tensor<4x5xf16>) -> tensor<3x5xf32>" in dot
    sums = [line for line in text.splitlines() if "applies stablehlo.add" in line]
    assert len(sums) == 2 and all("(tensor<3x4xf32>, tensor<f32>) -> tensor<3xf32>" in line for line in sums)
    assert "-> tensor<3x5xf16>" in text and "-> tensor<3xf16>" in text  # rounded once, at the end


def test_an_f16_convolution_states_its_f32_accumulator(tmp_path):
    text = _stablehlo_of(tmp_path, "torch.nn.functional.conv1d(x, w)",
                         "torch.ones(1, 2, 8, dtype=torch.float16), torch.ones(3, 2, 3, dtype=torch.float16)")
    conv = next(line for line in text.splitlines() if "convolution" in line)
    assert "-> tensor<1x3x6xf32>" in conv
    assert "stablehlo.convert" in text and "-> tensor<1x3x6xf16>" in text


def test_i64_stays_i64(tmp_path):
    """JAX's default is 32-bit integers: the frontend turns 64-bit on, so a PyTorch int64 is
    an i64 in the StableHLO (an index of i32 would be another program)."""
    from harness.jax_frontend import export_stablehlo
    from harness.reference import load_program

    model = tmp_path / "model.py"
    model.write_text("import torch\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
                     "        return x.argmax(dim=-1), x.to(torch.int64) * 3\n\n\n"
                     "def example_inputs():\n    return (torch.ones(3, 4),)\n")
    text = export_stablehlo(load_program(model))
    assert "-> (tensor<3xi64>" in text and "tensor<3x4xi64>" in text


def test_a_table_entry_of_the_wrong_shape_is_refused_naming_the_op(tmp_path, monkeypatch):
    """Planted: flip written as a transpose. The recorded shape tells, and the op is named,
    never reshaped into place."""
    from harness import jax_frontend
    from harness.reference import load_program

    model = tmp_path / "model.py"
    model.write_text("import torch\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
                     "        return x.flip(0)\n\n\ndef example_inputs():\n    return (torch.ones(3, 4),)\n")
    assert "stablehlo.reverse" in jax_frontend.export_stablehlo(load_program(model))
    table = dict(jax_frontend.OPS())
    table["flip"] = lambda c, a, dims: a.T
    monkeypatch.setattr(jax_frontend, "OPS", lambda: table)
    with pytest.raises(jax_frontend.UnsupportedOp, match=r"aten\.flip\.default: gave shape \[4, 3\] where the export recorded \[3, 4\]"):
        jax_frontend.export_stablehlo(load_program(model))


def test_the_vision_windows_ops_match_pytorch_through_xla(tmp_path):
    """The ops the model windows brought to the table (inference batch norm, relu, hardtanh,
    gelu, max_pool2d): XLA on JAX's function agrees with PyTorch eager."""
    import torch

    from harness.jax_frontend import _xla, traced
    from harness.reference import load_program

    model = tmp_path / "model.py"
    model.write_text('''import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(4)
        self.bn.running_mean.uniform_(-0.5, 0.5)
        self.bn.running_var.uniform_(0.5, 2.0)

    def forward(self, x):
        y = self.bn(self.conv(x))
        return (torch.nn.functional.max_pool2d(torch.relu(y), 2), torch.nn.functional.hardtanh(y, 0.0, 6.0),
                torch.nn.functional.gelu(y), torch.nn.functional.gelu(y, approximate="tanh"))


def example_inputs():
    return (torch.randn(2, 3, 8, 8, generator=torch.Generator().manual_seed(1)),)
''')
    program = load_program(model)
    function, args = traced(program)
    with torch.no_grad():
        eager = program.Model().eval()(*program.example_inputs())
    for got, want in zip(_xla(function, args), eager):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-5)
