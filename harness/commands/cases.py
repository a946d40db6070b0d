"""The cases' commands: `golden`, `list`, `lint`, `expect --update`, `new-case`. cli.py
registers them."""

from __future__ import annotations

import sys
from pathlib import Path

from ..case import CASES_DIR, FAMILIES, CaseError, discover, find_case
from ..outcomes import NUMBERS_OUTCOMES

def add_parsers(sub) -> dict:
    g = sub.add_parser("golden", help="write inputs/ and expected/ of cases from PyTorch")
    g.add_argument("cases", nargs="+", help="case slugs or directories")
    ls = sub.add_parser("list", help="every case by family with its status, windows and issues")
    ls.add_argument("--markdown", action="store_true", help="per-family tables (docs/families.md)")
    lt = sub.add_parser("lint", help="check expectations, history and tolerances of cases")
    lt.add_argument("cases", nargs="*", help="case slugs (default: all)")
    lt.add_argument("--results", type=Path, default=Path("reports/results.jsonl"),
                    help="latest results: a match that also matches another case's failure "
                         "there is generic")
    ex = sub.add_parser("expect", help="rewrite [[expect]] entries from a run's results")
    ex.add_argument("cases", nargs="*", help="case slugs (default: every case in the results)")
    ex.add_argument("--update", action="store_true", help="scope expectations to what was measured")
    ex.add_argument("--from", dest="results", type=Path, nargs="+", default=[Path("reports/results.jsonl")],
                    help="a run's results.jsonl, or the shards of one run")
    ex.add_argument("--write", action="store_true", help="write the cases (default: show the diff)")
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
    n.add_argument("--family", default=None, choices=FAMILIES,
                   help="the family the bug belongs to (default: from the program's ops)")
    n.add_argument("--target", dest="targets", type=lambda s: s.split(","), default=None,
                   help="comma-separated targets of the matrix (default: those the program names, "
                        "else cpu)")
    return {"golden": cmd_golden, "list": cmd_list, "lint": cmd_lint, "expect": cmd_expect,
            "new-case": cmd_new_case}


def cmd_golden(args) -> int:
    """The case's PyTorch program writes its inputs/ and expected/, in the sandbox (a
    stranger's case runs nothing here that it could not run in the suite)."""
    from ..item import settings_with
    from ..reference import npy_files
    from ..stages import write_golden_sandboxed
    from ..toolchain import resolve

    settings = settings_with(resolve())
    status = 0
    for slug in args.cases:
        case = find_case(slug, require_golden=False)
        if case.reference_program is None:
            print(f"{case.slug}: no PyTorch program (kind {case.kind}); nothing to write")
            continue
        made = write_golden_sandboxed(case.reference_program, case.dir, settings, case.frontend, case.spread)
        if not made.ok:
            print(f"{case.slug}: {case.reference_program.name} could not run: {made.detail}", file=sys.stderr)
            status = 1
            continue
        print(f"{case.slug}: wrote {len(npy_files(case.dir / 'inputs'))} input(s), "
              f"{len(npy_files(case.dir / 'expected'))} expected output(s) from {case.reference_program.name} "
              f"({case.reference_name})")
    return status


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
    return " ".join(case.threads) or f"found by {case.found_by}"


def _family_line(family: str, cases) -> str:
    windows = [c for c in cases if c.history.windows]
    wrong = [c for c in windows if set(NUMBERS_OUTCOMES) & set(c.history.bad_outcomes)]
    guards = sum(c.history.status == "guard" for c in cases)
    return (f"{family}: {len(cases)} cases, {len(windows)} with measured windows "
            f"({len(wrong)} wrong numbers), {guards} guards")


def _families_markdown(families) -> str:
    from ..item import ItemId

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
            targets += sorted({i.scope for i in items if not i.is_matrix})
            levels = sorted({i.opt_level for i in items if i.opt_level})
            out.append(f"| {c.slug} | {c.history.status} | {c.history.describe() if c.history.windows else '-'} "
                       f"| {'/'.join(c.history.bad_outcomes) or '-'} | {', '.join(targets) or '-'} "
                       f"| {', '.join(levels) or '-'} | {_cites(c)} |")
        out.append("")
    return "\n".join(out)


def cmd_lint(args) -> int:
    from ..lint import (declared_matches, declared_same_as, latest_failures, lint_case, lint_explained, lint_sweep,
                        of_the_tree, stored_failures)

    from ..sweep.spec import SWEEPS_DIR, discover as discover_sweeps, sweeps_by_name

    manifests = [find_case(s).manifest for s in args.cases] if args.cases else discover(CASES_DIR)
    sweeps = [] if args.cases else discover_sweeps(SWEEPS_DIR)
    failures, gone = of_the_tree(latest_failures(args.results),
                                 {m.parent.name for m in discover(CASES_DIR)} | set(sweeps_by_name()))
    stored = stored_failures()  # every case's, whichever are linted: the messages to test against
    print(f"lint: matches tested against {len(stored)} stored failure(s) of the cases"
          + (f" and {len(failures)} failure(s) in {args.results}" if failures else "")
          + (f" ({len(gone)} of cases no longer in the tree left out: "
             f"{', '.join(sorted({r.case for r in gone}))})" if gone else ""))
    same_as = declared_same_as(failures)
    problems = [p for m in manifests for p in lint_case(m, failures, same_as, stored)]
    matches = declared_matches(failures)
    problems += [p for s in sweeps for p in lint_sweep(s, failures, stored, same_as, matches)]
    if not args.cases:
        problems += lint_explained(failures=failures)
    if not args.cases:  # the whole suite: the quarantine names only what it has
        from ..report import quarantine

        try:
            problems += quarantine.missing_from_suite(quarantine.load(CASES_DIR.parent / "quarantine.toml"))
        except quarantine.QuarantineError as e:
            problems.append(str(e))
    for p in problems:
        print(p)
    unchecked = [p for p in problems if getattr(p, "unchecked", False)]
    problems = [p for p in problems if p not in unchecked]
    print(f"lint: {len(manifests)} case(s), {len(sweeps)} sweep(s), {len(problems)} problem(s)"
          + (f", {len(unchecked)} claim(s) unchecked" if unchecked else ""))
    return 1 if problems else 0


def cmd_expect(args) -> int:
    """Rewrite cases' [[expect]] entries (and open windows) from a run's results."""
    from ..history.casefile import write_atomic
    from ..history.update import update_case
    from ..results import merge_results

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
            write_atomic(update.case.manifest, update.new)
    print(f"expect --update: {changed} case(s) {'rewritten' if args.write else 'would change (add --write)'}")
    return 0


def cmd_new_case(args) -> int:
    from ..scaffold import ScaffoldError, new_case

    try:
        d = new_case(CASES_DIR, args.slug, args.issue, args.title, args.from_mlir, args.reference,
                     args.from_torch, args.function, family=args.family, targets=args.targets)
    except (ScaffoldError, OSError, AttributeError) as e:
        raise SystemExit(f"iree-regress new-case: {e}")
    case = find_case(str(d), require_golden=False)
    print(f"family {case.family}, targets {', '.join(case.targets)} (from the program unless given: "
          "--family, --target)")
    print(f"wrote {d}: now fill in README.md, the issue's flags, and run "
          f"`iree-regress prove {args.slug} --scan --bad-outcome <outcome> --write`")
    return 0
