"""A sweep's builder, run where case code runs (the sandbox): every variant's program.

    python -m harness.sweep.build SWEEP.toml OUT.json [POINTS.json]

The builder (sweeps/<family>.py) is Python from whoever wrote the sweep, so the harness
never imports it itself: this job imports it, builds every variant of the grid (or the
named points of POINTS.json, {name: point}: a reduction's trials), and writes
{name: {source, dtype, outputs}} to OUT.json.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path

from ..reference import load_module
from .program import Program
from .spec import load_sweep


def main(argv: list[str]) -> int:
    sweep = load_sweep(Path(argv[0]))
    module = load_module(sweep.builder, f"iree_regress_sweep_{sweep.name.replace('-', '_')}")
    if not callable(getattr(module, "build", None)):
        print(f"{sweep.builder}: defines no build(point)", file=sys.stderr)
        return 1
    if len(argv) > 2:
        points = json.loads(Path(argv[2]).read_text())
    else:
        points = {variant.id: variant.values() for variant in sweep.variants()}
    programs = {}
    for name, point in points.items():
        program = module.build(point)
        if not isinstance(program, Program):
            print(f"{sweep.builder}: build() returned {type(program).__name__}, not a Program", file=sys.stderr)
            return 1
        programs[name] = asdict(program)
    Path(argv[1]).write_text(json.dumps(programs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
