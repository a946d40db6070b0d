"""What changed since a previous run: the part of a nightly report people act on.

Items are matched by case + item name. A new failure is a FAIL now that was not one
before (including items that are new); an unexpected pass (XPASS) is always listed:
upstream fixed a known bug and the case needs updating. Compile times are compared
where both runs measured a compile, and listed past a threshold.
"""

from __future__ import annotations

from dataclasses import dataclass, field

BAD_VERDICTS = ("FAIL", "XPASS")


def key(item: dict) -> str:
    return f"{item['case']}::{item['item']}"


def compile_seconds(item: dict) -> float | None:
    for s in item.get("stages", []):
        if s["stage"] == "compile" and s["status"] == "ok":
            return float(s["seconds"])
    return None


@dataclass
class TimeChange:
    key: str
    before: float
    after: float

    @property
    def ratio(self) -> float:
        return self.after / self.before if self.before else float("inf")


@dataclass
class RunDiff:
    new_failures: list[dict] = field(default_factory=list)
    new_passes: list[dict] = field(default_factory=list)
    unexpected_passes: list[dict] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)  # in the previous run, not in this one
    time_changes: list[TimeChange] = field(default_factory=list)

    @property
    def regressed(self) -> bool:
        """What fails a nightly: new failures or unexpected passes."""
        return bool(self.new_failures or self.unexpected_passes)


def diff_runs(previous: list[dict], current: list[dict], time_ratio: float = 1.5,
              min_seconds: float = 1.0) -> RunDiff:
    before = {key(i): i for i in previous}
    result = RunDiff()
    for item in current:
        old = before.get(key(item))
        now = item.get("verdict")
        was = old.get("verdict") if old else None
        if now == "XPASS":
            result.unexpected_passes.append(item)
        elif now == "FAIL" and was != "FAIL":
            result.new_failures.append(item)
        elif now == "PASS" and was in BAD_VERDICTS:
            result.new_passes.append(item)
        if old:
            t0, t1 = compile_seconds(old), compile_seconds(item)
            if t0 is not None and t1 is not None and abs(t1 - t0) >= min_seconds:
                change = TimeChange(key(item), t0, t1)
                if change.ratio >= time_ratio or change.ratio <= 1 / time_ratio:
                    result.time_changes.append(change)
    current_keys = {key(i) for i in current}
    result.gone = sorted(k for k in before if k not in current_keys)
    result.time_changes.sort(key=lambda c: -abs(c.after - c.before))
    return result
