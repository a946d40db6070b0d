"""A program being triaged: an MLIR file, its entry point's signature, and inputs for it.

A reduced program has no PyTorch golden, so triage runs it on the bad and the good
release with the same inputs. Inputs come from the case when the entry point still takes
what the case feeds it (gather indices stay in range), and are otherwise generated from
the signature, deterministically (seed 0), so every candidate and every rerun sees the
same numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

_FUNC = re.compile(r"(?:func\.func|util\.func)\s+(?:public\s+|private\s+)?@([\w$.-]+)\s*\(")
_TENSOR = re.compile(r"tensor<([^<>]*)>")
_DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i1": np.bool_,
           "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "ui8": np.uint8,
           "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64, "si8": np.int8,
           "si32": np.int32, "si64": np.int64}
DYNAMIC_SIZE = 4  # what a `?` dimension becomes in generated inputs


class SignatureError(ValueError):
    pass


@dataclass(frozen=True)
class TensorType:
    dims: tuple[int | None, ...]  # None for `?`
    dtype: str  # as MLIR spells it: f32, i64, ...

    def accepts(self, array: np.ndarray) -> bool:
        return (array.ndim == len(self.dims) and array.dtype == np.dtype(_DTYPES[self.dtype])
                and all(d is None or d == n for d, n in zip(self.dims, array.shape)))


@dataclass(frozen=True)
class Signature:
    function: str
    args: tuple[TensorType, ...]
    results: tuple[TensorType, ...]


def _balanced(text: str, start: int, open_: str = "(", close: str = ")") -> int:
    """Index just past the bracket that closes the one at `start`."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] in open_:
            depth += 1
        elif text[i] in close:
            depth -= 1
            if depth == 0:
                return i + 1
    raise SignatureError("unbalanced brackets in the entry point's signature")


_ARG = re.compile(r"%[\w$.-]+\s*:\s*(tensor<[^<>]*>|[^,{}()\s]+)")
_RESULT = re.compile(r"tensor<[^<>]*>|(?<![\w<.])(?:[a-z]+\d+|index)\b")


def _tensor_types(types_text: list[str], where: str) -> tuple[TensorType, ...]:
    types = []
    for i, text in enumerate(types_text):
        m = _TENSOR.fullmatch(text)
        if not m:
            raise SignatureError(f"{where} {i} is a {text}: only tensor arguments and results "
                                 "can be fed from .npy files")
        *dims, dtype = m.group(1).split("x")
        if dtype not in _DTYPES:
            raise SignatureError(f"{where}: element type {dtype!r} has no numpy equivalent")
        types.append(TensorType(tuple(None if d == "?" else int(d) for d in dims), dtype))
    return tuple(types)


def signature(mlir_text: str, function: str | None = None) -> Signature:
    """The public entry point's tensor arguments and results (the first function, or the
    one named `function`)."""
    for m in _FUNC.finditer(mlir_text):
        if function and m.group(1) != function:
            continue
        args_end = _balanced(mlir_text, m.end() - 1)
        args = mlir_text[m.end() - 1:args_end]
        rest = mlir_text[args_end:]
        results = ""
        arrow = re.match(r"\s*->\s*", rest)
        if arrow:
            after = rest[arrow.end():]
            end = _balanced(after, 0) if after.startswith("(") else len(after.split("{", 1)[0]
                                                                           .split(" attributes", 1)[0])
            results = after[:end]
        return Signature(m.group(1), _tensor_types(_ARG.findall(args), "argument"),
                         _tensor_types(_RESULT.findall(results), "result"))
    raise SignatureError(f"no function {'@' + function if function else ''} in the program".replace("  ", " "))


def inputs_for(sig: Signature, offered: list[np.ndarray]) -> tuple[list[np.ndarray], str]:
    """Inputs for `sig`: the `offered` ones (the case's) when they fit, else generated.
    Returns the arrays and where they came from."""
    if len(offered) == len(sig.args) and all(t.accepts(a) for t, a in zip(sig.args, offered)):
        return list(offered), "the case's inputs"
    rng = np.random.default_rng(0)
    arrays = []
    for t in sig.args:
        shape = tuple(DYNAMIC_SIZE if d is None else d for d in t.dims)
        dtype = np.dtype(_DTYPES[t.dtype])
        if dtype == np.bool_:
            arrays.append(rng.integers(0, 2, shape).astype(np.bool_))
        elif dtype.kind in "iu":
            arrays.append(rng.integers(0, 4, shape).astype(dtype))  # small: valid as indices
        else:
            arrays.append(rng.standard_normal(shape).astype(dtype))
    return arrays, f"generated from the signature (seed 0, `?` = {DYNAMIC_SIZE})"


def write_inputs(arrays: list[np.ndarray], folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, a in enumerate(arrays):
        paths.append(folder / f"input{i}.npy")
        np.save(paths[-1], a)
    return paths


_OP = re.compile(r"^\s*(?:%[\w#:, %]+=\s*)?\"?([a-z_][\w]*\.[\w.]+)")


def size(text: str) -> tuple[int, int]:
    """(operations, non-blank lines) of an MLIR text: what a reduction makes smaller.
    Location aliases (`#loc3 = loc(...)`) are not counted: the reducer drops them."""
    lines = [line for line in text.splitlines() if line.strip() and not line.startswith("#loc")]
    ops = sum(1 for line in lines if _OP.match(line) and not line.lstrip().startswith("#"))
    return ops, len(lines)
