"""`iree-regress triage CASE::ITEM`: from a red item to an upstream-ready issue.

    1 when     bisect over releases with the case's bug: first bad / last good, and
               their git revisions
    2 reduce   the smallest program that still shows the bug on the bad release and not
               on the good one (oracle.py): operand forwarding (forward.py), then
               iree-reduce through the wheel's library (reducer.py)
    3 where    the compilation phases whose output differs (phases.py), each confirmed
               or rejected by compiling one release's phase output onward with the
               other release; the first pass within the confirmed one (passes.py); for
               failures, the failing pass; and, what works where the releases cannot
               read each other's IR, the bad release with the good release's option
               defaults (options.py)
    4 issue    a bundle whose ISSUE.md says all of it, with steps that run as pasted
               (issue.py)

Each step records what it measured and its seconds in `Triage`, written as TRIAGE.json.
A step that cannot be done says why and the next steps go on with what there is.
"""

from __future__ import annotations

import shutil
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import reducer
from ..bug import Bug
from ..case import Case
from ..history import releases
from ..history.bisect import BisectResult
from ..history.probe import bisect_item
from ..item import ItemId, settings_with
from ..outcomes import NUMBERS_OUTCOMES, PASS_OUTCOME
from .phases import PhaseDiff, differences, dump_phases, phases
from .where import RUNTIME, localized
from ..reference import load_arrays, npy_files
from ..stages import compile_flags, import_stage
from ..toolchain import Toolchain
from . import forward, options, passes
from .oracle import DIFFERENTIAL_FLOOR, Question, Side, interesting, observe, shows_bug
from .program import SignatureError, inputs_for, signature, size, write_inputs

REPO = Path(__file__).resolve().parent.parent.parent


@dataclass
class Triage:
    case: Case
    item: ItemId
    bug: Bug
    log: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    direction: str = "broken"  # broken: good is older; fixed: good is newer; alone: no good release
    bisect: BisectResult | None = None
    bad: Toolchain | None = None
    good: Toolchain | None = None
    question: Question | None = None
    start: Path | None = None  # the program the reduction started from
    start_note: str = ""
    start_is_torch: bool = False  # the torch-dialect import, which iree-reduce cannot read
    start_check: str = ""
    reduced: Path | None = None
    reduction: str = ""
    reduced_check: tuple[bool, str] | None = None
    inputs_note: str = ""
    phase: PhaseDiff | None = None
    # Both swaps of the phase's output carried the bug with the bad release (or the bad
    # release stops in it, or the bug followed its runtime): the phase may be named.
    phase_confirmed: bool = False
    confirmation: list[str] = field(default_factory=list)
    pass_diff: passes.PassDiff | None = None
    pass_confirmed: bool | None = None  # the pass alone parts the releases (None: not run)
    pass_check: str = ""
    failing_pass: str = ""
    crash_reproducer: Path | None = None
    options: options.OptionsResult | None = None  # the bad release with the good one's option defaults
    problems: list[str] = field(default_factory=list)
    # A differential item is triaged across releases on one side's compile: the side
    # whose outputs moved between the good and the bad release (b first, then a).
    side: str = "b"

    @property
    def configuration(self) -> tuple[str, str, tuple[str, ...]]:
        """(target, opt level, flags beyond the case's) of the compile triaged: the matrix
        item's, or the differential item's side."""
        if self.item.is_differ:
            differ = self.case.differ_named(self.item.differ)
            side = differ.b if self.side == "b" else differ.a
            return side.target, side.opt_level, side.flags
        return self.item.target, self.item.opt_level, ()

    @property
    def target(self) -> str | None:
        return self.configuration[0]

    def say(self, line: str) -> None:
        self.log.append(line)
        print(line, flush=True)

    @property
    def program(self) -> Path | None:
        """The smallest program that shows the bug: the reduced one, else the start."""
        return self.reduced if self.reduced and self.reduced_check and self.reduced_check[0] else self.start


