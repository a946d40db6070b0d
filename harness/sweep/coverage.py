"""Op-pair coverage: which (producer -> consumer) pairs of the upstream bug threads the
graph sweeps' programs hold.

docs/survey_pairs.toml says, for each row of docs/survey.md, the op pairs its program
holds in the op library's names; the graph sweeps' recipes say which pairs each drawn
program holds (drawn only: nothing is built or run). `iree-regress sweep coverage`
writes docs/coverage.md from the two.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..case import CASES_DIR, CaseError
from .graph import GRAPH_SWEEPS, drawn_graphs
from .ops import LIBRARY

SURVEY_PAIRS = CASES_DIR.parent / "docs" / "survey_pairs.toml"
Pair = tuple[str, str]


@dataclass(frozen=True)
class Row:
    thread: str
    pairs: tuple[Pair, ...]
    why: str = ""  # why a row names no pair


def read_survey_pairs(path: Path = SURVEY_PAIRS) -> list[Row]:
    """The rows, each op name checked against the library (a misspelt op would count as
    a pair no program can hold)."""
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise CaseError(f"{path}: cannot read the survey's op pairs ({e})") from None
    rows = []
    for n, row in enumerate(data.get("row", [])):
        where = f"{path}: field 'row[{n}]"
        if not isinstance(row.get("thread"), str):
            raise CaseError(f"{where}.thread': missing (owner/repo#N)")
        pairs = []
        for k, pair in enumerate(row.get("pairs", [])):
            if not (isinstance(pair, list) and len(pair) == 2):
                raise CaseError(f"{where}.pairs[{k}]': expected [producer, consumer], got {pair!r}")
            unknown = [name for name in pair if name not in LIBRARY]
            if unknown:
                raise CaseError(f"{where}.pairs[{k}]': {', '.join(map(repr, unknown))} is not an op of "
                                "the library (iree-regress sweep ops)")
            pairs.append(tuple(pair))
        if not pairs and not row.get("why"):
            raise CaseError(f"{where}.why': a row with no pairs says why")
        rows.append(Row(row["thread"], tuple(pairs), row.get("why", "")))
    return rows


def held_pairs(seeds: int) -> dict[Pair, int]:
    """How many programs of the graph sweeps' first `seeds` seeds hold each op pair."""
    held: dict[Pair, int] = {}
    for d in drawn_graphs(seeds):
        for pair in d.pairs:
            if pair[0] != "input":
                held[pair] = held.get(pair, 0) + 1
    return held


def summary_line(rows: list[Row], held: dict[Pair, int]) -> str:
    wanted = {p for r in rows for p in r.pairs}
    covered = {p for p in wanted if held.get(p)}
    share = 100.0 * len(covered) / len(wanted) if wanted else 0.0
    return f"op-pair coverage: {len(covered)} of {len(wanted)} survey pairs ({share:.0f}%)"


def markdown(rows: list[Row], held: dict[Pair, int], seeds: int) -> str:
    wanted: dict[Pair, list[str]] = {}
    for r in rows:
        for p in r.pairs:
            wanted.setdefault(p, []).append(r.thread)
    programs = seeds * len(GRAPH_SWEEPS)
    missing = sorted((p for p in wanted if not held.get(p)), key=lambda p: (-len(wanted[p]), p))
    lines = [
        "# Op-pair coverage of the graph sweeps",
        "",
        summary_line(rows, held),
        "",
        f"Written by `iree-regress sweep coverage --seeds {seeds} --write`: the (producer -> consumer) "
        f"op pairs of docs/survey.md's rows (docs/survey_pairs.toml, {len(rows)} rows, "
        f"{sum(1 for r in rows if r.pairs)} with pairs) against the pairs the first {seeds} seeds of "
        f"each graph sweep hold ({programs} programs: {', '.join(GRAPH_SWEEPS)}). Drawn only, "
        "nothing compiled. Rows with no pair name one op, or ops the library has no entry for "
        "(their `why` says which).",
        "",
        "| pair | survey rows | programs holding it |",
        "|---|---|---|",
    ]
    for p in sorted(wanted, key=lambda p: (-len(wanted[p]), p)):
        lines.append(f"| {p[0]} -> {p[1]} | {len(wanted[p])} | {held.get(p, 0)} |")
    lines += ["", f"Not held by any program ({len(missing)}): "
              + (", ".join(f"{a} -> {b} ({', '.join(wanted[(a, b)])})" for a, b in missing) or "none") + ".",
              "", f"All pairs the programs hold: {len(held)} distinct, "
              f"{sum(1 for p in held if p in wanted)} of them named by the survey.", ""]
    return "\n".join(lines)
