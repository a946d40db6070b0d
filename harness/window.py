"""`iree-regress prove CASE --scan`: a case's items on every release, and its bug window.

The scan is the measurement a case README quotes: a table of release x item outcomes.
From it, `window` reads the bug's release window for one outcome: the newest release
showing it (last_bad), the first release after that where the items pass
(first_good), or "open" when the newest release still shows it. `--write` puts that
into the case's [history] table, replacing the old one and keeping the rest of the file.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from .case import Case
from .prove import ReleaseRun, shows_bug


@dataclass(frozen=True)
class Window:
    last_bad: str | None
    first_good: str | None
    status: str  # fixed | open | unknown (never seen failing)
    bad_items: tuple[str, ...]


def outcome_table(runs: list[ReleaseRun], items: list[str]) -> list[str]:
    width = max([len(i) for i in items] + [8])
    head = "release".ljust(12) + " ".join(i.ljust(width) for i in items)
    lines = [head, "-" * len(head)]
    for run in runs:
        if run.error:
            lines.append(run.version.ljust(12) + run.error)
            continue
        by_name = {r.name: r for r in run.results}
        cells = []
        for i in items:
            r = by_name.get(i)
            text = "-" if r is None else r.outcome + ("*" if r.compile_only else "")
            cells.append(text.ljust(width))
        lines.append(run.version.ljust(12) + " ".join(cells))
    lines.append("(* = compile-only: no device for that target here)")
    return lines


def window(runs: list[ReleaseRun], bad_outcome: str) -> Window:
    """runs oldest first. A release is bad when any item shows the bug there."""
    usable = [r for r in runs if not r.error]
    bad = [r for r in usable if any(shows_bug(x, bad_outcome, r.version) for x in r.results)]
    if not bad:
        return Window(None, None, "unknown", ())
    last_bad = bad[-1]
    items = tuple(sorted({x.name for r in bad for x in r.results
                          if shows_bug(x, bad_outcome, r.version)}))
    later = usable[usable.index(last_bad) + 1:]
    if not later:
        return Window(last_bad.version, None, "open", items)
    # The first later release where the bug's items pass. A release in between may fail
    # another way (the case's [[expect]] says so); it neither shows the bug nor fixes it.
    for run in later:
        if all(x.outcome == "pass" for x in run.results if x.name in items):
            return Window(last_bad.version, run.version, "fixed", items)
    return Window(last_bad.version, None, "unknown", items)


# The [history] header and every following line up to the next table header.
_HISTORY = re.compile(r"^\[history\]\n(?:(?!\[)[^\n]*\n?)*", re.M)


def write_history(case: Case, win: Window, bad_outcome: str, measured: list[str]) -> None:
    lines = ["[history]", f"# Measured by `iree-regress prove {case.slug} --scan` on "
             f"{', '.join(measured)}."]
    if win.last_bad:
        lines.append(f'last_bad = "{win.last_bad}"')
    if win.first_good:
        lines.append(f'first_good = "{win.first_good}"')
    if win.last_bad:
        lines.append(f'bad_outcome = "{bad_outcome}"')
        lines.append("bad_items = [" + ", ".join(f'"{i}"' for i in win.bad_items) + "]")
    if case.history.bad_match is not None:
        lines.append(f"bad_match = {json.dumps(case.history.bad_match.pattern)}")  # a TOML basic string
    lines.append(f'status = "{win.status}"')
    block = "\n".join(lines) + "\n"
    text = case.manifest.read_text()
    new = _HISTORY.sub(block, text, count=1) if _HISTORY.search(text) else text.rstrip() + "\n\n" + block
    Path(case.manifest).write_text(new)
