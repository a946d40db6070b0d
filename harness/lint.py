"""`iree-regress lint [SLUG...]`: expectations and history precise enough to trust.

A broad expectation hides new failures: an [[expect]] without a `match` turns any
failure with the same outcome into a green XFAIL, and a `match` that other cases'
failures also match ("failed to run translation") is no better. Each problem names
the file and the field:

  expect[i].match        missing, or it also matches another case's failure: one
                         stored in that case's windows (`sample`, what its bug printed:
                         always checked, no results needed), or one in the latest results
                         (a generic message). `same_as` names cases whose failure is the
                         entry's own.
  expect[i].compiler     missing: an expectation is scoped to the releases measured
  expect[i].targets      missing (a matrix expectation names its targets or ir checks)
  expect[i]              contradicts a [history] window (expects the bug where the
                         window says it does not show, or another outcome where it does)
  history.bad_match      missing: the bug's own message is what prove/bisect look for;
                         or it matches another case's stored failure (generic)
  history.window[j].sample  what the bug printed, and the bug's own bad_match does not
                         match it
  expect[i].match,       accepts any text: it matches the empty string, or is a bare
  history.bad_match      outcome or status word ("fail", "error:", "crashed")
  history.window[j]      no [[expect]] covers the bug on a release the window says is bad
  compare.atol / rtol    above LOOSE_TOLERANCE without compare.tolerance_reason
  (load errors)          anything case.py rejects: paths leaving the case, negative or
                         NaN tolerances, malformed fields
"""

from __future__ import annotations
import re

from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

from .bug import Bug
from .case import CASES_DIR, LOOSE_TOLERANCE, Case, CaseError, Expectation, Sample, discover, load_case
from .item import ItemId, bug_items
from .outcomes import FAILING_STATUSES, NUMBERS_OUTCOMES, STAGES
from .targets import LEVELS_ARRIVE, OPT_LEVELS, no_levels, opt_level_supported
from .history.releases import PYPI_RELEASES
from .history.message import signal_only
from .toolchain import release_of
from .record import ItemRecord
from .signatures import normalise, signature_of
from .sweep.spec import load_sweep, sweeps_by_name


# A claim nothing at hand can check (no stored sample takes it, no results of the case it
# names): said, never passed as checked, and not a problem (give --results to check it).
UNCHECKED = "unchecked: "


@dataclass(frozen=True)
class Problem:
    manifest: Path
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.manifest}: field '{self.field}': {self.message}"

    @property
    def unchecked(self) -> bool:
        return self.message.startswith(UNCHECKED)


@dataclass(frozen=True)
class StoredFailure:
    """What one case's bug printed (a window's sample): the messages no other case's
    match may take for its own bug."""
    case: str
    window: int
    sample: Sample

    def __str__(self) -> str:
        return (f"case {self.case}'s stored failure (window {self.window}, {self.sample.item} on "
                f"{self.sample.release}: {self.sample.text.splitlines()[0][:120]!r})")


def stored_failures(cases_dir: Path = CASES_DIR) -> list[StoredFailure]:
    """Every case's window samples (a case that does not load is lint_case's to say)."""
    found = []
    for manifest in discover(cases_dir):
        try:
            case = load_case(manifest, require_golden=False)
        except CaseError:
            continue
        found += [StoredFailure(case.slug, j, w.sample) for j, w in enumerate(case.history.windows) if w.sample]
    return found


def _generic_against(match, outcomes, targets, own: set[str], stored: list[StoredFailure]):
    """The first other case's stored failure this match would take for its own bug."""
    for s in stored:
        # a crash that printed its signal alone makes no match generic: what tells such
        # bugs apart is each entry's scope (its items and releases)
        if s.case in own or s.sample.outcome not in outcomes or signal_only(s.sample.text):
            continue
        item = ItemId.parse(s.sample.item)
        if targets is not None and item.is_matrix and item.target not in targets:
            continue
        if match.search(s.sample.text):
            return s
    return None