@contextmanager
def _timed(t: Triage, step: str):
    start = time.monotonic()
    try:
        yield
    finally:
        t.seconds[step] = round(time.monotonic() - start, 1)


# ------------------------------------------------------------------------------ when

# A start program that is a release's dump of IREE's input phase (what the import made).
INPUT_DUMP = "`--compile-to=input` output of the case"
# A torch case's program as iree-turbine imported it (torch dialect, before the input phase).
TORCH_IMPORT = "torch-dialect import (before IREE's input phase)"


def default_ends(case: Case, which: str | None = None) -> list[tuple[str, str, str]]:
    """(good, bad, direction) to try, from the case's newest window: the onset first
    (last good .. first bad), then the fix (first good back to last bad); `which`
    ("broken" / "fixed") asks for one of them only. The ends are the window's own
    boundary releases: an item that shows the bug on only part of the window (one level
    of a case whose IR check shows it earlier) is still bad next to the fix."""
    if not case.history.windows:
        return []
    w = case.history.windows[-1]
    ends = []
    if w.last_good:
        ends.append((w.last_good, w.first_bad, "broken"))
    if w.first_good:
        ends.append((w.first_good, w.last_bad, "fixed"))
    if w.hidden_before:  # another failure hides the onset: the fix is the boundary releases show
        ends.reverse()
    return [e for e in ends if which in (None, e[2])]


def when(t: Triage, source, good: str | None, bad: str | None, which: str | None = None) -> bool:
    available = releases.available(source)
    if good and bad:
        tries = [(good, bad, "fixed" if available.index(good) > available.index(bad) else "broken")]
    else:
        tries = default_ends(t.case, which)
        if not tries and default_ends(t.case):  # asked for the end the window does not have
            t.problems.append(f"the window has no {'fix' if which == 'fixed' else 'measured onset'} to triage: "
                              f"{t.case.history.describe()}")
            return False
        if len(tries) == 2:
            t.say(f"when: the window has an onset and a fix; the {'onset' if tries[0][2] == 'broken' else 'fix'} "
                  "is triaged first (--fix for the fix, --onset for the onset only)")
        if not tries:
            w = t.case.history.windows[-1] if t.case.history.windows else None
            if w is not None and w.hidden_before:
                # No release before it passes, and it is still open: no good end to search from.
                why = (f"no good release to bisect from: up to {w.hidden_before} the items fail "
                       f"another way ({w.hidden_by}), and the window is open")
            elif w is not None:
                # It shows on the oldest release measured and is still open: nothing passes.
                why = f"no good release to bisect from: the bug shows on every release measured " \
                      f"({t.case.history.describe()})"
            else:
                t.problems.append("the case has no measured window: give --good and --bad")
                return False
            return _alone(t, source, w.last_bad, why)
    for good_v, bad_v, direction in tries:
        for v in (good_v, bad_v):
            if v not in available:
                t.problems.append(f"version {v} is not available (have {', '.join(available)})")
                return False
        lo, hi = sorted((available.index(good_v), available.index(bad_v)))
        span = available[lo:hi + 1]
        if direction == "fixed":
            span.reverse()
        t.say(f"when: bisect {t.case.slug}::{t.item} over {span[0]} .. {span[-1]} ({direction}); "
              f"bad = {t.bug.description}")
        result, _ = bisect_item(t.case, t.item, t.bug, span, source,
                                log=lambda line: t.say(line))
        t.bisect, t.direction = result, direction
        if not result.error and not result.undecided:
            _take(t, result.last_good, result.first_bad, source)
            t.say(f"when: {'first fixed' if direction == 'fixed' else 'first bad'} "
                  f"{result.last_good if direction == 'fixed' else result.first_bad}; "
                  f"bad {t.bad.compiler_version} @ {t.bad.compiler_revision[:12]}, "
                  f"good {t.good.compiler_version} @ {t.good.compiler_revision[:12]}")
            return True
        t.say(f"when: no answer over {span[0]} .. {span[-1]}: "
              f"{result.error or 'undecided: ' + ', '.join(result.undecided)}")
        if not result.error and result.undecided:
            # Another failure hides the boundary between two decided releases: they are
            # the nearest good and bad there are; the releases between are said.
            t.problems.append(f"the boundary lies somewhere in {', '.join(result.undecided)} (they fail another "
                              f"way); triaged between {result.first_bad} (bad) and {result.last_good} (good)")
            _take(t, result.last_good, result.first_bad, source)
            return True
    window = t.case.history.windows[-1] if t.case.history.windows and not (good and bad) else None
    if window is None or not window.last_good:
        t.problems.append(f"bisect found no boundary: {(t.bisect.error if t.bisect else '') or 'no decided releases'}")
        return False
    # The release before the onset shows another outcome (it cannot read the program, say):
    # the window `prove --scan` measured is the boundary; the oracle decides what it means.
    t.problems.append(f"bisect could not confirm the onset ({t.bisect.error}); the case's measured "
                      f"window {window.last_good} < {window.first_bad} is used")
    t.bisect = BisectResult([window.last_good, window.first_bad], t.bisect.probes,
                            window.first_bad, window.last_good)
    t.direction = "broken"
    _take(t, window.last_good, window.first_bad, source)
    return True


