"""Target + opt level -> iree-compile flags, per compiler release."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from packaging.version import Version

from harness import targets, toolchain
from harness.cache import cache_root
from harness.targets import OPT_LEVELS, TARGETS, TargetOptions, compile_flags, flag_names
from harness.toolchain import release_of

pytestmark = pytest.mark.harness


@pytest.mark.parametrize("version", ["3.4.0", "3.11.0", "3.11.0rc20260316", "2.9.0rc20241108"])
def test_hip_flag_before_3_12(version):
    flags = compile_flags("hip", "O3", release_of(version))
    assert "--iree-hip-target=gfx942" in flags
    assert not any(f.startswith("--iree-rocm-target") for f in flags)
    assert "--iree-hal-target-device=hip" in flags


@pytest.mark.parametrize("version", ["3.12.0", "3.13.0", "3.12.0rc20250917",
                                     "3.13.0rc20261016", "3.14.0.dev0+abcdef"])
def test_hip_flag_from_3_12(version):
    flags = compile_flags("hip", "O3", release_of(version))
    assert "--iree-rocm-target=gfx942" in flags
    assert not any(f.startswith("--iree-hip-target") for f in flags)


@pytest.mark.parametrize("text, release", [
    ("3.12.0rc20250917", "3.12.0"),
    ("3.13.0rc20261016", "3.13.0"),
    ("3.12.0", "3.12.0"),
    ("3.11.0.dev20260101", "3.11.0"),
    ("3.14.0.dev+abc123", "3.14.0"),
    ("3.14.0-custom-build", "3.14.0"),  # not PEP 440: the numbers are taken
    ("3.2", "3.2"),
    ("unknown", "0"),
])
def test_release_of(text, release):
    assert release_of(text) == Version(release)


def test_rc_counts_as_its_release_not_the_previous_one():
    # 3.12.0rc... < 3.12.0 in PEP 440; the harness must not treat it as 3.11.
    assert Version("3.12.0rc20250917") < Version("3.12.0")
    assert compile_flags("hip", "O0", release_of("3.12.0rc20250917")) == \
        compile_flags("hip", "O0", Version("3.12.0"))


def test_opt_level_flag_absent_before_3_3():
    for version in ("2.9.0", "3.0.0", "3.2.0", "3.2.99", "3.3.0rc20250320"):
        release = release_of(version)
        if release >= Version("3.3.0"):
            continue  # 3.3.0rc counts as 3.3.0: checked below
        assert not targets.opt_level_supported(release)
        for target in TARGETS:
            assert not any("opt-level" in f for f in compile_flags(target, "O3", release)), version


@pytest.mark.parametrize("version", ["3.3.0", "3.3.0rc20250320", "3.4.0", "3.13.0"])
@pytest.mark.parametrize("level", OPT_LEVELS)
def test_opt_level_flag_from_3_3(version, level):
    release = release_of(version)
    assert targets.opt_level_supported(release)
    for target in TARGETS:
        flags = compile_flags(target, level, release)
        assert flags[-1] == f"--iree-opt-level={level}"
        assert sum("opt-level" in f for f in flags) == 1


def test_cpu_vulkan_cuda_flags():
    r = Version("3.13.0")
    assert compile_flags("cpu", "O2", r) == [
        "--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
        "--iree-llvmcpu-target-cpu=host", "--iree-opt-level=O2"]
    assert compile_flags("vulkan", "O0", r) == ["--iree-hal-target-device=vulkan",
                                                "--iree-opt-level=O0"]
    assert compile_flags("cuda", "O1", r) == ["--iree-hal-target-device=cuda",
                                              "--iree-cuda-target=sm_80", "--iree-opt-level=O1"]
    assert compile_flags("cuda", "O1", Version("3.0.0")) == ["--iree-hal-target-device=cuda",
                                                             "--iree-cuda-target=sm_80"]


def test_another_chip_is_one_row():
    """hip-gfx1100 is one row of targets.ROWS: it compiles for its chip with the release's
    spelling, runs on the hip driver, and stays out of the default matrix."""
    assert compile_flags("hip-gfx1100", "O3", Version("3.13.0")) == [
        "--iree-hal-target-device=hip", "--iree-rocm-target=gfx1100", "--iree-opt-level=O3"]
    assert "--iree-hip-target=gfx1100" in compile_flags("hip-gfx1100", "O3", Version("3.11.0"))
    assert "hip-gfx1100" in TARGETS and "hip-gfx1100" not in targets.DEFAULT_TARGETS
    assert targets.run_device("hip-gfx1100", "/nonexistent/iree-run-module") is None


def test_target_options_arch():
    opts = TargetOptions((("hip", "gfx1100"), ("cuda", "sm_90")))
    assert "--iree-rocm-target=gfx1100" in compile_flags("hip", "O0", Version("3.13.0"), opts)
    assert "--iree-hip-target=gfx1100" in compile_flags("hip", "O0", Version("3.4.0"), opts)
    assert "--iree-cuda-target=sm_90" in compile_flags("cuda", "O0", Version("3.13.0"), opts)


def test_host_cpu_is_part_of_cpu_flags_only():
    r = Version("3.13.0")
    assert targets.uses_host_cpu(compile_flags("cpu", "O0", r))
    for t in ("vulkan", "hip", "cuda"):
        assert not targets.uses_host_cpu(compile_flags(t, "O0", r))
    assert targets.host_cpu_id() == targets.host_cpu_id() != ""


@pytest.mark.parametrize("target, level", [("tpu", "O0"), ("CPU", "O0"), ("cpu", "O4"),
                                           ("cpu", "o3"), ("cpu", "3")])
def test_unknown_target_or_level_raises(target, level):
    with pytest.raises(ValueError, match="unknown"):
        compile_flags(target, level, Version("3.13.0"))


def test_flag_names():
    assert flag_names(["--a=1", "--b", "--c=x=y"]) == ["--a", "--b", "--c"]


# ------------------------------------------------- against real compilers' --help-hidden

def _release_sites() -> list[Path]:
    """Every release installed under the cache: releases/<source>/<version>/ (releases.py)."""
    root = cache_root() / "releases"
    return sorted(p for p in root.glob("*/*") if (p / ".complete").is_file()
                  and (p / "iree" / "compiler" / "_mlir_libs" / "iree-compile").is_file())


def _toolchains():
    params = [pytest.param("installed", id="installed")]
    params += [pytest.param(site, id=f"{site.parent.name}-{site.name}") for site in _release_sites()]
    return params


def _toolchain(which) -> toolchain.Toolchain:
    if which == "installed":
        try:
            return toolchain.installed()
        except toolchain.ToolchainError as e:
            pytest.skip(f"no installed IREE compiler: {e}")
    return toolchain.from_site_packages(which, f"release {which.name}")


@pytest.fixture(scope="module")
def help_hidden():
    memo = {}

    def get(compile_path: Path) -> set[str]:
        if compile_path not in memo:
            out = subprocess.run([str(compile_path), "--help-hidden"], capture_output=True,
                                 text=True, timeout=60)
            names = set(re.findall(r"(?<![\w-])(--[a-z0-9][\w-]*)", out.stdout + out.stderr))
            assert len(names) > 100, f"{compile_path} --help-hidden listed almost nothing"
            memo[compile_path] = names
        return memo[compile_path]
    return get


@pytest.mark.real_compiler
@pytest.mark.parametrize("which", _toolchains())
def test_flags_exist_in_real_compiler(which, help_hidden):
    tc = _toolchain(which)
    known = help_hidden(tc.compile)
    missing = {}
    for target in TARGETS:
        for level in OPT_LEVELS:
            for name in flag_names(compile_flags(target, level, tc.release)):
                if name not in known:
                    missing.setdefault(name, []).append(f"{target}-{level}")
    assert not missing, (f"iree-compile {tc.compiler_version} (release {tc.release}) has no "
                         f"{sorted(missing)}; used by {missing}")
    # The table is exact about --iree-opt-level: used iff the release has it.
    assert targets.opt_level_supported(tc.release) == ("--iree-opt-level" in known)


@pytest.mark.real_compiler
@pytest.mark.parametrize("which", _toolchains())
def test_each_renamed_option_is_spelled_as_the_release_knows_it(which, help_hidden):
    """A case's flag in any release's spelling reaches each compiler in that one's own."""
    tc = _toolchain(which)
    known = help_hidden(tc.compile)
    for row in targets.RENAMED_OPTIONS:
        for _, spelling in row:
            (given,) = targets.spelled_for([f"{spelling}=x"], tc.release)
            assert given.split("=")[0] in known, f"release {tc.release} has no {given}"