def lint_case(manifest: Path, failures: list[ItemRecord],
              same_as: dict[str, set[str]] | None = None,
              stored: list[StoredFailure] = ()) -> list[Problem]:
    """failures: failing items of the latest results (any case); used to find generic
    matches. same_as: item key -> the cases a sweep declares that item's failure to be
    the same as (declared_same_as): those are this case's bug, not another one.
    stored: every case's stored failures (stored_failures()), tested whatever the results."""
    try:
        case = load_case(manifest)
    except CaseError as e:
        return [Problem(Path(manifest), "(load)", str(e))]
    problems = []
    where = case.manifest

    def problem(field: str, message: str):
        problems.append(Problem(where, field, message))

    problems += [Problem(where, f, m) for f, m in
                 _expectation_problems(case.expectations,
                                       lambda key, i: key.case == case.slug
                                       or key.case in case.expectations[i].same_as  # a claim checked below
                                       or case.slug in (same_as or {}).get(str(key), ())
                                       # both claim one case's bug (each claim checked where it is made)
                                       or bool(set(case.expectations[i].same_as) & set((same_as or {}).get(str(key), ()))),
                                       failures, case.kind == "ir")]
    problems += [Problem(where, f, m) for f, m in
                 _stored_problems(case.expectations, {case.slug}, stored)]
    problems += [Problem(where, f, m) for f, m in _reason_range_problems(case.expectations, case.history.measured)]
    taken = {i: [r for r in failures if r.case == case.slug and _applies(e, r) and e.takes(r.outcome, r.failure_text())]
             for i, e in enumerate(case.expectations)}
    problems += [Problem(where, f, m) for f, m in _same_as_problems(case.expectations, taken, case.dir.parent,
                                                                    failures)]

    for key, value in (("atol", case.atol), ("rtol", case.rtol)):
        if value > LOOSE_TOLERANCE and not case.tolerance_reason:
            problem(f"compare.{key}", f"{value:g} is above {LOOSE_TOLERANCE:g}: a loose tolerance "
                                      "hides wrong numbers; say why in compare.tolerance_reason")
    problems += [Problem(where, f, m) for f, m in _history_problems(case, stored)]
    for j, w in enumerate(case.history.windows[1:], 1):
        if not w.issue and not case.found_by:
            problem(f"history.window[{j}].issue", "a later window is another change's bug: credit it to its "
                                                  "issue (prove --scan --write --window-issue "
                                                  f"{j}=owner/repo#N), never to the first window's")
    if case.history.status == "unknown":
        problem("history", "nothing measured: a case proves its bug on releases (prove --scan --write), "
                           "or is a guard (status = \"guard\") that says why in reason")
    elif case.history.status == "guard" and not case.history.reason:
        problem("history.reason", "a guard says why it is one: the form it controls and what it was measured on")
    elif case.history.status == "unreproduced" and not case.history.reason:
        problem("history.reason", "an unreproduced case says what was measured: the releases and what they did")
    return problems


def _applies(e: Expectation, r: ItemRecord) -> bool:
    """Whether e decides r's verdict: its target, level and release (3.13.0rc... is 3.13.0)."""
    try:
        release = release_of(r.compiler) if r.compiler else None
    except InvalidVersion:
        release = None
    return release is None or e.applies_to(r.target, r.opt_level, r.ir_check, release, r.differ)


