"""A sweep scan's records, kept small enough to commit (`sweep scan --keep DIR`).

A scan's own records (`<out>/<release>/results.jsonl`) hold every stage's command, log
and timing (about 2.5 KB an item), and they live on the machine that ran the scan. Recall (`sweep recall`) and a scan's groups
(`sweep scan --report-only`) read only each item's outcome per release and, for a
failure, the text its signature and a case's `match` are read from. This keeps exactly
that, gzipped, in `<dir>/<release>/results.jsonl.gz`, so the numbers in docs/recall.md
and a scan's disposal can be read again on any machine without compiling.
"""

from __future__ import annotations

import gzip
import json
import tomllib
from pathlib import Path

from ..case import CaseError
from ..outcomes import PASS_OUTCOME
from ..process import strip_paths
from ..record import COMPILE_WARNINGS_KEPT, ItemRecord
from ..results import read_results

KEPT_NAME = "results.jsonl.gz"
KEPT_DIR = Path(__file__).resolve().parents[2] / "scans"
# Which kept scans docs/recall.md is computed from: {label: [folder under scans/, ...]}.
RECALL_TABLE = KEPT_DIR / "recall.toml"
# A failing stage's log beyond this says nothing a match reads (the diagnostic and its
# first frames come first); the compile log is read only up to COMPILE_WARNINGS_KEPT.
LOG_KEPT = 8000
# What every record keeps; a failure keeps its stages and traits too.
_ITEM_FIELDS = ("case", "item", "outcome", "verdict", "target", "opt_level", "compiler", "compile_only", "level")
_STAGE_FIELDS = ("stage", "status", "detail", "log", "data")


def compact(record: ItemRecord) -> dict:
    kept = {"type": "item", **{name: getattr(record, name) for name in _ITEM_FIELDS}}
    if record.outcome == PASS_OUTCOME:
        return kept
    # Paths cut to their file names, as a case's stored samples are: kept records are
    # committed, and name no machine's folders (the matches read file names, not folders).
    kept["message"] = strip_paths(record.message)
    kept["traits"] = list(record.traits)
    kept["stages"] = []
    for stage in record.stages:
        s = {name: getattr(stage, name) for name in _STAGE_FIELDS}
        s["detail"] = strip_paths(s["detail"])
        s["log"] = strip_paths(s["log"][:COMPILE_WARNINGS_KEPT if stage.stage == "compile" and stage.ok else LOG_KEPT])
        kept["stages"].append(s)
    return kept


def results_path(out: Path, release: str) -> Path | None:
    """A release's records in a scan's folder: as the scan wrote them, or as kept."""
    for name in ("results.jsonl", KEPT_NAME):
        path = out / release / name
        if path.is_file():
            return path
    return None


def keep(out: Path, releases: list[str], to: Path, sweeps: set[str] | None = None) -> dict[str, int]:
    """Write each release's records of `out` (of the named sweeps only, when named)
    compactly under `to`; {release: bytes}."""
    written = {}
    for release in releases:
        path = results_path(out, release)
        if path is None:
            continue
        header, records = read_results(path)
        env = header.get("environment", {})
        lines = [{"type": "run", "environment": {k: env.get(k) for k in ("compiler_version", "host_cpu")}}]
        lines += [compact(r) for r in sorted(records, key=lambda r: r.key)
                  if sweeps is None or r.case.split("::")[0] in sweeps]
        target = to / release / KEPT_NAME
        target.parent.mkdir(parents=True, exist_ok=True)
        text = "".join(json.dumps(line, sort_keys=True) + "\n" for line in lines)
        target.write_bytes(gzip.compress(text.encode(), mtime=0))  # same records, same bytes
        written[release] = target.stat().st_size
    return written


def recall_specs(table: Path = RECALL_TABLE) -> list[str]:
    """`sweep recall`'s scans when none is named: scans/recall.toml's [recall] labels, each
    a list of kept scans' folders (relative to scans/), as LABEL=DIR,DIR specs."""
    try:
        labels = tomllib.loads(table.read_text()).get("recall")
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise CaseError(f"{table}: cannot read the recall table ({e})") from None
    if not isinstance(labels, dict) or not labels:
        raise CaseError(f"{table}: [recall] must map each label to its kept scans' folders")
    specs = []
    for label, folders in labels.items():
        if not isinstance(folders, list) or not all(isinstance(f, str) for f in folders):
            raise CaseError(f"{table}: recall.{label}: a list of folders under scans/")
        missing = [f for f in folders if not (table.parent / f).is_dir()]
        if missing:
            raise CaseError(f"{table}: recall.{label}: no kept scan {', '.join(missing)}")
        specs.append(f"{label}=" + ",".join(str(table.parent / f) for f in folders))
    return specs
