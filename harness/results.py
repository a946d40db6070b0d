"""Results as JSON lines, written as each item finishes, and read back.

One line per item (an ItemRecord), appended with a single write, so a killed run loses
nothing it finished and concurrent xdist workers never interleave lines. The first line
is the run's header (environment, run id); every item line carries the run id.

Each run writes its own file, `reports/runs/<run id>.jsonl`, and `reports/results.jsonl`
is a link to the newest: two runs at once in one checkout never truncate or mix each
other's results, and a subset run never overwrites a full run's. JUnit XML comes from
pytest itself (the plugin points it at reports/junit.xml).
"""

from __future__ import annotations

import gzip
import json
import os
import platform
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from . import targets
from .case import CaseError
from .record import ItemRecord
from .toolchain import Toolchain
from .sandbox import Sandbox, probe as sandbox_probe

RESULTS_NAME = "results.jsonl"


def package_versions() -> dict[str, str]:
    out = {}
    for pkg in ("iree-base-compiler", "iree-base-runtime", "iree-turbine", "torch", "numpy"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = ""
    return out


def environment(toolchain: Toolchain, sandbox: Sandbox | None = None) -> dict:
    """The fingerprint every report carries: versions, host CPU, devices and drivers, and
    whether case code ran sandboxed."""
    run_module = str(toolchain.run_module)
    drivers = targets.DEVICE_DRIVERS
    return {"compiler_version": toolchain.compiler_version,
            "compiler_revision": toolchain.compiler_revision,
            "runtime_version": toolchain.runtime_version, "toolchain": toolchain.source,
            "packages": package_versions(), "host": platform.node(), "machine": platform.machine(),
            "host_cpu": targets.host_cpu_name(),
            "devices": {d: list(targets.list_devices(run_module, d)) for d in drivers},
            "device_info": {d: list(targets.device_info(run_module, d)) for d in drivers
                            if targets.list_devices(run_module, d)},
            "case_code": (sandbox or sandbox_probe()).description}


def new_run_id(kind: str = "") -> str:
    """A run's id: its start time first (nights sort by it), then the process."""
    return f"{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}" + (f"-{kind}" if kind else "")


def run_file(reports: Path, run_id: str) -> Path:
    return Path(reports) / "runs" / f"{run_id}.jsonl"


def link_newest(reports: Path, run_path: Path) -> None:
    """Point reports/results.jsonl at `run_path` (atomically: readers never see no file)."""
    link = Path(reports) / RESULTS_NAME
    tmp = link.with_name(f".{RESULTS_NAME}.{os.getpid()}")
    tmp.unlink(missing_ok=True)
    os.symlink(os.path.relpath(run_path, link.parent), tmp)
    os.replace(tmp, link)


class ResultsWriter:
    def __init__(self, path: Path):
        self.path = Path(path)

    def start(self, header: dict):
        """Called once per run (by the controller, not by xdist workers)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps({"type": "run", **header}, default=str) + "\n")

    def append(self, record: ItemRecord):
        line = (json.dumps(record.as_dict(), default=str) + "\n").encode()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)


def read_results(path: Path, warn=None) -> tuple[dict, list[ItemRecord]]:
    """The header and the items. A line cut short (a run killed mid-write) is skipped
    and reported through `warn`, never a crash."""
    header, items = {}, []
    try:
        raw = Path(path).read_bytes()
        if str(path).endswith(".gz"):  # a scan's kept records (sweep/scan_records.py)
            raw = gzip.decompress(raw)
        lines = raw.decode(errors="replace").splitlines()
    except OSError as e:  # a misspelt path, or a case slug taken for a results file
        raise CaseError(f"{path}: cannot read these results ({e.strerror or e})") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            if warn:
                warn(f"{path}:{number}: skipped a line that is not JSON (cut short?)")
            continue
        if record.get("type") == "run":
            header = record
        else:
            items.append(ItemRecord.from_dict(record))
    return header, items


def merge_results(paths: list[Path], warn=None) -> tuple[dict, list[ItemRecord]]:
    """Several runs' results as one (the shards of one run, and its bundles run on the
    device machine): the first header, each item once. A record that ran wins over a
    compile-only one of the same item; other disagreements keep the first, and `warn`
    says so."""
    header: dict = {}
    merged: dict[str, ItemRecord] = {}
    labels = []  # each file's shard label (shard.accounting checks them)
    for path in paths:
        this_header, items = read_results(path, warn)
        header = header or dict(this_header)
        labels.append((str(path), this_header.get("shard")))
        theirs = this_header.get("environment", {}).get("compiler_version")
        ours = header.get("environment", {}).get("compiler_version")
        if warn and theirs != ours:
            warn(f"{path}: compiler {theirs}, not {ours} as in {paths[0]}: not shards of one run")
        for item in items:
            kept = merged.setdefault(item.key, item)
            if kept is not item and kept.compile_only and not item.compile_only:
                merged[item.key] = item  # run from its bundle on the device machine
                continue
            if kept is not item and item.compile_only and not kept.compile_only:
                continue
            if kept is not item and warn and (kept.outcome, kept.verdict) != (item.outcome, item.verdict):
                warn(f"{item.key} is in two files with different results "
                     f"({kept.outcome}/{kept.verdict} and {item.outcome}/{item.verdict}); kept the first")
    header["shards"] = labels
    return header, list(merged.values())
