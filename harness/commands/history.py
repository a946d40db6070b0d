"""The release-history commands: `bisect`, `git-bisect-run`, `prove` (cli.py registers them).

    iree-regress bisect CASE::ITEM --good V --bad V   first release where the item's outcome changes
    iree-regress git-bisect-run CASE::ITEM --tools-dir DIR
                                                      exit 0 good / 1 bad / 125 skip
    iree-regress prove [SLUG...]                      cases on their known-bad / known-good releases
    iree-regress prove SLUG --scan [--write]          every release: outcome table and windows
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
import time
from pathlib import Path

from packaging.version import Version

from ..case import CASES_DIR, CaseError, discover, find_case
from ..item import ItemId, settings_with
from ..refs import parse_ref


def release_source_options(p) -> None:
    """Where releases come from: PyPI, or a find-links page / wheel folder."""
    p.add_argument("--find-links", default=None,
                   help="a find-links page (IREE nightlies) or a folder of wheels")
    p.add_argument("--no-index", action="store_true",
                   help="use only --find-links, not the package index")


def bug_options(p, when: str = "", default: str = " (default: the case's)") -> None:
    """--bad-outcome / --bad-match: the bug a command looks for, when not the case's (bug_of)."""
    p.add_argument("--bad-outcome", default=None,
                   help=f"{when}comma-separated outcomes that count as the bug{default}")
    p.add_argument("--bad-match", default=None,
                   help=f"{when}regex the failure must match to count as the bug{default}")


def add_parsers(sub) -> dict:
    """The history commands' parsers; returns command -> handler."""
    b = sub.add_parser("bisect", help="find the first release where an item's outcome changes")
    b.add_argument("item", help="CASE::ITEM, e.g. topk-dynamic-slice::cpu-O3")
    b.add_argument("--good", required=True, help="a version where the item is good")
    b.add_argument("--bad", required=True, help="a version where the item shows the bug")
    bug_options(b)
    b.add_argument("--tools-dir", type=Path, default=None,
                   help="bisect local builds: DIR/<sortable name>/iree-compile ... instead of releases")
    b.add_argument("--retries", type=int, default=0,
                   help="probe each version this many extra times; disagreement = flaky = skip")
    release_source_options(b)
    r = sub.add_parser("git-bisect-run", help="one probe for `git bisect run` (exit 0/1/125)")
    r.add_argument("item", help="CASE::ITEM")
    r.add_argument("--tools-dir", required=True, help="folder with the build's iree-compile etc.")
    bug_options(r)
    p = sub.add_parser("prove", help="run cases on their known-bad and known-good releases")
    p.add_argument("cases", nargs="*", help="case slugs (default: all)")
    p.add_argument("--newest", default=None, help="release to check open bugs on (default: newest)")
    p.add_argument("--json", default=None, help="also write the results as JSON here")
    p.add_argument("--scan", action="store_true",
                   help="run one case on every release (or --versions) and print its window")
    p.add_argument("--versions", default=None, help="with --scan: comma-separated releases")
    p.add_argument("--items", default=None, help="with --scan: comma-separated items")
    bug_options(p, "with --scan: ", " (default: the case's, else measured)")
    p.add_argument("--shard", default=None, help="K/N: prove the K-th of N even shares of the cases")
    p.add_argument("--release-shard", default=None,
                   help="K/N: check only the K-th of N runs of consecutive releases (merge with --merge)")
    p.add_argument("--merge", nargs="+", default=None, metavar="PROVE_JSON",
                   help="one proof per case from the --json files of a matrix of machines")
    p.add_argument("--write", action="store_true",
                   help="with --scan: write [history] windows and the bug's [[expect]] entries")
    p.add_argument("--window-issue", action="append", default=[], metavar="J=OWNER/REPO#N",
                   help="with --write: the issue window J (0 = the oldest) is; kept from the case on a rescan")
    p.add_argument("--force", action="store_true",
                   help="with --write: replace hand-written [[expect]] entries of the bug too (else kept and shown)")
    release_source_options(p)
    return {"bisect": cmd_bisect, "git-bisect-run": cmd_git_bisect_run, "prove": cmd_prove}


def bug_of(case, args):
    """The case's bug, with --bad-outcome / --bad-match overrides (harness/bug.py)."""
    from ..bug import Bug, BugUndefined

    outcomes = tuple(args.bad_outcome.split(",")) if getattr(args, "bad_outcome", None) else None
    try:
        return Bug.of(case, outcomes, getattr(args, "bad_match", None))
    except (BugUndefined, ValueError) as e:
        raise SystemExit(f"iree-regress: {e}") from None


def source_of(args):
    from ..history.releases import ReleaseSource

    return ReleaseSource(args.find_links, args.no_index)


