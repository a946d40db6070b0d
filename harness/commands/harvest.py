"""`iree-regress harvest`: an upstream report's text -> a case, scanned over the releases.
The harvest package reads the thread and plans the case; this command prints the plan,
makes each planned case in a scratch folder, scans it (prove --scan --write) and moves
the one that reproduces into cases/."""

from __future__ import annotations

import sys
from pathlib import Path

from ..case import CASES_DIR


def add_parsers(sub) -> dict:
    from .history import release_source_options

    h = sub.add_parser("harvest", help="an upstream report's text -> a case, scanned over the releases")
    h.add_argument("thread", type=Path, nargs="*", help="the issue's text: markdown saved from the browser, or "
                                                        "`gh issue view N -R owner/repo --comments` (default: "
                                                        "--issue fetched with gh); several files or a folder of "
                                                        "them: each harvested in turn, then a yield table")
    h.add_argument("--issue", default=None, help="owner/repo#N (default: the one the text names; without "
                                                 "THREAD, fetched with gh), or owner/repo to complete gh's `number:`")
    h.add_argument("--slug", default=None, help="the case's folder (default: from the title)")
    h.add_argument("--attach", action="append", default=[], metavar="NAME=FILE",
                   help="a program the thread only links to, saved as FILE")
    h.add_argument("--reference", type=Path, default=None, metavar="REFERENCE_PY",
                   help="for an MLIR program whose thread reports wrong numbers: reference.py "
                        "(example_inputs(), reference()), the golden")
    h.add_argument("--no-scan", action="store_true", help="write the case without scanning the releases")
    h.add_argument("--keep", action="store_true", help="write the case even when no release reproduces it "
                                                       "(marked unreproduced: never PROVEN)")
    release_source_options(h)
    return {"harvest": cmd_harvest}


THREAD_SUFFIXES = (".md", ".txt", ".json")


def cmd_harvest(args) -> int:
    """One thread (harvest_one), or several: each harvested in turn, whatever the others
    did, then one yield table (thread, kind, what was written or why not, seconds)."""
    import copy
    import time

    files = []
    for given in args.thread:
        files += sorted(f for f in given.iterdir() if f.suffix in THREAD_SUFFIXES) if given.is_dir() else [given]
    if len(files) <= 1:
        args.thread = files[0] if files else None
        return harvest_one(args, {})
    if args.slug:
        print("harvest: --slug names one case: not with several threads", file=sys.stderr)
        return 2
    rows = []
    for path in files:
        one, said = copy.copy(args), {}
        one.thread = path
        start = time.monotonic()
        try:
            code = harvest_one(one, said)
        except Exception as e:  # one thread's trouble never stops the others; said in its row
            code, said["written"] = 2, f"{type(e).__name__}: {e}"
        rows.append((path.name, said.get("kind", "-"), {0: "written", 1: "nothing", 2: "refused"}.get(code, str(code)),
                     said.get("written", ""), time.monotonic() - start))
    print("\n| thread | kind | result | written, or why not | s |\n|---|---|---|---|---|")
    for name, kind, result, written, seconds in rows:
        print(f"| {name} | {kind} | {result} | {' '.join(written.split())[:200].replace('|', '/')} | {seconds:.0f} |")
    written = sum(r[2] == "written" for r in rows)
    print(f"\nharvest: {written} of {len(rows)} threads written")
    return 0 if written == len(rows) else 1


