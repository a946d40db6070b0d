"""Run one item through its stages and decide its verdict.

Free of pytest, so the plugin, `iree-regress prove` and bisect share one definition of
what an item's outcome is and whether it was expected.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .case import Case, Differ, Expectation, IrCheck
from .outcomes import (ERROR, FAIL, INFRA_ERROR, PASS, PASS_OUTCOME, SKIP, SKIP_OUTCOME, SKIPPED, UNOBSERVED, XFAIL, XPASS,
                       shows_at_run_time)
from .reference import npy_files
from .record import ItemRecord, StageResult, compile_only, failing_stage, failure_text, outcome_of
from .stages import (Settings, compare_stage, compile_flags, compile_stage, configure_stage, differ_stage,
                     import_stage, ir_stage, run_module, run_stage, side_of)
from . import targets
from .targets import records_configurations


@dataclass
class ItemResult:
    case: Case
    name: str  # "cpu-O3", "ir-<check>" or "differ-<name>"
    target: str | None
    opt_level: str | None
    ir_check: str | None
    compiler: str  # version string of the compiler used
    stages: list[StageResult] = field(default_factory=list)
    differ: str | None = None
    level: str = ""  # "default": the release has no --iree-opt-level (this item is its one compile)

    # Read as a record reads them (record.py holds the one definition).
    @property
    def failing_stage(self) -> StageResult | None:
        return failing_stage(self.stages)

    @property
    def outcome(self) -> str:
        return outcome_of(self.stages)

    def failure_text(self) -> str:
        return failure_text(self.stages)

    @property
    def compile_only(self) -> bool:
        return compile_only(self.stages)

    @property
    def seconds(self) -> float:
        return sum(s.seconds for s in self.stages if not s.cached)

    def reproducer(self) -> str:
        """One line: the commands that reproduce this item, and the compiler version."""
        bundle = f"{self.case.slug}--{self.name}"
        repro = f"iree-regress repro {self.case.slug}::{self.name} --out {bundle}"
        if self.differ is not None:  # no bundle of its own: its triage writes the moved side's
            repro = f"iree-regress triage {self.case.slug}::{self.name} --out {bundle}"
            if self.case.torch_model is not None:
                return f"{repro}   # IREE {self.compiler}: both compiles, both runs, compared"
        imported = self.case.torch_model is not None and any(s.stage == "import" and s.ok for s in self.stages)
        if imported and any(s.command for s in self.stages if s.stage != "import"):
            # The compile reads the import the harness cached: a path on this machine only.
            # The bundle holds that MLIR as input.mlir, and run.sh compiles and runs it.
            return f"{repro} && sh {bundle}/run.sh   # IREE {self.compiler}"
        # A case's own MLIR is named by its path in the checkout; a failed import is its
        # own command (the torch job).
        commands = [s.command for s in self.stages
                    if s.command and s.stage != "compare" and not (s.stage == "import" and s.ok)]
        return " && ".join(commands) + f"   # IREE {self.compiler}; a bundle with every file: {repro}"

    def record(self, verdict: "Verdict", **extra) -> ItemRecord:
        return ItemRecord(case=self.case.slug, item=self.name, outcome=self.outcome,
                          verdict=verdict.kind, message=verdict.message, title=self.case.title,
                          target=self.target, opt_level=self.opt_level, ir_check=self.ir_check, differ=self.differ,
                          compiler=self.compiler, compile_only=self.compile_only,
                          seconds=round(self.seconds, 3), issues=list(self.case.threads),
                          family=self.case.family, windows=self.case.history.describe(),
                          traits=list(self.case.traits), level=self.level,
                          stages=list(self.stages), reproducer=self.reproducer(),
                          **extra)


def _no_progress(stage: str) -> None:
    pass


def run_matrix_item(case: Case, target: str, opt_level: str, settings: Settings,
                    progress=None) -> ItemResult:
    """progress(stage) is told each stage before it starts (a crashed worker's item is
    recorded with the stage it was in)."""
    progress = progress or _no_progress
    item = ItemResult(case, f"{target}-{opt_level}", target, opt_level, None,
                      settings.toolchain.compiler_version)
    same = targets.one_compile_level(case.opt_levels, opt_level, settings.toolchain.release)
    if same is not None:  # a release without levels: one verdict, the first level's
        item.stages.append(StageResult("compile", SKIPPED, f"one compile with {target}-{same}: "
                                                           f"{targets.no_levels(settings.toolchain.release)}"))
        return item
    if not targets.opt_level_supported(settings.toolchain.release):
        item.level = "default"
    progress("import")
    imported, mlir = import_stage(case, settings)
    item.stages.append(imported)
    if not imported.ok:
        return item
    progress("compile")
    compiled, vmfb = compile_stage(mlir, compile_flags(case, target, opt_level, settings), settings,
                                   configurations=records_configurations(target))
    item.stages.append(compiled)
    if not compiled.ok:
        return item
    configured = configure_stage(mlir, compiled, vmfb, settings)
    if configured is not None:
        item.stages.append(configured)
        if not configured.ok:
            return item
    if not case.runs_module:
        return item
    progress("run")
    ran, outputs = run_stage(case, target, vmfb, settings)
    item.stages.append(ran)
    if not ran.ok or case.kind == "run":  # a run case has no golden: running to the end is its pass
        return item
    progress("compare")
    item.stages.append(compare_stage(case, outputs, settings))
    return item


def run_ir_item(case: Case, check: IrCheck, settings: Settings, progress=None) -> ItemResult:
    item = ItemResult(case, f"ir-{check.name}", None, None, check.name,
                      settings.toolchain.compiler_version)
    (progress or _no_progress)("ir")
    item.stages.append(ir_stage(case, check, settings))
    return item


def run_differ_item(case: Case, differ: Differ, settings: Settings, progress=None) -> ItemResult:
    """Both sides compiled, both run on the case's inputs, their outputs compared
    (stages.differ_stage); each side's stages say which side they are."""
    progress = progress or _no_progress
    item = ItemResult(case, f"differ-{differ.name}", None, None, None, settings.toolchain.compiler_version,
                      differ=differ.name)
    progress("import")
    imported, mlir = import_stage(case, settings)
    item.stages.append(imported)
    if not imported.ok:
        return item
    a_flags, b_flags = (compile_flags(case, side.target, side.opt_level, settings, side.flags)
                        for side in (differ.a, differ.b))
    if a_flags == b_flags and differ.a.target == differ.b.target:  # nothing to compare on this release
        why = (targets.no_levels(settings.toolchain.release) if differ.a.opt_level != differ.b.opt_level
               else f"IREE {settings.toolchain.release} spells both sides' flags alike")
        item.stages.append(StageResult("differ", SKIPPED, f"both sides are one compile: {why}"))
        return item
    modules = []
    for label, side, flags in (("a", differ.a, a_flags), ("b", differ.b, b_flags)):
        progress("compile")
        compiled, vmfb = compile_stage(mlir, flags, settings)
        item.stages.append(side_of(compiled, label, side))
        if not compiled.ok:
            return item
        modules.append(vmfb)
    outputs = []
    for label, side, vmfb in zip("ab", (differ.a, differ.b), modules):
        progress("run")
        ran, out = run_module(side.target, vmfb, case.function, npy_files(case.inputs_dir),
                              differ.outputs or len(npy_files(case.expected_dir)), settings)
        item.stages.append(side_of(ran, label, side))
        if not ran.ok:
            return item
        outputs.append(out)
    progress("differ")
    item.stages.append(differ_stage(case, differ, *outputs))
    return item


