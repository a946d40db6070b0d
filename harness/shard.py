"""`--shard K/N`: this machine runs one of N even shares of the suite.

Shares are whole cases (a case's items share its PyTorch import and cache entries), made
even by measured cost: each item's cold seconds (all its stages, cached or not) from a
previous results file, pytest-split's least-duration algorithm (largest case first, onto
the shard with the least work so far). Cases without a measurement count as the median
item's. Every machine computes the same assignment from the same file, so N shards
cover every item exactly once; `iree-regress report A.jsonl B.jsonl ...` merges them.
"""

from __future__ import annotations

import heapq
import statistics
from pathlib import Path

from .record import ItemRef
from .results import read_results

DEFAULT_ITEM_SECONDS = 1.0  # when nothing was ever measured


class ShardError(ValueError):
    pass


def parse(text: str, option: str = "--shard") -> tuple[int, int]:
    """'2/3' -> (2, 3), 1-based."""
    k, sep, n = text.partition("/")
    try:
        k_i, n_i = int(k), int(n)
    except ValueError:
        k_i = n_i = 0
    if not sep or n_i < 1 or not 1 <= k_i <= n_i:
        raise ShardError(f"{option} {text!r}: K/N with 1 <= K <= N, e.g. 1/2")
    return k_i, n_i


def accounting(labels: list[tuple[str, str | None]]) -> list[str]:
    """What is wrong with the shards given to one report, from each file's shard label
    (None: not a shard, e.g. bundles run on a device machine): a shard of N missing, one
    given twice, or shards of different splits. [] when every shard is there once."""
    seen: dict[tuple[int, int], list[str]] = {}
    for path, label in labels:
        if label is None:
            continue
        try:
            seen.setdefault(parse(label), []).append(path)
        except ShardError:
            return [f"{path}: shard label {label!r} is not K/N"]
    if not seen:
        return []
    splits = {n for _, n in seen}
    if len(splits) > 1:
        return [f"shards of different splits ({', '.join(f'/{n}' for n in sorted(splits))}): not one run"]
    (n,) = splits
    problems = [f"shard {k}/{n} is missing: its items were never run" for k in range(1, n + 1) if (k, n) not in seen]
    problems += [f"shard {k}/{n} is given twice ({', '.join(paths)})" for (k, _), paths in sorted(seen.items())
                 if len(paths) > 1]
    return problems


def durations(results: Path | None) -> dict[str, float]:
    """'case::item' -> cold seconds (every stage, cached or not) from a results file."""
    if results is None or not Path(results).is_file():
        return {}
    _, items = read_results(Path(results))
    return {r.key: sum(s.seconds for s in r.stages) for r in items}


def _costs(cases: dict[str, list[str]], seconds: dict[str, float]) -> dict[str, float]:
    """Each case's seconds; an item never measured counts as the median measured item."""
    known = [v for v in seconds.values() if v > 0]
    typical = statistics.median(known) if known else DEFAULT_ITEM_SECONDS
    return {case: sum(seconds.get(str(ItemRef(case, item)), typical) for item in items)
            for case, items in cases.items()}


def heaviest_first(cases: dict[str, list[str]], seconds: dict[str, float]) -> list[str]:
    """The cases, costliest first (deterministic: ties by name)."""
    cost = _costs(cases, seconds)
    return sorted(cost, key=lambda c: (-cost[c], c))


def assign(cases: dict[str, list[str]], seconds: dict[str, float], n: int) -> dict[str, int]:
    """case -> shard (0-based), least duration first; deterministic."""
    cost = _costs(cases, seconds)
    loads = [(0.0, shard) for shard in range(n)]
    heapq.heapify(loads)
    placed = {}
    for case in heaviest_first(cases, seconds):
        load, shard = heapq.heappop(loads)
        placed[case] = shard
        heapq.heappush(loads, (load + cost[case], shard))
    return placed


def balance(cases: dict[str, list[str]], seconds: dict[str, float], n: int) -> tuple[list[float], float]:
    """Each shard's predicted seconds, and the longest over the ideal (1.0 = perfect)."""
    cost = _costs(cases, seconds)
    loads = [0.0] * n
    for case, shard in assign(cases, seconds, n).items():
        loads[shard] += cost[case]
    ideal = sum(loads) / n
    return loads, (max(loads) / ideal if ideal else 1.0)
