"""quarantine.toml: items whose failures are shown but do not gate, each with a reason,
an issue, the outcomes it holds and an expiry date. It is evidence, not a mute button:

    [[quarantine]]
    item = "topk-dynamic-slice::vulkan-O3"   # CASE::ITEM; a whole CASE only with all_items = true
    outcomes = ["run-timeout"]               # what it holds: any other failure gates as usual
    reason = "lavapipe hangs on this module one run in five"
    issue = "iree-org/iree#12345"
    expires = 2026-12-31                     # at most MAX_DAYS after today: renewing is an edit

On the expiry date the item gates again, and the gate says that its quarantine ran out.
An entry naming a case or item the suite does not have is reported (lint fails on a
missing case), and so is one that held nothing over the last nights.
"""

from __future__ import annotations

import datetime
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..case import ISSUE_REF
from ..outcomes import HARNESS_OUTCOMES, PASS_OUTCOME, parse_stage_outcome
from ..record import ItemRef

DEFAULT_FILE = Path("quarantine.toml")
FIELDS = ("item", "outcomes", "reason", "issue", "expires")
OPTIONAL = ("all_items",)
MAX_DAYS = 30  # the longest a quarantine may run before someone looks again
# What a quarantine may hold besides an item's failing outcomes (rundiff's gate reasons).
FLAKY, UNEXPECTED_PASS = "flaky", PASS_OUTCOME


class QuarantineError(ValueError):
    pass


@dataclass(frozen=True)
class Entry:
    item: str
    reason: str
    issue: str
    expires: datetime.date
    outcomes: tuple[str, ...] = ()
    all_items: bool = False

    def covers(self, key: str) -> bool:
        """`item` names this item, or (all_items) the whole case or sweep variant."""
        return key == self.item or (self.all_items and ItemRef.parse(key).case == self.item)

    def holds(self, outcomes: tuple[str, ...]) -> bool:
        """Every outcome the gate names for the item is one this entry holds."""
        return bool(outcomes) and set(outcomes) <= set(self.outcomes)

    def expired(self, today: datetime.date) -> bool:
        return today >= self.expires


def load(path: Path, today: datetime.date | None = None) -> list[Entry]:
    """The entries of a quarantine file; a missing file is an empty quarantine."""
    today = today or datetime.date.today()
    path = Path(path)
    if not path.is_file():
        return []
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise QuarantineError(f"{path}: not TOML: {e}") from None
    unknown = set(data) - {"quarantine"}
    if unknown:
        raise QuarantineError(f"{path}: unknown table(s) {', '.join(sorted(unknown))}; only [[quarantine]]")
    entries = []
    for n, raw in enumerate(data.get("quarantine", []), 1):
        where = f"{path}: [[quarantine]] #{n}"
        missing = [f for f in FIELDS if f not in raw]
        if missing:
            raise QuarantineError(f"{where}: missing field(s) {', '.join(missing)}")
        extra = set(raw) - set(FIELDS) - set(OPTIONAL)
        if extra:
            raise QuarantineError(f"{where}: unknown field(s) {', '.join(sorted(extra))}")
        expires = raw["expires"]
        if isinstance(expires, str):
            try:
                expires = datetime.date.fromisoformat(expires)
            except ValueError:
                raise QuarantineError(f"{where}: field 'expires': {expires!r} is not a date (YYYY-MM-DD)") from None
        if not isinstance(expires, datetime.date) or isinstance(expires, datetime.datetime):
            raise QuarantineError(f"{where}: field 'expires': a date (YYYY-MM-DD), not {expires!r}")
        if not ISSUE_REF.fullmatch(str(raw["issue"])):
            raise QuarantineError(f"{where}: field 'issue': {raw['issue']!r} is not owner/repo#N")
        if not str(raw["reason"]).strip():
            raise QuarantineError(f"{where}: field 'reason' is empty: say why")
        if expires > today + datetime.timedelta(days=MAX_DAYS):
            raise QuarantineError(f"{where}: field 'expires': {expires} is more than {MAX_DAYS} days after "
                                  f"today ({today}); a quarantine is renewed by an edit, not set far ahead")
        outcomes = raw["outcomes"]
        if not isinstance(outcomes, list) or not outcomes or not all(_known(o) for o in outcomes):
            raise QuarantineError(f"{where}: field 'outcomes': {outcomes!r}; a list of the outcomes it holds "
                                  f"(e.g. [\"run-timeout\"], \"{FLAKY}\", \"{UNEXPECTED_PASS}\")")
        all_items = raw.get("all_items", False)
        if not isinstance(all_items, bool):
            raise QuarantineError(f"{where}: field 'all_items': true or false, not {all_items!r}")
        if "::" not in str(raw["item"]) and not all_items:
            raise QuarantineError(f"{where}: field 'item': {raw['item']!r} names a whole case; name its items "
                                  "(CASE::ITEM), or say all_items = true")
        entries.append(Entry(str(raw["item"]), str(raw["reason"]), str(raw["issue"]), expires,
                             tuple(outcomes), all_items))
    return entries


