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
    iree-regress history NIGHTS_DIR [--out F]       outcomes and measurements over recent nights
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
import sys
import time
from pathlib import Path

from .case import CASES_DIR, FAMILIES, CaseError, discover, find_case
from .item import ItemId, run_item, settings_with
from .refs import parse_ref
from .outcomes import WRONG_NUMBERS


def _own_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("iree-regress")
    except PackageNotFoundError:
        return "(not installed)"


def cmd_golden(args) -> int:
    from .reference import write_golden

    for slug in args.cases:
        case = find_case(slug, require_golden=False)
        if case.reference_program is None:
            print(f"{case.slug}: no PyTorch program (kind {case.kind}); nothing to write")
            continue
        inputs, outputs = write_golden(case.reference_program, case.dir)
        print(f"{case.slug}: wrote {len(inputs)} input(s), {len(outputs)} expected output(s) "
              f"from {case.reference_program.name}")
    return 0


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


def cmd_list(args) -> int:
    """Every case with its family, status and measured windows (from case.toml alone),
    grouped and counted by family; --markdown gives docs/families.md."""
    rows, invalid = [], []
    for manifest in discover(CASES_DIR):
        try:
            rows.append(find_case(str(manifest)))
        except CaseError as e:
            invalid.append(f"{manifest.parent.name}: INVALID: {e}")
    families = {f: [c for c in rows if c.family == f] for f in sorted({c.family for c in rows})}
    if args.markdown:
        print(_families_markdown(families))
    else:
        print(f"{'case':<48} {'kind':<8} {'status':<7} {'windows (bug outcome)':<52} issues")
        for family, cases in families.items():
            print(f"-- {_family_line(family, cases)}")
            for case in cases:
                h = case.history
                bug = f" ({'/'.join(h.bad_outcomes)})" if h.bad_outcomes else ""
                print(f"{case.slug:<48} {case.kind:<8} {h.status:<7} {h.describe() + bug:<52} {_cites(case)}")
    for line in invalid:
        print(line)
    return 1 if invalid else 0


def _cites(case) -> str:
    return " ".join(case.issues) or f"found by {case.found_by}"


def _family_line(family: str, cases) -> str:
    windows = [c for c in cases if c.history.windows]
    wrong = [c for c in windows if WRONG_NUMBERS in c.history.bad_outcomes]
    guards = sum(c.history.status == "guard" for c in cases)
    return (f"{family}: {len(cases)} cases, {len(windows)} with measured windows "
            f"({len(wrong)} wrong numbers), {guards} guards")


def _families_markdown(families) -> str:
    from .item import ItemId

    out = ["# The mission families", "",
           "Made by `iree-regress list --markdown` from the cases' `[history]`: windows measured",
           "on every release with `iree-regress prove <slug> --scan --write`. Targets and levels",
           "are those the bug was measured on (vulkan runs on every release through the lavapipe",
           "layer; hip and cuda compile only here).", ""]
    for family, cases in families.items():
        out += [f"## {_family_line(family, cases)}", "",
                "| case | status | windows | bug outcome | targets | levels | cites |",
                "|---|---|---|---|---|---|---|"]
        for c in cases:
            items = [ItemId.parse(n) for n in c.history.bad_items]
            targets = sorted({i.target for i in items if i.target})
            targets += ["ir"] if any(i.is_ir for i in items) else []
            levels = sorted({i.opt_level for i in items if i.opt_level})
            out.append(f"| {c.slug} | {c.history.status} | {c.history.describe() if c.history.windows else '-'} "
                       f"| {'/'.join(c.history.bad_outcomes) or '-'} | {', '.join(targets) or '-'} "
                       f"| {', '.join(levels) or '-'} | {_cites(c)} |")
        out.append("")
    return "\n".join(out)