@pytest.mark.real_compiler
def test_release_dirs_hold_the_release_they_are_named_for():
    sites = _release_sites()
    if not sites:
        pytest.skip(f"no releases installed under {cache_root() / 'releases'}")
    for site in sites:
        tc = toolchain.from_site_packages(site, "release")
        assert str(tc.release) == site.name, tc.describe()
        assert re.fullmatch(r"[0-9a-f]{40}", tc.compiler_revision), tc.describe()


@pytest.mark.real_compiler
def test_installed_toolchain_is_described():
    try:
        tc = toolchain.installed()
    except toolchain.ToolchainError as e:
        pytest.skip(str(e))
    assert tc.compile.name == "iree-compile" and tc.compile.is_file()
    assert tc.run_module.name == "iree-run-module" and tc.run_module.is_file()
    assert tc.release == release_of(tc.compiler_version)
    assert tc.compiler_version in tc.describe()
    assert tc.fingerprint() == f"{tc.compiler_version}@{tc.compiler_revision}"


def test_a_flag_the_case_sets_replaces_the_profiles_spelling(tmp_path):
    """A case pinning the target CPU (the issue's znver4) compiles with that one value, not
    the profile's host CPU followed by it."""
    from types import SimpleNamespace

    from harness.case import load_case
    from harness.stages import compile_flags as case_compile_flags
    from helpers import compile_case

    d = compile_case(tmp_path, "pinned", matrix={"targets": ["cpu"], "opt_levels": ["O3"],
                                                 "target_flags": {"cpu": ["--iree-llvmcpu-target-cpu=znver4"]}})
    settings = SimpleNamespace(toolchain=SimpleNamespace(release=Version("3.13.0")),
                               target_options=TargetOptions(), extra_flags=())
    flags = case_compile_flags(load_case(d / "case.toml"), "cpu", "O3", settings)
    assert [f for f in flags if f.startswith("--iree-llvmcpu-target-cpu=")] == ["--iree-llvmcpu-target-cpu=znver4"]


def test_a_case_flag_in_an_old_spelling_reaches_a_new_compiler_renamed():
    old = "--iree-dispatch-creation-experimental-data-tiling=false"
    assert targets.spelled_for([old, "--other=1"], Version("3.6.0")) == [old, "--other=1"]
    assert targets.spelled_for([old], Version("3.7.0")) == ["--iree-dispatch-creation-data-tiling=false"]
    assert targets.spelled_for(["--iree-hip-target=gfx1100"], Version("3.12.0")) == ["--iree-rocm-target=gfx1100"]
    assert targets.spelled_for(["--iree-rocm-target=gfx1100"], Version("3.11.0")) == ["--iree-hip-target=gfx1100"]
