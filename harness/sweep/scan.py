"""`iree-regress sweep scan`: a sweep over IREE releases; every variant's windows.

Each release runs the sweep through pytest, the same plugin, stages, cache and records
as a nightly (`--iree-release V`: installed side by side under the cache), into a
results file of its own, `<out>/<release>/results.jsonl`. A variant's import and golden
do not depend on the release, so they are made once and shared by all of them.

The scan then reads every release's records and says, per item, which outcome each
release gave, in runs of consecutive releases (its windows). An item whose outcome
changes between releases (wrong, failing or crashing on some, not on others) is a
found regression. Two kinds of failure tell nothing about a variant's bug and are kept
apart: a release on which one failure covers nearly every item (a flag it does not
know) is said once and left out; and an item that release cannot read at all (an op
its importer does not lower: `failed to legalize operation 'torch.aten...'`) is
"unsupported" there, shown in its windows. Going from unsupported to anything is support
arriving; going from anything else to unsupported is support lost: a regression like the
others. (Ops with no computation that an old release does not know are removed before it
compiles: older_releases.py.)

Found items are grouped by window and failure signature, and each group is disposed of
by the sweep's own [[expect]] entries on the releases it fails: a case (an expectation
whose `same_as` names it, checked by lint), explained (an expectation without same_as: its
reason says why, e.g. an importer gap), or unexplained (no expectation takes it: reduce
one item and `sweep promote` it, or name the case it duplicates). A grid under flags
(`[sweep] grid`) is the grid's programs with more flags: a failure there that the grid's
own entry (or explained entry) for the same variant takes, by its match on its releases,
is that entry's bug, as `sweep expect` drafts it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import Version

from ..outcomes import HARNESS_OUTCOMES, PASS_OUTCOME, SKIP_OUTCOME
from ..record import ItemRecord
from ..results import read_results
from ..signatures import signature_of
from ..toolchain import release_of
from .explained import Explanation
from .scan_records import results_path
from .spec import Sweep

# A release where one failure covers this share of the items failed as a whole, when it
# ran at least RELEASE_WIDE_ITEMS of them: a few items failing alike (a rescan of the
# programs that caught cases) are those items' own failures, not the release's.
RELEASE_WIDE = 0.9
RELEASE_WIDE_ITEMS = 10
UNSUPPORTED = "unsupported"
# What a compiler says of a program it cannot read yet (its importer's coverage, not a bug).
_UNSUPPORTED = re.compile(r"custom op '[\w.]+' is unknown|failed to legalize operation "
                          r"'torch\.(?:aten|prims|operator)[\w.]*'(?: that was explicitly marked illegal)?")


def run_release(selected: list[str], release: str, targets: str, levels: str, out: Path,
                extra: list[str] = ()) -> int:
    """Run the selected sweeps (their spec files, or items' node ids) on one release into
    out/<release>/ (pytest's exit code)."""
    reports = out / release
    argv = [sys.executable, "-m", "pytest", *selected, "--iree-release", release,
            "--target", targets, "--opt-level", levels, "-n", "auto", "-q", "-p", "no:cacheprovider",
            "--iree-reports-dir", str(reports), *extra]
    return subprocess.run(argv).returncode


@dataclass
class ItemHistory:
    key: str  # <family>::<variant>::<item>
    outcomes: dict[str, str] = field(default_factory=dict)  # release -> outcome, oldest first
    signatures: dict[str, str] = field(default_factory=dict)  # release -> failure signature
    records: dict[str, ItemRecord] = field(default_factory=dict)  # release -> its failing record

    def windows(self, releases: list[str]) -> list[tuple[str, str, str]]:
        """(first release, last release, outcome) runs over the releases it ran on."""
        runs: list[list] = []
        for r in releases:
            if r not in self.outcomes:
                continue
            outcome = self.outcomes[r]
            if runs and runs[-1][2] == outcome:
                runs[-1][1] = r
            else:
                runs.append([r, r, outcome])
        return [tuple(run) for run in runs]

    def support_lost(self) -> list[tuple[str, str]]:
        """(last release that read it, next that could not) for each loss of support."""
        order = list(self.outcomes.items())
        return [(a, b) for (a, was), (b, now) in zip(order, order[1:]) if now == UNSUPPORTED and was != UNSUPPORTED]

    @property
    def changes(self) -> bool:
        return len(set(self.outcomes.values()) - {UNSUPPORTED}) > 1 or bool(self.support_lost())

    @property
    def ever_fails(self) -> bool:
        return any(o not in (PASS_OUTCOME, UNSUPPORTED) for o in self.outcomes.values())


@dataclass
class Scan:
    releases: list[str]  # scanned, oldest first
    unusable: dict[str, str]  # release -> the failure that covered it
    items: dict[str, ItemHistory]
    # release -> items with no verdict there (the case did not load, the harness or its
    # worker broke): never read as an outcome, always said (and the command fails)
    no_verdict: dict[str, list[str]] = field(default_factory=dict)

    @property
    def found(self) -> list[ItemHistory]:
        return [h for h in self.items.values() if h.changes]

    def variants(self, histories) -> list[str]:
        return sorted({h.key.rsplit("::", 1)[0] for h in histories})


def read_scan(out: Path, releases: list[str]) -> Scan:
    """The scan of what `out/<release>/results.jsonl` hold, or the records `--keep` kept
    (releases without either are skipped)."""
    per_release: dict[str, list[ItemRecord]] = {}
    for release in releases:
        path = results_path(out, release)
        if path is not None:
            per_release[release] = read_results(path)[1]
    unusable = {}
    no_verdict: dict[str, list[str]] = {}
    items: dict[str, ItemHistory] = {}
    # An item another release has a record of and this one has none (a run killed
    # mid-write, a worker lost) has no verdict there: said, never read as not having run.
    every = {r.key for records in per_release.values() for r in records}
    for release, records in per_release.items():
        missing = every - {r.key for r in records}
        if missing:
            no_verdict.setdefault(release, []).extend(sorted(missing))
        ran = [r for r in records if r.outcome != SKIP_OUTCOME]
        failures = Counter((r.outcome, signature_of(r)) for r in ran if r.outcome != PASS_OUTCOME)
        if ran and failures:
            (outcome, signature), n = failures.most_common(1)[0]
            if len(ran) >= RELEASE_WIDE_ITEMS and n >= RELEASE_WIDE * len(ran):
                unusable[release] = f"{n}/{len(ran)} items {outcome}: {signature}"
                continue
        for r in ran:
            if r.outcome in HARNESS_OUTCOMES:  # not the compiler's doing, but never silent
                no_verdict.setdefault(release, []).append(r.key)
                continue
            h = items.setdefault(r.key, ItemHistory(r.key))
            unsupported = r.outcome != PASS_OUTCOME and _UNSUPPORTED.search(r.failure_text())
            h.outcomes[release] = UNSUPPORTED if unsupported else r.outcome
            if r.outcome != PASS_OUTCOME:
                h.signatures[release] = signature_of(r)
                h.records[release] = r
    scanned = [r for r in releases if r in per_release]
    return Scan(scanned, unusable, items, no_verdict)


@dataclass
class Group:
    """Found items with one window and one failure signature."""
    windows: tuple[tuple[str, str, str], ...]
    signature: str
    items: list[ItemHistory]
    disposition: str = ""  # "case X[; explained: why]" | "explained: why" | "unexplained: why"
    untaken: list[tuple[str, ItemRecord]] = field(default_factory=list)  # (release, failure) nothing takes

    @property
    def support_lost(self) -> bool:
        return any(h.support_lost() for h in self.items)

    def windows_text(self) -> str:
        return "; ".join(f"{a}..{b}: {o}" if a != b else f"{a}: {o}" for a, b, o in self.windows)


def groups(scan: Scan, sweeps: dict[str, Sweep], explained: list[Explanation] = ()) -> list[Group]:
    """The found items grouped by window and signature, each disposed of (see the top):
    by the sweeps' expectations, then by the table of explained failures."""
    usable = [r for r in scan.releases if r not in scan.unusable]
    by_key: dict[tuple, Group] = {}
    for h in sorted(scan.found, key=lambda h: h.key):
        windows = tuple(h.windows(usable))
        signature = next(iter(dict.fromkeys(h.signatures.values())), "")
        by_key.setdefault((windows, signature), Group(windows, signature, [])).items.append(h)
    found = list(by_key.values())
    dispose = _Disposer(sweeps, explained)
    for g in found:
        g.disposition, g.untaken = dispose(g)
    return sorted(found, key=lambda g: (not g.disposition.startswith("unexplained"), g.windows_text()))


class _Disposer:
    """What the sweeps' expectations say of a group's failures (one variant lookup each)."""

    def __init__(self, sweeps: dict[str, Sweep], explained: list[Explanation] = ()):
        self.sweeps = sweeps
        self.explained = list(explained)
        self.points: dict[str, dict] = {}

    def point(self, record: ItemRecord) -> dict | None:
        """The axis values of the record's variant (None: no such sweep or variant)."""
        name, _, variant_id = record.case.partition("::")
        sweep = self.sweeps.get(name)
        if sweep is None:
            return None
        if name not in self.points:
            self.points[name] = {v.id: v.values() for v in sweep.variants()}
        return self.points[name].get(variant_id)

    def _decides(self, sweep: Sweep, point: dict, record: ItemRecord):
        """The entry of `sweep` that decides the record's verdict at `point`, if any."""
        parsed = sweep.parsed_expectations()
        release = release_of(record.compiler)
        return next((parsed[i] for i in sweep.about(point)
                     if parsed[i].applies_to(record.target, record.opt_level, record.ir_check, release,
                                             record.differ)), None)

    def expectation(self, record: ItemRecord):
        point = self.point(record)
        if point is None:
            return None
        return self._decides(self.sweeps[record.case.partition("::")[0]], point, record)

    def _taking(self, record: ItemRecord):
        """The first expectation, then explained entry, that takes the record's failure:
        its own variant's, then, under flags, the grid's own variant's (the same program
        without them)."""
        text, release = record.failure_text(), release_of(record.compiler)
        name, point = record.case.partition("::")[0], self.point(record)
        ways, candidates = [(name, point)], [self.expectation(record)]
        grid = self.sweeps[name].grid if point is not None else None
        if grid is not None:
            grid_point = self.sweeps[name].grid_point(point)
            ways.append((grid.name, grid_point))
            candidates.append(self._decides(grid, grid_point, record))
        e = next((e for e in candidates if e is not None and e.takes(record.outcome, text)), None)
        return e or next((x for way, at in ways for x in self.explained
                          if x.takes(way, release, record.outcome, text, at)), None)

    def __call__(self, group: Group) -> tuple[str, list[tuple[str, ItemRecord]]]:
        failures = [(release, r) for h in group.items for release, r in h.records.items()]
        cases, reasons, untaken = set(), [], []
        for release, r in failures:
            e = self._taking(r)
            if e is None:
                untaken.append((release, r))
            elif e.same_as:
                cases.update(e.same_as)
            else:
                reasons.append(e.reason)
        if untaken:
            return (f"unexplained: {len(untaken)} of {len(failures)} failures no expectation takes "
                    f"(e.g. `{untaken[0][1].key}` on {untaken[0][1].compiler or untaken[0][0]})"), untaken
        said = (["case " + ", ".join(sorted(cases))] if cases else []) + (
            ["explained: " + "; ".join(dict.fromkeys(reasons))] if reasons else [])
        return "; ".join(said) or "explained: (no failure recorded)", []


def per_release(scan: Scan) -> list[str]:
    """Each release's counts: what it measured, what it could not read (an op it cannot
    lower: support arriving or lost), what passed, what failed."""
    lines = ["## Per release", "", "| release | items | measured | unsupported | pass | fail |",
             "|---|---|---|---|---|---|"]
    for release in scan.releases:
        if release in scan.unusable:
            lines.append(f"| {release} | left out: {scan.unusable[release]} | | | | |")
            continue
        said = Counter(h.outcomes[release] for h in scan.items.values() if release in h.outcomes)
        total = sum(said.values())
        unsupported, passed = said[UNSUPPORTED], said[PASS_OUTCOME]
        measured = total - unsupported
        lines.append(f"| {release} | {total} | {measured} ({100 * measured // max(total, 1)}%) | {unsupported} "
                     f"| {passed} | {measured - passed} |")
    return lines + [""]


def render(scan: Scan, found_groups: list[Group] | None = None) -> str:
    usable = [r for r in scan.releases if r not in scan.unusable]
    ever = [h for h in scan.items.values() if h.ever_fails]
    lines = ["# Sweep scan over releases", "",
             f"Releases scanned: {', '.join(scan.releases) or '(none)'}", ""]
    for release, why in scan.unusable.items():
        lines.append(f"- {release} left out: {why}")
    for release, keys in scan.no_verdict.items():
        lines.append(f"- {release}: {len(keys)} items with no verdict (harness error, case not loaded, "
                     f"worker crash), e.g. `{keys[0]}`: see {release}/results.jsonl")
    lines += ["", f"- items: {len(scan.items)}, ever failing: {len(ever)} "
                  f"({len(scan.variants(ever))} variants)",
              f"- found regressions (outcome changes between releases): {len(scan.found)} items, "
              f"{len(scan.variants(scan.found))} variants", ""]
    lines += per_release(scan)
    if found_groups:
        kinds = Counter(g.disposition.split(":")[0].split(" ")[0] for g in found_groups)
        lines += ["## Groups (window x failure)", "",
                  f"{len(found_groups)} groups: " + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())), "",
                  "| # | kind | windows | items | failure | disposition |", "|---|---|---|---|---|---|"]
        for n, g in enumerate(found_groups, 1):
            kind = "support lost" if g.support_lost else "regression"
            lines.append(f"| {n} | {kind} | {g.windows_text()} | {len(g.items)} | "
                         f"{' '.join(g.signature.split())[:120].replace('|', '/')} | "
                         f"{g.disposition.replace('|', '/')[:200]} |")
        lines.append("")
        lines += _untaken(found_groups)
    if scan.found:
        lines += ["## Found regressions", "", "| item | windows | failure |", "|---|---|---|"]
        for h in sorted(scan.found, key=lambda h: h.key):
            windows = "; ".join(f"{a}..{b}: {o}" if a != b else f"{a}: {o}" for a, b, o in h.windows(usable))
            signature = next(iter(dict.fromkeys(h.signatures.values())), "")
            lines.append(f"| `{h.key}` | {windows} | {' '.join(signature.split())[:160].replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def _untaken(found_groups: list[Group]) -> list[str]:
    """Per unexplained group, its failures that nothing takes, by release and signature:
    what is left to reduce or name."""
    lines = []
    for n, g in enumerate(found_groups, 1):
        if not g.untaken:
            continue
        by = Counter((release, r.outcome, signature_of(r)) for release, r in g.untaken)
        lines += [f"Group {n}, untaken:", ""]
        lines += [f"- {release} {outcome} x{count}: {' '.join(sig.split())[:140]}"
                  for (release, outcome, sig), count in sorted(by.items(), key=lambda x: Version(x[0][0]))]
        lines.append("")
    return (["## Untaken failures", ""] + lines) if lines else []


def as_json(scan: Scan, found_groups: list[Group] = ()) -> dict:
    usable = [r for r in scan.releases if r not in scan.unusable]
    return {"releases": scan.releases, "unusable": scan.unusable, "no_verdict": scan.no_verdict,
            "found": [{"item": h.key, "windows": h.windows(usable), "signatures": h.signatures,
                       "support_lost": h.support_lost()}
                      for h in sorted(scan.found, key=lambda h: h.key)],
            "groups": [{"windows": g.windows, "signature": g.signature, "items": [h.key for h in g.items],
                        "support_lost": g.support_lost, "disposition": g.disposition} for g in found_groups]}


def write(scan: Scan, out: Path, found_groups: list[Group] = ()) -> None:
    (out / "SCAN.md").write_text(render(scan, list(found_groups)))
    (out / "scan.json").write_text(json.dumps(as_json(scan, list(found_groups)), indent=1) + "\n")
