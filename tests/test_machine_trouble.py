"""Machine trouble is never a compiler verdict and never cached: a full disk, a read-only
or unusable cache. With the fake tools (one that reports ENOSPC until the disk is
freed), and with the real compiler on a real, small tmpfs where bubblewrap can make one."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.outcomes import ERROR, INFRA_ERROR
from harness.process import machine_trouble
from helpers import compile_case, results_by_item
from test_cache import Runner

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def runner(pytester, fake_tools, monkeypatch):
    return Runner(pytester, fake_tools, monkeypatch)


@pytest.mark.harness
def test_a_full_disk_is_machine_trouble_and_does_not_survive_freeing_it(runner, monkeypatch):
    compile_case(runner.cases, "full", "disk-full")
    monkeypatch.setenv("IREE_REGRESS_FAKE_DISK_FULL", "1")
    first, items, n = runner.run()
    record = items["full::cpu-O0"]
    assert record["outcome"] == INFRA_ERROR and record["verdict"] == ERROR, record
    assert "machine trouble" in record["message"] and "ENOSPC" in record["message"]
    first.assert_outcomes(failed=1)  # gates as an error, never green, never "compile-crash"
    monkeypatch.delenv("IREE_REGRESS_FAKE_DISK_FULL")
    second, items, n = runner.run()
    assert n == 1  # compiled again: nothing of the full disk was cached
    assert items["full::cpu-O0"]["outcome"] == "pass"
    second.assert_outcomes(passed=1)


@pytest.mark.harness
def test_the_harness_own_enospc_is_machine_trouble(runner, monkeypatch):
    """The harness's own write failing (storing an entry) ends the item as infra-error,
    naming the condition and the path, and leaves no half entry."""
    import errno
    import os

    from harness import cache

    compile_case(runner.cases, "ok")
    real_digest = cache.file_digest

    def full(path):  # the entry's files are written, then the disk is full
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(cache, "file_digest", full)
    _, items, _ = runner.run()
    record = items["ok::cpu-O0"]
    assert record["outcome"] == INFRA_ERROR and "ENOSPC" in record["message"] and "/v2/compile/" in record["message"]
    assert not list((runner.cache / "v2" / "compile").iterdir())  # no half entry left behind
    monkeypatch.setattr(cache, "file_digest", real_digest)
    _, items, n = runner.run()
    assert items["ok::cpu-O0"]["outcome"] == "pass" and n == 1


@pytest.mark.harness
def test_an_unusable_cache_is_said_once_and_the_run_goes_on_uncached(runner, pytester):
    compile_case(runner.cases, "ok")
    compile_case(runner.cases, "ok2")
    runner.cache.write_text("a file, not a folder")
    result, items, n = runner.run()
    result.assert_outcomes(passed=2)
    said = [line for line in result.outlines if "the cache unusable" in line]
    assert len(said) == 1 and str(runner.cache) in said[0] and "uncached" in said[0], result.outlines
    header, _ = results_by_item(pytester.path / f"reports{runner.runs}")
    assert header["environment"]["cache"].startswith("unusable")
    assert n == 2


@pytest.mark.harness
def test_trouble_words_are_read_from_tool_output():
    assert machine_trouble("LLVM ERROR: IO failure on output stream: No space left on device").startswith("ENOSPC")
    assert machine_trouble("error: could not open 'x.o': Read-only file system").startswith("EROFS")
    assert machine_trouble("model.mlir:3:1: error: 'linalg.generic' op expected ...") == ""
    assert machine_trouble("pipe: Too many open files in system").startswith("ENFILE")
    assert machine_trouble("x: Read-only file system", not_the_machine=("EROFS",)) == ""


def _bwrap_with_size() -> str | None:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return None
    probe = subprocess.run([bwrap, "--dev-bind", "/", "/", "--size", "100000", "--tmpfs", "/mnt", "true"],
                           capture_output=True)
    return bwrap if probe.returncode == 0 else None


CASE = """title = "a small matmul"
kind = "compile"
issues = []
found_by = "test"
family = "other"
[source]
mlir = "model.mlir"
[matrix]
targets = ["cpu"]
opt_levels = ["O0"]
"""
MLIR = """func.func @main(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = tensor.empty() : tensor<64x64xf32>
  %c = arith.constant 0.0 : f32
  %1 = linalg.fill ins(%c : f32) outs(%0 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %2 = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%1 : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %2 : tensor<64x64xf32>
}
"""


def test_a_real_full_tmpfs_is_machine_trouble_then_a_pass_once_freed(tmp_path):
    """The real iree-compile on a 3 MB tmpfs filled to the last byte: infra-error; the
    filler deleted, the same cache: compiled again, and a pass."""
    bwrap = _bwrap_with_size()
    if bwrap is None:
        pytest.skip("bubblewrap cannot make a sized tmpfs here")
    case = tmp_path / "cases" / "small-matmul"
    case.mkdir(parents=True)
    (case / "case.toml").write_text(CASE)
    (case / "model.mlir").write_text(MLIR)
    args = " ".join(["-m", "pytest", str(tmp_path / "cases"), "-q", "-p", "harness.plugin", "-p", "no:cacheprovider",
                     "--iree-cache-dir", "/full/cache", "--iree-reports-dir"])
    script = (f"mkdir -p /full/cache/v2/tmp && cat /dev/zero > /full/filler 2>/dev/null; "
              f"cd {ROOT} && {sys.executable} {args} {tmp_path}/r1; rm /full/filler; "
              f"{sys.executable} {args} {tmp_path}/r2; exit 0")
    proc = subprocess.run([bwrap, "--dev-bind", "/", "/", "--size", str(3 << 20), "--tmpfs", "/full", "--",
                           "sh", "-c", script], capture_output=True, text=True, timeout=600)
    assert (tmp_path / "r2" / "results.jsonl").exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    _, first = results_by_item(tmp_path / "r1")
    _, second = results_by_item(tmp_path / "r2")
    full, freed = first["small-matmul::cpu-O0"], second["small-matmul::cpu-O0"]
    assert full["outcome"] == INFRA_ERROR and full["verdict"] == ERROR, full
    assert "ENOSPC" in full["message"] or "No space left" in full["message"]
    assert freed["outcome"] == "pass", freed
    assert not any(s.get("cached") for s in freed["stages"])
