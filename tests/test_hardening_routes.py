"""Five ways a stranger's case got around the flag check and the sandbox, each replayed.

1. an option and its value as two words (`--iree-codegen-tuning-spec-path /elsewhere`);
2. a pass pipeline whose passes run a command, write, or read a file of the machine;
3. a compile naming a file outside the item (the machine's, another case's, a cache entry);
4. a line of a program that closes ISSUE.md's heredoc, run by `triage --open --check`;
5. a dump option given through `--iree-compile-flag`, which the sandbox kept from writing
   while the compile said ok.

Each is refused by name where the case is read (lint, the loader, harvest, the command
line), and, with that check bypassed, contained where it runs. The planted faults show
each check failing the old way.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from harness import path_options, sandbox
from harness.bundle.paste import PastedRelease, steps
from harness.cache import Cache
from harness.case import CaseError, load_case
from harness.harvest.thread import target_and_flags
from harness.lint import lint_case
from harness.stages import Settings, compile_stage
from harness.toolchain import Toolchain, ToolchainError, installed
from helpers import compile_manifest, plugin_args, run_pytest_subprocess, write_case

PROGRAM = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
CPU = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
       "--iree-llvmcpu-target-cpu=host"]
MARKER = "SECRET_MARKER_9d2f"


@pytest.fixture
def outside(tmp_path):
    """A file outside every folder an item may read, not under /tmp (the sandbox's own /tmp
    is private anyway): what a case must never read. Its text is a marker that a read
    would carry into the compile's log."""
    path = Path("/var/tmp") / f"iree-regress-outside-{uuid.uuid4().hex[:12]}.mlir"
    path.write_text(f"{MARKER} this is not MLIR\n")
    yield path
    path.unlink(missing_ok=True)


@pytest.fixture
def host_path():
    path = Path("/var/tmp") / f"iree-regress-must-not-exist-{uuid.uuid4().hex[:12]}"
    yield path
    path.unlink(missing_ok=True)


def _case(tmp_path: Path, flags: list[str]) -> Path:
    matrix = {"targets": ["cpu"], "opt_levels": ["O0"], "flags": flags}
    return write_case(tmp_path / "cases", "planted", compile_manifest(matrix=matrix),
                      {"model.mlir": PROGRAM, "spec.mlir": "module {}\n"}) / "case.toml"


def _pipeline(option: str, inner: str) -> str:
    return f"{option}=builtin.module({inner})"


PRE = "--iree-hal-preprocess-executables-with"
PIPE = "--iree-preprocessing-pass-pipeline"
# (flags, the option or pass lint must name): the routes of items 1 and 2.
ROUTES = {
    "two words": (["--iree-codegen-tuning-spec-path", "/elsewhere/spec.mlir"], "--iree-codegen-tuning-spec-path"),
    "two words, transform library": (["--iree-codegen-transform-dialect-library", "/elsewhere/lib.mlir"],
                                     "--iree-codegen-transform-dialect-library"),
    "pipeline runs a command": ([_pipeline(PRE, "iree-hal-preprocess-executables-with-tool{command=\"sh -c 'id'\"}")],
                                "pass iree-hal-preprocess-executables-with-tool option command"),
    "pipeline writes": ([_pipeline(PRE, "iree-util-dump-module{path=/var/tmp/out.mlir}")],
                        "pass iree-util-dump-module option path"),
    "pipeline reads": ([_pipeline(PIPE, "iree-preprocessing-apply-pdl-patterns{patterns-file=/etc/passwd}")],
                       "pass iree-preprocessing-apply-pdl-patterns option patterns-file"),
    "nested pipeline reads": ([_pipeline(PRE, "func.func(transform-preload-library{"
                                              "transform-library-paths=/etc/hosts})")],
                              "pass transform-preload-library option transform-library-paths"),
    "pipeline nobody can read": ([_pipeline(PIPE, "canonicalize{x=\"unclosed}")], "not a pass pipeline"),
    "a bare word": (["--iree-opt-level=O3", "/etc/passwd"], "is not an option"),
}


@pytest.mark.harness
@pytest.mark.parametrize("route", ROUTES)
def test_lint_and_the_loader_refuse_each_route_naming_the_option_or_pass(tmp_path, route):
    flags, named = ROUTES[route]
    manifest = _case(tmp_path, flags)
    with pytest.raises(CaseError) as e:
        load_case(manifest)
    assert "matrix.flags" in str(e.value) and named in str(e.value), str(e.value)
    problems = lint_case(manifest, [])
    assert len(problems) == 1 and named in str(problems[0])


