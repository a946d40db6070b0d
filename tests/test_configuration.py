"""Attention configurations on GPU targets: read, compared night to night (information),
and two failures: an attention op with no configured dispatch, and a tuning attribute the
strip pass leaves on it (iree-org/iree#20053)."""

from __future__ import annotations

from pathlib import Path


from harness.cache import Cache
from harness.configuration import changes, read_configuration
from harness.outcomes import FAILED, OK
from harness.record import ItemRecord, StageResult, outcome_of
from harness.report.rundiff import diff_runs
from harness.stages import Settings, configure_stage
from harness.toolchain import resolve

# A hip executable as --iree-hal-dump-executable-configurations-to writes it (3.13.0,
# gfx942, a causal f16 SDPA), less its long target attributes.
DUMP = """\
hal.executable public @main$async_dispatch_0 {
  hal.executable.variant public @rocm_hsaco_fb target(#executable_target_rocm_hsaco_fb) {
    hal.executable.export public @main$async_dispatch_0_attention_8x64x64x64x64 ordinal(0) layout(#pipeline_layout) count(%arg0: !hal.device) -> (index, index, index) {
      %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
      hal.return %x, %y, %z : index, index, index
    }
    builtin.module {
      func.func @main$async_dispatch_0_attention_8x64x64x64x64() attributes {translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [256, 1, 1] subgroup_size = 64, {iree_codegen.denormal_fp_math_f32 = #iree_codegen.denormal_fp_math<"preserve-sign">}>} {
        %cst = arith.constant 1.250000e-01 : f32
        %0 = tensor.empty() : tensor<8x64x64xf32>
        %15:3 = iree_linalg_ext.online_attention <indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>], decomposition_config = {pv_attrs = {lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.mma_layout<MFMA_F32_16x16x16_F16, col_major = true>, promote_operands = [1], subgroup_basis = [[1, 4, 1, 1, 1], [0, 1, 2, 4]]}>}, qk_attrs = {lowering_config = #iree_gpu.lowering_config<{mma_kind = #iree_gpu.virtual_mma_layout<VMFMA_F32_16x16x32_F16, col_major = true>, promote_operands = [0, 1], subgroup_basis = [[1, 4, 1, 1, 1], [0, 1, 3, 4]]}>}}> {lowering_config = #iree_gpu.lowering_config<{promote_operands = [0, 1, 2], reduction = [0, 0, 0, 0, 64], workgroup = [1, 64, 64, 0, 0]}>} ins(%6, %7, %7, %cst : tensor<8x64x64xf16>, tensor<8x64x64xf16>, tensor<8x64x64xf16>, f32) outs(%0 : tensor<8x64x64xf32>) {
        }
        return
      }
    }
  }
}
"""
SDPA_SOURCE = "%0 = torch.aten.scaled_dot_product_attention %arg0, %arg1, %arg2 : ...\n"


def test_an_attention_configuration_is_read_as_small_json():
    config = read_configuration(DUMP)
    assert config["dispatch"] == "attention_8x64x64x64x64"
    assert (config["pipeline"], config["workgroup_size"], config["subgroup_size"]) == \
        ("#iree_gpu.pipeline<VectorDistribute>", [256, 1, 1], 64)
    assert config["lowering_config"] == {"promote_operands": "[0, 1, 2]", "reduction": "[0, 0, 0, 0, 64]",
                                         "workgroup": "[1, 64, 64, 0, 0]"}
    assert config["qk"]["subgroup_basis"] == "[[1, 4, 1, 1, 1], [0, 1, 3, 4]]"
    assert config["mma"] == ["MFMA_F32_16x16x16_F16", "VMFMA_F32_16x16x32_F16"]
    assert read_configuration(DUMP.replace("iree_linalg_ext.online_attention", "linalg.generic")) is None


def _item(config: dict, verdict: str = "PASS") -> ItemRecord:
    return ItemRecord(case="attention::mask=none", item="hip-O3", outcome="pass", verdict=verdict,
                      target="hip", opt_level="O3",
                      stages=[StageResult("compile", OK), StageResult("configure", OK, data={"configurations": [config]})])


def test_a_configuration_change_is_listed_apart_and_does_not_gate():
    """A planted change (other workgroup tiles) shows in report --previous as information."""
    before = read_configuration(DUMP)
    after = read_configuration(DUMP.replace("workgroup = [1, 64, 64, 0, 0]", "workgroup = [1, 128, 64, 0, 0]"))
    assert changes([before], [after]) == [("attention_8x64x64x64x64", "lowering_config",
                                           "{promote_operands = [0, 1, 2], reduction = [0, 0, 0, 0, 64], workgroup = [1, 64, 64, 0, 0]}",
                                           "{promote_operands = [0, 1, 2], reduction = [0, 0, 0, 0, 64], workgroup = [1, 128, 64, 0, 0]}")]
    diff = diff_runs([_item(before)], [_item(after)])
    assert [(c.key, c.field) for c in diff.config_changes] == [("attention::mask=none::hip-O3", "lowering_config")]
    assert not diff.regressed
    assert diff_runs([_item(before)], [_item(before)]).config_changes == []


