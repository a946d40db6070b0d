"""Reading IREE's test files as text: what the e2e and lit readers (own_tests.py,
lit_tests.py) and the numpy writer (lit_numpy.py) share. Pure Python: the builders run it
in the sandbox."""

from __future__ import annotations


class NotRunnable(Exception):
    """Why a test (an e2e test function, a lit function) cannot run as a program; the
    catalogs count tests by it."""


def strip_comments(text: str) -> str:
    """The code of a file: `//` comments (RUN and CHECK lines, diagnostics' braces) dropped,
    a `//` inside a string left alone."""
    return "\n".join(line.split("//", 1)[0] if "//" in line and '"' not in line.split("//", 1)[0] else line
                     for line in text.splitlines())


def balanced(text: str, start: int, open_: str, close: str) -> int:
    """The index just past the `close` matching the `open_` at text[start]."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == open_:
            depth += 1
        elif text[i] == close:
            depth -= 1
            if depth == 0:
                return i + 1
    raise NotRunnable(f"unbalanced {open_}{close}")


def split_top(text: str, sep: str = ",", opens: str = "([<", closes: str = ")]>") -> list[str]:
    """`text` split at each `sep` outside brackets (the parts as written, not stripped)."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in opens
        depth -= ch in closes
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return parts + [cur]
