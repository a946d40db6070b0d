"""What "the bug" of a case is, and whether a result on some release shows it.

The one definition: `prove`, `prove --scan`, `bisect`, `git-bisect-run` and the lint
of expectations ask `Bug.state`, and nothing else decides. The bug is the case's
[history]: its outcome(s), its own message (`bad_match`) and the items it shows on;
a command line may override outcome and message (`--bad-outcome`, `--bad-match`).

    state of a result            when
    ---------------------------  ------------------------------------------------------
    PROBE_BAD                    outcome is one of the bug's, and its failing text
                                 matches the bug's message (when the bug has one)
    PROBE_GOOD                   the item passed, and it ran far enough to show the bug
    PROBE_UNDECIDED(why)         anything else: an unrelated failure (an older release's
                                 parse error), or a pass that never ran (no device here)
                                 for a bug that shows at run time: it proves nothing

Expectations ([[expect]]) are not consulted: they say what the nightly should expect on
a release, the bug says what counts as *this* bug; lint checks that they agree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.version import InvalidVersion, Version

from .case import Case
from .outcomes import (PASS_OUTCOME, PROBE_BAD, PROBE_GOOD, PROBE_UNDECIDED, parse_stage_outcome,
                       shows_at_run_time)
from .toolchain import release_of


class BugUndefined(ValueError):
    """The case records no bug outcome and none was given."""


@dataclass(frozen=True)
class State:
    kind: str  # outcomes.PROBE_STATES
    why: str = ""

    def __str__(self) -> str:
        return self.kind + (f" ({self.why})" if self.why else "")


@dataclass(frozen=True)
class Definition:
    """What the bug is on the releases of one window (from just after its last_good up to
    just before its first_good): the outcomes and the message."""
    outcomes: tuple[str, ...]
    match: re.Pattern | None
    after: Version | None = None   # last_good (exclusive); None: from the oldest release
    before: Version | None = None  # first_good (exclusive); None: to the newest

    def covers(self, release: Version) -> bool:
        return (self.after is None or release > self.after) and (self.before is None or release < self.before)

    @property
    def description(self) -> str:
        text = " or ".join(self.outcomes)
        return text + (f" matching /{self.match.pattern}/" if self.match else "")

    def expected_by(self, outcome: str, match: re.Pattern | None, texts=()) -> bool:
        """Whether an expectation of `outcome` matching `match` is about this definition: its
        outcome, and its message (the same regex, one naming the other's text, one that
        finds what the bug printed in `texts`), or either has none."""
        if outcome not in self.outcomes:
            return False
        if match is None or self.match is None:
            return True
        mine = self.match
        return (match.pattern == mine.pattern or bool(match.search(mine.pattern))
                or bool(mine.search(match.pattern)) or any(match.search(t) for t in texts))


@dataclass(frozen=True)
class Bug:
    outcomes: tuple[str, ...]
    match: re.Pattern | None
    items: tuple[str, ...]  # item names it shows on; () = any item
    # A case whose windows show different failures (wrong numbers, fixed; later a compile
    # error) keeps each precise: a result is judged by the window its release falls in,
    # else by outcomes/match above (what the windows share).
    windows: tuple[Definition, ...] = ()

    @classmethod
    def of(cls, case: Case, outcomes: tuple[str, ...] | None = None,
           match: re.Pattern | str | None = None) -> "Bug":
        """The case's bug, with command-line overrides (which replace every window's)."""
        overridden = bool(outcomes) or match is not None
        outcomes = tuple(outcomes) if outcomes else case.history.bad_outcomes
        if not outcomes:
            raise BugUndefined(f"{case.slug} records no bug outcome ([history].bad_outcome); "
                               "give one (e.g. --bad-outcome compile-fail)")
        for o in outcomes:
            parse_stage_outcome(o)  # ValueError names a misspelt outcome
        if isinstance(match, str):
            match = re.compile(match)
        match = match if match is not None else case.history.bad_match
        windows = () if overridden else tuple(
            Definition(w.bad_outcomes or outcomes, w.bad_match or match,
                       Version(w.last_good) if w.last_good else None,
                       Version(w.first_good) if w.first_good else None)
            for w in case.history.windows if w.bad_outcomes or w.bad_match)
        return cls(outcomes, match, case.history.bad_items, windows)

    def definition(self, release: Version | None) -> Definition:
        """The bug as it is on `release` (None: unknown, the shared definition)."""
        if release is not None:
            for d in self.windows:
                if d.covers(release):
                    return d
        return Definition(self.outcomes, self.match)

    def at(self, release: Version | None) -> "Bug":
        """The bug as one release has it (its window's definition alone): what triage asks
        candidates once it knows the bad release."""
        d = self.definition(release)
        return Bug(d.outcomes, d.match, self.items)

    def definitions(self) -> tuple[Definition, ...]:
        return self.windows or (Definition(self.outcomes, self.match),)

    @property
    def all_outcomes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(o for d in self.definitions() for o in d.outcomes))

    @property
    def description(self) -> str:
        return "; ".join(dict.fromkeys(d.description for d in self.definitions()))

    def needs_device(self) -> bool:
        """Whether the bug shows only where the item runs (wrong numbers, run failures)."""
        return any(shows_at_run_time(o) for o in self.all_outcomes)

    def blind_to(self, result) -> bool:
        """Whether a result can say nothing of the bug: a compile-only pass of a bug that
        shows at run time (a GPU item on a machine without the GPU)."""
        d = self.definition(_release(getattr(result, "compiler", "")))
        return (result.outcome == PASS_OUTCOME and result.compile_only
                and any(shows_at_run_time(o) for o in d.outcomes))

    def state(self, result) -> State:
        """result: an ItemResult or ItemRecord (outcome, compile_only, failure_text(), compiler)."""
        d = self.definition(_release(getattr(result, "compiler", "")))
        outcome = result.outcome
        if outcome == PASS_OUTCOME:
            if self.blind_to(result):
                return State(PROBE_UNDECIDED, "compile-only here: the bug shows at run time")
            return State(PROBE_GOOD)
        if outcome in d.outcomes:
            if d.match is None or d.match.search(result.failure_text()):
                return State(PROBE_BAD)
            return State(PROBE_UNDECIDED, f"{outcome}, but not the bug's message /{d.match.pattern}/")
        return State(PROBE_UNDECIDED, f"unrelated outcome {outcome}")

    def expected_by(self, outcome: str, match: re.Pattern | None, texts=()) -> bool:
        """Whether an expectation is about this bug: about any of its windows' definitions."""
        return any(d.expected_by(outcome, match, texts) for d in self.definitions())


def _release(compiler: str) -> Version | None:
    try:
        return release_of(compiler) if compiler else None
    except InvalidVersion:
        return None