def _alone(t: Triage, source, bad: str, why: str) -> bool:
    """An open bug no release passes: a compiler failure is still triaged on its newest bad
    release alone (a reduced program that fails the same way, and the failing pass); wrong
    numbers and IR checks need a release that is right to compare with."""
    if t.item.is_ir or t.bug.needs_device():
        t.problems.append(f"{why}; on one release alone only a compiler failure is triaged (this bug shows "
                          "at run time or in an IR check): give --good and --bad")
        return False
    t.say(f"when: {why}: triaged on IREE {bad} alone (no boundary; a reduced program and the failing pass)")
    t.bad, t.good = releases.ensure(bad, source, t.say), None
    t.bug = t.bug.at(t.bad.release)
    t.bisect = BisectResult([bad], [], bad, None)
    t.direction = "alone"
    return True


def _take(t: Triage, good: str, bad: str, source) -> None:
    t.good, t.bad = releases.ensure(good, source, t.say), releases.ensure(bad, source, t.say)
    t.bug = t.bug.at(t.bad.release)  # the bad release's window: what its candidates must show


# ---------------------------------------------------------------------------- reduce

def _item_outcomes(t: Triage) -> tuple[str, ...]:
    """The bug's outcomes this item can show: a case's bug of wrong numbers *or* a failing
    IR check is wrong numbers on a matrix item, and the check's failure on an IR item."""
    ir = tuple(o for o in t.bug.outcomes if o.startswith("ir-"))
    rest = tuple(o for o in t.bug.outcomes if not o.startswith("ir-"))
    return (ir if t.item.is_ir else rest) or t.bug.outcomes


def _mode(t: Triage) -> str:
    if t.item.is_ir:
        return "ir"
    outcomes = set(_item_outcomes(t))
    if outcomes <= set(NUMBERS_OUTCOMES):  # a differential item's side: its numbers across releases
        return "differential"
    # Wrong numbers on some releases, a failure on others: as the bad release shows it.
    shown = [p.outcome for p in (t.bisect.probes if t.bisect else ()) if p.version == t.bisect.first_bad]
    return "differential" if set(NUMBERS_OUTCOMES) & outcomes & set(shown) else "outcome"


