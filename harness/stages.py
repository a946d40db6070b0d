"""The stages of one item: import -> compile [-> configure] -> run -> compare, or ir.

Each stage returns a StageResult; none raises for a tool's failure. A tool that
crashes, hangs, runs out of memory or writes something unreadable becomes a result
with that status, the command that did it and the tail of what it printed.
Results of deterministic work (imports, compiles, ir checks, runs) are cached by
content + flags + tool versions (cache.py) through one `cached_step`, so a rerun
repeats none of it.
"""

from __future__ import annotations

import functools
import re
import shutil
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

import numpy as np

from . import frontends, older_releases, targets, vulkan_layer
from .cache import Cache, digest, read_meta
from .case import Case, Differ, IrCheck, Side
from .compare import compare_outputs, differ_tolerance
from .configuration import ATTENTION_OP, has_attention, left_after_strip, read_configurations
from .outcomes import CRASHED, FAILED, GARBAGE, INFRA, OK, OUT_OF_MEMORY, SKIPPED, TIMED_OUT
from .process import (BOUNDS, Bounds, ProcessResult, crash_message, display, first_frame, last_diagnostic,
                      machine_trouble, run_bounded)
from .record import StageResult
from .sandbox import Sandbox, probe as sandbox_probe
from .reference import load_arrays, npy_files
from .toolchain import Toolchain

# A vmfb is a zip (flatbuffer + embedded executables) or a bare flatbuffer whose file
# identifier "IREE" sits at byte 4. Anything else written as a module is garbage.
_VMFB_MAGICS = ((0, b"PK\x03\x04"), (4, b"IREE"))


@dataclass(frozen=True)
class Settings:
    """How this run calls tools; one per pytest session."""
    toolchain: Toolchain
    cache: Cache
    compile_bounds: Bounds = BOUNDS["compile"]
    run_bounds: Bounds = BOUNDS["run"]
    import_bounds: Bounds = BOUNDS["import"]
    target_options: targets.TargetOptions = targets.TargetOptions()
    python: str = sys.executable  # runs the torch job
    sandbox: Sandbox | None = None  # where case code runs (sandbox.py); None: this machine's, probed when needed
    extra_flags: tuple[str, ...] = ()  # --iree-compile-flag: added to every compile


# A stage's data key: the tool commands it ran besides its own (`command`): the eager
# reference a comparison runs, the configuration dump a compile runs. What the tools cost
# with no harness around them (benchmarks/suite_speed.py's floor) counts them too.
ALSO_RAN = "also_ran"


def _tool_name(settings: Settings, path: Path) -> str:
    """Show installed tools by name (they are on PATH), others by their full path."""
    return path.name if settings.toolchain.source == "installed packages" else str(path)


REFUSED_WRITE = "the sandbox refused a write outside the item"


def stage_from_process(stage: str, proc: ProcessResult, shown_command: str) -> StageResult:
    status = proc.status()
    # In the sandbox the root is read-only on purpose: a write there is the item's own doing.
    trouble = machine_trouble(proc.stderr, ("EROFS",) if proc.sandboxed else ()) if status != OK else ""
    if trouble:  # the disk or the file system, not the compiler: never a verdict, never cached
        where = f" (in {Path(proc.argv[proc.argv.index('-o') + 1]).parent})" if "-o" in proc.argv[:-1] else ""
        return StageResult(stage, INFRA, f"machine trouble{where}: {trouble}", proc.stderr_tail(), shown_command,
                           proc.seconds, proc.peak_rss_mb)
    detail = {
        OK: "",
        FAILED: f"exit code {proc.returncode}",
        CRASHED: f"crashed ({proc.signal_name or f'exit code {proc.returncode}'})",
        TIMED_OUT: f"killed after {proc.seconds:.0f} s (time bound)",
        OUT_OF_MEMORY: f"killed at {proc.peak_rss_mb:.0f} MB resident (memory bound)",
    }[status]
    last = last_diagnostic(proc.stderr)
    if status == CRASHED:
        # Lead with where it died: crashes then group by their first IREE/MLIR/LLVM frame.
        frame = first_frame(proc.stderr)
        last = " | ".join(p for p in (crash_message(proc.stderr), frame and f"at {frame}") if p) or last
    if last and status != OK:
        detail = f"{detail}: {last}"
    if proc.refused:  # a tool, or a program it started, wrote outside the item: never a pass
        status = FAILED if status == OK else status
        detail = " | ".join(p for p in (detail, f"{REFUSED_WRITE}: {proc.refused[:200]}") if p)
    return StageResult(stage, status, detail, proc.stderr_tail(), shown_command, proc.seconds,
                       proc.peak_rss_mb)


