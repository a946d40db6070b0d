"""The one place the harness runs PyTorch: a subprocess, so a torch or iree-turbine
crash is a recorded import failure and pytest workers never pay for `import torch`.

    python -m harness.torch_job PROGRAM.py INPUTS_DIR OUT_DIR [--import-mlir [--dynamic-shapes FN]] [--frontend F]
    python -m harness.torch_job PROGRAM.py --golden CASE_DIR [--spread] [--import-mlir [--dynamic-shapes FN]] [--frontend F]

writes OUT_DIR/eager<i>.npy (eager outputs on the stored inputs) and, with
--import-mlir, OUT_DIR/model.mlir (iree-turbine export); with --golden, the program's
example inputs and eager outputs as CASE_DIR/inputs/ and CASE_DIR/expected/ (a sweep
variant's golden; with --spread also CASE_DIR/spread/, how far each output moves under
nudges a compiler may make: reference.spread), and with --import-mlir too, what the import would then write as
CASE_DIR/import/ (one PyTorch start-up for both). With --frontend onnx the program goes
through ONNX instead (harness/onnx_frontend.py): the reference is ONNX Runtime on the
exported model, and the import is iree-import-onnx's. With --frontend stablehlo the
import is the StableHLO JAX writes for the program (harness/jax_frontend.py), and XLA's
outputs on the same inputs are written beside the eager ones (xla<i>.npy): the
reference stays PyTorch eager, XLA is the second one.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import traceback
from pathlib import Path

import numpy as np

from .frontends import FRONTENDS


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.torch_job")
    parser.add_argument("program", type=Path)
    parser.add_argument("inputs_dir", type=Path, nargs="?")
    parser.add_argument("out_dir", type=Path, nargs="?")
    parser.add_argument("--golden", type=Path, default=None, metavar="CASE_DIR")
    parser.add_argument("--import-mlir", action="store_true")
    parser.add_argument("--dynamic-shapes", default="dynamic_shapes",
                        help="the model.py function that gives the export's dynamic_shapes")
    parser.add_argument("--frontend", choices=FRONTENDS, default="torch")
    parser.add_argument("--spread", action="store_true",
                        help="with --golden: also CASE_DIR/spread/, the golden's spread (reference.spread)")
    args = parser.parse_args(argv)
    if args.frontend == "onnx":
        return _through_onnx(args, parser)
    if args.golden is not None:
        from .reference import load_arrays, save_arrays, write_golden

        _, outputs = write_golden(args.program, args.golden, with_spread=args.spread)
        if args.import_mlir:
            imported = args.golden / "import"
            try:
                _write_import(args, imported, load_arrays(args.golden / "inputs"))
            except Exception:  # the import stage runs it again and records its failure
                shutil.rmtree(imported, ignore_errors=True)
                traceback.print_exc()
                return 0
            save_arrays(imported, "eager", [np.load(p) for p in outputs])
        return 0
    if args.out_dir is None:
        parser.error("INPUTS_DIR and OUT_DIR are required without --golden")

    from .reference import eager, load_arrays, load_program, save_arrays

    program = load_program(args.program)
    inputs = load_arrays(args.inputs_dir)
    save_arrays(args.out_dir, "eager", eager(program, inputs))
    if args.import_mlir:
        _write_import(args, args.out_dir, inputs)
    return 0


def _write_import(args, out: Path, inputs) -> None:
    """out/model.mlir, the program as the frontend writes it for IREE: iree-turbine's torch
    dialect, or the StableHLO JAX writes (with XLA's outputs on `inputs` beside it)."""
    out.mkdir(parents=True, exist_ok=True)
    if args.frontend == "stablehlo":
        from .jax_frontend import write_import

        write_import(args.program, out, inputs)
        return
    from .importers import export_mlir

    (out / "model.mlir").write_text(export_mlir(args.program, args.dynamic_shapes))


def _through_onnx(args, parser) -> int:
    from .onnx_frontend import export_onnx, import_mlir, runtime_outputs
    from .reference import example_inputs, load_arrays, load_program, save_arrays

    program = load_program(args.program)  # once: the export and the inputs read the same module
    if args.golden is not None:
        inputs = example_inputs(program)
        with tempfile.TemporaryDirectory(prefix="onnx-") as scratch:
            # The model beside the import it makes, or (the golden alone) out of the case's folder.
            out = args.golden / "import" if args.import_mlir else Path(scratch)
            out.mkdir(parents=True, exist_ok=True)
            model = export_onnx(program, args.dynamic_shapes, out)
            outputs = runtime_outputs(model, inputs)
        save_arrays(args.golden / "inputs", "input", inputs)
        save_arrays(args.golden / "expected", "output", outputs)
        if not args.import_mlir:
            return 0
    else:
        if args.out_dir is None:
            parser.error("INPUTS_DIR and OUT_DIR are required without --golden")
        out = args.out_dir
        model = export_onnx(program, args.dynamic_shapes, out)
        outputs = runtime_outputs(model, load_arrays(args.inputs_dir))
    save_arrays(out, "eager", outputs)
    if args.import_mlir:
        try:
            (out / "model.mlir").write_text(import_mlir(model))
        except Exception:  # the import stage runs it again and records its failure
            if args.golden is None:
                raise
            traceback.print_exc()
    return 0


if __name__ == "__main__":
    sys.exit(main())
