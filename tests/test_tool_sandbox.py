"""The tools a case drives run in the sandbox, and flags that name files are refused.

Two planted cases, as a contributor with bad intent would write them (a copy of a plain
case, only its flags changed): one ships a shell script and makes iree-compile run it as
its linker, one makes the compiler dump its executables into a folder of the machine.
Lint and the loader refuse each, naming the option; with the loader bypassed (the flags
given straight to the compile stage), the real iree-compile runs them in the sandbox:
nothing is written or started outside the item, and the item fails with the sandbox's
refusal as its reason.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from harness import path_options
from harness.cache import Cache
from harness.case import CaseError, load_case
from harness.lint import lint_case
from harness.sandbox import probe
from harness.stages import Settings, compile_stage
from harness.toolchain import ToolchainError, installed
from helpers import compile_manifest, write_case
from test_targets import _toolchain, _toolchains

PROGRAM = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
CPU = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
       "--iree-llvmcpu-target-cpu=host"]


def _case(folder: Path, flags: list[str]) -> Path:
    """A compile case of one real program with `flags` (helpers' manifest)."""
    matrix = {"targets": ["cpu"], "opt_levels": ["O0"], "flags": flags}
    return write_case(folder.parent, folder.name, compile_manifest(matrix=matrix), {"model.mlir": PROGRAM}) \
        / "case.toml"


@pytest.fixture
def host_path():
    """A path outside every folder an item may write (not under /tmp, which the sandbox
    gives each tool privately): it must stay absent."""
    path = Path.home() / f".iree-regress-must-not-exist-{uuid.uuid4().hex[:12]}"
    yield path
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


def _evil_script(folder: Path, host_path: Path) -> Path:
    script = folder / "evil.sh"
    script.write_text(f"#!/bin/sh\nhostname > {host_path}\necho linked\n")
    script.chmod(0o755)
    return script


def _planted(tmp_path: Path, host_path: Path) -> dict[str, tuple[Path, list[str]]]:
    linker_dir = tmp_path / "cases" / "evil-linker"
    linker_flags = ["--iree-llvmcpu-link-embedded=true",
                    f"--iree-llvmcpu-embedded-linker-path={linker_dir / 'evil.sh'}"]
    dump_flags = [f"--iree-hal-dump-executable-files-to={host_path}"]
    manifest = _case(linker_dir, linker_flags)
    _evil_script(linker_dir, host_path)
    return {"linker": (manifest, linker_flags),
            "dump": (_case(tmp_path / "cases" / "evil-dump", dump_flags), dump_flags)}


@pytest.mark.harness
@pytest.mark.parametrize("which, option", [("linker", "--iree-llvmcpu-embedded-linker-path"),
                                           ("dump", "--iree-hal-dump-executable-files-to")])
def test_lint_and_the_loader_refuse_the_planted_cases_naming_the_option(tmp_path, host_path, which, option):
    manifest, _ = _planted(tmp_path, host_path)[which]
    with pytest.raises(CaseError) as e:
        load_case(manifest)
    assert "matrix.flags" in str(e.value) and option in str(e.value)
    problems = lint_case(manifest, [])
    assert len(problems) == 1 and option in str(problems[0])


@pytest.fixture
def real_settings(tmp_path, monkeypatch) -> Settings:
    if not probe().bwrap:
        pytest.skip(f"no sandbox here: {probe().why}")
    try:
        toolchain = installed()
    except ToolchainError as e:
        pytest.skip(f"no installed IREE: {e}")
    monkeypatch.delenv("IREE_REGRESS_TOOL_WRITABLE", raising=False)  # nothing outside the item
    return Settings(toolchain=toolchain, cache=Cache(tmp_path / "cache"), sandbox=probe())


@pytest.mark.parametrize("which", ["linker", "dump"])
def test_run_anyway_nothing_leaves_the_item_and_the_refusal_is_the_reason(tmp_path, host_path, real_settings,
                                                                           which):
    manifest, flags = _planted(tmp_path, host_path)[which]
    result, _ = compile_stage(manifest.parent / "model.mlir", [*CPU, *flags], real_settings)
    assert not host_path.exists(), f"the {which} case wrote {host_path}"
    assert not result.ok and result.status == "fail"
    assert "the sandbox refused a write outside the item" in result.detail, result.detail
    assert str(host_path) in result.detail or host_path.name in result.detail


def test_planted_fault_without_the_sandbox_the_linker_script_escapes(tmp_path, host_path, real_settings):
    """The check above fails when the tools run unconfined: the script writes the host path."""
    from harness.sandbox import NONE_ASKED, use_for_tools

    manifest, flags = _planted(tmp_path, host_path)["linker"]
    use_for_tools(NONE_ASKED)
    try:
        compile_stage(manifest.parent / "model.mlir", [*CPU, *flags], real_settings)
    finally:
        use_for_tools(None)
    assert host_path.exists()


@pytest.mark.harness
@pytest.mark.parametrize("flag, refused", [
    ("--iree-llvmcpu-system-linker-path=/usr/bin/ld", "start a program"),
    ("--iree-hal-preprocess-executables-with=/bin/sh", "start a program"),
    ("--iree-hal-preprocess-executables-with=builtin.module(canonicalize)", None),
    ("--mlir-pass-pipeline-crash-reproducer=/var/tmp/r.mlir", "write where it says"),
    ("--dump-compilation-phases-to=phases", "write where it says"),
    ("-o", "write where it says"),
    ("@flags.txt", "response file"),
    ("--iree-codegen-tuning-spec-path=spec.mlir", None),  # inside the case: allowed
    ("--iree-codegen-tuning-spec-path=../other/spec.mlir", "outside the case"),
    ("--iree-codegen-tuning-spec-path=/etc/passwd", "outside the case"),
    ("--iree-codegen-tuning-spec-path=missing.mlir", "not in the case"),
    ("--iree-codegen-transform-dialect-library=spec.mlir@entry", None),
    ("--iree-some-new-dump-file=x.txt", "names a file"),
    ("--iree-unknown-option=/etc/hosts", "looks like a path"),
    ("--iree-opt-level=O3", None),
    ("--compile-from=global-optimization", None),
    ("--iree-llvmcpu-keep-linker-artifacts", None),
])
def test_which_flags_a_case_may_give(tmp_path, flag, refused):
    (tmp_path / "spec.mlir").write_text("module {}\n")
    why = path_options.refusal(flag, tmp_path)
    assert (why is None) if refused is None else (refused in why), why


@pytest.mark.harness
def test_a_read_option_gets_the_case_file_as_an_absolute_path(tmp_path):
    (tmp_path / "spec.mlir").write_text("module {}\n")
    flags = path_options.resolved(["--iree-codegen-transform-dialect-library=spec.mlir@entry", "--x=1"], tmp_path)
    assert flags == (f"--iree-codegen-transform-dialect-library={tmp_path / 'spec.mlir'}@entry", "--x=1")


# ------------------------------------------------- against real compilers' --help-hidden

# What --help-hidden says of an option that takes a file, a folder or a program: its value's
# placeholder, or words of its description.
_PLACEHOLDER = re.compile(r"<(filename|file|directory|dir|path|pathname)", re.I)
_DESCRIPTION = re.compile(r"\b(file|files|filename|path|paths|directory|folder|command|tool|plugin|plugins|"
                          r"library|bitcode)\b", re.I)
_OPTION = re.compile(r"^\s{2,6}(--?[A-Za-z0-9][\w.-]*)(=<[^>]*>|\s<[^>]*>)?\s+- (.*)$", re.M)


@pytest.mark.real_compiler
@pytest.mark.parametrize("which", _toolchains())
def test_every_option_the_help_says_names_a_file_is_classified(which):
    """path_options' tables against the release: every option taking a value whose help
    speaks of a file, a path, a folder, a command or a plugin is refused or read-only
    (kind_of), or listed as not a path (NOT_PATHS) after reading its help."""
    tc = _toolchain(which)
    text = subprocess.run([str(tc.compile), "--help-hidden"], capture_output=True, text=True, timeout=60).stdout
    options = _OPTION.findall(text)
    assert len(options) > 1000, f"{tc.compile} --help-hidden listed almost nothing"
    unclassified = sorted(name for name, value, said in options
                          if value and (_PLACEHOLDER.search(value) or _DESCRIPTION.search(said))
                          and path_options.kind_of(name) is None and name not in path_options.NOT_PATHS)
    assert not unclassified, f"release {tc.release}: classify {unclassified} in harness/path_options.py"


# A pass's option in `iree-opt --help`: indented under its pass.
_PASS_OPTION = re.compile(r"^\s{6,}--([A-Za-z0-9][\w.-]*)=<[^>]*>\s+- (.*)$", re.M)


@pytest.mark.real_compiler
@pytest.mark.parametrize("which", _toolchains())
def test_every_pass_option_the_help_says_names_a_file_is_classified(which):
    """The pass-option tables against the release: every pass option whose help speaks of
    a file, a path, a folder, a command or a library is judged (pass_option_kind) or listed
    as not a path (PASS_NOT_PATHS) after reading its help."""
    tc = _toolchain(which)
    text = subprocess.run([str(tc.opt), "--help"], capture_output=True, text=True, timeout=60).stdout
    options = _PASS_OPTION.findall(text)
    assert len(options) > 100, f"{tc.opt} --help listed almost no pass options"
    unclassified = sorted({key for key, said in options
                           if (_DESCRIPTION.search(said) or re.search(r"\b(write|cmd|command)\b", said, re.I))
                           and path_options.pass_option_kind(key) is None and key not in path_options.PASS_NOT_PATHS})
    assert not unclassified, f"release {tc.release}: classify {unclassified} in harness/path_options.py"
