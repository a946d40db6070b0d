"""Reproducer bundles: one self-contained folder per item, to paste upstream or to run
on another machine.

    input.mlir          the IR the item compiles (imported from PyTorch, or the case's)
    module.vmfb         the compiled module, when the compile succeeded
    inputs/ expected/   .npy inputs and expected outputs (PyTorch goldens)
    run.sh              the exact iree-compile and iree-run-module commands, relative paths
    run_bundle.py       runs module.vmfb here and compares (numpy + iree-run-module only)
    compare.py          the comparison run_bundle.py uses
    bundle.json         case, item, flags, device driver, tolerances, versions, outcome
    ISSUE.md            what happened, steps, versions, observed vs expected: ready to paste
"""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import numpy as np

from .. import path_options, targets
from ..case import Case
from ..outcomes import plain_words
from ..process import last_diagnostic, strip_paths
from ..reference import npy_files
from ..results import environment
from ..runner import ItemResult
from ..stages import Settings, compile_flags, compile_stage, import_stage
from ..toolchain import release_of
from . import paste

HERE = Path(__file__).resolve().parent


def _commands(flags: list[str], driver: str, function: str, n_inputs: int,
              n_outputs: int, runs: bool) -> tuple[list[str], list[str] | None]:
    """iree-compile and iree-run-module arguments, with the bundle's relative paths."""
    compile_args = ["input.mlir", *path_options.vetted(flags), "-o", "module.vmfb"]
    if not runs:
        return compile_args, None
    return compile_args, ["--module=module.vmfb", f"--device={driver}", f"--function={function}",
                          *[f"--input=@inputs/input{i}.npy" for i in range(n_inputs)],
                          *[f"--output=@outputs/out{i}.npy" for i in range(n_outputs)]]


def _run_sh(compile_args, run_args, header: str) -> str:
    header = " ".join(header.split())  # one comment line, whatever the case calls itself
    lines = ["#!/bin/sh", f"# {header}", "set -e", 'cd "$(dirname "$0")"',
             'IREE_COMPILE="${IREE_COMPILE:-iree-compile}"',
             'IREE_RUN_MODULE="${IREE_RUN_MODULE:-iree-run-module}"',
             paste.VETTED, f'"$IREE_COMPILE" {shlex.join(compile_args)}']
    if run_args:
        lines += ["mkdir -p outputs", f'"$IREE_RUN_MODULE" {shlex.join(run_args)}',
                  "# compare with expected/ (numpy only; runs module.vmfb again):",
                  "python3 run_bundle.py . --trust   # your own bundle: no sandbox needed"]
    return "\n".join(lines) + "\n"


def pasted_release_steps(case: Case, result: ItemResult, mlir: Path, flags: list[str], driver: str) -> str:
    """ISSUE.md's steps for one release: what an empty folder needs to show this item
    (paste.py), with PyTorch's values (or the case's reference) as the expected ones."""
    release = str(release_of(result.compiler))
    if not case.runs_module or result.target is None or result.outcome.startswith(("import-", "compile-")):
        expected = None  # a compile-time bug: compiling shows it
    elif result.outcome.startswith("run-") or case.kind == "run":
        expected = []  # it fails as it runs (or runs with nothing to compare): iree-run-module shows it
    else:
        expected = [np.load(p) for p in npy_files(case.expected_dir)]
    note = (f"{plain_words(result.outcome)} here" if result.failing_stage is not None
            else "compiles" + ("" if result.compile_only else " and runs correctly") + " here")
    return case_steps(case, mlir.read_text(), [paste.PastedRelease(release, tuple(flags), note)], driver,
                      expected)


def reference_name(case: Case) -> str:
    """Whose values a case's golden holds."""
    return "PyTorch" if case.torch_model else "the reference"


def case_steps(case: Case, program: str | dict[str, str], releases: list[paste.PastedRelease], driver: str,
               expected: list[np.ndarray] | None) -> str:
    """paste.steps for a case's own program: its inputs, tolerances and indices rules,
    compared with its golden (`expected`: see paste.steps)."""
    return paste.steps(program, releases, case.function, driver, [np.load(p) for p in npy_files(case.inputs_dir)],
                       expected, case.atol, case.rtol,
                       [paste.Indices(r.index, r.input, r.axis) for r in case.output_rules if r.mode == "indices"],
                       expected_from=reference_name(case))


