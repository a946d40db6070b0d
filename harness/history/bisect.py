"""Find the first version where a case's outcome changes, in either direction.

The search knows nothing of IREE: it takes an ordered list of versions and a probe
(version -> GOOD | BAD | SKIP) and finds the boundary between the two states, walking
from the `--good` end towards the `--bad` end. With --good older than --bad the list
runs oldest to newest and the answer is the first broken release; with --good newer
the caller reverses it, and the last GOOD before the boundary is the first fixed one.

Rules that upstream's own bisect script gets wrong:
  * a version that cannot be installed or imported is SKIP, never BAD;
  * an outcome that is neither the bug nor a pass (an unrelated compile error in an
    old release) is SKIP, so a bisect for a crash is not fooled by it;
  * a probe that disagrees with itself on a retry (flaky) is SKIP.
Skipped versions are stepped around as `git bisect skip` does; if the boundary lies
among skipped versions, the answer is the range that could not be decided.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable

from packaging.version import Version


# The states of a probe of the one bug definition (harness/bug.py).
from ..outcomes import PROBE_BAD as BAD, PROBE_GOOD as GOOD, PROBE_UNDECIDED as SKIP


@dataclass(frozen=True)
class Probe:
    version: str
    state: str  # good | bad | skip
    outcome: str  # the item's outcome, or why it was skipped
    seconds: float


@dataclass
class BisectResult:
    versions: list[str]  # searched, ordered from the good end to the bad end
    probes: list[Probe] = field(default_factory=list)
    first_bad: str | None = None  # first version (from the good end) in the bad state
    last_good: str | None = None
    undecided: list[str] = field(default_factory=list)  # skipped versions at the boundary
    error: str = ""

    @property
    def max_probes(self) -> int:
        """log2 of the candidates between the ends, plus the two end checks."""
        return math.ceil(math.log2(max(len(self.versions) - 1, 1))) + 2


def bisect(versions: list[str], probe: Callable[[str], Probe]) -> BisectResult:
    """versions[0] is the known-good end, versions[-1] the known-bad end.

    Both ends are probed first: a "good" end that is bad (or the reverse) means the
    question was wrong, and is reported rather than answered.
    """
    result = BisectResult(list(versions))
    if len(versions) < 2:
        result.error = "need at least two versions"
        return result
    states: dict[int, str] = {}

    def check(i: int) -> str:
        p = probe(versions[i])
        result.probes.append(p)
        states[i] = p.state
        return p.state

    lo, hi = 0, len(versions) - 1
    if check(lo) != GOOD:
        result.error = f"the good end {versions[lo]} is not good ({result.probes[-1].outcome})"
        return result
    if check(hi) != BAD:
        result.error = f"the bad end {versions[hi]} is not bad ({result.probes[-1].outcome})"
        return result
    # Invariant: states[lo] == GOOD, states[hi] == BAD, and every index strictly between
    # lo and hi is unprobed or SKIP.
    while True:
        pending = [i for i in range(lo + 1, hi) if i not in states]
        if not pending:
            break
        mid = (lo + hi) // 2
        # Nearest unprobed index to the middle (skips step around, as git bisect skip).
        i = min(pending, key=lambda j: (abs(j - mid), j))
        state = check(i)
        if state == GOOD:
            lo = i
        elif state == BAD:
            hi = i
    result.last_good, result.first_bad = versions[lo], versions[hi]
    result.undecided = [versions[i] for i in range(lo + 1, hi)]
    return result


def with_retries(probe: Callable[[str], Probe], retries: int) -> Callable[[str], Probe]:
    """Probe each version up to 1 + retries times; disagreement means flaky -> SKIP."""
    if retries <= 0:
        return probe

    def probe_again(version: str) -> Probe:
        start = time.monotonic()
        first = probe(version)
        for _ in range(retries):
            again = probe(version)
            if again.state != first.state:
                return Probe(version, SKIP, f"flaky: {first.outcome} then {again.outcome}",
                             time.monotonic() - start)
        return Probe(version, first.state, first.outcome, time.monotonic() - start)

    return probe_again


def format_result(result: BisectResult, direction: str) -> list[str]:
    lines = []
    n = len(result.versions)
    lines.append(f"{len(result.probes)} probes over {n} versions "
                 f"(a bisect needs at most ~log2({max(n - 1, 1)}) + 2 = {result.max_probes})")
    if result.error:
        lines.append(f"no answer: {result.error}")
    elif result.undecided:
        # Say the range oldest first: a fix search runs from the newer (good) end down.
        older, newer = ((result.first_bad, result.last_good) if direction == "fixed"
                        else (result.last_good, result.first_bad))
        lines.append(f"{direction} somewhere after {older} up to {newer}; "
                     f"undecided (skipped): {', '.join(sorted(result.undecided, key=Version))}")
    elif direction == "fixed":
        lines.append(f"first fixed: {result.last_good} (last broken: {result.first_bad})")
    else:
        lines.append(f"first broken: {result.first_bad} (last good: {result.last_good})")
    return lines
