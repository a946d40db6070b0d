"""Which pass, within a phase, made two releases part ways; and the pass a crash died in.

Each release compiles the same phase from its own dump of the phase before, printing the
whole module after every pass that changed it:

    iree-compile PREV.mlir --compile-from=PREV --compile-to=PHASE --mlir-print-ir-after-all
        --mlir-print-ir-after-change --mlir-print-ir-module-scope --mlir-disable-threading

Passes are renamed, added and reordered between releases, so they are not matched by
position: the culprit is the pass after which the bad release never again holds a module
the good release produced (after normalising away locations, SSA names and host CPU
features, as phases.py does).

A compile that fails or crashes writes `--mlir-pass-pipeline-crash-reproducer`; with
`--mlir-pass-pipeline-local-reproducer` its pipeline is the one pass that failed.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from .phases import normalise
from ..process import BOUNDS, Bounds, ProcessResult, run_bounded
from ..toolchain import Toolchain

# Up to 3.11: `Pass (flag) ('op' operation: @x)`; from 3.12: `Pass: flag{options} ('op' ...)`.
_HEADER = re.compile(r"^// -----// IR Dump After (\S+?)(?: Failed)?(?: \(([^)]*)\)|: ([\w.-]+)(?:\{.*?\})?)"
                     r"(?: \('([\w.]+)' operation[^)]*\))? ?//----- //\s*$", re.M)
_PIPELINE = re.compile(r'pipeline:\s*"((?:[^"\\]|\\.)*)"')
PRINT_CHANGES = ("--mlir-print-ir-after-all", "--mlir-print-ir-after-change",
                 "--mlir-print-ir-module-scope", "--mlir-disable-threading")


@dataclass(frozen=True)
class PassState:
    name: str  # the pass's class, e.g. PropagateLinalgTransposePass
    argument: str  # its flag, e.g. iree-global-opt-propagate-linalg-transpose
    ir: tuple[str, ...]  # the module after it, normalised
    raw: str = ""  # the module after it, as printed (to run the next pass on)
    anchor: str = ""  # the op the pass runs on, e.g. func.func


@dataclass(frozen=True)
class PassDiff:
    argument: str  # "" when the bad release produced nothing the good one did not
    name: str = ""
    good_instead: str = ""  # what the good release ran from the same module, if anything
    diff: tuple[str, ...] = ()  # labelled with the release (and pass) each side comes from
    # Passes that changed the module in one release's pipeline only: the first suspects
    # when the named pass itself did the same thing in both (a pass one release lacks).
    only_bad: tuple[str, ...] = ()
    only_good: tuple[str, ...] = ()
    before: str = ""  # the bad release's module just before the culprit, as printed
    anchor: str = ""  # the op the culprit runs on


def states(dump: str) -> list[PassState]:
    """The module after each pass, in order, from `--mlir-print-ir-after-*` output."""
    heads = list(_HEADER.finditer(dump))
    found = []
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(dump)
        raw = dump[head.end():end]
        found.append(PassState(head.group(1), head.group(2) or head.group(3), tuple(normalise(raw)), raw,
                               head.group(4) or ""))
    return found


def first_changed_pass(good_start: str, good_dump: str, bad_start: str, bad_dump: str,
                       context: int = 2, max_lines: int = 40,
                       labels: tuple[str, str] = ("the good release", "the bad release")) -> PassDiff:
    """The pass after which the bad release never again holds a module the good release
    produced, from each release's module before the phase and its pass-by-pass dump. A
    pass that changes the module in a way a later pass undoes (a different canonical
    form) is not the culprit: the last point of agreement decides. `labels` name the
    releases in the diff."""
    good = [PassState("", "(start)", tuple(normalise(good_start)), good_start)] + states(good_dump)
    seen = {s.ir: i for i, s in enumerate(good)}  # module -> its last position in good
    bad = [PassState("", "(start)", tuple(normalise(bad_start)), bad_start)] + states(bad_dump)
    changed = ({s.argument for s in good[1:]}, {s.argument for s in bad[1:]})
    only = dict(only_good=tuple(sorted(changed[0] - changed[1])), only_bad=tuple(sorted(changed[1] - changed[0])))
    agreed = max((i for i, s in enumerate(bad) if s.ir in seen), default=None)
    if agreed is None:  # never agreed, not even before the phase: the first pass that changed
        agreed = 0 if len(bad) > 1 else None
    if agreed is None or agreed + 1 >= len(bad):
        return PassDiff("", **only)
    culprit, previous = bad[agreed + 1], bad[agreed].ir
    at = seen.get(previous)
    after = good[at + 1] if at is not None and at + 1 < len(good) else None
    # Against what the good release made of the same module; failing that, against the
    # bad release's own module before the culprit (and say so: it is not the good one's).
    reference, reference_label = ((after.ir, f"{labels[0]} after {after.argument}") if after else
                                  (previous, f"{labels[1]} before {culprit.argument}"))
    diff = difflib.unified_diff(list(reference), list(culprit.ir), reference_label,
                                f"{labels[1]} after {culprit.argument}", n=context, lineterm="")
    return PassDiff(culprit.argument, culprit.name, after.argument if after else "",
                    tuple(diff)[:max_lines], **only, before=bad[agreed].raw, anchor=culprit.anchor)


# Where a pass that runs on an op may sit: at the top, or inside an executable's variant.
_NESTINGS = ("builtin.module({})", "builtin.module({anchor}({}))",
             "builtin.module(hal.executable(hal.executable.variant(builtin.module({anchor}({})))))")


def rerun_alone(tools: dict[str, Path], found: PassDiff, work: Path,
                bounds: Bounds = BOUNDS["triage-compile"]) -> tuple[bool | None, str]:
    """The named pass alone, run by each release's iree-opt on the same module (the bad
    release's, just before the pass): (True, why) when the releases' outputs differ, the
    pass confirmed; (False, why) when they agree; (None, why) when it could not be run."""
    if not found.argument or not found.before:
        return None, "no pass to rerun"
    source = work / "before-culprit.mlir"
    source.write_text(found.before)
    nestings = _NESTINGS[:1] if found.anchor in ("", "builtin.module") else _NESTINGS[1:]
    anchors = [n.format(found.argument, anchor=found.anchor) for n in nestings]
    why = ""
    for pipeline in anchors:
        outputs = {}
        for name, tool in tools.items():
            out = work / f"alone-{name}.mlir"
            proc = run_bounded([tool, source, f"--pass-pipeline={pipeline}", "-o", out], bounds)
            if not proc.ok:
                last = proc.stderr_tail().strip().splitlines()
                why = f"{name}'s iree-opt: {last[-1][:200] if last else proc.status()}"
                break
            outputs[name] = tuple(normalise(out.read_text()))
        if len(outputs) == len(tools):
            same = len(set(outputs.values())) == 1
            return (not same, f"`{pipeline}` on both releases: "
                    + ("the same module (the pass alone does not part them)" if same else "different modules"))
    return None, f"could not run the pass alone ({why})"


def print_changes(tool: Path, start: Path, args: list[str], out: Path,
                  bounds: Bounds = Bounds()) -> ProcessResult:
    """`tool start args` with every changing pass printed into `out`."""
    return run_bounded([tool, start, *args, *PRINT_CHANGES, "-o", out.with_suffix(".result.mlir")],
                       bounds, stderr_copy=out)


def phase_args(flags: list[str], from_phase: str | None, to_phase: str) -> list[str]:
    """iree-compile's arguments for one phase: from the dump of the phase before it (or
    the input when `from_phase` is None) to the end of `to_phase`."""
    return [*flags, *([f"--compile-from={from_phase}"] if from_phase else []), f"--compile-to={to_phase}"]


def crash_pipeline(toolchain: Toolchain, mlir: Path, flags: list[str], reproducer: Path,
                   bounds: Bounds = Bounds()) -> tuple[str, ProcessResult]:
    """The pass pipeline of the local crash reproducer a failing compile writes ('' when
    it writes none)."""
    proc = run_bounded([toolchain.compile, mlir, *flags,
                        f"--mlir-pass-pipeline-crash-reproducer={reproducer}",
                        "--mlir-pass-pipeline-local-reproducer", "--mlir-disable-threading",
                        "-o", reproducer.with_suffix(".vmfb")], bounds)
    reproducer.with_suffix(".vmfb").unlink(missing_ok=True)
    if not reproducer.is_file():
        return "", proc
    m = _PIPELINE.search(reproducer.read_text(errors="replace")[-20000:])
    return (m.group(1) if m else ""), proc


def innermost(pipeline: str) -> str:
    """The pass a local reproducer's pipeline runs: 'builtin.module(hal.executable(...(x)))' -> 'x'."""
    inner = pipeline.rstrip(")").rsplit("(", 1)[-1]
    return inner.split("{", 1)[0] or pipeline
