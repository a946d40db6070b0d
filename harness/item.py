"""An item: its name, and running it outside pytest.

An item is one cell of a case: a (target, opt level) of the matrix, one [[ir]] check,
or one [[differ]] (two compiles that must agree). `ItemId` is its only spelling
(`cpu-O3`, `ir-strip`, `differ-data-tiling`): the plugin names pytest
items with it, results carry it, bisect and prove take it on the command line.
`run_item` runs one through the same runner the plugin uses, so "the outcome" means
the same thing everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .cache import Cache
from .case import Case
from .runner import ItemResult, run_differ_item, run_ir_item, run_matrix_item
from .stages import Settings
from .targets import BY_NAME, OPT_LEVELS, TARGETS, one_compile_level
from .toolchain import Toolchain

IR_PREFIX, DIFFER_PREFIX = "ir-", "differ-"


@dataclass(frozen=True)
class ItemId:
    target: str | None = None
    opt_level: str | None = None
    ir_check: str | None = None
    differ: str | None = None

    @property
    def name(self) -> str:
        if self.differ:
            return DIFFER_PREFIX + self.differ
        return IR_PREFIX + self.ir_check if self.ir_check else f"{self.target}-{self.opt_level}"

    def __str__(self) -> str:
        return self.name

    @property
    def is_ir(self) -> bool:
        return self.ir_check is not None

    @property
    def is_differ(self) -> bool:
        return self.differ is not None

    @property
    def is_matrix(self) -> bool:
        return not self.is_ir and not self.is_differ

    @property
    def scope(self) -> str:
        """What an [[expect]] names it under: its target, or "ir" / "differ" for a named item."""
        return "ir" if self.is_ir else "differ" if self.is_differ else self.target

    @property
    def name_in_scope(self) -> str:
        """Its name under its scope: the opt level, or the check's or differential item's name."""
        return self.ir_check or self.differ or self.opt_level

    @classmethod
    def parse(cls, text: str) -> "ItemId":
        """'cpu-O3', 'ir-strip' or 'differ-data-tiling'; ValueError naming what is wrong otherwise."""
        if text.startswith(IR_PREFIX) and len(text) > len(IR_PREFIX):
            return cls(ir_check=text[len(IR_PREFIX):])
        if text.startswith(DIFFER_PREFIX) and len(text) > len(DIFFER_PREFIX):
            return cls(differ=text[len(DIFFER_PREFIX):])
        target, _, level = text.rpartition("-")
        if target not in TARGETS or level not in OPT_LEVELS:
            raise ValueError(f"not an item name: {text!r} (e.g. cpu-O3, hip-O0, ir-<check>, differ-<name>)")
        return cls(target, level)

    @classmethod
    def of(cls, case: Case, more_targets=()) -> list["ItemId"]:
        """Every item of a case, in matrix order, then ir checks, then differential items. `more_targets`: rows
        outside the default matrix asked for by name, kept where the case names their
        family (hip-gfx1100 for a case of hip)."""
        items = []
        if case.kind != "ir":
            wanted = list(case.targets) + [t for t in more_targets if t not in case.targets
                                           and BY_NAME[t].covered_by in case.targets]
            items += [cls(t, o) for t in wanted for o in case.opt_levels]
        return (items + [cls(ir_check=c.name) for c in case.ir_checks]
                + [cls(differ=d.name) for d in case.differs])

    def covered_by(self, expectation) -> bool:
        return expectation.covers(self.target, self.opt_level, self.ir_check, self.differ)

    def expectation(self, case: Case, release):
        return case.expectation_for(self.target, self.opt_level, self.ir_check, release, self.differ)


def bug_items(case: Case) -> list[ItemId]:
    """The items the case's bug shows on ([history].bad_items), else every item of it."""
    names = {i.name: i for i in ItemId.of(case)}
    return [names[n] for n in case.history.bad_items if n in names] or list(names.values())


def measured_as(case: Case, item: ItemId, release) -> ItemId:
    """The item a release measures `item` as: on one without --iree-opt-level, a matrix
    item is its target's one compile, the case's first level (the runner skips the other
    levels there, naming it)."""
    one = one_compile_level(case.opt_levels, item.opt_level, release) if item.is_matrix else None
    return ItemId(item.target, one) if one else item


def run_item(case: Case, item: ItemId, settings: Settings, progress=None) -> ItemResult:
    if item.is_ir:
        check = next(c for c in case.ir_checks if c.name == item.ir_check)
        return run_ir_item(case, check, settings, progress)
    if item.is_differ:
        differ = case.differ_named(item.differ)
        return run_differ_item(case, differ, settings, progress)
    return run_matrix_item(case, item.target, item.opt_level, settings, progress)


def settings_with(toolchain: Toolchain, base: Settings | None = None) -> Settings:
    if base is None:
        return Settings(toolchain=toolchain, cache=Cache())
    return replace(base, toolchain=toolchain)
