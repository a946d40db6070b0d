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

from . import targets
from .case import Case
from .outcomes import PASS_OUTCOME
from .reference import npy_files
from .results import environment
from .runner import ItemResult
from .stages import Settings, compile_flags, compile_stage, import_stage
from .toolchain import release_of

HERE = Path(__file__).resolve().parent


def _commands(flags: list[str], driver: str, function: str, n_inputs: int,
              n_outputs: int) -> tuple[list[str], list[str] | None]:
    """iree-compile and iree-run-module arguments, with the bundle's relative paths."""
    compile_args = ["input.mlir", *flags, "-o", "module.vmfb"]
    if not n_outputs:
        return compile_args, None
    return compile_args, ["--module=module.vmfb", f"--device={driver}", f"--function={function}",
                          *[f"--input=@inputs/input{i}.npy" for i in range(n_inputs)],
                          *[f"--output=@outputs/out{i}.npy" for i in range(n_outputs)]]


def _run_sh(compile_args, run_args, header: str) -> str:
    header = " ".join(header.split())  # one comment line, whatever the case calls itself
    lines = ["#!/bin/sh", f"# {header}", "set -e", 'cd "$(dirname "$0")"',
             'IREE_COMPILE="${IREE_COMPILE:-iree-compile}"',
             'IREE_RUN_MODULE="${IREE_RUN_MODULE:-iree-run-module}"',
             f'"$IREE_COMPILE" {shlex.join(compile_args)}']
    if run_args:
        lines += ["mkdir -p outputs", f'"$IREE_RUN_MODULE" {shlex.join(run_args)}',
                  "# compare with expected/ (numpy only; runs module.vmfb again):",
                  "python3 run_bundle.py ."]
    return "\n".join(lines) + "\n"


def _issue_md(result: ItemResult, env: dict, steps: str, driver: str) -> str:
    case = result.case
    bad = result.failing_stage
    links = ", ".join(f"[{ref}]({url})" for ref, url in zip(case.threads, case.issue_urls())) or "none known"
    if bad is None and result.compile_only:
        run = next(s for s in result.stages if s.stage == "run")
        what = (f"compiled; not run here ({run.detail}). This bundle is for running where the "
                f"device is (`python run_bundle.py`); nothing has failed yet.")
    else:
        what = "no failure: the item passed" if bad is None else f"`{result.outcome}`: {bad.detail}"
    if bad is not None and bad.stage == "compare":
        observed = bad.detail  # the numeric diagnosis
        expected = "outputs equal to PyTorch eager within the case's tolerances"
    elif bad is not None:
        observed = (bad.log or bad.detail)[-3000:]
        expected = f"the {bad.stage} step to succeed"
    else:
        observed = "not run here" if result.compile_only else PASS_OUTCOME
        expected = PASS_OUTCOME
    devices = "; ".join(f"{d}: {i.get('name', '?')} ({i.get('driver_info', '')})"
                        for d, infos in env.get("device_info", {}).items() for i in infos) or "none"
    release = str(release_of(result.compiler))
    version = release if release == result.compiler else f"{release} ({result.compiler})"
    outcome = "compile-only" if bad is None and result.compile_only else result.outcome
    return f"""# {case.title}: {outcome} on {result.name} (IREE {version})

Related upstream: {links}. Found by the iree-regress case `{case.slug}`, item `{result.name}`.

## What happened

{what}

## Steps to reproduce

Files: `input.mlir`, `inputs/*.npy`, `expected/*.npy` in this folder.

```sh
{steps}
```

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
    steps = lay_out(out, mlir, vmfb, npy_files(case.inputs_dir),
                    npy_files(case.expected_dir) if case.kind == "numeric" else [],
                    flags, driver, case.function, meta,
                    f"{case.slug}::{result.name}: {result.outcome} with IREE {result.compiler}")
    (out / "ISSUE.md").write_text(_issue_md(result, env, steps, driver))
    return out


def lay_out(out: Path, mlir: Path, vmfb: Path | None, inputs: list[Path], expected: list[Path],
            flags: list[str], driver: str, function: str, meta: dict, header: str) -> str:
    """Write a bundle's files but ISSUE.md into `out`; returns the steps that reproduce it,
    as pasted in that folder."""
    (out / "inputs").mkdir(parents=True, exist_ok=True)
    (out / "expected").mkdir(exist_ok=True)
    shutil.copy(mlir, out / "input.mlir")
    if vmfb is not None:
        shutil.copy(vmfb, out / "module.vmfb")
    for i, p in enumerate(inputs):
        shutil.copy(p, out / "inputs" / f"input{i}.npy")
    for i, p in enumerate(expected):
        shutil.copy(p, out / "expected" / f"output{i}.npy")
    compile_args, run_args = _commands(flags, driver, function, len(inputs), len(expected))
    (out / "run.sh").write_text(_run_sh(compile_args, run_args, header))
    (out / "run.sh").chmod(0o755)
    shutil.copy(HERE / "bundle_run.py", out / "run_bundle.py")
    shutil.copy(HERE / "compare.py", out / "compare.py")
    meta = {**meta, "flags": flags, "driver": driver, "function": function}
    (out / "bundle.json").write_text(json.dumps(meta, indent=1))
    steps = shlex.join(["iree-compile", *compile_args])
    if run_args:
        steps += "\nmkdir -p outputs\n" + shlex.join(["iree-run-module", *run_args])
        steps += "\npython3 run_bundle.py .   # compares outputs/ with expected/ (numpy only)"
    return steps