def frame_question(t: Triage, work: Path) -> list[tuple[Path, str]]:
    """The oracle's question, and the programs it may start from, best first."""
    mode = _mode(t)
    sides = {}
    starts: list[tuple[Path, str]] = []
    ir = {}
    for name, tc in (("bad", t.bad), ("good", t.good)):
        if tc is None:  # an open bug triaged on its bad release alone
            continue
        settings = settings_with(tc)
        if t.item.is_ir:
            check = next(c for c in t.case.ir_checks if c.name == t.item.ir_check)
            ir = {"tool": check.tool, "args": list(check.args), "checks": str(check.checks),
                  "prefix": check.check_prefix}
            sides[name] = Side(tc, ())
            source = t.case.mlir_for(tc.release) if check.input == t.case.mlir else check.input
            starts.append((source, f"the check's input ({source.name}, as {name} release reads it)"))
            continue
        target, level, more = t.configuration
        flags = tuple(compile_flags(t.case, target, level, settings, more))
        sides[name] = Side(tc, flags)
        _, mlir = import_stage(t.case, settings)
        if mlir is None:
            continue
        dump = work / f"phases-{name}-original"
        dump_phases(tc, mlir, list(flags), dump, locations=True)
        found = [p for _, phase, p in phases(dump) if phase == "input"]
        if found:  # iree-reduce knows no torch dialect: reduce what the input phase made
            starts.append((found[0], f"the {name} release's {INPUT_DUMP}"))
        if name == "bad":
            # A torch case's imported program is in the torch dialect, which only operand
            # forwarding reduces; it is the start when the releases part ways inside the
            # input phase (torch-mlir's lowering), which the input dumps already hold.
            starts.append((mlir, f"the case's own {mlir.name}" if t.case.torch_model is None
                           else f"the case's {TORCH_IMPORT}"))
    inputs: tuple[str, ...] = ()
    n_outputs = 0
    if starts and (mode == "differential" or (mode == "outcome" and t.bug.needs_device())):
        offered = load_arrays(t.case.inputs_dir) if t.case.inputs_dir.is_dir() else []
        try:
            sig = signature(starts[0][0].read_text(), t.case.function)
            arrays, t.inputs_note = inputs_for(sig, offered)
            n_outputs = len(sig.results)
        except SignatureError:  # an imported torch program's entry point takes buffer views
            arrays, t.inputs_note = offered, "the case's inputs (the entry point takes buffer views)"
            n_outputs = len(npy_files(t.case.expected_dir))
        inputs = tuple(str(p) for p in write_inputs(arrays, work / "inputs"))
    # Across releases, differences below the floor are rounding, not this bug.
    atol = max(t.case.atol, DIFFERENTIAL_FLOOR) if mode == "differential" else t.case.atol
    rtol = max(t.case.rtol, DIFFERENTIAL_FLOOR) if mode == "differential" else t.case.rtol
    t.question = Question(mode, sides["bad"], sides.get("good"), _item_outcomes(t),
                          t.bug.match.pattern if t.bug.match else None, t.target,
                          t.case.function, inputs, n_outputs, atol, rtol, ir, str(work))
    return starts


def _question(t: Triage, work: Path) -> bool:
    """The oracle's question and its start program. A differential item's side b is
    asked first (the compile with the flag); where its outputs did not move between the
    releases, side a is."""
    if choose_start(t, frame_question(t, work)):
        return True
    if not t.item.is_differ or t.side != "b":
        return False
    before = len(t.problems) - 1  # choose_start said why side b gave no question
    why = t.problems.pop(before)
    t.side = "a"
    t.say(f"question: side b's compile is the same on both releases ({why[:160]}); side a's is asked")
    if choose_start(t, frame_question(t, work)):
        return True
    t.problems[before:] = [f"neither side's compile changed between the releases: side b: {why}; side a: "
                           + "; ".join(t.problems[before:])]
    return False


