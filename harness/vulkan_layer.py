"""Let IREE runtimes before 3.12 use Mesa's software Vulkan device (lavapipe).

Those runtimes hide every Vulkan device whose name starts with "llvmpipe"
(`iree_hal_vulkan_is_device_visible` in runtime/src/iree/hal/drivers/vulkan/
vulkan_driver.cc, e.g. at tag iree-3.5.0rc20250609): `--list_devices=vulkan` prints
nothing and `--device=vulkan` fails with "physical device 0 invalid; 1 physical devices
available; 0 visible". No flag or environment variable of theirs changes that, and a
3.13 runtime refuses their modules ("bytecode version mismatch"), so each release needs
its own runtime. vulkan_layer/show_llvmpipe.c is a Vulkan instance layer that renames
the device to "lavapipe"; built here once (gcc and the Vulkan headers, Debian's
libvulkan-dev) and enabled for those runtimes only, it lets their vulkan items run.
Where it cannot be built, their vulkan items stay compile-only and say why.
"""

from __future__ import annotations

import fcntl
import functools
import json
import shutil
import subprocess
from pathlib import Path

from packaging.version import Version

from .cache import cache_root, digest

SOURCE = Path(__file__).resolve().parent / "vulkan_layer" / "show_llvmpipe.c"
LAYER_NAME = "VK_LAYER_IREE_REGRESS_show_llvmpipe"
HIDES_LLVMPIPE_BEFORE = Version("3.12.0")


def needed(runtime_release: Version | None) -> bool:
    return runtime_release is not None and runtime_release < HIDES_LLVMPIPE_BEFORE


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


def env_for(runtime_release: Version | None) -> tuple[tuple[str, str], ...]:
    """Environment for a runtime's Vulkan calls (empty when it needs no layer or none
    could be built)."""
    if not needed(runtime_release):
        return ()
    folder, _ = build()
    if folder is None:
        return ()
    return (("VK_LAYER_PATH", str(folder)), ("VK_INSTANCE_LAYERS", LAYER_NAME))


def why_hidden(runtime_release: Version | None) -> str:
    """For a compile-only vulkan item: why this runtime shows no device."""
    if not needed(runtime_release):
        return ""
    _, problem = build()
    return (f"; IREE runtimes before {HIDES_LLVMPIPE_BEFORE} hide Mesa's llvmpipe device and the "
            f"renaming layer is unavailable: {problem}") if problem else ""
