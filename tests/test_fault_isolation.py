"""A compiler or runtime that crashes, hangs, eats memory or writes garbage becomes a
recorded outcome of one item; the run goes on.

One pytest run (module-scoped, in a child process) holds every fault as a case, with a
fake toolchain (helpers.py) behind `--iree-tools-dir`; the tests below read its
results.jsonl and terminal output. run_bounded is also tested on its own.
"""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from harness.process import Bounds, run_bounded
from harness.sandbox import NONE_ASKED
from helpers import (FAKE_REVISION, FAKE_VERSION, IDENTITY_INPUT, compile_case, make_toolchain, numeric_case,
                     plugin_args, results_by_item, run_pytest_subprocess, write_case)


COMPILE_TIMEOUT_S = 3

# case slug -> the outcome its one item (cpu-O0) must record
COMPILE_FAULTS = {
    "compile-segfault": ("segfault", "compile-crash"),
    "compile-abort": ("abort", "compile-crash"),
    "compile-assert-exit": ("assert-exit", "compile-crash"),
    "compile-hang": ("hang", "compile-timeout"),
    "compile-oom": ("oom", "compile-oom"),
    "compile-garbage": ("garbage", "compile-garbage"),
    "compile-error": ("error", "compile-fail"),
    "compile-ok": ("ok", "pass"),
}
RUN_FAULTS = {
    "run-crash": ("crash", "run-crash"),
    "run-garbage": ("garbage", "run-garbage"),
    "run-no-outputs": ("nothing", "run-garbage"),
    "run-fail": ("fail", "run-fail"),
    "run-wrong-numbers": ("wrong", "compare-fail"),
    "run-identity": ("identity", "pass"),
}
# slug::item -> (outcome, verdict) for the remaining cases
OTHERS = {
    "expect-crash-xfail::cpu-O0": ("compile-crash", "XFAIL"),
    "expect-crash-match-fails::cpu-O0": ("compile-crash", "FAIL"),
    "expect-crash-got-error::cpu-O0": ("compile-fail", "FAIL"),
    "expect-fail-but-passes::cpu-O0": ("pass", "XPASS"),
    "hip-compile-only::hip-O0": ("pass", "PASS"),
    "ir-checks::ir-finds-main": ("pass", "PASS"),
    "ir-checks::ir-wants-dispatch": ("ir-fail", "FAIL"),
    "ir-checks::ir-old-releases-only": ("skip", "SKIP"),
    "golden-drifted::cpu-O0": ("compare-fail", "FAIL"),
}


class FaultRun:
    def __init__(self, root: Path, tools: Path, reports: Path, result: pytest.RunResult):
        self.root, self.tools, self.reports, self.result = root, tools, reports, result
        self.header, self.items = results_by_item(reports)
        self.out = result.stdout.str()

    def item(self, key: str) -> dict:
        assert key in self.items, f"{key} not in results.jsonl; run output:\n{self.out[-3000:]}"
        return self.items[key]

    def stage(self, key: str, name: str) -> dict:
        return next(s for s in self.item(key)["stages"] if s["stage"] == name)

    def failure_section(self, key: str) -> str:
        """The terminal's failure report for one item (between its ___ header and the next)."""
        slug, item = key.split("::")
        lines = self.out.splitlines()
        start = next(i for i, l in enumerate(lines)
                     if l.startswith("_") and f" {slug}::{item} " in l)
        end = next((i for i in range(start + 1, len(lines))
                    if lines[i].startswith(("___", "===="))), len(lines))
        return "\n".join(lines[start:end])


