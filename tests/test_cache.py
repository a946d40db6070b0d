"""The content-addressed cache: a rerun repeats no compile, any change that decides the
artifact recompiles, --no-iree-cache recompiles everything."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cache import FORMAT, Cache, digest, read_meta
from helpers import compile_case, numeric_case, plugin_args, results_by_item, write_case

pytestmark = pytest.mark.harness


class Runner:
    """Runs the plugin in-process on pytester.path/cases with a fixed cache and tools."""

    def __init__(self, pytester, tools: Path, monkeypatch):
        self.pytester = pytester
        self.tools = tools
        self.cases = pytester.path / "cases"
        self.cache = pytester.path / "cache"
        self.compile_log = pytester.path / "compile.log"
        self.run_log = pytester.path / "run.log"
        monkeypatch.setenv("IREE_REGRESS_FAKE_IREE_COMPILE_LOG", str(self.compile_log))
        monkeypatch.setenv("IREE_REGRESS_FAKE_IREE_RUN_LOG", str(self.run_log))
        self.runs = 0

    def compiles(self) -> int:
        return len(self.compile_log.read_text().splitlines()) if self.compile_log.exists() else 0

    def module_runs(self) -> int:
        return len(self.run_log.read_text().splitlines()) if self.run_log.exists() else 0

    def run(self, *args, tools: Path | None = None):
        """One pytest run; returns (RunResult, {item: record}, compiles it made)."""
        self.runs += 1
        reports = self.pytester.path / f"reports{self.runs}"
        before = self.compiles()
        result = self.pytester.runpytest(*plugin_args(tools or self.tools, self.cache, reports),
                                         "cases", *args)
        _, items = results_by_item(reports)
        return result, items, self.compiles() - before


@pytest.fixture
def runner(pytester, fake_tools, monkeypatch):
    return Runner(pytester, fake_tools, monkeypatch)


def outcomes(items):
    return {k: v["outcome"] for k, v in items.items()}


def compile_stage(record):
    return next(s for s in record["stages"] if s["stage"] == "compile")


def test_second_run_compiles_and_runs_nothing(runner):
    compile_case(runner.cases, "ok", matrix={"targets": ["cpu", "hip"], "opt_levels": ["O0", "O1"]})
    compile_case(runner.cases, "error", "error")
    compile_case(runner.cases, "segfault", "segfault")
    numeric_case(runner.cases, "run-crash", "crash")
    first, items1, n1 = runner.run()
    first.assert_outcomes(passed=4, failed=3)
    assert n1 == 7  # 4 ok items + error + segfault + run-crash's compile
    assert runner.module_runs() == 1
    assert not any(compile_stage(r)["cached"] for r in items1.values())

    second, items2, n2 = runner.run()
    assert n2 == 0, runner.compile_log.read_text()
    assert runner.module_runs() == 1  # the run-crash result came from the cache too
    second.assert_outcomes(passed=4, failed=3)
    assert outcomes(items2) == outcomes(items1)
    assert outcomes(items2)["run-crash::cpu-O0"] == "run-crash"
    assert outcomes(items2)["segfault::cpu-O0"] == "compile-crash"
    assert all(compile_stage(r)["cached"] for r in items2.values())
    # A cached failure keeps its diagnosis and its reproducer.
    assert items2["error::cpu-O0"]["message"] == items1["error::cpu-O0"]["message"]
    assert items2["error::cpu-O0"]["reproducer"] == items1["error::cpu-O0"]["reproducer"]
    assert "error: something went wrong" in items2["error::cpu-O0"]["message"]
    assert items2["ok::cpu-O0"]["seconds"] == 0  # nothing ran


def test_changed_input_recompiles_only_that_case(runner):
    a = compile_case(runner.cases, "a", "ok")
    compile_case(runner.cases, "b", "ok")
    _, _, n = runner.run()
    assert n == 2
    with open(a / "model.mlir", "a") as f:
        f.write("// an edit\n")
    _, items, n = runner.run()
    assert n == 1
    assert "/a/model.mlir" in runner.compile_log.read_text().splitlines()[-1]
    assert not compile_stage(items["a::cpu-O0"])["cached"]
    assert compile_stage(items["b::cpu-O0"])["cached"]


def test_changed_case_flags_recompile(runner):
    compile_case(runner.cases, "a", "ok")
    _, _, n = runner.run()
    assert n == 1
    compile_case(runner.cases, "a", "ok", matrix={"targets": ["cpu"], "opt_levels": ["O0"],
                                                  "flags": ["--iree-some-flag=true"]})
    _, items, n = runner.run()
    assert n == 1
    assert "--iree-some-flag=true" in runner.compile_log.read_text().splitlines()[-1]
    compile_case(runner.cases, "a", "ok", matrix={"targets": ["cpu"], "opt_levels": ["O0"],
                                                  "flags": ["--iree-some-flag=true"],
                                                  "target_flags": {"cpu": ["--iree-x=1"]}})
    _, _, n = runner.run()
    assert n == 1
    assert "--iree-x=1" in runner.compile_log.read_text().splitlines()[-1]
    _, _, n = runner.run()
    assert n == 0


def test_other_opt_level_or_arch_recompiles(runner):
    compile_case(runner.cases, "a", "ok", matrix={"targets": ["cpu", "hip"],
                                                  "opt_levels": ["O0", "O1"]})
    _, items, n = runner.run("--opt-level", "O0")
    assert n == 2 and set(items) == {"a::cpu-O0", "a::hip-O0"}
    _, items, n = runner.run("--opt-level", "O0,O1")
    assert n == 2  # only the O1 items are new
    assert all("--iree-opt-level=O1" in l for l in runner.compile_log.read_text().splitlines()[-2:])
    _, _, n = runner.run("--target", "hip", "--hip-arch", "gfx1100")
    assert n == 2  # the hip items, for another chip
    assert "--iree-rocm-target=gfx1100" in runner.compile_log.read_text()
    _, _, n = runner.run("--target", "hip", "--hip-arch", "gfx1100")
    assert n == 0


def test_no_iree_cache_recompiles(runner):
    compile_case(runner.cases, "a", "ok")
    compile_case(runner.cases, "b", "segfault")
    first, items1, n = runner.run()
    assert n == 2
    again, items2, n = runner.run("--no-iree-cache")
    assert n == 2
    again.assert_outcomes(passed=1, failed=1)
    assert outcomes(items2) == outcomes(items1)
    assert not any(compile_stage(r)["cached"] for r in items2.values())


def test_timeouts_are_not_cached(runner):
    compile_case(runner.cases, "hang", "hang")
    _, items, n = runner.run("--compile-timeout", "0.5")
    assert n == 1 and items["hang::cpu-O0"]["outcome"] == "compile-timeout"
    _, items, n = runner.run("--compile-timeout", "0.5")
    assert n == 1 and items["hang::cpu-O0"]["outcome"] == "compile-timeout"


def test_cache_entries_are_complete(runner):
    compile_case(runner.cases, "a", "ok")
    compile_case(runner.cases, "b", "garbage")
    runner.run()
    entries = sorted((runner.cache / FORMAT / "compile").iterdir())
    assert len(entries) == 2 and not any(e.name.startswith(".") for e in entries)
    by_status = {read_meta(e)["result"]["status"]: e for e in entries}
    assert set(by_status) == {"ok", "garbage"}
    assert (by_status["ok"] / "module.vmfb").read_bytes().startswith(b"PK\x03\x04")
    assert not (by_status["garbage"] / "module.vmfb").exists()
    assert "--iree-opt-level=O0" in read_meta(by_status["ok"])["flags"]
    assert list((runner.cache / FORMAT / "tmp").iterdir()) == []  # scratch dirs cleaned up


def test_rebuilt_compiler_with_same_version_is_not_served_from_cache(runner, tmp_path):
    compile_case(runner.cases, "a", "ok")
    _, items, n = runner.run()
    assert items["a::cpu-O0"]["outcome"] == "pass"
    # The same tools dir, rebuilt: iree-compile now fails on everything, same version line.
    compile_tool = runner.tools / "iree-compile"
    text = compile_tool.read_text().replace('mode = m.group(1) if m else "ok"', 'mode = "error"')
    assert text != compile_tool.read_text()
    compile_tool.write_text(text)
    _, items, n = runner.run()
    assert items["a::cpu-O0"]["outcome"] == "compile-fail"


def test_ir_checks_differing_only_in_tool_are_cached_apart(runner):
    write_case(runner.cases, "ir-tools", {
        "title": "ir", "kind": "ir", "issues": ["iree-org/iree#3"],
        "source": {"mlir": "model.mlir"},
        "ir": [{"name": "by-opt", "tool": "iree-opt", "checks": "checks.mlir"},
               {"name": "by-compile", "tool": "iree-compile", "checks": "checks.mlir"}]},
        {"model.mlir": "func.func @main() {\n  return\n}\n",
         "checks.mlir": "// CHECK: produced-by: iree-opt\n"})
    _, items, _ = runner.run()
    assert items["ir-tools::ir-by-opt"]["outcome"] == "pass"
    assert items["ir-tools::ir-by-compile"]["outcome"] == "ir-fail"


# --------------------------------------------------------------------- cache.py units

def test_digest_is_stable_and_sensitive(tmp_path):
    assert digest("compile", ["--a", "--b"], "3.13.0@abc") == \
        digest("compile", ["--a", "--b"], "3.13.0@abc")
    key = digest("compile", ["--a", "--b"], "3.13.0@abc")
    assert len(key) == 32 and int(key, 16) >= 0
    assert digest("compile", ["--b", "--a"], "3.13.0@abc") != key  # flag order matters
    assert digest("compile", ["--a"], "3.13.0@abc") != key
    assert digest("compile", ["--a", "--b"], "3.13.0@abd") != key
    assert digest("ab", "c") != digest("a", "bc")  # parts are delimited
    assert digest({"x": 1, "y": 2}) == digest({"y": 2, "x": 1})
    assert digest(b"bytes") != digest(b"bytez")


def test_digest_known_value():
    # Keys must not depend on the process (no salted hash()) or change between versions of
    # the harness by accident: an existing cache would silently go cold (or worse, collide).
    assert digest("compile", ["--x"]) == "675fb1118c8c9aabcbf3a590d54758dc"


def test_digest_path_counts_by_content(tmp_path):
    a, b = tmp_path / "a.mlir", tmp_path / "b.mlir"
    a.write_text("func.func @main()")
    b.write_text("func.func @main()")
    assert digest("compile", a) == digest("compile", b)  # content, not the name
    key = digest("compile", a)
    b.write_text("func.func @main2()")
    assert digest("compile", b) != key
    a.write_text("func.func @main() ")
    assert digest("compile", a) != key


def test_cache_store_lookup_and_disable(tmp_path):
    cache = Cache(tmp_path / "c")
    assert cache.lookup("compile", "k1") is None
    src = tmp_path / "module.vmfb"
    src.write_bytes(b"PK\x03\x04")
    entry = cache.store("compile", "k1", {"result": {"status": "ok"}},
                        {"module.vmfb": src, "note.txt": b"hello"})
    assert not src.exists()  # moved into the entry
    assert cache.lookup("compile", "k1") == entry
    assert (entry / "module.vmfb").read_bytes() == b"PK\x03\x04"
    assert (entry / "note.txt").read_bytes() == b"hello"
    meta = read_meta(entry)
    assert meta["result"] == {"status": "ok"} and meta["key"] == "compile/k1"
    assert set(meta["files"]) == {"module.vmfb", "note.txt"}  # each with its sha256
    assert (cache.hits, cache.misses) == (1, 1)
    # Storing again replaces the entry whole.
    cache.store("compile", "k1", {"result": {"status": "fail"}}, {})
    assert read_meta(entry)["result"]["status"] == "fail" and not (entry / "note.txt").exists()
    assert [p.name for p in (tmp_path / "c" / FORMAT / "compile").iterdir()] == ["k1"]
    assert Cache(tmp_path / "c", enabled=False).lookup("compile", "k1") is None


def test_a_reader_never_sees_half_an_entry_being_replaced(tmp_path, monkeypatch):
    """A worker that looks an entry up while another replaces it sees the old entry, none
    or the new one: never a half-removed one that it would discard (and remove in turn,
    under the feet of the worker that just stored it)."""
    import harness.cache as cache_module

    cache = Cache(tmp_path)
    cache.store("torch", "k", {"result": {}}, {"a.npy": b"1", "b.npy": b"2"})
    seen = []
    real_rmtree = cache_module.shutil.rmtree

    def removing(path, *args, **kwargs):  # a reader looks while the removal is half done
        for f in sorted(Path(path).rglob("a.npy")):
            f.unlink()
        seen.append(cache.lookup("torch", "k"))
        return real_rmtree(path, *args, **kwargs)

    monkeypatch.setattr(cache_module.shutil, "rmtree", removing)
    entry = cache.store("torch", "k", {"result": {}}, {"a.npy": b"3", "b.npy": b"4"})
    assert seen and cache.discarded == 0
    assert (entry / "a.npy").read_bytes() == b"3" and cache.lookup("torch", "k") == entry


def test_compute_once_yields_the_finished_entry(tmp_path):
    cache = Cache(tmp_path)
    with cache.compute_once("run", "k") as done:
        assert done is None
        cache.store("run", "k", {"result": {}}, {})
    with cache.compute_once("run", "k") as done:
        assert done == cache.entry("run", "k")


def test_cache_root_follows_environment(monkeypatch, tmp_path):
    from harness.cache import cache_root
    monkeypatch.setenv("IREE_REGRESS_CACHE", str(tmp_path / "elsewhere"))
    assert cache_root() == tmp_path / "elsewhere"
    assert Cache().root == tmp_path / "elsewhere"
