"""Read and validate cases/<slug>/case.toml into a `Case`.

The format is documented in docs/case-format.md. Every error names the file and the
field (`CaseError("cases/x/case.toml: [matrix].targets: unknown target 'tpu'")`), so a
broken case fails alone and says where to look.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from . import path_options
from .frontends import FRONTENDS, REFERENCE_NAME
from .outcomes import parse_stage_outcome
from .targets import DEFAULT_TARGETS, OPT_LEVELS, TARGETS, family_of

# numeric: compile, run, compare with the golden; compile: compile only; run: compile and
# run on inputs/ with no golden (a run-time failure is the bug); ir: [[ir]] checks only.
KINDS = ("numeric", "compile", "run", "ir")
COMPARE_MODES = ("values", "indices")
IR_TOOLS = ("iree-opt", "iree-compile")
FAMILIES = ("transpose", "topk", "scatter", "attention", "other")
# fixed / open: a bug with measured windows (derived from them). guard: a form of an
# issue's program that no release was seen failing, kept beside a proven sibling to
# guard the fix end to end. unknown: not measured yet.
# unreproduced: harvested from a thread that no release reproduced (kept with --keep);
# never PROVEN, and its reason says what was measured.
HISTORY_STATUSES = ("fixed", "open", "guard", "unknown", "unreproduced")
ISSUE_REF = re.compile(r"[\w.-]+/[\w.-]+#\d+")
CASES_DIR = Path("cases")
# A case's directory name is its slug: it reaches shell scripts, HTML and Markdown.
SLUG = re.compile(r"[a-z0-9][a-z0-9-]*")
# Above this a tolerance hides real wrong numbers unless the case says why it needs it.
LOOSE_TOLERANCE = 1e-2


class CaseError(ValueError):
    """A case.toml that cannot be used; the message names the file and field. The cli
    prints any of these as one line (a results file that cannot be read is one too)."""


@dataclass(frozen=True)
class Variant:
    compiler: SpecifierSet  # releases this spelling is for
    mlir: Path


@dataclass(frozen=True)
class OutputRule:
    index: int
    mode: str  # values | indices
    input: int | None = None  # indices: which input they index
    axis: int = -1


@dataclass(frozen=True)
class IrCheck:
    name: str
    tool: str
    input: Path
    args: tuple[str, ...]
    checks: Path
    check_prefix: str
    compiler: SpecifierSet


@dataclass(frozen=True)
class Side:
    """One configuration of a differential item: where and how the program compiles."""
    target: str
    opt_level: str
    flags: tuple[str, ...] = ()  # after the case's own [matrix] flags

    def describe(self) -> str:
        return " ".join((f"{self.target}-{self.opt_level}", *self.flags))


@dataclass(frozen=True)
class Differ:
    """A bug defined as a difference: the same program compiled two ways on one release,
    run on the same inputs; the release is bad where the outputs disagree beyond the
    dtype's tolerance (compare.DIFFER_TOLERANCE, or the looser atol/rtol given here)."""
    name: str
    a: Side
    b: Side
    outputs: int | None  # how many results the function returns (None: as many as the golden)
    atol: float = 0.0
    rtol: float = 0.0


@dataclass(frozen=True)
class Expectation:
    outcome: str  # <stage>-<status>, e.g. compile-fail
    reason: str
    targets: tuple[str, ...] | None  # None = every target
    opt_levels: tuple[str, ...] | None
    ir_checks: tuple[str, ...] | None  # which ir items it covers; None = all
    compiler: SpecifierSet
    match: re.Pattern | None
    # Cases whose bug this failure is (a guard's form that fails the way its sibling does):
    # their stored failures are this entry's own, not another bug's.
    same_as: tuple[str, ...] = ()
    differs: tuple[str, ...] | None = None  # which differential items it covers; None = all

    def applies_to(self, target: str | None, opt_level: str | None, ir_name: str | None,
                   release: Version, differ_name: str | None = None) -> bool:
        return release in self.compiler and self.covers(target, opt_level, ir_name, differ_name)

    def takes(self, outcome: str, failure_text: str) -> bool:
        """Whether a failure is this expectation's bug: its outcome, and its message."""
        return outcome == self.outcome and (self.match is None or bool(self.match.search(failure_text)))

    def covers(self, target: str | None, opt_level: str | None, ir_name: str | None,
               differ_name: str | None = None) -> bool:
        """Whether the expectation is about this item, on some release."""
        for name, named, other in ((ir_name, self.ir_checks, self.differs),
                                   (differ_name, self.differs, self.ir_checks)):
            if name is not None:
                # An expectation that names targets/levels (or the other kind of named
                # item) is about those items, unless it names this one too.
                if named is not None:
                    return name in named
                return self.targets is None and self.opt_levels is None and other is None
        if self.ir_checks is not None or self.differs is not None:
            return False
        return ((self.targets is None or target in self.targets or family_of(target) in self.targets)
                and (self.opt_levels is None or opt_level in self.opt_levels))


