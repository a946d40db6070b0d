"""One line of results.jsonl: what an item did, typed.

The plugin writes records, and the reports (summary, signatures, rundiff, render) and
lint read them back with `from_dict`; none of them reads a results line by string keys.
Items with no stage outcome (a case that did not load, a harness error, a dead worker)
are records too, so nothing collected ends without a line.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from .outcomes import (CELL_STATES, ERROR, FAILING_STATUSES, HARNESS_OUTCOMES, PASS, SKIP, SKIPPED,
                       VERDICTS, XFAIL, XPASS)


@dataclass
class ItemRecord:
    case: str
    item: str  # ItemId name, or "(collect)" for a case that did not load
    outcome: str
    verdict: str
    message: str = ""
    title: str = ""
    target: str | None = None
    opt_level: str | None = None
    ir_check: str | None = None
    compiler: str = ""
    compile_only: bool = False
    seconds: float = 0.0
    issues: list[str] = field(default_factory=list)
    family: str = "other"
    windows: str = ""  # the case's [history] windows, e.g. "3.2.0 < [3.3.0 .. 3.4.0] < 3.6.0"
    stages: list[dict] = field(default_factory=list)  # StageResult.as_dict() each
    reproducer: str = ""
    nodeid: str = ""
    attempts: list[str] = field(default_factory=list)  # outcomes of --retries, when retried
    run_id: str = ""

    @property
    def key(self) -> str:
        return f"{self.case}::{self.item}"

    @property
    def failing_stage(self) -> dict | None:
        for s in self.stages:
            if s.get("status") not in ("ok", SKIPPED):
                return s
        return None

    def failure_text(self) -> str:
        """What an expectation's `match` is searched in (as ItemResult.failure_text)."""
        bad = self.failing_stage
        if bad:
            return f"{bad.get('detail', '')}\n{bad.get('log', '')}"
        return self.message if self.outcome in HARNESS_OUTCOMES else ""

    @property
    def cell_state(self) -> str:
        if self.verdict == PASS:
            return "compile-only" if self.compile_only else "pass"
        if self.verdict == ERROR or self.outcome in HARNESS_OUTCOMES:
            return "error"
        if self.verdict in (XFAIL, XPASS, SKIP):
            return self.verdict.lower()
        stage = self.failing_stage
        status = stage.get("status") if stage else ""
        return status if status in FAILING_STATUSES and status in CELL_STATES else "fail"

    @property
    def is_failure(self) -> bool:
        return VERDICTS[self.verdict].is_failure if self.verdict in VERDICTS else True

    def compile_seconds(self) -> float | None:
        for s in self.stages:
            if s.get("stage") == "compile" and s.get("status") == "ok":
                return float(s.get("seconds", 0.0))
        return None

    @property
    def flaky(self) -> bool:
        """It disagreed with itself when retried."""
        return len(set(self.attempts)) > 1

    def as_dict(self) -> dict:
        # Shallow: the record is serialised at once (asdict's deep copy costs a warm run 5%).
        return {"type": "item", **{f.name: getattr(self, f.name) for f in fields(self)}}

    @classmethod
    def from_dict(cls, data: dict) -> "ItemRecord":
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        for required in ("case", "item", "outcome", "verdict"):
            values.setdefault(required, "?")
        return cls(**values)
