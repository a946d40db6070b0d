"""How a case's PyTorch program reaches IREE: the frontends, in one place.

    torch      iree-turbine's export (torch dialect); golden PyTorch eager
    onnx       torch.onnx.export, then iree-import-onnx (onnx_frontend.py); golden ONNX Runtime
    stablehlo  torch.export, each ATen op a jax.numpy / lax call, the StableHLO JAX's own
               (jax_frontend.py); golden PyTorch eager, XLA CPU the second reference

A case or sweep names one (`frontend = ...`); each release then compiles what that path
wrote, so its input conversion is what differs between releases.
"""

from __future__ import annotations

from pathlib import Path

FRONTENDS = ("torch", "onnx", "stablehlo")
REFERENCE_NAME = {"torch": "PyTorch eager", "onnx": "ONNX Runtime", "stablehlo": "PyTorch eager"}
# What a sweep variant without a golden says (the program, its export or the reference failed).
NO_GOLDEN = {"torch": "PyTorch could not run the variant",
             "onnx": "the variant has no ONNX golden (the export, or ONNX Runtime, failed)",
             "stablehlo": "PyTorch could not run the variant"}
# The packages that decide what a path writes (part of its cache keys).
PACKAGES = {"torch": ("torch", "iree-turbine"), "onnx": ("onnx", "onnxruntime", "onnxscript", "iree-base-compiler"),
            "stablehlo": ("torch", "jax", "jaxlib")}
# Static shapes only: a program's dynamic dims are not written (JAX programs are static).
STATIC = ("stablehlo",)


def code_of(frontend: str) -> tuple[Path, ...]:
    """The modules whose code decides what the path writes (none of ours for the torch
    path: iree-turbine's, in PACKAGES)."""
    names = {"onnx": ("onnx_frontend.py",), "stablehlo": ("jax_frontend.py",)}
    return tuple(Path(__file__).with_name(n) for n in names.get(frontend, ()))