@dataclass(frozen=True)
class Sample:
    """What the bug printed on one release and item, verbatim (history/message.sample_of):
    kept so that lint can test every other case's matches against it with no results."""
    outcome: str
    item: str
    release: str
    text: str


@dataclass(frozen=True)
class Window:
    """Releases that had the bug, as measured: onset and end."""
    first_bad: str
    last_bad: str
    last_good: str | None = None   # onset: newest release before first_bad where the items
                                   # pass (None: none measured before it passes)
    first_good: str | None = None  # end: first release after last_bad where they pass
                                   # (None: still open)
    # Releases between last_good and first_bad where another failure hides whether the bug
    # is there (an op the release cannot import yet): the onset is somewhere in them, so
    # they are never "good". hidden_before is the newest of them, hidden_by what hides it.
    hidden_before: str | None = None
    hidden_by: str = ""
    sample: Sample | None = None  # the bug as it showed on first_bad
    # This window's own definition of the bug, when the windows show different failures
    # (empty / None: [history]'s, what they share).
    bad_outcomes: tuple[str, ...] = ()
    bad_match: re.Pattern | None = None
    # The same at the end: releases between last_bad and first_good that fail another way
    # (the bug turned into another failure before its fix); hidden_after is the oldest.
    hidden_after: str | None = None
    hidden_after_by: str = ""
    # The upstream issue this window's bug is, when it is not the case's own (a bug fixed
    # and broken again by another change): "" credits the case's threads, first window only.
    issue: str = ""
    # Items on which another failure hides the bug on some releases inside the window (the
    # bug shows there on other items): each has an [[expect]] of that failure, never the bug's.
    hidden_items: tuple[str, ...] = ()

    def holds(self, release) -> bool:
        return Version(self.first_bad) <= Version(str(release)) <= Version(self.last_bad)


@dataclass(frozen=True)
class History:
    status: str  # fixed | open | guard | unknown | unreproduced
    windows: tuple[Window, ...] = ()
    bad_outcomes: tuple[str, ...] = ()  # the outcome(s) the bug shows
    bad_items: tuple[str, ...] = ()
    bad_match: re.Pattern | None = None  # the bug's own diagnostic: tells it from unrelated
                                         # failures with the same outcome in other releases
    measured: str = ""  # which releases the windows were read from
    # Cases whose stored failures the bug's message may also take: the same bug seen
    # through another program (a run-time SIGBUS carries no message of its own).
    same_as: tuple[str, ...] = ()
    reason: str = ""  # a guard's: why it is one (the form it controls, what it was measured on)

    @property
    def last_bad(self) -> str | None:
        return self.windows[-1].last_bad if self.windows else None

    @property
    def first_good(self) -> str | None:
        return self.windows[-1].first_good if self.windows else None

    def describe(self) -> str:
        """'3.2.0 < [3.3.0 .. 3.4.0] < 3.6.0': onset and end of each window."""
        parts = []
        for w in self.windows:
            before = f"{w.last_good} < " if w.last_good else ("" if w.hidden_before else "<= ")
            if w.hidden_before:
                before += f"(hidden to {w.hidden_before}) "
            after = f" < {w.first_good}" if w.first_good else " open"
            if w.hidden_after:
                after = f" (hidden from {w.hidden_after})" + after
            parts.append(f"{before}[{w.first_bad} .. {w.last_bad}]{after}")
        return "; ".join(parts) or self.status


