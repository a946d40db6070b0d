"""The ONNX path into IREE for a case's PyTorch program (a case or sweep with
`frontend = "onnx"`), run inside a torch job like the iree-turbine import.

The program becomes an ONNX model (its `onnx_model()` when it builds one with
`onnx.helper`, else `torch.onnx.export` of its Model with its dynamic_shapes, or, where
that exporter fails, the TorchScript exporter with the same dims as named axes), which
`iree-import-onnx` (of the pinned iree-base-compiler, as iree-turbine is pinned for the
torch path) imports; each release then compiles what that importer wrote, so the
compiler's ONNX-to-torch conversion is what differs between releases. The reference is
ONNX Runtime on the same model: what ONNX users compare IREE against.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .reference import as_tuple

FUNCTION = "main"  # the graph's name, so the imported function is @main as on the torch path


def export_onnx(program, shapes_function: str, out: Path) -> Path:
    """out/model.onnx made from the program (a loaded model.py: reference.load_program);
    its graph named FUNCTION."""
    import onnx

    if hasattr(program, "onnx_model"):
        model = program.onnx_model()
    else:
        import torch

        args = tuple(program.example_inputs())
        dynamic = getattr(program, shapes_function)() if hasattr(program, shapes_function) else None
        try:
            with torch.no_grad():
                model = torch.onnx.export(program.Model().eval(), args, dynamic_shapes=dynamic,
                                          dynamo=True, verbose=False).model_proto
        except Exception as e:
            # The dynamo exporter cannot export some programs the TorchScript one can (a
            # remainder by a symbolic size): ONNX users fall back to it, and so does this.
            model = _torchscript_export(program, args, dynamic, out, first=e)
    model.graph.name = FUNCTION
    path = out / "model.onnx"
    onnx.save(model, path)
    return path


def _torchscript_export(program, args: tuple, dynamic: dict | None, out: Path, first: Exception):
    """The program through torch.onnx's TorchScript exporter, its dynamic dims as named
    axes; RuntimeError naming both exporters' failures when it cannot either."""
    import inspect

    import onnx
    import torch

    module = program.Model().eval()  # Model may be a class or a function giving the module
    names = list(inspect.signature(module.forward).parameters)[:len(args)]
    axes = {n: {d: f"{n}_{d}" for d in (dynamic or {}).get(n, {})} for n in names}
    scratch = out / "torchscript.onnx"
    try:
        with torch.no_grad():
            torch.onnx.export(module, args, str(scratch), dynamo=False, input_names=names,
                              dynamic_axes={n: a for n, a in axes.items() if a})
        model = onnx.load(scratch)
    except Exception as e:  # PyTorch's exporters, not IREE: said in their own words
        raise RuntimeError(f"torch.onnx.export could not export the program: {type(first).__name__}: {first}; "
                           f"nor its TorchScript exporter: {type(e).__name__}: {e}") from e
    finally:
        scratch.unlink(missing_ok=True)
    return model


def runtime_outputs(model: Path, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """ONNX Runtime's outputs of the model on `inputs`, in the graph's input order."""
    import onnxruntime

    try:
        session = onnxruntime.InferenceSession(str(model), providers=["CPUExecutionProvider"])
        names = [i.name for i in session.get_inputs()]
        if len(names) != len(inputs):
            raise ValueError(f"{model.name} takes {len(names)} inputs, the program gives {len(inputs)}")
        return [np.asarray(o) for o in as_tuple(session.run(None, dict(zip(names, inputs))))]
    except Exception as e:  # the reference's own gap (an op or dtype it lacks), not IREE's
        raise RuntimeError(f"ONNX Runtime could not run the model: {e}") from e


def import_mlir(model: Path) -> str:
    """The model as torch-dialect MLIR, by iree-import-onnx."""
    from iree.compiler.tools.import_onnx import __main__ as importer

    out = model.with_suffix(".mlir")
    importer.main(importer.parse_arguments([str(model), "-o", str(out)]))
    return out.read_text()
