"""The first phase where two releases part ways, from two fake phase dumps."""

from harness.triage.phases import first_difference, normalise, phases


def dump(folder, files):
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


GOOD = {
    "m.1.input.mlir": "func.func @main(%arg0: tensor<4xf32>) loc(#loc1)\n#loc1 = loc(\"m.mlir\":1:1)\n",
    "m.2.abi.mlir": "%0 = arith.addf %arg0, %arg0 : tensor<4xf32> loc(\"m.mlir\":2:8)\n",
    "m.4.global-optimization.mlir": "%t = linalg.transpose ins(%x) permutation = [1, 0]\n",
    "m.5.dispatch-creation.mlir": "flow.dispatch.region { linalg.generic }\n",
}


def test_locations_ssa_names_and_host_features_do_not_count():
    a = 'hal.executable.target<"llvm-cpu", {cpu_features = "+avx2,+fma"}> %arg7 = op loc("x":1:2) // note'
    b = 'hal.executable.target<"llvm-cpu", {cpu_features = "+avx512f"}> %12 = op loc(callsite("y":3:4))'
    assert normalise(a) == normalise(b)


def test_names_the_first_phase_that_differs(tmp_path):
    good = dump(tmp_path / "good", GOOD)
    bad = dump(tmp_path / "bad", {**GOOD,
               # noise only: other SSA names and locations
               "m.2.abi.mlir": "%7 = arith.addf %a, %a : tensor<4xf32> loc(\"other.mlir\":9:9)\n",
               # the real change: the transpose is no longer propagated
               "m.4.global-optimization.mlir": "%t = linalg.transpose ins(%x) permutation = [0, 1]\n",
               "m.5.dispatch-creation.mlir": "flow.dispatch.region { linalg.transpose }\n"})
    assert [name for _, name, _ in phases(good)] == ["input", "abi", "global-optimization", "dispatch-creation"]
    d = first_difference(good, bad)
    assert (d.phase, d.order) == ("global-optimization", 4)
    assert any(line.startswith("-") and "[1, 0]" in line for line in d.diff)
    assert any(line.startswith("+") and "[0, 1]" in line for line in d.diff)


def test_a_release_that_stopped_early_is_named_and_equal_dumps_agree(tmp_path):
    good = dump(tmp_path / "good", GOOD)
    short = dump(tmp_path / "short", {k: v for k, v in GOOD.items() if ".5." not in k})
    assert first_difference(good, short).missing.startswith("only the good release dumped dispatch-creation")
    assert first_difference(good, dump(tmp_path / "same", GOOD)).phase == ""


def test_dump_phases_of_a_real_compile(tmp_path):
    """The real iree-compile writes one file per phase, which `phases` reads in order."""
    from harness import toolchain
    from harness.triage.phases import dump_phases

    try:
        tc = toolchain.installed()
    except toolchain.ToolchainError as e:
        import pytest
        pytest.skip(str(e))
    mlir = tmp_path / "add.mlir"
    mlir.write_text("func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                    "  %0 = arith.addf %a, %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n")
    flags = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
             "--iree-llvmcpu-target-cpu=generic"]
    assert dump_phases(tc, mlir, flags, tmp_path / "dump").ok
    names = [name for _, name, _ in phases(tmp_path / "dump")]
    assert names[0] == "input" and "global-optimization" in names and names[-1] == "vm"
    assert first_difference(tmp_path / "dump", tmp_path / "dump").phase == ""