def _settings(tmp_path: Path, toolchain) -> Settings:
    return Settings(toolchain=toolchain, cache=Cache(tmp_path / "cache"))


def _compiled(tmp_path: Path, configs: list[dict], dump: str | None = None) -> Path:
    vmfb = tmp_path / "entry" / "module.vmfb"
    (vmfb.parent / "configurations").mkdir(parents=True)
    if dump:
        (vmfb.parent / "configurations" / "configured_module_main$async_dispatch_0.mlir").write_text(dump)
    return vmfb


def test_an_attention_op_with_no_configured_dispatch_fails(tmp_path, fake_tools):
    """A planted loss: the source computes attention, the compile configured none."""
    from harness.toolchain import from_tools_dir

    mlir = tmp_path / "model.mlir"
    mlir.write_text(SDPA_SOURCE)
    settings = _settings(tmp_path, from_tools_dir(fake_tools))
    lost = configure_stage(mlir, StageResult("compile", OK, data={"configurations": []}),
                           _compiled(tmp_path, []), settings)
    assert lost.status == FAILED and "no dispatch holds a configured attention op" in lost.detail
    assert outcome_of([StageResult("compile", OK), lost]) == "configure-fail"
    # No attention in the program: the compile recorded nothing, and there is nothing to say.
    assert configure_stage(mlir, StageResult("compile", OK, data={}), tmp_path / "entry" / "module.vmfb",
                           settings) is None
    # The partial compile that dumps the configurations failed: said, never a pass.
    broke = configure_stage(mlir, StageResult("compile", OK, data={"configurations_error": "error: boom"}),
                            tmp_path / "entry" / "module.vmfb", settings)
    assert broke.status == FAILED and "error: boom" in broke.detail


def test_a_tuning_attribute_left_by_the_strip_pass_fails(tmp_path, fake_tools):
    """A planted #20053: an iree-opt whose strip pass strips nothing."""
    from harness.toolchain import from_tools_dir

    mlir = tmp_path / "model.mlir"
    mlir.write_text(SDPA_SOURCE)
    configs = [read_configuration(DUMP)]
    stage = configure_stage(mlir, StageResult("compile", OK, data={"configurations": configs}),
                            _compiled(tmp_path, configs, DUMP), _settings(tmp_path, from_tools_dir(fake_tools)))
    assert stage.status == FAILED
    assert "left lowering_config, qk_attrs, pv_attrs on the attention op" in stage.detail
    assert "iree-org/iree#20053" in stage.detail


SDPA_MODEL = """
import torch

class Model(torch.nn.Module):
    def forward(self, q, k, v):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)

def example_inputs():
    return tuple(torch.randn(2, 4, 64, 64, dtype=torch.float16) for _ in range(3))
"""


def test_a_real_hip_compile_records_its_configuration_and_the_real_strip_pass_strips_it(tmp_path):
    from harness.importers import export_mlir
    from harness.stages import compile_stage
    from harness.targets import compile_flags

    (tmp_path / "model.py").write_text(SDPA_MODEL)
    mlir = tmp_path / "model.mlir"
    mlir.write_text(export_mlir(tmp_path / "model.py"))
    settings = _settings(tmp_path, resolve())
    flags = compile_flags("hip", "O3", settings.toolchain.release)
    compiled, vmfb = compile_stage(mlir, flags, settings, configurations=True)
    assert compiled.ok, compiled.detail
    [config] = compiled.data["configurations"]
    assert config["dispatch"].startswith("attention_") and config["mma"] and config["lowering_config"]
    assert "--iree-hal-dump-executable-configurations-to" not in compiled.command  # the user's command
    # Diagnostics still point into the program: the dump is a second, partial compile.
    # (With the dump flag on the item's own compile, this codegen failure is located in
    # configured_module_main$async_dispatch_0.mlir instead: measured on 3.13.0.)
    no_vector_distribution = [*flags, "--iree-codegen-llvmgpu-use-vector-distribution=false"]
    failed, _ = compile_stage(mlir, no_vector_distribution, settings, configurations=True)
    assert not failed.ok and "failed to run translation" in failed.detail
    assert f"{mlir}:" in failed.detail and "configured_module" not in failed.detail
    stage = configure_stage(mlir, compiled, vmfb, settings)
    assert (stage.status, stage.detail) == (OK, "")
    assert stage.data["configurations"] == [config]