# Cached text never names the path of the case that first made the entry: entries are
# shared by content, and a reader sees its own paths.
_PATH_TOKEN = "{iree-regress:path}"


def _portable(result: StageResult, path: Path | None) -> dict:
    """The result as stored: `path` (the input the tool read) replaced by a token."""
    data = result.as_dict()
    if path is not None:
        for key in ("detail", "log", "command"):
            data[key] = data[key].replace(str(path), _PATH_TOKEN)
    return data


def _cached_result(entry: Path, command: str | None = None, path: Path | None = None) -> StageResult:
    """A stored result, in the reader's terms: `command` re-spells it for this toolchain's
    paths (an entry is shared by every install of the same compiler build), `path` is the
    reader's own input."""
    meta = read_meta(entry)
    result = StageResult(**meta["result"])
    result.cached = True
    for key in ("detail", "log", "command"):
        setattr(result, key, getattr(result, key).replace(_PATH_TOKEN, str(path or "")))
    if command is not None:
        result.command = command
    return result


# A result that depends on the bounds or the machine's load, not on the input alone.
_NOT_CACHED = (TIMED_OUT, OUT_OF_MEMORY, INFRA)

# What a step's work leaves: its result and the files to keep with it (moved into the entry).
Built = tuple[StageResult, dict[str, Path]]


def _storable(result: StageResult) -> bool:
    """Whether a result says something of the program alone: not the machine's trouble,
    nor a refusal that depends on where the sandbox lets a tool write."""
    return result.status not in _NOT_CACHED and REFUSED_WRITE not in result.detail


def cached_step(settings: Settings, kind: str, key: str, build: Callable[[Path], Built], *,
                shown: str | None = None, path: Path | None = None,
                meta: dict | None = None) -> tuple[StageResult, Path | None]:
    """The one cached step: under the key's lock, a verified entry is read back (its text
    in the reader's terms: `shown` command, `path` as the input it read); otherwise
    `build(scratch)` runs in a private folder, and its result and files are stored,
    unless the result depends on the machine (_storable). Returns the result and the
    entry holding its files (None when nothing was stored)."""
    with settings.cache.compute_once(kind, key) as done:
        if done:
            cached = _cached_result(done, shown, path)
            if _storable(cached):  # never stored now; an older entry is not read
                return cached, done
        out = settings.cache.scratch(f"{kind}-")
        try:
            result, files = build(out)
            if not _storable(result):
                return result, None
            entry = settings.cache.store(kind, key, {**(meta or {}), "result": _portable(result, path)},
                                         files)
            return result, entry
        finally:
            shutil.rmtree(out, ignore_errors=True)


# ---------------------------------------------------------------------------- import

def run_torch_job(stage: str, args: list, settings: Settings, writable: Path) -> StageResult:
    """`python -m harness.torch_job ARGS` under the import bounds, in the sandbox with only
    `writable` writable, as a stage's result. This is where a case's own Python runs."""
    argv = [settings.python, "-m", "harness.torch_job", *args]
    repo = Path(__file__).resolve().parent.parent
    readable = [Path(a).parent if Path(a).is_file() else Path(a) for a in args if isinstance(a, Path)]
    sandbox = settings.sandbox or sandbox_probe()
    proc = run_bounded(sandbox.wrap(argv, [writable], cwd=repo, readable=readable),
                       settings.import_bounds, cwd=repo, sandbox=sandbox, wrapped=True)
    return stage_from_process(stage, proc, display(argv))