@pytest.fixture(scope="module")
def fault_run(tmp_path_factory) -> FaultRun:
    root = tmp_path_factory.mktemp("faults")
    tools = make_toolchain(root / "tools")
    cases = root / "cases"
    for slug, (fake, _) in COMPILE_FAULTS.items():
        compile_case(cases, slug, fake)
    for slug, (run, _) in RUN_FAULTS.items():
        numeric_case(cases, slug, run)
    compile_case(cases, "expect-crash-xfail", "segfault",
                 expect=[{"outcome": "compile-crash", "reason": "iree-org/iree#1: known crash"}])
    compile_case(cases, "expect-crash-match-fails", "segfault",
                 expect=[{"outcome": "compile-crash", "match": "failed to bufferize",
                          "reason": "iree-org/iree#1"}])
    compile_case(cases, "expect-crash-got-error", "error",
                 expect=[{"outcome": "compile-crash", "reason": "iree-org/iree#1"}])
    compile_case(cases, "expect-fail-but-passes", "ok",
                 expect=[{"outcome": "compile-fail", "reason": "iree-org/iree#1: still open"}])
    drifted = numeric_case(cases, "golden-drifted", "identity")
    np.save(drifted / "expected" / "output0.npy", IDENTITY_INPUT + 1)  # golden != eager today
    numeric_case(cases, "hip-compile-only", "crash", matrix={"targets": ["hip"],
                                                             "opt_levels": ["O0"]})
    write_case(cases, "ir-checks", {
        "title": "ir checks", "kind": "ir", "issues": ["iree-org/iree#2"],
        "source": {"mlir": "model.mlir"},
        "ir": [{"name": "finds-main", "checks": "checks/main.mlir",
                "args": ["--pass-pipeline=builtin.module(canonicalize)"]},
               {"name": "wants-dispatch", "checks": "checks/dispatch.mlir"},
               {"name": "old-releases-only", "checks": "checks/main.mlir",
                "compiler": "<3.0"}]},
        {"model.mlir": "func.func @main() {\n  return\n}\n",
         "checks/main.mlir": "// CHECK: func.func @main\n// CHECK-NEXT: return\n",
         "checks/dispatch.mlir": "// CHECK: flow.dispatch.workgroups\n"})
    reports = root / "reports"
    result = run_pytest_subprocess(
        root, plugin_args(tools, root / "cache", reports, "--compile-timeout", COMPILE_TIMEOUT_S,
                          "--compile-memory-mb", 300, "cases", "-rA"), timeout=180)
    return FaultRun(root, tools, reports, result)


def test_every_item_is_reported_and_the_run_goes_on(fault_run):
    expected = ({f"{s}::cpu-O0" for s in COMPILE_FAULTS} | {f"{s}::cpu-O0" for s in RUN_FAULTS}
                | set(OTHERS))
    assert set(fault_run.items) == expected, fault_run.out[-3000:]
    fault_run.result.assert_outcomes(passed=4, failed=17, xfailed=1, skipped=1)
    assert fault_run.result.ret == 1  # tests failed; not an internal error or interruption
    assert "INTERNALERROR" not in fault_run.out


def test_results_header_names_the_toolchain(fault_run):
    env = fault_run.header["environment"]
    assert env["compiler_version"] == FAKE_VERSION
    assert env["compiler_revision"] == FAKE_REVISION
    assert env["toolchain"] == f"tools dir {fault_run.tools}"
    assert env["devices"] == {"vulkan": [], "hip": [], "cuda": []}
    assert f"IREE compiler {FAKE_VERSION} @ {FAKE_REVISION}" in fault_run.out  # report header


@pytest.mark.parametrize("slug", COMPILE_FAULTS)
def test_compile_fault_outcome(fault_run, slug):
    record = fault_run.item(f"{slug}::cpu-O0")
    assert record["outcome"] == COMPILE_FAULTS[slug][1], record["stages"]
    assert record["compiler"] == FAKE_VERSION
    assert record["verdict"] == ("PASS" if slug == "compile-ok" else "FAIL")
    assert [s["stage"] for s in record["stages"]] == ["import", "compile"]  # kind compile: no run


def test_compile_fault_details(fault_run):
    stage = lambda slug: fault_run.stage(f"{slug}::cpu-O0", "compile")  # noqa: E731
    assert stage("compile-segfault")["detail"].startswith("crashed (SIGSEGV)")
    abort = stage("compile-abort")
    assert abort["detail"].startswith("crashed (SIGABRT)")
    assert "Assertion `x' failed." in abort["detail"]
    assert "crashed (exit code 1): " in stage("compile-assert-exit")["detail"]
    hang = stage("compile-hang")
    assert hang["seconds"] >= COMPILE_TIMEOUT_S  # it ran to its bound, and was killed by it:
    assert "(time bound)" in hang["detail"]
    oom = stage("compile-oom")
    assert oom["peak_rss_mb"] > 300 and "(memory bound)" in oom["detail"]
    assert "(time bound)" not in oom["detail"]  # killed for memory, not by the clock
    assert "wrote no readable module" in stage("compile-garbage")["detail"]
    error = stage("compile-error")
    assert error["detail"] == ("exit code 1: " + str(fault_run.root / "cases" / "compile-error" /
                               "model.mlir") + ":2:3: error: something went wrong in the fake "
                               "compiler")


