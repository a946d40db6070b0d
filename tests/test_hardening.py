"""Hardening: the cache is trusted only as far as it verifies, modules are checked by
the runtime's loader, bounds are not cached, concurrent runs keep their results, and
cases that reach outside themselves are refused. Each test plants one probe of the
hardening issue (fake tools and crafted cases) and checks the run ends with a correct,
recorded result."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from harness.cache import FORMAT, Cache, CacheWarning
from helpers import (IDENTITY_INPUT, MLIR_BODY, compile_case, numeric_case, plugin_args,
                     results_by_item, write_case)


class Runs:
    def __init__(self, pytester, tools):
        self.pytester, self.tools = pytester, tools
        self.cases = pytester.path / "cases"
        self.cache = pytester.path / "cache"
        self.n = 0

    def run(self, *args):
        self.n += 1
        reports = self.pytester.path / f"reports{self.n}"
        result = self.pytester.runpytest(*plugin_args(self.tools, self.cache, reports), "cases", *args)
        return result, results_by_item(reports)[1]

    def entries(self, kind):
        return sorted(p for p in (self.cache / FORMAT / kind).iterdir() if not p.name.startswith("."))


@pytest.fixture
def runs(pytester, fake_tools):
    return Runs(pytester, fake_tools)


KNOWN_BUG = {"targets": ["cpu"], "compiler": ">=3.0", "outcome": "compare-fail",
             "match": "output 0: 6/6 elements differ", "reason": "the fake module adds one"}


def planted(runs, kind, plant):
    """Run once, damage every entry of `kind`, run again: the second run's records."""
    runs.run()
    for entry in runs.entries(kind):
        plant(entry)
    result, items = runs.run()
    assert "CacheWarning" in result.stdout.str() and "discarded cache entry" in result.stdout.str()
    return items


@pytest.mark.parametrize("plant", [
    lambda e: (e / "module.vmfb").write_bytes((e / "module.vmfb").read_bytes()[:100]),
    lambda e: (e / "module.vmfb").write_bytes(b""),
    lambda e: (e / "meta.json").write_text('{"result": {"sta'),
], ids=["module-truncated-100B", "module-emptied", "meta-truncated"])
def test_a_damaged_compile_entry_is_rebuilt_not_believed(runs, plant):
    numeric_case(runs.cases, "bug", run="wrong", expect=[KNOWN_BUG])
    items = planted(runs, "compile", plant)
    assert items["bug::cpu-O0"]["verdict"] == "XFAIL"  # the known bug, not a run failure


@pytest.mark.parametrize("plant", ["golden", "zeros", "truncated"])
def test_a_tampered_run_output_is_rebuilt_not_believed(runs, plant):
    """Overwriting the cached output with the golden would have made the known bug an
    UNEXPECTED PASS; with zeros, a new compare failure blamed on the compiler."""
    numeric_case(runs.cases, "bug", run="wrong", expect=[KNOWN_BUG])

    def damage(entry):
        out = entry / "out0.npy"
        if plant == "golden":
            np.save(out, IDENTITY_INPUT)
        elif plant == "zeros":
            np.save(out, np.zeros_like(IDENTITY_INPUT))
        else:
            out.write_bytes(out.read_bytes()[:20])
    items = planted(runs, "run", damage)
    assert items["bug::cpu-O0"]["verdict"] == "XFAIL"


def test_another_cases_module_swapped_in_is_foreign(runs):
    numeric_case(runs.cases, "one", run="wrong", expect=[KNOWN_BUG])
    numeric_case(runs.cases, "two", run="identity")
    runs.run()
    a, b = runs.entries("compile")
    (a / "module.vmfb").write_bytes((b / "module.vmfb").read_bytes())
    result, items = runs.run()
    assert "module.vmfb does not match its digest" in result.stdout.str()
    assert items["one::cpu-O0"]["verdict"] == "XFAIL" and items["two::cpu-O0"]["verdict"] == "PASS"


def test_cache_lookup_verifies_key_and_digests(tmp_path):
    cache = Cache(tmp_path)
    entry = cache.store("torch", "k", {"result": {}}, {"model.mlir": b"module {}", "eager0.npy": b"x"})
    assert cache.lookup("torch", "k") == entry
    other = cache.store("torch", "k2", {"result": {}}, {"model.mlir": b"module {}"})
    (entry / "meta.json").write_text((other / "meta.json").read_text())  # a foreign entry
    with pytest.warns(CacheWarning, match="not this entry's"):
        assert cache.lookup("torch", "k") is None
    assert not entry.exists() and cache.discarded == 1
    entry = cache.store("torch", "k", {"result": {}}, {"model.mlir": b"module {}"})
    (entry / "model.mlir").write_text("module { truncated")
    with pytest.warns(CacheWarning, match="model.mlir does not match its digest"):
        assert cache.lookup("torch", "k") is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cache.lookup("torch", "missing") is None  # absent is not a warning


def test_an_oom_under_a_small_bound_is_not_served_under_a_larger_one(runs):
    compile_case(runs.cases, "hog", "oom")
    _, items = runs.run("--compile-memory-mb", "200")
    assert items["hog::cpu-O0"]["outcome"] == "compile-oom"
    assert not any((runs.cache / FORMAT / "compile").glob("*/meta.json"))  # nothing cached


def test_a_module_the_runtime_cannot_load_is_garbage_at_compile(runs):
    compile_case(runs.cases, "zip", "zip-garbage")
    _, items = runs.run()
    stage = next(s for s in items["zip::cpu-O0"]["stages"] if s["stage"] == "compile")
    assert items["zip::cpu-O0"]["outcome"] == "compile-garbage"
    assert "the module does not load (iree-dump-module" in stage["detail"]


