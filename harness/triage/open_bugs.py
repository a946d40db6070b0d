"""A report for every live bug the suite found itself (`iree-regress triage --open`).

An open bug that no upstream thread describes (`found_by`, still failing on the newest
release) needs an ISSUE.md upstream can act on even where triage has no good release to
bisect from. For each such case: its reproducer bundle on the newest release (the program,
inputs and expected values inline, steps that run as pasted: harness/bundle/), then what
the case measured (the releases, the window), and the nearest configuration that is right
on the same release (another level or target) as the contrast, or that none is. With
`check`, the steps are run as pasted in an empty folder where only that release is
installed, and the bug must show there.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

from ..bug import Bug
from ..case import Case
from ..item import ItemId, bug_items, run_item
from ..outcomes import PASS_OUTCOME
from ..process import Bounds, run_bounded
from ..stages import Settings

# What the pasted steps print when the bug shows, by the bug's outcome (bundle/paste.py).
_SHOWN = {"compile": "iree-compile failed", "run": "iree-run-module failed", "compare": "elements differ"}


@dataclass
class OpenReport:
    case: Case
    item: ItemId
    outcome: str
    contrast: str
    checked: str = ""  # "" (not checked), "shows the bug", or why not
    seconds: float = 0.0


def open_found_bugs(cases: list[Case]) -> list[Case]:
    """Cases the suite found whose bug is still open: those no upstream thread describes,
    and those a thread does (its ISSUE.md is then a comment there, a new reproducer)."""
    return [c for c in cases if c.found_by and c.history.windows and c.history.windows[-1].first_good is None]


def as_comment(case: Case) -> str:
    """The head of the ISSUE.md of a found bug an upstream thread already describes."""
    return (f"> **A comment for {', '.join(case.issues)}, not a new issue**: that thread describes this bug; "
            "the suite found it again in another program. Below is a new reproducer.\n\n")


def bug_item(case: Case) -> ItemId:
    """The item to report: the bug's own items first, cpu before the others."""
    items = [i for i in bug_items(case) if i.is_matrix] or [i for i in ItemId.of(case) if i.is_matrix]
    return sorted(items, key=lambda i: (i.target != "cpu", i.name))[0]


def nearest_right(case: Case, item: ItemId, bug: Bug, settings: Settings) -> str:
    """For a program that came in through ONNX, the same item through iree-turbine's export
    (it says the ONNX path is where it goes wrong); then another level of the same target,
    then another target, that is right on this release: a pass that can say something of
    the bug (a compile-only pass of a run-time bug cannot)."""
    if case.frontend != "torch":
        result = run_item(replace(case, frontend="torch"), item, settings)
        if result.outcome == PASS_OUTCOME and not bug.blind_to(result):
            return (f"`{item.name}` of the same PyTorch program imported by iree-turbine instead of through "
                    f"{case.frontend.upper()} is right on the same release (the same inputs and golden)")
    others = [i for i in ItemId.of(case) if i.is_matrix and i != item]
    others.sort(key=lambda i: (i.target != item.target, i.name))
    for other in others:
        result = run_item(case, other, settings)
        if result.outcome == PASS_OUTCOME and not bug.blind_to(result):
            return f"`{other.name}` on the same release is right (the same program and inputs)"
    tried = ", ".join(i.name for i in others) or "none"
    return f"none: every other item measured here shows a failure or cannot tell ({tried})"


def report(case: Case, out: Path, settings: Settings, check: bool = False) -> OpenReport:
    from ..bundle.write import write_bundle

    start = time.monotonic()
    bug = Bug.of(case)
    item = bug_item(case)
    result = run_item(case, item, settings)
    if result.outcome == PASS_OUTCOME:  # an "open" bug gone: said, never reported upstream
        raise ValueError(f"{case.slug}::{item.name} passes on {settings.toolchain.compiler_version}: "
                         "the bug no longer shows; prove the case again (`iree-regress prove --scan --write`)")
    write_bundle(case, result, settings, out, force=True)
    contrast = nearest_right(case, item, bug, settings)
    issue = out / "ISSUE.md"
    h = case.history
    issue.write_text((as_comment(case) if case.issues else "") + issue.read_text().rstrip() + "\n\n" + "\n".join([
        "## Releases measured", "",
        f"{h.describe()} ({', '.join(o for o in (h.bad_outcomes or ()))}), measured on "
        f"{h.measured or 'the releases of the window'} (`iree-regress prove {case.slug} --scan`).", "",
        "## Nearest configuration that is right", "",
        f"{contrast}.", ""]))
    r = OpenReport(case, item, result.outcome, contrast)
    if check:
        r.checked = check_as_pasted(issue, result.outcome, settings, out.parent / f".pasted-{case.slug}")
    r.seconds = round(time.monotonic() - start, 1)
    return r


def sh_block(issue: str) -> str:
    """The steps of an ISSUE.md, as a maintainer would paste them."""
    after = issue.split("## Steps to reproduce", 1)[1]
    return after.split("```sh\n", 1)[1].split("\n```", 1)[0]


def release_venv(folder: Path, toolchain) -> None:
    """A venv holding exactly one release's compiler and runtime (and numpy), as the
    steps' `pip install` leaves it: the release's own tools."""
    bin_ = folder / f"iree-{toolchain.release}" / "bin"
    bin_.mkdir(parents=True)
    for name, tool in (("iree-compile", toolchain.compile), ("iree-run-module", toolchain.run_module)):
        (bin_ / name).symlink_to(tool)
    (bin_ / "python").symlink_to(sys.executable)


def check_as_pasted(issue: Path, outcome: str, settings: Settings, empty: Path) -> str:
    """The steps run in an empty folder, in the sandbox (they hold a stranger's program and
    flags): "shows the bug", or what they showed instead. Only the folder is writable; the
    release's tools are what it reads besides the system."""
    import shutil

    shutil.rmtree(empty, ignore_errors=True)
    empty.mkdir(parents=True)
    tc = settings.toolchain
    try:
        release_venv(empty, tc)
        proc = run_bounded(["/bin/bash", "-c", sh_block(issue.read_text())], Bounds(timeout_s=600), cwd=empty,
                           writable=[empty], devices=True, readable=[Path(tc.compile).parent,
                                                                    Path(tc.run_module).parent])
    finally:
        shutil.rmtree(empty, ignore_errors=True)
    stdout = proc.stdout.decode(errors="replace")
    stage = outcome.split("-")[0]
    wanted = _SHOWN.get(stage, "")
    shown = [line for line in stdout.splitlines() if line.startswith("IREE ")]
    if wanted and any(wanted in line and " 0/" not in line for line in shown):
        return "shows the bug"
    return f"does not show it: {'; '.join(shown) or proc.stderr.strip()[-200:] or 'no output'}"
