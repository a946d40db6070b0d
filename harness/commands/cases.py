"""The cases' commands: `golden`, `list`, `lint`, `expect --update`, `new-case`. cli.py
registers them."""

from __future__ import annotations

import sys
from pathlib import Path

from ..case import CASES_DIR, FAMILIES, CaseError, discover, find_case
from ..outcomes import WRONG_NUMBERS

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
    add_harvest_parser(sub)
    return {"golden": cmd_golden, "list": cmd_list, "lint": cmd_lint, "expect": cmd_expect,
            "new-case": cmd_new_case, "harvest": cmd_harvest}


def add_harvest_parser(sub) -> None:
    from .history import release_source_options

    h = sub.add_parser("harvest", help="an upstream report's text -> a case, scanned over the releases")
    h.add_argument("thread", type=Path, nargs="?", help="the issue's text: markdown saved from the browser, or "
                                                        "`gh issue view N -R owner/repo --comments` (default: "
                                                        "--issue fetched with gh)")
    h.add_argument("--issue", default=None, help="owner/repo#N (default: the one the text names; without "
                                                 "THREAD, fetched with gh), or owner/repo to complete gh's `number:`")
    h.add_argument("--slug", default=None, help="the case's folder (default: from the title)")
    h.add_argument("--attach", action="append", default=[], metavar="NAME=FILE",
                   help="a program the thread only links to, saved as FILE")
    h.add_argument("--no-scan", action="store_true", help="write the case without scanning the releases")
    h.add_argument("--keep", action="store_true", help="write the case even when no release reproduces it "
                                                       "(marked unreproduced: never PROVEN)")
    release_source_options(h)


def cmd_harvest(args) -> int:
    """Read the thread, make the case in a scratch folder, scan it over the releases
    (prove --scan --write), and move it into cases/ only when the releases show a bug. Of
    several MLIR blocks that the thread's command does not name, each is made and scanned,
    and the one that reproduces is the case (harvest/choice.py)."""
    import shutil
    import tempfile

    from ..case import load_case
    from ..harvest import HarvestError, blocks_to_try, check_issue, choose_reproducing, plan_case, slug_of

    try:
        t, attached = _read_harvest_input(args)
        issue = check_issue(args.issue if args.issue and "#" in args.issue else t.issue)
        blocks = blocks_to_try(t, attached)
        if blocks and (args.no_scan or args.keep):
            raise HarvestError(f"the thread holds {len(t.programs)} MLIR blocks and its command names none: only "
                               "a scan tells which reproduces (not with --no-scan or --keep); or save the "
                               "thread's program and give --attach NAME=FILE")
        plans = [plan_case(t, attached, j) for j in blocks] if blocks else [plan_case(t, attached)]
    except (OSError, HarvestError) as e:
        print(f"harvest: {args.thread or args.issue}: {e}", file=sys.stderr)
        return 2
    slug = args.slug or slug_of(t.title)
    print(f"harvest: {issue}: {t.title or '(no title)'}")
    if (CASES_DIR / slug).exists():
        print(f"harvest: {CASES_DIR / slug} already exists: give --slug", file=sys.stderr)
        return 2
    if blocks:
        print(f"harvest: {len(t.programs)} MLIR blocks and the command names none: each is scanned")
    with tempfile.TemporaryDirectory(prefix="harvest-") as scratch:
        tried = []
        for n, plan in enumerate(plans):
            _print_plan(t, plan)
            try:
                made = _make_harvested(Path(scratch) / str(n), slug, issue, t, plan)
            except HarvestError as e:
                print(f"harvest: {e}", file=sys.stderr)
                return 2
            quoted = None if args.no_scan else _scan_harvested(made, t, plan, args)
            tried.append((plan, made, quoted))
        try:
            plan, made, quoted = choose_reproducing(tried, t.quoted)
        except HarvestError as e:
            print(f"harvest: {e}; nothing written", file=sys.stderr)
            return 2
        if not args.no_scan:
            case = load_case(made / "case.toml", require_golden=False)
            if quoted is None:
                if not args.keep:
                    print("harvest: no release shows a bug this case could hold (the table above); nothing "
                          "written (--keep writes it as unreproduced)")
                    return 1
                from ..history.releases import available
                from .history import source_of

                _mark_unreproduced(made, t, available(source_of(args)))
            elif t.quoted and not quoted:
                print(f"harvest: the thread quotes {t.quoted!r}; the releases print /{case.history.bad_match.pattern}/ "
                      f"({case.history.describe()})")
        shutil.move(str(made), CASES_DIR / slug)
    print(f"harvest: wrote {CASES_DIR / slug}; next: iree-regress "
          + (f"prove {slug} --scan --write" if args.no_scan else f"prove {slug} && iree-regress lint {slug}"))
    return 0


