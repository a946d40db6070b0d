"""Shared helpers for the harness's own tests: fake IREE tools, case directories, runs.

The fake tools are small Python scripts that behave like iree-compile / iree-opt /
iree-run-module as far as the harness can tell, and misbehave on request:

* iree-compile acts on a line `// FAKE: <mode>` in its input file:
  ok (default) | segfault | abort | assert-exit | hang | oom | garbage | error
  | zip-garbage (the zip magic and random bytes: only the runtime's loader can tell)
  | disk-full (LLVM's "No space left on device" while $IREE_REGRESS_FAKE_DISK_FULL is set, else ok)
  | kill-worker (SIGKILLs the process that ran it: a pytest worker dying mid-item, then
  hangs) | leak (starts a child in a session of its own that sleeps, then compiles ok)
  An ok module is b"PK\\x03\\x04" + the input text, so a `// FAKE-RUN: <mode>` line in
  the input travels into the module for the fake iree-run-module to act on; a flag
  `--fake-run=<mode>` puts such a line first (a flag that changes what the module computes).
  With $IREE_REGRESS_FAKE_WRONG_AT=O3, a compile at that level makes such a module too (a
  release that miscompiles at one level only: a differential split).
  With $IREE_REGRESS_FAKE_IREE_COMPILE_LOG set, every real compile (not --version) appends a line.
  Without `-o` (an [[ir]] check) it prints its input + "// produced-by: iree-compile".
* iree-run-module: `--list_devices=...` prints nothing (no GPU here); otherwise the
  mode comes from $IREE_REGRESS_FAKE_IREE_RUN_MODE or the module's `FAKE-RUN:` marker:
  identity (default: output i = input i) | wrong (input + 1) | crash | hang | fail | garbage
  | nothing (exit 0, write no outputs) | flaky (wrong the first time, then right;
  counted in $IREE_REGRESS_FAKE_FLAKY_COUNTER). $IREE_REGRESS_FAKE_IREE_RUN_LOG gets a line per run.
* iree-dump-module accepts only what the fake iree-compile writes for an ok module.
* iree-opt prints its input file + "// produced-by: iree-opt", or fails on
  `// FAKE: error`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

FAKE_VERSION = "3.13.0rc20261016"
FAKE_REVISION = "0123abcd"

_FAKE_COMPILE = r'''#!{python}
import os, random, re, resource, signal, sys, time

args = sys.argv[1:]
if "--version" in args:
    print("IREE (https://iree.dev):")
    print("  IREE compiler version {version} @ {revision}")
    print("  LLVM version 24.0.0git")
    sys.exit(0)
out = args[args.index("-o") + 1] if "-o" in args else None
src = [a for a in args if not a.startswith("-") and a != out][0]
text = open(src).read()
for a in args:
    if a.startswith("--fake-run="):
        text = "// FAKE-RUN: " + a[len("--fake-run="):] + "\n" + text
wrong_at = os.environ.get("IREE_REGRESS_FAKE_WRONG_AT")
if wrong_at and "--iree-opt-level=" + wrong_at in args:
    text = "// FAKE-RUN: wrong\n" + text
log = os.environ.get("IREE_REGRESS_FAKE_IREE_COMPILE_LOG")
if log:
    with open(log, "a") as f:
        f.write(" ".join(args) + "\n")
m = re.search(r"//\s*FAKE:\s*(\S+)", text)
mode = m.group(1) if m else "ok"
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
if mode == "segfault":
    os.kill(os.getpid(), signal.SIGSEGV)
elif mode == "abort":
    sys.stderr.write("iree-compile: Foo.cpp:42: void f(): Assertion `x' failed.\n")
    sys.stderr.flush()
    os.abort()
elif mode == "assert-exit":
    sys.stderr.write("iree-compile: Foo.cpp:42: void f(): Assertion `x' failed.\n"
                     "PLEASE submit a bug report to https://github.com/iree-org/iree/issues\n")
    sys.exit(1)
elif mode == "hang":
    time.sleep(3600)
elif mode == "kill-worker":
    os.kill(os.getppid(), signal.SIGKILL)
    time.sleep(3600)
elif mode == "leak":
    import subprocess
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", src],
                     start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out, "wb") as f:
        f.write(b"PK\x03\x04FAKE-VMFB\n" + text.encode())
    sys.exit(0)
elif mode == "oom":
    hog = []
    for _ in range(400):  # at most ~4 GB, then hang (which a test would see as a timeout)
        hog.append(b"\x01" * (10 << 20))
        time.sleep(0.01)
    time.sleep(3600)
elif mode == "garbage":
    with open(out, "wb") as f:
        f.write(bytes(random.randrange(256) for _ in range(64)).replace(b"PK", b"pk"))
    sys.exit(0)
elif mode == "error":
    sys.stderr.write(src + ":2:3: error: something went wrong in the fake compiler\n")
    sys.exit(1)
elif mode == "disk-full" and os.environ.get("IREE_REGRESS_FAKE_DISK_FULL"):  # until the disk is freed
    sys.stderr.write("LLVM ERROR: IO failure on output stream: No space left on device\n")
    sys.exit(1)
elif mode == "disk-full":
    with open(out, "wb") as f:
        f.write(b"PK\x03\x04FAKE-VMFB\n" + text.encode())
    sys.exit(0)
elif mode == "zip-garbage":  # the zip magic, then nothing a runtime could load
    with open(out, "wb") as f:
        f.write(b"PK\x03\x04" + bytes(random.randrange(256) for _ in range(64)))
    sys.exit(0)
elif mode == "ok" and out is None:  # e.g. an [[ir]] check with --compile-to=...
    sys.stdout.write(text + "// produced-by: iree-compile\n")
    sys.exit(0)
elif mode == "ok":
    sys.stderr.write(src + ":1:1: warning: a harmless warning\n")
    with open(out, "wb") as f:
        f.write(b"PK\x03\x04FAKE-VMFB\n" + text.encode())
    sys.exit(0)
else:
    sys.stderr.write("fake iree-compile: unknown mode " + mode + "\n")
    sys.exit(2)
'''

_FAKE_RUN = r'''#!{python}
import os, re, resource, shutil, signal, sys

args = sys.argv[1:]
if any(a.startswith("--list_devices") for a in args):
    sys.exit(0)
def values(prefix):
    return [a[len(prefix):] for a in args if a.startswith(prefix)]
module = values("--module=")[0]
inputs = values("--input=@")
outputs = values("--output=@")
log = os.environ.get("IREE_REGRESS_FAKE_IREE_RUN_LOG")
if log:
    with open(log, "a") as f:
        f.write(module + "\n")
m = re.search(rb"FAKE-RUN:\s*(\S+)", open(module, "rb").read())
mode = os.environ.get("IREE_REGRESS_FAKE_IREE_RUN_MODE") or (m.group(1).decode() if m else "identity")
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
if mode == "crash":
    os.kill(os.getpid(), signal.SIGSEGV)
elif mode == "hang":
    import time
    time.sleep(3600)
elif mode == "fail":
    sys.stderr.write("iree/vm/invocation.c:1: INVALID_ARGUMENT; error: fake run failure\n")
    sys.exit(1)
elif mode == "garbage":
    for o in outputs:
        with open(o, "wb") as f:
            f.write(b"\x00\x01 this is not an npy file")
elif mode == "nothing":
    pass
elif mode == "wrong":
    import numpy as np
    for i, o in enumerate(outputs):
        np.save(o, np.load(inputs[i % len(inputs)]) + 1)
elif mode in ("identity", "flaky"):
    if mode == "flaky":  # wrong numbers on the first run, right on every later one
        counter = os.environ["IREE_REGRESS_FAKE_FLAKY_COUNTER"]
        runs = int(open(counter).read() or 0) + 1 if os.path.exists(counter) else 1
        open(counter, "w").write(str(runs))
        if runs == 1:
            import numpy as np
            for i, o in enumerate(outputs):
                np.save(o, np.load(inputs[i % len(inputs)]) + 1)
            sys.exit(0)
    for i, o in enumerate(outputs):
        shutil.copyfile(inputs[i % len(inputs)], o)
else:
    sys.stderr.write("fake iree-run-module: unknown mode " + mode + "\n")
    sys.exit(2)
sys.exit(0)
'''

# The runtime's loader: accepts what the fake compiler writes for an ok module.
_FAKE_DUMP = r'''#!{python}
import sys
data = open(sys.argv[1], "rb").read()
if not data.startswith(b"PK\x03\x04FAKE-VMFB"):
    sys.stderr.write("iree/vm/bytecode/module.c:1: INVALID_ARGUMENT; FlatBuffer verification failed\n")
    sys.exit(1)
print("module: fake")
'''

_FAKE_OPT = r'''#!{python}
import re, sys

args = sys.argv[1:]
src = [a for a in args if not a.startswith("-")][0]
text = open(src).read()
m = re.search(r"//\s*FAKE:\s*(\S+)", text)
if m and m.group(1) == "error":
    sys.stderr.write(src + ":1:1: error: fake iree-opt failure\n")
    sys.exit(1)
sys.stdout.write(text + "// produced-by: iree-opt\n")
'''


def make_toolchain(directory: Path, version: str = FAKE_VERSION,
                   revision: str = FAKE_REVISION) -> Path:
    """Write fake iree-compile, iree-opt and iree-run-module into `directory`."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for name, template in (("iree-compile", _FAKE_COMPILE), ("iree-run-module", _FAKE_RUN),
                           ("iree-opt", _FAKE_OPT), ("iree-dump-module", _FAKE_DUMP)):
        path = directory / name
        path.write_text(template.replace("{python}", sys.executable)
                        .replace("{version}", version).replace("{revision}", revision))
        path.chmod(0o755)
    return directory