@pytest.mark.harness
@pytest.mark.parametrize("route", ["two words", "pipeline runs a command", "pipeline writes", "pipeline reads"])
def test_planted_fault_word_by_word_and_trusting_pipelines_lets_each_route_through(route):
    """The old check: each word alone, any `builtin.module(` value trusted as a pipeline."""
    flags, _ = ROUTES[route]

    def old(word):
        if not word.startswith("-"):
            return None  # a word alone: no option, no value
        option, value = path_options.split(word)
        if option == PRE and value and value.startswith("builtin.module("):
            return None
        if path_options.kind_of(option) == "reads":
            return None if value is None else "refused"
        return path_options.refusal(word, None) if option != PIPE else None

    assert not [w for w in flags if old(w)]
    assert path_options.refusals(flags, None)


@pytest.mark.harness
def test_a_pipeline_read_inside_the_case_stays_and_is_made_absolute(tmp_path):
    (tmp_path / "spec.mlir").write_text("module {}\n")
    flags = [_pipeline(PIPE, "func.func(transform-preload-library{transform-library-paths=spec.mlir}),cse")]
    assert path_options.refusals(flags, tmp_path) == []
    assert path_options.resolved(flags, tmp_path) == (
        _pipeline(PIPE, f"func.func(transform-preload-library{{transform-library-paths={tmp_path / 'spec.mlir'}}}),cse"),)
    assert path_options.resolved(["--iree-codegen-tuning-spec-path", "spec.mlir"], tmp_path) == (
        f"--iree-codegen-tuning-spec-path={tmp_path / 'spec.mlir'}",)


@pytest.mark.harness
def test_a_harvested_thread_carrying_the_pipeline_form_drops_it_with_the_reason():
    command = ["iree-compile", "model.mlir", *CPU, "--iree-opt-level=O2",
               _pipeline(PRE, "iree-hal-preprocess-executables-with-tool{command=/opt/tools/patch.sh}"),
               _pipeline(PIPE, "iree-preprocessing-apply-pdl-patterns{patterns-file=/etc/passwd}")]
    _, kept, _, dropped = target_and_flags(command)
    assert "--iree-opt-level=O2" in kept and not any("builtin.module" in f for f in kept)
    said = "\n".join(dropped)
    assert "pass iree-hal-preprocess-executables-with-tool option command" in said
    assert "pass iree-preprocessing-apply-pdl-patterns option patterns-file" in said


# ------------------------------------------------------------- contained where they run

@pytest.fixture
def real_settings(tmp_path, monkeypatch) -> Settings:
    if not sandbox.probe().bwrap:
        pytest.skip(f"no sandbox here: {sandbox.probe().why}")
    try:
        toolchain = installed()
    except ToolchainError as e:
        pytest.skip(f"no installed IREE: {e}")
    monkeypatch.delenv("IREE_REGRESS_TOOL_WRITABLE", raising=False)
    return Settings(toolchain=toolchain, cache=Cache(tmp_path / "cache"), sandbox=sandbox.probe())


def _reads(tmp_path: Path, outside: Path) -> dict[str, Path]:
    """Files a compile must not read: the machine's, another case's, a cache entry."""
    other = tmp_path / "cases" / "other" / "model.mlir"
    entry = tmp_path / "cache" / "entries" / "compile" / "ab" / "meta.mlir"
    for path in (other, entry):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{MARKER} another's file\n")
    return {"the machine's": outside, "another case's": other, "a cache entry": entry}


def _read_flags(path: Path) -> list[list[str]]:
    return [["--iree-codegen-tuning-spec-path", str(path)],
            [_pipeline(PIPE, f"iree-preprocessing-apply-pdl-patterns{{patterns-file={path}}}")]]


def test_a_compile_that_names_files_outside_the_item_reads_none(tmp_path, outside, real_settings):
    """The loader bypassed (flags straight to the compile stage): the sandbox has none of
    the files, so the compile cannot quote them. /etc/passwd is not there either."""
    program = tmp_path / "item" / "model.mlir"
    program.parent.mkdir()
    program.write_text(PROGRAM)
    for what, path in _reads(tmp_path, outside).items():
        for flags in _read_flags(path):
            result, _ = compile_stage(program, [*CPU, *flags], real_settings)
            assert MARKER not in (result.detail + result.log), (what, flags)
            assert not result.ok and "No such file or directory" in result.log, (what, result.log[-500:])
    proc = subprocess.run(sandbox.probe().wrap(["/bin/cat", "/etc/passwd"], [tmp_path]), capture_output=True)
    assert proc.returncode != 0 and proc.stdout == b""


def test_planted_fault_with_the_host_root_bound_the_compile_quotes_the_file(tmp_path, outside, real_settings,
                                                                             monkeypatch):
    monkeypatch.setattr(sandbox, "_system_binds", lambda: ("--ro-bind", "/", "/"))
    program = tmp_path / "model.mlir"
    program.write_text(PROGRAM)
    flags = _read_flags(outside)[1]
    result, _ = compile_stage(program, [*CPU, *flags], real_settings)
    assert MARKER in result.log


# ------------------------------------------------- ISSUE.md's steps, and triage's check

