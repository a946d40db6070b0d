"""The words results are told in, in one place (as lit's ResultCode registry).

Three vocabularies, from the inside out:

  stage status   ok | fail | crash | timeout | oom | garbage | skip | infra   (one stage's end)
  item outcome   pass | skip | <stage>-<status> | collect-error | harness-error | worker-crash
                 | infra-error
  verdict        PASS | FAIL | XFAIL | XPASS | SKIP | ERROR           (outcome vs expectation)

then the cell states the reports colour, mark and label, and the states a probe of a
case's bug can end in (bad | good | undecided), which are not verdicts. Code imports
these names; outside this file only docs and tests spell the words.
"""

from __future__ import annotations

from dataclasses import dataclass

# ------------------------------------------------------------------ stage statuses
# differ: a differential item's two compiles run on the same inputs, and compared.
STAGES = ("import", "compile", "configure", "run", "reference", "compare", "ir", "differ")
OK, SKIPPED = "ok", "skip"
FAILED, CRASHED, TIMED_OUT, OUT_OF_MEMORY, GARBAGE = "fail", "crash", "timeout", "oom", "garbage"
FAILING_STATUSES = (FAILED, CRASHED, TIMED_OUT, OUT_OF_MEMORY, GARBAGE)
# The machine, not the program: a full disk, a read-only or failing file system, no file
# descriptors or memory left for the tool's own I/O. Never a verdict on the compiler,
# never cached, never expected (so not a failing status an [[expect]] may name).
INFRA = "infra"
STATUSES = (OK, *FAILING_STATUSES, SKIPPED, INFRA)

# ------------------------------------------------------------------- item outcomes
PASS_OUTCOME, SKIP_OUTCOME = "pass", "skip"
# The harness, not a tool, is why these items have no stage outcome. None of them may
# end green: a run with any of them fails the gate.
COLLECT_ERROR = "collect-error"  # the case could not be loaded (malformed case.toml)
HARNESS_ERROR = "harness-error"  # the harness raised while running the item
WORKER_CRASH = "worker-crash"    # the pytest-xdist worker running the item died
INFRA_ERROR = "infra-error"      # machine trouble (INFRA) in a tool's or the harness's I/O
HARNESS_OUTCOMES = (COLLECT_ERROR, HARNESS_ERROR, WORKER_CRASH, INFRA_ERROR)
# Stages whose failure only shows where the item runs: a compile-only pass says nothing.
RUNTIME_STAGES = ("run", "compare", "differ")


def stage_outcome(stage: str, status: str) -> str:
    return f"{stage}-{status}"


def parse_stage_outcome(text: str) -> tuple[str, str]:
    """'compile-fail' -> ('compile', 'fail'); ValueError for anything else."""
    stage, _, status = text.partition("-")
    if stage not in STAGES or status not in FAILING_STATUSES:
        raise ValueError(f"unknown outcome {text!r}: expected <stage>-<status>, stage in "
                         f"{'/'.join(STAGES)}, status in {'/'.join(FAILING_STATUSES)}")
    return stage, status


WRONG_NUMBERS = "compare-fail"  # stage_outcome("compare", FAILED): the outputs differ
# stage_outcome("differ", FAILED): a differential item's two compiles of one program give
# different outputs on the same inputs (which one is wrong, where a golden says, is in
# its detail).
COMPILES_DISAGREE = "differ-fail"
# Failures about the numbers: told apart by which outputs differ and by how much, never
# by a diagnostic (no two wrong results print the same text).
NUMBERS_OUTCOMES = (WRONG_NUMBERS, COMPILES_DISAGREE)


def shows_at_run_time(outcome: str) -> bool:
    return outcome.partition("-")[0] in RUNTIME_STAGES


# An outcome as an issue says it to people (no harness words in titles and prose).
_PLAIN_STAGE = {"import": "the import", "compile": "iree-compile", "configure": "the attention configuration",
                "run": "iree-run-module", "reference": "the PyTorch reference", "ir": "the IR check"}
_PLAIN_STATUS = {FAILED: "fails", CRASHED: "crashes", TIMED_OUT: "hangs", OUT_OF_MEMORY: "runs out of memory",
                 GARBAGE: "writes a broken output"}


def plain_words(outcome: str) -> str:
    """'compile-crash' -> 'iree-compile crashes'; 'compare-fail' -> 'wrong numbers'."""
    if outcome == WRONG_NUMBERS:
        return "wrong numbers"
    if outcome == COMPILES_DISAGREE:
        return "two compiles of the program disagree"
    if outcome == PASS_OUTCOME:
        return "passes"
    try:
        stage, status = parse_stage_outcome(outcome)
    except ValueError:
        return outcome
    return f"{_PLAIN_STAGE[stage]} {_PLAIN_STATUS[status]}"