# ------------------------------------------------------------------------ TOML writing

def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {v!r} as TOML")


def to_toml(data: dict, prefix: str = "") -> str:
    """A small TOML writer for manifests (scalars, lists, tables, arrays of tables)."""
    lines, tables, arrays = [], [], []
    for key, value in data.items():
        if isinstance(value, dict):
            tables.append((key, value))
        elif isinstance(value, list) and value and all(isinstance(x, dict) for x in value):
            arrays.append((key, value))
        else:
            lines.append(f"{key} = {_toml_value(value)}")
    for key, value in tables:
        lines += ["", f"[{prefix}{key}]", to_toml(value, f"{prefix}{key}.")]
    for key, items in arrays:
        for item in items:
            lines += ["", f"[[{prefix}{key}]]", to_toml(item, f"{prefix}{key}.")]
    return "\n".join(lines)


# ----------------------------------------------------------------------- case writing

MLIR_BODY = ("func.func @main(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {\n"
             "  return %arg0 : tensor<2x3xf32>\n}\n")

IDENTITY_REFERENCE = '''import torch


def example_inputs():
    return (torch.arange(6, dtype=torch.float32).reshape(2, 3),)


def reference(x):
    return x
'''

IDENTITY_INPUT = np.arange(6, dtype=np.float32).reshape(2, 3)


