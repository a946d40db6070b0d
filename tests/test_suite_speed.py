"""benchmarks/suite_speed.py's floor: every tool command the cold run ran, its stages' own
and what they ran besides (the eager reference, the configuration dump), once each, and
none a stage took from the cache."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from harness.record import ItemRecord, StageResult
from harness.results import ResultsWriter
from harness.stages import ALSO_RAN

pytestmark = pytest.mark.harness


def _bench():
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "suite_speed.py"
    spec = importlib.util.spec_from_file_location("suite_speed", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_floor_holds_what_the_stages_ran_besides_their_own_command(tmp_path):
    def item(name, compare_ran, cached_compile=False):
        return ItemRecord(case="c", item=name, outcome="pass", verdict="PASS", stages=[
            StageResult("compile", "ok", command=f"iree-compile {name}", cached=cached_compile,
                        data={ALSO_RAN: [f"iree-compile {name} --compile-to=executable-configurations"]}),
            StageResult("compare", "ok", data={ALSO_RAN: compare_ran})])

    writer = ResultsWriter(tmp_path / "results.jsonl")
    writer.start({"run_id": "r"})
    writer.append(item("cpu-O0", ["python -m harness.torch_job model.py"]))
    writer.append(item("cpu-O3", [], cached_compile=True))  # its compile came from the cache
    assert _bench().recorded_commands(tmp_path / "results.jsonl") == [
        "iree-compile cpu-O0", "iree-compile cpu-O0 --compile-to=executable-configurations",
        "python -m harness.torch_job model.py"]
