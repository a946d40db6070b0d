"""runner.py: an item's result as the reports and the REPRO line read it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from harness.outcomes import FAILED, OK
from harness.record import StageResult
from harness.runner import ItemResult

pytestmark = pytest.mark.harness

CACHED_IMPORT = "/home/someone/.cache/iree-regress/v2/torch/0123abcd/model.mlir"


def _result(torch: bool) -> ItemResult:
    case = SimpleNamespace(slug="some-case", torch_model="model.py" if torch else None)
    mlir = CACHED_IMPORT if torch else "cases/some-case/model.mlir"
    return ItemResult(case, "cpu-O3", "cpu", "O3", None, "3.13.0", [
        StageResult("import", OK, "imported" if torch else "mlir input model.mlir"),
        StageResult("compile", FAILED, "error: failed to bufferize op",
                    command=f"iree-compile {mlir} --iree-opt-level=O3 -o module.vmfb")])


def test_a_torch_case_reproducer_names_no_cache_path():
    """Its compile reads the harness's cached import: the line points at the bundle, whose
    run.sh compiles input.mlir, instead of a path that exists on this machine only."""
    line = _result(torch=True).reproducer()
    assert ".cache" not in line and CACHED_IMPORT not in line
    assert line.startswith("iree-regress repro some-case::cpu-O3 --out some-case--cpu-O3 && "
                           "sh some-case--cpu-O3/run.sh")


def test_an_mlir_case_reproducer_is_the_command_itself():
    line = _result(torch=False).reproducer()
    assert line.startswith("iree-compile cases/some-case/model.mlir --iree-opt-level=O3")
    assert "iree-regress repro some-case::cpu-O3" in line
