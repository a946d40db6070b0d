"""Run one item of a case against a given toolchain, outside pytest.

Shared by bisect, prove and the git-bisect-run helper: item references are parsed
here, and the item runs through the same runner the pytest plugin uses, so "the
outcome" means the same thing everywhere.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from .cache import Cache
from .case import Case, load_case
from .runner import ItemResult, run_ir_item, run_matrix_item
from .stages import Settings
from .targets import OPT_LEVELS, TARGETS
from .toolchain import Toolchain

CASES_DIR = Path("cases")


def find_case(slug_or_path: str, require_golden: bool = True) -> Case:
    """A case by slug (cases/<slug>), directory, or case.toml path."""
    p = Path(slug_or_path)
    if p.name == "case.toml":
        p = p.parent
    if not (p / "case.toml").is_file():
        p = CASES_DIR / slug_or_path
    if not (p / "case.toml").is_file():
        raise SystemExit(f"iree-regress: no case {slug_or_path!r} (looked for {p / 'case.toml'})")
    return load_case(p / "case.toml", require_golden)


def parse_ref(ref: str) -> tuple[Case, str | None]:
    """'topk-dynamic-slice::hip-O3' or 'cases/x/case.toml::ir-strip' -> (case, item name)."""
    case_part, _, item = ref.partition("::")
    case = find_case(case_part)
    if item and item not in item_names(case):
        raise SystemExit(f"iree-regress: {case.slug} has no item {item!r}; "
                         f"items: {', '.join(item_names(case))}")
    return case, item or None


def item_names(case: Case) -> list[str]:
    names = []
    if case.kind != "ir":
        names += [f"{t}-{o}" for t in case.targets for o in case.opt_levels]
    return names + [f"ir-{c.name}" for c in case.ir_checks]


def split_item(name: str) -> tuple[str | None, str | None, str | None]:
    """'cpu-O3' -> ('cpu', 'O3', None); 'ir-strip' -> (None, None, 'strip')."""
    if name.startswith("ir-"):
        return None, None, name[3:]
    target, level = name.rsplit("-", 1)
    assert target in TARGETS and level in OPT_LEVELS, name
    return target, level, None


def run_item(case: Case, name: str, settings: Settings) -> ItemResult:
    target, level, ir_name = split_item(name)
    if ir_name is not None:
        check = next(c for c in case.ir_checks if c.name == ir_name)
        return run_ir_item(case, check, settings)
    return run_matrix_item(case, target, level, settings)


def settings_with(toolchain: Toolchain, base: Settings | None = None) -> Settings:
    if base is None:
        return Settings(toolchain=toolchain, cache=Cache())
    return replace(base, toolchain=toolchain)