def _issue_md(result: ItemResult, env: dict, steps: str, driver: str) -> str:
    case = result.case
    bad = result.failing_stage
    links = ", ".join(f"[{ref}]({url})" for ref, url in zip(case.threads, case.issue_urls())) or "none known"
    where = f"{targets.BY_NAME[result.target].description} at {result.opt_level}"
    if bad is None and result.compile_only:
        run = next(s for s in result.stages if s.stage == "run")
        what = (f"It compiles; it was not run here ({run.detail}). These steps run it where the "
                "device is; nothing has failed yet.")
    elif bad is None:
        what = "It compiles and runs correctly: no failure."
    elif bad.stage == "compare":
        # compare.py says "vs <what it compared against>: <diagnosis>": the diagnosis
        what = "Wrong numbers: " + (bad.detail.partition(": ")[2] if bad.detail.startswith("vs ") else bad.detail)
    else:
        what = f"{plain_words(result.outcome).capitalize()}: {strip_paths(last_diagnostic(bad.log or bad.detail))}"
    if bad is not None and bad.stage == "compare":
        observed = strip_paths(bad.detail)
        expected = ("outputs equal to PyTorch eager's within the case's tolerances "
                    f"(atol {case.atol:g}, rtol {case.rtol:g}); the steps carry PyTorch's values")
    elif bad is not None:
        observed = strip_paths((bad.log or bad.detail)[-3000:])
        expected = f"{_PLAIN_EXPECTED.get(bad.stage, 'it to work')}"
    else:
        observed = "not run here" if result.compile_only else "it passes"
        expected = "it passes"
    devices = "; ".join(f"{d}: {i.get('name', '?')} ({i.get('driver_info', '')})"
                        for d, infos in env.get("device_info", {}).items() for i in infos) or "none"
    release = str(release_of(result.compiler))
    version = release if release == result.compiler else f"{release} ({result.compiler})"
    headline = "compiles; to be run on the device" if bad is None and result.compile_only else \
        "passes" if bad is None else plain_words(result.outcome)
    return f"""# {case.title}: {headline} ({where}, IREE {version})

Related upstream: {links}. Found by the iree-regress case `{case.slug}`, item `{result.name}`.

## What happened

{what}

## Steps to reproduce

Paste into an empty folder (Linux, python3): the steps make a venv holding IREE {release}'s
compiler and runtime (a runtime of another release refuses or misreads the module), write
the program and its inputs, compile, run, and compare.

```sh
{steps}
```

This folder also holds the same files (`input.mlir`, `inputs/`, `expected/`, `run.sh`,
`run_bundle.py`) for `iree-regress run-bundle .` (sandboxed) on a machine with the device.

## Expected

{expected}

## Observed

```
{observed}
```

## Versions

- iree-compile {env.get('compiler_version')} @ {env.get('compiler_revision')}
- iree-run-module {env.get('runtime_version')}
- host CPU: {env.get('host_cpu')} ({env.get('machine')}); devices: {devices}; run device driver: `{driver}`
- host Python packages: {', '.join(f'{k} {v}' for k, v in env.get('packages', {}).items() if v)}
"""


_PLAIN_EXPECTED = {"import": "the program to import", "compile": "iree-compile to compile it",
                   "configure": "each attention dispatch to keep its configuration",
                   "run": "iree-run-module to run it", "ir": "the IR check to pass"}


# What a bundle folder holds; an existing --out is replaced only when it holds nothing else.
BUNDLE_NAMES = {"input.mlir", "module.vmfb", "inputs", "expected", "outputs", "run.sh",
                "run_bundle.py", "compare.py", "bundle.json", "ISSUE.md"}


def refuse_foreign(out: Path, force: bool, allowed: set[str] = frozenset()) -> None:
    """Empty `out` for a bundle; refuse (ValueError) when it holds files a bundle (or
    `allowed` more) does not write, unless `force`."""
    if not out.exists():
        return
    if not out.is_dir():
        raise ValueError(f"--out {out} is a file, not a folder")
    foreign = sorted(p.name for p in out.iterdir() if p.name not in BUNDLE_NAMES | allowed)
    if foreign and not force:
        raise ValueError(f"--out {out} holds files a bundle does not write ({', '.join(foreign[:5])}"
                         f"{', ...' if len(foreign) > 5 else ''}): choose another folder or pass --force")
    shutil.rmtree(out)