def choose_start(t: Triage, starts: list[tuple[Path, str]]) -> bool:
    """The first program that shows the bug on the bad release and not on the good; the
    good release's outcome on it is what every candidate must give there too."""
    whys = []
    for path, note in starts:
        good_outcome = observe(t.question, t.question.good, path, t.bug.needs_device()).result.outcome \
            if t.question.mode != "differential" and t.question.good else PASS_OUTCOME
        q = t.question.with_good_outcome(good_outcome)
        yes, why = interesting(q, path)
        t.say(f"reduce: start from {note}: {'shows the bug' if yes else 'no'} ({why[:160]})")
        if yes:
            t.question, t.start, t.start_note, t.start_check = q, path, note, why
            t.start_is_torch = "!torch." in path.read_text()
            return True
        whys.append(f"{note}: {why[:200]}")
    t.problems.append("no program shows the bug on the bad release and not on the good one; "
                      + "; ".join(whys or ["nothing to start from"]))
    return False


def reduce_program(t: Triage, work: Path) -> None:
    """Operand forwarding first (cheap, and it cuts chains iree-reduce keeps whole), then
    iree-reduce on what is left; the result is asked of the oracle once more."""
    _forward(t, work)
    question = t.question.save(work / "question.json")
    script = work / "interesting.sh"
    script.write_text(f'#!/bin/sh\nPYTHONPATH="{REPO}" exec "{sys.executable}" -m harness.triage.oracle '
                      f'"{question}" "$1"\n')
    script.chmod(0o755)
    if t.start_is_torch:  # iree-reduce crashes on the torch dialect
        t.say("reduce: iree-reduce reads no torch dialect: operand forwarding is the reduction")
        _recheck(t, work)
        return
    for tc in (tc for tc in (t.bad, t.good) if tc):  # some releases' reducers crash on their own candidates
        out = work / f"reduced-{tc.compiler_version}.mlir"
        result = reducer.reduce(tc, t.reduced, script, out)
        tried = sum(1 for _ in open(work / "oracle.log")) if (work / "oracle.log").is_file() else 0
        t.say(f"reduce: iree-reduce of {tc.compiler_version}: {result.detail} "
              f"({result.seconds:.0f} s, {tried} candidates)")
        if result.ok:
            if size(out.read_text()) < size(t.reduced.read_text()):
                t.reduced = out
                t.reduction += f", then iree-reduce of IREE {tc.compiler_version}"
            break
    else:
        t.problems.append(f"iree-reduce did not run to the end: {result.detail}")
    _recheck(t, work)


def _recheck(t: Triage, work: Path) -> None:
    """The reduced program asked of the oracle once more, without locations if it can."""
    plain = work / "reduced-plain.mlir"
    plain.write_text(forward.without_locations(t.reduced.read_text()))
    plain_check = interesting(t.question, plain) if plain.read_text() != t.reduced.read_text() else None
    if plain_check and plain_check[0]:
        t.reduced, t.reduced_check = plain, plain_check  # locations name this machine's files: dropped
    else:  # kept only because the bug needs them
        t.reduced_check = interesting(t.question, t.reduced)
    t.say(f"reduce: the reduced program {'shows' if t.reduced_check[0] else 'does NOT show'} the bug "
          f"on {t.bad.compiler_version}" + (f" and not on {t.good.compiler_version}" if t.good else "")
          + f": {t.reduced_check[1][:200]}")


def _forward(t: Triage, work: Path) -> None:
    """Operand forwarding (forward.py), each step asked of the oracle."""
    source = t.start
    candidate = work / "forward-candidate.mlir"

    def still_interesting(text: str) -> bool:
        candidate.write_text(text)
        return interesting(t.question, candidate)[0]

    start = time.monotonic()
    text = source.read_text()
    plain = forward.plain_entry(text, t.case.function)
    if plain is not None and still_interesting(plain):  # tensors in and out, no ABI wrappers
        t.say("reduce: the entry point takes and returns tensors (the import ABI taken off)")
        text = plain
    text, asked = forward.reduce_text(text, still_interesting, log=t.say)
    out = work / "forwarded.mlir"
    out.write_text(text)
    t.say(f"reduce: operand forwarding: {size(source.read_text())[0]} -> {size(text)[0]} ops "
          f"({asked} candidates, {time.monotonic() - start:.0f} s)")
    t.reduced, t.reduction = out, "operand forwarding"


