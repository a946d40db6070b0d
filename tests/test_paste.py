"""ISSUE.md's steps run as pasted: in an empty folder, with only a release's packages."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from harness.bundle.paste import Indices, PastedRelease, steps

FAKE_COMPILE = """#!/bin/sh
# a fake iree-compile: fails on a program holding "BUG", else writes a module
grep -q BUG "$1" && { echo "$1:1:1: error: failed to bufferize op" >&2; exit 1; }
for a; do case "$prev" in -o) echo module > "$a";; esac; prev="$a"; done
"""
FAKE_RUN = """#!{python}
# a fake iree-run-module: output 0 = input 0 + OFFSET
import sys, numpy as np
args = dict(a[2:].split("=", 1) for a in sys.argv[1:])
x = np.load([a for a in sys.argv if a.startswith("--input=@")][0][9:])
np.save([a for a in sys.argv if a.startswith("--output=@")][0][10:], x + {offset})
"""


def _venv(folder: Path, version: str, offset: float) -> None:
    """What `pip install iree-base-compiler==V iree-base-runtime==V numpy` leaves, faked."""
    bin_ = folder / f"iree-{version}" / "bin"
    bin_.mkdir(parents=True)
    for name, text in (("iree-compile", FAKE_COMPILE), ("iree-run-module", FAKE_RUN.format(python=sys.executable, offset=offset))):
        (bin_ / name).write_text(text)
        (bin_ / name).chmod(0o755)
    (bin_ / "python").symlink_to(sys.executable)




@pytest.mark.harness
def test_the_steps_carry_exact_arrays_each_release_and_compare_per_release(tmp_path):
    small = np.array([[1.5, -0.25], [3.0, 1e-7]], np.float32)
    odd = np.array([np.inf, -np.inf, np.nan, -0.0], np.float32)  # not writable as literals
    large = np.random.default_rng(0).standard_normal((20, 20)).astype(np.float32)  # > inline size
    _venv(tmp_path, "3.4.0", offset=1.0)  # wrong numbers
    _venv(tmp_path, "3.5.0", offset=0.0)
    text = steps("func.func @main() { return }", [PastedRelease("3.4.0", ("--old-spelling",), "has the bug"),
                                                  PastedRelease("3.5.0", ("--new-spelling",), "does not")],
                 "main", "local-task", [small, large, odd], [small], 1e-6, 1e-6)
    assert "--old-spelling" in text.split("# IREE 3.5.0")[0] and "--new-spelling" in text.split("# IREE 3.5.0")[1]
    out = subprocess.run(["bash", "-c", text], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert "IREE 3.4.0: output 0: 4/4 elements differ from PyTorch's" in out.stdout, out.stdout + out.stderr
    assert "IREE 3.5.0: output 0: 0/4 elements differ from PyTorch's" in out.stdout
    np.testing.assert_array_equal(np.load(tmp_path / "input0.npy"), small)  # written exactly,
    np.testing.assert_array_equal(np.load(tmp_path / "input1.npy"), large)  # inline or base64
    np.testing.assert_array_equal(np.load(tmp_path / "input2.npy"), odd)


@pytest.mark.harness
def test_a_compile_error_does_not_stop_the_next_release(tmp_path):
    _venv(tmp_path, "3.4.0", 0.0)
    _venv(tmp_path, "3.5.0", 0.0)
    text = steps({"3.4.0": "// BUG", "3.5.0": "// fixed spelling"},
                 [PastedRelease("3.4.0", (), "has the bug"), PastedRelease("3.5.0", (), "does not")],
                 "main", "local-task", [], None, 0, 0)
    assert "cat > input-3.4.0.mlir" in text and "cat > input-3.5.0.mlir" in text  # per-release spelling
    out = subprocess.run(["bash", "-c", text], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert "IREE 3.4.0: iree-compile failed (exit 1)" in out.stdout and "failed to bufferize" in out.stderr
    assert (tmp_path / "module-3.5.0.vmfb").is_file() and not (tmp_path / "module-3.4.0.vmfb").exists()


@pytest.mark.harness
def test_indices_are_compared_by_the_values_they_select(tmp_path):
    values = np.array([[5.0, 5.0, 1.0]], np.float32)  # a tie: index 0 or 1 both select 5
    _venv(tmp_path, "3.5.0", offset=1.0)  # returns index + 1: [[1]] selects 5 too
    text = steps("", [PastedRelease("3.5.0", (), "")], "main", "local-task",
                 [np.array([[0]], np.int64), values], [np.array([[0]], np.int64)], 0, 0,
                 indices=[Indices(output=0, input=1, axis=-1)])
    out = subprocess.run(["bash", "-c", text], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert "IREE 3.5.0: output 0: 0/1 elements differ" in out.stdout, out.stdout + out.stderr


@pytest.mark.parametrize("ref,release,shows", [
    # wrong numbers: the fold's window (3.4.0-3.5.0)
    ("rank-reducing-store-collapse::cpu-O3", "3.5.0", "IREE 3.5.0: output 0: 19/320 elements differ"),
    # a compile error: the dynamic concat of #21058 on 3.5.0
    ("concat-emplaced-results-swapped::cpu-O1", "3.5.0", "IREE 3.5.0: iree-compile failed (exit 1)"),
    # a compiler crash: the division by zero in limitVectorTileSizes (SIGFPE) on 3.6.0. Not
    # scatter-bubble's segfault: it reads an invalid op, so on another host the same release
    # prints the verifier error instead (exit 1), which its case accepts but a test cannot pin
    ("attention-all-dynamic-cpu-config-crash::cpu-O0", "3.6.0", "IREE 3.6.0: iree-compile failed (exit 136)"),
])
def test_a_repro_issue_runs_as_pasted_in_an_empty_folder(tmp_path, monkeypatch, ref, release, shows):
    """`iree-regress repro` on a release with the bug; its ISSUE.md's steps, pasted into an
    empty folder where only that release's packages are installed, show the bug."""
    from harness.cli import main as cli_main
    from harness.history.releases import ReleaseSource, ReleaseUnavailable, ensure
    from harness.triage.open_bugs import release_venv, sh_block

    try:
        toolchain = ensure(release, ReleaseSource(), log=lambda *a: None)
    except ReleaseUnavailable as e:
        pytest.skip(f"IREE {release} cannot be installed here: {e}")
    bundle = tmp_path / "bundle"
    assert cli_main(["repro", ref, "--release", release, "--out", str(bundle)]) == 0
    issue = (bundle / "ISSUE.md").read_text()
    assert "-fail" not in issue.split("\n", 1)[0] and "-crash" not in issue.split("\n", 1)[0]  # plain title
    empty = tmp_path / "maintainer"
    empty.mkdir()
    release_venv(empty, toolchain)
    out = subprocess.run(["bash", "-c", sh_block(issue)], cwd=empty, capture_output=True, text=True, timeout=600)
    assert shows in out.stdout, out.stdout + out.stderr[-2000:]


