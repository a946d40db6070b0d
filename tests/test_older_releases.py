"""Old releases read today's imports: no-computation ops they do not know are removed
before they compile (harness/older_releases.py), and the item says so."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.version import Version

from harness import older_releases
from harness.cache import Cache
from harness.case import load_case
from harness.stages import Settings, import_stage
from harness.toolchain import Toolchain

pytestmark = pytest.mark.harness

PROGRAM = """func.func @main(%arg0: !torch.vtensor<[4,16],f32>) -> !torch.vtensor<[4,16],f32> {
  %none = torch.constant.none
  %int0 = torch.constant.int 0
  %int6 = torch.constant.int 6
  %cpu = torch.constant.device "cpu"
  torch.aten._assert_tensor_metadata %arg0, %none, %none, %int6, %cpu, %int0 : !torch.vtensor<[4,16],f32>, !torch.none, !torch.none, !torch.int, !torch.Device, !torch.int
  %0 = torch.aten.add.Tensor %arg0, %arg0, %int0 : !torch.vtensor<[4,16],f32>, !torch.vtensor<[4,16],f32>, !torch.int -> !torch.vtensor<[4,16],f32>
  return %0 : !torch.vtensor<[4,16],f32>
}
"""


def _settings(tmp_path: Path, version: str) -> Settings:
    tc = Toolchain(tmp_path / "c", tmp_path / "o", tmp_path / "r", version, "", "", "test")
    return Settings(toolchain=tc, cache=Cache(tmp_path / "cache"))


def _case(tmp_path: Path):
    folder = tmp_path / "cases" / "meta"
    folder.mkdir(parents=True)
    (folder / "model.mlir").write_text(PROGRAM)
    (folder / "case.toml").write_text('title = "t"\nkind = "compile"\nissues = ["iree-org/iree#1"]\n'
                                      '[source]\nmlir = "model.mlir"\n')
    return load_case(folder / "case.toml")


@pytest.mark.parametrize("version, removed", [("3.0.0", True), ("3.1.0rc20250107", True), ("3.2.0", False),
                                              ("3.13.0", False)])
def test_a_release_that_does_not_know_the_op_compiles_the_program_without_it(tmp_path, version, removed):
    case = _case(tmp_path)
    result, mlir = import_stage(case, _settings(tmp_path, version))
    assert result.ok
    text = mlir.read_text()
    assert ("_assert_tensor_metadata" not in text) is removed
    assert "torch.aten.add.Tensor" in text  # the computation never changes
    if removed:
        assert result.data["removed_ops"] == {"torch.aten._assert_tensor_metadata": 1}
        assert "removed for IREE" in result.detail and mlir != case.mlir
        assert case.mlir.read_text() == PROGRAM  # the case's own file is untouched
    else:
        assert mlir == case.mlir and "removed_ops" not in result.data


def test_an_op_with_a_result_is_never_removed():
    text = "  %0 = torch.aten._assert_tensor_metadata %a : !torch.int -> !torch.int\n"
    assert older_releases.without(text, ["torch.aten._assert_tensor_metadata"]) == (text, {})
    assert older_releases.unknown_to(Version("3.1.0")) == ["torch.aten._assert_tensor_metadata"]
    assert older_releases.unknown_to(Version("3.2.0")) == []
