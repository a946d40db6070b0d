"""Import a PyTorch model to MLIR with iree-turbine (torch dialect, function @main)."""

from __future__ import annotations

import functools
from pathlib import Path

from .reference import load_program


def export_mlir(model_path: Path, shapes_function: str = "dynamic_shapes") -> str:
    """The model exported with the dynamic dims `shapes_function()` names (absent: static)."""
    import torch
    from iree.turbine import aot

    program = load_program(model_path)
    args = tuple(program.example_inputs())
    if shapes_function != "dynamic_shapes" and not hasattr(program, shapes_function):
        raise AttributeError(f"{model_path}: defines no {shapes_function}()")
    dynamic = getattr(program, shapes_function)() if hasattr(program, shapes_function) else None
    with torch.no_grad():
        exported = aot.export(program.Model().eval(), args=args, dynamic_shapes=dynamic)
    return str(exported.mlir_module)


@functools.lru_cache(maxsize=None)
def versions(packages: tuple[str, ...] = ("torch", "iree-turbine")) -> dict[str, str]:
    """Versions that decide what an import produces (part of its cache key): the torch
    path's by default. Read once per process: package metadata parsing costs
    milliseconds per call."""
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for pkg in packages:
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "missing"
    return out