def harvest_one(args, said: dict) -> int:
    """`said` gets the case's kind and what was written (its window) or why not.

    Read the thread, make the case in a scratch folder, scan it over the releases
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
        if args.reference is not None and not args.reference.is_file():
            raise HarvestError(f"--reference {args.reference}: no such file (reference.py: example_inputs(), "
                               "reference())")
        golden = args.reference is not None
        plans = [plan_case(t, attached, j, golden) for j in blocks or [None]]
    except (OSError, HarvestError) as e:
        print(f"harvest: {args.thread or args.issue}: {e}", file=sys.stderr)
        said["written"] = str(e)
        return 2
    slug = args.slug or slug_of(t.title)
    print(f"harvest: {issue}: {t.title or '(no title)'}")
    said["kind"] = _kind(plans[0])
    if (CASES_DIR / slug).exists():
        print(f"harvest: {CASES_DIR / slug} already exists: give --slug", file=sys.stderr)
        said["written"] = f"{CASES_DIR / slug} already exists"
        return 2
    if blocks:
        print(f"harvest: {len(t.programs)} MLIR blocks and the command names none: each is scanned")
    with tempfile.TemporaryDirectory(prefix="harvest-") as scratch:
        tried, apart = [], {}
        for n, plan in enumerate(plans):
            _print_plan(t, plan)
            try:
                made = _make_harvested(Path(scratch) / str(n), slug, issue, t, plan, args.reference)
            except HarvestError as e:
                print(f"harvest: {e}", file=sys.stderr)
                said["written"] = str(e)
                return 2
            if plan.unchecked_numbers and not args.no_scan:
                # Wrong numbers with no golden: no release can show this bug, and a compile
                # error or crash the releases show is another bug, said apart, never this one.
                quoted, apart[made] = None, _failures_apart(made, args)
            else:
                quoted = None if args.no_scan else _scan_harvested(made, t, plan, args)
            tried.append((plan, made, quoted))
        try:
            plan, made, quoted = choose_reproducing(tried, t.quoted)
        except HarvestError as e:
            print(f"harvest: {e}; nothing written", file=sys.stderr)
            said["written"] = str(e)
            return 2
        if not args.no_scan:
            case = load_case(made / "case.toml", require_golden=False)
            if quoted is None and plan.unchecked_numbers:
                # Never a golden from a release's output: without one, the case keeps its
                # compile items, says why, and is never PROVEN.
                others = apart.get(made, [])
                for line in others:
                    print(f"harvest: the releases also show, not this thread's bug: {line}")
                _mark_unreproduced(made, t, [], "the thread reports wrong numbers and gives no golden (no "
                                   "PyTorch snippet, no stated values): its items only compile; harvest "
                                   "again with --reference reference.py (example_inputs(), reference())"
                                   + "".join(f"; the releases also show another failure, not this thread's "
                                             f"bug: {line}" for line in others))
            elif quoted is None:
                if not args.keep:
                    print("harvest: no release shows a bug this case could hold (the table above); nothing "
                          "written (--keep writes it as unreproduced)")
                    said["written"] = "no release shows a bug the case could hold"
                    return 1
                from ..history.releases import available
                from .history import source_of

                _mark_unreproduced(made, t, available(source_of(args)))
            elif t.quoted and not quoted:
                print(f"harvest: the thread quotes {t.quoted!r}; the releases print "
                      f"/{case.history.bad_match.pattern}/ ({case.history.describe()})")
        shutil.move(str(made), CASES_DIR / slug)
    history = load_case(CASES_DIR / slug / "case.toml", require_golden=False).history
    said["written"] = f"cases/{slug}: {history.describe()}" + (f" ({history.status})" if history.status in (
        "unreproduced", "unknown") else "")
    print(f"harvest: wrote {CASES_DIR / slug}; next: iree-regress "
          + (f"prove {slug} --scan --write" if args.no_scan else f"prove {slug} && iree-regress lint {slug}"))
    return 0


def _kind(plan) -> str:
    """The case a plan makes, in a word (as scaffold.new_case decides it)."""
    from ..scaffold import case_kind

    return case_kind(bool(plan.stated or plan.said or plan.from_torch), plan.ir_args is not None,
                     plan.inputs is not None)


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
    for flag in plan.dropped:  # never carried into the case, nor into the release scan
        print(f"  dropped {flag}")
    print(f"  the reporter ran: {t.version or '(not said)'}")
    if plan.inputs is not None:
        print(f"  a run case: {len(plan.inputs)} input(s) from the thread's iree-run-module command, no golden")
    if plan.stated:
        print(f"  the correct results: {len(plan.stated)} value(s) its check ops state ("
              + ", ".join(f"{s.value} = dense<{s.literal}>, atol {s.atol:g}" for s in plan.stated) + "): the golden")
    if plan.differ:
        (target_a, flags_a), (target_b, flags_b) = plan.differ
        print(f"  the bug is a difference: a {target_a} {' '.join(flags_a) or '(no more flags)'} vs "
              f"b {target_b} {' '.join(flags_b) or '(no more flags)'}, on the same inputs")
    print(f"  the thread quotes: {t.quoted or '(no error line)'}; it reports "
          + (plan.outcome or "no outcome: the releases decide"))
    if plan.unchecked_numbers:
        print("  the thread says its results are wrong, and gives no golden (no PyTorch snippet, no stated "
              "values): its items only compile unless --reference reference.py gives one")


def _make_harvested(scratch: Path, slug: str, issue: str, t, plan, given: Path | None) -> Path:
    """The case, made from the plan under `scratch` (new_case: a golden is PyTorch's: the
    snippet's, the values the thread states, or the user's reference.py `given`, made in
    the sandbox)."""
    from ..harvest import HarvestError, stated_reference
    from ..harvest.stated import stated_reference as said_reference
    from ..scaffold import ScaffoldError, differ_table, new_case

    scratch.mkdir(parents=True)
    source = scratch / ("model.py" if plan.from_torch else "program.mlir")
    source.write_text(plan.program)
    reference = scratch / "reference.py" if plan.stated or plan.said or given else None
    if reference:
        reference.write_text(stated_reference(plan.stated) if plan.stated else
                             said_reference(plan.said, plan.said_results, plan.said_inputs) if plan.said else
                             given.read_text())
    tolerance, tolerance_reason = plan.tolerance()
    try:
        made = new_case(scratch / "cases", slug, [issue], t.title or None,
                        from_mlir=None if plan.from_torch else source,
                        from_torch=str(source) if plan.from_torch else None, reference=reference,
                        targets=[plan.target], flags=plan.flags, ir_args=plan.ir_args, run_inputs=plan.inputs,
                        function=plan.function, tolerance=tolerance, tolerance_reason=tolerance_reason,
                        frontend=plan.frontend,
                        differ=differ_table(*plan.differ, plan.outputs) if plan.differ else "")
    except ScaffoldError as e:
        raise HarvestError(str(e)) from None
    from ..harvest.program import only_named

    seeded = only_named(t.run_commands[0]) if t.run_commands and (plan.inputs or plan.said_inputs) else []
    _say_where_it_came_from(made / "README.md", issue, plan.origin, bool(plan.stated), plan.inputs is not None,
                            plan.said.quote if plan.said else "", seeded, plan.differ)
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
    # The thread quotes no error, and the releases fail in more than one way (it says no
    # outcome, or it reports a crash whose frames differ from release to release): the
    # program fails, the thread says, so on an open bug its failure is the newest
    # release's (said as a guess); releases failing otherwise are hidden ones, never its
    # bug. A thread that reports a crash is never given a diagnostic.
    newest = _newest_failure(made, args)
    if newest is None or (plan.outcome is not None and newest[0] != plan.outcome):
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


def _failures_apart(made: Path, args) -> list[str]:
    """'outcome on releases: message' of each failure the releases show the made case with:
    reported beside a wrong-numbers thread that has no golden, never as its bug."""
    from ..case import load_case
    from ..history.prove import items_to_prove, run_release
    from ..history.releases import available
    from ..item import settings_with
    from ..outcomes import PASS_OUTCOME, SKIP_OUTCOME
    from ..toolchain import installed
    from .history import source_of

    case = load_case(made / "case.toml", require_golden=False)
    settings, source = settings_with(installed()), source_of(args)
    seen: dict[str, tuple[list[str], str]] = {}
    for version in available(source):
        run = run_release(case, version, items_to_prove(case), settings, source, log=lambda _: None)
        for r in run.results:
            if r.outcome not in (PASS_OUTCOME, SKIP_OUTCOME):
                versions, said = seen.setdefault(r.outcome, ([], r.failure_text().splitlines()[0][:160]))
                if version not in versions:
                    versions.append(version)
    return [f"{o} on {', '.join(vs)}: {said}" for o, (vs, said) in seen.items()]


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


def _say_where_it_came_from(readme: Path, issue: str, origin: str, stated: bool, runs: bool,
                            quote: str = "", seeded: list[str] = (), differ=None) -> None:
    """The scaffold's README says its program came from a file; a harvested one came from
    the thread, and where a golden came from is said in the case's own words."""
    text = readme.read_text()
    start = text.index("## The reproducer")
    end = text.index("## Measured", start)
    said = (f"## The reproducer\n\nHarvested from {issue}'s text by `iree-regress harvest`: {origin}.")
    if differ:
        (target_a, flags_a), (target_b, flags_b) = differ
        said += (f" The thread's bug is a difference: its two iree-compile commands (a: {target_a} "
                 f"{' '.join(flags_a) or 'without the flags'}; b: {target_b} {' '.join(flags_b) or 'without the flags'}) "
                 "give different results. The case's `[[differ]]` item compiles both on each release and runs them on "
                 "the same inputs; a release is bad where they disagree beyond the dtype's tolerance"
                 + (" (the golden says which side is wrong)." if stated or quote else
                    "; with no golden, the difference alone is the bug, not which side is right."))
        if runs and not seeded:
            said += (" The thread runs neither with values it gives: the inputs (`inputs/`) are seeded "
                     "(numpy's default_rng([0, argument index]): normal floats, integers 0-3) of the types the "
                     "program's entry function states.")
    elif runs:
        said += (" Its inputs (`inputs/`) are the `--input=` values of the thread's iree-run-module command; "
                 "the case has no golden (kind `run`): the run failing is the bug, running to the end the pass.")
    if stated:
        said += (" The program ended in check ops (an iree-check-module test); it returns the values they "
                 "checked instead, and the golden (`expected/`, through `reference.py`) is what those ops state "
                 "as correct. No IREE release's output is a golden.")
    if seeded:  # harvest/program.py: SEED, one stream per argument
        said += (f" The thread only names {', '.join(f'`{n}`' for n in seeded)}: those inputs are seeded "
                 "(numpy's default_rng([0, argument index]): normal floats, integers 0-3) of the types the "
                 "program's entry function states.")
    if quote:  # the golden the thread states in its prose (harvest/stated.py)
        said += (" The golden (`expected/`, through `reference.py`) is the output stated in the thread, quoted "
                 "below; the tolerance is at least half a unit of the last digit printed. No IREE release's output is "
                 "a golden.\n\n" + "\n".join(f"> {line}" for line in quote.splitlines()))
    readme.write_text(text[:start] + said + "\n\n" + text[end:])


def _mark_unreproduced(case_dir: Path, thread, releases: list[str], why: str = "") -> None:
    """A harvested case no release reproduced, kept (--keep, or wrong numbers with no
    golden: `why`): its [history] says so and what was measured, so lint passes it and
    prove never calls it PROVEN."""
    from ..history.casefile import toml_value, write_atomic

    manifest = case_dir / "case.toml"
    reason = why or (f"harvested from the thread: no release {releases[0]}..{releases[-1]} showed "
                     + (f"its failure ({thread.quoted})" if thread.quoted else "a failure")
                     + (f"; the reporter ran {thread.version}" if thread.version else ""))
    write_atomic(manifest, manifest.read_text().replace(
        'status = "unknown"', f'status = "unreproduced"\nreason = {toml_value(reason)}', 1))
    print(f"harvest: kept as unreproduced: {reason}")
