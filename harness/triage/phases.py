"""Where in the compiler two releases part ways: the first compilation phase whose
output differs in a way that matters.

`iree-compile --dump-compilation-phases-to=DIR` writes the IR after each phase as
`<name>.<n>.<phase>.mlir` (input, abi, preprocessing, global-optimization,
dispatch-creation, flow, stream, executable-sources, executable-configurations,
executable-targets, hal, vm), in every release checked (2.9.0-3.13.0). Given the dumps of
a good and a bad release for one input, `first_difference` names the first phase whose
output differs once what does not matter is stripped (locations, SSA names, the host
CPU's feature list, the executable target's attributes and alias names), with a short diff.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from ..process import Bounds, ProcessResult, run_bounded
from ..toolchain import Toolchain

_PHASE_FILE = re.compile(r".+\.(\d+)\.([\w-]+)\.mlir$")
_NOISE = (
    (re.compile(r"\s*loc\((?:[^()]|\([^()]*\))*\)"), ""),  # loc(...) attached to ops
    (re.compile(r"^#loc\d*\s*=.*$", re.M), ""),  # location aliases
    (re.compile(r"%[\w.$-]+"), "%v"),  # SSA names
    (re.compile(r'cpu_features\s*=\s*"[^"]*"'), 'cpu_features = "..."'),  # the host's, not the bug's
    (re.compile(r"//.*$", re.M), ""),  # comments
    (re.compile(r"[ \t]+"), " "),
)


@dataclass(frozen=True)
class PhaseDiff:
    phase: str  # e.g. "dispatch-creation"; "" when every phase agrees
    order: int
    diff: tuple[str, ...]  # the first lines of a unified diff (good -> bad)
    missing: str = ""  # a phase one release dumped and the other did not


def dump_phases(toolchain: Toolchain, mlir: Path, flags: list[str], out: Path,
                bounds: Bounds = Bounds(), locations: bool = False) -> ProcessResult:
    """Compile with the phases dumped into `out` (a failing compile dumps up to the
    phase it failed in); with `locations`, the dumps keep the source locations (a
    diagnostic read from them still names the original op)."""
    out.mkdir(parents=True, exist_ok=True)
    debuginfo = ["--mlir-print-debuginfo"] if locations else []
    return run_bounded([toolchain.compile, mlir, *flags, *debuginfo,
                        f"--dump-compilation-phases-to={out}", "-o", out / "module.vmfb"], bounds)


def phases(folder: Path) -> list[tuple[int, str, Path]]:
    """(order, phase, file) of each dump in `folder`, in compilation order."""
    found = []
    for path in Path(folder).glob("*.mlir"):
        m = _PHASE_FILE.match(path.name)
        if m:
            found.append((int(m.group(1)), m.group(2), path))
    return sorted(found)


# What differs between releases but is not the program: the executable target's
# attributes (their keys and values change with the release: an `iree.encoding.resolver`,
# a `max_stack_allocation_size`), and the names of the aliases that hold them.
_TARGET_ATTRIBUTES = ("#hal.executable.target<", "#hal.device.target<")
_TARGET_ALIAS = re.compile(r"#(executable_target|device_target)_[\w$.-]*")


def _strip_balanced(text: str, opener: str) -> str:
    """`opener...>` with what its brackets hold replaced by '...'."""
    out, at = [], 0
    while (start := text.find(opener, at)) >= 0:
        depth, i = 1, start + len(opener)
        while i < len(text) and depth:
            depth += {"<": 1, ">": -1}.get(text[i], 0)
            i += 1
        out.append(text[at:start] + opener + "...>")
        at = i
    return "".join(out) + text[at:]


def normalise(text: str) -> list[str]:
    for opener in _TARGET_ATTRIBUTES:
        text = _strip_balanced(text, opener)
    text = _TARGET_ALIAS.sub(r"#\1", text)
    for pattern, replacement in _NOISE:
        text = pattern.sub(replacement, text)
    return [line.strip() for line in text.splitlines() if line.strip()]


def differences(good: Path, bad: Path, context: int = 2, max_lines: int = 40,
                labels: tuple[str, str] = ("good", "bad")):
    """Each phase whose output differs, in compilation order; last, a phase only one
    release dumped (the bad one stopped before it, or dumped a phase the good one lacks).
    `labels` name the releases in the diffs."""
    good_phases = {name: (order, path) for order, name, path in phases(good)}
    bad_names = set()
    for order, name, bad_path in phases(bad):
        bad_names.add(name)
        if name not in good_phases:
            yield PhaseDiff(name, order, (), missing=f"only the bad release dumped {name}")
            return
        a, b = normalise(good_phases[name][1].read_text()), normalise(bad_path.read_text())
        if a != b:
            diff = difflib.unified_diff(a, b, f"{labels[0]}: {name}", f"{labels[1]}: {name}", n=context,
                                        lineterm="")
            yield PhaseDiff(name, order, tuple(diff)[:max_lines])
    later = [n for _, n, _ in phases(good) if n not in bad_names]
    if later:
        yield PhaseDiff(later[0], good_phases[later[0]][0], (),
                        missing=f"only the good release dumped {later[0]} (the bad one stopped before it)")


def first_difference(good: Path, bad: Path, context: int = 2, max_lines: int = 40) -> PhaseDiff:
    return next(differences(good, bad, context, max_lines), PhaseDiff("", 0, ()))
