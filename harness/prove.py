"""Prove a case: its bug shows on the release known to have it, and not on the fixed one.

A case proves nothing until it has been seen failing on a release with the bug. For
each case, the releases named in [history] are installed (cached) and the case's items
run on them:
  * last_bad:   does any item show `bad_outcome` (the bug, as the issue describes it)?
  * first_good: do those items pass there? (for an open bug: the newest release, which
                must still show the bug, as the case's [[expect]] entries say)
Items whose bug only shows where this machine cannot run (HIP/CUDA numerics) are
reported as "needs hardware", never as proof.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from packaging.version import Version

from .case import Case
from .probe import item_names, run_item, settings_with
from .releases import ReleaseSource, ReleaseUnavailable, ensure
from .runner import XFAIL, ItemResult, expectation_for, verdict
from .stages import Settings


@dataclass
class ReleaseRun:
    version: str
    results: list[ItemResult] = field(default_factory=list)
    error: str = ""
    seconds: float = 0.0

    def outcomes(self) -> dict[str, str]:
        return {r.name: r.outcome for r in self.results}


@dataclass
class Proof:
    case: Case
    bad: ReleaseRun | None
    good: ReleaseRun | None
    verdicts: list[str] = field(default_factory=list)  # human lines
    reproduced: bool | None = None  # None: could not tell (no release / needs hardware)
    fixed_passes: bool | None = None

    @property
    def guard(self) -> bool:
        return self.case.history.status == "guard"

    @property
    def proven(self) -> bool:
        if self.case.history.status == "open":
            return bool(self.reproduced)
        return bool(self.reproduced and self.fixed_passes)


def items_to_prove(case: Case) -> list[str]:
    """The items named in [history].bad_items, else every item of the case."""
    names = item_names(case)
    return [n for n in case.history.bad_items if n in names] or names


def run_release(case: Case, version: str, items: list[str], settings: Settings,
                source: ReleaseSource, log) -> ReleaseRun:
    run = ReleaseRun(version)
    start = time.monotonic()
    try:
        toolchain = ensure(version, source, log=log)
    except ReleaseUnavailable as e:
        run.error = str(e)
        return run
    on_release = settings_with(toolchain, settings)
    for name in items:
        run.results.append(run_item(case, name, on_release))
    run.seconds = time.monotonic() - start
    return run


def prove_case(case: Case, settings: Settings, newest: str, source: ReleaseSource = ReleaseSource(),
               log=print) -> Proof:
    h = case.history
    items = items_to_prove(case)
    proof = Proof(case, None, None)
    if h.status == "guard":
        # Nothing to reproduce: check it still passes where the fix is, and say what it is.
        proof.good = run_release(case, newest, items, settings, source, log)
        failing = [r for r in proof.good.results if r.outcome not in ("pass", "skip")]
        proof.fixed_passes = not failing and not proof.good.error
        proof.verdicts.append("guard (no release known to fail): "
                              + ("passes" if proof.fixed_passes else "does NOT pass") + f" on {newest}")
        return proof
    if not h.bad_outcome or not h.last_bad:
        proof.verdicts.append("no [history].last_bad/bad_outcome: nothing to prove against")
        return proof

    proof.bad = run_release(case, h.last_bad, items, settings, source, log)
    if proof.bad.error:
        proof.verdicts.append(f"{h.last_bad}: {proof.bad.error}")
    else:
        showing = [r for r in proof.bad.results if shows_bug(r, h.bad_outcome, h.last_bad)]
        hardware = [r for r in proof.bad.results if r.compile_only and h.bad_outcome in
                    ("run-fail", "run-crash", "compare-fail")]
        proof.reproduced = bool(showing)
        if showing:
            proof.verdicts.append(f"bug reproduced on {h.last_bad}: {h.bad_outcome} on "
                                  f"{', '.join(r.name for r in showing)}")
        elif hardware:
            proof.reproduced = None
            proof.verdicts.append(f"{h.last_bad}: {h.bad_outcome} can only show on hardware this "
                                  f"machine lacks ({', '.join(r.name for r in hardware)} compile-only)")
        else:
            proof.verdicts.append(f"bug NOT reproduced on {h.last_bad}: outcomes "
                                  f"{_summary(proof.bad)}")

    good_version = h.first_good if h.status != "open" else newest
    if good_version:
        proof.good = (proof.bad if good_version == h.last_bad else
                      run_release(case, good_version, items, settings, source, log))
        if proof.good.error:
            proof.verdicts.append(f"{good_version}: {proof.good.error}")
        elif h.status == "open":
            still = [r for r in proof.good.results if shows_bug(r, h.bad_outcome, good_version)]
            proof.verdicts.append(f"still open on {good_version}: {h.bad_outcome} on "
                                  f"{', '.join(r.name for r in still) or 'no item (fixed?)'}")
            proof.fixed_passes = None if still else True
        else:
            failing = [r for r in proof.good.results if r.outcome not in ("pass", "skip")]
            proof.fixed_passes = not failing
            proof.verdicts.append(
                f"passes on {good_version}" if not failing else
                f"does NOT pass on {good_version}: {', '.join(f'{r.name}={r.outcome}' for r in failing)}")
    return proof


def shows_bug(result: ItemResult, bad_outcome: str, version: str) -> bool:
    """The item fails the way the bug does: its outcome, and its message, which is
    [history].bad_match where the case gives one, else that of the [[expect]] that
    covers this item on this release (an XFAIL verdict)."""
    if result.outcome != bad_outcome:
        return False
    bad_match = result.case.history.bad_match
    if bad_match is not None:
        return bool(bad_match.search(result.failure_text()))
    expectation = expectation_for(result, Version(version))
    return expectation is None or verdict(result, expectation).kind == XFAIL


def _summary(run: ReleaseRun) -> str:
    counts: dict[str, int] = {}
    for r in run.results:
        counts[r.outcome] = counts.get(r.outcome, 0) + 1
    return ", ".join(f"{k} x{v}" for k, v in sorted(counts.items()))