def _expectation_problems(expectations, own, failures: list[ItemRecord],
                          ir_only: bool = False) -> list[tuple[str, str]]:
    """(field, message) for each expectation too broad to trust; `own(ref, i)` says which
    failures are expectation i's own (its case's, or its sweep's variants')."""
    found = []
    for i, e in enumerate(expectations):
        f = f"expect[{i}]"
        if e.match is None:
            found.append((f"{f}.match", f"missing: an expectation of {e.outcome} without the bug's "
                                        "message turns any failure with that outcome into a known bug"))
        elif accepts_anything(e.match):
            found.append((f"{f}.match", f"/{e.match.pattern}/ {accepts_anything(e.match)}: it would take any "
                                        f"{e.outcome} for the known bug"))
        else:
            # Another bug's failure it would take for this one: where it applies (target,
            # level, release), unless that failure is the entry's own.
            other = next((r for r in failures if not own(r.ref, i) and _applies(e, r)
                          and e.takes(r.outcome, r.failure_text())), None)  # what it would take
            if other is not None:
                found.append((f"{f}.match", f"/{e.match.pattern}/ is generic: it also matches "
                                            f"{other.key} ({other.outcome}) in the latest results"))
        if not str(e.compiler):
            found.append((f"{f}.compiler", "missing: scope the expectation to the releases measured"))
        if e.targets is None and e.ir_checks is None and e.differs is None and not ir_only:
            found.append((f"{f}.targets", "missing: name the targets (or ir checks, or differential items) measured"))
    return found


_MEASURED = re.compile(r"\bmeasured\b")
_RANGE = re.compile(r"(\d+\.\d+\.\d+) ?\.\. ?(\d+\.\d+\.\d+)")


def _reason_range_problems(expectations, measured: str = "") -> list[tuple[str, str]]:
    """(field, message) for each entry whose reason says "measured A..B" (the ranges of that
    clause, up to its ';', taken together) where the releases it covers (of those measured)
    run from other ones: the text and the scope disagree."""
    # Without a `measured` list of its own, a reason's "measured A..B" ranges over PyPI's.
    releases = measured.split() or PYPI_RELEASES
    found = []
    for i, e in enumerate(expectations):
        said = _MEASURED.search(e.reason or "")
        ranges = _RANGE.findall(e.reason[said.start():].split(";")[0]) if said else []
        covered = [r for r in releases if Version(r) in e.compiler]
        if not ranges or not covered:
            continue
        span = (min((a for a, _ in ranges), key=Version), max((b for _, b in ranges), key=Version))
        if (covered[0], covered[-1]) != span:
            found.append((f"expect[{i}].reason", f"says measured {span[0]}..{span[1]}, but the entry covers "
                                                 f"{covered[0]}..{covered[-1]} (compiler {e.compiler})"))
    return found


def _stored_problems(expectations, own: set[str], stored: list[StoredFailure]) -> list[tuple[str, str]]:
    """(field, message) for each expectation whose match takes another case's stored
    failure (own: the cases whose failures are its own; plus each entry's same_as)."""
    found = []
    for i, e in enumerate(expectations):
        if e.match is None or accepts_anything(e.match):
            continue  # said by _expectation_problems
        other = _generic_against(e.match, {e.outcome}, e.targets, own | set(e.same_as), stored)
        if other is not None:
            found.append((f"expect[{i}].match", f"/{e.match.pattern}/ is generic: it also matches {other} "
                                                "(name that case in same_as if it is the same bug)"))
    return found


