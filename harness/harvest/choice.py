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
    bugs = {j: _bug(made) for j, (_, made, scanned) in enumerate(tried) if scanned is not None}
    for j, (plan, _, _) in enumerate(tried):
        said = f"{bugs[j][0]} on {bugs[j][1]}" if j in bugs else "no release shows a bug"
        print(f"harvest: {plan.origin}: {said}")
    if not bugs:
        return tried[0]  # nothing to choose: the caller says no release shows a bug
    quoting = [j for j in bugs if tried[j][2]]
    if quoted and len(quoting) == 1:
        print(f"harvest: the program is {tried[quoting[0]][0].origin}: it prints the failure the thread quotes")
        return tried[quoting[0]]
    if len({bug for bug, _ in bugs.values()}) == 1:
        j = min(bugs, key=lambda j: len(tried[j][0].program.splitlines()))
        if len(bugs) > 1:
            print(f"harvest: {len(bugs)} blocks fail alike; the program is the smallest, {tried[j][0].origin}")
        return tried[j]
    raise HarvestError(f"{len(bugs)} of the thread's MLIR blocks reproduce, differently ("
                       + "; ".join(f"{tried[j][0].origin}: {bugs[j][0]}" for j in bugs)
                       + "): save the one the thread is about and give --attach NAME=FILE")


def _bug(made: Path) -> tuple[str, str]:
    """What the scan wrote: (the outcome and the bug's message, its windows), in words."""
    h = load_case(made / "case.toml", require_golden=False).history
    match = f" /{h.bad_match.pattern}/" if h.bad_match is not None else ""
    return f"{'/'.join(h.bad_outcomes)}{match}", h.describe()
