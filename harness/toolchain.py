"""Find the IREE tools a run uses and say which versions they are.

Three sources, one shape (`Toolchain`):
  * the iree-base-compiler / iree-base-runtime packages of the running Python (default);
  * a directory of tools (`--iree-tools-dir`): a local build's bin/, or any folder
    holding iree-compile, iree-opt and iree-run-module;
  * a release installed into its own prefix (bisect and prove), see releases.py.

The native binaries inside the wheels are called directly, not the Python console
scripts that wrap them: that saves a Python start per call, and a crash shows as the
signal it was rather than as a wrapper's exit code.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

TOOL_NAMES = ("iree-compile", "iree-opt", "iree-run-module")

_VERSION_LINE = re.compile(r"IREE compiler version (\S+)(?: @ ([0-9a-f]+))?")
_VERSION_PY = re.compile(r"""VERSION\s*=\s*["']([^"']+)["']""")
_REVISION_PY = re.compile(r"""["']IREE["']\s*:\s*["']([0-9a-f]+)["']""")


class ToolchainError(RuntimeError):
    pass


@dataclass(frozen=True)
class Toolchain:
    compile: Path
    opt: Path
    run_module: Path
    compiler_version: str  # as the compiler prints it, e.g. "3.13.0rc20261016"
    compiler_revision: str  # IREE git hash, "" when unknown
    runtime_version: str  # "" when the tools dir does not say
    source: str  # where the tools came from, for reports
    build_id: str = ""  # tools dir: size+mtime of the binaries (a rebuild keeps the version)

    @property
    def dump_module(self) -> Path | None:
        """iree-dump-module beside iree-run-module (the runtime's own module loader), if any."""
        path = self.run_module.parent / "iree-dump-module"
        return path if path.is_file() else None

    @property
    def release(self) -> Version:
        """The release the compiler belongs to: 3.13.0rc20261016 -> 3.13.0.

        Flag spellings and case variants are keyed by release; rc/dev builds of the
        next release count as that release (their flags match it).
        """
        return release_of(self.compiler_version)

    def fingerprint(self) -> str:
        """Identity of the compiler for cache keys."""
        base = f"{self.compiler_version}@{self.compiler_revision}"
        return f"{base}#{self.build_id}" if self.build_id else base

    def describe(self) -> str:
        rev = f" @ {self.compiler_revision[:12]}" if self.compiler_revision else ""
        rt = f", runtime {self.runtime_version}" if self.runtime_version else ""
        return f"IREE compiler {self.compiler_version}{rev}{rt} ({self.source})"


def release_of(version_text: str) -> Version:
    try:
        v = Version(version_text)
    except InvalidVersion:
        # Local builds print things like "3.14.0.dev+abc" or "0.dev0": take the numbers.
        m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", version_text)
        if not m:
            return Version("0")
        return Version(".".join(x or "0" for x in m.groups()))
    return Version(v.base_version)


@functools.lru_cache(maxsize=None)
def _compiler_version(compile_path: str) -> tuple[str, str]:
    out = subprocess.run([compile_path, "--version"], capture_output=True, text=True, timeout=60)
    m = _VERSION_LINE.search(out.stdout + out.stderr)
    if not m:
        raise ToolchainError(f"{compile_path} --version printed no IREE version:\n{out.stdout}{out.stderr}")
    return m.group(1), m.group(2) or ""


def _read_version_py(path: Path) -> tuple[str, str]:
    if not path.is_file():
        return "", ""
    text = path.read_text()
    v = _VERSION_PY.search(text)
    r = _REVISION_PY.search(text)
    return (v.group(1) if v else ""), (r.group(1) if r else "")


def from_site_packages(site: Path, source: str) -> Toolchain:
    """Tools inside an installed iree-base-compiler + iree-base-runtime."""
    libs = site / "iree" / "compiler" / "_mlir_libs"
    rt = site / "iree" / "_runtime_libs"
    paths = {"iree-compile": libs / "iree-compile", "iree-opt": libs / "iree-opt",
             "iree-run-module": rt / "iree-run-module"}
    missing = [str(p) for p in paths.values() if not p.is_file()]
    if missing:
        raise ToolchainError(f"IREE packages under {site} lack: {', '.join(missing)}")
    cver, crev = _compiler_version(str(paths["iree-compile"]))
    rver, _ = _read_version_py(rt / "version.py")
    return Toolchain(paths["iree-compile"], paths["iree-opt"], paths["iree-run-module"],
                     cver, crev, rver, source)


def from_tools_dir(tools_dir: Path) -> Toolchain:
    """A local build (or any folder) holding the three tools."""
    tools_dir = Path(tools_dir).resolve()  # reproducers must work from any folder
    paths = {name: tools_dir / name for name in TOOL_NAMES}
    missing = [n for n, p in paths.items() if not p.is_file()]
    if missing:
        raise ToolchainError(f"--iree-tools-dir {tools_dir} lacks {', '.join(missing)}")
    cver, crev = _compiler_version(str(paths["iree-compile"]))
    stats = [paths[n].stat() for n in TOOL_NAMES]
    build_id = ",".join(f"{s.st_size}:{s.st_mtime_ns}" for s in stats)
    return Toolchain(paths["iree-compile"], paths["iree-opt"], paths["iree-run-module"],
                     cver, crev, "", f"tools dir {tools_dir}", build_id)


def installed() -> Toolchain:
    """The iree-base-compiler / iree-base-runtime of this Python."""
    import importlib.util

    try:
        missing = [m for m in ("iree.compiler", "iree._runtime_libs")
                   if importlib.util.find_spec(m) is None]
    except ImportError:  # the parent package `iree` itself is absent
        missing = ["iree"]
    if missing:
        # Fall back to tools on PATH (e.g. a system install without the wheels).
        found = {n: shutil.which(n) for n in TOOL_NAMES}
        if all(found.values()):
            return from_tools_dir(Path(found["iree-compile"]).parent)
        raise ToolchainError(
            "no IREE toolchain: install iree-base-compiler and iree-base-runtime "
            f"or pass --iree-tools-dir (missing: {', '.join(missing)})")
    import iree.compiler as c
    site = Path(c.__file__).resolve().parent.parent.parent
    return from_site_packages(site, "installed packages")


def resolve(tools_dir: str | Path | None = None) -> Toolchain:
    return from_tools_dir(Path(tools_dir)) if tools_dir else installed()