@dataclass(frozen=True)
class Case:
    slug: str
    dir: Path
    manifest: Path
    title: str
    kind: str
    issues: tuple[str, ...]
    prs: tuple[str, ...]
    family: str
    found_by: str  # "" for a case written from an upstream issue
    torch_model: Path | None
    mlir: Path | None
    variants: tuple[Variant, ...]
    reference: Path | None  # reference.py for mlir numeric cases
    function: str
    dynamic_shapes: str  # name of the model.py function giving the export's dynamic_shapes
    frontend: str  # how the PyTorch program reaches IREE: frontends.FRONTENDS
    targets: tuple[str, ...]
    opt_levels: tuple[str, ...]
    flags: tuple[str, ...]
    target_flags: dict[str, tuple[str, ...]]
    atol: float
    rtol: float
    tolerance_reason: str
    output_rules: tuple[OutputRule, ...]
    ir_checks: tuple[IrCheck, ...]
    expectations: tuple[Expectation, ...]
    history: History
    raw: dict = field(repr=False, compare=False, default_factory=dict)
    differs: tuple[Differ, ...] = ()
    # The golden carries its spread (spread/spread<i>.npy, reference.spread): an element may
    # be off by it too. Generated programs, whose drawn values nobody chose.
    spread: bool = False
    # What a generated sweep variant's program is made of (its dtype, dims, context ops):
    # what the report's heat maps group it by. Cases and grid variants: none.
    traits: tuple[str, ...] = ()

    @property
    def inputs_dir(self) -> Path:
        return self.dir / "inputs"

    @property
    def expected_dir(self) -> Path:
        return self.dir / "expected"

    @property
    def spread_dir(self) -> Path:
        return self.dir / "spread"

    @property
    def runs_module(self) -> bool:
        """Whether its matrix items run the module (numeric and run cases), not only compile it."""
        return self.kind in ("numeric", "run")

    @property
    def reference_name(self) -> str:
        """What the golden and the reference run are: PyTorch eager, or ONNX Runtime."""
        return REFERENCE_NAME[self.frontend]

    @property
    def reference_program(self) -> Path | None:
        """The PyTorch file that defines example_inputs() and the reference computation."""
        return self.torch_model or self.reference

    def mlir_for(self, release: Version) -> Path | None:
        """The MLIR input spelled for this compiler release (torch cases: None)."""
        for v in self.variants:
            if release in v.compiler:
                return v.mlir
        return self.mlir

    def differ_named(self, name: str) -> Differ:
        return next(d for d in self.differs if d.name == name)

    def expectation_for(self, target, opt_level, ir_name, release, differ_name=None) -> Expectation | None:
        for e in self.expectations:
            if e.applies_to(target, opt_level, ir_name, release, differ_name):
                return e
        return None

    @property
    def threads(self) -> tuple[str, ...]:
        """The upstream records that describe the bug: its issues, or for a bug reported
        only by the PR that fixed it, that PR (the first in prs; a found_by case's prs are
        context only)."""
        return tuple(self.issues) or (() if self.found_by or not self.prs else (self.prs[0],))

    def issue_urls(self) -> list[str]:
        return [issue_url(ref) for ref in self.threads]


def issue_url(ref: str) -> str:
    repo, num = ref.split("#")
    return f"https://github.com/{repo}/issues/{num}"


