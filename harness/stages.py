"""The stages of one item: import -> compile -> run -> compare, or ir.

Each stage returns a StageResult; none raises for a tool's failure. A tool that
crashes, hangs, runs out of memory or writes something unreadable becomes a result
with that status, the command that did it and the tail of what it printed.
Results of deterministic work (imports, compiles, ir checks, runs) are cached by
content + flags + tool versions (cache.py), so a rerun repeats none of it.
"""

from __future__ import annotations

import re
import shutil
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from . import targets, vulkan_layer
from .cache import Cache, digest, read_meta
from .case import Case, IrCheck
from .compare import compare_outputs
from .process import Bounds, ProcessResult, display, run_bounded
from .reference import load_arrays, npy_files
from .toolchain import Toolchain, release_of

# A vmfb is a zip (flatbuffer + embedded executables) or a bare flatbuffer whose file
# identifier "IREE" sits at byte 4. Anything else written as a module is garbage.
_VMFB_MAGICS = ((0, b"PK\x03\x04"), (4, b"IREE"))


@dataclass
class StageResult:
    stage: str  # import | compile | run | reference | compare | ir
    status: str  # ok | fail | crash | timeout | oom | garbage | skip
    detail: str = ""  # one line: why it is not ok, or a note on an ok/skip
    log: str = ""  # tail of the tool's stderr (or the full diagnosis)
    command: str = ""  # the exact command, pasteable
    seconds: float = 0.0
    peak_rss_mb: float = 0.0
    cached: bool = False
    data: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def as_dict(self) -> dict:
        return dict(self.__dict__)  # shallow: stored or serialised at once


@dataclass(frozen=True)
class Settings:
    """How this run calls tools; one per pytest session."""
    toolchain: Toolchain
    cache: Cache
    compile_bounds: Bounds = Bounds(timeout_s=300, memory_mb=8192)
    run_bounds: Bounds = Bounds(timeout_s=120, memory_mb=8192)
    import_bounds: Bounds = Bounds(timeout_s=300, memory_mb=8192)
    target_options: targets.TargetOptions = targets.TargetOptions()
    python: str = sys.executable  # runs the torch job


def _tool_name(settings: Settings, path: Path) -> str:
    """Show installed tools by name (they are on PATH), others by their full path."""
    return path.name if settings.toolchain.source == "installed packages" else str(path)


def _from_process(stage: str, proc: ProcessResult, shown_command: str) -> StageResult:
    status = proc.status()
    detail = {
        "ok": "",
        "fail": f"exit code {proc.returncode}",
        "crash": f"crashed ({proc.signal_name or f'exit code {proc.returncode}'})",
        "timeout": f"killed after {proc.seconds:.0f} s (time bound)",
        "oom": f"killed at {proc.peak_rss_mb:.0f} MB resident (memory bound)",
    }[status]
    last = _last_diagnostic(proc.stderr)
    if status == "crash":
        # Lead with where it died: crashes then group by their first IREE/MLIR/LLVM frame.
        frame = first_frame(proc.stderr)
        last = " | ".join(p for p in (_crash_message(proc.stderr), frame and f"at {frame}") if p) or last
    if last and status != "ok":
        detail = f"{detail}: {last}"
    return StageResult(stage, status, detail, proc.stderr_tail(), shown_command, proc.seconds,
                       proc.peak_rss_mb)


def _last_diagnostic(stderr: str) -> str:
    """The most telling line of a tool's stderr: its first 'error:' or assertion."""
    lines = [l.strip() for l in stderr.splitlines() if l.strip()]
    for marker in ("Assertion `", "error:", "LLVM ERROR:", "ERROR", "Error"):
        for line in lines:
            if marker in line:
                return line[:300]
    return lines[-1][:300] if lines else ""


_FRAME = re.compile(r"^\s*#\d+ 0x[0-9a-fA-F]+ (.+?)(?: \(/[^)]*\)| [\w./-]+:\d+(?::\d+)?)?$")
# Frames of the crash machinery itself, not of the code that crashed.
_MACHINERY = ("PrintStackTrace", "RunSignalHandlers", "SignalHandler", "report_fatal_error",
              "llvm_unreachable", "__restore_rt", "raise", "abort", "__assert_fail", "_start",
              "__libc_start", "clone3", "start_thread", "SmallVectorBase", "grow_pod")


def first_frame(stderr: str) -> str:
    """The first stack frame in the compiler's own code (not the signal handler's), without
    its address and library: '(anonymous namespace)::X::matchAndRewrite(...) const'."""
    for line in stderr.splitlines():
        m = _FRAME.match(line)
        name = m.group(1) if m else ""
        is_function = "::" in name or "(" in name
        if is_function and not name.startswith("(/") and not any(w in name for w in _MACHINERY):
            return name[:200]
    return ""


def _crash_message(stderr: str) -> str:
    """What the tool said as it died: an assertion or an LLVM ERROR line."""
    for line in stderr.splitlines():
        if "Assertion `" in line or "LLVM ERROR:" in line:
            return line.strip()[:200]
    return ""


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
_NOT_CACHED = ("timeout", "oom")


