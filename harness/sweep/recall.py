"""Recall on the suite's own history: would the generated programs have caught the bugs
the suite's historic cases hold?

A case counts when its window is historic (a bad and a good release measured, inside the
PyPI releases) and a person wrote it from an upstream thread (not `found_by` a sweep: the
generator cannot be credited with its own finds). A generated item catches it when, in a
sweep scan's records, it fails with the case's signature on every release of the window
it ran on (at least one), and passes on the case's first good release (and on its last
good one, where the case has one and the item ran there). The signature is the window's
outcome and, for a diagnostic, the case's own message (`match`); wrong numbers have no
message that carries over from one program to another, so for them the outcome and the
window are the signature.

Nothing is compiled here: `iree-regress sweep recall` reads the scans' records.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from packaging.version import Version

from ..case import Case, Window
from ..outcomes import NUMBERS_OUTCOMES, PASS_OUTCOME
from .scan import ItemHistory, Scan

GENERATOR_FOUND = "iree-regress sweep"


@dataclass(frozen=True)
class Target:
    """One historic case's bug, as a generated program would have to show it."""
    slug: str
    family: str
    window: Window
    outcomes: tuple[str, ...]
    match: re.Pattern | None

    def label(self) -> str:
        w = self.window
        return f"{w.last_good or '-'} < [{w.first_bad} .. {w.last_bad}] < {w.first_good}"


def historic_targets(cases: list[Case], releases: list[str]) -> list[Target]:
    """The cases recall is measured on: each one's newest historic window."""
    known = {Version(r) for r in releases}
    out = []
    for case in cases:
        if case.found_by.startswith(GENERATOR_FOUND):
            continue
        done = [w for w in case.history.windows if w.first_good and Version(w.first_good) in known
                and Version(w.first_bad) in known]
        if not done:
            continue
        w = done[-1]
        outcomes = w.bad_outcomes or case.history.bad_outcomes
        match = w.bad_match or case.history.bad_match
        out.append(Target(case.slug, case.family, w, tuple(outcomes), match))
    return out


def _shows(t: Target, h: ItemHistory, release: str) -> bool:
    outcome = h.outcomes.get(release)
    if outcome not in t.outcomes:
        return False
    if outcome in NUMBERS_OUTCOMES or t.match is None:
        return True
    record = h.records.get(release)
    return record is not None and bool(t.match.search(record.failure_text()))


def catches(t: Target, h: ItemHistory) -> bool:
    w = t.window
    bad = [r for r in h.outcomes if w.holds(r)]
    if not bad or not all(_shows(t, h, r) for r in bad):
        return False
    if h.outcomes.get(w.first_good) != PASS_OUTCOME:
        return False
    return w.last_good is None or h.outcomes.get(w.last_good, PASS_OUTCOME) == PASS_OUTCOME


def why_missed(t: Target, scan: Scan) -> str:
    """The nearest the programs came, in words."""
    w = t.window
    if w.first_good not in scan.releases or not any(w.holds(r) for r in scan.releases):
        return "the scan has none of its releases"
    shown = [h for h in scan.items.values() if any(_shows(t, h, r) for r in h.outcomes if w.holds(r))]
    if not shown:
        what = "wrong numbers" if set(t.outcomes) <= set(NUMBERS_OUTCOMES) else \
            f"{'/'.join(t.outcomes)}" + (f" matching /{t.match.pattern}/" if t.match else "")
        return f"no program shows {what} inside the window"
    fixed = [h for h in shown if h.outcomes.get(w.first_good) == PASS_OUTCOME]
    if not fixed:
        return f"{len(shown)} programs show it inside the window, none passes on {w.first_good}"
    return f"{len(fixed)} programs show it and pass on {w.first_good}, but not on every release of the window or on {w.last_good}"


@dataclass(frozen=True)
class Row:
    target: Target
    caught_by: dict[str, str]  # scan label -> the first item that catches it ("" none)
    why: dict[str, str]  # scan label -> why not, where not


def recall(targets: list[Target], scans: dict[str, Scan]) -> list[Row]:
    rows = []
    for t in targets:
        caught, why = {}, {}
        for label, scan in scans.items():
            hit = next((h.key for h in sorted(scan.items.values(), key=lambda h: h.key) if catches(t, h)), "")
            caught[label] = hit
            if not hit:
                why[label] = why_missed(t, scan)
        rows.append(Row(t, caught, why))
    return rows


def share(rows: list[Row], label: str) -> tuple[int, int]:
    return sum(1 for r in rows if r.caught_by.get(label)), len(rows)


def markdown(rows: list[Row], scans: dict[str, Scan], described: dict[str, str]) -> str:
    labels = list(scans)
    lines = ["# Recall on the suite's own history", ""]
    for label in labels:
        n, m = share(rows, label)
        lines.append(f"- {label} ({described.get(label, '')}): {n} of {m} "
                     f"({100.0 * n / m if m else 0:.0f}%)")
    n, m = share(rows, labels[0]) if labels else (0, 0)
    lines += ["", "Written by `iree-regress sweep recall` from sweep scans' records (nothing compiled "
              "for it); how an item catches a case: harness/sweep/recall.py. The cases: every one "
              "written from an upstream thread whose window is historic (a bad and a good release "
              "among those scanned).", "",
              "| case | family | window | " + " | ".join(labels) + " |",
              "|---|---|---|" + "---|" * len(labels)]
    for r in sorted(rows, key=lambda r: (r.target.family, r.target.slug)):
        cells = [f"caught by `{r.caught_by[lb]}`" if r.caught_by[lb] else f"missed: {r.why[lb]}" for lb in labels]
        lines.append(f"| {r.target.slug} | {r.target.family} | {r.target.label()} | " + " | ".join(cells) + " |")
    lines += ["", "Per family (" + labels[0] + "):" if labels else "", ""]
    for family in sorted({r.target.family for r in rows}):
        mine = [r for r in rows if r.target.family == family]
        lines.append(f"- {family}: " + ", ".join(f"{lb} {share(mine, lb)[0]} of {len(mine)}" for lb in labels))
    lines += ["", f"overall recall: {n} of {m} ({100.0 * n / m if m else 0:.0f}%)", ""]
    return "\n".join(lines)


def read_scans(spec: str, releases: list[str]) -> tuple[str, Scan]:
    """'label=DIR,DIR': the scans one generator's numbers come from, read as one."""
    from .scan import read_scan

    label, _, dirs = spec.partition("=")
    parts = [read_scan(Path(d), releases) for d in dirs.split(",") if d]
    if not label or not parts:
        raise ValueError(f"--scan {spec!r}: LABEL=DIR[,DIR...] (folders `sweep scan --out` wrote)")
    items = {k: h for p in parts for k, h in p.items.items()}
    scanned = [r for r in releases if any(r in p.releases for p in parts)]
    unusable = {r: why for p in parts for r, why in p.unusable.items()}
    return label, Scan(scanned, unusable, items)