class _Reader:
    """Typed access to a TOML table that reports file + dotted field on error."""

    def __init__(self, manifest: Path, table: dict, where: str = ""):
        self.manifest = manifest
        self.table = table
        self.where = where

    def error(self, key: str, message: str) -> CaseError:
        field_name = f"{self.where}.{key}" if self.where else key
        return CaseError(f"{self.manifest}: field '{field_name}': {message}")

    def get(self, key, types, default=..., required=False):
        if key not in self.table:
            if required or default is ...:
                raise self.error(key, "is required but missing")
            return default
        value = self.table[key]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in _tuple(types)):
            names = " or ".join(t.__name__ for t in _tuple(types))
            raise self.error(key, f"must be {names}, got {type(value).__name__} {value!r}")
        return value

    def str_list(self, key, default=..., allowed=None):
        value = self.get(key, list, default)
        if value is default and default is not ...:
            return default
        for i, item in enumerate(value):
            if not isinstance(item, str):
                raise self.error(f"{key}[{i}]", f"must be a string, got {item!r}")
            if allowed is not None and item not in allowed:
                raise self.error(key, f"unknown value {item!r}; allowed: {', '.join(allowed)}")
        return tuple(value)

    def flags(self, key, case_dir: Path | None, default=...) -> tuple[str, ...]:
        """Compiler flags: refused, naming the option, when one would make the compiler run a
        program, write outside the item or read outside the case (path_options.py); the
        case's own data files an option reads are given as absolute paths."""
        value = self.str_list(key, default)
        if value is default and default is not ...:
            return default
        refused = path_options.refusals(value, case_dir)
        if refused:
            raise self.error(key, "; ".join(refused))
        return path_options.resolved(value, case_dir) if case_dir is not None else value

    def specifier(self, key) -> SpecifierSet:
        text = self.get(key, str, "")
        try:
            return SpecifierSet(text)
        except InvalidSpecifier:
            raise self.error(key, f"not a version range: {text!r} (e.g. '>=3.4,<3.6')") from None

    def version(self, key) -> str | None:
        text = self.get(key, str, None)
        if text is not None:
            try:
                Version(text)
            except InvalidVersion:
                raise self.error(key, f"not a release version: {text!r}") from None
        return text

    def file(self, key, case_dir: Path, default=..., within: Path | None = None) -> Path | None:
        """A file the case names: it must resolve (symlinks too) inside the case's own
        directory (or `within`): a case never reads anything outside itself."""
        name = self.get(key, str, default)
        if name is None or name is default and default is not ...:
            return default
        path = case_dir / name
        root = (within or case_dir).resolve()
        if not path.resolve().is_relative_to(root):
            raise self.error(key, f"names {name!r}, which is outside {root}")
        if not path.is_file():
            raise self.error(key, f"names {name!r}, which does not exist in {case_dir}")
        return path

    def sub(self, key, index=None) -> "_Reader":
        table = self.table[key] if index is None else self.table[key][index]
        where = f"{self.where}.{key}" if self.where else key
        if index is not None:
            where += f"[{index}]"
        if not isinstance(table, dict):
            raise self.error(key, f"must be a table, got {type(table).__name__}")
        return _Reader(self.manifest, table, where)

    def subs(self, key) -> list["_Reader"]:
        items = self.get(key, list, [])
        return [self.sub(key, i) for i in range(len(items))]

    def reject_unknown(self, known: set[str]):
        for key in self.table:
            if key not in known:
                raise self.error(key, f"unknown field (known: {', '.join(sorted(known))})")


def _tuple(types):
    return types if isinstance(types, tuple) else (types,)


def _outcome(reader: _Reader, key: str, text: str | None = None) -> str:
    text = reader.get(key, str, required=True) if text is None else text
    try:
        parse_stage_outcome(text)
    except ValueError as e:
        raise reader.error(key, str(e)) from None
    return text


def _regex(reader: _Reader, key: str) -> re.Pattern | None:
    pattern = reader.get(key, str, None)
    try:
        return re.compile(pattern) if pattern else None
    except re.error as err:
        raise reader.error(key, f"not a valid regex: {err}") from None


def _tolerance(reader: _Reader, key: str, default: float) -> float:
    value = float(reader.get(key, (int, float), default))
    if not math.isfinite(value) or value < 0:
        raise reader.error(key, f"must be a finite number >= 0, got {value!r}")
    return value


