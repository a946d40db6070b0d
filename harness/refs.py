"""Items named on the command line: a case's (`slug::cpu-O3`) or a sweep variant's
(`topk::dim=last,...::cpu-O3`, as records name it), resolved to (Case, ItemId).

Above both the cases and the sweeps, so that repro, bisect, triage and run-bundle take
either with one parser.
"""

from __future__ import annotations

from .case import Case, CaseError, find_case
from .item import ItemId, settings_with
from .sweep.materialize import case_of_variant
from .targets import BY_NAME
from .toolchain import resolve


def resolve_case(name: str) -> Case:
    """A case by slug, directory or case.toml, or a sweep variant by `<family>::<variant>`
    (its id always holds '='), made into its case."""
    family, sep, variant = name.partition("::")
    if sep and "=" in variant:
        return case_of_variant(name, settings_with(resolve()))
    return find_case(name)


def parse_ref(ref: str) -> tuple[Case, ItemId | None]:
    """'topk-dynamic-slice::hip-O3', 'cases/x/case.toml::ir-strip', or a sweep variant's
    'topk::dim=last,...::cpu-O3' -> (case, item); the item may be left out."""
    parts = ref.split("::")
    has_item = "=" not in parts[-1] and len(parts) > (2 if "=" in ref else 1)
    case = resolve_case("::".join(parts[:-1]) if has_item else ref)
    if not has_item:
        return case, None
    item = parts[-1]
    names = [i.name for i in ItemId.of(case, [t for t, row in BY_NAME.items() if not row.default])]
    if item not in names:
        raise CaseError(f"{case.slug} has no item {item!r}; items: {', '.join(names)}")
    return case, ItemId.parse(item)
