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


def write_golden(program_path: Path, case_dir: Path) -> tuple[list[Path], list[Path]]:
    """Write inputs/input<i>.npy and expected/output<i>.npy for a case."""
    program = load_program(program_path)
    inputs = example_inputs(program)
    outputs = eager(program, inputs)
    return (save_arrays(case_dir / "inputs", "input", inputs),
            save_arrays(case_dir / "expected", "output", outputs))
