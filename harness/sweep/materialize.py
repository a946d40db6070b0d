"""A sweep variant made into a case: its model.py, its golden, its Case.

The builder writes model.py (pure Python, in this process); PyTorch then writes the
variant's inputs and golden outputs in a bounded subprocess (`torch_job --golden`), cached
by the program and the torch version like every other step (stages.cached_step). The
folder that results is a case directory in all but case.toml, and the Case is read from
a table made here, through the same reader as a case.toml: from then on the variant is
an item like any other.
"""

from __future__ import annotations

import functools
import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from .. import reference
from ..cache import digest
from ..case import Case, CaseError, case_from_table
from ..importers import versions
from ..frontends import NO_GOLDEN, REFERENCE_NAME, STATIC
from ..outcomes import OK
from ..record import StageResult
from ..process import BOUNDS, run_bounded
from ..sandbox import Sandbox, probe as sandbox_probe
from ..stages import Settings, cached_step, frontend_args, frontend_key, run_torch_job, torch_job_key
from .program import Program
from .spec import Sweep, Variant, variant_of

FOUND_BY = "iree-regress sweep"
# In the golden's cache key: goldens written before eager() copied its inputs saved what a
# program writing into its inputs left there (a window's residual add_), not the draw.
GOLDEN_FORMAT = 2
REPO = Path(__file__).resolve().parent.parent.parent
# A golden with its spread is keyed by how the spread is made too.
SPREAD_KEY = ("spread", reference.SPREAD_FORMAT, reference.SPREAD_RUNS, reference.SPREAD_ULPS,
              sorted(reference.EXACT_OPS))


@functools.lru_cache(maxsize=None)
def _programs(path: Path, builder_digest: str, sandbox: Sandbox) -> dict[str, Program]:
    """Every variant's program, built once per process and builder by `sweep.build` in the
    sandbox: the builder is a stranger's Python like a case's model.py."""
    return built_by(path, sandbox)


def built_by(path: Path, sandbox: Sandbox, points: dict[str, dict] | None = None) -> dict[str, Program]:
    """The programs the sweep's builder makes, in the sandbox: of every variant, or of the
    named points (a reduction's trials: a variant's point with what it drops)."""
    argv = [sys.executable, "-m", "harness.sweep.build", path]
    with tempfile.TemporaryDirectory(prefix="iree-regress-sweep-") as scratch:
        out = Path(scratch) / "programs.json"
        argv.append(out)
        if points is not None:
            (Path(scratch) / "points.json").write_text(json.dumps(points))
            argv.append(Path(scratch) / "points.json")
        proc = run_bounded(sandbox.wrap(argv, [Path(scratch)], cwd=REPO, readable=[path.parent]),
                           BOUNDS["import"], cwd=REPO, sandbox=sandbox, wrapped=True)
        if not proc.ok or not out.is_file():
            last = (proc.stderr_tail().strip().splitlines() or [proc.status()])[-1]
            raise CaseError(f"{path}: its builder failed ({proc.status()}): {last[:300]}")
        built = json.loads(out.read_text())
    return {vid: Program(p["source"], p["dtype"], tuple(p["outputs"]), tuple(p.get("traits", ())),
                         p.get("mlir", ""), tuple(p["tolerance"]) if p.get("tolerance") else None,
                         tuple(p.get("flags", ())), p.get("results", 0), p.get("spread", False))
            for vid, p in built.items()}


def program_of(sweep: Sweep, variant: Variant, sandbox: Sandbox | None = None) -> Program:
    # The spec too: its axes decide which variants the builder is asked for.
    programs = _programs(sweep.path, digest("builder", sweep.builder.read_bytes(), sweep.path.read_bytes()),
                         sandbox or sandbox_probe())
    if variant.id not in programs:
        raise CaseError(f"{sweep.path}: its builder made no program for {variant.id}")
    return programs[variant.id]