# ---------------------------------------------------------------------------- import

def torch_job(case: Case, settings: Settings, import_mlir: bool) -> tuple[StageResult, Path | None]:
    """Run the case's PyTorch program once (cached): eager outputs, and its MLIR."""
    from .importers import versions  # cheap: reads package metadata only

    program = case.reference_program
    key = digest("torch-job", program, [p.read_bytes() for p in npy_files(case.inputs_dir)],
                 versions(), import_mlir, case.dynamic_shapes if import_mlir else "")
    stage = "import" if import_mlir else "reference"
    with settings.cache.compute_once("torch", key) as done:
        if done:
            return _cached_result(done, path=program.parent), done
        out = settings.cache.scratch("torch-")
        argv = [settings.python, "-m", "harness.torch_job", program, case.inputs_dir, out]
        if import_mlir:
            argv += ["--import-mlir", f"--dynamic-shapes={case.dynamic_shapes}"]
        proc = run_bounded(argv, settings.import_bounds, cwd=Path(__file__).resolve().parent.parent)
        result = _from_process(stage, proc, display(argv))
        if result.ok and import_mlir and not (out / "model.mlir").is_file():
            result.status, result.detail = "garbage", "the import wrote no model.mlir"
        if not result.ok:
            shutil.rmtree(out, ignore_errors=True)
            return result, None  # failures of the torch side are not cached: cheap to retry
        files = {p.name: p for p in out.iterdir()}
        entry = settings.cache.store("torch", key, {"result": _portable(result, program.parent)}, files)
        shutil.rmtree(out, ignore_errors=True)
        return result, entry


def import_stage(case: Case, settings: Settings) -> tuple[StageResult, Path | None]:
    """The MLIR to compile: imported from PyTorch, or the case's own (per release)."""
    if case.torch_model is None:
        mlir = case.mlir_for(settings.toolchain.release)
        return StageResult("import", "ok", f"mlir input {mlir.name}"), mlir
    result, entry = torch_job(case, settings, import_mlir=True)
    return result, (entry / "model.mlir") if entry else None


# --------------------------------------------------------------------------- compile

def compile_flags(case: Case, target: str, opt_level: str, settings: Settings) -> list[str]:
    flags = targets.compile_flags(target, opt_level, settings.toolchain.release,
                                  settings.target_options)
    return flags + list(case.flags) + list(case.target_flags.get(target, ()))


