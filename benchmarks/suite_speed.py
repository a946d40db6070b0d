"""How fast is the suite, against how fast it could be?

    python benchmarks/suite_speed.py [--workers 2] [--cases cases/a cases/b] [PYTEST ARGS...]

Measures, on the cases/ suite with the installed IREE:
  cold   `pytest cases/` with an empty cache (everything imported and compiled)
  warm   the same command again (nothing should be recompiled)
  floor  the tool commands the cold run recorded in results.jsonl (import, iree-compile,
         iree-run-module, iree-opt | filecheck, and what a stage ran besides its own: the
         eager reference of a comparison, the configuration dump of a GPU compile), run
         bare with the same parallelism:
         what the work costs with no harness around it
and prints seconds and the ratios warm/cold and cold/floor. Extra args go to pytest
(e.g. --target cpu,vulkan). Nothing is written outside a temporary directory except
the JSON summary (--out).
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
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.outcomes import SKIPPED  # noqa: E402
from harness.stages import ALSO_RAN  # noqa: E402
from harness.results import read_results  # noqa: E402
from harness.toolchain import installed  # noqa: E402


def run_suite(cache: Path, reports: Path, workers: int, cases: list[str], extra: list[str]) -> float:
    env = dict(os.environ, IREE_REGRESS_CACHE=str(cache))
    argv = [sys.executable, "-m", "pytest", *cases, "-q", "-p", "no:cacheprovider",
            f"--iree-reports-dir={reports}", *extra]
    if workers > 1:
        argv += ["-n", str(workers)]
    start = time.monotonic()
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - start
    last = proc.stdout.strip().splitlines()[-1:] or ["(no output)"]
    print(f"    pytest exit {proc.returncode}: {last[0]}")
    return seconds


def recorded_commands(results: Path) -> list[str]:
    _, items = read_results(results)
    seen, commands = set(), []
    for item in items:
        for stage in item.stages:  # typed records (harness/record.py)
            if stage.status == SKIPPED or stage.cached:
                continue
            for command in [stage.command, *stage.data.get(ALSO_RAN, [])]:
                if command and command not in seen:
                    seen.add(command)
                    commands.append(command)
    return commands


def run_floor(commands: list[str], workers: int) -> float:
    """Run each recorded command bare, in its own scratch folder (they write -o module.vmfb)."""
    tc = installed()
    # The suite calls the native tools; so must the floor (not the Python launchers on PATH).
    path = os.pathsep.join([str(tc.compile.parent), str(tc.run_module.parent), os.environ["PATH"]])
    env = dict(os.environ, PATH=path)

    def one(cmd: str):
        with tempfile.TemporaryDirectory() as d:
            subprocess.run(["bash", "-c", cmd], cwd=d, env=env, capture_output=True)

    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(one, commands))
    return time.monotonic() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "suite_speed.json")
    parser.add_argument("--cases", nargs="+", default=["cases/"],
                        help="case folders to run (default: all of cases/)")
    args, extra = parser.parse_known_args()

    work = Path(tempfile.mkdtemp(prefix="iree-regress-bench-"))
    try:
        cache, reports = work / "cache", work / "reports"
        print(f"cold run ({args.workers} workers, empty cache)...")
        cold = run_suite(cache, reports, args.workers, args.cases, extra)
        commands = recorded_commands(reports / "results.jsonl")
        print("warm run (same cache)...")
        warm = run_suite(cache, work / "reports-warm", args.workers, args.cases, extra)
        print(f"floor: {len(commands)} recorded commands run bare...")
        floor = run_floor(commands, args.workers)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    summary = {"workers": args.workers, "cases": args.cases, "pytest_args": extra, "cold_s": round(cold, 1),
               "warm_s": round(warm, 1), "floor_s": round(floor, 1), "commands": len(commands),
               "warm_over_cold": round(warm / cold, 3), "cold_over_floor": round(cold / floor, 3)}
    print(f"cold {cold:.1f} s | warm {warm:.1f} s | floor {floor:.1f} s | "
          f"warm/cold {warm / cold:.1%} (aim <= 2%) | cold/floor {cold / floor:.2f}x (aim <= 1.10x)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
