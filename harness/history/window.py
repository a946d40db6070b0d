"""`iree-regress prove CASE --scan`: a case's items on every release, and the bug's windows.

The scan is the measurement a case README quotes: a table of release x item outcomes.
From it, `windows` reads where the bug (harness/bug.py) shows: each run of releases
that show it is a window, with its onset (the newest release before it where the items
pass, and the first that shows it; releases between that fail another way hide the
bug and are recorded as such, never as good) and its end (the last that does, and the first after
it where the items pass; none while the newest still shows it). A release that fails
some other way neither shows the bug nor ends a window. A bug fixed and later broken
again has two windows.

The bug's message, when the case records none, is measured too (message.py);
writeback.py writes the measurement into the case.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from packaging.version import Version

from ..bug import Bug
from ..case import Sample, Window
from ..item import ItemId
from ..outcomes import PASS_OUTCOME, PROBE_BAD, PROBE_GOOD, SKIP_OUTCOME

# Release states beyond a probe's: items that disagree, and a release that measured nothing.
NEITHER, UNKNOWN = "neither", "unknown"
from ..process import strip_paths
from ..targets import OPT_LEVELS, no_levels, opt_level_supported
from .message import derive_match, sample_of
from .prove import ReleaseRun


@dataclass(frozen=True)
class Hidden:
    """Another failure that hides the bug on releases inside a window's span (before its
    onset, or after it and before the fix): written as its own expectation."""
    scope: str  # a target, or "ir" / "differ" (ItemId.scope)
    outcome: str
    names: tuple[str, ...]  # levels, or ir check names
    versions: tuple[str, ...]
    match: str | None
    where: str  # "before" the onset | "after" the bug, before its fix | "inside" the window, on
                # some items while others show the bug


@dataclass(frozen=True)
class Measured:
    windows: tuple[Window, ...]
    items: tuple[str, ...]  # items seen showing the bug
    item_outcomes: dict  # item name -> [(release, outcome)] where it showed the bug
    match: str | None  # the message the bug showed (a regex)
    versions: tuple[str, ...]
    texts: tuple[str, ...] = ()  # failing texts of the results that showed the bug
    hidden: tuple[Hidden, ...] = ()  # what hid the bug inside its windows' spans
    scanned: tuple[str, ...] = ()  # every item the scan ran (its expectations are rewritten)

    @property
    def status(self) -> str:
        if not self.windows:
            return UNKNOWN
        return "open" if self.windows[-1].first_good is None else "fixed"


def outcome_table(runs: list[ReleaseRun], items: list[ItemId]) -> list[str]:
    names = [i.name for i in items]
    width = max([len(n) for n in names] + [8])
    head = "release".ljust(12) + " ".join(n.ljust(width) for n in names)
    lines = [head, "-" * len(head)]
    for run in runs:
        if run.error:
            lines.append(run.version.ljust(12) + run.error)
            continue
        by_name = {r.name: r for r in run.results}
        cells = []
        for item, n in zip(items, names):
            r = by_name.get(n)
            default = r is None and not opt_level_supported(run.version) and item.is_matrix
            if default:  # measured as the target's one compile (prove.items_on)
                r = next((x for x in run.results if x.target == item.target), None)
            text = "-" if r is None else r.outcome + ("*" if r.compile_only else "") + ("^" if default else "")
            cells.append(text.ljust(width))
        lines.append(run.version.ljust(12) + " ".join(cells))
    lines.append("(* = compile-only: no device for that target here; ^ = the release's one compile, "
                 "it has no --iree-opt-level)")
    return lines


def release_state(run: ReleaseRun, bug: Bug) -> str:
    """bad: some item shows the bug; good: every item passes; else neither. A release
    where no item applies (an IR check for other releases) is unknown: it measured nothing.
    Items blind to the bug (compile-only passes of a run-time bug) are left out, as skips:
    the cpu runs of a wrong-numbers bug decide, not the GPU compiles beside them."""
    ran = [r for r in run.results if r.outcome != SKIP_OUTCOME and not bug.blind_to(r)]
    if run.error or not ran:
        return UNKNOWN
    states = [bug.state(r).kind for r in ran]
    if PROBE_BAD in states:
        return PROBE_BAD
    if run.unmeasured:  # items it could not measure may hide the bug: never good
        return UNKNOWN
    return PROBE_GOOD if all(s == PROBE_GOOD for s in states) else NEITHER


def hidden_by(run: ReleaseRun, bug: Bug) -> str:
    """What a release that neither shows the bug nor passes printed instead: its first
    failing item's outcome and first line."""
    for r in run.results:
        state = bug.state(r)
        if r.outcome != SKIP_OUTCOME and state.kind not in (PROBE_BAD, PROBE_GOOD):
            line = next((l.strip() for l in strip_paths(r.failure_text()).splitlines() if l.strip()), state.why)
            cut = line if len(line) <= 160 else line[:160].rsplit(" ", 1)[0] + " ..."
            return f"{r.outcome} on {r.name}: {cut}"
    return "no item showed the bug or passed"


