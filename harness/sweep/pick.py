"""Graph programs picked by what they hold: a scan steered toward the ops a miss needs
(docs/recall.md), reproducible from its rule alone.

    iree-regress sweep pick wide-graph wide-graph-3 --holding var:f32 --dims dynamic \\
        --count 24 --level O3 --out picked.json

lists the programs of the named graph sweeps whose graphs hold every op named (`op`,
`op:dtype` for the dtype of the value the op made, or `producer>consumer` for one op's
value read by the other), fewest ops first (a small program shows a bug with the fewest
other failures in its way), then by seed, as the items `sweep scan --items-from
picked.json` runs. --out adds to a list already there and skips
what it holds, so that several rules make one scan. Nothing is compiled: graphs are drawn.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .graph import DIMS as DIMS_MODES, GRAPH_SWEEPS, dims_of, draw_graph
from .ops import DTYPES, LIBRARY
from .spec import SEED_AXIS, sweeps_by_name

DIMS = (*DIMS_MODES, "not-static")


class PickError(ValueError):
    pass


@dataclass(frozen=True)
class Rule:
    sweeps: tuple[str, ...]
    holding: tuple[tuple[str, str | None], ...]  # (op, dtype of the value it made, or any)
    pairs: tuple[tuple[str, str], ...] = ()  # (producer op, consumer op): an edge of the graph
    dims: str | None = None
    skip_share: tuple[int, int] | None = None  # (k, n): leave out seeds % n == k - 1 (scanned)
    seeds: int | None = None  # only seeds below this (default: every seed the sweep's spec has)

    def holds(self, sweep: str, seed: int) -> tuple[bool, int]:
        """Whether the program of `seed` fits the rule, and its op count."""
        drawn = draw_graph(seed, sweep)
        made = [v for v in drawn.values if v.op != "input"]
        fits = all(any(v.op == op and dtype in (None, v.type.dtype) for v in made) for op, dtype in self.holding) \
            and all(pair in drawn.pairs for pair in self.pairs)
        if fits and self.dims:
            dims = dims_of(seed, sweep)
            fits = dims != "static" if self.dims == "not-static" else dims == self.dims
        return fits, len(made)


def parse_holding(text: str) -> tuple[tuple[tuple[str, str | None], ...], tuple[tuple[str, str], ...]]:
    """--holding's ops (op or op:dtype) and pairs (producer>consumer)."""
    def known(part: str, op: str) -> str:
        if op not in LIBRARY:
            raise PickError(f"--holding {part!r}: {op!r} is not an op of the library (`iree-regress sweep ops`)")
        return op

    out, pairs = [], []
    for part in filter(None, (p.strip() for p in text.split(","))):
        if ">" in part:
            producer, consumer = part.split(">", 1)
            pairs.append((known(part, producer.strip()), known(part, consumer.strip())))
            continue
        op, _, dtype = part.partition(":")
        known(part, op)
        if dtype and dtype not in DTYPES:
            raise PickError(f"--holding {part!r}: {dtype!r} is not a dtype ({', '.join(DTYPES)})")
        out.append((op, dtype or None))
    if not out and not pairs:
        raise PickError("--holding: name at least one op")
    return tuple(out), tuple(pairs)


def pick(rule: Rule, count: int, target: str, levels: list[str], skip: set[str] = frozenset()) -> list[str]:
    """The items (`<sweep>::seed=N::<target>-<level>`) of the first `count` programs the
    rule takes, fewest ops first, leaving out programs named in `skip`."""
    specs = sweeps_by_name()
    for sweep in rule.sweeps:
        if sweep not in GRAPH_SWEEPS or sweep not in specs:
            raise PickError(f"{sweep!r} is not a graph sweep ({', '.join(GRAPH_SWEEPS)})")
    if rule.dims is not None and rule.dims not in DIMS:
        raise PickError(f"--dims {rule.dims!r}: one of {', '.join(DIMS)}")
    taken = []
    for order, sweep in enumerate(rule.sweeps):
        # the seeds the sweep's spec collects: a seed past them would name no item
        seeds = [s for s in specs[sweep].axes[SEED_AXIS] if rule.seeds is None or s < rule.seeds]
        for seed in seeds:
            if rule.skip_share and seed % rule.skip_share[1] == rule.skip_share[0] - 1:
                continue
            program = f"{sweep}::seed={seed}"
            fits, size = rule.holds(sweep, seed)
            if fits and program not in skip:
                taken.append((size, seed, order, program))
    return [f"{program}::{target}-{level}" for *_, program in sorted(taken)[:count] for level in levels]


def read_picked(path: Path) -> list[str]:
    """The items a picked list (or an earlier scan's scan.json) names."""
    try:
        return [entry["item"] for entry in json.loads(path.read_text())["found"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise PickError(f"{path}: not a list of items ({{\"found\": [{{\"item\": ...}}]}}): {e}") from None


def write_picked(path: Path, items: list[str]) -> None:
    path.write_text(json.dumps({"found": [{"item": i} for i in items]}, indent=1) + "\n")
