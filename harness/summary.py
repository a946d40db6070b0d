"""Turn results.jsonl (and optionally a previous run's) into the model the reports
render: the case x (target, level) matrix, counts, failure groups and the diff."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .case import issue_url
from .report import read_results
from .rundiff import RunDiff, diff_runs
from .signatures import Group, failing_stage, group_failures
from .targets import OPT_LEVELS, TARGETS

MATRIX_COLUMNS = tuple(f"{t}-{o}" for t in TARGETS for o in OPT_LEVELS)

# Cell states, in legend order, with what each means to a reader.
STATES = {
    "pass": "passed (compiled, ran, matched PyTorch)",
    "compile-only": "passed compile-only (no device here to run it)",
    "xfail": "known bug, still failing as recorded",
    "xpass": "unexpected pass: a known bug no longer shows (update the case)",
    "fail": "failed: diagnostic or wrong numbers",
    "crash": "crashed (signal or assertion)",
    "timeout": "timed out",
    "oom": "killed for memory",
    "garbage": "unreadable output",
    "skip": "skipped",
}


def cell_state(item: dict) -> str:
    verdict = item.get("verdict")
    if verdict == "PASS":
        return "compile-only" if item.get("compile_only") else "pass"
    if verdict in ("XFAIL", "XPASS", "SKIP"):
        return verdict.lower()
    stage = failing_stage(item)
    return stage["status"] if stage and stage["status"] in STATES else "fail"


def cell_label(item: dict) -> str:
    state = cell_state(item)
    stage = failing_stage(item)
    where = stage["stage"] if stage else ""
    return {"pass": "pass", "compile-only": "compiled", "skip": "skip",
            "xpass": "XPASS"}.get(state, f"{state} {where}".strip())


def diagnosis(item: dict) -> str:
    """The numeric diagnosis for wrong numbers, else the failing stage's error tail."""
    stage = failing_stage(item)
    if stage is None:
        return item.get("message", "")
    if stage["stage"] == "compare":
        return stage["detail"]
    return (stage["detail"] + "\n\n" + stage["log"][-2000:]).strip()


@dataclass
class CaseRow:
    slug: str
    title: str
    issues: list[str]
    cells: dict[str, dict] = field(default_factory=dict)  # column -> item
    ir_cells: list[dict] = field(default_factory=list)

    def issue_links(self) -> list[tuple[str, str]]:
        return [(ref, issue_url(ref)) for ref in self.issues]


@dataclass
class ReportModel:
    environment: dict
    rows: list[CaseRow]
    items: list[dict]
    groups: list[Group]
    diff: RunDiff | None
    counts: dict[str, int]

    @property
    def columns(self) -> list[str]:
        used = {c for r in self.rows for c in r.cells}
        return [c for c in MATRIX_COLUMNS if c in used]

    @property
    def has_ir(self) -> bool:
        return any(r.ir_cells for r in self.rows)


def build(results: Path, previous: Path | None = None) -> ReportModel:
    header, items = read_results(results)
    rows: dict[str, CaseRow] = {}
    for item in items:
        row = rows.setdefault(item["case"], CaseRow(item["case"], item.get("title", ""),
                                                    item.get("issues", [])))
        if item.get("ir_check"):
            row.ir_cells.append(item)
        else:
            row.cells[item["item"]] = item
    counts: dict[str, int] = {s: 0 for s in STATES}
    for item in items:
        counts[cell_state(item)] += 1
    diff = diff_runs(read_results(previous)[1], items) if previous else None
    return ReportModel(header.get("environment", {}), sorted(rows.values(), key=lambda r: r.slug),
                       items, group_failures(items), diff, counts)
