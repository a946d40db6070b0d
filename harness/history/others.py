"""What prove --scan saw besides the bug: the case's other items failing on releases its
expectations do not explain.

The scan measures the case's whole matrix; its windows come from the bug's items alone
(window.py), and every other failure an expectation does not already take is gathered
here by (target, outcome, message), release runs kept apart where a release between
passes, and written (with --write) as an [[expect]] that says it is not the bug and not
yet triaged, so `pytest cases/ --iree-release V` is honest on every release scanned.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..case import Case
from ..item import ItemId
from ..outcomes import PASS_OUTCOME, SKIP_OUTCOME
from .casefile import scope_lines, toml_value
from .message import derive_match
from .prove import ReleaseRun

# The tail of an [[expect]] the scan wrote for a failure that is not the bug: a rescan
# writes such entries again from what it measured (writeback).
OTHER_REASON = "(prove --scan): not the case's bug; not yet triaged"


@dataclass(frozen=True)
class Other:
    items: frozenset[ItemId]
    outcome: str
    match: str | None
    first: str
    last: str

    def block(self) -> str:
        """The [[expect]] it is written as. Without a message it would take any failure of
        its outcome: prove --scan --write then writes nothing (it says so)."""
        lines = ["[[expect]]", *scope_lines(self.items),
                 f"compiler = {toml_value(f'>={self.first},<={self.last}')}",
                 f"outcome = {toml_value(self.outcome)}"]
        lines.append(f"match = {toml_value(self.match)}" if self.match else
                     "# match: none could be derived from the failures' text")
        lines.append(f"reason = {toml_value(f'measured {self.first}..{self.last} {OTHER_REASON}')}")
        return "\n".join(lines) + "\n"


def _explained(case: Case, result, version: str) -> bool:
    item = ItemId.parse(result.name)
    expectation = case.expectation_for(item.target, item.opt_level, item.ir_check, version, item.differ)
    return expectation is not None and expectation.takes(result.outcome, result.failure_text())


def other_failures(case: Case, runs: list[ReleaseRun], is_bug) -> list[Other]:
    """Failures that are not the bug (`is_bug(result, version)` false: on any item, the bug's
    own items on releases away from its windows included) and that no expectation of
    the case takes, as runs of consecutive scanned releases per (target, outcome, message)."""
    # (scope, outcome, match) -> {version: [results]}
    groups: dict[tuple[str, str, str | None], dict[str, list]] = {}
    for run in runs:
        for r in run.results:
            if r.outcome in (PASS_OUTCOME, SKIP_OUTCOME) or is_bug(r, run.version) or _explained(case, r, run.version):
                continue
            key = (ItemId.parse(r.name).scope, r.outcome, derive_match([r]))
            groups.setdefault(key, {}).setdefault(run.version, []).append(r)
    order = [run.version for run in runs]
    found = []
    for (_, outcome, match), by_version in groups.items():
        stretch: list[str] = []
        for version in order + [None]:  # None closes the last stretch
            if version in by_version:
                stretch.append(version)
                continue
            if stretch:
                items = frozenset(ItemId.parse(r.name) for v in stretch for r in by_version[v])
                found.append(Other(items, outcome, match, stretch[0], stretch[-1]))
                stretch = []
    return sorted(found, key=lambda o: (order.index(o.first), o.outcome))
