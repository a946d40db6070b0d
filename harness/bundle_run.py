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


def run_bundle(bundle: Path, device: str | None = None) -> int:
    bundle = Path(bundle)
    meta = json.loads((bundle / "bundle.json").read_text())
    if not (bundle / "module.vmfb").is_file():
        print(f"{meta['item']}: the bundle has no module.vmfb (compile outcome: {meta['outcome']}); "
              "run.sh reproduces the compile")
        return 2
    run_module = find_run_module()
    device = device or first_device(run_module, meta["driver"])
    if device is None:
        print(f"{meta['item']}: no {meta['driver']} device on this machine")
        return 2
    inputs = sorted((bundle / "inputs").glob("*.npy"), key=lambda p: (len(p.stem), p.stem))
    expected = sorted((bundle / "expected").glob("*.npy"), key=lambda p: (len(p.stem), p.stem))
    with tempfile.TemporaryDirectory() as out:
        outs = [Path(out) / f"out{i}.npy" for i in range(len(expected))]
        argv = [run_module, f"--module={bundle / 'module.vmfb'}", f"--device={device}",
                f"--function={meta['function']}", *[f"--input=@{p}" for p in inputs],
                *[f"--output=@{p}" for p in outs]]
        print("$ " + " ".join(argv), flush=True)
        proc = subprocess.run(argv, capture_output=True, text=True, env=dict(os.environ))
        if proc.returncode != 0:
            print(proc.stderr[-3000:])
            print(f"{meta['item']}: run-fail (exit {proc.returncode}) on {device}")
            return 1
        actual = [np.load(p) for p in outs]
    rules = tuple(SimpleNamespace(**r) for r in meta.get("output_rules", []))
    comparison = compare_outputs(actual, [np.load(p) for p in expected], [np.load(p) for p in inputs],
                                 meta["atol"], meta["rtol"], rules, "expected")
    verdict = "pass" if comparison.ok else "compare-fail"
    print(f"{meta['case']}::{meta['item']} on {device}: {verdict}: {comparison.summary()}")
    return 0 if comparison.ok else 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bundle", nargs="?", default=str(Path(__file__).resolve().parent))
    parser.add_argument("--device", default=None, help="e.g. cuda://0 (default: the first listed)")
    args = parser.parse_args(argv)
    return run_bundle(Path(args.bundle), args.device)


if __name__ == "__main__":
    sys.exit(main())