def test_a_run_that_hangs_is_bounded_by_run_timeout(runs):
    numeric_case(runs.cases, "sleepy", run="hang")
    _, items = runs.run("--run-timeout", "1")
    assert items["sleepy::cpu-O0"]["outcome"] == "run-timeout"


def test_a_shared_entry_speaks_of_the_readers_own_path(runs):
    text = "// FAKE: error\n" + MLIR_BODY
    for slug in ("first", "second"):
        write_case(runs.cases, slug, {"title": "t", "kind": "compile", "issues": ["iree-org/iree#1"],
                                      "source": {"mlir": "model.mlir"},
                                      "matrix": {"targets": ["cpu"], "opt_levels": ["O0"]}},
                   {"model.mlir": text})
    _, items = runs.run("-p", "no:xdist")
    for slug in ("first", "second"):
        stage = next(s for s in items[f"{slug}::cpu-O0"]["stages"] if s["stage"] == "compile")
        assert f"cases/{slug}/model.mlir" in stage["detail"]
        other = "second" if slug == "first" else "first"
        assert f"cases/{other}/" not in stage["detail"] + stage["log"]


def test_two_runs_at_once_keep_their_own_results(tmp_path, fake_tools):
    """Each run writes reports/runs/<run id>.jsonl; results.jsonl links to the newest."""
    import json
    import subprocess
    import sys

    cases = tmp_path / "cases"
    for slug in ("a", "b", "c"):
        compile_case(cases, slug)
    reports = tmp_path / "reports"
    argv = [sys.executable, "-m", "pytest", *plugin_args(fake_tools, tmp_path / "cache", reports), "cases"]
    procs = [subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.DEVNULL) for _ in range(2)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    runs = sorted((reports / "runs").glob("*.jsonl"))
    assert len(runs) == 2
    for run in runs:
        lines = [json.loads(line) for line in run.read_text().splitlines()]
        run_id = lines[0]["run_id"]
        assert run.stem == run_id and lines[0]["type"] == "run"
        assert sorted(r["case"] for r in lines[1:]) == ["a", "b", "c"]  # all of its own, only its own
        assert {r["run_id"] for r in lines[1:]} == {run_id}
    assert (reports / "results.jsonl").resolve() in [r.resolve() for r in runs]


HOSTILE_NAMES = ['x"><img src=x onerror=alert(1)>', "evil\nrm -rf ~"]


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=["html", "newline"])
def test_a_case_named_to_inject_is_refused_and_reported_escaped(runs, name, tmp_path):
    from harness.cli import main as cli_main

    compile_case(runs.cases, name)
    _, items = runs.run()
    (record,) = items.values()
    assert record["outcome"] == "collect-error" and "is not a slug" in record["message"]
    out = tmp_path / "report"
    assert cli_main(["report", str(runs.pytester.path / f"reports{runs.n}" / "results.jsonl"),
                     "--out", str(out)]) == 0
    page = (out / "report.html").read_text()
    assert "<img src=x" not in page
    assert ("&lt;img src=x" in page) == ("<img" in name)
    # Outside code blocks, one line per entry whatever the name; nothing closes a fence.
    prose, fenced = [], False
    for line in (out / "summary.md").read_text().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            prose.append(line)
    assert not any(line.startswith("rm -rf") for line in prose)


def test_repro_out_refuses_a_folder_it_did_not_write(tmp_path, monkeypatch):
    from harness.bundle.write import refuse_foreign

    precious = tmp_path / "mine"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work")
    with pytest.raises(ValueError, match="holds files a bundle does not write \\(thesis.tex\\)"):
        refuse_foreign(precious, force=False)
    assert (precious / "thesis.tex").exists()
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "run.sh").write_text("#!/bin/sh\n")
    (bundle / "inputs").mkdir()
    refuse_foreign(bundle, force=False)  # an earlier bundle is replaced
    assert not bundle.exists()
    refuse_foreign(precious, force=True)
    assert not precious.exists()


def test_a_bundle_script_gets_one_comment_line_whatever_the_header(tmp_path):
    from harness.bundle.write import _run_sh

    script = _run_sh(["input.mlir", "-o", "module.vmfb"], None, "case\ntouch /tmp/pwned")
    assert "\ntouch" not in script and "# case touch /tmp/pwned" in script


def test_a_tool_writing_a_gigabyte_to_stderr_leaves_the_harness_small():
    """Only a bounded head and tail of a tool's output is ever held (measured: ~15 MB)."""
    import subprocess
    import sys

    # The probe's own peak (VmHWM): ru_maxrss would carry over the forking pytest worker's
    # peak across exec, which is hundreds of MB once torch is loaded in that worker.
    probe = ("import re, sys\n"
             "from harness.process import Bounds, run_bounded\n"
             "chatty = 'import sys\\nb = b\"e\" * (1 << 20)\\nfor _ in range(1024): sys.stderr.buffer.write(b)'\n"
             "r = run_bounded([sys.executable, '-c', chatty], Bounds(timeout_s=120))\n"
             "assert r.ok and len(r.stderr) < 13000, (r.status(), len(r.stderr))\n"
             "status = open('/proc/self/status').read()\n"
             "print(int(re.search(r'VmHWM:\\s+(\\d+) kB', status).group(1)) // 1024)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=180,
                         cwd=str(__import__("pathlib").Path(__file__).resolve().parent.parent))
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.strip()) < 200  # MB resident, for 1024 MB of stderr
