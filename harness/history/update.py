"""`iree-regress expect --update`: a case's expectations rewritten from measured results.

For each item of a run whose verdict is FAIL or XPASS, on the run's release R:
  * the expectation that covered it at R stops covering it there: its compiler range
    gains `,<R` when every item it covers at R changed; otherwise the items that still
    behave as expected keep a copy of it from R on;
  * an item that failed gets its own [[expect]] from R on (open-ended: R is the newest
    measured), per target and outcome, with the message measured from the failures;
  * an open [history] window whose bug no longer shows on any of its items at R gets
    `first_good = R`.
Everything else in the file, comments included, is kept. Nothing is written without
--write; the diff is shown either way.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from packaging.version import Version

from ..case import Case
from ..item import ItemId
from ..outcomes import FAIL, PASS_OUTCOME, XPASS
from ..record import ItemRecord
from ..toolchain import release_of
from .casefile import header_of, read_text, scope_lines, split_blocks, toml_value
from .message import derive_match


@dataclass
class Update:
    case: Case
    old: str
    new: str
    notes: list[str]

    @property
    def changed(self) -> bool:
        return self.old != self.new

    def diff(self) -> str:
        return "".join(difflib.unified_diff(self.old.splitlines(True), self.new.splitlines(True),
                                            str(self.case.manifest), str(self.case.manifest)))


# The tail of the reason expect --update writes: a rescan may replace such an entry (writeback).
UPDATE_REASON = "(expect --update): not yet triaged"


def _with_range(block: str, compiler: str) -> str:
    if re.search(r"^compiler\s*=.*$", block, re.M):
        return re.sub(r"^compiler\s*=.*$", f"compiler = {toml_value(compiler)}", block, count=1, flags=re.M)
    return block.replace("[[expect]]\n", f"[[expect]]\ncompiler = {toml_value(compiler)}\n", 1)


def _narrowed(spec: str, release: Version) -> str:
    return f"{spec},<{release}" if spec else f"<{release}"


def update_case(case: Case, records: list[ItemRecord]) -> Update:
    """The case's manifest rewritten from its `records` (one run, one release)."""
    old = read_text(case.manifest)
    notes: list[str] = []
    changed = [r for r in records if r.verdict in (FAIL, XPASS)]
    if not changed:
        return Update(case, old, old, notes)
    release = release_of(changed[0].compiler)
    blocks = split_blocks(old)
    expect_blocks = [i for i, b in enumerate(blocks) if header_of(b) == "[[expect]]"]
    by_item = {r.item: r for r in records}
    replaced: dict[int, str] = {}
    for index, exp in enumerate(case.expectations):
        covered = [r for r in records
                   if exp.applies_to(r.target, r.opt_level, r.ir_check, release, r.differ)]
        moved = [r for r in covered if r.verdict in (FAIL, XPASS)]
        if not moved:
            continue
        block = blocks[expect_blocks[index]]
        spec = str(exp.compiler)
        text = _with_range(block, _narrowed(spec, release))
        # Every other item it covers (measured here or not) keeps it from R on.
        moved_names = {r.item for r in moved}
        keep = [i for i in ItemId.of(case) if i.covered_by(exp) and i.name not in moved_names]
        copy = re.sub(r"^(targets|opt_levels|ir)\s*=.*\n", "", _with_range(block, f">={release}"),
                      flags=re.M)
        for scope in scope_lines(keep):
            text += "\n" + copy.replace("[[expect]]\n", f"[[expect]]\n{scope}\n", 1)
        replaced[expect_blocks[index]] = text
        notes.append(f"expect #{index + 1} ({exp.outcome}) no longer covers "
                     f"{', '.join(r.item for r in moved)} from {release}")
    added = []
    failed: dict[tuple[str, str], list[ItemRecord]] = {}
    for r in changed:
        if r.verdict == FAIL and r.outcome != PASS_OUTCOME:
            failed.setdefault((ItemId.parse(r.item).scope, r.outcome), []).append(r)
    for (scope, outcome), group in sorted(failed.items()):
        match = derive_match(group)
        lines = ["[[expect]]", *scope_lines([ItemId.parse(r.item) for r in group]), f"compiler = {toml_value(f'>={release}')}",
                 f"outcome = {toml_value(outcome)}"]
        if match:
            lines.append(f"match = {toml_value(match)}")
        lines.append(f"reason = {toml_value(f'measured on IREE {group[0].compiler} {UPDATE_REASON}')}")
        added.append("\n".join(lines) + "\n")
        notes.append(f"new expect: {outcome} on {', '.join(r.item for r in group)} from {release}")
    new_blocks = [replaced.get(i, b) for i, b in enumerate(blocks)]
    new_blocks = _close_open_window(case, new_blocks, by_item, release, notes)
    new = "".join(new_blocks).rstrip() + "\n"
    if added:
        new += "\n" + "\n".join(added)
    return Update(case, old, new, notes)


def _close_open_window(case: Case, blocks: list[str], by_item: dict[str, ItemRecord],
                       release: Version, notes: list[str]) -> list[str]:
    """An open window whose bug items all pass at `release` ends there."""
    windows = [i for i, b in enumerate(blocks) if header_of(b) == "[[history.window]]"]
    if not windows or not case.history.windows or case.history.windows[-1].first_good:
        return blocks
    items = [by_item[n] for n in case.history.bad_items if n in by_item]
    if items and all(r.outcome == PASS_OUTCOME and not r.compile_only for r in items):
        last = windows[-1]
        blocks = list(blocks)
        blocks[last] = blocks[last].rstrip("\n") + f"\nfirst_good = {toml_value(str(release))}\n\n"
        notes.append(f"window {case.history.windows[-1].first_bad}..: first_good = {release}")
    return blocks


