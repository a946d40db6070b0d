"""Generated programs (harness/sweep/compose.py, sweeps/*_deep.toml): one family op inside
the ops around it, drawn per seed; flag sets as an axis."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from harness.case import CaseError
from harness.sweep.spec import load_sweep

pytestmark = pytest.mark.harness

SWEEPS = Path(__file__).resolve().parent.parent / "sweeps"


DEEP = ("transpose_deep", "topk_deep", "scatter_deep", "attention_deep")
# The contexts each family's programs must reach (docs/survey.md's rows).
CONTEXTS = ("cast", "flatten", "slice", "matmul", "softmax", "gather_mod", "index_add", "scale")


def _builder(name: str):
    spec = importlib.util.spec_from_file_location(name, SWEEPS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", DEEP)
def test_every_generated_program_runs_in_pytorch_and_is_the_same_from_its_seed(name):
    """Well typed by construction: each of the sweep's programs runs eagerly (no variant
    PyTorch rejects); the same id gives the same program; the recipes vary and reach the
    contexts of the survey."""
    import torch

    build = _builder(name).build
    sweep = load_sweep(SWEEPS / f"{name}.toml")
    recipes = set()
    for seed in sweep.axes["seed"]:
        program = build({"seed": seed, "flags": "default"})
        assert program.source == build({"seed": seed, "flags": "data_tiling"}).source  # flags: not the program
        scope: dict = {}
        exec(compile(program.source, f"{name}-{seed}", "exec"), scope)
        with torch.no_grad():
            out = scope["Model"]()(*scope["example_inputs"]())
        assert isinstance(out, torch.Tensor), seed
        recipes.add(program.source.splitlines()[0].split(": ", 2)[-1].split(". Drawn")[0])
    assert len(recipes) >= len(sweep.axes["seed"]) * 3 // 4  # the seeds draw different programs
    contexts = " ".join(recipes)
    for context in CONTEXTS:
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


def test_a_failing_generated_program_is_reduced_to_what_its_failure_needs():
    """sweep reduce: each slot left out in turn, and the dynamic dims; a removal is kept
    only while the item fails the same way. Planted: the 'failure' is a matmul in the
    program; everything else goes, the matmul stays, and a removal that changes the
    failure's message is kept back."""
    from types import SimpleNamespace

    from harness.item import ItemId
    from harness.sweep.reduce import forward_lines, reduce_variant
    from harness.sandbox import probe

    sweep = load_sweep(SWEEPS / "transpose_deep.toml")
    build = _builder("transpose_deep").build
    seed = next(s for s in sweep.axes["seed"] if "torch.matmul" in (src := build({"seed": s}).source)
                and "dynamic dims" in src and forward_lines(build({"seed": s})) >= 4)
    variant = sweep.find(f"flags=default,seed={seed}")

    def failure_of(sweep, variant, program, item, settings):
        if "torch.matmul" not in program.source:
            return "pass", ""
        # static dims give another message: not the same failure, so they stay dynamic
        return "compile-fail", "error: boom" if "dynamic_shapes" in program.source else "error: other"

    settings = SimpleNamespace(sandbox=probe(), toolchain=SimpleNamespace(release="3.13.0"))
    r = reduce_variant(sweep, variant, ItemId("cpu", "O0"), settings, failure_of=failure_of)
    assert "torch.matmul" in r.after.source and "dynamic_shapes" in r.after.source
    assert forward_lines(r.after) < forward_lines(r.before)
    assert "consumer" not in r.dropped and "dynamic" not in r.dropped and r.dropped
    said = dict(r.trials)
    assert said[(*r.dropped, "dynamic")] == "kept: compile-fail error: other"  # another message: kept back
    assert r.by_id.source == build({"seed": seed, "drop": list(r.dropped)}).source  # the id says it all
    assert forward_lines(r.after) <= forward_lines(r.by_id)  # then line by line


def test_the_nightly_share_of_a_generated_sweep_rotates_through_every_seed_in_a_week():
    sweep = load_sweep(SWEEPS / "topk_deep.toml")
    shares = [{v.id for v in sweep.seed_share(k, 7)} for k in range(1, 8)]
    assert set().union(*shares) == {v.id for v in sweep.variants()}
    assert sum(map(len, shares)) == len(sweep.variants())  # each variant on one night only
    grid = load_sweep(SWEEPS / "topk.toml")
    assert grid.seed_share(3, 7) == grid.variants()  # a grid runs whole


def test_a_seed_axis_may_be_a_count_and_a_bad_one_names_its_field(tmp_path):
    text = (SWEEPS / "topk_deep.toml").read_text()
    (tmp_path / "topk_deep.py").write_text((SWEEPS / "topk_deep.py").read_text())
    assert load_sweep(SWEEPS / "topk_deep.toml").axes["seed"] == tuple(range(320))
    for bad, field in [("seed = { count = 0 }", "count"), ("seed = { many = 3 }", "many")]:
        (tmp_path / "topk_deep.toml").write_text(text.replace("seed = { count = 320 }", bad))
        with pytest.raises(CaseError, match=f"topk_deep.toml.*{field}"):
            load_sweep(tmp_path / "topk_deep.toml")
