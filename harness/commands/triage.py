"""`iree-regress triage CASE::ITEM --out DIR` (cli.py registers it)."""

from __future__ import annotations

from pathlib import Path

from .history import bug_of, bug_options, release_source_options, source_of
from ..refs import parse_ref


def add_parsers(sub) -> dict:
    tr = sub.add_parser("triage", help="bisect, reduce and localise one item's bug; write ISSUE.md")
    tr.add_argument("item", nargs="?", help="CASE::ITEM, e.g. transpose-propagation-index-semantics::cpu-O3")
    tr.add_argument("--open", action="store_true",
                    help="instead of one item: an ISSUE.md for every open bug the suite found itself "
                         "(found_by), in OUT/<case>/, with the nearest right configuration as contrast")
    tr.add_argument("--check", action="store_true",
                    help="with --open: run each ISSUE.md's steps as pasted in an empty folder")
    tr.add_argument("--out", required=True, help="folder for ISSUE.md, the reproducer and TRIAGE.json")
    tr.add_argument("--good", default=None, help="a release without the bug (default: the case's window)")
    tr.add_argument("--bad", default=None, help="a release with the bug (default: the case's window)")
    bug_options(tr)
    end = tr.add_mutually_exclusive_group()
    end.add_argument("--onset", dest="which", action="store_const", const="broken",
                     help="triage the window's onset (where the bug came; the default)")
    end.add_argument("--fix", dest="which", action="store_const", const="fixed",
                     help="triage the window's fix (where it went) instead")
    tr.add_argument("--no-reduce", action="store_true", help="skip iree-reduce")
    tr.add_argument("--force", action="store_true",
                    help="replace --out even when it holds files a triage does not write")
    release_source_options(tr)
    return {"triage": cmd_triage}


def cmd_triage(args) -> int:
    """Bisect, reduce, localise, and write an upstream-ready bundle (harness/triage/)."""
    from ..bundle.write import refuse_foreign
    from ..triage.flow import triage

    if args.open:
        return _open(args)
    if not args.item:
        raise SystemExit("iree-regress: triage needs CASE::ITEM, or --open")
    case, item = parse_ref(args.item)
    if item is None:
        raise SystemExit("iree-regress: triage needs one item: CASE::ITEM (e.g. ::cpu-O3)")
    out = Path(args.out)
    try:
        refuse_foreign(out, args.force, allowed={"work", "TRIAGE.json", "checks.mlir",
                                                 "crash-reproducer.mlir"})
    except ValueError as e:
        raise SystemExit(f"iree-regress: {e}") from None
    t = triage(case, item, bug_of(case, args), out, source_of(args), args.good, args.bad,
               reduce=not args.no_reduce, which=args.which)
    print(f"triage: {out / 'ISSUE.md'} ({t.seconds.get('total', 0):.0f} s: "
          + ", ".join(f"{k} {v:.0f} s" for k, v in t.seconds.items() if k != "total") + ")")
    for problem in t.problems:
        print(f"triage: not done: {problem}")
    return 0 if t.bisect is not None and t.start is not None else 1


def _open(args) -> int:
    """`triage --open`: every open found_by bug's ISSUE.md, and a table of them."""
    from ..case import discover, load_case
    from ..item import settings_with
    from ..toolchain import resolve
    from ..triage.open_bugs import open_found_bugs, report

    settings = settings_with(resolve())
    out = Path(args.out)
    rows, bad = [], 0
    for case in open_found_bugs([load_case(m) for m in discover()]):
        try:
            r = report(case, out / case.slug, settings, check=args.check)
        except Exception as e:  # noqa: BLE001 - one case's report failing never stops the others, and is said
            rows.append(f"| {case.slug} | | | | not written: {type(e).__name__}: {e} | |")
            bad += 1
            continue
        rows.append(f"| {case.slug} | {r.item.name} | {r.outcome} | {r.contrast} | {r.checked or '-'} | {r.seconds:.0f} s |")
        bad += bool(args.check and r.checked != "shows the bug")
    table = ["| case | item | outcome | nearest right | as pasted | seconds |", "|---|---|---|---|---|---|", *rows]
    (out / "OPEN.md").write_text(f"# Open bugs the suite found ({settings.toolchain.compiler_version})\n\n"
                                 + "\n".join(table) + "\n")
    print("\n".join(table))
    return 1 if bad else 0