def _same_as_problems(expectations, taken: dict[int, list[ItemRecord]], cases_dir: Path = CASES_DIR,
                      failures: list[ItemRecord] = ()) -> list[tuple[str, str]]:
    """`same_as = X` says the failure is case X's: a claim, checked. It holds when X has a
    failure of the expectation's outcome and either
      - the expectation's match takes one of X's stored bug samples, or a failure it took
        (`taken`) has the same outcome and signature as one (not for wrong numbers, whose
        signature, the outputs that differ, is every such failure's); or
      - X's own [[expect]] entries describe a failure of that outcome and, in the latest
        results (`failures`), the match takes a failure of X's with that outcome (measured
        agreement; with no result of X's, its own expectation of that outcome is what there is)."""
    found = []
    for i, e in enumerate(expectations):
        for slug in e.same_as:
            field_name = f"expect[{i}].same_as"
            try:
                case = load_case(cases_dir / slug / "case.toml", require_golden=False)
            except (CaseError, OSError):
                found.append((field_name, f"no case {slug!r} in {cases_dir}"))
                continue
            h = case.history
            bug = set(h.bad_outcomes) | {o for w in h.windows for o in w.bad_outcomes}
            samples = [w.sample for w in h.windows if w.sample and w.sample.outcome == e.outcome]
            if e.match is not None and any(e.match.search(s.text) for s in samples):
                continue
            if any(r.outcome not in NUMBERS_OUTCOMES and (r.outcome, signature_of(r)) == (s.outcome, normalise(s.text))
                   for r in taken.get(i, ()) for s in samples):
                continue
            if any(x.outcome == e.outcome for x in case.expectations) and e.match is not None:
                measured = [r for r in failures if r.case == slug and r.outcome == e.outcome]
                if any(e.match.search(r.failure_text()) for r in measured):
                    continue
                if not measured:
                    found.append((field_name, f"{UNCHECKED}names {slug}: no stored sample of {slug}'s takes "
                                              f"the match, and no {e.outcome} of {slug}'s is in the results to "
                                              "check it against (lint --results RUN)"))
                    continue
            if e.outcome not in bug and not any(x.outcome == e.outcome for x in case.expectations):
                found.append((field_name, f"names {slug}, whose failures are {', '.join(sorted(bug)) or 'not recorded'}; "
                                          f"this expectation is {e.outcome}: not the same failure"))
            else:
                found.append((field_name, f"names {slug}, but its match takes none of {slug}'s stored bug samples"
                                          + (f" ({samples[0].text.splitlines()[0][:120]!r})" if samples else "")
                                          + f" nor its measured {e.outcome} failures: a resemblance is said in "
                                            "reason, not in same_as"))
    return found


def lint_sweep(path: Path, failures: list[ItemRecord], stored: list[StoredFailure] = (),
               same_as: dict[str, set[str]] | None = None,
               matches: dict[str, set[tuple[str, str]]] | None = None) -> list[Problem]:
    """A sweep spec: it loads (axes, exclusions, builder), and its expectations are as
    precise as a case's: each with the bug's message, releases and targets. same_as (as
    lint_case's): another sweep's item declared the same case's bug as an entry's own
    same_as is that entry's own too (both claims checked, each in its sweep); so is one its
    own sweep's entry takes with the very outcome and match of this entry (`matches`)."""
    try:
        sweep = load_sweep(path)
    except CaseError as e:
        return [Problem(Path(path), "(load)", str(e))]
    mine = f"{sweep.name}::"
    parsed = sweep.parsed_expectations()

    def own(key, i) -> bool:
        e = parsed[i]
        return (key.case.startswith(mine) or key.case in e.same_as
                or bool(set(e.same_as) & (same_as or {}).get(str(key), set()))
                or (e.match is not None and (e.outcome, e.match.pattern) in (matches or {}).get(str(key), set())))

    problems = [Problem(sweep.path, f, m) for f, m in _expectation_problems(parsed, own, failures)]
    problems += [Problem(sweep.path, f, m) for f, m in _stored_problems(parsed, set(), stored)]
    taken = {i: [r for r in failures if r.case.startswith(mine) and _applies(e, r)
                 and e.takes(r.outcome, r.failure_text())] for i, e in enumerate(parsed)}
    problems += [Problem(sweep.path, f, m) for f, m in _same_as_problems(parsed, taken, failures=failures)]
    for i, (where, ids, _) in enumerate(sweep.expectations):
        if not where and not ids:
            problems.append(Problem(sweep.path, f"expect[{i}].where", "missing: name the variants "
                                    "measured (where = {axis = [values]} or variants = [ids]); a "
                                    "sweep-wide expectation hides the family"))
    return problems


def lint_explained(path: Path | None = None, failures: list[ItemRecord] = ()) -> list[Problem]:
    """The scan's table of explained failures: it loads, each match says something, and a
    `case` it names is checked as a same_as is, against the results where given."""
    from .sweep.explained import EXPLAINED, load_explained

    path = path or EXPLAINED
    try:
        entries = load_explained(path)
    except CaseError as e:
        return [Problem(path, "(load)", str(e))]
    problems = [Problem(path, f"explain[{i}].match", f"/{x.match.pattern}/ {accepts_anything(x.match)}")
                for i, x in enumerate(entries) if accepts_anything(x.match)]
    problems += [Problem(path, f.replace("expect[", "explain[").replace(".same_as", ".case"), m)
                 for f, m in _same_as_problems(entries, {}, failures=failures)]
    return problems


