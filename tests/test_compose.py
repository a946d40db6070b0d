"""Generated programs (harness/sweep/compose.py, sweeps/transpose_deep.toml): one family op
inside the ops around it, drawn per seed; flag sets as an axis."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from harness.case import CaseError
from harness.sweep.spec import load_sweep

pytestmark = pytest.mark.harness

SWEEPS = Path(__file__).resolve().parent.parent / "sweeps"


def _builder():
    spec = importlib.util.spec_from_file_location("transpose_deep", SWEEPS / "transpose_deep.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_generated_program_runs_in_pytorch_and_is_the_same_from_its_seed():
    """Well typed by construction: each of the sweep's programs runs eagerly (no variant
    PyTorch rejects); the same id gives the same program; the recipes vary."""
    import torch

    build = _builder().build
    sweep = load_sweep(SWEEPS / "transpose_deep.toml")
    recipes = set()
    for seed in sweep.axes["seed"]:
        program = build({"seed": seed, "flags": "default"})
        assert program.source == build({"seed": seed, "flags": "data_tiling"}).source  # flags: not the program
        scope: dict = {}
        exec(compile(program.source, f"seed-{seed}", "exec"), scope)
        out = scope["Model"]()(*scope["example_inputs"]())
        assert isinstance(out, torch.Tensor), seed
        recipes.add(program.source.splitlines()[0].split(": ", 2)[-1].split(". Drawn")[0])
    assert len(recipes) >= len(sweep.axes["seed"]) * 3 // 4  # the seeds draw different programs
    contexts = " ".join(recipes)
    for context in ("cast", "flatten", "slice", "matmul", "softmax", "gather_mod", "index_add", "scale"):
        assert context in contexts, context


def test_a_flag_set_is_an_axis_spelled_into_each_variant_as_its_flags(tmp_path):
    sweep = load_sweep(SWEEPS / "transpose_deep.toml")
    assert sweep.name == "transpose-deep" and sweep.family == "transpose"
    variant = sweep.find("flags=data_tiling,seed=3")
    assert variant.case_id == "transpose-deep::flags=data_tiling,seed=3"
    assert sweep.flags_of(variant.values()) == ("--iree-opt-data-tiling=true",)
    assert sweep.flags_of(sweep.find("flags=default,seed=3").values()) == ()
    # A flag set that runs a program or names a file is refused as a case's flags are.
    text = (SWEEPS / "transpose_deep.toml").read_text()
    (tmp_path / "transpose_deep.py").write_text((SWEEPS / "transpose_deep.py").read_text())
    bad = text.replace('default = []', 'default = ["--iree-llvmcpu-embedded-linker-path=/bin/sh"]')
    (tmp_path / "transpose_deep.toml").write_text(bad)
    with pytest.raises(CaseError, match=r"flag_sets\.default.*--iree-llvmcpu-embedded-linker-path"):
        load_sweep(tmp_path / "transpose_deep.toml")
    unknown = text.replace('flags = ["default",', 'flags = ["fast",')
    (tmp_path / "transpose_deep.toml").write_text(unknown)
    with pytest.raises(CaseError, match="'fast' is not a flag set"):
        load_sweep(tmp_path / "transpose_deep.toml")
