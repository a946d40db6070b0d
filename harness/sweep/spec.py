"""A sweep: one family's space of programs, declared as data (sweeps/<family>.toml).

    [sweep]   family, name (the ids' prefix; default: the family), title, grid (another
              sweep beside it whose builder, axes, exclusions, strategy and frontend this
              one takes, adding axes of its own: a grid under the flags users turn on),
              builder (the module beside it that turns a point into a PyTorch program), strategy
              ("product", or "pairwise": every pair of axis values in some variant), per
              (pairwise: axes whose every combination gets a covering array of its own),
              sample (how many variants CI runs), frontend (how the programs reach IREE:
              "torch", iree-turbine's export, the default; "onnx", through ONNX with ONNX
              Runtime as the golden: harness/onnx_frontend.py), oracle ("golden", the
              default: each item compared with the reference's outputs; "differential":
              the programs have no golden, each item passes by running to the end, and
              the verdicts are the [[differ]] items)
    [axes]    name = [values]                 the grid
    [flag_sets] name = ["--flag=value", ...]  compiler flags users turn on; the axis
              `flags` names one per variant (spelled per release, checked as a case's)
    [[exclude]] when = {axis = [values]}, reason = "..."   points that are not programs
    [matrix]  targets, and per target the levels (cpu/vulkan run O0-O3, hip/cuda O3)
    [[differ]] as in a case.toml (two compiles of each variant's program that must agree),
              without `outputs`: the program says how many results it returns
    [[expect]] as in a case.toml, plus the variants it is about: where = {axis = [values]}
              (by axis values), and/or variants = ["<id>", ...] (exactly those measured);
              same_as = "<case slug>" (or a list) when a case's expectation describes the
              same failure

A variant is one point of the grid. Its id spells its axis values in sorted order
(`dim=-1,dtype=f16,k=1`), so it is stable while the axes hold; its items are named
`<family>::<variant>::<target>-<level>` like any case's (record.ItemRef).
"""

from __future__ import annotations

import itertools
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..case import FAMILIES, CaseError, Differ, Expectation, _Reader, read_differs, read_expectations
from ..frontends import FRONTENDS
from ..targets import OPT_LEVELS, TARGETS

SWEEPS_DIR = Path("sweeps")
STRATEGIES = ("product", "pairwise")
# What a sweep's [[expect]] adds to a case's: its scope, and `same_as`, the case one of
# whose expectations describes the same failure (lint then reads that case's failures
# as this entry's own, not as another bug its match would swallow).
SCOPE_KEYS = {"where", "variants", "same_as"}
ORACLES = ("golden", "differential")
FLAGS_AXIS = "flags"  # the axis that names a variant's flag set
SEED_AXIS = "seed"  # a generated sweep's draws (harness/sweep/compose.py)
WINDOW_AXIS = "window"  # a windows sweep's cuts of real models (harness/sweep/windows.py)
TEST_AXIS = "test"  # IREE's own test programs (harness/sweep/own_tests.py)
GENERATED_AXES = (SEED_AXIS, WINDOW_AXIS, TEST_AXIS)  # a corpus, not categories: sampled and shared, never each
Value = str | int | float | bool


