"""The short table that explains what a release scan finds (sweeps/explained/scan.toml).

A sweep's [[expect]] entries describe the pinned release. A scan over 15 releases finds
failures on older ones that are no bug of the variant: an op a release's importer does
not lower yet, a limit a release enforces on purpose, a bug a case already holds. Each
such failure is named here once, with its reason, rather than as an expectation on every
variant and release:

    [[explain]]
    sweeps = ["attention"]                 # optional: the sweeps it is about (default all)
    where = { scale = ["one"] }            # optional (with sweeps): the variants, as [[expect]]'s
    variants = ["wide-graph::seed=338"]    # or instead of sweeps and where: the variants by id,
                                           # across sweeps (drawn programs, checked one by one)
    compiler = ">=2.9.0,<3.1.0"            # the releases measured
    outcome = "compile-fail"
    match = "One or more operations with large vector sizes"
    reason = "..."                         # why it is no regression of the variant
    case = "slug"                          # optional: the case whose bug it is (lint checks
                                           # the claim as it checks same_as)

scan.groups() disposes of a group's failures by the sweeps' expectations first, then by
this table; what neither takes is unexplained.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from ..case import CaseError, _Reader
from ..outcomes import parse_stage_outcome
from .spec import SWEEPS_DIR, Scope, Value, Variant, _scope, in_scope, sweeps_by_name

EXPLAINED = SWEEPS_DIR / "explained" / "scan.toml"  # a folder of its own: no sweep, never collected


@dataclass(frozen=True)
class Explanation:
    sweeps: tuple[str, ...]
    compiler: SpecifierSet
    outcome: str
    match: re.Pattern
    reason: str
    case: str = ""
    where: Scope = None  # the variants it is about (None: all of its sweeps')
    variants: frozenset[str] = frozenset()  # or these, `<sweep>::<variant>` (empty: as where says)

    @property
    def same_as(self) -> tuple[str, ...]:  # read as an expectation's, by lint
        return (self.case,) if self.case else ()

    def takes(self, sweep: str, release: Version, outcome: str, text: str,
              point: dict[str, Value] | None = None) -> bool:
        """Whether it explains this failure; with a `where`, only of a variant (its point) in it."""
        if self.where and (point is None or not in_scope(self.where, point)):
            return False
        if self.variants and (point is None or Variant(sweep, tuple(sorted(point.items()))).case_id
                              not in self.variants):
            return False
        return ((not self.sweeps or sweep in self.sweeps) and release in self.compiler
                and outcome == self.outcome and bool(self.match.search(text)))


def load_explained(path: Path = EXPLAINED) -> list[Explanation]:
    """The table; [] when there is none. CaseError naming file and field when malformed."""
    if not Path(path).is_file():
        return []
    try:
        data = tomllib.loads(Path(path).read_text())
    except tomllib.TOMLDecodeError as e:
        raise CaseError(f"{path}: not valid TOML: {e}") from None
    top = _Reader(Path(path), data)
    top.reject_unknown({"explain"})
    found = []
    known: dict = {}  # the sweeps by name, read once, when an entry scopes variants
    for e in top.subs("explain"):
        e.reject_unknown({"sweeps", "compiler", "outcome", "match", "reason", "case", "where", "variants"})
        outcome = e.get("outcome", str, required=True)
        try:
            parse_stage_outcome(outcome)
        except ValueError as err:
            raise e.error("outcome", str(err)) from None
        text = e.get("match", str, required=True)
        try:
            match = re.compile(text)
        except re.error as err:
            raise e.error("match", f"not a regular expression: {err}") from None
        reason = e.get("reason", str, required=True).strip()
        if not reason:
            raise e.error("reason", "say why this failure is no regression of the variants")
        variants = _variants(e, known)
        sweeps = tuple(dict.fromkeys(v.partition("::")[0] for v in variants)) or e.str_list("sweeps", ())
        found.append(Explanation(sweeps, e.specifier("compiler"), outcome, match, reason,
                                 e.get("case", str, ""), _where(e, sweeps, known), variants))
    return found


def _variants(entry: _Reader, known: dict) -> frozenset[str]:
    """An entry's `variants`: ids as records name them (`<sweep>::<variant>`), each an
    existing variant; they name the entry's sweeps, so neither `sweeps` nor `where` beside."""
    ids = entry.str_list("variants", ())
    if not ids:
        return frozenset()
    for beside in ("sweeps", "where"):
        if beside in entry.table:
            raise entry.error(beside, "not beside variants: the variants name their sweeps")
    if not known:
        known.update(sweeps_by_name())
    for case_id in ids:
        name, _, variant_id = case_id.partition("::")
        if name not in known:
            raise entry.error("variants", f"{case_id!r}: no sweep named {name!r}")
        try:
            known[name].find(variant_id)
        except CaseError as err:
            raise entry.error("variants", f"{case_id!r}: {err}") from None
    return frozenset(ids)


def _where(entry: _Reader, sweeps: tuple[str, ...], known: dict) -> Scope | None:
    """An entry's `where`: axes its sweeps have (all of them), values of those axes.
    `known`: the sweeps by name, filled on first use."""
    if "where" not in entry.table:
        return None
    if not sweeps:
        raise entry.error("where", "name the sweeps whose axes it scopes (sweeps = [...])")
    if not known:
        known.update(sweeps_by_name())
    missing = [s for s in sweeps if s not in known]
    if missing:
        raise entry.error("sweeps", f"no sweep named {', '.join(map(repr, missing))}")
    axes: dict[str, set] = {}
    for name in sweeps:  # an axis every named sweep has, with any of their values
        for axis, values in known[name].axes.items():
            axes.setdefault(axis, set()).update(values)
    shared = {a: tuple(v) for a, v in axes.items() if all(a in known[s].axes for s in sweeps)}
    return _scope(entry.sub("where"), shared, lists_only=True)
