"""IREE releases as toolchains: list them, install one (cached), hand back its tools.

A release is iree-base-compiler and iree-base-runtime of the same version, installed
with `pip install --no-deps --target` into `<cache>/releases/<source>/<version>`: the
harness calls the native binaries inside the wheels, so neither a venv nor the
packages' Python dependencies are needed (about 0.4 GB a release instead of 0.6).
A finished install is marked by a `.complete` file; a rerun reuses it.

Sources: the package index pip is configured with (default), a find-links page or a
local folder of wheels (IREE's nightly rc packages are published as a find-links page).
"""

from __future__ import annotations

import fcntl
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from packaging.version import InvalidVersion, Version

from ..cache import cache_root, digest
from ..toolchain import Toolchain, ToolchainError, from_site_packages

PACKAGES = ("iree-base-compiler", "iree-base-runtime")
# The releases PyPI holds of both packages (2.9.0, 3.0.0-3.13.0; no runtime 3.7.1).
PYPI_RELEASES = ("2.9.0", *(f"3.{n}.0" for n in range(14)))


class ReleaseUnavailable(RuntimeError):
    """The release cannot be installed or its tools cannot start: a bisect skip."""


@dataclass(frozen=True)
class ReleaseSource:
    find_links: str | None = None  # URL or folder
    no_index: bool = False  # only the find-links source (a local wheel folder)

    def tag(self) -> str:
        return "pypi" if not self.find_links else "links-" + digest(self.find_links)[:12]

    def pip_args(self) -> list[str]:
        args = []
        if self.find_links:
            args += ["--find-links", self.find_links]
        if self.no_index:
            args.append("--no-index")
        return args


def sort_versions(versions) -> list[str]:
    """Oldest first, by PEP 440 (3.9.0 < 3.10.0rc20250101 < 3.10.0 < 3.10.1.dev5)."""
    parsed = []
    for v in versions:
        try:
            parsed.append((Version(v), v))
        except InvalidVersion:
            continue
    return [v for _, v in sorted(set(parsed))]


_AVAILABLE = re.compile(r"Available versions:\s*(.*)")
_WHEEL = re.compile(r"iree[_-]base[_-](compiler|runtime)-([^-]+)-")


def _index_versions(package: str, source: ReleaseSource) -> set[str]:
    argv = [sys.executable, "-m", "pip", "index", "versions", package, "--pre",
            "--disable-pip-version-check", *source.pip_args()]
    out = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    m = _AVAILABLE.search(out.stdout)
    found = {v.strip() for v in m.group(1).split(",")} if m else set()
    if source.find_links and Path(source.find_links).is_dir():
        # pip's index command does not always read plain folders; read the wheel names.
        for wheel in Path(source.find_links).glob("*.whl"):
            w = _WHEEL.match(wheel.name)
            if w and w.group(1) == package.rsplit("-", 1)[1]:
                found.add(w.group(2))
    return found


def available(source: ReleaseSource = ReleaseSource()) -> list[str]:
    """Versions with both a compiler and a runtime package, oldest first."""
    compilers = _index_versions(PACKAGES[0], source)
    runtimes = _index_versions(PACKAGES[1], source)
    return sort_versions(compilers & runtimes)


def release_share(versions: list[str], text: str) -> list[str]:
    """`--release-shard K/N`: the K-th of N runs of consecutive releases (each machine
    of a weekly matrix installs its own share)."""
    from ..shard import parse

    k, n = parse(text)
    size = -(-len(versions) // n)
    return versions[(k - 1) * size:k * size]


def install_dir(version: str, source: ReleaseSource = ReleaseSource()) -> Path:
    return cache_root() / "releases" / source.tag() / version


def ensure(version: str, source: ReleaseSource = ReleaseSource(), log=print) -> Toolchain:
    """The release's toolchain, installing it on first use."""
    target = install_dir(version, source)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / f".{version}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two bisects must not install into one folder
        if not (target / ".complete").is_file():
            shutil.rmtree(target, ignore_errors=True)
            log(f"  installing IREE {version} into {target} ...")
            argv = [sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                    "--disable-pip-version-check", "--target", str(target), *source.pip_args(),
                    *[f"{p}=={version}" for p in PACKAGES]]
            out = subprocess.run(argv, capture_output=True, text=True, timeout=1800)
            if out.returncode != 0:
                shutil.rmtree(target, ignore_errors=True)
                tail = (out.stderr or out.stdout).strip().splitlines()[-1:] or [""]
                raise ReleaseUnavailable(f"cannot install IREE {version}: {tail[0]}")
            (target / ".complete").write_text(version + "\n")
    try:
        return from_site_packages(target, f"release {version}")
    except (ToolchainError, OSError) as e:
        raise ReleaseUnavailable(f"IREE {version} installed but unusable: {e}") from None
