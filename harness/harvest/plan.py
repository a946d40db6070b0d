"""What case a thread becomes, decided before anything is written: its program (MLIR, or
model.py from a PyTorch snippet), its kind (compile, IR, run, numeric from stated values,
torch), target, flags and the outcome the thread reports. commands/harvest.py prints it,
makes the case from it (scaffold.new_case) and scans the releases."""

from __future__ import annotations

from dataclasses import dataclass

from ..outcomes import COMPILES_DISAGREE, WRONG_NUMBERS
from ..scaffold import targets_named
from .program import Stated, onnx_script_program, run_inputs, stated_results, torch_program
from .stated import Result, Statement, argument_count, result_types, stated_golden
from .thread import (Thread, bug_outcome, choose_program, compared_commands, fails_at_run_time, pass_args,
                     target_and_flags)


@dataclass
class CasePlan:
    program: str  # model.py (from_torch) or the MLIR
    origin: str  # where the program came from, in words
    from_torch: bool
    stated: list[Stated]  # the results the program's check ops state (the golden)
    inputs: list | None  # a run case's inputs: the thread's --input= values
    ir_args: list[str] | None  # an IR case's iree-opt passes
    command: list[str]  # the command the case follows
    target: str
    flags: list[str]
    guessed: str  # what was guessed about the target, "" when the thread says
    dropped: list[str]  # the command's flags that name a file or a program, each with why
    outcome: str | None  # what the thread reports; None: the releases decide
    function: str | None  # what its iree-run-module runs, when it says
    # The thread says its results are wrong and nothing gives a golden (no PyTorch
    # snippet, no stated values, no --reference): its items can only compile.
    unchecked_numbers: bool = False
    # The correct output the thread states in prose (stated.py), the program's results it
    # fills, and the run's inputs it was stated for: the golden.
    said: Statement | None = None
    said_results: list[Result] | None = None
    said_inputs: list | None = None
    frontend: str = "torch"  # how model.py reaches IREE: "onnx" for a thread's ONNX script
    # A bug defined as a difference: the two compiles' (target, flags beyond the common
    # ones), the sides of the case's [[differ]]; and how many results to compare.
    differ: tuple[tuple[str, list[str]], tuple[str, list[str]]] | None = None
    outputs: int = 0

    @property
    def atol(self) -> float:
        return max((s.atol for s in self.stated), default=1e-5)

    def tolerance(self) -> tuple[tuple[float, float], str]:
        """The case's (atol, rtol) and its reason: a check op's own atol, the precision the
        thread printed its values to, else the default."""
        if self.said is not None:
            atol = max(self.said.atol(), 1e-5)
            return (atol, 1e-5), (f"the thread states its values to {atol:g}" if atol > 1e-5 else "")
        if not self.stated:
            return (1e-5, 1e-5), ""
        return (self.atol, 0.0), f"the thread's check op: atol {self.atol:g}" if self.atol > 1e-2 else ""


def plan_case(t: Thread, attached: dict[str, str], block: int | None = None, golden: bool = False) -> CasePlan:
    """HarvestError when the thread does not say enough (its message says what to give);
    `block`: the MLIR block to take, of several (thread.blocks_to_try); `golden`: the
    user gives reference.py (example_inputs(), reference()), the golden of an MLIR program."""
    # A PyTorch snippet is taken only where the thread has no MLIR program.
    # A thread's ONNX script (onnx.helper) goes the same way, through ONNX: ONNX Runtime
    # is its golden.
    from_onnx = not attached and not t.programs and bool(t.onnx_scripts)
    from_torch = from_onnx or (not attached and not t.programs and bool(t.torch_snippets))
    program, origin = onnx_script_program(t) if from_onnx else torch_program(t) if from_torch else \
        choose_program(t, attached, block)
    # check ops state the correct results: the program returns what they checked instead
    program, stated = (program, []) if from_torch else stated_results(program)
    # a run that fails: the case runs the module on the values the thread ran it on
    has_golden = from_torch or bool(stated) or golden
    said, results, said_inputs = _said(t, program) if not has_golden else (None, None, None)
    has_golden = has_golden or said is not None
    compared = None if from_torch or t.opt_commands and not t.commands else compared_commands(t)
    inputs = run_inputs(t.run_commands[0], program, _function(t)) if not has_golden and fails_at_run_time(t) \
        else None
    if compared and not has_golden and inputs is None:  # no run quoted: seeded, as a named file would be
        inputs = run_inputs(["iree-run-module", *(f"--input=@arg{i}.npy" for i in
                                                  range(argument_count(program, _function(t)) or 0))],
                            program, _function(t))
    # An iree-compile command makes the matrix items; with only iree-opt, its passes are an IR check.
    ir_args, dropped = pass_args(t.opt_commands[0]) if t.opt_commands and not t.commands else (None, [])
    command = t.commands[0] if t.commands else t.opt_commands[0] if ir_args is not None else ["iree-compile"]
    if ir_args is None:
        target, flags, guessed, dropped = target_and_flags(command)
    else:
        target, flags, guessed = "cpu", [], ""
    if from_torch and not t.commands:  # the snippet's own target (compile options), else cpu
        named = targets_named("\n".join(t.torch_snippets))
        target, guessed = (named[0], "") if named else ("cpu", "no target named: cpu")
    outcome = WRONG_NUMBERS if stated or said or (golden and t.wrong_numbers) else bug_outcome(t)
    differ = None
    if compared:  # the bug is the difference: flags both commands share are the matrix's
        (target_a, flags_a, _, _), (target_b, flags_b, _, dropped_b) = map(target_and_flags, compared)
        flags = [f for f in flags_a if f in flags_b]
        differ = ((target_a, [f for f in flags_a if f not in flags]), (target_b, [f for f in flags_b if f not in flags]))
        if differ[0][1] and not differ[1][1]:  # side a is the plain compile, b the one with the flag
            differ = differ[::-1]
        dropped += [d for d in dropped_b if d not in dropped]
        outcome = COMPILES_DISAGREE
    return CasePlan(program, origin, from_torch, stated, inputs, ir_args, command, target, flags, guessed,
                    dropped, outcome, _function(t),
                    unchecked_numbers=t.wrong_numbers and not has_golden and outcome is None,
                    said=said, said_results=results, said_inputs=said_inputs,
                    frontend="onnx" if from_onnx else "torch", differ=differ,
                    outputs=len(result_types(program, _function(t))) if differ else 0)


def _function(t: Thread) -> str | None:
    """The function the thread's iree-run-module runs, when it says."""
    return next((w.split("=", 1)[1].lstrip("@") for argv in t.run_commands for w in argv
                 if w.startswith("--function=")), None)


def _said(t: Thread, program: str):
    """(statement, results, inputs) when the thread states the MLIR program's correct
    output in prose for a run it shows (its --input= values, or none when the program
    takes none); (None, None, None) otherwise. HarvestError when statements disagree."""
    if not t.programs or t.quoted or t.crash:  # a compile error or a crash is the thread's bug
        return None, None, None
    results = result_types(program, _function(t))
    said = stated_golden(t.text, results)
    if said is None:
        return None, None, None
    inputs = run_inputs(t.run_commands[0], program, _function(t)) if t.run_commands else []
    if argument_count(program, _function(t)) != len(inputs):
        return None, None, None  # stated for a run whose inputs the thread does not give
    return said, results, inputs