def read_expectations(top: _Reader, ir_names: list[str] = (), extra: set[str] = frozenset(),
                      differ_names: list[str] = ()) -> tuple[Expectation, ...]:
    """The [[expect]] tables of `top` (a case.toml, or a sweep spec whose entries also
    hold the `extra` keys, read by the caller)."""
    expectations = []
    for e in top.subs("expect"):
        e.reject_unknown({"targets", "opt_levels", "ir", "differ", "compiler", "outcome", "match", "reason",
                          "same_as", *extra})
        compiled = _regex(e, "match")
        ir = e.str_list("ir", None, allowed=ir_names) if "ir" in e.table else None
        differs = e.str_list("differ", None, allowed=differ_names) if "differ" in e.table else None
        expectations.append(Expectation(
            outcome=_outcome(e, "outcome"),
            reason=e.get("reason", str, required=True),
            targets=e.str_list("targets", None, allowed=TARGETS) if "targets" in e.table else None,
            opt_levels=e.str_list("opt_levels", None, allowed=OPT_LEVELS) if "opt_levels" in e.table else None,
            ir_checks=ir, compiler=e.specifier("compiler"), match=compiled, same_as=_same_as(e),
            differs=differs))
    return tuple(expectations)


def _one_or_many(r: _Reader, key: str) -> tuple[str, ...]:
    """A field that holds one string or a list of them."""
    raw = r.table.get(key, [])
    return (raw,) if isinstance(raw, str) else tuple(r.str_list(key, ()))


def _outcomes(r: _Reader, key: str) -> tuple[str, ...]:
    """An outcome or a list of them."""
    return tuple(_outcome(r, key, o) for o in _one_or_many(r, key))


def _same_as(e: _Reader) -> tuple[str, ...]:
    """same_as: a case slug or a list of them."""
    slugs = _one_or_many(e, "same_as")
    for slug in slugs:
        if not SLUG.fullmatch(slug):
            raise e.error("same_as", f"{slug!r} is not a case slug")
    return slugs


def _sample(w: _Reader) -> Sample | None:
    if "sample" not in w.table:
        return None
    s = w.sub("sample")
    s.reject_unknown({"outcome", "item", "release", "text"})
    return Sample(_outcome(s, "outcome"), s.get("item", str, required=True),
                  s.get("release", str, required=True), s.get("text", str, required=True))


def _history(top: _Reader, data: dict) -> History:
    hist = top.sub("history") if "history" in data else _Reader(top.manifest, {}, "history")
    hist.reject_unknown({"status", "bad_outcome", "bad_items", "bad_match", "measured", "window", "same_as",
                         "reason"})
    windows = []
    for w in hist.subs("window"):
        w.reject_unknown({"last_good", "hidden_before", "hidden_by", "first_bad", "last_bad", "first_good",
                          "sample", "bad_outcome", "bad_match", "hidden_after", "hidden_after_by", "issue",
                          "hidden_items"})
        issue = w.get("issue", str, "")
        if issue and not ISSUE_REF.fullmatch(issue):
            raise w.error("issue", f"{issue!r} is not owner/repo#N")
        first_bad, last_bad = w.version("first_bad"), w.version("last_bad")
        if first_bad is None or last_bad is None:
            raise w.error("first_bad" if first_bad is None else "last_bad", "is required but missing")
        window = Window(first_bad, last_bad, w.version("last_good"), w.version("first_good"),
                        w.version("hidden_before"), w.get("hidden_by", str, ""), _sample(w),
                        _outcomes(w, "bad_outcome"), _regex(w, "bad_match"),
                        w.version("hidden_after"), w.get("hidden_after_by", str, ""), issue,
                        tuple(w.str_list("hidden_items", ())))
        for at, why in (("hidden_before", "hidden_by"), ("hidden_after", "hidden_after_by")):
            if w.version(at) and not w.get(why, str, "").strip():
                raise w.error(why, f"is required with {at}: say what hides the bug there")
        edges = [(k, Version(v)) for k, v in (("last_good", window.last_good), ("hidden", window.hidden_before),
                 ("first_bad", first_bad), ("last_bad", last_bad), ("hidden_after", window.hidden_after),
                 ("first_good", window.first_good)) if v]
        # Every step rises strictly, except that first_bad may be last_bad.
        if any(b < a or (b == a and (k, l) != ("first_bad", "last_bad"))
               for (k, a), (l, b) in zip(edges, edges[1:])):
            raise w.error("first_bad", "releases must rise: last_good < hidden_before < first_bad "
                                       "<= last_bad < hidden_after < first_good")
        if windows and Version(windows[-1].last_bad) >= Version(first_bad):
            raise w.error("first_bad", "windows must be in release order and not overlap")
        windows.append(window)
    outcomes = _outcomes(hist, "bad_outcome")
    for j, w in enumerate(windows):
        if not set(w.bad_outcomes) <= set(outcomes):
            raise hist.error("bad_outcome", f"must list every window's outcome (window[{j}]: "
                                            f"{', '.join(w.bad_outcomes)})")
    if windows and not outcomes:
        raise hist.error("bad_outcome", "a case with windows must say what the bug's outcome is")
    derived = ("open" if windows[-1].first_good is None else "fixed") if windows else None
    status = hist.get("status", str, derived or "unknown")
    if status not in HISTORY_STATUSES:
        raise hist.error("status", f"unknown status {status!r}; allowed: {', '.join(HISTORY_STATUSES)}")
    if derived and status != derived:
        raise hist.error("status", f"is {status!r} but the windows say {derived!r}")
    if not derived and status in ("fixed", "open"):
        raise hist.error("window", f"status {status!r} needs at least one [[history.window]]")
    return History(status, tuple(windows), outcomes, hist.str_list("bad_items", ()),
                   _regex(hist, "bad_match"), hist.get("measured", str, ""), _same_as(hist),
                   hist.get("reason", str, "").strip())


