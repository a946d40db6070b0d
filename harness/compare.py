"""Compare IREE outputs with reference outputs and say why they differ.

A diagnosis names the output, shape/dtype, max abs and rel error, how many elements
are off, the worst index with both values, and a summary of each tensor (as
torch-mlir's e2e suite does) instead of dumping arrays.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

# Only numpy at run time: reproducer bundles carry this file to machines that have
# nothing but iree-base-runtime (and its numpy) installed.
if TYPE_CHECKING:
    from .case import OutputRule


@dataclass(frozen=True)
class OutputDiagnosis:
    index: int
    ok: bool
    message: str
    max_abs: float = 0.0
    max_rel: float = 0.0
    mismatched: int = 0
    total: int = 0


@dataclass(frozen=True)
class Comparison:
    against: str  # "golden" or "eager"
    outputs: tuple[OutputDiagnosis, ...] = field(default_factory=tuple)
    problem: str = ""  # set when the outputs cannot be compared at all (count differs)

    @property
    def ok(self) -> bool:
        return not self.problem and all(o.ok for o in self.outputs)

    def summary(self) -> str:
        if self.problem:
            return f"vs {self.against}: {self.problem}"
        bad = [o for o in self.outputs if not o.ok]
        if not bad:
            return f"vs {self.against}: {len(self.outputs)} output(s) match"
        return f"vs {self.against}: " + "; ".join(o.message for o in bad)

    def as_dict(self) -> dict:
        return {"against": self.against, "ok": self.ok, "problem": self.problem,
                "outputs": [o.__dict__ for o in self.outputs]}


def tensor_summary(a: np.ndarray) -> str:
    if a.size == 0:
        return f"{a.dtype}{list(a.shape)} (empty)"
    if a.dtype == np.bool_:
        return f"bool{list(a.shape)} true={int(a.sum())}"
    f = a.astype(np.float64)
    return (f"{a.dtype}{list(a.shape)} min={f.min():.6g} max={f.max():.6g} "
            f"mean={f.mean():.6g}")


def _plain(value) -> str:
    """A value as a person reads it: 2.5, -inf, nan, 200 (not np.float32(2.5))."""
    if isinstance(value, (np.bool_, bool)):
        return str(bool(value))
    if np.issubdtype(type(value), np.integer):
        return str(int(value))
    return f"{float(value):.6g}"


def _non_finite(actual: np.ndarray, expected: np.ndarray) -> str:
    """NaN and Inf counts where the golden has none there: the usual sign of a real bug."""
    nan = int((np.isnan(actual) & ~np.isnan(expected)).sum())
    inf = int((np.isinf(actual) & ~np.isinf(expected)).sum())
    return f" (got {nan} NaN, {inf} Inf)" if nan or inf else ""


def _as_golden_signedness(actual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """IREE's integers are signless: a ui8 result comes back as i8 bits. Read the same
    bits the way the golden's dtype does, so bit-identical results compare equal."""
    if (actual.dtype.kind in "iu" and expected.dtype.kind in "iu"
            and actual.dtype.kind != expected.dtype.kind
            and actual.dtype.itemsize == expected.dtype.itemsize):
        return actual.view(expected.dtype)
    return actual


# An element may be off by its golden's spread (reference.spread: how far PyTorch's own
# result moves under nudges of an ulp or two a compiler may make) times this: the nudges
# are a few samples of what a compile may do, not its bound.
SPREAD_FACTOR = 4.0


def _spread_note(within: int) -> str:
    return f"; {within} element(s) judged within the golden's spread only" if within else ""


# How an output of the wrong shape is said; recall (harness/sweep/recall.py) tells this
# symptom from wrong values by it.
WRONG_SHAPE = re.compile(r"shape \[[^\]]*\] != expected \[")


def _wrong_shape(i, actual, expected) -> OutputDiagnosis:
    return OutputDiagnosis(i, False, f"output {i}: shape {list(actual.shape)} != expected {list(expected.shape)}")


