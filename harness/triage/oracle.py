"""Whether a program is still interesting: it shows the bug on the bad release and does
not on the good one.

The second half keeps a reduction from wandering into another bug (a candidate the
good release also rejects is not this regression). What "the bug" is depends on it:

    outcome       the case's bug outcome and message (compile-fail matching /.../,
                  compile-crash, run-crash) on the bad release; a pass on the good one
    differential  wrong numbers: both releases compile and run the program on the same
                  inputs, and their outputs differ beyond tolerance. A reduced program
                  has no PyTorch golden, so the good release is the reference.
    ir            the case's IR check (tool, flags, FileCheck file) fails on the bad
                  release with the bug's message and passes on the good one

The question is a JSON file so that iree-reduce's interestingness script can ask it:
`python -m harness.triage.oracle QUESTION.json CANDIDATE.mlir` exits 0 when the
candidate is interesting, and appends one line per candidate to the question's log.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from ..bug import Bug
from ..cache import Cache
from ..compare import compare_outputs
from ..outcomes import PASS_OUTCOME, PROBE_BAD
from ..process import BOUNDS
from ..runner import ItemResult
from ..stages import Settings, compile_stage, ir_check, run_module
from ..toolchain import Toolchain
from .program import SignatureError, signature

MODES = ("outcome", "differential", "ir")
# A reduced program compared across releases: differences below this are rounding, not
# the bug (a reduction chasing them would end at a one-ulp difference).
DIFFERENTIAL_FLOOR = 1e-3


@dataclass(frozen=True)
class Side:
    """One release as triage uses it: its tools and the item's compile flags for it."""
    toolchain: Toolchain
    flags: tuple[str, ...]

    def as_dict(self) -> dict:
        return {"toolchain": {k: str(v) for k, v in asdict(self.toolchain).items()},
                "flags": list(self.flags)}

    @classmethod
    def from_dict(cls, data: dict) -> "Side":
        tc = dict(data["toolchain"])
        for key in ("compile", "opt", "run_module"):
            tc[key] = Path(tc[key])
        return cls(Toolchain(**tc), tuple(data["flags"]))


@dataclass(frozen=True)
class Question:
    mode: str
    bad: Side
    good: Side | None  # None: an open bug no release passes, asked of the bad release alone
    outcomes: tuple[str, ...] = ()
    match: str | None = None
    target: str | None = None  # the item's target (runs there); None for ir checks
    function: str = "main"
    inputs: tuple[str, ...] = ()  # .npy files fed to every candidate
    n_outputs: int = 0  # results of the start program (phase outputs past abi hide them)
    atol: float = DIFFERENTIAL_FLOOR
    rtol: float = DIFFERENTIAL_FLOOR
    ir: dict = field(default_factory=dict)  # tool, args, checks, prefix
    work: str = ""  # the candidates' cache and the log live here
    good_outcome: str = PASS_OUTCOME  # what the good release gives on the start program

    def with_good_outcome(self, outcome: str) -> "Question":
        return replace(self, good_outcome=outcome)

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"mode {self.mode!r}: one of {', '.join(MODES)}")

    @property
    def bug(self) -> Bug:
        # Differential: the bug is "outputs differ"; the case's message names counts of
        # the whole program, which a reduced one no longer has.
        match = re.compile(self.match) if self.match and self.mode != "differential" else None
        return Bug(self.outcomes, match, ())

    def save(self, path: Path) -> Path:
        data = {**asdict(self), "bad": self.bad.as_dict(), "good": self.good.as_dict() if self.good else None}
        path.write_text(json.dumps(data, indent=1))
        return path

    @classmethod
    def load(cls, path: Path) -> "Question":
        data = json.loads(Path(path).read_text())
        data["bad"] = Side.from_dict(data["bad"])
        data["good"] = Side.from_dict(data["good"]) if data["good"] else None
        for key in ("outcomes", "inputs"):
            data[key] = tuple(data[key])
        return cls(**data)

    def settings(self, side: Side) -> Settings:
        return Settings(toolchain=side.toolchain, cache=Cache(Path(self.work) / "cache"),
                        compile_bounds=BOUNDS["triage-compile"], run_bounds=BOUNDS["triage-run"])


@dataclass
class Observation:
    result: ItemResult  # outcome, failure_text() and compile_only, as for a case's item
    outputs: list[np.ndarray] | None = None


