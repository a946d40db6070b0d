"""What an item did, typed: its stages (`StageResult`) and its results line (`ItemRecord`).

The stages return StageResults, the runner gathers them, and the plugin writes an
ItemRecord per item; the reports, lint, shards and history read records back with
`from_dict` and never read a results line or a stage by string keys. Which stage failed,
the text a `match` is searched in and whether the item only compiled are defined here
once, for a run in progress (runner.ItemResult) and a record read back alike. Items with
no stage outcome (a case that did not load, a harness error, a dead worker) are records
too, so nothing collected ends without a line.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from .outcomes import (CELL_COMPILE_ONLY, CELL_ERROR, CELL_FAIL, CELL_PASS, CELL_STATES, CELL_UNOBSERVED, ERROR,
                       FAILING_STATUSES, HARNESS_OUTCOMES, INFRA, INFRA_ERROR, OK, PASS, PASS_OUTCOME, SKIP, SKIP_OUTCOME,
                       SKIPPED, UNOBSERVED, VERDICTS, XFAIL, XPASS, stage_outcome)


@dataclass(frozen=True, order=True)
class ItemRef:
    """An item's key everywhere: `case::item`. `case` is a case's slug or a sweep
    variant's id (`topk::dim=-1,k=1`, which holds `::` itself), so the item is what
    follows the last `::`."""
    case: str
    item: str

    def __str__(self) -> str:
        return f"{self.case}::{self.item}"

    @classmethod
    def parse(cls, text: str) -> "ItemRef":
        case, sep, item = text.rpartition("::")
        if not sep or not case or not item:
            raise ValueError(f"not an item reference: {text!r} (CASE::ITEM, e.g. topk-sigmoid::cpu-O3)")
        return cls(case, item)

    @classmethod
    def of_nodeid(cls, nodeid: str) -> "ItemRef":
        """A pytest nodeid: `cases/<slug>/case.toml::<item>` or
        `sweeps/<family>.toml::<variant>::<item>`, with xdist's `@<group>` after the
        item under --dist loadgroup (an item's name never holds an @)."""
        head, sep, last = nodeid.rpartition("::")
        nodeid = f"{head}{sep}{last.partition('@')[0]}"
        path, _, rest = nodeid.partition("::")
        variant, sep, item = rest.rpartition("::")
        if path.endswith("case.toml"):
            return cls(path.rsplit("/", 2)[-2] if "/" in path else "", rest)
        family = path.rsplit("/", 1)[-1].removesuffix(".toml")
        return cls(f"{family}::{variant}" if sep else family, item)


@dataclass
class StageResult:
    stage: str  # outcomes.STAGES
    status: str  # outcomes.STATUSES
    detail: str = ""  # one line: why it is not ok, or a note on an ok/skip
    log: str = ""  # tail of the tool's stderr (or the full diagnosis)
    command: str = ""  # the exact command, pasteable
    seconds: float = 0.0
    peak_rss_mb: float = 0.0
    cached: bool = False
    data: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == OK

    def as_dict(self) -> dict:
        return dict(self.__dict__)  # shallow: stored or serialised at once

    @classmethod
    def from_dict(cls, data: dict) -> "StageResult":
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        values.setdefault("stage", "?")
        values.setdefault("status", "?")
        return cls(**values)


def failing_stage(stages: list[StageResult]) -> StageResult | None:
    """The first stage that did not end ok (a skip is not a failure)."""
    return next((s for s in stages if s.status not in (OK, SKIPPED)), None)


def outcome_of(stages: list[StageResult]) -> str:
    """pass | skip | <stage>-<status> of the first stage that did not end ok."""
    bad = failing_stage(stages)
    if bad and bad.status == INFRA:
        return INFRA_ERROR
    if bad:
        return stage_outcome(bad.stage, bad.status)
    if stages and all(s.status == SKIPPED for s in stages):
        return SKIP_OUTCOME
    return PASS_OUTCOME


# How much of a successful compile's log (its warnings) a later stage's failure carries.
COMPILE_WARNINGS_KEPT = 4000
COMPILE_WARNED = "compile warned:"  # the line that starts them in a failure's text


def failure_text(stages: list[StageResult]) -> str:
    """What an expectation's `match` is searched in: the failing stage's detail and log;
    for a failure after a compile that succeeded, then what that compile warned (a run that
    dies on its stack says why only there: "stack frame size (...) exceeds limit in
    function '..._scan_...'")."""
    bad = failing_stage(stages)
    if not bad:
        return ""
    text = f"{bad.detail}\n{bad.log}"
    compiled = stage_named(stages, "compile")
    if bad.stage != "compile" and compiled is not None and compiled.status == OK and compiled.log.strip():
        text += f"\n{COMPILE_WARNED}\n{compiled.log[:COMPILE_WARNINGS_KEPT]}"
    return text


def compile_only(stages: list[StageResult]) -> bool:
    """It compiled but never ran (no device here): it observed no run-time behaviour."""
    return any(s.stage == "run" and s.status == SKIPPED for s in stages)


def stage_named(stages: list[StageResult], name: str) -> StageResult | None:
    return next((s for s in stages if s.stage == name), None)


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
    differ: str | None = None  # a differential item's name
    compiler: str = ""
    compile_only: bool = False
    seconds: float = 0.0
    issues: list[str] = field(default_factory=list)
    family: str = "other"
    windows: str = ""  # the case's [history] windows, e.g. "3.2.0 < [3.3.0 .. 3.4.0] < 3.6.0"
    stages: list[StageResult] = field(default_factory=list)
    reproducer: str = ""
    nodeid: str = ""
    attempts: list[str] = field(default_factory=list)  # outcomes of --retries, when retried
    run_id: str = ""
    traits: list[str] = field(default_factory=list)  # a generated variant's (Case.traits)
    level: str = ""  # "default": the release has no --iree-opt-level, the item is its one compile

    @property
    def ref(self) -> ItemRef:
        return ItemRef(self.case, self.item)

    @property
    def key(self) -> str:
        return str(self.ref)

    @property
    def failing_stage(self) -> StageResult | None:
        return failing_stage(self.stages)

    def failure_text(self) -> str:
        """What an expectation's `match` is searched in (a harness error: its message)."""
        return failure_text(self.stages) or (self.message if self.outcome in HARNESS_OUTCOMES else "")

    def stage(self, name: str) -> StageResult | None:
        return stage_named(self.stages, name)

    @property
    def cell_state(self) -> str:
        if self.verdict == PASS:
            return CELL_COMPILE_ONLY if self.compile_only else CELL_PASS
        if self.verdict == ERROR or self.outcome in HARNESS_OUTCOMES:
            return CELL_ERROR
        if self.verdict == UNOBSERVED:
            return CELL_UNOBSERVED
        if self.verdict in (XFAIL, XPASS, SKIP):
            return self.verdict.lower()
        stage = self.failing_stage
        status = stage.status if stage else ""
        return status if status in FAILING_STATUSES and status in CELL_STATES else CELL_FAIL

    @property
    def is_failure(self) -> bool:
        return VERDICTS[self.verdict].is_failure if self.verdict in VERDICTS else True

    def compile_seconds(self) -> float | None:
        compiled = self.stage("compile")
        return float(compiled.seconds) if compiled is not None and compiled.ok else None

    @property
    def flaky(self) -> bool:
        """It disagreed with itself when retried."""
        return len(set(self.attempts)) > 1

    def as_dict(self) -> dict:
        # Shallow: the record is serialised at once (asdict's deep copy costs a warm run 5%).
        data = {"type": "item", **{f.name: getattr(self, f.name) for f in fields(self)}}
        data["stages"] = [s.as_dict() for s in self.stages]
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "ItemRecord":
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        for required in ("case", "item", "outcome", "verdict"):
            values.setdefault(required, "?")
        values["stages"] = [StageResult.from_dict(s) for s in values.get("stages") or ()
                            if isinstance(s, dict)]
        return cls(**values)


def stages_of_bundle_run(found: dict) -> list[StageResult]:
    """The run (and compare) stages of a bundle run elsewhere: bundle/run.py is carried
    into bundles and cannot import these types, so its result is a dict, read here only."""
    ran = found["stage"] == "run"
    stages = [StageResult("run", found["status"] if ran else OK, found["detail"] if ran else "",
                          found["log"], found.get("command", ""), found["seconds"])]
    if found["stage"] == "compare":
        stages.append(StageResult("compare", found["status"], found["detail"]))
    return stages
