"""Target profiles, the flags each compiler release spells for them, and devices here.

A profile says what a target means (cpu = llvm-cpu on local-task, ...). `compile_flags`
turns profile + optimization level into the flags of ONE compiler release, because
IREE renamed them across releases. Each rename is a row in a table below, with the
release that introduced the new spelling, so a reader can check it against
`iree-compile --help-hidden` of that release (tests/test_targets.py does, for every
release installed on the machine).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from packaging.version import Version

OPT_LEVELS = ("O0", "O1", "O2", "O3")

# Per-release spellings: (first release with the spelling, spelling), newest first; the
# first row whose release is <= the compiler's release wins.
Spellings = tuple[tuple[Version, "str | None"], ...]
HIP_ARCH_FLAG: Spellings = (
    (Version("3.12.0"), "--iree-rocm-target={arch}"),  # renamed in 3.12
    (Version("0"), "--iree-hip-target={arch}"),
)
CUDA_ARCH_FLAG: Spellings = ((Version("0"), "--iree-cuda-target={arch}"),)
# --iree-opt-level appeared in 3.3.0; older compilers have no single switch for it.
OPT_LEVEL_FLAG: Spellings = (
    (Version("3.3.0"), "--iree-opt-level={level}"),
    (Version("0"), None),
)


# GPU compiles dump each executable after strategy selection (harness/configuration.py).
CONFIG_DUMP_FLAG: Spellings = (
    (Version("3.0.0"), "--iree-hal-dump-executable-configurations-to={dir}"),
    (Version("0"), None),
)
# The tuner's pass that strips tuning attributes (absent in 2.9.0).
STRIP_COMPILATION_INFO_FLAG: Spellings = (
    (Version("3.0.0"), "--iree-codegen-strip-compilation-info"),
    (Version("0"), None),
)

# Options a case's own flags may name (as its issue wrote them, in any release's
# spelling) that IREE renamed: each is given to a compiler in its release's spelling.
RENAMED_OPTIONS: tuple[Spellings, ...] = (
    tuple((release, spelling.split("=")[0]) for release, spelling in HIP_ARCH_FLAG),
    ((Version("3.7.0"), "--iree-dispatch-creation-data-tiling"),  # renamed in 3.7
     (Version("0"), "--iree-dispatch-creation-experimental-data-tiling")),
)


@dataclass(frozen=True)
class Target:
    """One column of the matrix. Adding a target (another chip, another backend) is
    adding a row to ROWS; options, markers, report columns and devices follow from it."""
    name: str  # the column and marker: cpu, hip, hip-gfx1100, ...
    flags: tuple[str, ...]  # iree-compile flags naming the HAL device / backend
    driver: str  # runtime HAL driver, as in `--device=<driver>` / `--list_devices=<driver>`
    description: str
    arch: str | None = None  # the chip compiled for
    arch_flag: Spellings = ()  # how each release spells the chip option
    arch_option: str | None = None  # command-line option that overrides `arch`
    local: bool = False  # runs on this machine's CPU (local-task), no device to find
    default: bool = True  # in every case's matrix unless the case says otherwise
    family: str = ""  # the target a case names to cover this row too ("" = its own name)

    @property
    def covered_by(self) -> str:
        return self.family or self.name


ROWS = (
    Target("cpu", ("--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
                   "--iree-llvmcpu-target-cpu=host"), "local-task", "llvm-cpu, run on local-task",
           local=True),
    Target("vulkan", ("--iree-hal-target-device=vulkan",), "vulkan",
           "vulkan-spirv, run on a Vulkan device (Mesa lavapipe here)"),
    Target("hip", ("--iree-hal-target-device=hip",), "hip",
           "rocm/hip, compile-only unless a HIP device exists", "gfx942", HIP_ARCH_FLAG, "--hip-arch"),
    Target("cuda", ("--iree-hal-target-device=cuda",), "cuda",
           "cuda, compile-only unless a CUDA device exists", "sm_80", CUDA_ARCH_FLAG, "--cuda-arch"),
    # More chips of a family are more columns, outside the default matrix: `--target
    # hip-gfx1100` adds them to every case whose matrix (or expectation) names "hip".
    Target("hip-gfx1100", ("--iree-hal-target-device=hip",), "hip",
           "rocm/hip for RDNA3 (gfx1100)", "gfx1100", HIP_ARCH_FLAG, default=False, family="hip"),
    Target("cuda-sm_89", ("--iree-hal-target-device=cuda",), "cuda",
           "cuda for Ada (sm_89)", "sm_89", CUDA_ARCH_FLAG, default=False, family="cuda"),
)
BY_NAME = {t.name: t for t in ROWS}
TARGETS = tuple(BY_NAME)  # every target a case or the command line may name
DEFAULT_TARGETS = tuple(t.name for t in ROWS if t.default)
DEVICE_DRIVERS = tuple(dict.fromkeys(t.driver for t in ROWS if not t.local))


def family_of(target: str | None) -> str | None:
    """The target a case or an expectation names to cover `target` (hip for hip-gfx1100)."""
    return BY_NAME[target].covered_by if target in BY_NAME else target


@dataclass(frozen=True)
class TargetOptions:
    """Chips chosen on the command line: target name -> arch (others: the row's own)."""
    arch: tuple[tuple[str, str], ...] = ()

    def arch_of(self, target: Target) -> str | None:
        return dict(self.arch).get(target.name, target.arch)


def _spelling(table, release: Version):
    for first, spelling in table:
        if release >= first:
            return spelling
    return None


def records_configurations(target: str) -> bool:
    """GPU targets: the configuration chosen per attention dispatch is recorded."""
    return BY_NAME[target].driver in ("hip", "cuda")


def dumps_configurations(release: Version) -> bool:
    return _spelling(CONFIG_DUMP_FLAG, release) is not None


def config_dump_flag(release: Version, folder: Path) -> str | None:
    spelling = _spelling(CONFIG_DUMP_FLAG, release)
    return spelling.format(dir=folder) if spelling else None


def strip_compilation_info_flag(release: Version) -> str | None:
    return _spelling(STRIP_COMPILATION_INFO_FLAG, release)


def opt_level_supported(release: Version | str) -> bool:
    return _spelling(OPT_LEVEL_FLAG, Version(str(release))) is not None


LEVELS_ARRIVE = OPT_LEVEL_FLAG[0][0]  # the first release that can be asked for a level


def one_compile_level(levels, opt_level: str, release) -> str | None:
    """On a release without --iree-opt-level, the level among `levels` (a case's, in order)
    whose compile `opt_level`'s is: the first one. None where the release has levels, or
    `opt_level` is that first one: it gives its own verdict."""
    if opt_level_supported(release) or not levels or opt_level == levels[0]:
        return None
    return levels[0]


def no_levels(release) -> str:
    """Why a release's O0-O3 items are one compile."""
    return (f"IREE {release} has no --iree-opt-level (it arrives in {LEVELS_ARRIVE}): "
            f"O0-O3 are one compile there, the release's default")


def compile_flags(target: str, opt_level: str, release: Version,
                  options: TargetOptions = TargetOptions()) -> list[str]:
    """The iree-compile flags for one (target, opt level) on compiler `release`."""
    if target not in BY_NAME:
        raise ValueError(f"unknown target {target!r}; known: {', '.join(TARGETS)}")
    if opt_level not in OPT_LEVELS:
        raise ValueError(f"unknown opt level {opt_level!r}; known: {', '.join(OPT_LEVELS)}")
    row = BY_NAME[target]
    flags = list(row.flags)
    if row.arch_flag:
        flags.append(_spelling(row.arch_flag, release).format(arch=options.arch_of(row)))
    level_flag = _spelling(OPT_LEVEL_FLAG, release)
    if level_flag:
        flags.append(level_flag.format(level=opt_level))
    return flags



def spelled_for(flags: list[str], release: Version) -> list[str]:
    """A case's flags with each renamed option (RENAMED_OPTIONS) in `release`'s spelling,
    its value kept."""
    spelled = []
    for flag in flags:
        name, eq, value = flag.partition("=")
        row = next((r for r in RENAMED_OPTIONS if name in {s for _, s in r}), None)
        spelled.append(flag if row is None else _spelling(row, release) + eq + value)
    return spelled

# How an IR check's own flags name the target they compile for.
_TARGET_IN_FLAGS = (
    ("cpu", re.compile(r"^--iree-hal-(?:local-target-device-backends|target-backends|target-device)=llvm-cpu$")),
    ("vulkan", re.compile(r"^--iree-hal-target-(?:device|backends)=vulkan")),
    ("hip", re.compile(r"^--iree-hal-target-(?:device|backends)=(?:hip|rocm)")),
    ("cuda", re.compile(r"^--iree-hal-target-(?:device|backends)=cuda")),
)


def target_of_flags(flags) -> str | None:
    """The target a tool's flags compile for (an [[ir]] check's), or None: a pass
    pipeline on target-independent IR belongs to no target."""
    for name, pattern in _TARGET_IN_FLAGS:
        if any(pattern.match(f) for f in flags):
            return name
    return None


def flag_names(flags: list[str]) -> list[str]:
    return [f.split("=", 1)[0] for f in flags]


def uses_host_cpu(flags: list[str]) -> bool:
    """Whether the module depends on this machine's CPU (cache keys must say so)."""
    return any(f == "--iree-llvmcpu-target-cpu=host" for f in flags)


@functools.lru_cache(maxsize=None)
def host_cpu_id() -> str:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return "unknown"
    model = re.search(r"^model name\s*:\s*(.*)$", text, re.M)
    flags = re.search(r"^flags\s*:\s*(.*)$", text, re.M)
    # Python's hash() is salted per process; a cache key needs a stable digest.
    digest = hashlib.sha256((flags.group(1) if flags else "").encode()).hexdigest()[:16]
    return f"{model.group(1) if model else '?'}|{digest}"


def _env(extra: tuple[tuple[str, str], ...]) -> dict | None:
    return {**os.environ, **dict(extra)} if extra else None


@functools.lru_cache(maxsize=None)
def list_devices(run_module: str, driver: str, env: tuple[tuple[str, str], ...] = ()) -> tuple[str, ...]:
    """Device URIs the runtime sees for a driver, e.g. ('vulkan://GPU-6d65...',).

    `env`: extra environment (the Vulkan layer that shows lavapipe to runtimes before
    3.12, vulkan_layer.py); the listed URI is used, which works on every release.
    """
    try:
        out = subprocess.run([run_module, f"--list_devices={driver}"], capture_output=True,
                             text=True, timeout=60, env=_env(env))
    except (OSError, subprocess.TimeoutExpired):
        return ()
    return tuple(line.strip() for line in out.stdout.splitlines()
                 if line.strip().startswith(f"{driver}://"))


@functools.lru_cache(maxsize=None)
def device_info(run_module: str, driver: str) -> tuple[dict, ...]:
    """name / driver / driver_info of each device of a driver, for report fingerprints."""
    try:
        out = subprocess.run([run_module, f"--dump_devices={driver}"], capture_output=True,
                             text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return ()
    devices, current = [], None
    for line in out.stdout.splitlines():
        if line.startswith("name: "):
            current = {"name": line[6:].strip()}
            devices.append(current)
        elif current is not None and ": " in line and not line.startswith((" ", "#")):
            k, v = line.split(": ", 1)
            if k in ("driver", "driver_info", "type", "api"):
                current[k] = v.strip()
    return tuple(devices)


def host_cpu_name() -> str:
    return host_cpu_id().split("|", 1)[0]


def run_device(target: str, run_module: str, env: tuple[tuple[str, str], ...] = ()) -> str | None:
    """The --device for running `target` here, or None when nothing here can run it."""
    row = BY_NAME[target]
    if row.local:
        return row.driver
    devices = list_devices(str(run_module), row.driver, env)
    return devices[0] if devices else None
