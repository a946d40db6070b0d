"""The suite on each release: one run of `pytest cases/ --iree-release V --target T` per
release and target (ci/releases writes them as DIR/<V>-<T>/results.jsonl), counted into
the table docs/releases.md keeps. A release is honest when nothing on it failed: every
item a known bug affects is expected with that bug's match, on that item."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ..outcomes import ERROR, FAIL, PASS, SKIP, XFAIL, XPASS
from ..results import read_results

RUN_FOLDER = re.compile(r"^(?P<release>\d+\.\d+\.\d+)-(?P<target>[a-z]+)$")
COLUMNS = (PASS, XFAIL, FAIL, XPASS, ERROR, SKIP)
# Verdicts that make a release dishonest: a failure nobody explained, a known bug that did
# not show, or an item the harness could not judge.
RED = (FAIL, XPASS, ERROR)


@dataclass(frozen=True)
class ReleaseRun:
    release: str
    target: str
    counts: Counter
    failing: tuple[str, ...]  # case::item of each red item

    @property
    def red(self) -> int:
        return sum(self.counts[v] for v in RED)


def _release_key(release: str) -> tuple[int, ...]:
    return tuple(int(p) for p in release.split("."))


def read_runs(folder: Path) -> list[ReleaseRun]:
    """Every <release>-<target>/results.jsonl under `folder`, oldest release first."""
    runs = []
    for sub in sorted(Path(folder).iterdir()) if Path(folder).is_dir() else []:
        named = RUN_FOLDER.match(sub.name)
        if not named or not (sub / "results.jsonl").is_file():
            continue
        _, items = read_results(sub / "results.jsonl")
        counts = Counter(i.verdict for i in items)
        failing = tuple(sorted(f"{i.case}::{i.item}" for i in items if i.verdict in RED))
        runs.append(ReleaseRun(named["release"], named["target"], counts, failing))
    return sorted(runs, key=lambda r: (r.target, _release_key(r.release)))


def table(runs: list[ReleaseRun]) -> str:
    """One Markdown table per target: a release a row, a verdict a column."""
    out = []
    for target in sorted({r.target for r in runs}, key=lambda t: (t != "cpu", t)):
        mine = [r for r in runs if r.target == target]
        out += [f"**{target}**", "",
                "| release | " + " | ".join(v.lower() for v in COLUMNS) + " |",
                "|---|" + "---|" * len(COLUMNS)]
        out += [f"| {r.release} | " + " | ".join(str(r.counts[v]) for v in COLUMNS) + " |"
                for r in mine]
        red = [r for r in mine if r.red]
        out += ["", f"{target}: " + ("0 red on every release." if not red else
                                      f"red on {', '.join(r.release for r in red)}."), ""]
    return "\n".join(out)