def sample_from(run: ReleaseRun, bug: Bug) -> Sample | None:
    """The first result on a release that shows the bug, as the case keeps it."""
    for r in run.results:
        if bug.state(r).kind == PROBE_BAD:
            return Sample(r.outcome, r.name, run.version, sample_of(r.failure_text()))
    return None


def failures_seen(runs: list[ReleaseRun]) -> dict[str, list[str]]:
    """Each failing outcome the releases showed, and the releases it showed on."""
    seen: dict[str, list[str]] = {}
    for run in runs:
        for r in run.results:
            if r.outcome not in (PASS_OUTCOME, SKIP_OUTCOME):
                releases = seen.setdefault(r.outcome, [])
                if run.version not in releases:
                    releases.append(run.version)
    return seen


def inferred_outcome(runs: list[ReleaseRun]) -> str | None:
    """The bug's outcome when one failure stands out: the only failing outcome the
    releases showed, with at least one release where every item passes around it."""
    seen = failures_seen(runs)
    passing = any(run.results and all(r.outcome in (PASS_OUTCOME, SKIP_OUTCOME) for r in run.results)
                  for run in runs)
    return next(iter(seen)) if len(seen) == 1 and passing else None


def windows(runs: list[ReleaseRun], bug: Bug) -> Measured:
    """runs oldest first."""
    states = [release_state(r, bug) for r in runs]
    found: list[Window] = []
    hiding: list[Hidden] = []
    floor = -1  # index of the previous window's end
    i = 0
    while i < len(runs):
        if states[i] != PROBE_BAD:
            i += 1
            continue
        first = i
        last = i
        j = i + 1
        while j < len(runs) and states[j] != PROBE_GOOD:  # "neither" releases do not end a window
            if states[j] == PROBE_BAD:
                last = j
            j += 1
        # onset: the newest release before the window where the items pass; releases
        # between that fail some other way hide the bug (the onset may be in them)
        k, hidden = first - 1, None
        while k > floor and states[k] != PROBE_GOOD:
            if states[k] == NEITHER and hidden is None:
                hidden = k
            k -= 1
        hidden_why = hidden_by(runs[hidden], bug) if hidden is not None else ""
        before_levels = _before_levels(runs, floor, first, k, bug)
        if before_levels is not None:  # levels arrive at the onset: it is not seen, only hidden
            k = floor
            if hidden is None or before_levels > hidden:
                hidden, hidden_why = before_levels, no_levels(runs[before_levels].version)
        last_good = runs[k].version if k > floor else None
        first_good = runs[j].version if j < len(runs) else None
        # end: releases after the last bad one that fail another way before the fix
        interim = next((n for n in range(last + 1, j) if states[n] == NEITHER), None)
        # inside: items another failure hides on releases where other items show the bug
        inside = _hidden(runs[first:last + 1], bug, "inside")
        found.append(Window(runs[first].version, runs[last].version, last_good, first_good,
                            runs[hidden].version if hidden is not None else None, hidden_why,
                            sample_from(runs[first], bug),
                            hidden_after=runs[interim].version if interim is not None else None,
                            hidden_after_by=hidden_by(runs[interim], bug) if interim is not None else "",
                            hidden_items=tuple(sorted({f"{h.scope}-{n}" for h in inside for n in h.names}))))
        hiding += inside
        hiding += _hidden(_neither(runs[k + 1:first], states[k + 1:first]), bug, "before")
        hiding += _hidden(_neither(runs[last + 1:j], states[last + 1:j]), bug, "after")
        floor = last
        i = j
    shown: dict[str, list[tuple[str, str]]] = {}
    texts = []
    for run in runs:
        for r in run.results:
            if bug.state(r).kind == PROBE_BAD:
                shown.setdefault(r.name, []).append((run.version, r.outcome))
                texts.append(r)
    if bug.windows:  # the case's own per-window definitions: each window found keeps its own
        found = [_with_definition(w, bug.definition(Version(w.first_bad)), bug) for w in found]
        match = bug.match.pattern if bug.match else None
    elif bug.match:  # given: the case's (or the command line's) message
        match = bug.match.pattern
    else:
        found, match = _own_messages(found, runs, bug)
    return Measured(tuple(found), tuple(sorted(shown)), shown, match, tuple(r.version for r in runs),
                    tuple(r.failure_text() for r in texts), tuple(hiding),
                    tuple(sorted({r.name for run in runs for r in run.results})))


