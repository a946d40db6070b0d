"""A failing generated program made small before anyone reads it.

A generated variant (harness/sweep/compose.py) is its seed's draws: context slots around
the family op, and dynamic dims. The reduction leaves out one slot at a time, then the
dynamic dims; then, for any generated program (a graph has no slots), it edits forward()
line by line (reduce_lines.py: outputs left out, ops bypassed, dims made static). Each
change is kept only when the item still fails the same way (the same outcome and failure
signature, harness/signatures.py), on the same release, target, level and flags. Every trial is a program like any other: built by the sweep's builder in
the sandbox, its golden from PyTorch, its item run through the same stages.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..item import ItemId, run_item
from ..outcomes import PASS_OUTCOME
from ..sandbox import probe
from ..signatures import signature_of
from ..stages import Settings
from .compose import DROPPABLE
from .materialize import built_by, materialize, program_of
from .program import Program
from .reduce_lines import forward_span, reduce_lines
from .spec import SEED_AXIS, Sweep, Variant


class ReduceError(Exception):
    pass


@dataclass
class Reduction:
    before: Program
    after: Program
    dropped: tuple[str, ...]  # the slots left out: the variant's id and these rebuild `by_id`
    failure: tuple[str, str]  # (outcome, signature) kept throughout
    trials: list[tuple[tuple[str, ...], str]] = field(default_factory=list)  # (dropped, what it did)
    by_id: Program | None = None  # the program after the slots, before the line edits
    edited: tuple[str, ...] = ()  # the line edits kept (reduce_lines.py)


def failure_of(sweep: Sweep, variant: Variant, program: Program, item: ItemId,
               settings: Settings) -> tuple[str, str]:
    """(outcome, signature) of the item run on `program` in the variant's place: the
    signature as the scan groups failures by (harness/signatures.py)."""
    case, _ = materialize(sweep, variant, settings, program)
    result = run_item(case, item, settings)
    if result.outcome == PASS_OUTCOME:
        return result.outcome, ""
    return result.outcome, signature_of(result)


def reduce_variant(sweep: Sweep, variant: Variant, item: ItemId, settings: Settings,
                   failure_of=failure_of) -> Reduction:
    """The variant's program with what the failure does not need left out."""
    if SEED_AXIS not in variant.values():
        raise ReduceError(f"{sweep.name}::{variant.id}: not a generated program (no seed): nothing to leave out")
    before = program_of(sweep, variant, settings.sandbox)
    failure = failure_of(sweep, variant, before, item, settings)
    if failure[0] == PASS_OUTCOME:
        raise ReduceError(f"{sweep.name}::{variant.id}::{item.name} passes on {settings.toolchain.release}: "
                          "no failure to keep")
    kept: tuple[str, ...] = ()
    current = before
    trials = []
    for slot in DROPPABLE:
        trial = (*kept, slot)
        program = _built(sweep, variant, trial, settings)
        if program.source == current.source:
            continue  # the seed drew nothing there
        got = failure_of(sweep, variant, program, item, settings)
        same = got == failure
        trials.append((trial, "the same failure: left out" if same else f"kept: {got[0]} {got[1][:80]}".rstrip()))
        if same:
            kept, current = trial, program

    def same_failure(program: Program) -> tuple[bool, str]:
        got = failure_of(sweep, variant, program, item, settings)
        return got == failure, f"{got[0]} {got[1][:80]}".rstrip()

    by_id = current
    current, edited = reduce_lines(current, same_failure)
    trials += [((what,), did) for what, did in edited]
    return Reduction(before, current, kept, failure, trials, by_id,
                     tuple(what for what, did in edited if did.startswith("the same failure")))


def _built(sweep: Sweep, variant: Variant, drop: tuple[str, ...], settings: Settings) -> Program:
    point = {**variant.values(), "drop": list(drop)}
    return built_by(sweep.path, settings.sandbox or probe(), {"trial": point})["trial"]


def render(reduction: Reduction, name: str) -> str:
    lines = [f"reduce {name}: {reduction.failure[0]}: {reduction.failure[1][:160]}"]
    for dropped, what in reduction.trials:
        edit = f"without {', '.join(dropped)}" if set(dropped) <= set(DROPPABLE) else dropped[-1]
        lines.append(f"  {edit}: {what}")
    lines.append(f"left out: {', '.join((*reduction.dropped, *reduction.edited)) or 'nothing'}; forward() "
                 f"{forward_lines(reduction.before)} -> {forward_lines(reduction.after)} lines")
    lines += ["", reduction.after.source]
    return "\n".join(lines)


def forward_lines(program: Program) -> int:
    """How many lines the program's forward() has: what a reader reads."""
    start, end = forward_span(program.source.splitlines())
    return end - start
