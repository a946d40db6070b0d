"""One probe: an item of a case on one toolchain, judged by the case's bug.

Bisect over releases, bisect over local builds and `git bisect run` all probe through
`probe_toolchain`, so the three agree on what is bad (harness/bug.py decides).
"""

from __future__ import annotations

import time
from pathlib import Path

from ..bug import Bug
from ..case import Case
from ..item import ItemId, measured_as, run_item, settings_with
from ..runner import ItemResult
from ..stages import Settings
from ..toolchain import Toolchain, ToolchainError, from_tools_dir
from . import releases
from ..outcomes import PROBE_BAD, PROBE_GOOD, PROBE_UNDECIDED
from .bisect import BisectResult, Probe, bisect, with_retries


def probe_toolchain(case: Case, item: ItemId, bug: Bug, toolchain: Toolchain,
                    base: Settings | None = None) -> tuple[Probe, ItemResult]:
    start = time.monotonic()
    result = run_item(case, measured_as(case, item, toolchain.release), settings_with(toolchain, base))
    state = bug.state(result)
    shown = result.outcome + (" (compile-only)" if result.compile_only else "")
    if state.why:
        shown += f": {state.why}"
    return Probe(toolchain.compiler_version, state.kind, shown, time.monotonic() - start), result


def toolchains_in(tools_dir: Path) -> dict[str, Path]:
    """DIR/<version or commit>/ each holding one build's tools, by sortable folder name."""
    return {d.name: d for d in sorted(Path(tools_dir).iterdir()) if (d / "iree-compile").is_file()}


def bisect_item(case: Case, item: ItemId, bug: Bug, span: list[str], source, builds=None,
                retries: int = 0, log=print) -> tuple[BisectResult, dict[str, ItemResult]]:
    """Bisect `span` (good end first) over releases, or over local builds when given."""
    results: dict[str, ItemResult] = {}

    def probe(version: str) -> Probe:
        start = time.monotonic()
        try:
            tc = from_tools_dir(builds[version]) if builds else releases.ensure(version, source, log)
        except (releases.ReleaseUnavailable, ToolchainError) as e:
            p = Probe(version, PROBE_UNDECIDED, f"unavailable: {e}", time.monotonic() - start)
        else:
            p, results[version] = probe_toolchain(case, item, bug, tc)
            p = Probe(version, p.state, p.outcome, p.seconds)
        log(f"  probe {p.version:<22} {p.state:<5} {p.outcome[:70]:<70} {p.seconds:7.1f} s")
        return p

    return bisect(span, with_retries(probe, retries)), results


EXIT_GOOD, EXIT_BAD, EXIT_SKIP = 0, 1, 125


def git_bisect_exit(state: str) -> int:
    """`git bisect run`'s protocol: 0 good, 1 bad, 125 skip (never bad for what is not the bug)."""
    return {PROBE_BAD: EXIT_BAD, PROBE_GOOD: EXIT_GOOD}.get(state, EXIT_SKIP)
