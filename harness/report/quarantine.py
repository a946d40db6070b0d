"""quarantine.toml: items whose failures are shown but do not gate, each with a reason,
an issue and an expiry date. On the expiry date the item gates again, and the gate says
that its quarantine ran out.

    [[quarantine]]
    item = "topk-dynamic-slice::vulkan-O3"   # CASE::ITEM, or CASE for all its items
    reason = "lavapipe hangs on this module one run in five"
    issue = "iree-org/iree#12345"
    expires = 2026-12-31
"""

from __future__ import annotations

import datetime
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ..case import ISSUE_REF
from ..record import ItemRef

DEFAULT_FILE = Path("quarantine.toml")
FIELDS = ("item", "reason", "issue", "expires")


class QuarantineError(ValueError):
    pass


@dataclass(frozen=True)
class Entry:
    item: str
    reason: str
    issue: str
    expires: datetime.date

    def covers(self, key: str) -> bool:
        """`item` names this item, or the whole case (or sweep variant) it belongs to."""
        return key == self.item or ItemRef.parse(key).case == self.item

    def expired(self, today: datetime.date) -> bool:
        return today >= self.expires


def load(path: Path) -> list[Entry]:
    """The entries of a quarantine file; a missing file is an empty quarantine."""
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
        extra = set(raw) - set(FIELDS)
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
        entries.append(Entry(str(raw["item"]), str(raw["reason"]), str(raw["issue"]), expires))
    return entries


def split_gate(lines_by_key: list[tuple[str, str]], entries: list[Entry],
               today: datetime.date | None = None) -> tuple[list[str], list[str]]:
    """(gate lines, quarantined lines) from (item key, gate line) pairs: an item under a
    live quarantine moves to the second list; under an expired one it stays and says so."""
    today = today or datetime.date.today()
    gating, held = [], []
    for key, line in lines_by_key:
        entry = next((e for e in entries if e.covers(key)), None)
        if entry is None:
            gating.append(line)
        elif entry.expired(today):
            gating.append(f"{line} [quarantine expired {entry.expires}: {entry.issue}]")
        else:
            held.append(f"{line} [quarantined until {entry.expires}: {entry.reason} ({entry.issue})]")
    return gating, held