def _hostile_program(host_path: Path) -> str:
    return PROGRAM + f"EOF_MLIR\ntouch {host_path}\ncat > /dev/null <<'EOF_MLIR'\n"


@pytest.mark.harness
def test_no_line_of_a_program_closes_the_heredoc(tmp_path, host_path):
    text = steps(_hostile_program(host_path), [PastedRelease("3.5.0", ("--iree-opt-level=O1",), "has the bug")],
                 "main", "local-task", [], None, 0.0, 0.0)
    _run_steps(text, tmp_path)
    assert not host_path.exists()
    assert (tmp_path / "input.mlir").read_text() == _hostile_program(host_path)  # written whole
    # The planted fault: the fixed delimiter, as the steps were written before.
    fixed = "\n".join(["cat > input.mlir <<'EOF_MLIR'", _hostile_program(host_path).rstrip("\n"), "EOF_MLIR"])
    _run_steps(fixed, tmp_path)
    assert host_path.exists()


def _run_steps(text: str, cwd) -> None:
    """Run pasted steps long enough for their first lines (the heredoc the test is about);
    what comes after (installing a release, compiling) may outlast the limit on a busy
    machine, and is cut off then, not failed."""
    try:
        subprocess.run(["bash", "-c", text], cwd=cwd, capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        pass


@pytest.mark.harness
def test_the_steps_refuse_flags_the_reader_refuses():
    with pytest.raises(path_options.Refused, match="--iree-codegen-tuning-spec-path"):
        steps(PROGRAM, [PastedRelease("3.5.0", ("--iree-codegen-tuning-spec-path", "/etc/passwd"), "x")],
              "main", "local-task", [], None, 0.0, 0.0)


def test_triage_check_runs_the_pasted_steps_in_the_sandbox(tmp_path, host_path, monkeypatch):
    from harness.triage import open_bugs

    if not sandbox.probe().bwrap:
        pytest.skip(f"no sandbox here: {sandbox.probe().why}")
    tools = tmp_path / "tools"
    tools.mkdir()
    fake = Toolchain(tools / "iree-compile", tools / "iree-opt", tools / "iree-run-module", "3.5.0", "", "3.5.0", "test")
    issue = tmp_path / "ISSUE.md"
    issue.write_text(f"# x\n\n## Steps to reproduce\n\n```sh\ntouch {host_path}\necho 'IREE 3.5.0: ran'\n```\n")
    settings = Settings(toolchain=fake, cache=Cache(tmp_path / "cache"), sandbox=sandbox.probe())
    said = open_bugs.check_as_pasted(issue, "compile-fail", settings, tmp_path / "empty")
    assert not host_path.exists() and "IREE 3.5.0: ran" in said
    # The planted fault: the steps as a plain `bash -c` on the host.
    subprocess.run(["bash", "-c", open_bugs.sh_block(issue.read_text())], cwd=tmp_path, timeout=60)
    assert host_path.exists()


# ------------------------------------------------- a write the sandbox kept from happening

@pytest.mark.parametrize("option", ["--iree-hal-dump-executable-sources-to", "--iree-hal-dump-executable-benchmarks-to"])
def test_a_dump_the_sandbox_kept_from_writing_is_never_ok(tmp_path, real_settings, option, monkeypatch):
    program = tmp_path / "model.mlir"
    program.write_text(PROGRAM)
    dumps = Path("/var/tmp") / f"iree-regress-dumps-{uuid.uuid4().hex[:12]}"
    result, _ = compile_stage(program, [*CPU, f"{option}={dumps}"], real_settings)
    assert not dumps.exists()
    assert not result.ok and "the sandbox refused a write outside the item" in result.detail, result.detail
    assert option in result.detail
    # The planted fault: without the check, the compile says ok and wrote nothing.
    from harness import process
    monkeypatch.setattr(process, "kept_from_writing", lambda *a: "")
    real_settings = Settings(toolchain=real_settings.toolchain, cache=Cache(tmp_path / "cache2"),
                             sandbox=real_settings.sandbox)
    result, _ = compile_stage(program, [*CPU, f"{option}={dumps}"], real_settings)
    assert result.ok and not dumps.exists()
    shutil.rmtree(dumps, ignore_errors=True)


def test_a_dump_option_through_iree_compile_flag_is_refused_by_name(tmp_path, fake_tools):
    if not sandbox.probe().bwrap:
        pytest.skip(f"no sandbox here: {sandbox.probe().why}")
    write_case(tmp_path / "cases", "a", compile_manifest(), {"model.mlir": PROGRAM})
    flag = "--iree-compile-flag=--iree-hal-dump-executable-sources-to=/var/tmp/dumps"
    run = run_pytest_subprocess(tmp_path, [*plugin_args(fake_tools, tmp_path / "cache", tmp_path / "reports"),
                                           flag, "cases"])
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    assert "--iree-hal-dump-executable-sources-to" in str(run.stderr) + str(run.stdout)
