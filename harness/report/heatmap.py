"""Sweeps as people look at them: per family, a heat map of failing items by axis value
(and, for generated programs, by what they are made of: dtype, dims, context op) and
target, instead of a matrix row per variant.

A nightly holds thousands of sweep variants; the report's matrix keeps a row only for a
variant that needs a reader (an item failing against its expectations, an unexpected
pass, an error, or a change since the previous run). The rest, passing or failing as
recorded, are counted here. The HTML of them is render.py's, with the rest of the page.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..outcomes import CELL_COMPILE_ONLY, CELL_PASS, CELL_SKIP, CELL_XPASS
from ..record import ItemRecord
from ..sweep.spec import GENERATED_AXES  # a generated sweep's draws: a row per seed would say nothing
from .rundiff import RunDiff
from .summary import CaseRow, ReportModel

NOT_FAILING = (CELL_PASS, CELL_COMPILE_ONLY, CELL_SKIP, CELL_XPASS)


def sweep_of(row: CaseRow) -> str | None:
    """The sweep a matrix row is a variant of (`<sweep>::<variant>`), None for a case."""
    return row.slug.split("::", 1)[0] if "::" in row.slug else None


def labels(row: CaseRow) -> list[str]:
    """The heat map rows a variant counts in: its sweep, its axis values but the seed, and
    what its program is made of (the records' traits, for generated programs)."""
    sweep, variant = row.slug.split("::", 1)
    items = [*row.cells.values(), *row.named_cells]
    traits = items[0].traits if items else []
    axes = [pair for pair in variant.split(",") if pair.split("=", 1)[0] not in GENERATED_AXES]
    return [f"sweep={sweep}", *axes, *traits]


def needs_a_reader(row: CaseRow, diff: RunDiff | None) -> bool:
    """A variant shown in the matrix: something in it is not as recorded, or changed."""
    items = [*row.cells.values(), *row.named_cells, *row.errors]
    if row.errors or any(i.is_failure for i in items):
        return True
    if diff is None:
        return False
    changed = {i.key for i in (*diff.new_failures, *diff.new_passes, *diff.unexpected_passes, *diff.errors,
                               *diff.flaky, *diff.coverage_lost)}
    return any(i.key in changed for i in items)


@dataclass
class Cell:
    failing: int = 0  # items that fail (as recorded or not)
    new: int = 0  # of those, failing against their expectations (the gate's)
    items: int = 0
    levels: dict[str, list[int]] = field(default_factory=dict)  # level -> [failing, items]

    def add(self, item: ItemRecord) -> None:
        failing = item.cell_state not in NOT_FAILING
        self.items += 1
        self.failing += failing
        self.new += failing and item.is_failure
        per = self.levels.setdefault(item.opt_level or item.item, [0, 0])
        per[0] += failing
        per[1] += 1


@dataclass
class FamilyHeat:
    family: str
    sweeps: set[str] = field(default_factory=set)
    variants: int = 0
    targets: list[str] = field(default_factory=list)
    rows: dict[str, dict[str, Cell]] = field(default_factory=dict)  # label -> target -> Cell

    def ordered(self) -> list[tuple[str, dict[str, Cell]]]:
        """Worst first: the share failing, then the label."""
        def share(cells: dict[str, Cell]) -> float:
            return sum(c.failing for c in cells.values()) / max(1, sum(c.items for c in cells.values()))
        return sorted(self.rows.items(), key=lambda kv: (-share(kv[1]), kv[0]))


def heat_maps(model: ReportModel) -> list[FamilyHeat]:
    families: dict[str, FamilyHeat] = {}
    for row in model.rows:
        sweep = sweep_of(row)
        if sweep is None:
            continue
        heat = families.setdefault(row.family, FamilyHeat(row.family))
        heat.sweeps.add(sweep)
        heat.variants += 1
        names = labels(row)
        for item in [*row.cells.values(), *row.named_cells]:
            target = item.target or ("ir" if item.ir_check else "differ")
            if target not in heat.targets:
                heat.targets.append(target)
            for label in names:
                heat.rows.setdefault(label, {}).setdefault(target, Cell()).add(item)
    order = ["cpu", "vulkan", "hip", "cuda", "ir", "differ"]
    for heat in families.values():
        heat.targets.sort(key=lambda t: order.index(t) if t in order else len(order))
    return [families[f] for f in sorted(families)]