@pytest.mark.parametrize("slug", [s for s in COMPILE_FAULTS if s != "compile-ok"])
def test_failing_compile_prints_repro_with_command_and_version(fault_run, slug):
    record = fault_run.item(f"{slug}::cpu-O0")
    command = fault_run.stage(f"{slug}::cpu-O0", "compile")["command"]
    model = fault_run.root / "cases" / slug / "model.mlir"
    assert command.startswith(f"{fault_run.tools / 'iree-compile'} {model} ")
    assert "--iree-hal-target-device=local" in command and "--iree-opt-level=O0" in command
    assert command.endswith("-o module.vmfb")
    bundle = f"iree-regress repro {slug}::cpu-O0 --out {slug}--cpu-O0"
    assert record["reproducer"] == f"{command}   # IREE {FAKE_VERSION}; a bundle with every file: {bundle}"
    section = fault_run.failure_section(f"{slug}::cpu-O0")
    assert f"REPRO: {command}   # IREE {FAKE_VERSION}" in section


@pytest.mark.parametrize("slug", RUN_FAULTS)
def test_run_fault_outcome(fault_run, slug):
    record = fault_run.item(f"{slug}::cpu-O0")
    assert record["outcome"] == RUN_FAULTS[slug][1], record["stages"]
    assert fault_run.stage(f"{slug}::cpu-O0", "compile")["status"] == "ok"


def test_run_fault_details(fault_run):
    crash = fault_run.item("run-crash::cpu-O0")
    run = fault_run.stage("run-crash::cpu-O0", "run")
    assert run["detail"].startswith("crashed (SIGSEGV)")
    # Runs the module.vmfb the compile command wrote where both are pasted.
    assert f"{fault_run.tools / 'iree-run-module'} --module=module.vmfb " in run["command"]
    assert "--device=local-task" in run["command"] and "--function=main" in run["command"]
    assert "--output=@out0.npy" in run["command"]
    assert f"   # IREE {FAKE_VERSION}; a bundle with every file: iree-regress repro " in crash["reproducer"]
    assert " && " in crash["reproducer"]  # compile && run
    assert "REPRO: " in fault_run.failure_section("run-crash::cpu-O0")
    assert "outputs are unreadable" in fault_run.stage("run-garbage::cpu-O0", "run")["detail"]
    assert "fake run failure" in fault_run.stage("run-fail::cpu-O0", "run")["detail"]


def test_wrong_numbers_are_a_compare_failure_with_a_diagnosis(fault_run):
    compare = fault_run.stage("run-wrong-numbers::cpu-O0", "compare")
    assert compare["status"] == "fail"
    # golden and today's eager agree, so one comparison says so
    assert "vs golden (= PyTorch eager today): output 0: 6/6 elements differ" in compare["detail"]
    assert "max abs err 1" in compare["detail"]
    section = fault_run.failure_section("run-wrong-numbers::cpu-O0")
    assert "compare-fail" in section and "6/6 elements differ" in section


def test_identity_case_passes_against_golden_and_eager(fault_run):
    record = fault_run.item("run-identity::cpu-O0")
    assert record["verdict"] == "PASS" and not record["compile_only"]
    assert [s["stage"] for s in record["stages"]] == ["import", "compile", "run", "compare"]
    compare = fault_run.stage("run-identity::cpu-O0", "compare")
    assert compare["detail"] == "vs golden (= PyTorch eager today): 1 output(s) match"


def test_golden_that_drifted_from_pytorch_is_judged_against_both(fault_run):
    compare = fault_run.stage("golden-drifted::cpu-O0", "compare")
    assert compare["status"] == "fail"
    assert compare["detail"].startswith("vs golden: output 0: 6/6 elements differ")
    assert [c["against"] for c in compare["data"]["comparisons"]] == ["golden", "PyTorch eager today"]
    assert compare["data"]["comparisons"][1]["ok"]


