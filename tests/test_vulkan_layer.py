"""The Vulkan layer that lets IREE runtimes before 3.12 see Mesa's lavapipe: built from
source and checked against a real older runtime when one is installed under the cache."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from packaging.version import Version

from harness import vulkan_layer
from harness.cache import cache_root


def test_only_runtimes_that_hide_llvmpipe_get_the_layer():
    assert vulkan_layer.needed(Version("3.11.0")) and vulkan_layer.needed(Version("2.9.0"))
    assert not vulkan_layer.needed(Version("3.12.0")) and not vulkan_layer.needed(None)
    assert vulkan_layer.env_for(Version("3.13.0")) == ()


def _old_runtime() -> Path | None:
    for version in ("3.11.0", "3.5.0", "2.9.0"):
        tool = cache_root() / "releases" / "pypi" / version / "iree" / "_runtime_libs" / "iree-run-module"
        if tool.is_file():
            return tool
    return None


def _listed(runtime: Path, env: dict) -> str:
    return subprocess.run([str(runtime), "--list_devices=vulkan"], capture_output=True, text=True,
                          timeout=60, env=env).stdout


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")
@pytest.mark.skipif(not Path("/usr/share/vulkan/icd.d/lvp_icd.x86_64.json").is_file(),
                    reason="no Mesa lavapipe ICD here")
def test_the_layer_builds_and_an_old_runtime_lists_lavapipe_through_it():
    folder, problem = vulkan_layer.build()
    assert folder is not None, problem
    runtime = _old_runtime()
    if runtime is None:
        pytest.skip("no IREE runtime before 3.12 installed under the cache (prove installs them)")
    assert "vulkan://" not in _listed(runtime, dict(os.environ))  # hidden without the layer
    layer = dict(vulkan_layer.env_for(Version("3.5.0")))
    assert "vulkan://" in _listed(runtime, {**os.environ, **layer})