def write_golden_sandboxed(program: Path, case_dir: Path, settings: Settings,
                           frontend: str = "torch", spread: bool = False) -> StageResult:
    """inputs/ and expected/ of a case from its PyTorch program (`iree-regress golden`,
    new-case): the program runs in the sandbox with only the case's folder writable. The
    golden is the frontend's reference (PyTorch eager, or ONNX Runtime)."""
    case_dir = Path(case_dir).resolve()
    return run_torch_job("reference", [Path(program).resolve(), "--golden", case_dir, *frontend_args(frontend),
                                       *(["--spread"] if spread else [])],
                         settings, writable=case_dir)


def frontend_args(frontend: str) -> list[str]:
    """The torch job's arguments for a frontend (none for the default, torch)."""
    return [] if frontend == "torch" else [f"--frontend={frontend}"]


@functools.lru_cache(maxsize=None)
def frontend_key(frontend: str) -> tuple:
    """What a frontend adds to a torch job's cache key: nothing for torch (its keys stay
    as they were); for the others the frontend, its packages' versions and its own code
    (what it writes, and the words its failures are said in)."""
    from .importers import versions

    return () if frontend == "torch" else (frontend, versions(frontends.PACKAGES[frontend]),
                                           *(p.read_bytes() for p in frontends.code_of(frontend)))


def torch_job_key(case: Case, import_mlir: bool) -> str:
    from .importers import versions  # cheap: reads package metadata only

    return digest("torch-job", case.reference_program, [p.read_bytes() for p in npy_files(case.inputs_dir)],
                  versions(), import_mlir, case.dynamic_shapes if import_mlir else "", *frontend_key(case.frontend))


def torch_job(case: Case, settings: Settings, import_mlir: bool) -> tuple[StageResult, Path | None]:
    """Run the case's PyTorch program once (cached): eager outputs, and its MLIR."""
    program = case.reference_program
    key = torch_job_key(case, import_mlir)
    stage = "import" if import_mlir else "reference"

    def build(out: Path) -> Built:
        args = [program, case.inputs_dir, out]
        if import_mlir:
            args += ["--import-mlir", f"--dynamic-shapes={case.dynamic_shapes}"]
        args += frontend_args(case.frontend)
        result = run_torch_job(stage, args, settings, writable=out)
        if result.ok and import_mlir and not (out / "model.mlir").is_file():
            result.status, result.detail = GARBAGE, "the import wrote no model.mlir"
        return result, ({p.name: p for p in out.iterdir()} if result.ok else {})

    return cached_step(settings, "torch", key, build, path=program.parent)


def import_stage(case: Case, settings: Settings) -> tuple[StageResult, Path | None]:
    """The MLIR to compile: imported from PyTorch, or the case's own (per release), as this
    release can read it (older_releases.py: no-computation ops it does not know removed,
    and said on the stage)."""
    if case.torch_model is None:
        mlir = case.mlir_for(settings.toolchain.release)
        result = StageResult("import", OK, f"mlir input {mlir.name}")
    else:
        result, entry = torch_job(case, settings, import_mlir=True)
        mlir = (entry / "model.mlir") if result.ok else None
    if mlir is None:
        return result, None
    return readable_by_release(result, mlir, settings)