@pytest.mark.parametrize("key", OTHERS)
def test_expectations_and_other_outcomes(fault_run, key):
    record = fault_run.item(key)
    assert (record["outcome"], record["verdict"]) == OTHERS[key]


def test_expected_crash_is_xfailed(fault_run):
    assert "XFAIL cases/expect-crash-xfail/case.toml::cpu-O0" in fault_run.out
    assert "compile-crash as expected: iree-org/iree#1: known crash" in fault_run.out


def test_expectation_on_a_passing_item_is_an_unexpected_pass(fault_run):
    section = fault_run.failure_section("expect-fail-but-passes::cpu-O0")
    assert "UNEXPECTED PASS: expected compile-fail (iree-org/iree#1: still open)" in section
    assert "REPRO: " in section


def test_expectation_with_other_outcome_or_unmatched_text_fails(fault_run):
    wrong = fault_run.item("expect-crash-got-error::cpu-O0")["message"]
    assert wrong.startswith("compile-fail (exit code 1")
    assert "but the case expects compile-crash" in wrong
    unmatched = fault_run.item("expect-crash-match-fails::cpu-O0")["message"]
    assert "expects compile-crash matching /failed to bufferize/" in unmatched


def test_compile_only_pass_is_announced(fault_run):
    assert fault_run.item("hip-compile-only::hip-O0")["compile_only"] is True
    assert "1 item(s) passed compile-only" in fault_run.out
    assert "   1 compile-only: no hip device here" in fault_run.out  # counted per reason


def test_ir_failure_shows_filecheck_diagnosis(fault_run):
    stage = fault_run.stage("ir-checks::ir-wants-dispatch", "ir")
    assert stage["detail"].startswith("FileCheck: ")
    assert "flow.dispatch.workgroups" in stage["log"]
    assert " | filecheck " in stage["command"] and "--check-prefix=CHECK" in stage["command"]


def test_junit_xml_is_written_next_to_results(fault_run):
    junit = (fault_run.reports / "junit.xml").read_text()
    assert 'name="cpu-O0"' in junit and "compile-crash" in junit


# ------------------------------------------------------------------- run_bounded itself

def py(code: str) -> list[str]:
    prelude = "import os, signal, sys, time, resource\nresource.setrlimit(resource.RLIMIT_CORE, (0, 0))\n"
    return [sys.executable, "-c", prelude + code]


@pytest.mark.harness
def test_run_bounded_ok_captures_stdout_and_stderr():
    r = run_bounded(py("print('out'); print('err', file=sys.stderr)"))
    assert r.ok and r.status() == "ok" and r.returncode == 0
    assert r.stdout == b"out\n" and r.stderr == "err\n"
    assert r.argv[0] == sys.executable


@pytest.mark.harness
def test_run_bounded_stdout_to_file(tmp_path):
    target = tmp_path / "out.mlir"
    r = run_bounded(py("sys.stdout.write('x' * 200000)"), stdout_path=target)
    assert r.ok and r.stdout == b""
    assert target.read_text() == "x" * 200000


@pytest.mark.harness
def test_run_bounded_segfault_is_a_crash():
    r = run_bounded(py("os.kill(os.getpid(), signal.SIGSEGV)"))
    assert r.status() == "crash" and r.crashed
    assert r.signal_name == "SIGSEGV"
    assert r.returncode == -signal.SIGSEGV


@pytest.mark.harness
def test_run_bounded_assertion_text_with_exit_code_is_a_crash():
    r = run_bounded(py("print(\"x.cpp:1: Assertion `a' failed.\", file=sys.stderr); sys.exit(1)"))
    assert r.status() == "crash" and r.signal_name is None and r.returncode == 1


@pytest.mark.harness
def test_run_bounded_error_exit_is_a_failure():
    r = run_bounded(py("print('model.mlir:1:1: error: nope', file=sys.stderr); sys.exit(1)"))
    assert r.status() == "fail" and not r.crashed and not r.ok
    assert r.returncode == 1 and "error: nope" in r.stderr_tail()