def _read_harvest_input(args):
    """(the thread, the programs given with --attach): HarvestError or OSError on bad input."""
    from ..harvest import HarvestError, fetch_thread, read_thread

    repo = (args.issue or "").split("#")[0]
    text = args.thread.read_text(errors="replace") if args.thread else fetch_thread(args.issue)
    attached = {}
    for spec in args.attach:
        name, _, file = spec.partition("=")
        if not file or not Path(file).is_file():
            raise HarvestError(f"--attach {spec!r}: NAME=FILE with FILE a saved program")
        attached[name] = Path(file).read_text(errors="replace")
    return read_thread(text, repo), attached


def _print_plan(t, plan) -> None:
    print(f"  program: {plan.origin}, {len(plan.program.splitlines())} lines")
    print(f"  command: {' '.join(plan.command) if t.commands or t.opt_commands else '(none quoted)'}")
    if plan.ir_args is None:
        print(f"  target {plan.target}, flags {' '.join(plan.flags) or '(none)'}"
              + (f"; guessed: {plan.guessed}" if plan.guessed else ""))
    else:
        print(f"  an IR case: iree-opt {' '.join(plan.ir_args)} must complete (no iree-compile command quoted)")
    print(f"  the reporter ran: {t.version or '(not said)'}")
    if plan.inputs is not None:
        print(f"  a run case: {len(plan.inputs)} input(s) from the thread's iree-run-module command, no golden")
    if plan.stated:
        print(f"  the correct results: {len(plan.stated)} value(s) its check ops state ("
              + ", ".join(f"{s.value} = dense<{s.literal}>, atol {s.atol:g}" for s in plan.stated) + "): the golden")
    print(f"  the thread quotes: {t.quoted or '(no error line)'}; it reports "
          + (plan.outcome or "no outcome: the releases decide"))


def _make_harvested(scratch: Path, slug: str, issue: str, t, plan) -> Path:
    """The case, made from the plan under `scratch` (new_case: a golden is PyTorch's, the
    snippet's or the values the thread states, made in the sandbox)."""
    from ..harvest import HarvestError, stated_reference
    from ..scaffold import ScaffoldError, new_case

    scratch.mkdir(parents=True)
    source = scratch / ("model.py" if plan.from_torch else "program.mlir")
    source.write_text(plan.program)
    reference = scratch / "reference.py" if plan.stated else None
    if reference:
        reference.write_text(stated_reference(plan.stated))
    tolerance, tolerance_reason = plan.tolerance()
    try:
        made = new_case(scratch / "cases", slug, [issue], t.title or None,
                        from_mlir=None if plan.from_torch else source,
                        from_torch=str(source) if plan.from_torch else None, reference=reference,
                        targets=[plan.target], flags=plan.flags, ir_args=plan.ir_args, run_inputs=plan.inputs,
                        function=plan.function, tolerance=tolerance, tolerance_reason=tolerance_reason)
    except ScaffoldError as e:
        raise HarvestError(str(e)) from None
    _say_where_it_came_from(made / "README.md", issue, plan.origin, bool(plan.stated), plan.inputs is not None)
    return made


def _scan_harvested(made: Path, t, plan, args) -> bool | None:
    """Scan the releases and write the windows into the made case: True when they show
    the failure the thread quotes, False another failure of the outcome it reports (or
    that the releases infer), None when no release shows a bug. The quote is tried first,
    then what the releases print (release runs are cached, so the second scan is cheap).
    A failure that is not the thread's is said by the scan, never written as its bug."""
    from ..harvest import quoted_match

    tries = [(plan.outcome, quoted_match(t.quoted)), (plan.outcome, None)]
    for j, (bad_outcome, match) in enumerate(dict.fromkeys(tries)):
        if _scan_writes_a_window(made, bad_outcome, match, args):
            return j == 0 and match is not None
    if t.quoted:
        return None
    # The thread quotes no error and the releases fail in more than one way: the program
    # fails, the thread says, so on an open bug its failure is the newest release's (said
    # as a guess); releases failing otherwise are hidden ones, never its bug.
    newest = _newest_failure(made, args)
    if newest is None:
        return None
    print(f"harvest: the thread quotes no error; its bug is taken to be the newest release's failure: "
          f"{newest[0]} /{newest[1]}/ (a guess: check it against the thread)")
    return False if _scan_writes_a_window(made, *newest, args) else None


def _scan_writes_a_window(made: Path, bad_outcome: str | None, match: str | None, args) -> bool:
    import argparse

    from ..case import load_case
    from .history import cmd_scan

    scan = argparse.Namespace(write=True, force=False, versions=None, items=None, window_issue=[],
                              bad_outcome=bad_outcome, bad_match=match, find_links=args.find_links,
                              no_index=args.no_index)
    return cmd_scan(scan, load_case(made / "case.toml", require_golden=False)) == 0 and \
        bool(load_case(made / "case.toml", require_golden=False).history.windows)