def _compare_values(i, actual, expected, atol, rtol, spread=None) -> OutputDiagnosis:
    actual = _as_golden_signedness(actual, expected)
    if actual.shape != expected.shape:
        return _wrong_shape(i, actual, expected)
    if actual.dtype.kind != expected.dtype.kind or actual.dtype.itemsize != expected.dtype.itemsize:
        # i64 -> i32 demotion on some targets is a real difference worth seeing, but the
        # values may still be right: compare them anyway and say so.
        note = f" (dtype {actual.dtype} vs expected {expected.dtype})"
    else:
        note = ""
    if actual.size == 0:
        return OutputDiagnosis(i, True, f"output {i}: empty", total=0)
    a = actual.astype(np.float64)
    e = expected.astype(np.float64)
    same = (np.isnan(a) & np.isnan(e)) | (a == e)  # equal infinities, NaN where NaN expected
    with np.errstate(invalid="ignore"):
        diff = np.where(same, 0.0, np.abs(a - e))
        diff = np.where(np.isnan(diff), np.inf, diff)
        allowed = atol + rtol * np.abs(e)
        bad = ~(same | (np.isfinite(e) & (diff <= allowed)))
        within = 0
        if spread is not None:
            if spread.shape != e.shape:
                raise ValueError(f"output {i}: the golden's spread has shape {list(spread.shape)}, "
                                 f"the golden {list(e.shape)}")
            widened = bad & np.isfinite(e) & (diff <= allowed + SPREAD_FACTOR * spread)
            within = int(widened.sum())
            bad &= ~widened
    # Relative error only where the expected value is a finite non-zero: against 0 it is
    # meaningless (it read 6e+307 before), and the absolute error says it all.
    finite_nonzero = np.isfinite(e) & (e != 0)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        rel = np.where(finite_nonzero & (diff > 0), diff / np.where(finite_nonzero, np.abs(e), 1.0), 0.0)
    max_abs = float(diff.max())
    max_rel = float(rel.max()) if rel.size else 0.0
    mismatched = int(bad.sum())
    if not mismatched:
        return OutputDiagnosis(i, True, f"output {i}: ok{note}{_spread_note(within)}", max_abs, max_rel, 0, a.size)
    worst = np.unravel_index(int(np.argmax(np.where(bad, diff, -1))), a.shape)
    msg = (f"output {i}: {mismatched}/{a.size} elements differ (atol={atol:g}, rtol={rtol:g}); "
           f"max abs err {max_abs:.6g}, max rel err {max_rel:.6g}{_non_finite(a, e)}; "
           f"worst at {list(map(int, worst))}: got {_plain(actual[worst])}, expected "
           f"{_plain(expected[worst])}{note}; got {tensor_summary(actual)}; expected {tensor_summary(expected)}"
           f"{_spread_note(within)}")
    return OutputDiagnosis(i, False, msg, max_abs, max_rel, mismatched, a.size)


def _compare_indices(i, actual, expected, source, axis, atol, rtol) -> OutputDiagnosis:
    """Indices pass when they pick the same values from `source` (ties in any order)."""
    if actual.shape != expected.shape:
        return _wrong_shape(i, actual, expected)
    limit = source.shape[axis]
    if actual.size and (actual.min() < 0 or actual.max() >= limit):
        return OutputDiagnosis(i, False, f"output {i}: indices out of range [0, {limit}): "
                                         f"{tensor_summary(actual)}", mismatched=actual.size,
                               total=actual.size)
    picked = np.take_along_axis(source, actual.astype(np.int64), axis=axis)
    wanted = np.take_along_axis(source, expected.astype(np.int64), axis=axis)
    d = _compare_values(i, picked, wanted, atol, rtol)
    if d.ok:
        return OutputDiagnosis(i, True, f"output {i}: indices ok (ties allowed)", total=d.total)
    return OutputDiagnosis(i, False, d.message.replace(f"output {i}:", f"output {i} (indices, "
                                                       f"compared by the values they select):", 1),
                           d.max_abs, d.max_rel, d.mismatched, d.total)


def compare_outputs(actual: list[np.ndarray], expected: list[np.ndarray], inputs: list[np.ndarray],
                    atol: float, rtol: float, rules: tuple["OutputRule", ...] = (),
                    against: str = "golden", spreads: list[np.ndarray] | None = None) -> Comparison:
    """spreads: the golden's spread per output (reference.spread), where it has one."""
    if len(actual) != len(expected):
        return Comparison(against, problem=f"{len(actual)} outputs, expected {len(expected)}")
    by_index = {r.index: r for r in rules}
    results = []
    for i, (a, e) in enumerate(zip(actual, expected)):
        rule = by_index.get(i)
        if rule and rule.mode == "indices":
            results.append(_compare_indices(i, a, e, inputs[rule.input], rule.axis, atol, rtol))
        else:
            results.append(_compare_values(i, a, e, atol, rtol, spreads[i] if spreads and i < len(spreads) else None))
    return Comparison(against, tuple(results))


# How far two compiles of one program may round apart (a reassociated reduction, another
# tile size) before a differential item calls them different: by the output's dtype.
# Integers and booleans must agree exactly.
DIFFER_TOLERANCE = {"float16": 1e-2, "bfloat16": 2e-2, "float32": 1e-4, "float64": 1e-8}


def differ_tolerance(outputs: list[np.ndarray], atol: float, rtol: float) -> tuple[float, float]:
    """(atol, rtol): the loosest of the outputs' dtypes' tolerance and the given one."""
    loosest = max((DIFFER_TOLERANCE.get(o.dtype.name, 0.0) for o in outputs), default=0.0)
    return max(atol, loosest), max(rtol, loosest)
