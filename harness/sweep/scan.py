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
its importer does not know or does not lower yet: `custom op 'torch.aten._assert_tensor_
metadata' is unknown`) is "unsupported" there, shown in its windows, but a change to or
from it is support arriving, not a regression.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..outcomes import HARNESS_OUTCOMES, PASS_OUTCOME, SKIP_OUTCOME
from ..record import ItemRecord
from ..results import read_results
from ..signatures import signature_of
from .spec import Sweep

# A release where one failure covers this share of the items failed as a whole.
RELEASE_WIDE = 0.9
UNSUPPORTED = "unsupported"
# What a compiler says of a program it cannot read yet (its importer's coverage, not a bug).
_UNSUPPORTED = re.compile(r"custom op '[\w.]+' is unknown|failed to legalize operation "
                          r"'torch\.(?:aten|prims|operator)[\w.]*'(?: that was explicitly marked illegal)?")


def run_release(sweeps: list[Sweep], release: str, targets: str, levels: str, out: Path,
                extra: list[str] = ()) -> int:
    """Run the sweeps on one release into out/<release>/ (pytest's exit code)."""
    reports = out / release
    argv = [sys.executable, "-m", "pytest", *[str(s.path) for s in sweeps], "--iree-release", release,
            "--target", targets, "--opt-level", levels, "-n", "auto", "-q", "-p", "no:cacheprovider",
            "--iree-reports-dir", str(reports), *extra]
    return subprocess.run(argv).returncode


@dataclass
class ItemHistory:
    key: str  # <family>::<variant>::<item>
    outcomes: dict[str, str] = field(default_factory=dict)  # release -> outcome
    signatures: dict[str, str] = field(default_factory=dict)  # release -> failure signature

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

    @property
    def changes(self) -> bool:
        return len(set(self.outcomes.values()) - {UNSUPPORTED}) > 1

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
    """The scan of what `out/<release>/results.jsonl` hold (releases without one are skipped)."""
    per_release: dict[str, list[ItemRecord]] = {}
    for release in releases:
        path = out / release / "results.jsonl"
        if path.is_file():
            per_release[release] = read_results(path)[1]
    unusable = {}
    no_verdict: dict[str, list[str]] = {}
    items: dict[str, ItemHistory] = {}
    for release, records in per_release.items():
        ran = [r for r in records if r.outcome != SKIP_OUTCOME]
        failures = Counter((r.outcome, signature_of(r)) for r in ran if r.outcome != PASS_OUTCOME)
        if ran and failures:
            (outcome, signature), n = failures.most_common(1)[0]
            if n >= RELEASE_WIDE * len(ran):
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
    scanned = [r for r in releases if r in per_release]
    return Scan(scanned, unusable, items, no_verdict)


def render(scan: Scan) -> str:
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
    if scan.found:
        lines += ["## Found regressions", "", "| item | windows | failure |", "|---|---|---|"]
        for h in sorted(scan.found, key=lambda h: h.key):
            windows = "; ".join(f"{a}..{b}: {o}" if a != b else f"{a}: {o}" for a, b, o in h.windows(usable))
            signature = next(iter(dict.fromkeys(h.signatures.values())), "")
            lines.append(f"| `{h.key}` | {windows} | {' '.join(signature.split())[:160].replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def as_json(scan: Scan) -> dict:
    usable = [r for r in scan.releases if r not in scan.unusable]
    return {"releases": scan.releases, "unusable": scan.unusable, "no_verdict": scan.no_verdict,
            "found": [{"item": h.key, "windows": h.windows(usable), "signatures": h.signatures}
                      for h in sorted(scan.found, key=lambda h: h.key)]}


def write(scan: Scan, out: Path) -> None:
    (out / "SCAN.md").write_text(render(scan))
    (out / "scan.json").write_text(json.dumps(as_json(scan), indent=1) + "\n")