def case_table(sweep: Sweep, variant: Variant, program: Program) -> dict:
    """The variant's case.toml, as a table (sweep --promote writes it out)."""
    levels = sorted({lvl for per in sweep.levels.values() for lvl in per})
    return {"title": f"{sweep.title}: {variant.id}", "kind": sweep.kind, "issues": [],
            "found_by": FOUND_BY, "family": sweep.family,
            "source": ({"mlir": "model.mlir", "function": "main", "reference": "reference.py"} if program.mlir else
                       {"torch": "model.py", **({"frontend": sweep.frontend} if sweep.frontend != "torch" else {})}),
            "matrix": {"targets": list(sweep.targets), "opt_levels": levels,
                       "flags": list(sweep.flags_of(variant.values())) + list(program.flags)},
            "compare": program.compare_table(),
            **({"differ": sweep.differ_tables(program.results)} if sweep.differs else {}),
            "expect": sweep.expectations_for(variant.values())}


def materialize(sweep: Sweep, variant: Variant, settings: Settings,
                program: Program | None = None) -> tuple[Case, StageResult]:
    """The variant's Case and how its golden was made (not ok: the case has no golden,
    and the item ends on that stage). `program`: another program in the variant's place
    (a reduction's trial); default, the builder's."""
    program = program or program_of(sweep, variant, settings.sandbox)
    source = program.source.encode()
    # The program's own folder, so that even a variant whose golden failed is a case
    # with a model.py (or its MLIR and reference.py) to show.
    files = {"reference.py": source, "model.mlir": program.mlir.encode()} if program.mlir else {"model.py": source}
    _, src_entry = cached_step(settings, "sweep-source", digest("sweep-source", source, program.mlir),
                               lambda out: (StageResult("reference", OK), files))

    def golden(out: Path):
        for name, data in files.items():
            (out / name).write_bytes(data)
        # The import too: the variant's items then find it cached (store_import); an MLIR
        # program has none (the import stage reads model.mlir).
        job = [out / "reference.py", "--golden", out] if program.mlir else \
            [out / "model.py", "--golden", out, "--import-mlir", *frontend_args(sweep.frontend)]
        if program.spread:
            job.append("--spread")
        result = run_torch_job("reference", job, settings, writable=out)
        if result.ok:
            result.detail = (f"golden: {REFERENCE_NAME[sweep.frontend]} on the variant's example inputs"
                             if sweep.oracle == "golden" else
                             "inputs only: the program has no golden, its [[differ]] items judge it")
            return result, {str(p.relative_to(out)): p for p in out.rglob("*") if p.is_file()}
        result.detail = f"{NO_GOLDEN[sweep.frontend]}: {result.detail}"
        return result, {}

    made, entry = cached_step(settings, "sweep-golden",
                              digest("sweep-golden", GOLDEN_FORMAT, source, program.mlir, versions(),
                                     *frontend_key(sweep.frontend), *(SPREAD_KEY if program.spread else ())),
                              golden, path=src_entry)
    case_dir = entry if made.ok else src_entry
    case = replace(case_from_table(case_table(sweep, variant, program), sweep.path, case_dir,
                                   variant.case_id, require_golden=made.ok), traits=_traits(program, sweep.frontend))
    if made.ok:
        store_import(case, entry / "import", settings)
    return case, made


def _traits(program: Program, frontend: str) -> tuple[str, ...]:
    """What the heat maps group the variant by: a static frontend compiles every program
    with static dims, whatever its recipe drew."""
    if frontend not in STATIC:
        return program.traits
    return tuple("dims=static" if t.startswith("dims=") else t for t in program.traits)


def store_import(case: Case, made: Path, settings: Settings) -> None:
    """The import the golden job wrote, stored where the import stage looks for it (the
    key is the stage's own); an import that failed there is left for the stage to say."""
    if not (made / "model.mlir").is_file():
        return
    key = torch_job_key(case, import_mlir=True)
    # Under the key's lock, as every cached step: two workers making the same variant
    # would otherwise replace the entry while the other's import stage reads it.
    with settings.cache.compute_once("torch", key) as done:
        if not done:
            files = {p.name: p.read_bytes() for p in made.iterdir() if p.is_file()}
            settings.cache.store("torch", key, {"result": StageResult("import", OK).as_dict()}, files)


def case_of_variant(case_id: str, settings: Settings) -> Case:
    """`<family>::<variant>` (as records name it) made into its Case, for the commands
    that take an item on the command line (repro, bisect, triage, run-bundle, promote)."""
    sweep, variant = variant_of(case_id)  # CaseError names what is wrong with the ref
    case, made = materialize(sweep, variant, settings)
    if not made.ok:
        raise CaseError(f"{case_id}: {made.detail}")
    return case