# Words every failure of an outcome carries: a match made of one says nothing of the bug.
_GENERIC_WORDS = {*STAGES, *FAILING_STATUSES, "error", "error:", "crashed", "crash", "exit code", "failed",
                  "elements differ", "signal", "sigsegv", "sigabrt"}


def accepts_anything(match) -> str:
    """Why a match cannot tell one bug from another ('' when it can)."""
    if match.search(""):
        return "matches the empty string"
    if match.pattern.strip().lower() in _GENERIC_WORDS or match.pattern.lower() in {
            o for stage in STAGES for o in (f"{stage}-{s}" for s in FAILING_STATUSES)}:
        return "is a bare outcome or status word"
    return ""


def _history_problems(case: Case, stored: list[StoredFailure] = ()) -> list[tuple[str, str]]:
    h = case.history
    if not h.windows:
        return []
    found = []
    bug = Bug.of(case)
    items = bug_items(case)
    # only where prove and bisect look: the targets of the bug's items
    targets = {i.target for i in items if i.is_matrix} or None
    # Each message that says what the bug is: [history]'s, and each window's own.
    messages = [("history.bad_match", h.bad_match, h.bad_outcomes)] + [
        (f"history.window[{j}].bad_match", w.bad_match, w.bad_outcomes or h.bad_outcomes)
        for j, w in enumerate(h.windows) if w.bad_match is not None]
    if h.bad_match is None and any(w.bad_match is None for w in h.windows):
        found.append(("history.bad_match", "missing: record the bug's own message (prove --scan "
                                           "--write measures it), here or in each window"))
    for field, match, outcomes in messages:
        if match is None:
            continue
        if accepts_anything(match):
            found.append((field, f"/{match.pattern}/ {accepts_anything(match)}: prove "
                                 "and bisect would take any failure for the bug"))
            continue
        other = _generic_against(match, set(outcomes), targets, {case.slug, *h.same_as}, stored)
        if other is not None:
            found.append((field, f"/{match.pattern}/ is generic: it also matches "
                                 f"{other}; prove and bisect would take it for this bug"))

    def expectation(item: ItemId, release: str) -> Expectation | None:
        return item.expectation(case, Version(release))

    for j, w in enumerate(h.windows):
        if (w.last_good and w.first_bad == str(LEVELS_ARRIVE) and not opt_level_supported(w.last_good)
                and not any({f"{t}-{o}" for o in OPT_LEVELS} <= set(h.bad_items) for t in targets or ())):
            found.append((f"history.window[{j}].last_good", f"{w.last_good} < {w.first_bad} is the arrival of "
                                                            f"levels, not the bug's onset ({no_levels(w.last_good)}) "
                                                            f"and not every level shows the bug: prove --scan --write"))
        d = bug.definition(Version(w.first_bad))
        if w.sample and d.match and not (w.sample.outcome in d.outcomes and d.match.search(w.sample.text)):
            found.append((f"history.window[{j}].sample", f"the bug ({w.sample.outcome}) as it printed on "
                                                         f"{w.sample.release} is not what this window's "
                                                         "bad_outcome / bad_match say the bug is"))
        for release in dict.fromkeys((w.first_bad, w.last_bad)):
            expected = [(i, expectation(i, release)) for i in items]
            for item, e in expected:
                if e is not None and e.outcome not in d.outcomes and item.name not in w.hidden_items:
                    found.append((f"expect[{case.expectations.index(e)}]",
                                  f"expects {e.outcome} on {item} at {release}, but history.window[{j}] "
                                  f"says the bug ({d.description}) shows there"))
            if not any(e is not None and d.expected_by(e.outcome, e.match) for _, e in expected):
                found.append((f"history.window[{j}]", f"says the bug shows on {release}, but no "
                                                      f"[[expect]] expects {d.description} there"))
        for release in (w.last_good, w.first_good):
            if release is None:
                continue
            for item in items:
                e = expectation(item, release)
                if e is not None and bug.expected_by(e.outcome, e.match):
                    found.append((f"expect[{case.expectations.index(e)}]",
                                  f"expects the bug on {item} at {release}, where history.window[{j}] "
                                  "says it does not show"))
                    break
    return found


