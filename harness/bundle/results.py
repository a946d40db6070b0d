"""Bundles run on the device machine, as results of the suite.

A hip or cuda item compiles on a CPU runner, where it is compile-only, and runs on a
GPU runner from its bundle (`iree-regress run-bundle DIR... --results R.jsonl`). Each
bundle becomes one results line for its item, judged by the case's expectations as the
suite judges it, so that merging R.jsonl with the compile-only run's results shows the
item as run (results.merge_results prefers the record that ran).
"""

from __future__ import annotations

import json
from pathlib import Path

from ..case import CaseError
from ..refs import resolve_case
from ..outcomes import ERROR, HARNESS_ERROR, OK, SKIPPED
from ..record import ItemRecord, stages_of_bundle_run
from ..results import ResultsWriter, new_run_id
from ..runner import ItemResult, expectation_for, verdict
from ..stages import StageResult
from ..toolchain import release_of
from .run import BundleError, execute


def bundle_record(bundle: Path, device: str | None = None, runner=None) -> tuple[ItemRecord, str]:
    """The item's record from running its bundle here (its module in `runner`: run.execute),
    and the device it ran on."""
    try:
        found = execute(bundle, device, runner)
    except BundleError as e:  # refused after the up-front check: still a line, never lost
        return ItemRecord(case=bundle.name, item="(bundle)", outcome=HARNESS_ERROR, verdict=ERROR,
                          message=f"malformed bundle: {e}"), ""
    except OSError as e:  # the sandbox's shell died or could not start again: this bundle ran nothing
        return ItemRecord(case=bundle.name, item="(bundle)", outcome=HARNESS_ERROR, verdict=ERROR,
                          message=f"not run: {e}"), ""
    meta = found["meta"]
    try:
        case = resolve_case(meta["case"])
    except CaseError as e:
        return ItemRecord(case=meta["case"], item=meta["item"], outcome=HARNESS_ERROR, verdict=ERROR,
                          message=f"bundle of a case this checkout lacks: {e}"), found["device"]
    compiler = meta.get("environment", {}).get("compiler_version", "")
    result = ItemResult(case, meta["item"], meta["target"], meta["opt_level"], None, compiler)
    # A bundle without a module ran nothing here: its compile is not this machine's to judge.
    result.stages.append(StageResult("compile", OK, f"compiled where the bundle was made ({bundle.name})")
                         if found["module"] else StageResult("compile", SKIPPED, found["detail"]))
    result.stages += stages_of_bundle_run(found)
    v = verdict(result, expectation_for(result, release_of(compiler)))
    return result.record(v, nodeid=f"bundle:{bundle}"), found["device"]


def write_bundle_results(bundles: list[Path], path: Path, device: str | None = None, runner=None) -> int:
    """Run every bundle, write its results line; exit 1 when any fails or errs."""
    writer = ResultsWriter(path)
    run_id = new_run_id("bundles")
    writer.start({"run_id": run_id, "bundles": len(bundles)})
    status = 0
    for bundle in bundles:
        record, ran_on = bundle_record(bundle, device, runner)
        record.run_id = run_id
        writer.append(record)
        print(f"{record.key} on {ran_on or 'no device'}: {record.outcome} ({record.verdict}) {record.message[:120]}")
        status = max(status, 1 if record.is_failure else 0)
    print(json.dumps({"bundles": len(bundles), "results": str(path)}))
    return status