def spell(value: Value) -> str:
    """An axis value as ids and TOML spell it (true, not True)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


# Which points an exclusion (`when`) or an expectation (`where`) is about: axis -> the
# spelled values it allows; a point is in it when each named axis it sets has one of them.
Scope = dict[str, tuple[str, ...]]


def in_scope(scope: Scope, point: dict[str, Value]) -> bool:
    return all(spell(point[axis]) in values for axis, values in scope.items() if axis in point)


@dataclass(frozen=True)
class Exclusion:
    when: Scope  # all must hold
    reason: str

    def holds(self, point: dict[str, Value]) -> bool:
        return in_scope(self.when, point)

    def decided_by(self, point: dict[str, Value]) -> bool:
        """Whether every axis it names is set in a (partial) point, and it holds."""
        return all(axis in point for axis in self.when) and self.holds(point)


@dataclass(frozen=True)
class Variant:
    sweep: str  # the sweep's name: its ids' prefix
    point: tuple[tuple[str, Value], ...]  # (axis, value), sorted by axis

    @property
    def id(self) -> str:
        return ",".join(f"{axis}={spell(value)}" for axis, value in self.point)

    @property
    def case_id(self) -> str:
        """What records call its case: `<sweep>::<variant>`."""
        return f"{self.sweep}::{self.id}"

    def values(self) -> dict[str, Value]:
        return dict(self.point)


@dataclass(frozen=True)
class Sweep:
    path: Path
    family: str
    title: str
    builder: Path
    axes: dict[str, tuple[Value, ...]]
    exclusions: tuple[Exclusion, ...]
    strategy: str
    per: tuple[str, ...]
    sample: int
    levels: dict[str, tuple[str, ...]]  # target -> opt levels
    # (where, variant ids or empty for any, the [[expect]] table)
    expectations: tuple[tuple[Scope, frozenset[str], dict], ...] = field(default=(), repr=False)
    name: str = ""  # the ids' prefix (default: the family)
    flag_sets: dict[str, tuple[str, ...]] = field(default_factory=dict)
    frontend: str = "torch"  # how its programs reach IREE (frontends.FRONTENDS)
    grid: "Sweep | None" = field(default=None, repr=False, compare=False)  # the grid it adds axes to
    oracle: str = "golden"  # ORACLES: how an item is judged
    # The [[differ]] items: as read (their sides; `outputs` a stand-in) and as written.
    differs: tuple[Differ, ...] = field(default=(), repr=False)
    differ_written: tuple[dict, ...] = field(default=(), repr=False)

    def grid_point(self, point: dict[str, Value]) -> dict[str, Value] | None:
        """The grid's own variant of a point (its added axes taken off); None without a grid."""
        return {a: v for a, v in point.items() if a in self.grid.axes} if self.grid else None

    def __post_init__(self):
        if not self.name:
            object.__setattr__(self, "name", self.family)

    def flags_of(self, point: dict[str, Value]) -> tuple[str, ...]:
        """The compiler flags a variant's items compile with: its flag set's."""
        return self.flag_sets.get(str(point.get(FLAGS_AXIS, "")), ())

    @property
    def targets(self) -> tuple[str, ...]:
        return tuple(self.levels)

    @property
    def kind(self) -> str:
        """Its variants' case kind: a differential sweep's programs have no golden."""
        return "run" if self.oracle == "differential" else "numeric"

    def differ_tables(self, results: int) -> list[dict]:
        """The [[differ]] tables of a variant whose program returns `results` values."""
        return [{**table, "outputs": results} for table in self.differ_written]

    def variant(self, point: dict[str, Value]) -> Variant:
        return Variant(self.name, tuple(sorted(point.items())))

    def excluded(self, point: dict[str, Value]) -> Exclusion | None:
        return next((e for e in self.exclusions if e.holds(point)), None)

    def variants(self) -> list[Variant]:
        """The grid, less its exclusions, in a stable order."""
        if self.strategy == "product":
            points = _product(self)
        else:
            points = []
            for fixed in itertools.product(*(self.axes[a] for a in self.per)):
                axes = {**self.axes, **{a: (v,) for a, v in zip(self.per, fixed)}}
                points += _pairwise(replace(self, axes=axes))
        return sorted({self.variant(p) for p in points}, key=lambda v: v.id)

    def find(self, variant_id: str) -> Variant:
        for v in self.variants():
            if v.id == variant_id:
                return v
        raise CaseError(f"{self.path}: no variant {variant_id!r} in the {self.name} sweep")

    def parsed_expectations(self) -> tuple[Expectation, ...]:
        """Every [[expect]] as a case's Expectation (lint reads them so)."""
        tables = [table for _, _, table in self.expectations]
        return read_expectations(_Reader(self.path, {"expect": tables}), extra=SCOPE_KEYS,
                                 differ_names=[d.name for d in self.differs])

    def about(self, point: dict[str, Value]) -> list[int]:
        """Indices of the [[expect]] entries whose scope holds this variant."""
        variant_id = self.variant(point).id
        return [i for i, (where, ids, _) in enumerate(self.expectations)
                if in_scope(where, point) and (not ids or variant_id in ids)]

    def expectations_for(self, point: dict[str, Value]) -> list[dict]:
        """The [[expect]] tables about this variant, without their scope."""
        return [{k: v for k, v in self.expectations[i][2].items() if k not in SCOPE_KEYS}
                for i in self.about(point)]

    def seed_share(self, k: int, n: int) -> list[Variant]:
        """The K-th of N shares of a generated sweep's draws (seed % N == K-1; a window or a
        test by its place in the axis), with every other axis; a grid (no such axis) whole."""
        axis = next((a for a in GENERATED_AXES if a in self.axes), None)
        if axis is None:
            return self.variants()
        index = (lambda value: int(value)) if axis == SEED_AXIS else self.axes[axis].index
        return [v for v in self.variants() if index(v.values()[axis]) % n == k - 1]

    def sample_of(self, n: int | None = None) -> list[Variant]:
        """A fixed, stratified sample: every value of every axis appears at least once
        (when the grid has it; a generated sweep's seeds and windows are draws, not
        categories: not each), then evenly spaced variants up to n."""
        n = self.sample if n is None else n
        every = self.variants()
        chosen: dict[str, Variant] = {}
        for axis, values in self.axes.items():
            if axis in GENERATED_AXES:
                continue
            for value in values:
                have = [v for v in every if spell(v.values()[axis]) == spell(value)]
                if have and not any(spell(c.values()[axis]) == spell(value) for c in chosen.values()):
                    pick = have[len(have) // 2]
                    chosen[pick.id] = pick
        step = max(1, len(every) // max(1, n - len(chosen))) if n > len(chosen) else 0
        for v in every[::step] if step else ():
            if len(chosen) >= n:
                break
            chosen.setdefault(v.id, v)
        return sorted(chosen.values(), key=lambda v: v.id)


def _product(sweep: Sweep) -> list[dict[str, Value]]:
    names = list(sweep.axes)
    points = [dict(zip(names, combo)) for combo in itertools.product(*sweep.axes.values())]
    return [p for p in points if sweep.excluded(p) is None]


def _pairwise(sweep: Sweep) -> list[dict[str, Value]]:
    """A covering array of strength 2, built greedily and deterministically: each new
    variant starts from the first pair not yet covered and fills the other axes with the
    value that covers most new pairs. A pair no allowed variant can hold is dropped."""
    names = list(sweep.axes)

    def pairs_of(point):
        keys = [(a, spell(point[a])) for a in names if a in point]
        return {(x, y) for x, y in itertools.combinations(keys, 2)}

    uncovered = {((a, spell(u)), (b, spell(w)))
                 for a, b in itertools.combinations(names, 2)
                 for u in sweep.axes[a] for w in sweep.axes[b]}
    by_spelling = {a: {spell(v): v for v in sweep.axes[a]} for a in names}
    points = []
    while uncovered:
        (a, u), (b, w) = min(uncovered)
        point = {a: by_spelling[a][u], b: by_spelling[b][w]}
        if any(e.decided_by(point) for e in sweep.exclusions):
            uncovered.discard(((a, u), (b, w)))
            continue
        for axis in names:
            if axis in point:
                continue
            best, gain = None, -1
            for value in sweep.axes[axis]:
                trial = {**point, axis: value}
                if any(e.decided_by(trial) for e in sweep.exclusions):
                    continue
                new = len(pairs_of(trial) & uncovered)
                if new > gain:
                    best, gain = value, new
            if best is None:
                break
            point[axis] = best
        if len(point) < len(names):  # no allowed completion: this pair is never a program
            uncovered.discard(((a, u), (b, w)))
            continue
        uncovered -= pairs_of(point)
        points.append(point)
    return points


def load_sweep(path: Path) -> Sweep:
    """Read and check a sweep spec; errors name the file and the field."""
    path = Path(path).resolve()
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise CaseError(f"{path}: not valid TOML: {e}") from None
    top = _Reader(path, data)
    top.reject_unknown({"sweep", "axes", "exclude", "matrix", "expect", "flag_sets", "differ"})
    if "sweep" not in data:
        raise top.error("sweep", "is required but missing")
    head = top.sub("sweep")
    head.reject_unknown({"family", "name", "title", "grid", "builder", "strategy", "per", "sample", "frontend",
                        "oracle"})
    base = _grid(head, path)
    family = head.get("family", str, base.family if base else ...)
    if family not in FAMILIES:  # "other": a sweep of no family op (plain-graph)
        raise head.error("family", f"unknown family {family!r}; allowed: {', '.join(FAMILIES)}")
    if base and family != base.family:
        raise head.error("family", f"{family!r}: the grid {base.path.name} is the {base.family} family's")
    builder = head.file("builder", path.parent, base.builder if base else ...)
    strategy = head.get("strategy", str, base.strategy if base else "product")
    if strategy not in STRATEGIES:
        raise head.error("strategy", f"unknown strategy {strategy!r}; allowed: {', '.join(STRATEGIES)}")

    if "axes" not in data:
        raise top.error("axes", "is required but missing")
    axes_reader = top.sub("axes")
    axes: dict[str, tuple[Value, ...]] = {}
    for name in axes_reader.table:
        values = _seeds(axes_reader) if name == SEED_AXIS and isinstance(axes_reader.table[name], dict) \
            else axes_reader.get(name, list)
        if not values:
            raise axes_reader.error(name, "needs at least one value")
        for i, v in enumerate(values):
            if not isinstance(v, (str, int, float, bool)):
                raise axes_reader.error(f"{name}[{i}]", f"must be a string, number or boolean, got {v!r}")
            if any(c in spell(v) for c in ",=:[] "):
                raise axes_reader.error(f"{name}[{i}]", f"{v!r}: ids cannot hold ',', '=', ':', brackets or spaces")
        if len({spell(v) for v in values}) != len(values):
            raise axes_reader.error(name, "values must be distinct")
        axes[name] = tuple(values)
    if base:
        again = sorted(set(axes) & set(base.axes))
        if again:
            raise axes_reader.error(again[0], f"is an axis of the grid {base.path.name}: add axes, never redefine one")
        axes = {**base.axes, **axes}

    flag_sets = _flag_sets(top, axes, path.parent)

    exclusions = list(base.exclusions) if base else []
    for e in top.subs("exclude"):
        e.reject_unknown({"when", "reason"})
        exclusions.append(Exclusion(_scope(e.sub("when"), axes), e.get("reason", str, required=True)))

    matrix = top.sub("matrix") if "matrix" in data else _Reader(path, {}, "matrix")
    matrix.reject_unknown(set(TARGETS))
    levels = {}
    for target in matrix.table:
        levels[target] = matrix.str_list(target, allowed=OPT_LEVELS)
    if not levels:
        raise matrix.error("cpu", "name at least one target and its levels (cpu = [\"O0\", ...])")

    oracle = head.get("oracle", str, base.oracle if base else "golden")
    if oracle not in ORACLES:
        raise head.error("oracle", f"unknown oracle {oracle!r}; allowed: {', '.join(ORACLES)}")
    differs, differ_written = _differ_tables(top, path, oracle, levels)
    read_expectations(top, extra=SCOPE_KEYS,  # each entry as a case's, errors named here
                      differ_names=[d.name for d in differs])
    expectations = [(_scope(e.sub("where"), axes, lists_only=True) if "where" in e.table else {},
                     frozenset(e.str_list("variants", ())), dict(e.table)) for e in top.subs("expect")]

    per = head.str_list("per", base.per if base else ())
    for axis in per:
        if axis not in axes:
            raise head.error("per", f"no such axis {axis!r}; axes: {', '.join(axes)}")
    frontend = head.get("frontend", str, base.frontend if base else "torch")
    if frontend not in FRONTENDS:
        raise head.error("frontend", f"unknown frontend {frontend!r}; allowed: {', '.join(FRONTENDS)}")
    name = head.get("name", str, family)
    if not re.fullmatch(r"[a-z][a-z0-9-]*", name):
        raise head.error("name", f"{name!r}: lower-case words joined by '-'")
    sweep = Sweep(path, family, head.get("title", str, required=True), builder, axes,
                  tuple(exclusions), strategy, per, head.get("sample", int, 12), levels,
                  tuple(expectations), name, flag_sets, frontend, base, oracle, differs,
                  differ_written)
    every = {v.id for v in sweep.variants()}
    if not every:  # a sweep that runs nothing must not read as a green one
        raise top.error("exclude", "excludes every point of the grid: the sweep has no variant")
    for i, (_, ids, _) in enumerate(expectations):
        unknown = sorted(ids - every)
        if unknown:  # a misspelt id would scope the entry to nothing
            raise CaseError(f"{path}: expect[{i}].variants: {unknown[0]!r} is not a variant of the grid"
                            + (f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else ""))
    return sweep


def _differ_tables(top: _Reader, path: Path, oracle: str,
                   levels: dict[str, tuple[str, ...]]) -> tuple[tuple[Differ, ...], tuple[dict, ...]]:
    """[[differ]] tables, checked as a case's are (a stand-in result count: the program
    gives its own); a differential sweep needs one, and its sides' targets in the matrix."""
    for d in top.subs("differ"):
        if "outputs" in d.table:
            raise d.error("outputs", "a sweep's programs say how many results they return: leave it out")
    tables = tuple(dict(d.table) for d in top.subs("differ"))
    checked = read_differs(_Reader(path, {"differ": [{**t, "outputs": 1} for t in tables]}), "run", path.parent,
                       list(levels), [lvl for per in levels.values() for lvl in per])
    for d, table in zip(checked, top.subs("differ")):
        for side in (d.a, d.b):
            if side.opt_level not in levels.get(side.target, ()):
                raise table.error("b" if side is d.b else "a", f"{side.target}-{side.opt_level} is not in the "
                                  "sweep's [matrix]: a side compiles as one of its items does")
    if oracle == "differential" and not tables:
        raise top.error("differ", "a differential sweep judges its programs by [[differ]] items: name one")
    return checked, tables


def _grid(head: _Reader, path: Path) -> Sweep | None:
    """The sweep `grid` names (beside this one, itself no extension: one level only)."""
    base_path = head.file("grid", path.parent, None)
    if base_path is None:
        return None
    base = load_sweep(base_path)
    if base.grid is not None:
        raise head.error("grid", f"{base_path.name} extends a grid itself: name that grid instead")
    return base


def _flag_sets(top: _Reader, axes: dict[str, tuple[Value, ...]], folder: Path) -> dict[str, tuple[str, ...]]:
    """[flag_sets]: each a list of flags, checked as a case's are (no option that runs a
    program, writes, or reads outside the sweep's folder); the `flags` axis names them."""
    if "flag_sets" not in top.table:
        if FLAGS_AXIS in axes:
            raise top.error("flag_sets", f"the axis {FLAGS_AXIS!r} names flag sets: define them in [flag_sets]")
        return {}
    sets = top.sub("flag_sets")
    found = {name: sets.flags(name, folder) for name in sets.table}
    for value in axes.get(FLAGS_AXIS, ()):
        if str(value) not in found:
            raise top.error(f"axes.{FLAGS_AXIS}", f"{value!r} is not a flag set of [flag_sets] ({', '.join(found)})")
    return found


def _seeds(axes: _Reader) -> list[int]:
    """`seed = {count = N}`: the draws 0 .. N-1 of a generated sweep (a list also works)."""
    table = axes.sub(SEED_AXIS)
    table.reject_unknown({"count"})
    count = table.get("count", int, required=True)
    if count < 1:
        raise table.error("count", "must be at least 1")
    return list(range(count))


def _scope(reader: _Reader, axes: dict[str, tuple[Value, ...]], lists_only: bool = False) -> Scope:
    """A `when` or `where` table: known axes, each with values of its own (a misspelt
    value would scope the entry to nothing)."""
    scope = {}
    for axis, raw in reader.table.items():
        if axis not in axes:
            raise reader.error(axis, f"no such axis; axes: {', '.join(axes)}")
        if lists_only and not isinstance(raw, list):
            raise reader.error(axis, "must be a list of values")
        known = {spell(v) for v in axes[axis]}
        values = tuple(spell(v) for v in (raw if isinstance(raw, list) else [raw]))
        for v in values:
            if v not in known:
                raise reader.error(axis, f"{v!r} is not a value of the axis")
        scope[axis] = values
    return scope


def discover(root: Path = SWEEPS_DIR) -> list[Path]:
    return sorted(Path(root).glob("*.toml"))


def sweeps_by_name(root: Path = SWEEPS_DIR) -> dict[str, Sweep]:
    """Every sweep by its name (the prefix of its variants' ids)."""
    return {s.name: s for s in map(load_sweep, discover(root))}


def variant_of(case_id: str, root: Path = SWEEPS_DIR) -> tuple[Sweep, Variant]:
    """`<sweep>::<variant>`, as records name a variant's case, to its sweep and variant."""
    name, _, variant_id = case_id.partition("::")
    sweeps = sweeps_by_name(root)
    if name not in sweeps:
        raise CaseError(f"no sweep named {name!r} for {case_id!r}; sweeps: {', '.join(sweeps) or '(none)'}")
    return sweeps[name], sweeps[name].find(variant_id)
