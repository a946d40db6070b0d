"""The one editor of the files people write (case.toml, quarantine.toml): read as
blocks, one per table, so that what is not rewritten (comments, spacing, unicode) stays
as it was; written atomically, in the file's own line endings.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path


def split_blocks(text: str) -> list[str]:
    """The file split at table headers (the preamble first), losslessly; comment lines
    just above a header go with the table below them."""
    starts = [m.start() for m in re.finditer(r"(?:^#[^\n]*\n)*^\[", text, re.M)]
    starts = sorted(set([0] + starts))
    return [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)])]


def header_of(block: str) -> str:
    for line in block.splitlines():
        if line.startswith("["):
            return line.split("#")[0].strip()
    return ""


def toml_value(value) -> str:
    return json.dumps(value)  # a JSON string or list of strings is a TOML basic string / array


def scope_lines(items) -> list[str]:
    """An [[expect]]'s targets/opt_levels (or ir, or differ) lines naming exactly these
    ItemIds: one per target (the scan's and expect --update's expectations alike)."""
    scopes = []
    for key, names in (("ir", sorted(i.ir_check for i in items if i.is_ir)),
                       ("differ", sorted(i.differ for i in items if i.is_differ))):
        if names:
            scopes.append(f"{key} = {toml_value(names)}")
    for target in sorted({i.target for i in items if i.is_matrix}):
        levels = sorted(i.opt_level for i in items if i.target == target)
        scopes.append(f"targets = {toml_value([target])}\nopt_levels = {toml_value(levels)}")
    return scopes


def read_text(path: Path) -> str:
    """The file's text with "\n" line endings, whatever it uses (write_atomic restores them)."""
    return Path(path).read_bytes().decode().replace("\r\n", "\n")


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` (\n line endings) in one step: a temporary file beside it,
    renamed over it, so a full disk or a kill mid-write leaves the old file whole and no
    temporary file behind. The file's line endings (\r\n or \n) are kept."""
    path = Path(path)
    crlf = path.is_file() and b"\r\n" in path.read_bytes()
    data = (text.replace("\n", "\r\n") if crlf else text).encode()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