def cmd_bisect(args) -> int:
    from ..history import releases
    from ..history.bisect import format_result
    from ..history.probe import bisect_item, toolchains_in

    case, item = parse_ref(args.item)
    if item is None:
        raise SystemExit("iree-regress: bisect needs one item: CASE::ITEM (e.g. ::cpu-O3)")
    bug = bug_of(case, args)
    # Oldest first: release versions by PEP 440, local builds by folder name (name them sortably).
    builds = toolchains_in(args.tools_dir) if args.tools_dir else {}
    ordered = list(builds) if builds else releases.available(source_of(args))
    for end in (args.good, args.bad):
        if end not in ordered:
            raise SystemExit(f"iree-regress: version {end} is not available "
                             f"(have: {', '.join(ordered)})")
    lo, hi = sorted((ordered.index(args.good), ordered.index(args.bad)))
    span = ordered[lo:hi + 1]
    fixed_search = ordered.index(args.good) > ordered.index(args.bad)
    if fixed_search:
        span.reverse()  # walk from the good (newer) end back to the bad one
    print(f"bisect {case.slug}::{item} over {len(span)} versions {span[0]} .. {span[-1]}; "
          f"bad = {bug.description}")
    result, results = bisect_item(case, item, bug, span, source_of(args), builds, args.retries,
                                  log=lambda line: print(line, flush=True))
    for line in format_result(result, "fixed" if fixed_search else "broken"):
        print(line)
    if result.error:
        return 2
    print(f"answer: first {'fixed' if fixed_search else 'broken'} release: "
          f"{result.last_good if fixed_search else result.first_bad}")
    bad_result = results.get(result.first_bad)
    if bad_result is not None:
        print(f"reproducer ({result.first_bad}): {bad_result.reproducer()}")
    return 0


def cmd_git_bisect_run(args) -> int:
    """Exit codes for `git bisect run`: 0 good, 1 bad, 125 skip (never 'bad' for a
    build that is missing or cannot start: that is not the bug)."""
    from ..outcomes import PROBE_BAD
    from ..history.probe import EXIT_SKIP, git_bisect_exit, probe_toolchain
    from ..toolchain import ToolchainError, from_tools_dir

    try:
        case, item = parse_ref(args.item)
        bug = bug_of(case, args)
    except (CaseError, SystemExit) as e:
        print(e, file=sys.stderr)
        return EXIT_SKIP
    if item is None:
        print("iree-regress: git-bisect-run needs CASE::ITEM", file=sys.stderr)
        return EXIT_SKIP
    try:
        tc = from_tools_dir(Path(args.tools_dir))
    except (ToolchainError, OSError) as e:
        print(f"skip: no usable build in {args.tools_dir}: {e}", file=sys.stderr)
        return EXIT_SKIP
    probe, result = probe_toolchain(case, item, bug, tc)
    print(f"{case.slug}::{item} on {tc.describe()}: {probe.outcome} -> {probe.state}")
    if probe.state == PROBE_BAD:
        print(f"reproducer: {result.reproducer()}")
    return git_bisect_exit(probe.state)


def credited(case, found, given: list[str]):
    """Each window found with its issue: --window-issue J=owner/repo#N, else the issue of
    the case's window it overlaps (a rescan keeps what a person said)."""
    from ..case import ISSUE_REF

    issues = {}
    for spec in given:
        j, _, ref = spec.partition("=")
        if not j.isdigit() or not ISSUE_REF.fullmatch(ref) or int(j) >= len(found):
            raise CaseError(f"--window-issue {spec!r}: J=owner/repo#N with J < {len(found)} (the windows found)")
        issues[int(j)] = ref
    out = []
    for j, w in enumerate(found):
        old = next((o.issue for o in case.history.windows if o.issue and not (
            Version(o.last_bad) < Version(w.first_bad) or Version(w.last_bad) < Version(o.first_bad))), "")
        out.append(dataclasses.replace(w, issue=issues.get(j, old)))
    return tuple(out)