def load_case(manifest: Path, require_golden: bool = True) -> Case:
    """Read and validate a case. `require_golden=False` is for the command that writes
    the golden files, which must accept a case that has none yet."""
    # Absolute: a torch job or a pasted reproducer runs from another folder.
    manifest = Path(manifest).resolve()
    case_dir = manifest.parent
    try:
        data = tomllib.loads(manifest.read_text())
    except tomllib.TOMLDecodeError as e:
        raise CaseError(f"{manifest}: not valid TOML: {e}") from None
    if not SLUG.fullmatch(case_dir.name):
        raise CaseError(f"{manifest}: the case directory name {case_dir.name!r} is not a slug "
                        "(lower-case letters, digits and '-', starting with a letter or digit)")
    return case_from_table(data, manifest, case_dir, case_dir.name, require_golden)


def case_from_table(data: dict, manifest: Path, case_dir: Path, slug: str,
                    require_golden: bool = True) -> Case:
    """A case from its table: case.toml's, or one a sweep made for a variant (errors then
    name `manifest`, the sweep's file). Files it names resolve inside `case_dir`."""
    top = _Reader(manifest, data)
    top.reject_unknown({"title", "kind", "issues", "prs", "family", "found_by", "source", "matrix",
                        "compare", "ir", "differ", "expect", "history"})

    title = top.get("title", str, required=True)
    kind = top.get("kind", str, required=True)
    if kind not in KINDS:
        raise top.error("kind", f"unknown kind {kind!r}; allowed: {', '.join(KINDS)}")
    issues = top.str_list("issues")
    found_by = top.get("found_by", str, "")
    prs = top.str_list("prs", ())
    if not issues and not prs and not found_by:
        raise top.error("issues", "must name at least one upstream issue (or the PR that reported "
                                  "and fixed it, in prs; or the case says found_by, for a bug "
                                  "this suite found itself)")
    for key, refs in (("issues", issues), ("prs", prs)):
        for ref in refs:
            if not ISSUE_REF.fullmatch(ref):
                raise top.error(key, f"{ref!r} is not of the form owner/repo#123")
    family = top.get("family", str, "other")
    if family not in FAMILIES:
        raise top.error("family", f"unknown family {family!r}; allowed: {', '.join(FAMILIES)}")

    source = top.sub("source") if "source" in data else None
    if source is None:
        raise top.error("source", "is required but missing")
    source.reject_unknown({"torch", "mlir", "function", "reference", "variant", "dynamic_shapes", "frontend"})
    # A torch model may be shared between the shape forms of one program (cases/<other>/).
    torch_model = source.file("torch", case_dir, None, within=case_dir.parent)
    mlir = source.file("mlir", case_dir, None)
    if (torch_model is None) == (mlir is None) and kind != "ir":
        raise source.error("torch", "give exactly one of 'torch' and 'mlir'")
    reference = source.file("reference", case_dir, None)
    if mlir is not None and kind == "numeric" and reference is None:
        default_ref = case_dir / "reference.py"
        if not default_ref.is_file():
            raise source.error("reference", "an mlir numeric case needs reference.py "
                                            "(example_inputs() and reference())")
        reference = default_ref
    variants = []
    for v in source.subs("variant"):
        v.reject_unknown({"compiler", "mlir"})
        variants.append(Variant(v.specifier("compiler"), v.file("mlir", case_dir)))
    function = source.get("function", str, "main")
    # Which function of model.py gives the export's dynamic_shapes: lets cases share one
    # model in several shape forms (all static, all dynamic, mixed).
    dynamic_shapes = source.get("dynamic_shapes", str, "dynamic_shapes")
    # How the PyTorch program reaches IREE: iree-turbine's export, or through ONNX
    # (harness/frontends.py: through ONNX, ONNX Runtime is then the reference).
    frontend = source.get("frontend", str, "torch")
    if frontend not in FRONTENDS:
        raise source.error("frontend", f"unknown frontend {frontend!r}; allowed: {', '.join(FRONTENDS)}")
    if frontend != "torch" and torch_model is None:
        raise source.error("frontend", f"frontend {frontend!r} reads a PyTorch program: give 'torch'")

    matrix = top.sub("matrix") if "matrix" in data else _Reader(manifest, {}, "matrix")
    matrix.reject_unknown({"targets", "opt_levels", "flags", "target_flags"})
    targets = matrix.str_list("targets", DEFAULT_TARGETS, allowed=TARGETS)
    opt_levels = matrix.str_list("opt_levels", OPT_LEVELS, allowed=OPT_LEVELS)
    flags = matrix.flags("flags", case_dir, ())
    target_flags = {}
    if "target_flags" in matrix.table:
        tf = matrix.sub("target_flags")
        for t in tf.table:
            if t not in TARGETS:
                raise tf.error(t, f"unknown target {t!r}; allowed: {', '.join(TARGETS)}")
            target_flags[t] = tf.flags(t, case_dir)

    compare = top.sub("compare") if "compare" in data else _Reader(manifest, {}, "compare")
    compare.reject_unknown({"atol", "rtol", "tolerance_reason", "output", "spread"})
    atol, rtol = _tolerance(compare, "atol", 1e-5), _tolerance(compare, "rtol", 1e-5)
    tolerance_reason = compare.get("tolerance_reason", str, "")
    spread = compare.get("spread", bool, False)
    rules = []
    for r in compare.subs("output"):
        r.reject_unknown({"index", "mode", "input", "axis"})
        mode = r.get("mode", str, "values")
        if mode not in COMPARE_MODES:
            raise r.error("mode", f"unknown mode {mode!r}; allowed: {', '.join(COMPARE_MODES)}")
        rule = OutputRule(r.get("index", int, required=True), mode, r.get("input", int, None),
                          r.get("axis", int, -1))
        if mode == "indices" and rule.input is None:
            raise r.error("input", "mode 'indices' needs the index of the input it indexes")
        rules.append(rule)

    ir_checks = []
    for c in top.subs("ir"):
        c.reject_unknown({"name", "tool", "input", "args", "checks", "check_prefix", "compiler"})
        tool = c.get("tool", str, "iree-opt")
        if tool not in IR_TOOLS:
            raise c.error("tool", f"unknown tool {tool!r}; allowed: {', '.join(IR_TOOLS)}")
        ir_input = c.file("input", case_dir, None) or mlir
        if ir_input is None:
            raise c.error("input", "is required when the case has no model.mlir")
        ir_checks.append(IrCheck(c.get("name", str, required=True), tool, ir_input,
                                 c.flags("args", case_dir, ()), c.file("checks", case_dir),
                                 c.get("check_prefix", str, "CHECK"), c.specifier("compiler")))
    names = [c.name for c in ir_checks]
    if len(set(names)) != len(names):
        raise top.error("ir", f"check names must be unique, got {names}")
    if kind == "ir" and not ir_checks:
        raise top.error("ir", "an 'ir' case needs at least one [[ir]] check")

    differs = read_differs(top, kind, case_dir, targets, opt_levels)
    expectations = read_expectations(top, names, differ_names=[d.name for d in differs])

    history = _history(top, data)

    if kind == "numeric" and require_golden:
        # Inputs may be none (a program with no arguments); outputs may not.
        if not any((case_dir / "expected").glob("*.npy")):
            raise top.error("source", f"numeric case has no golden outputs in {case_dir / 'expected'}: "
                                      f"run `iree-regress golden {slug}`")

    return Case(slug=slug, dir=case_dir, manifest=manifest, title=title, kind=kind,
                issues=issues, prs=prs, family=family, found_by=found_by, torch_model=torch_model, mlir=mlir,
                variants=tuple(variants), reference=reference, function=function,
                dynamic_shapes=dynamic_shapes, frontend=frontend,
                targets=targets, opt_levels=opt_levels, flags=flags, target_flags=target_flags,
                atol=atol, rtol=rtol, tolerance_reason=tolerance_reason, output_rules=tuple(rules), spread=spread,
                ir_checks=tuple(ir_checks),
                expectations=tuple(expectations), history=history, raw=data, differs=differs)


