"""Run a reproducer bundle: its compiled module on this machine's device, compared with
the expected outputs it carries.

Needs only numpy and iree-run-module (iree-base-runtime), so a bundle compiled on a
machine without a GPU can be executed where the GPU is. Bundles carry this file as
run_bundle.py, next to a copy of compare.py:

    iree-regress run-bundle BUNDLE_DIR                          # sandboxed, where iree-regress is installed
    python run_bundle.py [BUNDLE_DIR] --trust [--device cuda://0]   # no sandbox: your own bundles only

A bundle may come from a stranger: bundle.json is checked field by field (a bad one is
one line naming the field, exit 2), every file it uses must be a regular file inside it
(no symlink, no absolute name), and its module, native code, runs with iree-regress in
the sandbox case code runs in (harness/sandbox.py; the GPU's device nodes bound in). This
file alone has no sandbox: it runs a module only when told --trust.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

try:
    from harness.compare import compare_outputs
except ImportError:  # inside a bundle: compare.py sits beside this file
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from compare import compare_outputs  # type: ignore[no-redef]


def find_run_module() -> str:
    """iree-run-module on PATH (a local build), unless it is pip's Python launcher: then the
    native tool it would start (iree-base-runtime's), which saves a Python start per module."""
    found = shutil.which("iree-run-module")
    if found and not _is_launcher(found):
        return found
    try:
        import iree._runtime_libs as libs  # iree-base-runtime's native tools
    except ImportError:
        if found:
            return found
        raise SystemExit("run-bundle: no iree-run-module on PATH and no iree-base-runtime installed")
    return str(Path(libs.__file__).parent / "iree-run-module")


def _is_launcher(path: str) -> bool:
    """pip's console script for iree-base-runtime's tool (a local build is not one)."""
    with open(path, "rb") as f:
        head = f.read(512)
    return head.startswith(b"#!") and b"from iree._runtime" in head


class BundleError(ValueError):
    """A bundle that cannot be run as it is: the message names the file and the field."""


# bundle.json's fields: the type each must have (output_rules: a list of rule tables).
FIELDS = {"case": str, "item": str, "target": str, "opt_level": str, "driver": str, "function": str, "outcome": str,
          "atol": (int, float), "rtol": (int, float), "output_rules": list}
DRIVERS = ("local-task", "vulkan", "hip", "cuda")


def read_meta(bundle: Path) -> dict:
    """bundle.json, checked: every field there with its type, a known driver, a function
    name that is a name."""
    path = bundle / "bundle.json"
    inside(bundle, path)
    try:
        meta = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise BundleError(f"{path}: not readable JSON ({e})") from None
    if not isinstance(meta, dict):
        raise BundleError(f"{path}: not a JSON object")
    for name, kind in FIELDS.items():
        if name not in meta:
            raise BundleError(f"{path}: field '{name}' is missing")
        if not isinstance(meta[name], kind) or isinstance(meta[name], bool):
            raise BundleError(f"{path}: field '{name}': {meta[name]!r} is not a {getattr(kind, '__name__', 'number')}")
    if meta["driver"] not in DRIVERS:
        raise BundleError(f"{path}: field 'driver': {meta['driver']!r}; one of {', '.join(DRIVERS)}")
    if not meta["function"].replace("_", "a").replace("$", "a").isalnum():
        raise BundleError(f"{path}: field 'function': {meta['function']!r} is not a function name")
    if not all(isinstance(r, dict) for r in meta["output_rules"]):
        raise BundleError(f"{path}: field 'output_rules': a list of tables")
    return meta


def inside(bundle: Path, path: Path) -> Path:
    """`path`, a regular file inside `bundle` (not a symlink, resolving inside), or BundleError."""
    if path.is_symlink():
        raise BundleError(f"{path}: a symlink; a bundle's files must be its own")
    if path.exists() and not path.resolve().is_relative_to(bundle.resolve()):
        raise BundleError(f"{path}: outside the bundle")
    if path.exists() and not path.is_file():
        raise BundleError(f"{path}: not a regular file")
    return path


@functools.lru_cache(maxsize=None)  # once per driver, not once per bundle (a GPU runtime starts)
def _arrays(bundle: Path, folder: str, name: re.Pattern) -> list[Path]:
    """A bundle folder's arrays in order, each a regular file of the name lay_out writes."""
    if (bundle / folder).is_symlink():
        raise BundleError(f"{bundle / folder}: a symlink; a bundle's files must be its own")
    paths = sorted((bundle / folder).glob("*"), key=lambda p: (len(p.stem), p.stem)) if (bundle / folder).is_dir() else []
    for p in paths:
        if not name.fullmatch(p.name):
            raise BundleError(f"{p}: not a file a bundle holds ({name.pattern})")
        inside(bundle, p)
    return paths


def first_device(run_module: str, driver: str) -> str | None:
    if driver == "local-task":
        return driver
    try:
        out = subprocess.run([run_module, f"--list_devices={driver}"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    devices = [l.strip() for l in out.stdout.splitlines() if l.strip().startswith(f"{driver}://")]
    return devices[0] if devices else None


# One module's run is bounded: a hang is a recorded timeout, never a run-bundle that waits forever.
RUN_TIMEOUT_S = 600
TIMED_OUT_CODE = 124  # what coreutils' `timeout` exits with (sandbox.SandboxShell), and LocalRunner too
# The names lay_out writes: anything else in a bundle is refused (a name is never read as shell).
_INPUT_NAME, _OUTPUT_NAME = re.compile(r"input\d+\.npy"), re.compile(r"output\d+\.npy")
_SPREAD_NAME = re.compile(r"spread\d+\.npy")  # the golden's spread, where it has one


class LocalRunner:
    """Where a module runs without a sandbox (--trust): here, as this user. The harness
    passes its sandbox.SandboxShell instead, which answers the same two calls."""

    def folder(self) -> Path:
        return Path(tempfile.mkdtemp(prefix="run-bundle-"))

    def run(self, argv: list, out: Path, timeout_s: float) -> tuple[int, str]:
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return TIMED_OUT_CODE, f"killed after {timeout_s:.0f} s"
        return proc.returncode, proc.stderr


def execute(bundle: Path, device: str | None = None, runner=None) -> dict:
    """Run one bundle; what happened, as data: status (ok, fail, crash, skip), the stage
    it ended in (run or compare), a one-line detail, the tool's output and the device.
    `runner` runs the module (LocalRunner, or the harness's sandbox). BundleError when the
    bundle is malformed."""
    runner = runner or LocalRunner()
    bundle = Path(bundle)
    meta = read_meta(bundle)
    found = {"meta": meta, "device": device or "", "stage": "run", "log": "", "seconds": 0.0, "module": True}
    inside(bundle, bundle / "module.vmfb")
    if not (bundle / "module.vmfb").is_file():  # nothing ran here: not a pass (results.py)
        return {**found, "status": "skip", "module": False,
                "detail": f"the bundle has no module.vmfb (compile outcome: {meta['outcome']}); "
                          "run.sh reproduces the compile"}
    run_module = find_run_module()
    device = device or first_device(run_module, meta["driver"])
    if device is None:
        return {**found, "status": "skip", "detail": f"no {meta['driver']} device on this machine"}
    found["device"] = device
    inputs, expected = _arrays(bundle, "inputs", _INPUT_NAME), _arrays(bundle, "expected", _OUTPUT_NAME)
    out = runner.folder()
    try:
        outs = [out / f"out{i}.npy" for i in range(len(expected))]
        argv = [run_module, f"--module={bundle / 'module.vmfb'}", f"--device={device}",
                f"--function={meta['function']}", *[f"--input=@{p}" for p in inputs],
                *[f"--output=@{p}" for p in outs]]
        found["command"] = " ".join(argv)
        start = time.monotonic()
        returncode, stderr = runner.run(argv, out, RUN_TIMEOUT_S)
        found["seconds"] = time.monotonic() - start
        if returncode == TIMED_OUT_CODE:
            return {**found, "status": "timeout", "log": stderr[-3000:],
                    "detail": f"killed after {RUN_TIMEOUT_S} s on {device} (time bound)"}
        if returncode != 0:
            crashed = returncode < 0
            return {**found, "status": "crash" if crashed else "fail", "log": stderr[-3000:],
                    "detail": f"{'crashed' if crashed else 'exit code'} {abs(returncode)} on {device}"}
        try:
            actual = [np.load(p) for p in outs]
        except (OSError, ValueError) as e:  # the module said ok and wrote no readable output
            return {**found, "status": "garbage", "detail": f"unreadable output on {device}: {e}"}
    finally:
        shutil.rmtree(out, ignore_errors=True)
    try:
        rules = tuple(SimpleNamespace(**r) for r in meta["output_rules"])
        spreads = [np.load(p) for p in _arrays(bundle, "spread", _SPREAD_NAME)] or None
        comparison = compare_outputs(actual, [np.load(p) for p in expected], [np.load(p) for p in inputs],
                                     meta["atol"], meta["rtol"], rules, "expected", spreads)
    except (OSError, ValueError, AttributeError, TypeError) as e:  # bundle.json's rules or arrays
        raise BundleError(f"{bundle}: its expected/ or output_rules cannot be compared ({e})") from None
    return {**found, "stage": "compare", "status": "ok" if comparison.ok else "fail",
            "detail": comparison.summary()}


def run_bundle(bundle: Path, device: str | None = None, runner=None) -> int:
    """Run one bundle and say what happened: 0 pass, 1 fail, 2 could not run (or a
    malformed bundle: one line naming the file and field)."""
    try:
        found = execute(bundle, device, runner)
    except BundleError as e:
        print(f"run-bundle: {e}", file=sys.stderr)
        return 2
    meta = found["meta"]
    if found.get("command"):
        print("$ " + found["command"], flush=True)
    if found["status"] == "skip":
        print(f"{meta['item']}: {found['detail']}")
        return 2
    if found["stage"] == "run":
        print(found["log"])
        print(f"{meta['item']}: run-{found['status']} ({found['detail']})")
        return 1
    verdict = "pass" if found["status"] == "ok" else "compare-fail"
    print(f"{meta['case']}::{meta['item']} on {found['device']}: {verdict}: {found['detail']}")
    return 0 if found["status"] == "ok" else 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bundle", nargs="?", default=str(Path(__file__).resolve().parent))
    parser.add_argument("--device", default=None, help="e.g. cuda://0 (default: the first listed)")
    parser.add_argument("--trust", action="store_true",
                        help="run the module with your rights, network and environment (no sandbox here)")
    args = parser.parse_args(argv)
    if not args.trust:
        print("run_bundle.py: this bundle's module is native code and this script has no sandbox: run it "
              "with `iree-regress run-bundle` (sandboxed), or pass --trust for a bundle you made",
              file=sys.stderr)
        return 2
    return run_bundle(Path(args.bundle), args.device)


if __name__ == "__main__":
    sys.exit(main())