def readable_by_release(result: StageResult, mlir: Path, settings: Settings) -> tuple[StageResult, Path]:
    """`mlir` as the toolchain's release can read it (cached), the removal said on `result`."""
    release = settings.toolchain.release
    ops = older_releases.needs_rewrite(mlir, release)
    if not ops:
        return result, mlir

    def build(out: Path) -> Built:
        text, removed = older_releases.without(mlir.read_text(errors="replace"), ops)
        (out / "model.mlir").write_text(text)
        return StageResult("import", OK, older_releases.said(removed, release), data={"removed_ops": removed}), \
            {"model.mlir": out / "model.mlir"}

    made, entry = cached_step(settings, "readable", digest("readable", mlir, ops), build, path=mlir)
    return replace(result, detail="; ".join(d for d in (result.detail, made.detail) if d),
                   data={**result.data, **made.data}), entry / "model.mlir"


# --------------------------------------------------------------------------- compile

def compile_flags(case: Case, target: str, opt_level: str, settings: Settings, more=()) -> list[str]:
    """The profile's flags, then the case's, the run's and `more` (a differential side's)."""
    flags = targets.compile_flags(target, opt_level, settings.toolchain.release,
                                  settings.target_options)
    own = targets.spelled_for([*case.flags, *case.target_flags.get(target, ()), *settings.extra_flags, *more],
                              settings.toolchain.release)
    # A flag the case sets replaces the profile's own spelling of it (a pinned target CPU
    # instead of the host's), so the command line says one value.
    named = {f.split("=", 1)[0] for f in own if f.startswith("--") and "=" in f}
    return [f for f in flags if f.split("=", 1)[0] not in named] + own