def cmd_scan(args, case) -> int:
    """prove --scan: every release (or --versions), a table, and the bug's windows."""
    from ..history.prove import items_to_prove, run_release
    from ..history.releases import available, sort_versions
    from ..bug import Bug
    from ..history.window import failures_seen, inferred_outcome, outcome_table, windows
    from ..history.others import other_failures
    from ..outcomes import PROBE_BAD
    from ..history.writeback import expectations_for, write_scan
    from ..toolchain import installed

    # Known before the scan (a misspelt --bad-outcome or --bad-match stops here, not after 15 releases).
    if getattr(args, "bad_match", None):
        try:
            re.compile(args.bad_match)
        except re.error as e:
            raise SystemExit(f"iree-regress: --bad-match {args.bad_match!r}: {e}") from None
    bug = bug_of(case, args) if getattr(args, "bad_outcome", None) or case.history.bad_outcomes else None
    if bug is None:
        print(f"{case.slug} records no bug outcome and none was given (--bad-outcome): it is "
              "inferred from the releases when one failure stands out")
    versions = sort_versions(args.versions.split(",")) if args.versions else available(source_of(args))
    # The whole matrix by default: the bug's windows come from its items, and what the
    # other items show on each release is written beside them (history/others.py).
    items = [ItemId.parse(n) for n in args.items.split(",")] if args.items else ItemId.of(case)
    bug_names = {i.name for i in items_to_prove(case)}
    # A write replaces [history] and the bug's expectations whole: from a scan of some
    # releases or items it would forget the rest (15 releases becoming 3, O0-O3 becoming O0).
    skipped = [v for v in available(source_of(args)) if v not in versions] if args.write and args.versions else []
    left_out = ([i.name for i in ItemId.of(case) if i.name not in {j.name for j in items}]
                if args.write and args.items else [])
    if skipped or left_out:
        print(f"not written: a scan of some releases or items would forget the others "
              f"({', '.join(skipped + left_out)}); scan without --versions/--items to write, or without --write "
              "to look")
        return 1
    settings = settings_with(installed())
    runs = []
    for v in versions:
        start = time.monotonic()
        runs.append(run_release(case, v, items, settings, source_of(args), log=print))
        print(f"  {v}: {time.monotonic() - start:.1f} s", flush=True)
    for line in outcome_table(runs, items):
        print(line)
    scanned = runs

    def of_items(names):  # each release's results of these items alone
        return [dataclasses.replace(r, results=[x for x in r.results if x.name in names]) for r in scanned]

    runs = of_items(bug_names)
    seen = failures_seen(runs)
    if bug is None:
        outcome = inferred_outcome(runs)
        if outcome is None and not seen:
            print("no release fails: no bug to write; nothing written.")
            return 2
        if outcome is None:
            print("no single failure stands out: " + "; ".join(f"{o} on {', '.join(vs)}" for o, vs in seen.items())
                  + ". Give --bad-outcome (and --bad-match) and scan again; nothing written.")
            return 2
        print(f"bug outcome inferred: {outcome} (the only failure the releases showed)")
        bug = Bug.of(case, (outcome,), getattr(args, "bad_match", None))
    # An item outside the bug's that fails with the bug's outcome and message is the bug there.
    shows = {x.name for r in scanned for x in r.results if x.name not in bug_names and bug.state(x).kind == PROBE_BAD}
    if shows:
        print(f"the bug shows on {', '.join(sorted(shows))} too: measured as its items")
        bug_names |= shows
        runs = of_items(bug_names)
    beside = {o: vs for o, vs in seen.items() if o not in bug.outcomes}
    for o, vs in beside.items():  # a failure of the bug's items beside the bug: said, never folded into it
        print(f"also seen, not the bug: {o} on {', '.join(vs)}")
    measured = windows(runs, bug)
    # The bug's own items belong to its windows there (the bug, or what hides it next to a
    # window); on the other releases their failures are looked at like any other item's.
    order = [r.version for r in scanned]
    spans = [(order.index(w.hidden_before or w.first_bad), order.index(w.hidden_after or w.last_bad))
             for w in measured.windows if {w.hidden_before or w.first_bad, w.hidden_after or w.last_bad} <= set(order)]
    # What hides the bug (measured.hidden) is written as its own entry: not again as "beside".
    hidden = {(f"{h.scope}-{name}", v) for h in measured.hidden for name in h.names for v in h.versions}
    others = other_failures(case, scanned, lambda x, version: (x.name, version) in hidden or (
        x.name in bug_names and (
            bug.state(x).kind == PROBE_BAD or any(lo <= order.index(version) <= hi for lo, hi in spans))))
    for other in others:  # the rest of the matrix: what no expectation explains
        print(f"also seen beside the bug, no expectation takes it "
              f"({', '.join(sorted(i.name for i in other.items))}):\n"
              + "\n".join("  " + line for line in other.block().splitlines()))
    for w in measured.windows:
        print(f"window: last_good={w.last_good} first_bad={w.first_bad} last_bad={w.last_bad} "
              f"first_good={w.first_good or '(open)'}"
              + (f" hidden_before={w.hidden_before} ({w.hidden_by})" if w.hidden_before else "")
              + (f" hidden_after={w.hidden_after} ({w.hidden_after_by})" if w.hidden_after else ""))
    for j, w in enumerate(measured.windows):
        if w.bad_match is not None:
            print(f"window {j}: its own message: {'/'.join(w.bad_outcomes) or 'the bug'} matching /{w.bad_match.pattern}/")
    print(f"status={measured.status} items={', '.join(measured.items)} match={measured.match}")
    unmatched = [j for j, w in enumerate(measured.windows) if w.bad_match is None and not measured.match]
    wordless = [o for o in others if o.match is None]
    if args.write and wordless:
        print(f"not written: no message could be derived for the failures of "
              f"{', '.join(sorted(i.name for o in wordless for i in o.items))} (not the bug); "
              "expect them by hand and scan again")
        return 1
    if args.write and unmatched:
        # A window without its bug's message would take any failure of its outcome for it.
        print(f"not written: no message could be derived for window(s) {', '.join(map(str, unmatched))} "
              "(the failing texts differ); give --bad-match and scan again")
        return 1
    if args.write:
        measured = dataclasses.replace(measured, windows=credited(case, measured.windows, args.window_issue))
        kept = write_scan(case, bug, measured, force=args.force, others=[o.block() for o in others])
        for block in kept:  # never replaced silently: shown beside what the scan measured
            print("kept a hand-written expectation of this bug (--force replaces it):\n"
                  + "\n".join("  " + line for line in block.splitlines()))
        if kept:
            print("the scan measured (written beside it):\n"
                  + "\n".join("  " + line for b in expectations_for(case, bug, measured) for line in b.splitlines()))
        print(f"wrote [history] and the bug's [[expect]] entries to {case.manifest}")
    return 0


