"""[[expect]] entries drafted from a sweep run: what failed, scoped to exactly the
variants, targets and levels that showed it, with the failure's own message.

A sweep's grid is too large to write its known failures by hand, and an axis scope
(`where`) that covers a failing variant usually covers passing ones too. So each draft
names its variants by id. Failures are grouped by outcome and the message they would be
matched with (wrong numbers: by the outputs that differ, as the report groups them); a group whose variants fail on different targets or levels is split until each
entry is an exact product (variants x targets x levels). The reason is a placeholder
for the person who reads the failure: a draft is not a diagnosis, unless a written entry
already says why (KNOWN, in this order):
- grid: a grid under flags (`[sweep] grid`) whose own entry for the same variant takes
  the failure (outcome, match, release): that bug, with its same_as, checked item by item;
- grid message: a point the grid does not have (the flags axis pairs anew) whose failure
  one of the grid's entries takes by its match, on the grid's own variants;
- sweep message: one of this sweep's own entries takes it by its match, on other
  variants (a new share of a generated sweep's seeds);
- scan: an entry of the scans' table of explained failures (sweeps/explained/scan.toml)
  takes it, the same claim a kept scan's disposition rests on: its case as same_as when
  the failure is a message (lint checks it as any same_as); for wrong numbers the case is
  named in the reason only, since the outputs that differ are no signature of one bug.
The "message" ones and a table entry that does not name this program by id are a shared
message, a weaker claim, and the reason says so.
"""

from __future__ import annotations

from collections import defaultdict

from packaging.version import Version

from ..history.message import derive_match
from ..history.casefile import toml_value
from ..outcomes import FAIL, NUMBERS_OUTCOMES, PASS_OUTCOME, XFAIL
from ..record import ItemRecord
from ..signatures import signature_of
from ..toolchain import release_of
from .explained import Explanation, load_explained
from .spec import Sweep


def drafts(sweep: Sweep, records: list[ItemRecord], known_too: bool = False,
           explained: list[Explanation] | None = None) -> list[str]:
    """The [[expect]] blocks for the sweep's failing items (verdict FAIL) in `records`;
    known_too: for every item that did not pass (XFAIL too), to write the sweep's
    expectations anew from one whole run. explained: the scans' table (default: the
    project's)."""
    mine = f"{sweep.name}::"
    verdicts = (FAIL, XFAIL) if known_too else (FAIL,)
    failing = [r for r in records if r.case.startswith(mine) and r.verdict in verdicts
               and (r.target or r.differ) and r.outcome != PASS_OUTCOME]
    # One bug, one entry: diagnostics by the message they would be matched with (types
    # and dispatch names vary within one bug), wrong numbers by which outputs differ.
    groups: dict[tuple[str, str, tuple[str, int]], list[ItemRecord]] = defaultdict(list)
    known = _Known(sweep, load_explained() if explained is None else explained)
    for r in failing:
        message = None if r.outcome in NUMBERS_OUTCOMES else derive_match([r])
        groups[(r.outcome, message or signature_of(r), known(r))].append(r)
    blocks = []
    for (outcome, signature, (how, index)), items in sorted(groups.items()):
        entry = _entry(sweep, how, index, known.explained)
        # variant -> the (target, level) cells it failed on; equal cell sets share an entry
        cells: dict[str, set[tuple[str, str]]] = defaultdict(set)
        for r in items:
            cells[r.case.removeprefix(mine)].add(_cell(r))
        by_cells: dict[frozenset, list[str]] = defaultdict(list)
        for variant, shown in cells.items():
            by_cells[frozenset(shown)].append(variant)
        for shown, variants in sorted(by_cells.items(), key=lambda kv: sorted(kv[1])):
            for targets, levels in _products(sweep, shown):
                chosen = [r for r in items if r.case.removeprefix(mine) in variants
                          and _cell(r)[0] in targets and (not levels or _cell(r)[1] in levels)]
                blocks.append(_block(sweep, sorted(variants), targets, levels, outcome, signature, chosen,
                                     entry, how))
    return blocks


def _entry(sweep: Sweep, how: str, index: int, explained: list[Explanation]) -> dict | None:
    """The written entry `_Known` found, as an [[expect]] table (match, same_as, reason)."""
    if not how:
        return None
    if how.startswith("scan"):
        x = explained[index]
        return {"match": x.match.pattern, "same_as": x.case, "reason": x.reason}
    return (sweep if how == "sweep message" else sweep.grid).expectations[index][2]


class _Known:
    """record -> (how, index): the written entry that says why it fails (see the top), as
    "grid" / "grid message" (an index into the grid's entries), "sweep message" (into
    this sweep's) or "scan" / "scan message" (into `explained`, the table: the entry names
    this program by id or scope, or takes it by its sweep and match alone); ("", -1)
    when none does."""

    def __init__(self, sweep: Sweep, explained: list[Explanation]):
        self.explained = explained
        self._sweep = sweep
        self._points = {v.id: v.values() for v in sweep.variants()}
        self._by_expectations = _known_by_expectations(sweep, self._points)

    def __call__(self, r: ItemRecord) -> tuple[str, int]:
        how = self._by_expectations(r)
        if how[0] or r.differ:
            return how
        point = self._points.get(r.case.removeprefix(f"{self._sweep.name}::"))
        release = release_of(r.compiler)
        if point is None or release is None:
            return "", -1
        for i, x in enumerate(self.explained):
            if x.takes(self._sweep.name, release, r.outcome, r.failure_text(), point):
                return ("scan" if x.variants or x.where else "scan message"), i
        return "", -1