def mlir_text(slug: str, fake: str = "ok", run: str | None = None) -> str:
    lines = [f"// case {slug}", f"// FAKE: {fake}"]
    if run:
        lines.append(f"// FAKE-RUN: {run}")
    return "\n".join(lines) + "\n" + MLIR_BODY


def write_case(root: Path, slug: str, manifest: dict | str, files: dict | None = None) -> Path:
    """Write root/slug/case.toml (a dict or TOML text) plus extra files; returns the dir."""
    d = Path(root) / slug
    d.mkdir(parents=True, exist_ok=True)
    for name, content in (files or {}).items():
        p = d / name
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, np.ndarray):
            np.save(p, content)
        elif isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content)
    text = manifest if isinstance(manifest, str) else to_toml(manifest) + "\n"
    (d / "case.toml").write_text(text)
    return d


def torch_case_with_golden(tmp_path: Path, monkeypatch, slug: str, model: str, manifest: str) -> Path:
    """A case of a PyTorch program under tmp_path/cases, with its golden written by
    `iree-regress golden` (the frontend's reference) and a cache of the test's own."""
    from harness.cli import main as cli

    monkeypatch.setenv("IREE_REGRESS_CACHE", str(tmp_path / "cache"))
    case_dir = write_case(tmp_path / "cases", slug, manifest, {"model.py": model})
    assert cli(["golden", str(case_dir)]) == 0
    return case_dir


def compile_manifest(**extra) -> dict:
    m = {"title": "a compile case", "kind": "compile", "issues": ["iree-org/iree#1"],
         "source": {"mlir": "model.mlir"},
         "matrix": {"targets": ["cpu"], "opt_levels": ["O0"]}}
    m.update(extra)
    return m


def compile_case(root: Path, slug: str, fake: str = "ok", **extra) -> Path:
    return write_case(root, slug, compile_manifest(**extra), {"model.mlir": mlir_text(slug, fake)})


def numeric_case(root: Path, slug: str, run: str = "identity", **extra) -> Path:
    """An mlir numeric identity case: reference(x) = x; the fake run decides the output."""
    m = compile_manifest(**extra)
    m["kind"] = "numeric"
    m["title"] = "a numeric case"
    return write_case(root, slug, m, {
        "model.mlir": mlir_text(slug, "ok", run),
        "reference.py": IDENTITY_REFERENCE,
        "inputs/input0.npy": IDENTITY_INPUT,
        "expected/output0.npy": IDENTITY_INPUT,
    })


# --------------------------------------------------------------------------- running

def plugin_args(tools: Path, cache: Path, reports: Path, *extra) -> list[str]:
    # hypothesis' and pytest-benchmark's plugins cost ~1 s per in-process run; cases need neither.
    return ["-p", "harness.plugin", "-p", "no:cacheprovider", "-p", "no:hypothesispytest",
            "-p", "no:benchmark", "--iree-tools-dir", str(tools),
            "--iree-cache-dir", str(cache), "--iree-reports-dir", str(reports), *map(str, extra)]


def run_pytest_subprocess(cwd: Path, args: list[str], env: dict | None = None,
                          timeout: float = 120) -> pytest.RunResult:
    """pytest in a child process (for module-scoped runs, where pytester cannot be used)."""
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "pytest", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **(env or {})})
    return pytest.RunResult(proc.returncode, proc.stdout.splitlines(), proc.stderr.splitlines(),
                            time.monotonic() - start)


def processes_mentioning(text: str) -> list[str]:
    """Command lines of live processes that mention `text` (e.g. a test's tmp folder)."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                cmdline = Path(f"/proc/{entry.name}/cmdline").read_bytes().replace(b"\0", b" ").decode()
                state = Path(f"/proc/{entry.name}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if text in cmdline and state != "Z":
                found.append(cmdline)
    return found


def results_by_item(reports: Path) -> tuple[dict, dict[str, dict]]:
    """results.jsonl as (header, {"<case>::<item>": record})."""
    from harness.results import read_results

    header, items = read_results(Path(reports) / "results.jsonl")
    return header, {r.key: r.as_dict() for r in items}