def cmd_lint(args) -> int:
    from .lint import latest_failures, lint_case, lint_sweep

    from .sweep.spec import SWEEPS_DIR, discover as discover_sweeps

    manifests = [find_case(s).manifest for s in args.cases] if args.cases else discover(CASES_DIR)
    sweeps = [] if args.cases else discover_sweeps(SWEEPS_DIR)
    failures = latest_failures(args.results)
    if not failures:
        print(f"lint: no failures in {args.results} to test matches against; "
              "generic matches are not checked")
    problems = [p for m in manifests for p in lint_case(m, failures)]
    problems += [p for s in sweeps for p in lint_sweep(s, failures)]
    for p in problems:
        print(p)
    print(f"lint: {len(manifests)} case(s), {len(sweeps)} sweep(s), {len(problems)} problem(s)")
    return 1 if problems else 0


def cmd_report(args) -> int:
    """Markdown + HTML from a results file; with --fail-on-regression, exit 1 when the
    gate fails (against --previous: new failures, unexpected passes, errors, vanished
    items; without it: every failure, unexpected pass and error)."""
    from . import quarantine
    from .render import html_page, markdown
    from .summary import build

    try:
        held = quarantine.load(args.quarantine)
    except quarantine.QuarantineError as e:
        raise SystemExit(f"iree-regress: {e}") from None
    nights = []
    if args.history:
        from .nights import load_nights

        nights = [n.items for n in load_nights(args.history, args.nights)]
    model = build(args.results, args.previous, held, nights=nights)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.junit:
        from .junit import write_junit

        write_junit(model.items, args.junit)
    (out / "summary.md").write_text(markdown(model))
    (out / "report.html").write_text(html_page(model))
    for w in model.warnings:
        print(f"warning: {w}", file=sys.stderr)
    print(f"wrote {out / 'summary.md'} and {out / 'report.html'} ({len(model.items)} items: "
          + ", ".join(f"{n} {s}" for s, n in model.counts.items() if n) + ")")
    for g in model.groups:
        print(f"  {g.outcome} x{len(g.items)}: {g.signature}")
    if model.diff is not None:
        d = model.diff
        print(f"since {args.previous}: {len(d.new_failures)} new failures, "
              f"{len(d.unexpected_passes)} unexpected passes, {len(d.errors)} errors, "
              f"{len(d.gone)} vanished items, {len(d.new_passes)} new passes, "
              f"{len(d.time_changes)} compile-time changes")
    gate = model.gate_lines()
    for line in gate:
        print(f"  gate: {line}")
    for flag in model.perf:
        print(f"  perf: {flag.line}")
    if args.fail_on_perf and model.perf:
        return 1
    return 1 if args.fail_on_regression and gate else 0


