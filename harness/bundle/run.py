"""Run a reproducer bundle: its compiled module on this machine's device, compared with
the expected outputs it carries.

Needs only numpy and iree-run-module (iree-base-runtime), so a bundle compiled on a
machine without a GPU can be executed where the GPU is. Bundles carry this file as
run_bundle.py, next to a copy of compare.py:

    python run_bundle.py [BUNDLE_DIR] [--device cuda://0]       # on the GPU machine
    iree-regress run-bundle BUNDLE_DIR                          # same, where iree-regress is installed
"""

from __future__ import annotations

import argparse
import json
import os
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
    found = shutil.which("iree-run-module")
    if found:
        return found
    try:
        import iree._runtime_libs as libs  # iree-base-runtime's native tools
    except ImportError:
        raise SystemExit("run-bundle: no iree-run-module on PATH and no iree-base-runtime installed")
    return str(Path(libs.__file__).parent / "iree-run-module")


def first_device(run_module: str, driver: str) -> str | None:
    if driver == "local-task":
        return driver
    out = subprocess.run([run_module, f"--list_devices={driver}"], capture_output=True, text=True)
    devices = [l.strip() for l in out.stdout.splitlines() if l.strip().startswith(f"{driver}://")]
    return devices[0] if devices else None


def execute(bundle: Path, device: str | None = None) -> dict:
    """Run one bundle; what happened, as data: status (ok, fail, crash, skip), the stage
    it ended in (run or compare), a one-line detail, the tool's output and the device."""
    bundle = Path(bundle)
    meta = json.loads((bundle / "bundle.json").read_text())
    found = {"meta": meta, "device": device or "", "stage": "run", "log": "", "seconds": 0.0}
    if not (bundle / "module.vmfb").is_file():
        return {**found, "status": "skip",
                "detail": f"the bundle has no module.vmfb (compile outcome: {meta['outcome']}); "
                          "run.sh reproduces the compile"}
    run_module = find_run_module()
    device = device or first_device(run_module, meta["driver"])
    if device is None:
        return {**found, "status": "skip", "detail": f"no {meta['driver']} device on this machine"}
    found["device"] = device
    inputs = sorted((bundle / "inputs").glob("*.npy"), key=lambda p: (len(p.stem), p.stem))
    expected = sorted((bundle / "expected").glob("*.npy"), key=lambda p: (len(p.stem), p.stem))
    with tempfile.TemporaryDirectory() as out:
        outs = [Path(out) / f"out{i}.npy" for i in range(len(expected))]
        argv = [run_module, f"--module={bundle / 'module.vmfb'}", f"--device={device}",
                f"--function={meta['function']}", *[f"--input=@{p}" for p in inputs],
                *[f"--output=@{p}" for p in outs]]
        found["command"] = " ".join(argv)
        start = time.monotonic()
        proc = subprocess.run(argv, capture_output=True, text=True, env=dict(os.environ))
        found["seconds"] = time.monotonic() - start
        if proc.returncode != 0:
            crashed = proc.returncode < 0
            return {**found, "status": "crash" if crashed else "fail", "log": proc.stderr[-3000:],
                    "detail": f"{'crashed' if crashed else 'exit code'} {abs(proc.returncode)} on {device}"}
        actual = [np.load(p) for p in outs]
    rules = tuple(SimpleNamespace(**r) for r in meta.get("output_rules", []))
    comparison = compare_outputs(actual, [np.load(p) for p in expected], [np.load(p) for p in inputs],
                                 meta["atol"], meta["rtol"], rules, "expected")
    return {**found, "stage": "compare", "status": "ok" if comparison.ok else "fail",
            "detail": comparison.summary()}


def run_bundle(bundle: Path, device: str | None = None) -> int:
    """Run one bundle and say what happened: 0 pass, 1 fail, 2 could not run."""
    found = execute(bundle, device)
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
    args = parser.parse_args(argv)
    return run_bundle(Path(args.bundle), args.device)


if __name__ == "__main__":
    sys.exit(main())