def is_vmfb(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(8)
    except OSError:
        return False
    return any(head[at:at + len(magic)] == magic for at, magic in _VMFB_MAGICS)


def compile_stage(mlir: Path, flags: list[str], settings: Settings) -> tuple[StageResult, Path | None]:
    tc = settings.toolchain
    host = targets.host_cpu_id() if targets.uses_host_cpu(flags) else ""
    key = digest("compile", mlir, flags, tc.fingerprint(), host)
    shown = display([_tool_name(settings, tc.compile), mlir, *flags, "-o", "module.vmfb"])
    with settings.cache.compute_once("compile", key) as done:
        if done:
            result = _cached_result(done, shown, mlir)
            return result, (done / "module.vmfb") if result.ok else None
        out = settings.cache.scratch("compile-")
        vmfb = out / "module.vmfb"
        proc = run_bounded([tc.compile, mlir, *flags, "-o", vmfb], settings.compile_bounds)
        result = _from_process("compile", proc, shown)
        if result.ok:
            problem, result.data = check_module(vmfb, tc, settings.run_bounds)
            if problem:
                result.status, result.detail = "garbage", f"iree-compile exited 0 but {problem}"
        files = {"module.vmfb": vmfb} if result.ok else {}
        entry = None
        if result.status not in _NOT_CACHED:
            entry = settings.cache.store("compile", key, {"result": _portable(result, mlir), "flags": flags},
                                         files)
        shutil.rmtree(out, ignore_errors=True)
        return result, (entry / "module.vmfb") if entry and result.ok else None


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
    return (f"the module does not load (iree-dump-module: {_last_diagnostic(proc.stderr) or proc.status()})",
            facts)


# ------------------------------------------------------------------------------- run

def run_stage(case: Case, target: str, vmfb: Path, settings: Settings) -> tuple[StageResult, list[np.ndarray] | None]:
    return run_module(target, vmfb, case.function, npy_files(case.inputs_dir),
                      len(npy_files(case.expected_dir)), settings)


def run_module(target: str, vmfb: Path, function: str, inputs: list[Path], n_outputs: int,
               settings: Settings) -> tuple[StageResult, list[np.ndarray] | None]:
    """Run `function` of a module on `target`'s device here with .npy `inputs` (cached)."""
    tc = settings.toolchain
    runtime = release_of(tc.runtime_version) if tc.runtime_version else None
    env = vulkan_layer.env_for(runtime) if targets.BY_NAME[target].driver == "vulkan" else ()
    device = targets.run_device(target, str(tc.run_module), env)
    if device is None:
        why = vulkan_layer.why_hidden(runtime) if targets.BY_NAME[target].driver == "vulkan" else ""
        return StageResult("run", "skip", f"compile-only: no {target} device here{why}"), None
    args = [f"--module={vmfb}", f"--device={device}", f"--function={function}"]
    args += [f"--input=@{p}" for p in inputs]
    key = digest("run", vmfb, [p.read_bytes() for p in inputs], device, tc.runtime_version,
                 tc.fingerprint(), n_outputs, function)
    out_names = [f"out{i}.npy" for i in range(n_outputs)]
    inputs_dir = inputs[0].parent if inputs else None
    # As pasted after the compile command, which writes module.vmfb where it runs.
    shown = display([_tool_name(settings, tc.run_module), "--module=module.vmfb", *args[1:],
                     *[f"--output=@{n}" for n in out_names]])
    with settings.cache.compute_once("run", key) as done:
        if done:
            result = _cached_result(done, shown, inputs_dir)
            return result, ([np.load(done / n) for n in out_names] if result.ok else None)
        out = settings.cache.scratch("run-")
        argv = [tc.run_module, *args, *[f"--output=@{out / n}" for n in out_names]]
        bounds = replace(settings.run_bounds, env={**settings.run_bounds.env, **dict(env)})
        proc = run_bounded(argv, bounds)
        result = _from_process("run", proc, shown)
        outputs = None
        if result.ok:
            try:
                outputs = [np.load(out / n) for n in out_names]
            except (OSError, ValueError) as e:
                result.status = "garbage"
                result.detail = f"iree-run-module exited 0 but its outputs are unreadable: {e}"
        if result.status not in _NOT_CACHED:
            settings.cache.store("run", key, {"result": _portable(result, inputs_dir)},
                                 {n: out / n for n in out_names if (out / n).is_file()} if result.ok else {})
        shutil.rmtree(out, ignore_errors=True)
        return result, outputs


# --------------------------------------------------------------------------- compare

def compare_stage(case: Case, outputs: list[np.ndarray], settings: Settings) -> StageResult:
    start = time.monotonic()
    inputs = load_arrays(case.inputs_dir)
    golden = load_arrays(case.expected_dir)
    checks = [compare_outputs(outputs, golden, inputs, case.atol, case.rtol, case.output_rules,
                              "golden")]
    eager_result, entry = torch_job(case, settings, import_mlir=case.torch_model is not None)
    if entry is None:
        # Not the compiler's fault: its own stage, so it never reads as wrong numbers.
        return StageResult("reference", eager_result.status,
                           f"PyTorch eager reference failed: {eager_result.detail}",
                           eager_result.log, eager_result.command)
    eager = [np.load(p) for p in npy_files(entry) if p.name.startswith("eager")]
    if len(eager) == len(golden) and all(np.array_equal(e, g, equal_nan=True)
                                         for e, g in zip(eager, golden)):
        checks[0] = replace(checks[0], against="golden (= PyTorch eager today)")
    else:  # the golden drifted from today's PyTorch: judge against both, say which
        checks.append(compare_outputs(outputs, eager, inputs, case.atol, case.rtol,
                                      case.output_rules, "PyTorch eager today"))
    data = {"comparisons": [c.as_dict() for c in checks]}
    # A golden that PyTorch no longer reproduces is wrong itself: no known bug may hide it.
    drift = compare_outputs(eager, golden, inputs, case.atol, case.rtol, case.output_rules,
                            "PyTorch eager today") if len(checks) > 1 else None
    if drift is not None and not drift.ok:
        data["golden_drift"] = drift.summary().replace("vs PyTorch eager today: ", "", 1)
    ok = all(c.ok for c in checks)
    detail = " | ".join(c.summary() for c in checks if not c.ok) if not ok else \
        " | ".join(c.summary() for c in checks)
    return StageResult("compare", "ok" if ok else "fail", detail, "", "",
                       time.monotonic() - start, data=data)


# -------------------------------------------------------------------------------- ir

def ir_stage(case: Case, check: IrCheck, settings: Settings) -> StageResult:
    tc = settings.toolchain
    if settings.toolchain.release not in check.compiler:
        return StageResult("ir", "skip", f"check is for compilers {check.compiler}, "
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
    with settings.cache.compute_once("ir", key) as done:
        if done:
            return _cached_result(done, shown, ir_input)
        out = settings.cache.scratch("ir-")
        produced = out / "output.mlir"
        proc = run_bounded([tool, ir_input, *args], settings.compile_bounds, stdout_path=produced)
        result = _from_process("ir", proc, shown)
        if result.ok:
            fc = run_bounded([*filecheck, f"--input-file={produced}"], settings.run_bounds)
            if not fc.ok:
                result = StageResult("ir", "fail", "FileCheck: " + _last_diagnostic(fc.stdout.decode(errors="replace") + fc.stderr),
                                     (fc.stdout.decode(errors="replace") + fc.stderr)[-4000:], shown,
                                     proc.seconds + fc.seconds, proc.peak_rss_mb)
            else:
                result.seconds = proc.seconds + fc.seconds
        if result.status not in _NOT_CACHED:
            settings.cache.store("ir", key, {"result": _portable(result, ir_input)},
                                 {"output.mlir": produced} if produced.exists() else {})
        shutil.rmtree(out, ignore_errors=True)
        return result