def cmd_history(args) -> int:
    """history.html over a folder of nights."""
    from .nights import load_nights, page

    start = time.monotonic()
    nights = load_nights(args.nights_dir, args.last, lambda w: print(f"warning: {w}", file=sys.stderr))
    if not nights:
        raise SystemExit(f"iree-regress: no results files in {args.nights_dir} (*.jsonl or */results.jsonl)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(page(nights))
    print(f"wrote {args.out}: {len(nights)} nights, "
          f"{len({k for n in nights for k in n.items})} items ({time.monotonic() - start:.1f} s)")
    return 0


def cmd_repro(args) -> int:
    """One bundle per item: CASE::ITEM, or every matrix item of CASE."""
    from .bundle import write_bundle
    from .toolchain import resolve

    if args.release:
        from .commands.history import source_of
        from .history.releases import ensure

        settings = settings_with(ensure(args.release, source_of(args)))
    else:
        settings = settings_with(resolve(args.iree_tools_dir))
    # A whole case means its matrix items (ir checks have no bundle; named alone, one says so).
    wanted = [(case, i) for case, item in map(parse_ref, args.items)
              for i in ([item] if item else [i for i in ItemId.of(case) if not i.is_ir])
              if not args.target or i.target in args.target.split(",")]
    written = 0
    for case, name in wanted:
        result = run_item(case, name, settings)
        # one item: --out is the bundle; several: one subfolder each
        out = Path(args.out) / f"{case.slug}--{name}" if len(wanted) > 1 else Path(args.out)
        try:
            write_bundle(case, result, settings, out, force=args.force)
        except ValueError as e:
            print(f"skip: {e}")
            continue
        written += 1
        print(f"{case.slug}::{name}: {result.outcome} -> {out} (run.sh, ISSUE.md)")
    return 0 if written else 1


def cmd_expect(args) -> int:
    """Rewrite cases' [[expect]] entries (and open windows) from a run's results."""
    from .expect_update import update_case
    from .results import merge_results

    if not args.update:
        raise SystemExit("iree-regress: expect needs --update (the only action)")
    _, records = merge_results(args.results, lambda w: print(f"warning: {w}", file=sys.stderr))
    by_case: dict[str, list] = {}
    for r in records:
        by_case.setdefault(r.case, []).append(r)
    slugs = args.cases or sorted(by_case)
    changed = 0
    for slug in slugs:
        if slug not in by_case:
            print(f"{slug}: no results in {' '.join(map(str, args.results))}")
            continue
        update = update_case(find_case(slug), by_case[slug])
        if not update.changed:
            continue
        changed += 1
        print(update.diff(), end="")
        for note in update.notes:
            print(f"# {slug}: {note}")
        if args.write:
            update.case.manifest.write_text(update.new)
    print(f"expect --update: {changed} case(s) {'rewritten' if args.write else 'would change (add --write)'}")
    return 0


def cmd_run_bundle(args) -> int:
    from .bundle_run import run_bundle

    if args.results:
        from .bundle_results import write_bundle_results

        return write_bundle_results([Path(d) for d in args.bundles], args.results, args.device)
    status = 0
    for d in args.bundles:
        status = max(status, run_bundle(Path(d), args.device))
    return status


def cmd_new_case(args) -> int:
    from .scaffold import ScaffoldError, new_case

    try:
        d = new_case(CASES_DIR, args.slug, args.issue, args.title, args.from_mlir, args.reference,
                     args.from_torch, args.function, family=args.family)
    except (ScaffoldError, OSError, AttributeError) as e:
        raise SystemExit(f"iree-regress new-case: {e}")
    print(f"wrote {d}: now fill in README.md, the issue's flags, and run "
          f"`iree-regress prove {args.slug} --scan --bad-outcome <outcome> --write`")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="iree-regress", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version",
                        version=f"iree-regress {_own_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    # Each wing registers its own commands (parsers and handlers).
    from .commands.history import add_parsers as add_history_parsers, release_source_options
    from .commands.sweep import add_parser as add_sweep_parser
    from .commands.triage import add_parser as add_triage_parser

    sub.add_parser("run", help="run the cases with pytest (extra args go to pytest)")
    g = sub.add_parser("golden", help="write inputs/ and expected/ of cases from PyTorch")
    g.add_argument("cases", nargs="+", help="case slugs or directories")
    e = sub.add_parser("env", help="print the toolchain and devices this machine has")
    e.add_argument("--iree-tools-dir", default=None)
    e.add_argument("--json", action="store_true", help="the fingerprint reports carry, as JSON")

    ls = sub.add_parser("list", help="every case by family with its status, windows and issues")
    ls.add_argument("--markdown", action="store_true", help="per-family tables (docs/families.md)")
    lt = sub.add_parser("lint", help="check expectations, history and tolerances of cases")
    lt.add_argument("cases", nargs="*", help="case slugs (default: all)")
    lt.add_argument("--results", type=Path, default=Path("reports/results.jsonl"),
                    help="latest results: a match that also matches another case's failure "
                         "there is generic")
    rb = sub.add_parser("repro", help="write reproducer bundles (input, module, run.sh, ISSUE.md)")
    rb.add_argument("items", nargs="+", help="CASE::ITEM, or CASE for all its matrix items")
    rb.add_argument("--out", required=True, help="bundle folder (one subfolder per item if several)")
    rb.add_argument("--target", default=None, help="only these targets, e.g. cuda,vulkan")
    rb.add_argument("--iree-tools-dir", default=None)
    rb.add_argument("--release", default=None, help="use this IREE release (installed, cached)")
    rb.add_argument("--force", action="store_true",
                    help="replace --out even when it holds files a bundle does not write")
    release_source_options(rb)
    hs = sub.add_parser("history", help="history.html: outcomes and measurements over recent nights")
    hs.add_argument("nights_dir", type=Path, help="one results file per night (*.jsonl or */results.jsonl)")
    hs.add_argument("--last", type=int, default=30, help="how many recent nights")
    hs.add_argument("--out", type=Path, default=Path("reports/history.html"))
    ex = sub.add_parser("expect", help="rewrite [[expect]] entries from a run's results")
    ex.add_argument("cases", nargs="*", help="case slugs (default: every case in the results)")
    ex.add_argument("--update", action="store_true", help="scope expectations to what was measured")
    ex.add_argument("--from", dest="results", type=Path, nargs="+", default=[Path("reports/results.jsonl")],
                    help="a run's results.jsonl, or the shards of one run")
    ex.add_argument("--write", action="store_true", help="write the cases (default: show the diff)")
    rr = sub.add_parser("run-bundle", help="run bundles' modules here and compare (runtime only)")
    rr.add_argument("bundles", nargs="+")
    rr.add_argument("--device", default=None, help="e.g. cuda://0 (default: the first listed)")
    rr.add_argument("--results", type=Path, default=None,
                    help="also write results.jsonl lines (verdicts by the cases' expectations), "
                         "to merge with the compile-only results of the run that made the bundles")
    rp = sub.add_parser("report", help="Markdown + HTML report from results.jsonl")
    rp.add_argument("results", nargs="*", type=Path, default=[Path("reports/results.jsonl")],
                    help="one run's results, or the shards of one run (merged)")
    rp.add_argument("--history", type=Path, default=None,
                    help="a folder of earlier nights' results: measurements are compared with them")
    rp.add_argument("--nights", type=int, default=14, help="with --history: how many recent nights")
    rp.add_argument("--fail-on-perf", action="store_true",
                    help="exit 1 when a measurement left its item's own noise (see harness/perf.py)")
    rp.add_argument("--quarantine", type=Path, default=Path("quarantine.toml"),
                    help="items whose failures show but do not gate until their expiry date")
    rp.add_argument("--junit", type=Path, default=None, help="also write JUnit XML of the (merged) items here")
    rp.add_argument("--previous", type=Path, default=None, help="a previous run's results.jsonl")
    rp.add_argument("--out", default="reports", help="folder for summary.md and report.html")
    rp.add_argument("--fail-on-regression", action="store_true",
                    help="exit 1 when the gate fails: new failures, unexpected passes, errors "
                         "(cases not loaded, harness errors, dead workers), vanished items")
    n = sub.add_parser("new-case", help="scaffold a case from an MLIR file or a PyTorch module")
    n.add_argument("slug")
    n.add_argument("--issue", action="append", default=[], required=True,
                   help="upstream issue, owner/repo#N (repeatable)")
    n.add_argument("--title", default=None)
    src = n.add_mutually_exclusive_group(required=True)
    src.add_argument("--from-mlir", type=Path, help="the input IR")
    src.add_argument("--from-torch", help="module.py:Class (module defines example_inputs())")
    n.add_argument("--reference", type=Path, default=None,
                   help="with --from-mlir: reference.py (example_inputs(), reference()) for a numeric case")
    n.add_argument("--function", default=None, help="entry function (default: the first func)")
    n.add_argument("--family", default="other", choices=FAMILIES, help="the family the bug belongs to")

    commands = {**add_history_parsers(sub), **add_triage_parser(sub), **add_sweep_parser(sub)}
    args, rest = parser.parse_known_args(argv)
    from .process import become_subreaper

    become_subreaper()  # tools' orphaned children come back here and are killed
    if args.command == "run":
        return cmd_run(rest)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    commands.update({"golden": cmd_golden, "env": cmd_env, "new-case": cmd_new_case, "report": cmd_report,
                     "list": cmd_list, "lint": cmd_lint, "repro": cmd_repro, "run-bundle": cmd_run_bundle,
                     "expect": cmd_expect, "history": cmd_history})
    try:
        return commands[args.command](args)
    except CaseError as e:  # a malformed case: its own message names file and field
        raise SystemExit(f"iree-regress: {e}") from None


if __name__ == "__main__":
    sys.exit(main())
