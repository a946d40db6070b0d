"""`iree-regress`: the command line around the suite.

    iree-regress run [PYTEST ARGS]      pytest cases/ with the plugin (same options)
    iree-regress golden SLUG...         (re)write a case's inputs/ and expected/ from PyTorch
    iree-regress env                    toolchain, package versions, devices seen here
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import targets
from .case import CaseError, load_case

CASES_DIR = Path("cases")


def case_dir(slug_or_path: str) -> Path:
    p = Path(slug_or_path)
    if p.name == "case.toml":
        p = p.parent
    if not (p / "case.toml").is_file():
        p = CASES_DIR / slug_or_path
    if not (p / "case.toml").is_file():
        raise SystemExit(f"iree-regress: no case {slug_or_path!r} (looked for {p / 'case.toml'})")
    return p


def cmd_golden(args) -> int:
    from .reference import write_golden

    status = 0
    for slug in args.cases:
        d = case_dir(slug)
        try:
            case = load_case(d / "case.toml")
        except CaseError as e:
            print(f"iree-regress: {e}", file=sys.stderr)
            status = 1
            continue
        if case.reference_program is None:
            print(f"{case.slug}: no PyTorch program (kind {case.kind}); nothing to write")
            continue
        inputs, outputs = write_golden(case.reference_program, d)
        print(f"{case.slug}: wrote {len(inputs)} input(s), {len(outputs)} expected output(s) "
              f"from {case.reference_program.name}")
    return status


def cmd_env(args) -> int:
    from .report import environment
    from .toolchain import resolve

    tc = resolve(args.iree_tools_dir)
    devices = {t: targets.list_devices(str(tc.run_module), targets.PROFILES[t].driver)
               for t in ("vulkan", "hip", "cuda")}
    print(json.dumps(environment(tc, devices), indent=2))
    return 0


def cmd_run(args, rest) -> int:
    import pytest

    return pytest.main([str(CASES_DIR), *rest])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="iree-regress", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("run", help="run the cases with pytest (extra args go to pytest)")
    g = sub.add_parser("golden", help="write inputs/ and expected/ of cases from PyTorch")
    g.add_argument("cases", nargs="+", help="case slugs or directories")
    e = sub.add_parser("env", help="print the toolchain and devices this machine has")
    e.add_argument("--iree-tools-dir", default=None)
    args, rest = parser.parse_known_args(argv)
    if args.command == "run":
        return cmd_run(args, rest)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    return {"golden": cmd_golden, "env": cmd_env}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