def _before_levels(runs: list[ReleaseRun], floor: int, first: int, good: int, bug: Bug) -> int | None:
    """The newest release before the onset that has no --iree-opt-level, where the onset is
    the arrival of levels and its last good release (if any) has none: there O0-O3 were one
    default compile, so a bug of some levels only (or of two levels compared) could not
    show. None where the boundary says something: the bug shows at every level of the
    first release that has them (the default compile is one of those), or levels were
    there before it."""
    if not opt_level_supported(runs[first].version) or (good > floor and opt_level_supported(runs[good].version)):
        return None
    before = [n for n in range(floor + 1, first) if not opt_level_supported(runs[n].version)]
    if not before or _every_level_shows(runs[first], bug):
        return None
    return before[-1]


def _every_level_shows(run: ReleaseRun, bug: Bug) -> bool:
    """Every level (O0-O3) of each target where the bug shows shows it, and no differential
    item (which may compare two levels) is what shows it. A level the scan did not run
    may not show it: that is not every level."""
    showing: dict[str, set] = {}
    for r in run.results:
        if r.outcome == SKIP_OUTCOME or bug.state(r).kind != PROBE_BAD:
            continue
        item = ItemId.parse(r.name)
        if item.differ or item.ir_check:
            return False
        showing.setdefault(item.target, set()).add(item.opt_level)
    return all(levels == set(OPT_LEVELS) for levels in showing.values())


def _neither(runs: list[ReleaseRun], states: list[str]) -> list[ReleaseRun]:
    """The releases where no item shows the bug or passes: another failure hides it."""
    return [run for run, state in zip(runs, states) if state == NEITHER]


def _hidden(runs: list[ReleaseRun], bug: Bug, where: str) -> list[Hidden]:
    """The other failures on these releases' items, where they hide the bug, per target
    (or ir) and outcome."""
    groups: dict[tuple[str, str], list] = {}
    for run in runs:
        for r in run.results:
            if r.outcome in (PASS_OUTCOME, SKIP_OUTCOME) or bug.state(r).kind in (PROBE_BAD, PROBE_GOOD):
                continue
            item = ItemId.parse(r.name)
            groups.setdefault((item.scope, r.outcome), []).append((run.version, item, r))
    found = []
    for (scope, outcome), seen in sorted(groups.items()):
        match = derive_match([r for _, _, r in seen])
        # Failures whose texts share no message (a release that cannot parse the program,
        # then one that lacks a pass option) are one expectation per message: an
        # expectation without its message would take any failure of its outcome.
        by_message = {match: seen} if match is not None else {}
        for version, item, r in ([] if match is not None else seen):
            by_message.setdefault(derive_match([r]), []).append((version, item, r))
        for message, part in by_message.items():
            names = sorted({i.name_in_scope for _, i, _ in part})
            versions = sorted({v for v, _, _ in part}, key=Version)
            found.append(Hidden(scope, outcome, tuple(names), tuple(versions), message, where))
    return found


def _with_definition(w: Window, d, bug: Bug) -> Window:
    """A window found by the scan, with the case's own definition for its releases: its
    message and outcomes only where they are not [history]'s (else a rescan would write the
    shared message as the window's own)."""
    shared = bug.match.pattern if bug.match else None
    return replace(w, bad_match=d.match if d.match is not None and d.match.pattern != shared else None,
                   bad_outcomes=d.outcomes if set(d.outcomes) != set(bug.outcomes) else ())


def _own_messages(found: list[Window], runs: list[ReleaseRun], bug: Bug) -> tuple[list[Window], str | None]:
    """The bug's message, measured: one for every window when they printed the same,
    else each window its own (and its own outcomes when they differ): a case whose
    releases show two failures keeps each precise, and [history] keeps what they share."""
    per_window = []
    for w in found:
        results = [r for run in runs if w.holds(run.version) for r in run.results
                   if bug.state(r).kind == PROBE_BAD]
        per_window.append((tuple(dict.fromkeys(r.outcome for r in results)), derive_match(results)))
    if len({m for _, m in per_window}) <= 1:
        return found, per_window[0][1] if per_window else None
    outcome_sets = {frozenset(o) for o, _ in per_window}
    return [replace(w, bad_match=re.compile(m) if m else None,
                    bad_outcomes=outcomes if len(outcome_sets) > 1 else ())
            for w, (outcomes, m) in zip(found, per_window)], None