def _newest_failure(made: Path, args) -> tuple[str, str] | None:
    """(outcome, message) of what the newest release prints for the case when every item
    fails one way there (its run is cached from the scan), else None."""
    from ..case import load_case
    from ..history.message import derive_match
    from ..history.prove import items_to_prove, run_release
    from ..history.releases import available
    from ..item import settings_with
    from ..outcomes import PASS_OUTCOME, SKIP_OUTCOME
    from ..toolchain import installed
    from .history import source_of

    case = load_case(made / "case.toml", require_golden=False)
    newest = available(source_of(args))[-1]
    run = run_release(case, newest, items_to_prove(case), settings_with(installed()), source_of(args),
                      log=lambda _: None)
    failing = [r for r in run.results if r.outcome not in (PASS_OUTCOME, SKIP_OUTCOME)]
    if not failing or len(failing) < len(run.results) or len({r.outcome for r in failing}) != 1:
        return None
    match = derive_match(failing)
    return (failing[0].outcome, match) if match else None


def _say_where_it_came_from(readme: Path, issue: str, origin: str, stated: bool, runs: bool) -> None:
    """The scaffold's README says its program came from a file; a harvested one came from
    the thread, and where a golden came from is said in the case's own words."""
    text = readme.read_text()
    start = text.index("## The reproducer")
    end = text.index("## Measured", start)
    said = (f"## The reproducer\n\nHarvested from {issue}'s text by `iree-regress harvest`: {origin}.")
    if runs:
        said += (" Its inputs (`inputs/`) are the `--input=` values of the thread's iree-run-module command; "
                 "the case has no golden (kind `run`): the run failing is the bug, running to the end the pass.")
    if stated:
        said += (" The program ended in check ops (an iree-check-module test); it returns the values they "
                 "checked instead, and the golden (`expected/`, through `reference.py`) is what those ops state "
                 "as correct. No IREE release's output is a golden.")
    readme.write_text(text[:start] + said + "\n\n" + text[end:])


def _mark_unreproduced(case_dir: Path, thread, releases: list[str]) -> None:
    """A harvested case no release reproduced, kept (--keep): its [history] says so and
    what was measured, so lint passes it and prove never calls it PROVEN."""
    from ..history.casefile import toml_value, write_atomic

    manifest = case_dir / "case.toml"
    reason = (f"harvested from the thread: no release {releases[0]}..{releases[-1]} showed "
              + (f"its failure ({thread.quoted})" if thread.quoted else "a failure")
              + (f"; the reporter ran {thread.version}" if thread.version else ""))
    write_atomic(manifest, manifest.read_text().replace(
        'status = "unknown"', f'status = "unreproduced"\nreason = {toml_value(reason)}', 1))
    print(f"harvest: kept as unreproduced: {reason}")


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
        made = write_golden_sandboxed(case.reference_program, case.dir, settings)
        if not made.ok:
            print(f"{case.slug}: {case.reference_program.name} could not run: {made.detail}", file=sys.stderr)
            status = 1
            continue
        print(f"{case.slug}: wrote {len(npy_files(case.dir / 'inputs'))} input(s), "
              f"{len(npy_files(case.dir / 'expected'))} expected output(s) from {case.reference_program.name}")
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
    wrong = [c for c in windows if WRONG_NUMBERS in c.history.bad_outcomes]
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
            targets += ["ir"] if any(i.is_ir for i in items) else []
            levels = sorted({i.opt_level for i in items if i.opt_level})
            out.append(f"| {c.slug} | {c.history.status} | {c.history.describe() if c.history.windows else '-'} "
                       f"| {'/'.join(c.history.bad_outcomes) or '-'} | {', '.join(targets) or '-'} "
                       f"| {', '.join(levels) or '-'} | {_cites(c)} |")
        out.append("")
    return "\n".join(out)


def cmd_lint(args) -> int:
    from ..lint import declared_same_as, latest_failures, lint_case, lint_sweep, stored_failures

    from ..sweep.spec import SWEEPS_DIR, discover as discover_sweeps

    manifests = [find_case(s).manifest for s in args.cases] if args.cases else discover(CASES_DIR)
    sweeps = [] if args.cases else discover_sweeps(SWEEPS_DIR)
    failures = latest_failures(args.results)
    stored = stored_failures()  # every case's, whichever are linted: the messages to test against
    print(f"lint: matches tested against {len(stored)} stored failure(s) of the cases"
          + (f" and {len(failures)} failure(s) in {args.results}" if failures else ""))
    same_as = declared_same_as(failures)
    problems = [p for m in manifests for p in lint_case(m, failures, same_as, stored)]
    problems += [p for s in sweeps for p in lint_sweep(s, failures, stored)]
    if not args.cases:  # the whole suite: the quarantine names only what it has
        from ..report import quarantine

        try:
            problems += quarantine.missing_from_suite(quarantine.load(CASES_DIR.parent / "quarantine.toml"))
        except quarantine.QuarantineError as e:
            problems.append(str(e))
    for p in problems:
        print(p)
    print(f"lint: {len(manifests)} case(s), {len(sweeps)} sweep(s), {len(problems)} problem(s)")
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
