"""Which of several MLIR blocks is the thread's program, once each was made into a case
and scanned over the releases: the one that reproduces. A reduced program and its
original often both do; alike, the smaller is taken; differently, the one that prints
what the thread quotes; else the user is asked (HarvestError), never guessed."""

from __future__ import annotations

from pathlib import Path

from ..case import load_case
from .thread import HarvestError


def choose_reproducing(tried: list[tuple], quoted: str) -> tuple:
    """`tried`: (plan, made case folder, scanned) per block, with scanned True where the
    releases show the thread's quoted failure, False another bug, None none. Returns the
    chosen triple; with one block, that one whatever its scan said."""
    if len(tried) == 1:
        return tried[0]
    bugs = {id(x): _bug(x[1]) for x in tried if x[2] is not None}
    for x in tried:
        said = f"{bugs[id(x)][0]} on {bugs[id(x)][1]}" if id(x) in bugs else "no release shows a bug"
        print(f"harvest: {x[0].origin}: {said}")
    reproducing = [x for x in tried if x[2] is not None]
    if not reproducing:
        return tried[0]  # nothing to choose: the caller says no release shows a bug
    if quoted and sum(1 for x in reproducing if x[2]) == 1:
        chosen = next(x for x in reproducing if x[2])
        print(f"harvest: the program is {chosen[0].origin}: it prints the failure the thread quotes")
        return chosen
    if len({bugs[id(x)][0] for x in reproducing}) == 1:
        chosen = min(reproducing, key=lambda x: len(x[0].program.splitlines()))
        if len(reproducing) > 1:
            print(f"harvest: {len(reproducing)} blocks fail alike; the program is the smallest, {chosen[0].origin}")
        return chosen
    raise HarvestError(f"{len(reproducing)} of the thread's MLIR blocks reproduce, differently ("
                       + "; ".join(f"{x[0].origin}: {bugs[id(x)][0]}" for x in reproducing)
                       + "): save the one the thread is about and give --attach NAME=FILE")


def _bug(made: Path) -> tuple[str, str]:
    """What the scan wrote: (the outcome and the bug's message, its windows), in words."""
    h = load_case(made / "case.toml", require_golden=False).history
    match = f" /{h.bad_match.pattern}/" if h.bad_match is not None else ""
    return f"{'/'.join(h.bad_outcomes)}{match}", h.describe()
