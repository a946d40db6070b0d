"""The bug's message as a scan measured it: a regex specific enough to tell this bug
from other failures with the same outcome (harness/bug.py matches it).

  wrong numbers   which outputs differ, every mismatch count measured and the decade
                  of the largest error: "output 0: (12|16)/64 elements differ...; max abs
                  err (0\\.[1-9]\\d*)" (a golden moved by a new miscompile does not match)
  a diagnostic    its first error line without locations, numbers or SSA names
  FileCheck       the check file and line that failed
  a crash         its signal
Results with several outcomes (wrong numbers on the matrix, a failing IR check) give
one alternative each.
"""

from __future__ import annotations

import re

from ..outcomes import WRONG_NUMBERS

_DIFF = re.compile(r"output (\d+)(?: \(indices[^)]*\))?: (\d+)/(\d+) elements differ[^;]*; max abs err (\S+?)[,;]")


def _decade(number: str) -> str:
    """A regex for numbers of the same decade as `number`, as compare.py prints them
    (%.6g): 0.8317 -> 0\\.[1-9]\\d*, 64 -> [1-9]\\d(?:\\.\\d*)?, 6.3e+307 -> [1-9](?:\\.\\d*)?e\\+307;
    inf and nan as written."""
    m = re.fullmatch(r"(\d)(?:\.\d*)?e([+-]\d+)", number)
    if m:
        return "[1-9](?:\\.\\d*)?e" + re.escape(m.group(2))
    m = re.fullmatch(r"0\.(0*)[1-9]\d*", number)
    if m:
        return "0\\." + m.group(1) + "[1-9]\\d*"
    m = re.fullmatch(r"([1-9]\d*)(?:\.\d*)?", number)
    if m:
        return "[1-9]" + "\\d" * (len(m.group(1)) - 1) + "(?:\\.\\d*)?"
    return re.escape(number)


def derive_match(results) -> str | None:
    """A regex for the failing text the bug showed, specific enough to tell it from
    other failures with the same outcome: wrong numbers give which outputs differ and
    how many elements (the measured counts); a diagnostic gives its first error line."""
    if not results:
        return None
    by_outcome: dict[str, list] = {}
    for r in results:
        by_outcome.setdefault(r.outcome, []).append(r)
    if len(by_outcome) > 1:  # e.g. wrong numbers on the matrix and a failing IR check
        parts = [derive_match(rs) for _, rs in sorted(by_outcome.items())]
        return None if None in parts else "|".join(f"(?:{p})" for p in parts)
    if all(r.outcome == WRONG_NUMBERS for r in results):
        # Results that differ in the same outputs share a pattern: per output, every
        # mismatch count measured and the decade of the largest error, so that a golden
        # moved by a new miscompile (all elements, or errors of another size) fails.
        shapes: dict[tuple, dict[tuple[int, str], tuple[set[str], set[str]]]] = {}
        for r in results:
            found = _DIFF.findall(r.failing_stage.detail)
            if not found:
                return None
            outputs = shapes.setdefault(tuple((int(o), t) for o, _, t, _ in found), {})
            for out, n, total, err in found:
                counts, sizes = outputs.setdefault((int(out), total), (set(), set()))
                counts.add(n)
                sizes.add(_decade(err))
        patterns = [".*".join(f"output {out}(?: \\(indices[^)]*\\))?: ({'|'.join(sorted(ns, key=int))})/{total} elements differ"
                              f"[^;]*; max abs err ({'|'.join(sorted(errs))})"
                              for (out, total), (ns, errs) in sorted(outputs.items()))
                    for outputs in shapes.values()]
        return patterns[0] if len(patterns) == 1 else "|".join(f"(?:{p})" for p in sorted(patterns))
    lines = [_error_line(r.failure_text()) for r in results]
    common = lines[0]
    if common and all(common == line for line in lines):
        return re.escape(common)
    return None


_FILECHECK = re.compile(r"([\w.-]+\.mlir:\d+): error: ([^\"(]*)")
_SIGNAL = re.compile(r"crashed \((SIG[A-Z]+)\)")


def _error_line(text: str) -> str:
    """The diagnostic itself: after 'error: ', without locations, numbers or SSA names;
    a FileCheck failure by its check file and line; a crash by its signal."""
    if text.startswith("FileCheck:"):
        m = _FILECHECK.search(text)
        return f"{m.group(1)}: error: {m.group(2).strip()}" if m else ""
    m = _SIGNAL.match(text)
    if m:
        return f"crashed ({m.group(1)})"
    for line in text.splitlines():
        if "error:" in line or "Assertion" in line or "LLVM ERROR" in line:
            message = line.split("error:", 1)[-1].strip()
            message = re.split(r"[%@0-9'\"<(]", message, maxsplit=1)[0].strip()
            return message[:80] if len(message) >= 12 else ""
    return ""