def declared_same_as(failures: list[ItemRecord]) -> dict[str, set[str]]:
    """For each sweep item's failure, the cases whose failure its own expectation says it
    is (`same_as`), where that expectation takes it (release, target, outcome, match)."""
    return {key: cases for key, (cases, _) in _declared(failures).items()}


def declared_matches(failures: list[ItemRecord]) -> dict[str, set[tuple[str, str]]]:
    """For each sweep item's failure, the (outcome, match) of each of its own sweep's
    expectations that takes it: another sweep's entry with that very outcome and match
    makes the same claim (a grid and the grid under flags; one bug's entries in two
    sweeps), each checked in its own sweep."""
    return {key: matches for key, (_, matches) in _declared(failures).items()}


def _declared(failures: list[ItemRecord]) -> dict[str, tuple[set[str], set[tuple[str, str]]]]:
    """Per failing sweep item, what its own sweep's expectations that take it say: the
    cases they name (same_as), and their (outcome, match pattern)."""
    try:
        sweeps = sweeps_by_name()
    except CaseError:  # a sweep that does not load is lint_sweep's to say
        sweeps = {}
    points = {name: {v.id: v.values() for v in sweep.variants()} for name, sweep in sweeps.items()}
    parsed = {name: sweep.parsed_expectations() for name, sweep in sweeps.items()}
    out: dict[str, tuple[set[str], set[tuple[str, str]]]] = {}
    loaded: dict[str, object] = {}  # slug -> its case (None: it does not load)
    for r in failures:
        name, sep, variant_id = r.case.partition("::")
        if not sep:  # a case's item: what its own deciding expectation claims, as a sweep's
            _declare_case_item(r, loaded, out)
            continue
        point = points.get(name, {}).get(variant_id)
        if point is None:
            continue
        for i in sweeps[name].about(point):
            e = parsed[name][i]
            if _applies(e, r) and e.takes(r.outcome, r.failure_text()):
                cases, matches = out.setdefault(r.key, (set(), set()))
                cases.update(e.same_as)
                if e.match is not None:
                    matches.add((e.outcome, e.match.pattern))
    return out


def _declare_case_item(r: ItemRecord, loaded: dict, out: dict) -> None:
    """A case's failing item: the case its deciding expectation names (same_as), where that
    expectation takes the failure; another case's entry is then as good as the claim."""
    if r.case not in loaded:
        try:
            loaded[r.case] = load_case(CASES_DIR / r.case / "case.toml", require_golden=False)
        except (CaseError, OSError):
            loaded[r.case] = None
    case = loaded[r.case]
    if case is None:
        return
    decides = next((e for e in case.expectations if _applies(e, r)), None)
    if decides is not None and decides.same_as and decides.takes(r.outcome, r.failure_text()):
        out.setdefault(r.key, (set(), set()))[0].update(decides.same_as)


def of_the_tree(failures: list[ItemRecord], known: set[str]) -> tuple[list[ItemRecord], list[ItemRecord]]:
    """The failures of the cases and sweeps `known` names, and the rest: a results file
    outlives a case deleted since (a probe of the same program), whose failure would
    read as another bug's that no entry of the tree could name in same_as."""
    kept = [r for r in failures if r.case.split("::", 1)[0] in known]
    return kept, [r for r in failures if r not in kept]


def latest_failures(results: Path | None) -> list[ItemRecord]:
    from .results import read_results

    if results is None or not Path(results).is_file():
        return []
    return [r for r in read_results(results)[1] if r.failure_text().strip()]