def _known_by_expectations(sweep: Sweep, points: dict[str, dict]):
    """record -> (how, index) by the sweeps' own [[expect]] entries (see _Known); points:
    the sweep's variants' values by id."""
    parsed = sweep.parsed_expectations()
    grid = sweep.grid
    grid_parsed = grid.parsed_expectations() if grid else ()
    grid_ids = {v.id for v in grid.variants()} if grid else set()

    def known(r: ItemRecord) -> tuple[str, int]:
        point = points.get(r.case.removeprefix(f"{sweep.name}::"))
        if point is None:
            return "", -1
        release = release_of(r.compiler)

        def taking(entries, indices):
            return next((i for i in indices if entries[i].applies_to(r.target, r.opt_level, None, release, r.differ)
                         and entries[i].takes(r.outcome, r.failure_text())), -1)
        if grid:
            grid_variant = grid.variant(sweep.grid_point(point))
            if grid_variant.id in grid_ids:  # the grid measured this very program: its own entries only
                i = taking(grid_parsed, grid.about(grid_variant.values()))
                if i >= 0:
                    return "grid", i
            else:
                i = taking(grid_parsed, range(len(grid_parsed)))
                if i >= 0:
                    return "grid message", i
        # Entries of this sweep, scope aside (its own scope already did not take it).
        i = next((i for i, e in enumerate(parsed) if release in e.compiler
                  and ((e.differs is not None and r.differ in e.differs) if r.differ
                       else (e.targets is None or r.target in e.targets))
                  and e.takes(r.outcome, r.failure_text())), -1)
        return ("sweep message", i) if i >= 0 else ("", -1)
    return known


DIFFER_CELL = "differ"  # a differential item's cell: ("differ", its name)


def _cell(r: ItemRecord) -> tuple[str, str]:
    return (DIFFER_CELL, r.differ) if r.differ else (r.target, r.opt_level)


def _products(sweep: Sweep, cells: frozenset) -> list[tuple[list[str], list[str]]]:
    """Split (target, level) cells into exact products: targets that failed on the same
    levels, or each on every level it runs at, share an entry. Differential items are a
    product of their own (their names as the levels)."""
    levels_of: dict[str, set[str]] = defaultdict(set)
    for target, level in cells:
        levels_of[target].add(level)
    differs = levels_of.pop(DIFFER_CELL, None)
    by_levels: dict[frozenset | None, list[str]] = defaultdict(list)
    for target, levels in levels_of.items():
        every = levels == set(sweep.levels.get(target, ()))
        by_levels[None if every else frozenset(levels)].append(target)
    return [(sorted(targets), sorted(levels) if levels else [])
            for levels, targets in sorted(by_levels.items(), key=lambda kv: sorted(kv[1]))] + \
        ([([DIFFER_CELL], sorted(differs))] if differs else [])


def _block(sweep: Sweep, variants: list[str], targets: list[str], levels: list[str], outcome: str,
           signature: str, records: list[ItemRecord], entry: dict | None = None, how: str = "") -> str:
    releases = sorted({Version(r.compiler).base_version for r in records if r.compiler}, key=Version)
    # The known entry takes every one of these failures: its match says the same claim
    # (a table entry's match and case for wrong numbers are about its case, not these outputs).
    borrow = entry is not None and not (how.startswith("scan") and outcome in NUMBERS_OUTCOMES)
    match = entry["match"] if borrow and entry.get("match") else derive_match(records)
    lines = ["[[expect]]", f"variants = {_id_list(variants)}"]
    if targets == [DIFFER_CELL]:
        lines.append(f"differ = {toml_value(levels)}")
        levels = []
    else:
        lines.append(f"targets = {toml_value(targets)}")
    if levels:  # else each target's every level
        lines.append(f"opt_levels = {toml_value(levels)}")
    if releases:
        lines.append(f'compiler = ">={releases[0]}"')
    lines.append(f"outcome = {toml_value(outcome)}")
    if match:
        lines.append(f"match = {toml_value(match)}")
    else:
        lines.append(f"# match: none could be derived; write the bug's message ({signature})")
    if entry is not None:
        if borrow and entry.get("same_as"):
            lines.append(f"same_as = {toml_value(entry['same_as'])}")
        said = {"grid": "as on the grid's own variant (default flags), taken by its expectation",
                "grid message": "a point the grid does not have, failing with the message of its "
                                "expectation (by the match, not checked on this program)",
                "sweep message": "other variants of this sweep fail with this message, and their "
                                 "expectation says (by the match, not checked on this program)",
                "scan": "the scans' table of explained failures names this program, and says",
                "scan message": "the scans' table of explained failures takes this message in this "
                                "sweep, and says (by the match, not checked on this program)"}[how]
        reason = f"{said}: {entry['reason']}"
    else:
        reason = f"found by the sweep (describe it): {signature}"
    lines.append(f"reason = {toml_value(reason)}")
    return "\n".join(lines) + "\n"


def _id_list(ids: list[str]) -> str:
    if len(ids) == 1:
        return toml_value(ids)
    return "[\n" + "".join(f"    {toml_value(i)},\n" for i in ids) + "]"
