"""What an older release needs to read today's imports: ops with no computation it does
not know, removed before it compiles the program, as flags are spelled per release.

PyTorch's export adds metadata assertions (`torch.aten._assert_tensor_metadata`: this
tensor has this dtype and device) that compute nothing. A release whose torch dialect
predates such an op cannot even parse the program (`custom op '...' is unknown`), so an
item would measure nothing there and its history would start late. Removing the op
changes no value the program computes; the removal is recorded on the item's import
stage, so a reader sees exactly what that release compiled.

Only ops that produce no result are removed (nothing can use them), and only for the
releases before the one that knows them (measured: 2.9.0-3.1.0 reject the op with
"is unknown", 3.2.0 reads it).
"""

from __future__ import annotations

import re
from pathlib import Path

from packaging.version import Version

# op -> the first release whose torch dialect knows it.
NO_COMPUTATION = {
    "torch.aten._assert_tensor_metadata": "3.2.0",
}


def unknown_to(release: Version) -> list[str]:
    """The no-computation ops `release` cannot read."""
    return [op for op, known_from in NO_COMPUTATION.items() if release < Version(known_from)]


def _line(op: str) -> re.Pattern:
    # The op as a statement of its own with no results: `  torch.aten.x %a, ... : types`.
    return re.compile(rf"^[ \t]*{re.escape(op)}\b[^\n]*\n", re.M)


def without(text: str, ops: list[str]) -> tuple[str, dict[str, int]]:
    """`text` without the result-less statements of `ops`, and how many of each went."""
    removed = {}
    for op in ops:
        text, n = _line(op).subn("", text)
        if n:
            removed[op] = n
    return text, removed


def needs_rewrite(mlir: Path, release: Version) -> list[str]:
    """The ops of `mlir` that `release` cannot read and that may be removed."""
    ops = unknown_to(release)
    if not ops:
        return []
    text = mlir.read_text(errors="replace")
    return [op for op in ops if _line(op).search(text)]


def said(removed: dict[str, int], release: Version) -> str:
    return (f"removed for IREE {release} (no computation; its torch dialect does not know them): "
            + ", ".join(f"{op} x{n}" for op, n in removed.items()))
