"""`prove --scan --write`: a scan's measurement written into the case.

[history] gets the bug's outcomes, the measured message, the items and the windows; the
[[expect]] entries that describe the bug are replaced by ones scoped to what was
measured (per window, target and outcome: the levels and releases it showed on), so
expectations and history never drift apart. Other expectations (other bugs, other
releases) and the rest of the file, comments included, are kept.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from ..bug import Bug
from ..case import Case, Expectation, Window
from ..item import ItemId
from .casefile import header_of, read_text, scope_lines, split_blocks, toml_value, write_atomic
from .update import UPDATE_REASON
from .window import Measured


def expectations_for(case: Case, bug: Bug, measured: Measured) -> list[str]:
    """The bug's [[expect]] entries, scoped to what was measured: per window, per target
    (or the ir checks), per outcome the bug showed there and per run of releases an item
    showed it on (items with the same run share an entry: O0 failing from 3.5.0 and O3
    from 3.8.0 are two entries, never one that expects O3 to fail on 3.5.0); open-ended for
    an open window."""
    order = {v: n for n, v in enumerate(measured.versions)}
    # items on which another failure follows the bug before any fix: still open there
    turned_after = {f"{h.scope}-{n}" for h in measured.hidden if h.where == "after" for n in h.names}
    blocks = []
    for j, w in enumerate(measured.windows):
        # (target or "ir", outcome, first, last) -> items
        groups: dict[tuple[str, str, str, str], set[ItemId]] = {}
        for name, shown in measured.item_outcomes.items():
            item = ItemId.parse(name)
            by_outcome: dict[str, list[str]] = {}
            for version, outcome in shown:
                if w.holds(version):
                    by_outcome.setdefault(outcome, []).append(version)
            for outcome, versions in by_outcome.items():
                for first, last in _runs(sorted(versions, key=order.__getitem__), order):
                    groups.setdefault((item.scope, outcome, first, last), set()).add(item)
        for (_, outcome, first, last), items in sorted(groups.items(), key=lambda g: (
                g[0][0], g[0][1], order[g[0][2]], order[g[0][3]])):
            # open-ended only where these items still show it on the newest release scanned
            # (a window another target keeps open says nothing of an item that passes there)
            open_end = w.first_good is None and Version(last) == Version(w.last_bad) == Version(measured.versions[-1])
            rng = f">={first}" if open_end else f">={first},<={last}"
            lines = ["[[expect]]", *scope_lines(items), f"compiler = {toml_value(rng)}",
                     f"outcome = {toml_value(outcome)}"]
            match = w.bad_match.pattern if w.bad_match is not None else measured.match
            if match:
                lines.append(f"match = {toml_value(match)}")
            turned = any(str(i) in turned_after for i in items)
            lines.append(f"reason = {toml_value(_reason(case, w, j, first, last, open_end, turned))}")
            blocks.append("\n".join(lines) + "\n")
    # What hides the bug on some items inside a window comes first: the first [[expect]]
    # that covers an item wins, and the bug's own entries cover those items' releases too.
    inside = [b for h in measured.hidden if h.where == "inside" for b in _hidden_blocks(h, order)]
    return inside + blocks + [b for h in measured.hidden if h.where != "inside" for b in _hidden_blocks(h, order)]


def _runs(versions: list[str], order: dict[str, int]) -> list[tuple[str, str]]:
    """Releases (in scan order) as (first, last) runs of consecutive scanned releases."""
    found: list[list[str]] = []
    for v in versions:
        if found and order[v] == order[found[-1][1]] + 1:
            found[-1][1] = v
        else:
            found.append([v, v])
    return [(a, b) for a, b in found]


def _hidden_blocks(h, order: dict[str, int]) -> list[str]:
    """[[expect]] entries for what hides the bug on releases inside its window's span, one
    per run of consecutive releases it was seen on (compare-fail on 2.9.0..3.0.0 and again
    on 3.6.0..3.11.0 is two entries, never one over the releases between that failed
    otherwise): prove checks those releases still fail that way, and a run there is judged
    by it."""
    items = [ItemId.parse(f"{h.scope}-{name}") for name in h.names]  # ir-<check>, differ-<name> or <target>-<level>
    when = {"before": "before the bug's onset", "after": "after the bug showed, before its fix",
            "inside": "on these items inside its window"}[h.where]
    blocks = []
    for first, last in _runs(sorted(h.versions, key=order.__getitem__), order):
        lines = ["[[expect]]", *scope_lines(items), f"compiler = {toml_value(f'>={first},<={last}')}",
                 f"outcome = {toml_value(h.outcome)}"]
        if h.match:
            lines.append(f"match = {toml_value(h.match)}")
        lines.append(f"reason = {toml_value(f'another failure hides the bug {when} (measured {first}..{last}); not the bug itself')}")
        blocks.append("\n".join(lines) + "\n")
    return blocks


def _reason(case: Case, w: Window, index: int, first: str, last: str, open_end: bool,
            turned: bool = False) -> str:
    """Credits the window's own issue; the case's threads only for its first window (a
    later one is another change's bug until someone says whose: lint asks). Measured: the
    entry's own releases (some items show the bug on part of the window only), and "still
    open" only for an entry that is (these items show the bug on the newest release)."""
    cite = w.issue or (", ".join(case.threads) or f"found by {case.found_by}" if index == 0 else "not credited yet")
    if w.first_good:
        end = f"fixed in {w.first_good}"
    elif open_end:
        end = "still open"
    elif turned:  # these items fail another way after the bug, with no fix seen
        end = "still open (another failure after it on these items)"
    else:  # another target keeps the window open; these items stopped showing the bug
        end = f"not shown on these items after {last} (the window stays open on others)"
    return f"{cite}: measured {first}..{last}, {end}"


def history_block(case: Case, bug: Bug, measured: Measured) -> str:
    lines = ["[history]", f"# Measured by `iree-regress prove {case.slug} --scan`.",
             f"measured = {toml_value(' '.join(measured.versions))}"]
    if measured.windows:
        lines.append(_bad_outcome_line(bug.outcomes))
        lines.append(f"bad_items = {toml_value(list(measured.items))}")
        if measured.match:
            lines.append(f"bad_match = {toml_value(measured.match)}")
    else:
        lines.append('status = "unknown"')
    for w in measured.windows:
        lines += ["", *window_lines(w)]
    return "\n".join(lines) + "\n"


def _bad_outcome_line(outcomes: tuple[str, ...]) -> str:
    """bad_outcome as a case writes it: one outcome alone, several as a list."""
    value = outcomes[0] if len(outcomes) == 1 else list(outcomes)
    return f"bad_outcome = {toml_value(value)}"


def window_lines(w: Window) -> list[str]:
    """One [[history.window]] table, as the scan writes it."""
    lines = ["[[history.window]]"]
    if w.last_good:
        lines.append(f"last_good = {toml_value(w.last_good)}")
    if w.hidden_before:
        lines += [f"hidden_before = {toml_value(w.hidden_before)}",
                  f"hidden_by = {toml_value(w.hidden_by)}"]
    lines += [f"first_bad = {toml_value(w.first_bad)}", f"last_bad = {toml_value(w.last_bad)}"]
    if w.hidden_after:
        lines += [f"hidden_after = {toml_value(w.hidden_after)}",
                  f"hidden_after_by = {toml_value(w.hidden_after_by)}"]
    if w.first_good:
        lines.append(f"first_good = {toml_value(w.first_good)}")
    if w.issue:
        lines.append(f"issue = {toml_value(w.issue)}")
    if w.hidden_items:
        lines.append(f"hidden_items = {toml_value(list(w.hidden_items))}  # another failure hides the bug there")
    if w.bad_outcomes:
        lines.append(_bad_outcome_line(w.bad_outcomes))
    if w.bad_match is not None:
        lines.append(f"bad_match = {toml_value(w.bad_match.pattern)}  # this window's own message")
    if w.sample:
        s = w.sample
        lines.append(f"# what the bug printed on {s.release} ({s.item}), verbatim: lint tests other "
                     "cases' matches against it")
        lines.append("sample = {" + ", ".join(f"{k} = {toml_value(v)}" for k, v in
                                              (("outcome", s.outcome), ("item", s.item),
                                               ("release", s.release), ("text", s.text))) + "}")
    return lines


# The reason line of an [[expect]] the scan wrote (_reason, _hidden_blocks): a rescan writes
# all of them again from its own measurement. Expect --update's (UPDATE_REASON) may be
# replaced when they describe the bug; any other reason was written by a person.
_SCAN_REASON = re.compile(r'^reason = ".*(: measured \S+\.\.\S+, (fixed in \S+|still open)|'
                          r'another failure hides the bug .*)"$', re.M)


def write_scan(case: Case, bug: Bug, measured: Measured, force: bool = False,
               others: list[str] = ()) -> list[str]:
    """Replace [history] and the [[expect]] entries the scan wrote for this bug; keep the
    rest. A hand-written entry that describes the bug is kept (and returned, for the
    caller to show beside what the scan measured) unless `force`. `others`: entries for
    the other items' failures no expectation took (history/others.py), first, since the
    first [[expect]] that covers an item wins and they take only what nothing else did."""
    written = [*others, *expectations_for(case, bug, measured)]
    kept, hand_written = [], []
    for block in split_blocks(read_text(case.manifest)):
        header = header_of(block)
        if header in ("[history]", "[[history.window]]"):
            continue
        if header == "[[expect]]" and _SCAN_REASON.search(block) and _covers(block, measured.scanned or measured.items):
            continue  # the scan's own, whatever it measured then: written again below
            # (one about items this scan did not measure stays: nothing replaces it)
        if header == "[[expect]]" and _describes(block, bug, measured):
            if force or UPDATE_REASON in block:
                continue
            hand_written.append(block.strip())
        kept.append(block)
    text = "".join(kept).rstrip() + "\n\n"
    text += "".join(b + "\n" for b in written)
    text += history_block(case, bug, measured)
    write_atomic(Path(case.manifest), text)
    return hand_written


def _describes(block: str, bug: Bug, measured: Measured) -> bool:
    """Whether an [[expect]] block is about this bug, so the measured ones replace it: its
    outcome is the bug's, it covers an item the bug was measured on, and its message is
    the bug's or matches what the bug printed (or it has none: it would hide the bug)."""
    entry = tomllib.loads(block.replace("[[expect]]", "", 1))
    match = re.compile(entry["match"]) if "match" in entry else None
    if not bug.expected_by(entry.get("outcome", ""), match, measured.texts):
        return False
    return _covers(block, measured.items)


def _covers(block: str, items) -> bool:
    """Whether an [[expect]] block is about one of these items (names)."""
    entry = tomllib.loads(block.replace("[[expect]]", "", 1))
    scope = Expectation(entry.get("outcome", ""), "", _opt(entry, "targets"), _opt(entry, "opt_levels"),
                        _opt(entry, "ir"), SpecifierSet(entry.get("compiler", "")), None,
                        differs=_opt(entry, "differ"))
    return any(ItemId.parse(n).covered_by(scope) for n in items)


def _opt(entry: dict, key: str):
    return tuple(entry[key]) if key in entry else None