def read_differs(top: _Reader, kind: str, case_dir: Path, targets, opt_levels) -> tuple[Differ, ...]:
    """[[differ]]: name, target/opt_level for both sides (defaults: the matrix's first),
    a and b tables overriding them and adding flags, outputs (required without a golden),
    atol/rtol. The two sides must differ."""
    differs = []
    for d in top.subs("differ"):
        d.reject_unknown({"name", "target", "opt_level", "a", "b", "outputs", "atol", "rtol"})
        name = d.get("name", str, required=True)
        if not SLUG.fullmatch(name):
            raise d.error("name", f"{name!r} is not lower-case letters, digits and '-'")
        if kind not in ("numeric", "run"):
            raise d.error("name", f"a differential item runs the module: kind {kind!r} never does")
        target = d.get("target", str, targets[0])
        level = d.get("opt_level", str, opt_levels[0])
        sides = []
        for key in ("a", "b"):
            s = d.sub(key) if key in d.table else _Reader(d.manifest, {}, f"{d.where}.{key}")
            s.reject_unknown({"target", "opt_level", "flags"})
            side = Side(s.get("target", str, target), s.get("opt_level", str, level), s.flags("flags", case_dir, ()))
            if side.target not in TARGETS:
                raise s.error("target", f"unknown target {side.target!r}; allowed: {', '.join(TARGETS)}")
            if side.opt_level not in OPT_LEVELS:
                raise s.error("opt_level", f"unknown level {side.opt_level!r}; allowed: {', '.join(OPT_LEVELS)}")
            sides.append(side)
        if sides[0] == sides[1]:
            raise d.error("b", "the two sides compile the same way: give them different targets, levels or flags")
        outputs = d.get("outputs", int, None)  # None: as many as the golden holds
        if (outputs is None and kind != "numeric") or (outputs is not None and outputs < 1):
            raise d.error("outputs", "how many results the function returns: required when the case has no golden")
        differs.append(Differ(name, *sides, outputs, _tolerance(d, "atol", 0.0), _tolerance(d, "rtol", 0.0)))
    names = [d.name for d in differs]
    if len(set(names)) != len(names):
        raise top.error("differ", f"names must be unique, got {names}")
    return tuple(differs)


def discover(root: Path = CASES_DIR) -> list[Path]:
    """Every case.toml under root, sorted."""
    return sorted(Path(root).glob("*/case.toml"))


def find_case(slug_or_path: str, require_golden: bool = True) -> Case:
    """A case by slug (cases/<slug>), directory, or case.toml path."""
    p = Path(slug_or_path)
    if p.name == "case.toml":
        p = p.parent
    if not (p / "case.toml").is_file():
        p = CASES_DIR / slug_or_path
    if not (p / "case.toml").is_file():
        raise CaseError(f"no case {slug_or_path!r} (looked for {p / 'case.toml'})")
    return load_case(p / "case.toml", require_golden)