def observe(q: Question, side: Side, program: Path, run: bool, extra: tuple[str, ...] = ()) -> Observation:
    """Compile `program` with `side` and `extra` flags (and run it when `run`), or apply
    the IR check."""
    settings = q.settings(side)
    result = ItemResult(None, "triage", q.target, None, None, side.toolchain.compiler_version)
    if q.mode == "ir":
        result.stages.append(ir_check(q.ir["tool"], program, tuple(q.ir["args"]),
                                      Path(q.ir["checks"]), q.ir["prefix"], settings))
        return Observation(result)
    compiled, vmfb = compile_stage(program, [*side.flags, *extra], settings)
    result.stages.append(compiled)
    if not compiled.ok or not run:
        return Observation(result)
    try:
        # A phase output past abi returns buffer views, not tensors: the same results.
        n_outputs = len(signature(program.read_text(), q.function).results) or q.n_outputs
    except SignatureError:
        n_outputs = q.n_outputs
    ran, outputs = run_module(q.target, vmfb, q.function, [Path(p) for p in q.inputs], n_outputs,
                              settings)
    result.stages.append(ran)
    return Observation(result, outputs)


def interesting(q: Question, program: Path) -> tuple[bool, str]:
    """(whether `program` shows the bug on the bad release and not on the good, why)."""
    try:
        if q.mode == "differential":  # the good release's outputs are the reference
            good = observe(q, q.good, program, run=True)
            if _unfinished(good):
                return False, f"good release: {_unfinished(good)}"
            shown, why = shows_bug(q, q.bad, program, reference=good.outputs)
            return shown is True, why if shown is not None else f"bad release: {why}"
        shown, bad_why = shows_bug(q, q.bad, program)
        if shown is not True:
            return False, f"bad release: {bad_why}"
        if q.good is None:  # one release: the bug's own outcome and message are the question
            return True, f"bad release: {bad_why}"
        # The good release must behave as it did on the start program (usually: pass), so
        # that a reduction cannot end on something the good release rejects as well.
        shown, good_why = shows_bug(q, q.good, program)
        if shown is not False:
            return False, f"good release: {good_why}, not {q.good_outcome}"
        return True, f"bad release: {bad_why}; good release: {good_why}"
    except SignatureError as e:
        return False, f"cannot feed it: {e}"


def _unfinished(seen: Observation) -> str:
    """'' when the program compiled and ran here, else what stopped it."""
    if seen.result.compile_only:
        return "compile-only"
    bad = seen.result.failing_stage
    return f"{seen.result.outcome}: {bad.detail[:200]}" if bad else ""


def shows_bug(q: Question, side: Side, program: Path, extra: tuple[str, ...] = (),
              reference: list[np.ndarray] | None = None) -> tuple[bool | None, str]:
    """Whether one compile (and run) by `side` shows the bug: True; False when it gives
    what the good release gave on the start program; None (undecided) when it shows
    something else or gives nothing to compare (no outputs, another number of them).
    Wrong numbers are judged against `reference` outputs."""
    if q.mode != "differential":
        seen = observe(q, side, program, q.bug.needs_device(), extra).result
        detail = seen.failing_stage.detail[:200] if seen.failing_stage else ""
        if q.bug.state(seen).kind == PROBE_BAD:
            return True, f"{seen.outcome}: {detail}"
        return (False if seen.outcome == q.good_outcome else None), f"{seen.outcome} {detail}".strip()
    seen = observe(q, side, program, True, extra)
    if _unfinished(seen):
        return None, _unfinished(seen)
    if not seen.outputs or reference is None or len(seen.outputs) != len(reference):
        # Undecided: nothing to compare is neither the bug nor its absence.
        return None, (f"nothing to compare: {len(seen.outputs or [])} outputs, the reference "
                      f"{'none' if reference is None else len(reference)}")
    comparison = compare_outputs(seen.outputs, reference, [np.load(p) for p in q.inputs],
                                 q.atol, q.rtol, (), "the good release")
    return not comparison.ok, comparison.summary()


def _main(argv: list[str]) -> int:
    question_file, candidate = Path(argv[0]), Path(argv[1])
    q = Question.load(question_file)
    yes, why = interesting(q, candidate)
    with open(Path(q.work) / "oracle.log", "a") as log:
        log.write(f"{'interesting' if yes else 'not'}\t{why.splitlines()[0] if why else ''}\n")
    return 0 if yes else 1


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