# ------------------------------------------------------------------------ verdicts
@dataclass(frozen=True)
class VerdictCode:
    name: str
    meaning: str
    is_failure: bool  # fails the run's gate


VERDICTS = {v.name: v for v in (
    VerdictCode("PASS", "passed (or compile-only: no device to run it)", False),
    VerdictCode("XFAIL", "a known bug, failing exactly as recorded", False),
    VerdictCode("SKIP", "not applicable here (e.g. an IR check for other releases)", False),
    VerdictCode("FAIL", "failed, or failed differently from the known bug", True),
    VerdictCode("XPASS", "a known bug no longer shows: update the case", True),
    VerdictCode("ERROR", "no verdict: the case did not load, the harness or its worker broke, or the "
                         "machine did (a full disk)", True),
    # What did not run is never a pass: a known run-time bug on an item that only compiled
    # (no device here) was neither seen nor seen gone.
    VerdictCode("UNOBSERVED", "a known run-time bug on an item that only compiled: not observed", False),
)}
PASS, XFAIL, SKIP, FAIL, XPASS, ERROR, UNOBSERVED = VERDICTS


def is_failure(verdict: str) -> bool:
    code = VERDICTS.get(verdict)
    return code is None or code.is_failure  # an unknown word is never green


# --------------------------------------------------------------------- cell states
@dataclass(frozen=True)
class CellState:
    name: str
    meaning: str
    colour: str  # background in the HTML report
    mark: str  # the one character a matrix cell shows (the colour and tooltip say the rest)
    label: str = ""  # the Markdown cell's word; "" = the name and the failing stage
    dark_text: bool = False  # light backgrounds need dark text


CELL_STATES = {s.name: s for s in (
    CellState("pass", "passed (compiled, ran, matched PyTorch)", "#2e9d4f", "✓", "pass"),
    CellState("compile-only", "passed compile-only (no device here to run it)", "#8fd19e", "c",
              "compiled", True),
    CellState("xfail", "known bug, still failing as recorded", "#8aa4c8", "x"),
    CellState("xpass", "unexpected pass: a known bug no longer shows (update the case)", "#f2c21b",
              "P", "XPASS", True),
    CellState("fail", "failed: diagnostic or wrong numbers", "#d9363e", "F"),
    CellState("crash", "crashed (signal or assertion)", "#7b1fa2", "!"),
    CellState("timeout", "timed out", "#ef7d22", "T"),
    CellState("oom", "killed for memory", "#a0522d", "M"),
    CellState("garbage", "unreadable output", "#5d4037", "G"),
    CellState("error", "no result: case did not load, harness error, worker crash or machine trouble",
              "#000000", "E"),
    CellState("skip", "skipped", "#d0d0d0", "–", "skip", True),
    CellState("unobserved", "known run-time bug, not run here (compile-only): not observed", "#c5cae9",
              "?", "not run", True),
)}
(CELL_PASS, CELL_COMPILE_ONLY, CELL_XFAIL, CELL_XPASS, CELL_FAIL, CELL_CRASH, CELL_TIMEOUT, CELL_OOM,
 CELL_GARBAGE, CELL_ERROR, CELL_SKIP, CELL_UNOBSERVED) = CELL_STATES


# ------------------------------------------------------------------ probe states
# What one probe of a case's bug on one release says (harness/bug.py): the bug shows,
# the item is good (it ran far enough to show the bug and did not), or it is undecided
# (an unrelated failure, a pass that never ran). Bisect searches between bad and good.
PROBE_BAD, PROBE_GOOD, PROBE_UNDECIDED = "bad", "good", "skip"
PROBE_STATES = (PROBE_BAD, PROBE_GOOD, PROBE_UNDECIDED)

# Failure groups, most telling first. Keys are outcomes or a status alone.
SEVERITY = ("compare-fail", COMPILES_DISAGREE, "crash", "run-garbage", "compile-garbage", "compile-fail",
            "ir-fail", "run-fail", "oom", "timeout", "import-fail", "reference-fail",
            *HARNESS_OUTCOMES)


def severity(outcome: str) -> int:
    status = outcome.partition("-")[2]
    for i, key in enumerate(SEVERITY):
        if key == outcome or key == status:
            return i
    return len(SEVERITY)