# ----------------------------------------------------------------------------- where

def where(t: Triage, work: Path) -> None:
    q, program = t.question, t.program
    if q.good is None:  # one release: no phase or pass to compare, only where it fails
        _failing_pass(t, program)
        return
    if q.mode == "ir":  # a pass pipeline, not phases: find the pass directly
        runs = {name: (side.toolchain.opt if q.ir["tool"] == "iree-opt" else side.toolchain.compile,
                       program, list(q.ir["args"])) for name, side in (("good", q.good), ("bad", q.bad))}
        t.pass_diff = _pass_diff(t, work, runs)
        t.say(f"where: the check's pipeline ({q.ir['tool']} {' '.join(q.ir['args'])[:80]}): "
              f"first pass whose output differs: {t.pass_diff.argument or '(none)'}")
        return
    reference = _good_outputs(t)  # computed once: every swap and option experiment is judged by it
    dumps = {}
    for name, side in (("good", q.good), ("bad", q.bad)):
        dumps[name] = work / f"phases-{name}"
        shutil.rmtree(dumps[name], ignore_errors=True)
        dump_phases(side.toolchain, program, list(side.flags), dumps[name])
    # The first phase that differs may differ by noise (a renamed dispatch): the culprit is
    # the first one whose output carries the bug across releases.
    confirmed, untested = False, None
    for diff in differences(dumps["good"], dumps["bad"],
                            labels=(f"IREE {t.good.compiler_version}", f"IREE {t.bad.compiler_version}")):
        t.phase = diff
        t.say(f"where: phase {diff.phase} differs"
              f"{' (' + diff.missing + ')' if diff.missing else ''}")
        swapped = True if diff.missing else _confirm(t, dumps, reference)
        if swapped is None and untested is None:
            untested = diff  # a swap could not be decided, none went against: not excluded
        if swapped:
            confirmed = t.phase_confirmed = True
            break
    if confirmed and untested is not None:
        # The bug is in the IR by the end of the confirmed phase; an earlier phase that
        # differs and could not be swapped may hold it: name the earliest, unconfirmed.
        line = (f"{untested.phase}: its swaps could not both be decided (a release cannot compile the "
                f"other's output), so they did not test it; the bug "
                f"{'shows from' if t.phase.missing else 'follows the IR from'} {t.phase.phase} on, so the "
                f"culprit is in {untested.phase} or a phase after it up to {t.phase.phase}")
        t.confirmation.append(line)
        t.say("where: " + line)
        t.problems.append(f"the phase {untested.phase} is named unconfirmed (its output could not be swapped)")
        t.phase, t.phase_confirmed = untested, False
    if t.phase is None:
        t.say("where: every phase's output is the same on both releases")
        _runtime_swap(t, reference)
    elif not confirmed:
        t.problems.append(f"no phase carries the bug across releases when swapped; {t.phase.phase}, "
                          "the last that differs, is named unconfirmed")
    if t.phase is not None and not t.phase.missing and t.phase.phase != RUNTIME:
        _pass_in_phase(t, dumps, work)
    _failing_pass(t, program)
    _option_defaults(t, reference)
    t.say("where: " + localized(t))


def _good_outputs(t: Triage) -> list | None:
    """What every wrong-numbers experiment is judged against: the good release's outputs
    on the triaged program (None for a failure, which is judged by its outcome)."""
    q = t.question
    return observe(q, q.good, t.program, True).outputs if q.mode == "differential" else None


def _option_defaults(t: Triage, reference) -> None:
    """The bad release compiled with the good release's option defaults (and back): it
    needs no IR the other release reads, so it answers where phase swaps cannot."""
    t.options = options.localize(t.question, t.program, reference, t.say)
    if t.options.found is None:
        t.say(f"where: options: nothing named ({t.options.why_none})")


