"""`iree-regress sweep ...`: the commands about sweeps (cli.py registers them here).

    iree-regress sweep list [FAMILY...]             families, axes, variant and item counts
    iree-regress sweep ops [--counts N]             the op library, one op a line, where it applies
    iree-regress sweep recall --scan LABEL=DIR[,DIR] [--scan ...] [--write]
                                                    historic cases the scanned programs catch
                                                    (docs/recall.md)
    iree-regress sweep pick SWEEP... --holding OP[:DTYPE]|A>B[,...] [--dims D] [--count N]
                            [--level O0[,O3]] [--skip-share K/N] --out FILE
                                                    graph programs that hold the ops, fewest
                                                    ops first: a scan's --items-from
    iree-regress sweep coverage [--seeds N] [--write]
                                                    op pairs of the survey's threads the graph
                                                    programs hold (docs/coverage.md)
    iree-regress sweep expect [FAMILY...] --from RESULTS [--write]
                                                    [[expect]] drafts for a run's new failures
    iree-regress sweep promote FAMILY::VARIANT --slug SLUG [--issue owner/repo#N]
                                                    the variant written as a case (cases/SLUG)
    iree-regress sweep reduce SWEEP::VARIANT::ITEM [--release V] [--slug SLUG]
                                                    a failing generated program made small
                                                    (and promoted, with --slug)
    iree-regress sweep scan [FAMILY...] [--releases A,B|all] [--release-shard K/N]
                            [--target cpu] [--opt-level O0,O3] [--out scan/] [--report-only]
                            [--generated-share K/N] [--keep DIR]
                                                    the sweeps over releases: each item's windows
                                                    (--keep: the records, compact, to commit)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..case import CaseError
from ..sweep.spec import Sweep, load_sweep, sweeps_by_name


def add_parsers(sub) -> dict:
    sw = sub.add_parser("sweep", help="family sweeps: list them, draft expectations from a run")
    actions = sw.add_subparsers(dest="action", required=True)
    ls = actions.add_parser("list", help="each sweep: axes, variants, items, expectations")
    ls.add_argument("families", nargs="*")
    ops = actions.add_parser("ops", help="the op library a generated graph draws from, one op a line")
    ops.add_argument("--counts", type=int, default=0, metavar="N",
                     help="also how many of the graph sweeps' first N seeds each hold each op")
    cv = actions.add_parser("coverage", help="op pairs of the survey's threads the graph programs hold")
    cv.add_argument("--seeds", type=int, default=2048, help="the first N seeds of every graph sweep")
    cv.add_argument("--write", action="store_true", help="write docs/coverage.md")
    pk = actions.add_parser("pick", help="graph programs that hold given ops, as a scan's --items-from list")
    pk.add_argument("families", nargs="+", metavar="SWEEP", help="graph sweeps (wide-graph-3, int-graph, ...)")
    pk.add_argument("--holding", required=True, metavar="OP[:DTYPE][,...]",
                    help="ops every picked program holds (op:dtype: the value it made has that dtype; "
                         "a>b: a's value read by b)")
    pk.add_argument("--dims", default=None, help="static, dynamic, mixed, batch, per-dim or not-static")
    pk.add_argument("--count", type=int, default=16, help="how many programs (fewest ops first)")
    pk.add_argument("--target", default="cpu")
    pk.add_argument("--level", default="O0", help="opt levels of the items, comma-separated")
    pk.add_argument("--skip-share", default=None, metavar="K/N", help="leave out a share already scanned")
    pk.add_argument("--out", type=Path, required=True,
                    help="the list to write; one already there is added to (its programs skipped)")
    rc = actions.add_parser("recall", help="which historic cases the scanned generated programs catch")
    rc.add_argument("--scan", action="append", default=None, metavar="LABEL=DIR[,DIR]",
                    help="a generator's scan folders (sweep scan --out or --keep); repeat to set generators "
                         "side by side; default: the kept records scans/recall.toml names")
    rc.add_argument("--write", action="store_true", help="write docs/recall.md")
    wn = actions.add_parser("windows", help="cut the models' family ops and contractions out with their neighbours")
    wn.add_argument("--arch", action="append", help="only these architectures (default: the whole models table)")
    wn.add_argument("--write", action="store_true", help="write sweeps/windows/<family>.json.gz and each sweep's axis")
    ot = actions.add_parser("own-tests", help="IREE's own e2e check programs of a revision as the iree-e2e sweep")
    ot.add_argument("--mirror", required=True, help="a git clone (bare is enough) of iree-org/iree")
    ot.add_argument("--rev", required=True, help="the tag or commit whose tests/e2e to take")
    ot.add_argument("--write", action="store_true", help="write sweeps/own/e2e-<rev>.json and the sweep's axis")
    ot.add_argument("--lit", action="store_true",
                    help="the lit tests of the pass areas instead (sweeps/own/lit-<rev>.json.gz, the iree-lit sweep)")
    ex = actions.add_parser("expect", help="[[expect]] drafts for the failures of a run, exactly scoped")
    ex.add_argument("families", nargs="*")
    ex.add_argument("--from", dest="results", type=Path, nargs="+", default=[Path("reports/results.jsonl")],
                    help="a run's results.jsonl, or the shards of one run")
    ex.add_argument("--write", action="store_true", help="append the drafts to the sweeps' specs")
    ex.add_argument("--all", action="store_true",
                    help="draft for every failing item, known ones too (to write a sweep's expectations anew)")
    pr = actions.add_parser("promote", help="write a variant as a case: its program, golden, family")
    pr.add_argument("variant", help="<sweep>::<variant>[::item], as results name it")
    pr.add_argument("--slug", required=True, help="the new case's folder name under cases/")
    pr.add_argument("--issue", action="append", default=[],
                    help="upstream issue, owner/repo#N (repeatable); none: found_by the sweep")
    pr.add_argument("--title", default=None)
    rd = actions.add_parser("reduce", help="a failing generated program with what its failure does not need left out")
    rd.add_argument("item", help="<sweep>::<variant>::<item>, as results name it (e.g. ...::cpu-O0)")
    rd.add_argument("--slug", default=None, help="promote the reduced program as cases/SLUG")
    rd.add_argument("--issue", action="append", default=[], help="with --slug: upstream issue, owner/repo#N")
    rd.add_argument("--title", default=None)
    rd.add_argument("--release", default=None, metavar="VERSION",
                    help="reduce on this PyPI release (a bug fixed since: on a release that has it); "
                         "default: the installed compiler")
    sc = actions.add_parser("scan", help="run sweeps over releases; report each item's windows")
    sc.add_argument("families", nargs="*")
    sc.add_argument("--releases", default="all", help="comma-separated versions, or 'all' (PyPI)")
    sc.add_argument("--release-shard", default=None, metavar="K/N",
                    help="only the K-th of N runs of consecutive releases (the weekly matrix)")
    sc.add_argument("--target", default="cpu")
    sc.add_argument("--opt-level", default="O0,O3")
    sc.add_argument("--out", type=Path, default=Path("scan"))
    sc.add_argument("--generated-share", default=None, metavar="K/N",
                    help="of the generated sweeps, only the K-th of N shares of their seeds")
    sc.add_argument("--items-from", type=Path, default=None, metavar="SCAN_DIR|FILE",
                    help="only the items an earlier scan found changing (its scan.json), or a list "
                         "`sweep pick` wrote: their windows over more releases")
    sc.add_argument("--report-only", action="store_true",
                    help="read what --out holds (e.g. the shards of a weekly job), run nothing")
    sc.add_argument("--keep", type=Path, default=None, metavar="DIR",
                    help="also write the named sweeps' records compactly under DIR (gzipped, about 1/10 "
                         "the size): recall and --report-only read them on any machine")
    return {"sweep": cmd_sweep}


def sweeps_named(families: list[str]) -> list[Sweep]:
    known = sweeps_by_name()
    if not families:
        return list(known.values())
    for f in families:
        if f not in known:
            raise CaseError(f"no sweep named {f!r}; sweeps: {', '.join(known) or '(none)'}")
    return [known[f] for f in families]


def cmd_sweep(args: argparse.Namespace) -> int:
    if args.action == "list":
        return _list(sweeps_named(args.families))
    if args.action == "ops":
        return _ops(args.counts)
    if args.action == "recall":
        return _recall(args.scan, args.write)
    if args.action == "pick":
        return _pick(args)
    if args.action == "coverage":
        return _coverage(args.seeds, args.write)
    if args.action == "own-tests":
        return _own_tests(args.mirror, args.rev, args.write, args.lit)
    if args.action == "windows":
        return _windows(args.arch, args.write)
    if args.action == "scan":
        return _scan(sweeps_named(args.families), args)
    if args.action == "promote":
        return _promote(args)
    if args.action == "reduce":
        return _reduce(args)
    return _expect(sweeps_named(args.families), args.results, args.write, args.all)


def _list(sweeps: list[Sweep]) -> int:
    for s in sweeps:
        variants = s.variants()
        items = len(variants) * sum(len(levels) for levels in s.levels.values())
        print(f"{s.name}: {len(variants)} variants, {items} items, sample {len(s.sample_of())} variants, "
              f"{len(s.expectations)} expectations ({s.strategy}{' per ' + ','.join(s.per) if s.per else ''})")
        for axis, values in s.axes.items():
            print(f"    {axis}: {', '.join(map(str, values))}")
    return 0


def _ops(counts: int) -> int:
    from ..sweep.graph import op_counts
    from ..sweep.ops import LIBRARY

    held = op_counts(counts) if counts else {}
    width = max(len(n) for n in LIBRARY)
    for o in sorted(LIBRARY.values(), key=lambda o: (o.group, o.name)):
        family = f" [{o.family} family]" if o.family else ""
        family += f" [edition {o.edition}: wide-graph]" if o.edition > 1 else ""
        count = f" ({held.get(o.name, 0)} programs)" if counts else ""
        print(f"{o.name.ljust(width)}  {o.group:<13} {o.where}{family}{count}")
    print(f"{len(LIBRARY)} ops" + (f"; counts over seeds 0..{counts - 1} of every graph sweep" if counts else ""))
    return 0


def _coverage(seeds: int, write: bool) -> int:
    from ..sweep.coverage import SURVEY_PAIRS, held_pairs, markdown, read_survey_pairs, summary_line

    rows = read_survey_pairs()
    held = held_pairs(seeds)
    print(summary_line(rows, held))
    if write:
        out = SURVEY_PAIRS.parent / "coverage.md"
        out.write_text(markdown(rows, held, seeds))
        print(f"wrote {out}")
    return 0


def _own_tests(mirror: str, revision: str, write: bool, lit: bool) -> int:
    from ..sweep import lit_tests, own_tests

    if write:
        runnable, refused = (lit_tests if lit else own_tests).write_catalog(mirror, revision)
    else:
        programs, refused = (lit_tests.read_snapshot(mirror, revision) if lit else
                             own_tests.read_corpus(own_tests.read_revision(mirror, revision)))
        runnable = len(programs)
    total = runnable + sum(len(v) for v in refused.values())
    print(f"{revision}: {total} {'lit' if lit else 'test'} functions, {runnable} runnable as programs")
    for why, ids in sorted(refused.items(), key=lambda kv: -len(kv[1])):
        print(f"    {len(ids)} not runnable: {why} (e.g. {ids[0]})")
    return 0


def _windows(archs: list[str] | None, write: bool) -> int:
    from collections import Counter

    from ..sweep.models import ARCHITECTURES
    from ..sweep.windows import cut, write_catalog

    unknown = sorted(set(archs or ()) - set(ARCHITECTURES))
    if unknown:
        raise CaseError(f"--arch {unknown[0]}: no such architecture; the table has {', '.join(ARCHITECTURES)}")
    found, seen = [], set()
    for arch in archs or ARCHITECTURES:
        refused = Counter()
        windows = [w for w in cut(arch, refused) if w.signature not in seen]
        seen.update(w.signature for w in windows)
        found += windows
        by_family = Counter(w.family for w in windows)
        print(f"{arch}: {len(windows)} windows ({', '.join(f'{f} {n}' for f, n in sorted(by_family.items()))}); "
              f"refused {sum(refused.values())}" + "".join(f"\n    {n} x {why}" for why, n in refused.most_common()))
    print(f"{len(found)} windows")
    if write:
        for family, n in write_catalog(found).items():
            print(f"wrote {n} {family} windows")
    return 0


def _pick(args: argparse.Namespace) -> int:
    from ..shard import ShardError, parse
    from ..sweep.pick import PickError, Rule, parse_holding, pick, read_picked, write_picked

    try:
        share = parse(args.skip_share, "--skip-share") if args.skip_share else None
        rule = Rule(tuple(args.families), *parse_holding(args.holding), dims=args.dims, skip_share=share)
        earlier = read_picked(args.out) if args.out.exists() else []
        items = pick(rule, args.count, args.target, [v.strip() for v in args.level.split(",") if v.strip()],
                     {item.rsplit("::", 1)[0] for item in earlier})
    except (PickError, ShardError) as e:
        raise CaseError(f"sweep pick: {e}") from None
    write_picked(args.out, earlier + items)
    print(f"sweep pick: {len(items)} items added to {args.out} ({len(earlier) + len(items)} in all)")
    return 0


def _recall(specs: list[str], write: bool) -> int:
    from ..case import CASES_DIR, discover, load_case
    from ..history.releases import PYPI_RELEASES
    from ..sweep.recall import describe, historic_targets, markdown, read_scans, recall, share

    if not specs:
        from ..sweep.scan_records import recall_specs

        specs = recall_specs()
    try:
        scans = dict(read_scans(spec, list(PYPI_RELEASES)) for spec in specs)
    except ValueError as e:
        raise CaseError(str(e)) from None
    described = {label: describe(scan) for label, scan in scans.items()}
    targets = historic_targets([load_case(m) for m in discover(CASES_DIR)], list(PYPI_RELEASES))
    rows = recall(targets, scans)
    for label in scans:
        n, m = share(rows, label)
        print(f"{label} ({described[label]}): recall {n} of {m} ({100.0 * n / m if m else 0:.0f}%)")
    if write:
        out = CASES_DIR.parent / "docs" / "recall.md"
        out.write_text(markdown(rows, scans, described))
        print(f"wrote {out}")
    return 0


def _found_items(sweeps: list[Sweep], earlier: Path) -> list[str]:
    """pytest node ids of the items an earlier scan (earlier/scan.json) found changing, or a
    picked list (`sweep pick`) names, of the named sweeps."""
    from ..sweep.pick import PickError, read_picked

    try:
        found = read_picked(earlier if earlier.is_file() else earlier / "scan.json")
    except PickError as e:
        raise CaseError(f"--items-from {earlier}: not an earlier scan's folder nor a picked list ({e})") from None
    path_of = {s.name: s.path for s in sweeps}
    ids = []
    for entry in found:
        name, variant, item = entry.split("::")
        if name in path_of:
            ids.append(f"{path_of[name]}::{variant}::{item}")
    if not ids:
        raise CaseError(f"--items-from {earlier}: it found no item of {', '.join(path_of)}")
    return ids


def _expect(sweeps: list[Sweep], results: list[Path], write: bool, known_too: bool = False) -> int:
    from ..results import merge_results
    from ..sweep.draft import drafts

    _, records = merge_results(results, lambda w: print(f"warning: {w}", file=sys.stderr))
    total = 0
    for s in sweeps:
        blocks = drafts(s, records, known_too)
        if not blocks:
            continue
        total += len(blocks)
        text = "\n# Drafted by `iree-regress sweep expect`: describe each reason.\n\n" + "\n".join(blocks)
        print(f"# {s.path.name}\n{text}")
        if write:
            with s.path.open("a") as f:
                f.write(text)
            load_sweep(s.path)  # what was written must read back
    print(f"sweep expect: {total} entr{'y' if total == 1 else 'ies'} "
          f"{'appended' if write else 'drafted (add --write to append them)'}")
    return 0


def _scan(sweeps: list[Sweep], args: argparse.Namespace) -> int:
    import time

    from ..history.releases import available, sort_versions
    from ..sweep import scan

    if args.releases == "all":
        releases = available()
    else:
        named = [v.strip() for v in args.releases.split(",") if v.strip()]
        releases = sort_versions(named)
        if len(releases) != len(set(named)):
            raise CaseError(f"--releases {args.releases!r}: not versions: "
                            f"{', '.join(sorted(set(named) - set(releases)))}")
    if args.release_shard:
        from ..history.releases import release_share
        from ..shard import ShardError

        try:
            releases = release_share(releases, args.release_shard)
        except ShardError as e:
            raise CaseError(str(e)) from None
    args.out.mkdir(parents=True, exist_ok=True)
    targets = [str(s.path) for s in sweeps]
    if args.items_from is not None:
        targets = _found_items(sweeps, args.items_from)
    if not args.report_only:
        for release in releases:
            start = time.monotonic()
            share = ["--generated-share", args.generated_share] if args.generated_share else []
            status = scan.run_release(targets, release, args.target, args.opt_level, args.out, share)
            print(f"sweep scan: {release} done in {time.monotonic() - start:.0f} s (pytest exit {status})",
                  flush=True)
            if status > 1:  # the run itself broke (not failing items): say so, go on
                print(f"sweep scan: {release}: pytest could not run the sweeps (exit {status})", file=sys.stderr)
    result = scan.read_scan(args.out, releases)
    if args.keep is not None:
        from ..sweep.scan_records import keep

        kept = keep(args.out, releases, args.keep, {s.name for s in sweeps})
        print(f"sweep scan: kept {len(kept)} releases' records in {args.keep} ({sum(kept.values()) // 1024} KB)")
    from ..sweep.explained import load_explained

    found_groups = scan.groups(result, sweeps_by_name(), load_explained())
    scan.write(result, args.out, found_groups)
    print(scan.render(result, found_groups), end="")
    missing = [r for r in releases if r not in result.releases]
    if missing:
        print(f"sweep scan: no results for {', '.join(missing)}", file=sys.stderr)
    if result.no_verdict:
        print(f"sweep scan: items with no verdict on {', '.join(result.no_verdict)}", file=sys.stderr)
    return 1 if missing or result.no_verdict else 0


def _reduce(args: argparse.Namespace) -> int:
    from ..item import ItemId, settings_with
    from ..sweep.reduce import ReduceError, reduce_variant, render
    from ..sweep.spec import variant_of
    from ..toolchain import resolve

    parts = args.item.split("::")
    if len(parts) != 3:
        raise CaseError(f"sweep reduce: {args.item!r}: name <sweep>::<variant>::<item>, as results name it")
    try:
        item = ItemId.parse(parts[2])
    except ValueError as e:
        raise CaseError(f"sweep reduce: {e}") from None
    sweep, variant = variant_of("::".join(parts[:2]))
    if args.release:  # installed side by side under the cache on first use, as prove does
        from ..history.releases import ensure

        toolchain = ensure(args.release)
    else:
        toolchain = resolve()
    try:
        reduction = reduce_variant(sweep, variant, item, settings_with(toolchain))
    except ReduceError as e:
        raise CaseError(f"sweep reduce: {e}") from None
    print(render(reduction, args.item))
    if args.slug:
        return promote("::".join(parts[:2]), args.slug, args.issue, args.title, reduction.after)
    return 0


def _promote(args: argparse.Namespace) -> int:
    return promote(args.variant, args.slug, args.issue, args.title)


def promote(ref: str, slug: str, issues: list[str], title: str | None, program=None) -> int:
    """The variant's program (or `program`, a reduction of it) as a case, through the same
    scaffold as `new-case`: with the variant's flag set and frontend, which its failure may
    need as much as its program."""
    import tempfile

    from ..case import CASES_DIR
    from ..scaffold import ScaffoldError, new_case
    from ..toolchain import resolve
    from ..item import settings_with
    from ..sweep.materialize import FOUND_BY, materialize, program_of
    from ..sweep.spec import variant_of

    case_id = "::".join(ref.split("::")[:2])  # an item named after it is ignored
    sweep, variant = variant_of(case_id)
    case, made = materialize(sweep, variant, settings_with(resolve()), program)  # its golden, or why not
    if not made.ok:
        raise CaseError(f"sweep promote: {case_id}: {made.detail}")
    program = program or program_of(sweep, variant)
    table = program.compare_table()
    with tempfile.TemporaryDirectory() as tmp:
        model = Path(tmp) / "model.py"
        model.write_text(program.source)
        try:
            d = new_case(CASES_DIR, slug, issues, title or f"{sweep.title}: {variant.id}",
                         from_torch=str(model), family=sweep.family, found_by="" if issues else FOUND_BY,
                         targets=list(sweep.targets), flags=list(sweep.flags_of(variant.values())),
                         frontend=sweep.frontend, tolerance=(table["atol"], table["rtol"]),
                         tolerance_reason=table.get("tolerance_reason", ""), spread=table.get("spread", False))
        except (ScaffoldError, OSError) as e:
            raise CaseError(f"sweep promote: {e}") from None
    extra = []
    for rule in table["output"]:  # indices outputs compared by what they select
        extra += ["", "[[compare.output]]", *(f"{k} = {json.dumps(v)}" for k, v in rule.items())]
    if extra:
        with (d / "case.toml").open("a") as f:
            f.write("\n".join(extra) + "\n")
    print(f"wrote {d} from {case.slug}. Next: `iree-regress prove {slug} --scan --write` "
          f"(its windows over the releases), then `iree-regress triage {slug}::<item> --out triage/`, "
          "and search upstream for the thread that describes it.")
    return 0