@pytest.mark.harness
def test_nan_where_nan_is_expected_and_equal_infinities_are_no_difference(tmp_path):
    """The pasted comparison agrees with compare.py: NaN where the reference has NaN, and
    the same infinity, are matches."""
    values = np.array([np.nan, np.inf, -np.inf, 1.0], np.float32)
    _venv(tmp_path, "3.5.0", offset=0.0)  # returns its input
    text = steps("", [PastedRelease("3.5.0", (), "")], "main", "local-task", [values], [values], 0, 0)
    out = subprocess.run(["bash", "-c", text], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert "IREE 3.5.0: output 0: 0/4 elements differ" in out.stdout, out.stdout + out.stderr


@pytest.mark.harness
def test_steps_pasted_again_never_run_an_earlier_module(tmp_path):
    """Pasted twice into one folder, the second time with a program that does not compile:
    the module the first paste left is not run (nor its outputs compared)."""
    _venv(tmp_path, "3.5.0", offset=0.0)
    values = [np.array([1.0, 2.0], np.float32)]
    release = [PastedRelease("3.5.0", (), "")]
    first = subprocess.run(["bash", "-c", steps("// fine", release, "main", "local-task", values, values, 0, 0)],
                           cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert "IREE 3.5.0: output 0: 0/2 elements differ" in first.stdout, first.stdout + first.stderr
    second = subprocess.run(["bash", "-c", steps("// BUG", release, "main", "local-task", values, values, 0, 0)],
                            cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert "iree-compile failed" in second.stdout and "elements differ" not in second.stdout, second.stdout


@pytest.mark.harness
def test_an_open_bugs_issue_is_checked_as_pasted_and_a_steps_that_show_nothing_say_so(tmp_path):
    """`triage --open --check`: the steps run in an empty folder; only a failing compile,
    run or comparison of the release counts as the bug shown (planted: a comparison that
    finds nothing different)."""
    from types import SimpleNamespace

    from harness.triage.open_bugs import check_as_pasted

    tools = SimpleNamespace(release="3.13.0", compile=Path("/bin/true"), run_module=Path("/bin/true"))
    settings = SimpleNamespace(toolchain=tools)
    issue = tmp_path / "ISSUE.md"

    def said(line, outcome):
        issue.write_text(f"# t\n\n## Steps to reproduce\n\n```sh\n[ -x iree-3.13.0/bin/iree-compile ] && "
                         f"echo '{line}'\n```\n")
        return check_as_pasted(issue, outcome, settings, tmp_path / "empty")

    assert said("IREE 3.13.0: output 0: 3/4 elements differ", "compare-fail") == "shows the bug"
    assert said("IREE 3.13.0: output 0: 0/4 elements differ", "compare-fail").startswith("does not show it")
    assert said("IREE 3.13.0: iree-compile failed (exit 1)", "compile-fail") == "shows the bug"
    assert said("IREE 3.13.0: iree-compile failed (exit 1)", "compare-fail").startswith("does not show it")


@pytest.mark.harness
def test_an_open_bug_that_no_longer_shows_gets_no_report_but_says_so(tmp_path, monkeypatch):
    """Planted: the item of an 'open' bug passes on the release: no ISSUE.md is written for
    it (a report of a bug that is gone), and why is said."""
    from types import SimpleNamespace

    from harness.case import find_case
    from harness.triage import open_bugs

    case = find_case("topk-uint8-compared-as-signed", require_golden=False)
    passing = SimpleNamespace(outcome="pass")
    monkeypatch.setattr(open_bugs, "run_item", lambda *a, **k: passing)
    settings = SimpleNamespace(toolchain=SimpleNamespace(compiler_version="3.99.0"))
    with pytest.raises(ValueError, match="passes on 3.99.0: the bug no longer shows"):
        open_bugs.report(case, tmp_path / "out", settings)
    assert not (tmp_path / "out" / "ISSUE.md").exists()


@pytest.mark.harness
def test_a_bug_that_came_through_onnx_is_contrasted_with_the_torch_path_only_where_that_is_right(monkeypatch):
    """nearest_right for an ONNX case tries the same item through iree-turbine first; where
    the torch path fails too (planted), the contrast is another level, as for any case."""
    from types import SimpleNamespace

    from harness.bug import Bug
    from harness.case import find_case
    from harness.item import ItemId
    from harness.triage import open_bugs

    case = find_case("onnx-sdpa-dynamic-batch-expand-shape-static-dim")
    item = ItemId("cpu", "O0")

    def run(torch_path_right):
        def fake(c, i, settings):
            right = (c.frontend == "torch" and torch_path_right) or (c.frontend == "onnx" and i.opt_level == "O3")
            return SimpleNamespace(outcome="pass" if right else "compile-fail", stages=[], compile_only=False)
        monkeypatch.setattr(open_bugs, "run_item", fake)
        return open_bugs.nearest_right(case, item, Bug.of(case), SimpleNamespace())

    assert "imported by iree-turbine instead of through ONNX is right" in run(torch_path_right=True)
    assert run(torch_path_right=False).startswith("`cpu-O3` on the same release is right")
