"""Which compile a differential split blames, by majority.

A program without a golden (a differential sweep's) is compiled several ways that must
agree pairwise (iree-lit-differ: cpu-O0, cpu-O3, vulkan-O0). When one configuration
disagrees with two others that agree with each other, it is the odd one out: the pairs
it is in fail, the pair without it passes. Any other pattern (every pair failing, or one
pair failing while both of its sides agree with a third) names no side, and is said so:
the failing items stay failures either way, this only tells the reader where to look.
"""

from __future__ import annotations

from collections import defaultdict

from ..outcomes import COMPILES_DISAGREE, PASS_OUTCOME
from ..record import ItemRecord


def _pair(record: ItemRecord) -> tuple[str, str] | None:
    """The two configurations a differential item compared, as its differ stage names
    them (None: it never compared)."""
    if record.outcome not in (PASS_OUTCOME, COMPILES_DISAGREE) or not record.stages:
        return None
    sides = record.stages[-1].data.get("sides")
    return tuple(sides) if sides else None


def blame(records: list[ItemRecord]) -> dict[str, str]:
    """case -> what the majority says of its differential splits (cases with one only)."""
    pairs: dict[str, dict[tuple[str, str], bool]] = defaultdict(dict)
    for r in records:
        pair = _pair(r) if r.differ else None
        if pair:
            pairs[r.case][pair] = r.outcome == PASS_OUTCOME
    said = {}
    for case, agree in pairs.items():
        failing = [p for p, ok in agree.items() if not ok]
        if not failing:
            continue
        configs = {c for p in agree for c in p}
        # A config in every failing pair, whose absence leaves only agreeing pairs.
        odd = [c for c in configs if all(c in p for p in failing)
               and all(ok for p, ok in agree.items() if c not in p)
               and sum(1 for p, ok in agree.items() if c not in p and ok) >= 1]
        if len(odd) == 1:
            others = sorted(c for c in configs if c != odd[0])
            said[case] = f"{odd[0]} is the odd one out ({' and '.join(others)} agree)"
        else:
            said[case] = (f"no side decidable: {len(failing)} of {len(agree)} pairs disagree "
                          f"({'; '.join(f'{a} vs {b}' for a, b in sorted(failing))})")
    return said
