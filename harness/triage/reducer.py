"""iree-reduce through the compiler wheel's own library.

The wheels ship no iree-reduce binary, but `libIREECompiler.so` (next to iree-compile in
iree/compiler/_mlir_libs/) exports `ireeReduceRunMain(argc, argv)` (seen in 2.9.0,
3.5.0, 3.10.0 and 3.13.0), which behaves as the tool:

    iree-reduce [-o OUT] <interestingness script> <input.mlir>

The script gets a candidate file as its argument and exits 0 when the candidate is still
interesting (shows the bug). The library runs in a child process (`python -m
harness.triage.reducer`), under the same bounds as any tool: a crash in the reducer is a
recorded result, not a dead harness. The torch dialect is not registered in it: reduce
the output of `iree-compile --compile-to=input`, not torch-dialect IR.
"""

from __future__ import annotations

import ctypes
import sys
from dataclasses import dataclass
from pathlib import Path

from ..outcomes import OK
from ..process import Bounds, first_frame, run_bounded
from ..toolchain import Toolchain

SYMBOL = "ireeReduceRunMain"


def library_of(toolchain: Toolchain) -> Path:
    return toolchain.compile.parent / "libIREECompiler.so"


@dataclass(frozen=True)
class Reduction:
    ok: bool
    output: Path | None
    detail: str  # why not, or what it did (lines before -> after)
    seconds: float


def reduce(toolchain: Toolchain, mlir: Path, script: Path, out: Path,
           bounds: Bounds = Bounds(timeout_s=600)) -> Reduction:
    """Reduce `mlir` while `script` says it is interesting; the result goes to `out`."""
    library = library_of(toolchain)
    if not library.is_file():
        return Reduction(False, None, f"no {library.name} beside {toolchain.compile} "
                                      "(a tools dir without the compiler library cannot reduce)", 0.0)
    proc = run_bounded([sys.executable, "-m", "harness.triage.reducer", library, "-o", out, script, mlir],
                       bounds, cwd=Path(__file__).resolve().parent.parent)
    if proc.status() != OK or not out.is_file():
        # Reducers of some releases crash on their own candidates (2.9.0 and 3.5.0 in
        # linalg's isContractionBody on a matmul whose body was reduced away): say where.
        frame = first_frame(proc.stderr)
        said = (proc.stderr.strip().splitlines() or ["(nothing)"])[-1]
        return Reduction(False, None, f"iree-reduce {proc.status()}: {'at ' + frame if frame else said}",
                         proc.seconds)
    before, after = _lines(mlir), _lines(out)
    return Reduction(True, out, f"{before} -> {after} lines", proc.seconds)


def _lines(path: Path) -> int:
    return sum(1 for line in path.read_text().splitlines() if line.strip())


def _main(argv: list[str]) -> int:
    """In the child: load the library and call the entry point with iree-reduce's argv."""
    library, *args = argv
    try:
        entry = getattr(ctypes.CDLL(library), SYMBOL)
    except (OSError, AttributeError) as e:
        print(f"{library} does not export {SYMBOL}: {e}", file=sys.stderr)
        return 2
    entry.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
    entry.restype = ctypes.c_int
    full = [b"iree-reduce", *(a.encode() for a in args)]
    return entry(len(full), (ctypes.c_char_p * len(full))(*full))


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
