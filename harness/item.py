"""An item: its name, and running it outside pytest.

An item is one cell of a case: a (target, opt level) of the matrix, or one [[ir]]
check. `ItemId` is its only spelling (`cpu-O3`, `ir-strip`): the plugin names pytest
items with it, results carry it, bisect and prove take it on the command line.
`run_item` runs one through the same runner the plugin uses, so "the outcome" means
the same thing everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .cache import Cache
from .case import Case
from .runner import ItemResult, run_ir_item, run_matrix_item
from .stages import Settings
from .targets import BY_NAME, OPT_LEVELS, TARGETS
from .toolchain import Toolchain

IR_PREFIX = "ir-"


@dataclass(frozen=True)
class ItemId:
    target: str | None = None
    opt_level: str | None = None
    ir_check: str | None = None

    @property
    def name(self) -> str:
        return IR_PREFIX + self.ir_check if self.ir_check else f"{self.target}-{self.opt_level}"

    def __str__(self) -> str:
        return self.name

    @property
    def is_ir(self) -> bool:
        return self.ir_check is not None

    @classmethod
    def parse(cls, text: str) -> "ItemId":
        """'cpu-O3' or 'ir-strip'; ValueError naming what is wrong otherwise."""
        if text.startswith(IR_PREFIX) and len(text) > len(IR_PREFIX):
            return cls(ir_check=text[len(IR_PREFIX):])
        target, _, level = text.rpartition("-")
        if target not in TARGETS or level not in OPT_LEVELS:
            raise ValueError(f"not an item name: {text!r} (e.g. cpu-O3, hip-O0, ir-<check>)")
        return cls(target, level)

    @classmethod
    def of(cls, case: Case, more_targets=()) -> list["ItemId"]:
        """Every item of a case, in matrix order then ir checks. `more_targets`: rows
        outside the default matrix asked for by name, kept where the case names their
        family (hip-gfx1100 for a case of hip)."""
        items = []
        if case.kind != "ir":
            wanted = list(case.targets) + [t for t in more_targets if t not in case.targets
                                           and BY_NAME[t].covered_by in case.targets]
            items += [cls(t, o) for t in wanted for o in case.opt_levels]
        return items + [cls(ir_check=c.name) for c in case.ir_checks]

    def covered_by(self, expectation) -> bool:
        return expectation.covers(self.target, self.opt_level, self.ir_check)


def bug_items(case: Case) -> list[ItemId]:
    """The items the case's bug shows on ([history].bad_items), else every item of it."""
    names = {i.name: i for i in ItemId.of(case)}
    return [names[n] for n in case.history.bad_items if n in names] or list(names.values())


def run_item(case: Case, item: ItemId, settings: Settings, progress=None) -> ItemResult:
    if item.is_ir:
        check = next(c for c in case.ir_checks if c.name == item.ir_check)
        return run_ir_item(case, check, settings, progress)
    return run_matrix_item(case, item.target, item.opt_level, settings, progress)


def settings_with(toolchain: Toolchain, base: Settings | None = None) -> Settings:
    if base is None:
        return Settings(toolchain=toolchain, cache=Cache())
    return replace(base, toolchain=toolchain)
