"""Performance as a tracked result: each item's compile seconds, compile peak memory,
module size, dispatch count and run seconds, compared with the same item's recent
nights, not with a fixed golden.

A value is flagged when it leaves the item's own noise: further from the median of the
last nights than `K` robust standard deviations (1.4826 x MAD) and than the metric's
floor (an absolute amount and a fraction of the median), so a 40 ms compile that takes
60 ms tonight is not news and a module that doubles is. Deterministic metrics (module
size, dispatches) have no noise: any change past the floor is flagged. Flags are a list
of their own; they gate only with `report --fail-on-perf`.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from ..record import ItemRecord

K = 4.0  # robust standard deviations
MIN_NIGHTS = 3  # fewer nights than this: no baseline yet


@dataclass(frozen=True)
class Metric:
    name: str
    unit: str
    floor: float  # absolute change below this is never flagged
    fraction: float  # nor a change below this fraction of the median


METRICS = {m.name: m for m in (
    Metric("compile_s", "s", 0.5, 0.25),
    Metric("compile_mb", "MB", 64.0, 0.20),
    Metric("module_bytes", "B", 1024.0, 0.05),
    Metric("dispatches", "", 1.0, 0.0),
    Metric("run_s", "s", 0.2, 0.25),
)}


def metrics(record: ItemRecord) -> dict[str, float]:
    """What an item measured, from its stages (a stage that did not end ok measures nothing)."""
    found: dict[str, float] = {}
    if record.compile_seconds() is not None:
        found["compile_s"] = record.compile_seconds()
    for stage in record.stages:
        if not stage.ok:
            continue
        if stage.stage == "compile":
            if stage.peak_rss_mb:
                found["compile_mb"] = float(stage.peak_rss_mb)
            for key in ("module_bytes", "dispatches"):
                if key in stage.data:
                    found[key] = float(stage.data[key])
        elif stage.stage == "run":
            found["run_s"] = float(stage.seconds)
    return found


@dataclass(frozen=True)
class Flag:
    key: str  # case::item
    metric: str
    value: float
    median: float
    mad: float
    nights: int

    @property
    def line(self) -> str:
        unit = METRICS[self.metric].unit
        change = (self.value / self.median - 1) * 100 if self.median else float("inf")
        return (f"{self.key}: {self.metric} {self.value:.4g}{unit} vs median {self.median:.4g}{unit} "
                f"(MAD {self.mad:.3g}, {self.nights} nights): {change:+.0f}%")


def flagged(value: float, history: list[float], metric: Metric) -> tuple[bool, float, float]:
    """(flag, median, MAD) of `value` against the item's `history` of this metric."""
    median = statistics.median(history)
    mad = statistics.median(abs(v - median) for v in history)
    threshold = max(K * 1.4826 * mad, metric.floor, metric.fraction * abs(median))
    return abs(value - median) >= threshold and abs(value - median) > 0, median, mad


def changes(current: list[ItemRecord], nights: list[dict[str, ItemRecord]]) -> list[Flag]:
    """Flags for `current` against the same items in `nights` (oldest first)."""
    flags = []
    for record in current:
        past = [metrics(night[record.key]) for night in nights if record.key in night]
        for name, value in metrics(record).items():
            history = [m[name] for m in past if name in m]
            if len(history) < MIN_NIGHTS:
                continue
            hit, median, mad = flagged(value, history, METRICS[name])
            if hit:
                flags.append(Flag(record.key, name, value, median, mad, len(history)))
    return sorted(flags, key=lambda f: (f.key, f.metric))
