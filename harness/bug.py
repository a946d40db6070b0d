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

from .case import Case
from .outcomes import (PASS_OUTCOME, PROBE_BAD, PROBE_GOOD, PROBE_UNDECIDED, parse_stage_outcome,
                       shows_at_run_time)


class BugUndefined(ValueError):
    """The case records no bug outcome and none was given."""


@dataclass(frozen=True)
class State:
    kind: str  # outcomes.PROBE_STATES
    why: str = ""

    def __str__(self) -> str:
        return self.kind + (f" ({self.why})" if self.why else "")


@dataclass(frozen=True)
class Bug:
    outcomes: tuple[str, ...]
    match: re.Pattern | None
    items: tuple[str, ...]  # item names it shows on; () = any item

    @classmethod
    def of(cls, case: Case, outcomes: tuple[str, ...] | None = None,
           match: re.Pattern | str | None = None) -> "Bug":
        """The case's bug, with command-line overrides."""
        outcomes = tuple(outcomes) if outcomes else case.history.bad_outcomes
        if not outcomes:
            raise BugUndefined(f"{case.slug} records no bug outcome ([history].bad_outcome); "
                               "give one (e.g. --bad-outcome compile-fail)")
        for o in outcomes:
            parse_stage_outcome(o)  # ValueError names a misspelt outcome
        if isinstance(match, str):
            match = re.compile(match)
        return cls(outcomes, match if match is not None else case.history.bad_match,
                   case.history.bad_items)

    @property
    def description(self) -> str:
        text = " or ".join(self.outcomes)
        return text + (f" matching /{self.match.pattern}/" if self.match else "")

    def needs_device(self) -> bool:
        """Whether the bug shows only where the item runs (wrong numbers, run failures)."""
        return any(shows_at_run_time(o) for o in self.outcomes)

    def state(self, result) -> State:
        """result: an ItemResult (outcome, compile_only, failure_text())."""
        outcome = result.outcome
        if outcome == PASS_OUTCOME:
            if result.compile_only and self.needs_device():
                return State(PROBE_UNDECIDED, "compile-only here: the bug shows at run time")
            return State(PROBE_GOOD)
        if outcome in self.outcomes:
            if self.match is None or self.match.search(result.failure_text()):
                return State(PROBE_BAD)
            return State(PROBE_UNDECIDED, f"{outcome}, but not the bug's message /{self.match.pattern}/")
        return State(PROBE_UNDECIDED, f"unrelated outcome {outcome}")

    def expected_by(self, outcome: str, match: re.Pattern | None, texts=()) -> bool:
        """Whether an expectation of `outcome` matching `match` is about this bug: its
        outcome is the bug's, and its message is the bug's (the same regex, one naming the
        other's text, one that finds what the bug printed in `texts`), or either has none."""
        if outcome not in self.outcomes:
            return False
        if match is None or self.match is None:
            return True
        mine = self.match
        return (match.pattern == mine.pattern or bool(match.search(mine.pattern))
                or bool(mine.search(match.pattern)) or any(match.search(t) for t in texts))
