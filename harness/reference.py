"""PyTorch references: example inputs, eager outputs, and the stored golden files.

A case's PyTorch file (model.py for torch cases, reference.py for mlir cases) defines
`example_inputs()` and either `Model` or `reference(*inputs)`. `write_golden` runs it
and writes inputs/*.npy and expected/*.npy: the only way those files are made
(`iree-regress golden <slug>`). At test time the same program runs again in eager
mode on the stored inputs, so a golden file that drifted from PyTorch is caught too.
This module imports torch lazily: pytest workers never load it, only torch jobs do.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np


def load_module(path: Path, name: str):
    """Import the file at `path` as a fresh module called `name`."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load_program(path: Path):
    """Import a case's model.py / reference.py as a fresh module."""
    path = Path(path)
    module = load_module(path, f"iree_regress_case_{path.parent.name.replace('-', '_')}_{path.stem}")
    if not hasattr(module, "example_inputs"):
        raise AttributeError(f"{path}: defines no example_inputs()")
    if not (hasattr(module, "Model") or hasattr(module, "reference") or hasattr(module, "onnx_model")):
        raise AttributeError(f"{path}: defines none of Model, reference() and onnx_model()")
    return module


def as_tuple(outputs):
    return tuple(outputs) if isinstance(outputs, (tuple, list)) else (outputs,)


def eager(program, inputs_np: list[np.ndarray]) -> list[np.ndarray]:
    import torch

    # A copy: a program that writes into its inputs (x.add_(y), a model's residual) must
    # not change the arrays that are then saved as the case's inputs.
    inputs = [torch.from_numpy(np.array(x, copy=True)) for x in inputs_np]
    with torch.no_grad():
        if hasattr(program, "Model"):
            outputs = program.Model().eval()(*inputs)
        else:
            outputs = program.reference(*inputs)
    return [o.detach().cpu().numpy() for o in as_tuple(outputs)]


# The golden's spread: how far each output moves when every floating value the program
# makes (and its inputs) is moved by up to SPREAD_ULPS of its dtype's rounding. A compiler
# may move results that much by right (a sum reassociated, ops fused, an intermediate kept
# wider), so an element that moves further than the tolerance under such nudges cannot be
# judged by the tolerance alone: a float cast to an integer next to a boundary, an argmax
# of near-ties, a small difference of large values. Seeded: the same program gives the same
# spread everywhere.
SPREAD_FORMAT = 1  # in the goldens' cache key: raise it when spread() computes another thing
SPREAD_RUNS = 8  # all nudged up, all down, then drawn ones
SPREAD_ULPS = 2.0
# Ops whose results a compile cannot move: they select, move or round to an integer
# exactly. Their results are not nudged (a floor's 5.0 nudged to 4.9999995 would then
# cast to 4: a spread no compile can make).
EXACT_OPS = frozenset("""
    floor ceil round trunc sign abs __abs__ neg __neg__ negative relu clamp clamp_min clamp_max clip
    maximum minimum max min amax amin argmax argmin topk sort argsort where masked_fill gather
    index_select take_along_dim scatter index_put cat concat concatenate stack pad flip roll
    permute transpose reshape view contiguous clone expand expand_as broadcast_to repeat tril triu
    __getitem__ narrow split chunk unbind squeeze unsqueeze flatten unflatten movedim
    to type float half bfloat16 double one_hot embedding zeros_like ones_like full_like
    """.split())


def spread(program, inputs_np: list[np.ndarray], outputs: list[np.ndarray]) -> list[np.ndarray]:
    """Per output, per element: the largest |nudged - golden| over SPREAD_RUNS nudged eager
    runs (float64; inf where a nudged run leaves or enters a non-finite value)."""
    import torch
    from torch.overrides import TorchFunctionMode

    nudges = torch.Generator().manual_seed(0)

    direction = [0.0]  # +1: every value nudged up, -1: down, 0: each its own drawn way

    def nudge(value):
        if not (isinstance(value, torch.Tensor) and value.is_floating_point() and value.numel()):
            return value
        way = (torch.full(value.shape, direction[0], dtype=torch.float64) if direction[0] else
               torch.rand(value.shape, generator=nudges, dtype=torch.float64) * 2 - 1)
        return (value.to(torch.float64) * (1.0 + way * SPREAD_ULPS * torch.finfo(value.dtype).eps)).to(value.dtype)

    class Nudged(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            name = getattr(func, "__name__", "")
            # A view or an in-place op's result is a tensor the program may write through:
            # left as it is (its values were nudged where they were made).
            if (isinstance(out, torch.Tensor) and not out._is_view() and not name.endswith("_")
                    and name not in EXACT_OPS):
                return nudge(out)
            return out

    widest = [np.zeros(np.shape(o), dtype=np.float64) for o in outputs]
    for run in range(SPREAD_RUNS):
        direction[0] = (1.0, -1.0)[run] if run < 2 else 0.0
        moved = [nudge(torch.from_numpy(np.array(x, copy=True))).numpy() for x in inputs_np]
        with Nudged():
            again = eager(program, moved)
        for w, a, g in zip(widest, again, outputs):
            a64, g64 = np.asarray(a, dtype=np.float64), np.asarray(g, dtype=np.float64)
            same = (a64 == g64) | (np.isnan(a64) & np.isnan(g64))
            with np.errstate(invalid="ignore"):
                d = np.where(same, 0.0, np.abs(a64 - g64))
            np.maximum(w, np.where(np.isnan(d), np.inf, d), out=w)
    return widest


def example_inputs(program) -> list[np.ndarray]:
    """The program's example inputs as arrays (torch tensors, or arrays already: an ONNX
    program's)."""
    return [x if isinstance(x, np.ndarray) else x.detach().cpu().numpy() for x in as_tuple(program.example_inputs())]


def npy_files(directory: Path) -> list[Path]:
    """input0.npy, input1.npy, ... in index order (not lexical: input10 after input9)."""
    files = list(Path(directory).glob("*.npy"))
    return sorted(files, key=lambda p: (len(p.stem), p.stem))


def load_arrays(directory: Path) -> list[np.ndarray]:
    return [np.load(p) for p in npy_files(directory)]


def save_arrays(directory: Path, stem: str, arrays) -> list[Path]:
    """<stem><i>.npy, replacing the folder's earlier arrays of that stem (others stay: the
    eager and XLA outputs lie side by side)."""
    directory.mkdir(parents=True, exist_ok=True)
    for old in directory.glob(f"{stem}[0-9]*.npy"):
        old.unlink()
    paths = []
    for i, a in enumerate(arrays):
        p = directory / f"{stem}{i}.npy"
        np.save(p, np.asarray(a))
        paths.append(p)
    return paths


def write_golden(program_path: Path, case_dir: Path, with_spread: bool = False) -> tuple[list[Path], list[Path]]:
    """Write inputs/input<i>.npy and expected/output<i>.npy for a case (and, asked,
    spread/spread<i>.npy: the golden's spread)."""
    program = load_program(program_path)
    inputs = example_inputs(program)
    outputs = eager(program, inputs)
    if with_spread:
        save_arrays(case_dir / "spread", "spread", spread(program, inputs, outputs))
    return (save_arrays(case_dir / "inputs", "input", inputs),
            save_arrays(case_dir / "expected", "output", outputs))
