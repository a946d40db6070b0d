"""`iree-regress prove CASE --scan`: a case's items on every release, and the bug's windows.

The scan is the measurement a case README quotes: a table of release x item outcomes.
From it, `windows` reads where the bug (harness/bug.py) shows: each run of releases
that show it is a window, with its onset (the newest release before it that does not
show it, and the first that does) and its end (the last that does, and the first after
it where the items pass; none while the newest still shows it). A release that fails
some other way neither shows the bug nor ends a window. A bug fixed and later broken
again has two windows.

`--write` writes all of it into the case: [history] (outcomes, the measured message,
items, windows) and the [[expect]] entries for the bug, scoped to the measured items
and releases, so expectations and history never drift apart. Other expectations (other
bugs on other releases) and the rest of the file are kept.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from ..bug import BUG, GOOD, Bug
from ..case import Case, Expectation, Window
from ..item import ItemId
from ..outcomes import SKIP_OUTCOME
from .prove import ReleaseRun


@dataclass(frozen=True)
class Measured:
    windows: tuple[Window, ...]
    items: tuple[str, ...]  # items seen showing the bug
    item_outcomes: dict  # item name -> [(release, outcome)] where it showed the bug
    match: str | None  # the message the bug showed (a regex)
    versions: tuple[str, ...]
    texts: tuple[str, ...] = ()  # failing texts of the results that showed the bug

    @property
    def status(self) -> str:
        if not self.windows:
            return "unknown"
        return "open" if self.windows[-1].first_good is None else "fixed"


def outcome_table(runs: list[ReleaseRun], items: list[ItemId]) -> list[str]:
    names = [i.name for i in items]
    width = max([len(n) for n in names] + [8])
    head = "release".ljust(12) + " ".join(n.ljust(width) for n in names)
    lines = [head, "-" * len(head)]
    for run in runs:
        if run.error:
            lines.append(run.version.ljust(12) + run.error)
            continue
        by_name = {r.name: r for r in run.results}
        cells = []
        for n in names:
            r = by_name.get(n)
            text = "-" if r is None else r.outcome + ("*" if r.compile_only else "")
            cells.append(text.ljust(width))
        lines.append(run.version.ljust(12) + " ".join(cells))
    lines.append("(* = compile-only: no device for that target here)")
    return lines


def release_state(run: ReleaseRun, bug: Bug) -> str:
    """bad: some item shows the bug; good: every item passes; else neither. A release
    where no item applies (an IR check for other releases) is unknown: it measured nothing."""
    ran = [r for r in run.results if r.outcome != SKIP_OUTCOME]
    if run.error or not ran:
        return "unknown"
    states = [bug.state(r).kind for r in ran]
    if BUG in states:
        return BUG
    return GOOD if all(s == GOOD for s in states) else "neither"


def windows(runs: list[ReleaseRun], bug: Bug) -> Measured:
    """runs oldest first."""
    states = [release_state(r, bug) for r in runs]
    found: list[Window] = []
    floor = -1  # index of the previous window's end
    i = 0
    while i < len(runs):
        if states[i] != BUG:
            i += 1
            continue
        first = i
        last = i
        j = i + 1
        while j < len(runs) and states[j] != GOOD:  # "neither" releases do not end a window
            if states[j] == BUG:
                last = j
            j += 1
        # onset: the newest release before the window measured without the bug
        k = first - 1
        while k > floor and states[k] == "unknown":
            k -= 1
        last_good = runs[k].version if k > floor else None
        first_good = runs[j].version if j < len(runs) else None
        found.append(Window(runs[first].version, runs[last].version, last_good, first_good))
        floor = last
        i = j
    shown: dict[str, list[tuple[str, str]]] = {}
    texts = []
    for run in runs:
        for r in run.results:
            if bug.state(r).kind == BUG:
                shown.setdefault(r.name, []).append((run.version, r.outcome))
                texts.append(r)
    match = bug.match.pattern if bug.match else derive_match(texts)
    return Measured(tuple(found), tuple(sorted(shown)), shown, match, tuple(r.version for r in runs),
                    tuple(r.failure_text() for r in texts))


# ------------------------------------------------------------------ the bug's message

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
    if all(r.outcome == "compare-fail" for r in results):
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
        patterns = [".*".join(f"output {out}: ({'|'.join(sorted(ns, key=int))})/{total} elements differ"
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


# ------------------------------------------------------------------------ writing

def _blocks(text: str) -> list[str]:
    """The file split at table headers (the preamble first), losslessly; comment lines
    just above a header go with the table below them."""
    starts = [m.start() for m in re.finditer(r"(?:^#[^\n]*\n)*^\[", text, re.M)]
    starts = sorted(set([0] + starts))
    return [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)])]


def _header(block: str) -> str:
    for line in block.splitlines():
        if line.startswith("["):
            return line.split("#")[0].strip()
    return ""


def _toml(value) -> str:
    return json.dumps(value)  # a JSON string or list of strings is a TOML basic string / array


def expectations_for(case: Case, bug: Bug, measured: Measured) -> list[str]:
    """The bug's [[expect]] entries, scoped to what was measured: per window, per target
    (or the ir checks) and per outcome the bug showed there, the levels and the releases
    it showed on (open-ended for an open window)."""
    blocks = []
    for w in measured.windows:
        # (target or "ir", outcome) -> (levels or ir names, releases)
        groups: dict[tuple[str, str], tuple[set[str], list[str]]] = {}
        for name, shown in measured.item_outcomes.items():
            item = ItemId.parse(name)
            for version, outcome in shown:
                if not w.holds(version):
                    continue
                key = ("ir" if item.is_ir else item.target, outcome)
                names, versions = groups.setdefault(key, (set(), []))
                names.add(item.ir_check if item.is_ir else item.opt_level)
                versions.append(version)
        for (scope, outcome), (names, versions) in sorted(groups.items()):
            first, last = min(versions, key=Version), max(versions, key=Version)
            open_end = w.first_good is None and Version(last) == Version(w.last_bad)
            rng = f">={first}" if open_end else f">={first},<={last}"
            where = (f"ir = {_toml(sorted(names))}" if scope == "ir" else
                     f"targets = {_toml([scope])}\nopt_levels = {_toml(sorted(names))}")
            lines = ["[[expect]]", where, f"compiler = {_toml(rng)}", f"outcome = {_toml(outcome)}"]
            if measured.match:
                lines.append(f"match = {_toml(measured.match)}")
            lines.append(f"reason = {_toml(_reason(case, w))}")
            blocks.append("\n".join(lines) + "\n")
    return blocks


def _reason(case: Case, w: Window) -> str:
    cite = ", ".join(case.issues) or f"found by {case.found_by}"
    end = f"fixed in {w.first_good}" if w.first_good else "still open"
    return f"{cite}: measured {w.first_bad}..{w.last_bad}, {end}"


def history_block(case: Case, bug: Bug, measured: Measured) -> str:
    lines = ["[history]", f"# Measured by `iree-regress prove {case.slug} --scan`.",
             f"measured = {_toml(' '.join(measured.versions))}"]
    if measured.windows:
        outcomes = list(bug.outcomes)
        lines.append(f"bad_outcome = {_toml(outcomes[0] if len(outcomes) == 1 else outcomes)}")
        lines.append(f"bad_items = {_toml(list(measured.items))}")
        if measured.match:
            lines.append(f"bad_match = {_toml(measured.match)}")
    else:
        lines.append('status = "unknown"')
    for w in measured.windows:
        lines += ["", "[[history.window]]"]
        if w.last_good:
            lines.append(f"last_good = {_toml(w.last_good)}")
        lines += [f"first_bad = {_toml(w.first_bad)}", f"last_bad = {_toml(w.last_bad)}"]
        if w.first_good:
            lines.append(f"first_good = {_toml(w.first_good)}")
    return "\n".join(lines) + "\n"


def write_scan(case: Case, bug: Bug, measured: Measured) -> None:
    """Replace [history] and the [[expect]] entries that describe this bug; keep the rest."""
    kept = []
    for block in _blocks(case.manifest.read_text()):
        header = _header(block)
        if header in ("[history]", "[[history.window]]"):
            continue
        if header == "[[expect]]" and _describes(block, bug, measured):
            continue
        kept.append(block)
    text = "".join(kept).rstrip() + "\n\n"
    text += "".join(b + "\n" for b in expectations_for(case, bug, measured))
    text += history_block(case, bug, measured)
    Path(case.manifest).write_text(text)


def _describes(block: str, bug: Bug, measured: Measured) -> bool:
    """Whether an [[expect]] block is about this bug, so the measured ones replace it: its
    outcome is the bug's, it covers an item the bug was measured on, and its message is
    the bug's or matches what the bug printed (or it has none: it would hide the bug)."""
    entry = tomllib.loads(block.replace("[[expect]]", "", 1))
    if entry.get("outcome") not in bug.outcomes:
        return False
    scope = Expectation(entry["outcome"], "", _opt(entry, "targets"), _opt(entry, "opt_levels"),
                        _opt(entry, "ir"), SpecifierSet(entry.get("compiler", "")), None)
    if not any(ItemId.parse(n).covered_by(scope) for n in measured.items):
        return False
    if "match" not in entry or bug.match is None or entry["match"] == bug.match.pattern:
        return True
    old = re.compile(entry["match"])
    return any(old.search(t) for t in measured.texts)


def _opt(entry: dict, key: str):
    return tuple(entry[key]) if key in entry else None