def _failing_pass(t: Triage, program: Path) -> None:
    """For a compiler failure: the pass the bad release fails in, from MLIR's local
    crash reproducer."""
    q = t.question
    if q.mode == "outcome" and not t.bug.needs_device():
        reproducer = Path(q.work) / "crash-reproducer.mlir"
        pipeline, _ = passes.crash_pipeline(q.bad.toolchain, program, list(q.bad.flags), reproducer)
        if pipeline:
            t.failing_pass, t.crash_reproducer = passes.innermost(pipeline), reproducer
            t.say(f"where: the bad release fails in {t.failing_pass} (pipeline {pipeline})")


RUNTIME_ORDER = 100  # after every compile phase


def _runtime_swap(t: Triage, reference) -> None:
    """Every compile phase agrees, so the releases part ways after the compiler: each
    release's module runs on the other release's runtime. The bug following the bad
    runtime names the runtime (iree-run-module, the VM, the HAL) as where it lives."""
    q = t.question
    if q.mode == "ir" or not (q.mode == "differential" or t.bug.needs_device()):
        return
    swaps = (("the bad release's module on the good release's runtime", q.bad, q.good, False),
             ("the good release's module on the bad release's runtime", q.good, q.bad, True))
    followed, untested = [], []
    for label, compiler, runtime, wanted in swaps:
        side = Side(replace(compiler.toolchain, run_module=runtime.toolchain.run_module,
                            runtime_version=runtime.toolchain.runtime_version), compiler.flags)
        shown, detail = shows_bug(q, side, t.program, reference=reference)
        t.confirmation.append(f"{label}: {'shows the bug' if shown else 'no bug' if shown is False else 'neither'} "
                              f"({detail[:140]})")
        t.say("where: " + t.confirmation[-1])
        followed.append(shown is wanted)
        if shown is None:
            untested.append(detail[:160])
    if len(untested) == len(swaps):
        t.problems.append("every dumped compile phase agrees, so the releases part ways in the module's "
                          "serialization (after the vm phase) or in the runtime; neither runtime can run the "
                          f"other's module ({untested[0]}), so the two cannot be told apart here")
    elif all(followed):
        t.phase, t.phase_confirmed = PhaseDiff(RUNTIME, RUNTIME_ORDER, ()), True
        t.say("where: the bug follows the bad release's runtime: it is in the runtime, not the compiler")
    else:
        t.problems.append("every dumped compile phase agrees, and the bug does not follow either runtime alone")


def _phase_file(folder: Path, phase: str) -> Path | None:
    return next((p for _, name, p in phases(folder) if name == phase), None)


def _confirm(t: Triage, dumps: dict[str, Path], reference) -> bool | None:
    """Swap the phase's outputs between the releases: the bug should follow the bad one.
    True when both swaps say so; False when one says otherwise; None when a swap could not
    be decided and none went against (one swap alone confirms nothing, nor excludes)."""
    q, phase = t.question, t.phase.phase
    swaps = ((f"the bad release compiling the good release's {phase} output onward",
              _phase_file(dumps["good"], phase), q.bad, False),
             (f"the good release compiling the bad release's {phase} output onward",
              _phase_file(dumps["bad"], phase), q.good, True))
    results = []
    for label, file, side, wanted in swaps:
        shown, detail = shows_bug(q, side, file, (f"--compile-from={phase}",), reference)
        verdict = ("as expected" if shown is wanted else
                   "inconclusive" if shown is None else "AGAINST the phase")
        line = f"{label}: {'shows the bug' if shown else 'no bug' if shown is False else 'neither'} " \
               f"({verdict}; {detail[:140]})"
        t.confirmation.append(line)
        t.say("where: " + line)
        results.append(None if shown is None else shown is wanted)
    if any(r is False for r in results):
        return False  # a swap went against the phase: it is excluded
    if all(r is True for r in results):
        return True  # the bug followed the bad release's output both ways
    return None  # a swap the other release could not compile (or run): the phase is not excluded


