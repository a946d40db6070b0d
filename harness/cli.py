"""`iree-regress`: the command line around the suite.

    iree-regress run [PYTEST ARGS]                 pytest cases/ with the plugin
    iree-regress golden SLUG...                    write a case's inputs/ and expected/ from PyTorch
    iree-regress env                               toolchain, package versions, devices here
    iree-regress list                              every case: kind, status, window, issues
    iree-regress bisect CASE::ITEM --good V --bad V
                                                   first release where the item's outcome changes
    iree-regress prove [SLUG...]                   run cases on their known-bad / known-good releases
    iree-regress prove SLUG --scan [--write]       every release: outcome table and bug windows
    iree-regress lint [SLUG...]                    expectations precise, history consistent
    iree-regress report [RESULTS...] [--previous OLD]  summary.md + report.html (+ what changed);
                                                   several RESULTS (shards) are merged
    iree-regress repro CASE[::ITEM] --out DIR      reproducer bundle(s): input, module, run.sh, ISSUE.md
    iree-regress run-bundle DIR...                 run bundled modules here (runtime + numpy only)
    iree-regress triage CASE::ITEM --out DIR       bisect, reduce, find the phase and pass: ISSUE.md
    iree-regress nights NIGHTS_DIR [--out F]        outcomes and measurements over recent nights
    iree-regress expect --update [SLUG...] --from RESULTS [--write]
                                                   expectations rewritten from measured results
    iree-regress new-case SLUG --from-mlir F | --from-torch M.py:Class --issue owner/repo#N
    iree-regress sweep list|expect|promote|scan ... family sweeps (harness/commands/sweep.py)
    iree-regress git-bisect-run CASE::ITEM --tools-dir DIR
                                                   exit 0 good / 1 bad / 125 skip, for `git bisect run`
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from .case import CASES_DIR, CaseError


def _own_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("iree-regress")
    except PackageNotFoundError:
        return "(not installed)"


def cmd_env(args) -> int:
    from .results import environment
    from .toolchain import ToolchainError, resolve

    try:
        env = environment(resolve(args.iree_tools_dir))
    except ToolchainError as e:
        raise SystemExit(f"iree-regress: {e}") from None
    if args.json:
        print(json.dumps(env, indent=2))
        return 0
    print(f"IREE compiler   {env['compiler_version']} @ {env['compiler_revision'][:12]} ({env['toolchain']})")
    print(f"IREE runtime    {env['runtime_version']}")
    print("packages        " + ", ".join(f"{k} {v}" for k, v in env["packages"].items() if v))
    print(f"host CPU        {env['host_cpu']} ({env['machine']}): what -target-cpu=host compiles for")
    for driver, devices in env["devices"].items():
        names = [d.get("name", "?") for d in env.get("device_info", {}).get(driver, [])]
        print(f"{driver + ' devices':<16}{', '.join(names or devices) or 'none (items compile only)'}")
    return 0


def cmd_run(rest) -> int:
    import pytest

    return pytest.main([str(CASES_DIR), *rest])


def build_parser() -> tuple[argparse.ArgumentParser, dict]:
    """The command line and each command's handler (tests parse the README's commands with it)."""
    parser = argparse.ArgumentParser(prog="iree-regress", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version",
                        version=f"iree-regress {_own_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    # Each wing registers its own commands (parsers and handlers).
    from .commands import bundles, cases, harvest, history, report, sweep, triage

    sub.add_parser("run", help="run the cases with pytest (extra args go to pytest)")
    e = sub.add_parser("env", help="print the toolchain and devices this machine has")
    e.add_argument("--iree-tools-dir", default=None)
    e.add_argument("--json", action="store_true", help="the fingerprint reports carry, as JSON")

    commands = {"env": cmd_env}
    for wing in (cases, harvest, report, bundles, history, triage, sweep):
        commands.update(wing.add_parsers(sub))
    return parser, commands


def main(argv=None) -> int:
    parser, commands = build_parser()
    args, rest = parser.parse_known_args(argv)
    from .process import become_subreaper

    become_subreaper()  # tools' orphaned children come back here and are killed
    if args.command == "run":
        return cmd_run(rest)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    try:
        return commands[args.command](args)
    except CaseError as e:  # a malformed case: its own message names file and field
        raise SystemExit(f"iree-regress: {e}") from None
    except BrokenPipeError:  # `iree-regress prove | head`: the reader left, nothing is lost
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