# Verdicts. The outcome table, as in iree-test-suites' conftest:
#
#   expectation                | item outcome                  | verdict
#   ---------------------------+-------------------------------+---------------------------
#   none                       | pass                          | PASS (COMPILE-ONLY if run skipped)
#   none                       | skip                          | SKIP
#   none                       | <stage>-<status>              | FAIL
#   expects X (match holds)    | X                             | XFAIL  (the known bug, still there)
#   expects X at run time      | pass, compile-only (no device)| UNOBSERVED (never PASS or XPASS)
#   expects X                  | pass                          | XPASS  (a failure: fixed upstream?
#                              |                               |         update the case)
#   expects X                  | Y != X, or match fails        | FAIL   (a different failure)
#   any                        | golden != PyTorch eager today | FAIL   (the golden itself is wrong)
#
# Lint requires every expectation to carry a `match`; one without (a case not yet
# linted) still xfails on its outcome alone.


@dataclass(frozen=True)
class Verdict:
    kind: str  # a verdict of outcomes.VERDICTS
    message: str


def expectation_for(result: ItemResult, release) -> Expectation | None:
    return result.case.expectation_for(result.target, result.opt_level, result.ir_check, release, result.differ)


def verdict(result: ItemResult, expectation: Expectation | None) -> Verdict:
    outcome = result.outcome
    bad = result.failing_stage
    drift = next((s.data["golden_drift"] for s in result.stages if s.data.get("golden_drift")), None)
    if drift is not None:  # before any expectation: a bad golden makes every verdict a lie
        return Verdict(FAIL, f"the golden outputs no longer match PyTorch eager ({drift}): "
                             "regenerate them with `iree-regress golden` or find what changed")
    if outcome == SKIP_OUTCOME:
        return Verdict(SKIP, "; ".join(s.detail for s in result.stages if s.detail))
    if outcome == INFRA_ERROR:  # the machine's trouble: no verdict on the compiler either way
        return Verdict(ERROR, f"{bad.stage}: {bad.detail}")
    if expectation is None:
        if outcome == PASS_OUTCOME:
            note = next((s.detail for s in result.stages if s.status == SKIPPED), "")
            return Verdict(PASS, note)
        return Verdict(FAIL, f"{outcome}: {bad.detail}")
    if outcome == PASS_OUTCOME and result.compile_only and shows_at_run_time(expectation.outcome):
        # It compiled, and the bug shows only where it runs.
        why = next((s.detail for s in result.stages if s.status == SKIPPED), "") or "not run here"
        return Verdict(UNOBSERVED, f"expects {expectation.outcome} at run time, but the item only "
                                   f"compiled ({why}): the bug was not observed either way")
    if outcome == PASS_OUTCOME:
        return Verdict(XPASS, f"expected {expectation.outcome} ({expectation.reason}) but the item "
                              f"passed: fixed upstream? update the case's [[expect]] and [history]")
    if expectation.takes(outcome, result.failure_text()):
        return Verdict(XFAIL, f"{outcome} as expected: {expectation.reason}")
    wanted = expectation.outcome + (f" matching /{expectation.match.pattern}/" if expectation.match else "")
    return Verdict(FAIL, f"{outcome} ({bad.detail}), but the case expects {wanted}: {expectation.reason}")
