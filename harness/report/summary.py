"""Turn results.jsonl (and optionally a previous run's) into the model the reports
render: the case x (target, level) matrix, counts, failure groups and the diff."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from pathlib import Path

from ..case import issue_url
from ..outcomes import CELL_ERROR, CELL_STATES, FAIL, XPASS
from ..record import ItemRecord
from ..results import merge_results, read_results
from ..signatures import Group, group_failures
from ..targets import OPT_LEVELS, TARGETS
from .perf import Flag, changes
from ..shard import accounting
from .quarantine import Entry, idle, split_gate, unknown_items
from .rundiff import RunDiff, diff_runs, gate

MATRIX_COLUMNS = tuple(f"{t}-{o}" for t in TARGETS for o in OPT_LEVELS)


def update_command(slug: str, results: list[Path]) -> str:
    """What the report prints for a case with an unexpected pass or a new failure."""
    return f"iree-regress expect --update {slug} --from {' '.join(map(str, results))} --write"


def cell_label(item: ItemRecord) -> str:
    state = item.cell_state
    if state == CELL_ERROR:
        return item.outcome
    stage = item.failing_stage
    return CELL_STATES[state].label or f"{state} {stage.stage if stage else ''}".strip()


def diagnosis(item: ItemRecord) -> str:
    """The numeric diagnosis for wrong numbers, else the failing stage's error tail."""
    stage = item.failing_stage
    if stage is None:
        return item.message
    if stage.stage == "compare":
        return stage.detail
    return (stage.detail + "\n\n" + stage.log[-2000:]).strip()


@dataclass
class CaseRow:
    slug: str
    title: str
    issues: list[str]
    windows: str = ""  # the case's bug windows, as its items recorded them
    family: str = "other"
    cells: dict[str, ItemRecord] = field(default_factory=dict)  # column -> item
    named_cells: list[ItemRecord] = field(default_factory=list)  # ir checks, differential items
    errors: list[ItemRecord] = field(default_factory=list)  # the case did not load

    def issue_links(self) -> list[tuple[str, str]]:
        return [(ref, issue_url(ref) if "#" in ref else "") for ref in self.issues]


@dataclass
class ReportModel:
    environment: dict
    rows: list[CaseRow]
    items: list[ItemRecord]
    groups: list[Group]
    diff: RunDiff | None
    counts: dict[str, int]
    warnings: list[str] = field(default_factory=list)
    shard_problems: list[str] = field(default_factory=list)  # a shard missing or given twice: fails the gate
    updates: list[str] = field(default_factory=list)  # commands that bring expectations up to date
    quarantine: list[Entry] = field(default_factory=list)
    perf: list[Flag] = field(default_factory=list)  # measurements past the item's own noise
    today: datetime.date | None = None  # the quarantine's clock (None: today)

    def families(self) -> dict[str, dict[str, int]]:
        """family -> cell state -> items, and "cases" -> how many cases."""
        table: dict[str, dict[str, int]] = {}
        for row in self.rows:
            counts = table.setdefault(row.family, {"cases": 0})
            counts["cases"] += 1
            for item in [*row.cells.values(), *row.named_cells, *row.errors]:
                counts[item.cell_state] = counts.get(item.cell_state, 0) + 1
        return dict(sorted(table.items()))

    def _gate(self) -> tuple[list[str], list[str]]:
        reasons = self.diff.gate_items() if self.diff is not None else gate(self.items)
        gating, held = split_gate(reasons, self.quarantine, self.today)
        return self.shard_problems + gating, held

    def gate_lines(self) -> list[str]:
        """Why this run fails the gate: against the previous run when there is one; an
        item under a live quarantine does not count (quarantined_lines shows it)."""
        return self._gate()[0]

    def quarantined_lines(self) -> list[str]:
        return self._gate()[1]

    @property
    def columns(self) -> list[str]:
        used = {c for r in self.rows for c in r.cells}
        return [c for c in MATRIX_COLUMNS if c in used]

    @property
    def has_named(self) -> bool:
        return any(r.named_cells for r in self.rows)


def build(results: Path | list[Path], previous: Path | None = None,
          quarantine: list[Entry] = (), today: datetime.date | None = None,
          nights: list[dict[str, ItemRecord]] = ()) -> ReportModel:
    """From one results file, or several (shards of one run, merged)."""
    warnings: list[str] = []
    header, items = merge_results(results if isinstance(results, list) else [results],
                                  warnings.append)
    rows: dict[str, CaseRow] = {}
    for item in items:
        row = rows.setdefault(item.case, CaseRow(item.case, item.title, item.issues, item.windows,
                                                 item.family))
        if item.ir_check or item.differ:  # named items: no target x level cell
            row.named_cells.append(item)
        elif item.target:
            row.cells[item.item] = item
        else:
            row.errors.append(item)
    counts: dict[str, int] = {s: 0 for s in CELL_STATES}
    for item in items:
        counts[item.cell_state] += 1
    diff = diff_runs(read_results(previous, warnings.append)[1], items) if previous else None
    files = results if isinstance(results, list) else [results]
    warnings += unknown_items(list(quarantine), {i.key for i in items}) if quarantine else []
    warnings += idle(list(quarantine), list(nights)) if quarantine and nights else []
    changed = sorted({i.case for i in items if i.verdict in (FAIL, XPASS)})
    updates = [update_command(slug, files) for slug in changed]
    return ReportModel(header.get("environment", {}),
                       sorted(rows.values(), key=lambda r: (r.family, r.slug)),
                       items, group_failures(items), diff, counts, warnings, updates=updates,
                       quarantine=list(quarantine), today=today,
                       shard_problems=accounting(header.get("shards", [])),
                       perf=changes(items, list(nights)) if nights else [])