def cmd_prove(args) -> int:
    from ..history.prove import prove_case
    from ..history.releases import available
    from ..toolchain import installed

    if args.scan:
        if len(args.cases) != 1:
            raise SystemExit("iree-regress: prove --scan takes exactly one case")
        return cmd_scan(args, find_case(args.cases[0]))
    if args.merge:
        return _merge_proofs(args)
    cases, broken = [], []
    for manifest in ([find_case(s).manifest for s in args.cases] if args.cases else discover(CASES_DIR)):
        try:
            cases.append(find_case(str(manifest)))
        except CaseError as e:
            broken.append(str(e))
            print(f"NOT LOADED: {e}")
    if args.shard:  # the weekly matrix: each machine proves an even share of the cases
        from .. import shard

        try:
            k, n = shard.parse(args.shard)
        except shard.ShardError as e:
            raise SystemExit(f"iree-regress: {e}") from None
        placed = shard.assign({c.slug: [c.slug] for c in cases}, {}, n)
        cases = [c for c in cases if placed[c.slug] == k - 1]
        broken = broken if k == 1 else []  # a case that does not load is said once
        print(f"prove: shard {k}/{n}: {len(cases)} cases")
    versions = available(source_of(args))
    newest = args.newest or versions[-1]
    only = None
    if args.release_shard:  # the weekly matrix: each machine installs a share of the releases
        from ..history.releases import release_share
        from ..shard import ShardError

        try:
            only = set(release_share(versions, args.release_shard))
        except ShardError as e:
            raise SystemExit(f"iree-regress: {e}") from None
        print(f"prove: releases {', '.join(sorted(only, key=versions.index)) or '(none)'}")
    settings = settings_with(installed())
    proofs = []
    for case in cases:
        start = time.monotonic()
        proof = prove_case(case, settings, newest, source_of(args), only=only)
        proofs.append(proof)
        print(f"{case.slug}: {proof.status} {case.history.describe()} "
              f"({time.monotonic() - start:.0f} s){': ' + proof.note if proof.note else ''}")
        for check in proof.checks:
            print(f"    {check.line()}")
    counts: dict[str, int] = {}
    for p in proofs:
        counts[p.status] = counts.get(p.status, 0) + 1
    print("prove: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
          + (f", {len(broken)} NOT LOADED" if broken else ""))
    if args.json:
        Path(args.json).write_text(json.dumps([p.as_dict() for p in proofs], indent=1))
    return 1 if broken or any(p.failed for p in proofs) else 0


def _merge_proofs(args) -> int:
    """prove --merge A.json B.json ...: one proof per case from a matrix of machines."""
    from ..history.prove import merge_proofs

    proofs = [p for f in args.merge for p in json.loads(Path(f).read_text())]
    merged = merge_proofs(proofs)
    counts: dict[str, int] = {}
    for m in merged.values():
        counts[m["status"]] = counts.get(m["status"], 0) + 1
        if m["status"] not in ("PROVEN", "GUARD"):
            print(f"{m['case']}: {m['status']}{': ' + m['note'] if m['note'] else ''}")
            for c in m["checks"]:
                print(f"    {c['ok']} {c['role']} {c['version']}: {c['detail'][:120]}")
    print(f"prove --merge: {len(args.merge)} files, " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    if args.json:
        Path(args.json).write_text(json.dumps(list(merged.values()), indent=1))
    return 0 if all(m["status"] in ("PROVEN", "GUARD") for m in merged.values()) else 1