def write_bundle(case: Case, result: ItemResult, settings: Settings, out: Path,
                 force: bool = False) -> Path:
    """Write the bundle of a matrix item (target + level) into `out`, replacing an earlier
    bundle there, never a folder of other files (unless `force`)."""
    if result.differ is not None:
        raise ValueError(f"{case.slug}::{result.name}: a differential item's bundle is its triage's "
                         f"(`iree-regress triage {case.slug}::{result.name}`: the ISSUE.md and bundle of the side "
                         f"whose outputs moved between releases); its two compiles and runs: {result.reproducer()}")
    if result.target is None:
        raise ValueError(f"{case.slug}::{result.name}: ir checks have no bundle; the item's "
                         f"command is the reproducer: {result.reproducer()}")
    out = Path(out)
    _, mlir = import_stage(case, settings)  # cached: the same IR the item compiled
    if mlir is None:
        raise ValueError(f"{case.slug}: the import failed, nothing to bundle: {result.reproducer()}")
    refuse_foreign(out, force)
    flags = compile_flags(case, result.target, result.opt_level, settings)
    compiled, vmfb = compile_stage(mlir, flags, settings)
    driver = targets.BY_NAME[result.target].driver
    env = environment(settings.toolchain)
    meta = {"case": case.slug, "item": result.name, "target": result.target,
            "opt_level": result.opt_level, "atol": case.atol, "rtol": case.rtol,
            "output_rules": [r.__dict__ for r in case.output_rules], "outcome": result.outcome,
            "issues": list(case.threads), "environment": env}
    lay_out(out, mlir, vmfb, npy_files(case.inputs_dir),
                    npy_files(case.expected_dir) if case.kind == "numeric" else [],
                    flags, driver, case.function, meta,
                    f"{case.slug}::{result.name}: {result.outcome} with IREE {result.compiler}",
                    runs=case.runs_module,
                    spreads=npy_files(case.spread_dir) if case.spread and case.kind == "numeric" else [])
    pasted = pasted_release_steps(case, result, mlir, flags, driver)
    (out / "ISSUE.md").write_text(_issue_md(result, env, pasted, driver))
    return out


def lay_out(out: Path, mlir: Path, vmfb: Path | None, inputs: list[Path], expected: list[Path],
            flags: list[str], driver: str, function: str, meta: dict, header: str, runs: bool | None = None,
            spreads: list[Path] = ()) -> None:
    """Write a bundle's files but ISSUE.md into `out` (run.sh says the steps). `runs`: run.sh
    runs the module (default: when there are outputs to compare; a run case has none).
    `spreads`: the golden's spread (a generated program's), compared with as the item was."""
    (out / "inputs").mkdir(parents=True, exist_ok=True)
    (out / "expected").mkdir(exist_ok=True)
    shutil.copy(mlir, out / "input.mlir")
    if vmfb is not None:
        shutil.copy(vmfb, out / "module.vmfb")
    for i, p in enumerate(inputs):
        shutil.copy(p, out / "inputs" / f"input{i}.npy")
    for i, p in enumerate(expected):
        shutil.copy(p, out / "expected" / f"output{i}.npy")
    if spreads:
        (out / "spread").mkdir(exist_ok=True)
        for i, p in enumerate(spreads):
            shutil.copy(p, out / "spread" / f"spread{i}.npy")
    compile_args, run_args = _commands(flags, driver, function, len(inputs), len(expected),
                                       bool(expected) if runs is None else runs)
    (out / "run.sh").write_text(_run_sh(compile_args, run_args, header))
    (out / "run.sh").chmod(0o755)
    shutil.copy(HERE / "run.py", out / "run_bundle.py")
    shutil.copy(HERE.parent / "compare.py", out / "compare.py")
    meta = {**meta, "flags": flags, "driver": driver, "function": function}
    (out / "bundle.json").write_text(json.dumps(meta, indent=1))