def _pass_in_phase(t: Triage, dumps: dict[str, Path], work: Path) -> None:
    order = [name for _, name, _ in phases(dumps["good"])]
    phase = t.phase.phase
    before = order[order.index(phase) - 1] if order.index(phase) > 0 else None
    runs = {name: (side.toolchain.compile, _phase_file(dumps[name], before) if before else t.program,
                   passes.phase_args(list(side.flags), before, phase))
            for name, side in (("good", t.question.good), ("bad", t.question.bad))}
    t.pass_diff = _pass_diff(t, work, runs)
    t.say(f"where: within {phase}, the pass after the last module both releases held: "
          f"{t.pass_diff.argument or '(none)'}"
          f"{' (the good release ran ' + t.pass_diff.good_instead + ' there)' if t.pass_diff.good_instead else ''}")
    if t.pass_diff.only_bad or t.pass_diff.only_good:
        t.say(f"where: passes that changed the module in one release's {phase} only: "
              f"bad {', '.join(t.pass_diff.only_bad) or '-'}; good {', '.join(t.pass_diff.only_good) or '-'}")
    if t.pass_diff.argument:
        tools = {"good": t.question.good.toolchain.opt, "bad": t.question.bad.toolchain.opt}
        t.pass_confirmed, why = passes.rerun_alone(tools, t.pass_diff, work)
        if t.pass_confirmed is False and t.pass_diff.argument in t.pass_diff.only_bad:
            why += ("; it changes the module only in the bad release's pipeline: the pass was added or "
                    "turned on there, and its own code behaves the same in both releases")
        t.pass_check = why
        t.say(f"where: {t.pass_diff.argument} alone: "
              f"{'confirmed' if t.pass_confirmed else 'unconfirmed' if t.pass_confirmed is False else 'not checked'}: {why}")


def _pass_diff(t: Triage, work: Path, runs: dict[str, tuple[Path, Path, list[str]]]) -> passes.PassDiff:
    """Each release's pass-by-pass dump ("good"/"bad": tool, start, args), compared. A
    good release whose dump did not end ok is said: its passes may be cut short."""
    texts, starts = {}, {}
    for name, (tool, start, args) in runs.items():
        out = work / f"passes-{name}.txt"
        proc = passes.print_changes(tool, start, args, out)
        if not proc.ok and name == "good":
            t.problems.append(f"the good release's pass dump ended {proc.status()}: the pass named may be wrong")
        texts[name], starts[name] = out.read_text(errors="replace"), start.read_text()
    return passes.first_changed_pass(starts["good"], texts["good"], starts["bad"], texts["bad"],
                                     labels=(f"IREE {t.good.compiler_version}", f"IREE {t.bad.compiler_version}"))


# ---------------------------------------------------------------------------- triage

def triage(case: Case, item: ItemId, bug: Bug, out: Path, source, good: str | None = None,
           bad: str | None = None, reduce: bool = True, which: str | None = None) -> Triage:
    """which: "broken" (the onset) or "fixed" (the fix) of the case's window; None: the
    onset, else the fix."""
    from .issue import write_issue

    t = Triage(case, item, bug)
    work = out / "work"
    work.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    steps = [("when", lambda: when(t, source, good, bad, which)),
             ("question", lambda: _question(t, work)),
             ("reduce", lambda: reduce_program(t, work) if reduce else None),
             ("where", lambda: where(t, work))]
    for name, step in steps:
        try:  # a step that cannot go on (a release that will not install) is said, never lost
            with _timed(t, name):
                if step() is False:
                    break
        except Exception as e:
            t.problems.append(f"{name}: {type(e).__name__}: {e}")
            break
    t.seconds["total"] = round(time.monotonic() - start, 1)
    try:
        write_issue(t, out)
    except Exception as e:  # what was measured still lands in TRIAGE.json
        t.problems.append(f"issue: {type(e).__name__}: {e}")
        write_issue(t, out, measured_only=True)
    shutil.rmtree(work / "cache", ignore_errors=True)  # candidates' compiles: not evidence
    return t