def _known(outcome) -> bool:
    if outcome in (FLAKY, UNEXPECTED_PASS, *HARNESS_OUTCOMES):
        return True
    try:
        parse_stage_outcome(str(outcome))
        return True
    except ValueError:
        return False


def unknown_items(entries: list[Entry], keys: set[str]) -> list[str]:
    """Entries naming a case or item that `keys` (every item a run or the suite has) lacks."""
    cases = {ItemRef.parse(k).case for k in keys}
    return [f"quarantine names {e.item}, which {'has no such case' if e.item.split('::')[0] not in cases else 'has no such item'}"
            for e in entries if not (e.item in keys or (e.all_items and e.item in cases))]


def missing_from_suite(entries: list[Entry]) -> list[str]:
    """Entries naming a case, sweep variant or item the suite does not have (lint)."""
    from ..case import CaseError, find_case
    from ..item import ItemId
    from ..sweep.spec import variant_of

    problems = []
    for e in entries:
        parts = e.item.split("::")
        item = None if e.all_items else parts[-1]
        name = e.item if e.all_items else "::".join(parts[:-1])
        try:
            if "=" in name:  # a sweep variant: its id names its grid point
                variant_of(name)
                continue
            case = find_case(name)
        except CaseError as err:
            problems.append(f"quarantine.toml: {e.item}: no such case or variant ({err})")
            continue
        if item is not None and item not in {i.name for i in ItemId.of(case)}:
            problems.append(f"quarantine.toml: {e.item}: {case.slug} has no item {item!r}")
    return problems


def idle(entries: list[Entry], nights: list[dict], last: int = 7) -> list[str]:
    """Entries that held nothing over the last `last` nights (each night: key -> record)."""
    recent = nights[-last:]
    if len(recent) < last:
        return []
    return [f"quarantine of {e.item} held nothing over the last {last} nights: end it"
            for e in entries
            if not any(e.covers(k) and e.holds(_gated_outcomes(r)) for night in recent for k, r in night.items())]


def _gated_outcomes(record) -> tuple[str, ...]:
    return (FLAKY,) if record.flaky else (record.outcome,)


def split_gate(reasons: list[tuple[str, str, tuple[str, ...]]], entries: list[Entry],
               today: datetime.date | None = None) -> tuple[list[str], list[str]]:
    """(gate lines, quarantined lines) from (item key, gate line, outcomes) reasons: an
    item under a live quarantine that holds its outcomes moves to the second list; under
    an expired one, or failing another way, it stays and says so."""
    today = today or datetime.date.today()
    gating, held = [], []
    for key, line, outcomes in reasons:
        entry = next((e for e in entries if e.covers(key)), None)
        if entry is None:
            gating.append(line)
        elif entry.expired(today):
            gating.append(f"{line} [quarantine expired {entry.expires}: {entry.issue}]")
        elif not entry.holds(outcomes):
            gating.append(f"{line} [quarantined for {', '.join(entry.outcomes)} only: this is "
                          f"{', '.join(outcomes) or 'not a failure it holds'}]")
        else:
            held.append(f"{line} [quarantined until {entry.expires}: {entry.reason} ({entry.issue})]")
    return gating, held
