"""The Vulkan layer that lets IREE runtimes before 3.12 see Mesa's lavapipe: built from
source and checked against a real older runtime when one is installed under the cache."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from harness import vulkan_layer
from harness.cache import cache_root


FAKE_RUNTIME = """#!{python}
import os, sys
# lists a device: always ("new"), only through the layer ("old"), or never ("none")
mode = {mode!r}
shown = mode == "new" or (mode == "old" and os.environ.get("VK_INSTANCE_LAYERS") == {layer!r})
if sys.argv[1:] == ["--list_devices=vulkan"] and shown:
    print("vulkan://00000000-1111-2222-3333-444444444444")
"""


@pytest.mark.harness
@pytest.mark.parametrize("mode,layered", [("new", False), ("old", True), ("none", False)])
def test_the_layer_is_chosen_by_asking_the_runtime_not_by_its_version(tmp_path, mode, layered):
    """A tools dir has no release version: the layer is used exactly when the runtime
    lists no Vulkan device without it and one with it."""
    if vulkan_layer.build()[0] is None:
        pytest.skip(f"the layer cannot be built here: {vulkan_layer.build()[1]}")
    runtime = tmp_path / mode / "iree-run-module"
    runtime.parent.mkdir()
    runtime.write_text(FAKE_RUNTIME.format(python=sys.executable, mode=mode, layer=vulkan_layer.LAYER_NAME))
    runtime.chmod(0o755)
    env = dict(vulkan_layer.env_for(str(runtime)))
    assert bool(env) == layered
    assert (vulkan_layer.why_hidden(str(runtime)) != "") == (mode == "none")


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
    layer = dict(vulkan_layer.env_for(str(runtime)))
    assert "vulkan://" in _listed(runtime, {**os.environ, **layer})
