"""Let IREE runtimes before 3.12 use Mesa's software Vulkan device (lavapipe).

Those runtimes hide every Vulkan device whose name starts with "llvmpipe"
(`iree_hal_vulkan_is_device_visible` in runtime/src/iree/hal/drivers/vulkan/
vulkan_driver.cc, e.g. at tag iree-3.5.0rc20250609): `--list_devices=vulkan` prints
nothing and `--device=vulkan` fails with "physical device 0 invalid; 1 physical devices
available; 0 visible". No flag or environment variable of theirs changes that, and a
3.13 runtime refuses their modules ("bytecode version mismatch"), so each release needs
its own runtime. vulkan_layer/show_llvmpipe.c is a Vulkan instance layer that renames
the device to "lavapipe"; built here once (gcc and the Vulkan headers, Debian's
libvulkan-dev) and enabled for a runtime that lists no Vulkan device without it and one
with it (asked of the runtime, not read from its version), it lets their vulkan items run.
Where it cannot be built, their vulkan items stay compile-only and say why.
"""

from __future__ import annotations

import fcntl
import functools
import json
import shutil
import subprocess
from pathlib import Path

from . import targets
from .cache import cache_root, digest

SOURCE = Path(__file__).resolve().parent / "vulkan_layer" / "show_llvmpipe.c"
LAYER_NAME = "VK_LAYER_IREE_REGRESS_show_llvmpipe"


@functools.lru_cache(maxsize=None)
def build() -> tuple[Path | None, str]:
    """(folder holding the layer and its manifest, "") or (None, why it is unavailable)."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        return None, "no C compiler (gcc) to build the layer"
    folder = cache_root() / "vulkan-layer" / digest(SOURCE)[:16]
    library = folder / "libshow_llvmpipe.so"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # xdist workers build it once
        if not library.is_file():
            out = subprocess.run([compiler, "-shared", "-fPIC", "-O2", "-o", str(library) + ".tmp",
                                  str(SOURCE)], capture_output=True, text=True)
            if out.returncode != 0:
                return None, ("cannot build the layer (install libvulkan-dev): "
                              + (out.stderr.strip().splitlines() or ["?"])[-1])
            Path(str(library) + ".tmp").replace(library)
        manifest = {"file_format_version": "1.1.2",
                    "layer": {"name": LAYER_NAME, "type": "GLOBAL", "library_path": str(library),
                              "api_version": "1.3.0", "implementation_version": "1",
                              "description": "renames llvmpipe so that IREE runtimes before 3.12 use it"}}
        (folder / "show_llvmpipe.json").write_text(json.dumps(manifest, indent=1))
    return folder, ""


def _layer_env(folder: Path) -> tuple[tuple[str, str], ...]:
    return (("VK_LAYER_PATH", str(folder)), ("VK_INSTANCE_LAYERS", LAYER_NAME))


@functools.lru_cache(maxsize=None)
def env_for(run_module: str) -> tuple[tuple[str, str], ...]:
    """The environment under which this runtime sees a Vulkan device, asked of the runtime
    itself (a tools dir has no release version to go by): nothing when it lists a device
    as it is; the layer when it lists one only through it; else nothing (its vulkan items
    stay compile-only, and why_hidden says why)."""
    if targets.list_devices(run_module, "vulkan", ()):
        return ()
    folder, _ = build()
    if folder is None:
        return ()
    layer = _layer_env(folder)
    return layer if targets.list_devices(run_module, "vulkan", layer) else ()


def why_hidden(run_module: str) -> str:
    """For a compile-only vulkan item: why this runtime shows no device."""
    if env_for(run_module) or targets.list_devices(run_module, "vulkan", ()):
        return ""
    folder, problem = build()
    if folder is None:
        return ("; this runtime lists no Vulkan device, and the layer that shows Mesa's llvmpipe "
                f"to runtimes that hide it (IREE before 3.12) is unavailable: {problem}")
    return "; this runtime lists no Vulkan device, with or without the layer that shows Mesa's llvmpipe"