def is_vmfb(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(8)
    except OSError:
        return False
    return any(head[at:at + len(magic)] == magic for at, magic in _VMFB_MAGICS)


def compile_stage(mlir: Path, flags: list[str], settings: Settings,
                  configurations: bool = False) -> tuple[StageResult, Path | None]:
    """configurations: for a program that computes attention, also record what IREE
    configured for each attention dispatch (data["configurations"], the dumped
    executables under configurations/). That takes a second, partial compile up to
    strategy selection, so that the item's own compile stays the user's command and its
    diagnostics point into the program, not into a dump."""
    tc = settings.toolchain
    host = targets.host_cpu_id() if targets.uses_host_cpu(flags) else ""
    dumps = configurations and targets.dumps_configurations(tc.release) and _computes_attention(mlir)
    key = digest("compile", mlir, flags, tc.fingerprint(), host, "configurations" if dumps else "")
    shown = display([_tool_name(settings, tc.compile), mlir, *flags, "-o", "module.vmfb"])

    def build(out: Path) -> Built:
        vmfb = out / "module.vmfb"
        proc = run_bounded([tc.compile, mlir, *flags, "-o", vmfb], settings.compile_bounds)
        result = stage_from_process("compile", proc, shown)
        if not result.ok:
            return result, {}
        problem, result.data = check_module(vmfb, tc, settings.run_bounds)
        if problem:
            result.status, result.detail = GARBAGE, f"iree-compile exited 0 but {problem}"
            return result, {}
        files = {"module.vmfb": vmfb}
        if dumps:
            files.update(_dump_configurations(mlir, flags, out, result, settings))
        return result, files

    result, entry = cached_step(settings, "compile", key, build, shown=shown, path=mlir,
                                meta={"flags": flags})
    return result, (entry / "module.vmfb") if result.ok else None


@functools.lru_cache(maxsize=256)
def _attention_in(path: str, mtime_ns: int, size: int) -> bool:
    return has_attention(Path(path).read_text(errors="replace"))


def _computes_attention(mlir: Path) -> bool:
    """Whether a program computes attention: read once per file version, not per item."""
    st = mlir.stat()
    return _attention_in(str(mlir), st.st_mtime_ns, st.st_size)


def _dump_configurations(mlir: Path, flags: list[str], out: Path, result: StageResult,
                         settings: Settings) -> dict[str, Path]:
    """Compile up to strategy selection with the dump on; the attention executables'
    configurations go to result.data (or why they could not be read)."""
    tc = settings.toolchain
    dump = out / "configurations"
    argv = [tc.compile, mlir, *flags, "--compile-to=executable-configurations",
            targets.config_dump_flag(tc.release, dump), "-o", out / "configured.mlir"]
    proc = run_bounded(argv, settings.compile_bounds)
    result.data[ALSO_RAN] = [display(argv)]
    if not proc.ok:
        result.data["configurations_error"] = last_diagnostic(proc.stderr) or proc.status()
        return {}
    result.data["configurations"] = read_configurations(dump)
    return {f"configurations/{p.name}": p for p in sorted(dump.glob("*.mlir"))
            if ATTENTION_OP.search(p.read_text(errors="replace"))}


def configure_stage(mlir: Path, compiled: StageResult, vmfb: Path, settings: Settings) -> StageResult | None:
    """What IREE configured for the attention dispatches of a GPU compile: recorded
    (data["configurations"]); a failure when the source computes attention and no
    attention dispatch was configured, or when the tuner's strip pass leaves a tuning
    attribute on the attention op (iree-org/iree#20053). None where there is nothing
    to say (no attention, or a release without the dump)."""
    if "configurations_error" in compiled.data:
        return StageResult("configure", FAILED, "the compile up to strategy selection, which dumps the "
                           f"configurations, failed: {compiled.data['configurations_error']}")
    configs = compiled.data.get("configurations")
    if configs is None:  # no attention in the program, or a release without the dump
        return None
    result = StageResult("configure", OK, data={"configurations": configs})
    if not configs:
        result.status = FAILED
        result.detail = ("the program computes attention, but no dispatch holds a configured "
                         "attention op (iree_linalg_ext.attention became something else)")
        return result
    strip = targets.strip_compilation_info_flag(settings.toolchain.release)
    for dumped in sorted((vmfb.parent / "configurations").glob("*.mlir")) if strip else ():
        stripped = _stripped(dumped, strip, settings)
        if isinstance(stripped, StageResult):
            return stripped
        left = left_after_strip(stripped)
        if left:
            result.status = FAILED
            result.detail = (f"{strip} left {', '.join(left)} on the attention op of "
                             f"{dumped.stem} (the tuner's strip pass must remove them: iree-org/iree#20053)")
            result.command = display([_tool_name(settings, settings.toolchain.opt), dumped.name, strip])
            return result
    return result


def _stripped(dumped: Path, strip: str, settings: Settings) -> str | StageResult:
    """The executable after the strip pass (cached), or the stage result of its failure."""
    tc = settings.toolchain
    shown = display([_tool_name(settings, tc.opt), dumped.name, strip])

    def build(out: Path) -> Built:
        proc = run_bounded([tc.opt, dumped, strip], settings.compile_bounds, stdout_path=out / "stripped.mlir")
        result = stage_from_process("configure", proc, shown)
        return result, ({"stripped.mlir": out / "stripped.mlir"} if result.ok else {})

    result, entry = cached_step(settings, "configure", digest("strip", dumped, strip, tc.fingerprint()),
                                build, shown=shown, path=dumped)
    return (entry / "stripped.mlir").read_text(errors="replace") if result.ok else result


# An executable's entry point as iree-dump-module lists it in .rodata: `main_dispatch_0_...`.
_DISPATCH = re.compile(r"^\s*\.rodata\[.*`(\w*?_dispatch_\d+)", re.M)


def check_module(vmfb: Path, toolchain: Toolchain, bounds: Bounds) -> tuple[str, dict]:
    """('' or why not, facts) where '' means the runtime's own loader (iree-dump-module)
    accepts the module; facts are its size and dispatch count, tracked night to night.
    Without that tool (a tools dir lacking it) the file's identifier is checked."""
    if not is_vmfb(vmfb):
        return "wrote no readable module", {}
    facts = {"module_bytes": vmfb.stat().st_size}
    if toolchain.dump_module is None:
        return "", facts
    proc = run_bounded([toolchain.dump_module, vmfb], Bounds(min(bounds.timeout_s, 60), bounds.memory_mb))
    if proc.ok:
        facts["dispatches"] = len(set(_DISPATCH.findall(proc.stdout.decode(errors="replace"))))
        return "", facts
    return (f"the module does not load (iree-dump-module: {last_diagnostic(proc.stderr) or proc.status()})",
            facts)


# ------------------------------------------------------------------------------- run

def run_stage(case: Case, target: str, vmfb: Path, settings: Settings) -> tuple[StageResult, list[np.ndarray] | None]:
    return run_module(target, vmfb, case.function, npy_files(case.inputs_dir),
                      len(npy_files(case.expected_dir)), settings)


def run_module(target: str, vmfb: Path, function: str, inputs: list[Path], n_outputs: int,
               settings: Settings) -> tuple[StageResult, list[np.ndarray] | None]:
    """Run `function` of a module on `target`'s device here with .npy `inputs` (cached)."""
    tc = settings.toolchain
    vulkan = targets.BY_NAME[target].driver == "vulkan"
    env = vulkan_layer.env_for(str(tc.run_module)) if vulkan else ()
    device = targets.run_device(target, str(tc.run_module), env)
    if device is None:
        why = vulkan_layer.why_hidden(str(tc.run_module)) if vulkan else ""
        return StageResult("run", SKIPPED, f"compile-only: no {target} device here{why}"), None
    args = [f"--module={vmfb}", f"--device={device}", f"--function={function}"]
    args += [f"--input=@{p}" for p in inputs]
    key = digest("run", vmfb, [p.read_bytes() for p in inputs], device, tc.runtime_version,
                 tc.fingerprint(), n_outputs, function)
    out_names = [f"out{i}.npy" for i in range(n_outputs)]
    inputs_dir = inputs[0].parent if inputs else None
    # As pasted after the compile command, which writes module.vmfb where it runs.
    shown = display([_tool_name(settings, tc.run_module), "--module=module.vmfb", *args[1:],
                     *[f"--output=@{n}" for n in out_names]])

    def build(out: Path) -> Built:
        argv = [tc.run_module, *args, *[f"--output=@{out / n}" for n in out_names]]
        bounds = replace(settings.run_bounds, env={**settings.run_bounds.env, **dict(env)})
        # A device other than the CPU needs the host's /dev (a GPU's nodes, Vulkan's).
        on_device = not targets.BY_NAME[target].local
        result = stage_from_process("run", run_bounded(argv, bounds, devices=on_device), shown)
        if result.ok:
            try:
                for n in out_names:
                    np.load(out / n)
            except (OSError, ValueError) as e:
                result.status = GARBAGE
                result.detail = f"iree-run-module exited 0 but its outputs are unreadable: {e}"
        return result, ({n: out / n for n in out_names} if result.ok else {})

    result, entry = cached_step(settings, "run", key, build, shown=shown, path=inputs_dir)
    return result, ([np.load(entry / n) for n in out_names] if result.ok else None)


# --------------------------------------------------------------------------- compare

SECOND_REFERENCE = "XLA CPU"  # the StableHLO path's (torch_job: xla<i>.npy beside the eager outputs)


def golden_spreads(case: Case, golden: list[np.ndarray]) -> list[np.ndarray] | None | str:
    """The golden's spread (reference.spread) where the case's golden carries one; a
    string saying what is wrong where it should and does not: the reference's own fault."""
    if not case.spread:
        return None
    spreads = load_arrays(case.spread_dir)
    if [s.shape for s in spreads] != [g.shape for g in golden]:
        return (f"the golden's spread ({case.spread_dir}) does not match its outputs: "
                f"{[list(s.shape) for s in spreads]} vs {[list(g.shape) for g in golden]}")
    return spreads


def compare_stage(case: Case, outputs: list[np.ndarray], settings: Settings) -> StageResult:
    start = time.monotonic()
    inputs = load_arrays(case.inputs_dir)
    golden = load_arrays(case.expected_dir)
    spreads = golden_spreads(case, golden)
    if isinstance(spreads, str):
        return StageResult("reference", FAILED, spreads, seconds=time.monotonic() - start)
    checks = [compare_outputs(outputs, golden, inputs, case.atol, case.rtol, case.output_rules,
                              "golden", spreads)]
    eager_result, entry = torch_job(case, settings, import_mlir=case.torch_model is not None)
    if not eager_result.ok:
        # Not the compiler's fault: its own stage, so it never reads as wrong numbers.
        return StageResult("reference", eager_result.status,
                           f"{case.reference_name} reference failed: {eager_result.detail}",
                           eager_result.log, eager_result.command)
    eager = [np.load(p) for p in npy_files(entry) if p.name.startswith("eager")]
    ran = [] if eager_result.cached or not eager_result.command else [eager_result.command]
    second = [np.load(p) for p in npy_files(entry) if p.name.startswith("xla")]
    if second:  # the StableHLO path's second reference: two that disagree judge nothing
        between = compare_outputs(second, golden, inputs, case.atol, case.rtol, case.output_rules,
                                  f"golden ({case.reference_name})")
        if not between.ok:
            return StageResult("reference", FAILED, f"the references disagree, not IREE's verdict: "
                               f"{SECOND_REFERENCE} {between.summary()}",
                               seconds=time.monotonic() - start, data={"comparisons": [between.as_dict()]})
    if len(eager) == len(golden) and all(np.array_equal(e, g, equal_nan=True)
                                         for e, g in zip(eager, golden)):
        checks[0] = replace(checks[0], against=f"golden (= {case.reference_name} today)")
    else:  # the golden drifted from today's PyTorch: judge against both, say which
        checks.append(compare_outputs(outputs, eager, inputs, case.atol, case.rtol,
                                      case.output_rules, f"{case.reference_name} today", spreads))
    data = {"comparisons": [c.as_dict() for c in checks], **({ALSO_RAN: ran} if ran else {})}
    # A golden that PyTorch no longer reproduces is wrong itself: no known bug may hide it.
    drift = compare_outputs(eager, golden, inputs, case.atol, case.rtol, case.output_rules,
                            f"{case.reference_name} today") if len(checks) > 1 else None
    if drift is not None and not drift.ok:
        data["golden_drift"] = drift.summary().replace(f"vs {case.reference_name} today: ", "", 1)
    ok = all(c.ok for c in checks)
    detail = " | ".join(c.summary() for c in checks if not c.ok) if not ok else \
        " | ".join(c.summary() for c in checks)
    return StageResult("compare", OK if ok else FAILED, detail, "", "",
                       time.monotonic() - start, data=data)


# ------------------------------------------------------------------ differential

def side_of(result: StageResult, label: str, side: Side) -> StageResult:
    """A differential item's compile or run stage, told as its side's (`a (cpu-O3): ...`),
    with the module and outputs named per side so that both commands paste together."""
    data = {**result.data, "side": label}
    command = result.command.replace("module.vmfb", f"module-{label}.vmfb").replace("--output=@out",
                                                                                       f"--output=@{label}-out")
    detail = f"{label} ({side.describe()})" + (f": {result.detail}" if result.detail else "")
    return replace(result, detail=detail, command=command, data=data)


def differ_stage(case: Case, differ: Differ, outputs_a: list[np.ndarray], outputs_b: list[np.ndarray]) -> StageResult:
    """Fails when the two sides' outputs disagree beyond the tolerance of their dtype (or
    the differ's, or the case's, the loosest). Where the case has a golden, each side is
    also compared with it, so the detail says which side is wrong; two sides that agree
    on wrong numbers are the golden's business (compare-fail), not a pass."""
    start = time.monotonic()
    atol, rtol = differ_tolerance(outputs_a, max(differ.atol, case.atol), max(differ.rtol, case.rtol))
    inputs = load_arrays(case.inputs_dir)
    between = compare_outputs(outputs_b, outputs_a, inputs, atol, rtol, case.output_rules, "side a")
    checks = [between]
    golden = load_arrays(case.expected_dir) if case.kind == "numeric" else []
    spread_of_golden = golden_spreads(case, golden) if golden else None
    if isinstance(spread_of_golden, str):
        return StageResult("reference", FAILED, spread_of_golden, seconds=time.monotonic() - start)
    verdicts = []
    if golden:
        for label, outputs in (("a", outputs_a), ("b", outputs_b)):
            check = compare_outputs(outputs, golden, inputs, case.atol, case.rtol, case.output_rules,
                                    f"golden ({case.reference_name})", spread_of_golden)
            checks.append(check)
            verdicts.append(f"{label} {'matches' if check.ok else 'is wrong against'} the golden")
    data = {"comparisons": [c.as_dict() for c in checks], "tolerance": {"atol": atol, "rtol": rtol},
            "sides": [differ.a.describe(), differ.b.describe()]}
    sides = f"a ({differ.a.describe()}) vs b ({differ.b.describe()})"
    wrong = [(label, c) for label, c in zip("ab", checks[1:]) if not c.ok]
    if between.ok and wrong:  # within the tolerance of each other, off the golden
        who = "both are" if len(wrong) == 2 else f"{wrong[0][0]} is"
        return StageResult("compare", FAILED, f"{sides} agree, and {who} wrong: {wrong[0][1].summary()}",
                           seconds=time.monotonic() - start, data=data)
    which = f" ({'; '.join(verdicts)})" if verdicts else ""
    detail = (f"{sides}: b {between.summary()}{which}" if not between.ok
              else f"{sides} agree within atol={atol:g}, rtol={rtol:g}{which}")
    return StageResult("differ", OK if between.ok else FAILED, detail, seconds=time.monotonic() - start, data=data)


# -------------------------------------------------------------------------------- ir

def ir_stage(case: Case, check: IrCheck, settings: Settings) -> StageResult:
    tc = settings.toolchain
    if settings.toolchain.release not in check.compiler:
        return StageResult("ir", SKIPPED, f"check is for compilers {check.compiler}, "
                                         f"this is {tc.compiler_version}")
    ir_input = case.mlir_for(tc.release) if check.input == case.mlir else check.input
    return ir_check(check.tool, ir_input, check.args, check.checks, check.check_prefix,
                    settings)


def ir_check(tool_name: str, ir_input: Path, args: tuple[str, ...], checks: Path, prefix: str,
             settings: Settings) -> StageResult:
    """`tool_name` (iree-opt or iree-compile) on `ir_input` with `args`, its output
    FileChecked against `checks` (cached)."""
    tc = settings.toolchain
    tool = tc.opt if tool_name == "iree-opt" else tc.compile
    filecheck = [settings.python, "-m", "filecheck", checks, f"--check-prefix={prefix}"]
    key = digest("ir", tool_name, ir_input, args, checks, prefix, tc.fingerprint())
    shown = (display([_tool_name(settings, tool), ir_input, *args]) + " | "
             + display(["filecheck", checks, f"--check-prefix={prefix}"]))

    def build(out: Path) -> Built:
        produced = out / "output.mlir"
        proc = run_bounded([tool, ir_input, *args], settings.compile_bounds, stdout_path=produced)
        result = stage_from_process("ir", proc, shown)
        if result.ok:
            fc = run_bounded([*filecheck, f"--input-file={produced}"], settings.run_bounds)
            said = fc.stdout.decode(errors="replace") + fc.stderr
            if not fc.ok:
                result = StageResult("ir", FAILED, "FileCheck: " + last_diagnostic(said), said[-4000:],
                                     shown, proc.seconds + fc.seconds, proc.peak_rss_mb)
            else:
                result.seconds = proc.seconds + fc.seconds
        return result, ({"output.mlir": produced} if produced.exists() else {})

    return cached_step(settings, "ir", key, build, shown=shown, path=ir_input)[0]
