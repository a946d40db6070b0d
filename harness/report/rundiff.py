"""What changed since a previous run: the part of a nightly report people act on.

Items are matched by case + item name. What fails a nightly (`gate_failures`):
  * a new failure: a FAIL now that was not one before (new items included);
  * an unexpected pass (XPASS): a known bug stopped failing; update the case;
  * an error: a case that did not load, a harness error, a worker that died;
  * a vanished item: in the previous run, absent now (a deleted or unloadable case must
    never read as "0 new failures");
  * a flaky item: one that gave two outcomes when retried (--retries), both shown;
  * coverage lost: an item that ran before and now only compiled (a runner that lost its
    device must not stay green), with the reason it did not run.
An item under a live quarantine (quarantine.py) is shown apart and does not gate.
Compile times are compared where both runs measured a compile, and listed past a
threshold (not gating). So are the configurations IREE picked for attention dispatches on
GPU targets (harness/configuration.py): a change is information, not a failure.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..configuration import changes as configuration_changes
from ..outcomes import ERROR, FAIL, PASS, SKIPPED, XPASS, is_failure
from ..record import ItemRecord
from ..record import compile_only as only_compiled
from .quarantine import FLAKY, UNEXPECTED_PASS


@dataclass
class TimeChange:
    key: str
    before: float
    after: float

    @property
    def ratio(self) -> float:
        return self.after / self.before if self.before else float("inf")


@dataclass
class ConfigChange:
    key: str  # the item
    dispatch: str
    field: str  # pipeline, workgroup_size, lowering_config, qk, pv, mma, or "(dispatch)"
    before: str
    after: str


def _configurations(item: ItemRecord) -> list[dict] | None:
    stage = item.stage("configure")
    return stage.data.get("configurations") if stage else None


@dataclass
class RunDiff:
    new_failures: list[ItemRecord] = field(default_factory=list)
    new_passes: list[ItemRecord] = field(default_factory=list)
    unexpected_passes: list[ItemRecord] = field(default_factory=list)
    errors: list[ItemRecord] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)  # in the previous run, not in this one
    flaky: list[ItemRecord] = field(default_factory=list)  # disagreed with itself on retry
    coverage_lost: list[ItemRecord] = field(default_factory=list)  # ran before, only compiled now
    time_changes: list[TimeChange] = field(default_factory=list)
    config_changes: list[ConfigChange] = field(default_factory=list)  # not gating

    @property
    def regressed(self) -> bool:
        return bool(self.new_failures or self.unexpected_passes or self.errors or self.gone or self.flaky
                    or self.coverage_lost)

    def gate_items(self) -> list[tuple[str, str, tuple[str, ...]]]:
        """(item key, line, the outcomes a quarantine must hold) per reason the gate fails;
        coverage lost and vanished items name none: no quarantine holds them."""
        return ([(i.key, f"new failure: {i.key} ({i.outcome})", (i.outcome,)) for i in self.new_failures]
                + [(i.key, f"unexpected pass: {i.key}", (UNEXPECTED_PASS,)) for i in self.unexpected_passes]
                + [(i.key, f"error: {i.key} ({i.outcome})", (i.outcome,)) for i in self.errors]
                + [(i.key, flaky_line(i), (FLAKY,)) for i in self.flaky]
                + [(i.key, f"coverage lost: {i.key} ran before, only compiled now ({not_run_reason(i)})", ())
                   for i in self.coverage_lost]
                + [(k, f"vanished: {k}", ()) for k in self.gone])

    def gate_lines(self) -> list[str]:
        return [line for _, line, _ in self.gate_items()]


def diff_runs(previous: list[ItemRecord], current: list[ItemRecord], time_ratio: float = 1.5,
              min_seconds: float = 1.0) -> RunDiff:
    before = {i.key: i for i in previous}
    result = RunDiff()
    for item in current:
        old = before.get(item.key)
        was = old.verdict if old else None
        if item.flaky:  # both outcomes are shown, as one reason
            result.flaky.append(item)
        elif item.verdict == XPASS:
            result.unexpected_passes.append(item)
        elif item.verdict == ERROR:
            result.errors.append(item)
        elif item.verdict == FAIL and was != FAIL:
            result.new_failures.append(item)
        elif item.verdict == PASS and was is not None and is_failure(was):
            result.new_passes.append(item)
        if old and ran(old) and only_compiled(item.stages):
            result.coverage_lost.append(item)
        if old:
            t0, t1 = old.compile_seconds(), item.compile_seconds()
            if t0 is not None and t1 is not None and abs(t1 - t0) >= min_seconds:
                change = TimeChange(item.key, t0, t1)
                if change.ratio >= time_ratio or change.ratio <= 1 / time_ratio:
                    result.time_changes.append(change)
            was_configured, configured = _configurations(old), _configurations(item)
            if was_configured is not None and configured is not None:
                result.config_changes += [ConfigChange(item.key, *c)
                                          for c in configuration_changes(was_configured, configured)]
    current_keys = {i.key for i in current}
    # A case that failed to load now shows as its "(collect)" error, but its items are
    # still gone: both count.
    result.gone = sorted(k for k in before if k not in current_keys)
    result.time_changes.sort(key=lambda c: -abs(c.after - c.before))
    return result


def gate(current: list[ItemRecord]) -> list[tuple[str, str, tuple[str, ...]]]:
    """Without a previous run: every failure, unexpected pass, error and flaky item fails
    the gate; (item key, line, outcomes) each, as RunDiff.gate_items."""
    return [(i.key, flaky_line(i), (FLAKY,)) if i.flaky else
            (i.key, f"{i.verdict.lower()}: {i.key} ({i.outcome})",
             (UNEXPECTED_PASS,) if i.verdict == XPASS else (i.outcome,))
            for i in current if i.flaky or is_failure(i.verdict)]


def ran(item: ItemRecord) -> bool:
    """Its run stage happened (whatever it gave)."""
    stage = item.stage("run")
    return stage is not None and stage.status != SKIPPED


def not_run_reason(item: ItemRecord) -> str:
    stage = item.stage("run")
    return (stage.detail if stage else "") or "not run"


def flaky_line(item: ItemRecord) -> str:
    return f"flaky: {item.key} ({' then '.join(item.attempts)})"
