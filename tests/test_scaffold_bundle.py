"""new-case scaffolding and reproducer
bundles run with the runtime alone. The bundle test uses the real installed IREE on
a two-line program (about 5 s: one compile, one torch start)."""

import textwrap

import numpy as np
import pytest

from harness.case import load_case
from harness.cli import main as cli_main
from harness.scaffold import ScaffoldError, new_case

ADD_MLIR = """func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
ADD_REFERENCE = """import torch
def example_inputs():
    g = torch.Generator().manual_seed(0)
    return torch.randn(4, generator=g), torch.randn(4, generator=g)
def reference(a, b):
    return a + b
"""


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("IREE_REGRESS_CACHE", str(tmp_path / "cache"))
    (tmp_path / "cases").mkdir()
    (tmp_path / "add.mlir").write_text(ADD_MLIR)
    (tmp_path / "ref.py").write_text(ADD_REFERENCE)
    return tmp_path


def test_new_case_from_mlir_writes_a_loadable_case_with_goldens(workspace):
    d = new_case(workspace / "cases", "add-case", ["iree-org/iree#1"], "adds two tensors",
                 from_mlir=workspace / "add.mlir", reference=workspace / "ref.py")
    case = load_case(d / "case.toml")  # requires the goldens it wrote
    assert case.kind == "numeric" and case.function == "main"
    # a reproducer naming no target gets cpu alone; its ops say no family
    assert case.targets == ("cpu",) and len(case.opt_levels) == 4 and case.family == "other"
    a, b = (np.load(d / "inputs" / f"input{i}.npy") for i in range(2))
    np.testing.assert_array_equal(np.load(d / "expected" / "output0.npy"), a + b)
    assert "iree-org/iree#1" in (d / "README.md").read_text()


def test_new_case_with_no_inputs_and_a_util_func_entry_point(workspace):
    (workspace / "const.mlir").write_text(
        "util.func public @const4() -> tensor<4xf32> {\n"
        "  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>\n"
        "  util.return %c : tensor<4xf32>\n}\n")
    (workspace / "const_ref.py").write_text(
        "import torch\ndef example_inputs():\n    return ()\n"
        "def reference():\n    return torch.tensor([1.0, 2.0, 3.0, 4.0])\n")
    d = new_case(workspace / "cases", "no-inputs", ["iree-org/iree#1"], from_mlir=workspace / "const.mlir",
                 reference=workspace / "const_ref.py")
    case = load_case(d / "case.toml")  # a numeric case with no inputs is valid
    assert case.function == "const4"
    assert not list((d / "inputs").glob("*.npy")) and len(list((d / "expected").glob("*.npy"))) == 1


def test_new_case_from_torch_aliases_the_class(workspace):
    (workspace / "m.py").write_text(textwrap.dedent("""
        import torch
        class Doubler(torch.nn.Module):
            def forward(self, x):
                return x * 2
        def example_inputs():
            return (torch.ones(3),)
    """))
    d = new_case(workspace / "cases", "doubler", ["iree-org/iree#2"], from_torch=f"{workspace / 'm.py'}:Doubler")
    assert "Model = Doubler" in (d / "model.py").read_text()
    assert load_case(d / "case.toml").family == "other"
    np.testing.assert_array_equal(np.load(d / "expected" / "output0.npy"), np.full(3, 2.0, np.float32))


@pytest.mark.parametrize("kwargs,message", [
    ({"slug": "Bad Slug"}, "slug"),
    ({"issues": ["#12"]}, "owner/repo#N"),
    ({"from_mlir": None}, "exactly one"),
])
def test_new_case_rejects_bad_arguments(workspace, kwargs, message):
    args = {"cases_dir": workspace / "cases", "slug": "ok-slug", "issues": ["iree-org/iree#1"],
            "from_mlir": workspace / "add.mlir"} | kwargs
    with pytest.raises(ScaffoldError, match=message):
        new_case(**args)
    assert not (workspace / "cases" / "ok-slug").exists()


def test_repro_bundle_runs_with_the_runtime_alone(workspace, capsys):
    new_case(workspace / "cases", "add-case", ["iree-org/iree#1"], from_mlir=workspace / "add.mlir",
             reference=workspace / "ref.py")
    out = workspace / "bundle"
    assert cli_main(["repro", "add-case::cpu-O0", "--out", str(out)]) == 0
    for name in ("input.mlir", "module.vmfb", "run.sh", "run_bundle.py", "compare.py", "bundle.json",
                 "ISSUE.md", "inputs/input1.npy", "expected/output0.npy"):
        assert (out / name).is_file(), name
    run_sh = (out / "run.sh").read_text()
    assert "input.mlir --iree-hal-target-device=local" in run_sh and "--device=local-task" in run_sh
    issue = (out / "ISSUE.md").read_text()
    assert "## Steps to reproduce" in issue and "iree-compile input.mlir" in issue
    assert cli_main(["run-bundle", str(out)]) == 0
    np.save(out / "expected" / "output0.npy", np.zeros(4, np.float32))  # now the numbers disagree
    assert cli_main(["run-bundle", str(out)]) == 1
    assert "compare-fail" in capsys.readouterr().out


def test_issue_md_steps_run_as_pasted_in_an_empty_folder(workspace):
    """Paste ISSUE.md's steps into an empty folder holding only the release's packages (a
    venv as the steps' pip line makes it): they write, compile, run and compare."""
    import subprocess
    import sys

    from harness.toolchain import installed

    new_case(workspace / "cases", "add-case", ["iree-org/iree#1"], from_mlir=workspace / "add.mlir",
             reference=workspace / "ref.py")
    out = workspace / "bundle"
    assert cli_main(["repro", "add-case::cpu-O0", "--out", str(out)]) == 0
    issue = (out / "ISSUE.md").read_text()
    assert "IREE 3.13.0 (3.13.0rc" in issue.splitlines()[0]  # the pip version first
    steps = issue.split("## Steps to reproduce", 1)[1].split("```sh\n", 1)[1].split("\n```", 1)[0]
    empty = workspace / "elsewhere"
    tc = installed()
    venv = empty / f"iree-{tc.release}" / "bin"
    venv.mkdir(parents=True)
    for name, tool in (("iree-compile", tc.compile), ("iree-run-module", tc.run_module)):
        (venv / name).symlink_to(tool)
    (venv / "python").symlink_to(sys.executable)
    done = subprocess.run(["bash", "-c", steps], cwd=empty, capture_output=True, text=True, timeout=300)
    assert f"IREE {tc.release}: output 0: 0/4 elements differ from the reference's" in done.stdout, \
        done.stdout + done.stderr


def test_a_compile_only_bundle_is_never_written_up_as_a_pass(workspace):
    new_case(workspace / "cases", "add-case", ["iree-org/iree#1"], from_mlir=workspace / "add.mlir",
             reference=workspace / "ref.py", targets=["cpu", "hip"])
    out = workspace / "hip-bundle"
    assert cli_main(["repro", "add-case::hip-O0", "--out", str(out)]) == 0
    issue = (out / "ISSUE.md").read_text()
    assert issue.splitlines()[0].startswith("# ") and ": compiles; to be run on the device (" in issue.splitlines()[0]
    assert "it was not run here (compile-only: no hip device here)" in issue and "passes" not in issue.splitlines()[0]


def test_bundles_run_elsewhere_become_results_that_replace_compile_only_ones(workspace):
    """The device machine's run of a bundle is a results line judged like the suite's,
    and merging it with the compiling run's results shows the item as run."""
    import json

    from harness.record import ItemRecord
    from harness.results import ResultsWriter, merge_results, read_results

    new_case(workspace / "cases", "add-case", ["iree-org/iree#1"], from_mlir=workspace / "add.mlir",
             reference=workspace / "ref.py")
    out = workspace / "bundle"
    assert cli_main(["repro", "add-case::cpu-O0", "--out", str(out)]) == 0
    assert cli_main(["run-bundle", str(out), "--results", str(workspace / "gpu.jsonl")]) == 0
    _, (ran,) = read_results(workspace / "gpu.jsonl")
    assert (ran.key, ran.outcome, ran.verdict, ran.compile_only) == ("add-case::cpu-O0", "pass", "PASS", False)
    np.save(out / "expected" / "output0.npy", np.zeros(4, np.float32))
    assert cli_main(["run-bundle", str(out), "--results", str(workspace / "bad.jsonl")]) == 1
    _, (wrong,) = read_results(workspace / "bad.jsonl")
    assert (wrong.outcome, wrong.verdict) == ("compare-fail", "FAIL")

    compiled = ResultsWriter(workspace / "compiled.jsonl")
    compiled.start({"environment": {}})
    compiled.append(ItemRecord(case="add-case", item="cpu-O0", outcome="pass", verdict="PASS",
                               compile_only=True))
    warnings = []
    for order in ([workspace / "compiled.jsonl", workspace / "bad.jsonl"],
                  [workspace / "bad.jsonl", workspace / "compiled.jsonl"]):
        _, items = merge_results(order, warnings.append)
        assert [(i.outcome, i.compile_only) for i in items] == [("compare-fail", False)]
    assert warnings == [] and json.loads((workspace / "bad.jsonl").read_text().splitlines()[0])["type"] == "run"


def test_new_case_takes_family_and_targets_from_the_program(workspace):
    (workspace / "hip.mlir").write_text(
        "// iree-compile --iree-hal-target-device=hip --iree-hip-target=gfx942 hip.mlir\n"
        "func.func @main(%a: tensor<4x8xf32>) -> tensor<8x4xf32> {\n"
        "  %e = tensor.empty() : tensor<8x4xf32>\n"
        "  %t = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 0]\n"
        "  return %t : tensor<8x4xf32>\n}\n")
    d = new_case(workspace / "cases", "hip-transpose", ["iree-org/iree#3"], from_mlir=workspace / "hip.mlir")
    case = load_case(d / "case.toml")
    assert (case.family, case.targets) == ("transpose", ("hip",))
    d = new_case(workspace / "cases", "told", ["iree-org/iree#3"], from_mlir=workspace / "hip.mlir",
                 family="other", targets=["cpu", "vulkan"])
    assert (load_case(d / "case.toml").family, load_case(d / "case.toml").targets) == ("other", ("cpu", "vulkan"))
    with pytest.raises(ScaffoldError, match="not a target"):
        new_case(workspace / "cases", "bad-target", ["iree-org/iree#3"], from_mlir=workspace / "hip.mlir",
                 targets=["tpu"])