def test_run_bounded_timeout_kills_the_process_group(tmp_path):
    pid_file = tmp_path / "child.pid"
    code = (f"import subprocess\np = subprocess.Popen(['sleep', '60'])\n"
            f"open({str(pid_file)!r}, 'w').write(str(p.pid))\ntime.sleep(60)")
    r = run_bounded(py(code), Bounds(timeout_s=1.0), sandbox=NONE_ASKED)  # the pid is this machine's
    assert r.status() == "timeout" and r.timed_out and r.returncode is None
    assert not r.crashed and r.seconds >= 1.0
    _assert_dead(int(pid_file.read_text()))


@pytest.mark.harness
def test_run_bounded_timeout_in_the_sandbox_kills_what_the_tool_started():
    """In the tools' sandbox the tool is bwrap's grandchild and its own children live in
    the sandbox's pid namespace: a timeout ends all of them (found here by a marker)."""
    from harness.sandbox import probe
    if not probe().bwrap:
        pytest.skip(f"no sandbox here: {probe().why}")
    marker = f"{time.time_ns() % 10**9}"
    code = (f"import subprocess\np = subprocess.Popen(['sleep', '60.{marker}'])\ntime.sleep(60)")
    r = run_bounded(py(code), Bounds(timeout_s=1.0), sandbox=probe())
    assert r.sandboxed and r.status() == "timeout"
    deadline = time.monotonic() + 30
    while any(f"60.{marker}".encode() in _cmdline(p) for p in Path("/proc").glob("[0-9]*/cmdline")):
        assert time.monotonic() < deadline, "the tool's child outlived the sandbox"
        time.sleep(0.05)


@pytest.mark.harness
def test_run_bounded_memory_bound_is_oom():
    code = "hog = []\nfor _ in range(300):\n    hog.append(b'x' * (10 << 20)); time.sleep(0.01)\ntime.sleep(60)"
    r = run_bounded(py(code), Bounds(timeout_s=20, memory_mb=150))
    assert r.status() == "oom" and r.out_of_memory and r.returncode is None
    assert 150 < r.peak_rss_mb < 1500  # the bound, not the 20 s timeout, ended it (status oom)


@pytest.mark.harness
def test_run_bounded_healthy_memory_use_is_not_oom():
    r = run_bounded(py("hog = b'x' * (50 << 20); time.sleep(0.3)"), Bounds(memory_mb=400))
    assert r.ok and 50 < r.peak_rss_mb < 400


@pytest.mark.harness
def test_run_bounded_missing_tool():
    r = run_bounded(["/nonexistent/iree-compile", "--version"])
    assert r.returncode == 127 and r.status() == "fail"
    assert "cannot start /nonexistent/iree-compile" in r.stderr


@pytest.mark.harness
def test_run_bounded_env(tmp_path):
    r = run_bounded(py("print(os.environ['IREE_REGRESS_TEST_VAR'])"),
                    Bounds(env={"IREE_REGRESS_TEST_VAR": "hello"}), cwd=tmp_path)
    assert r.stdout == b"hello\n"


@pytest.mark.harness
def test_run_bounded_chatty_tool_does_not_block():
    r = run_bounded(py("sys.stderr.write('e' * 1000000); sys.stdout.write('o' * 1000000)"),
                    Bounds(timeout_s=20))
    assert r.ok and len(r.stdout) == 1000000
    kept = r.stderr_tail()  # only a head and a tail are ever held
    assert len(kept) < 12100 and "[... 988000 bytes ...]" in kept


@pytest.mark.harness
def test_kept_stderr_has_the_first_error_and_the_crash_frames():
    # a long crash: the diagnostic at the start, the frames that matter at the end
    script = ("sys.stderr.write('error: the first diagnostic\\n' + 'noise\\n' * 5000"
              " + 'Stack dump:\\n #5 limitVectorTileSizes\\n')")
    kept = run_bounded(py(script)).stderr_tail()
    assert "error: the first diagnostic" in kept and "limitVectorTileSizes" in kept


@pytest.mark.harness
def test_run_bounded_death_by_realtime_signal_is_a_crash():
    r = run_bounded(py("os.kill(os.getpid(), signal.SIGRTMIN + 6)"))
    assert r.status() == "crash" and r.signal_name


@pytest.mark.harness
@pytest.mark.timeout(120)
def test_run_bounded_does_not_wait_for_a_lingering_grandchild(tmp_path):
    """The grandchild holds the tool's pipes for an hour: run_bounded returning at all (no
    wall-clock bound: the test's own timeout is the event) and the grandchild being dead
    show the harness did not wait for it but ended it."""
    pid_file = tmp_path / "child.pid"
    code = (f"import subprocess\np = subprocess.Popen(['sleep', '3600'])\n"
            f"open({str(pid_file)!r}, 'w').write(str(p.pid))\nprint('tool done')")
    # Outside the sandbox: the pid the child writes is then this machine's (in the
    # sandbox's pid namespace its children die with it).
    r = run_bounded(py(code), Bounds(timeout_s=60), sandbox=NONE_ASKED)
    assert r.ok and r.stdout == b"tool done\n" and not r.timed_out
    _assert_dead(int(pid_file.read_text()))


def _cmdline(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:  # the process ended as it was read
        return b""


def _assert_dead(pid: int, within_s: float = 30.0):
    """SIGKILL is delivered asynchronously: on a loaded machine the process may still be
    running for a moment after killpg returns."""
    deadline = time.monotonic() + within_s
    while True:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return
        if state in ("Z", "X"):
            return
        assert time.monotonic() < deadline, f"process {pid} still alive (state {state})"
        time.sleep(0.05)


@pytest.mark.harness
def test_a_crash_is_told_by_its_message_and_the_first_frame_in_compiler_code():
    """Frames of the signal handler, libc and _start say nothing; the first frame in the
    compiler's own code says where it died (signatures group on it)."""
    from harness.process import crash_message as _crash_message, first_frame

    dump = "\n".join([
        "LLVM ERROR: SmallVector unable to grow. Requested capacity (18446744073709551606)",
        "Stack dump:",
        " #0 0x00007fe8047b49a8 llvm::sys::PrintStackTrace(llvm::raw_ostream&, int) (/x/libIREECompiler.so+0x63b49a8)",
        " #1 0x00007fe8047b231e llvm::sys::RunSignalHandlers() (/x/libIREECompiler.so+0x63b231e)",
        " #2 0x00007f1b689d6cb6 SignalHandler(int, siginfo_t*, void*) Signals.cpp:0:0",
        " #3 0x00007f1b62e5a050 (/lib/x86_64-linux-gnu/libc.so.6+0x3c050)",
        " #4 0x00007f1b6a6a1ac1 mlir::iree_compiler::limitVectorTileSizes(llvm::SmallVectorImpl<long>&) KernelDispatch.cpp:0:0",
        "#34 0x00000000002016ae _start (/x/iree-compile+0x2016ae)"])
    assert first_frame(dump) == "mlir::iree_compiler::limitVectorTileSizes(llvm::SmallVectorImpl<long>&)"
    assert _crash_message(dump).startswith("LLVM ERROR: SmallVector unable to grow")
    assert first_frame("no stack here") == ""


@pytest.mark.harness
def test_the_process_tree_walk_finds_what_a_scan_of_every_process_finds():
    """descendants() reads the kernel's children lists instead of every process's parent:
    a grandchild, and a child that left the session (setsid), are found all the same, and
    so is the tool's process group that run_bounded samples for memory."""
    import os
    import subprocess
    import sys

    from harness import process

    script = ("import subprocess, sys, time; "
              "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)']); "
              "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(30)'], start_new_session=True); "
              "time.sleep(30)")
    parent = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    try:
        # Until both grandchildren exist and the one leaving the session has left it (between
        # its fork and its setsid it is still in the parent's group: measured under load).
        for _ in range(100):
            if len(process._descendants_by_scan(parent.pid)) >= 2 and len(process._group_pids(parent.pid)) == 2:
                break
            __import__("time").sleep(0.05)
        walked, scanned = process.descendants(os.getpid()), process._descendants_by_scan(os.getpid())
        assert walked == scanned and len(process.descendants(parent.pid)) == 2, (walked, scanned)
        group = process._group_pids(parent.pid)  # the parent and the grandchild still in its group
        assert parent.pid in group and len(group) == 2, group
        assert process.children(os.getpid()) >= {parent.pid}
    finally:
        process.kill_descendants(pid=parent.pid)
        parent.kill()
        parent.wait()
