"""The report commands: `report` (a run's Markdown + HTML report and its gate) and
`nights` (nights.html over recent nights; "history" is a case's releases, harness/history/),
`releases` (the suite on each release, from ci/releases' runs).
cli.py registers them."""

from __future__ import annotations

import sys
import time
from pathlib import Path

def add_parsers(sub) -> dict:
    # "history" stays as an old spelling of the command: workflows that call it keep working.
    hs = sub.add_parser("nights", aliases=["history"],
                        help="nights.html: outcomes and measurements over recent nights")
    hs.add_argument("nights_dir", type=Path, help="one results file per night (*.jsonl or */results.jsonl)")
    hs.add_argument("--last", type=int, default=30, help="how many recent nights")
    hs.add_argument("--out", type=Path, default=Path("reports/nights.html"))
    rp = sub.add_parser("report", help="Markdown + HTML report from results.jsonl")
    rp.add_argument("results", nargs="*", type=Path, default=[Path("reports/results.jsonl")],
                    help="one run's results, or the shards of one run (merged)")
    rp.add_argument("--nights-dir", "--history", dest="nights_dir", type=Path, default=None,
                    help="a folder of earlier nights' results: measurements are compared with them")
    rp.add_argument("--nights", type=int, default=14, help="with --nights-dir: how many recent nights")
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
    rt = sub.add_parser("releases", help="the suite on each release: counts per release and target "
                                         "from ci/releases' runs (DIR/<release>-<target>/results.jsonl)")
    rt.add_argument("runs_dir", type=Path, nargs="?", default=Path("reports/releases"))
    rt.add_argument("--fail-on-red", action="store_true",
                    help="exit 1 when any release has a failure, an unexpected pass or an error")
    return {"report": cmd_report, "nights": cmd_nights, "history": cmd_nights,
            "releases": cmd_releases}


def cmd_report(args) -> int:
    """Markdown + HTML from a results file; with --fail-on-regression, exit 1 when the
    gate fails (against --previous: new failures, unexpected passes, errors, vanished
    items; without it: every failure, unexpected pass and error)."""
    from ..report import quarantine
    from ..report.render import html_page, markdown
    from ..report.summary import build

    try:
        held = quarantine.load(args.quarantine)
    except quarantine.QuarantineError as e:
        raise SystemExit(f"iree-regress: {e}") from None
    nights = []
    if args.nights_dir:
        from ..report.nights import load_nights

        nights = [n.items for n in load_nights(args.nights_dir, args.nights)]
    model = build(args.results, args.previous, held, nights=nights)
    for problem in model.shard_problems:  # first: a merged report over missing shards is not the run
        print(f"iree-regress report: {problem}", file=sys.stderr)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.junit:
        from ..report.junit import write_junit

        write_junit(model.items, args.junit)
    (out / "summary.md").write_text(markdown(model))
    (out / "report.html").write_text(html_page(model))
    for w in model.warnings:
        print(f"warning: {w}", file=sys.stderr)
    held_lines = model.quarantined_lines()
    print(f"wrote {out / 'summary.md'} and {out / 'report.html'} ({len(model.items)} items: "
          + ", ".join(f"{n} {s}" for s, n in model.counts.items() if n)
          + (f"; {len(held_lines)} quarantined" if held_lines else "") + ")")
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
    for line in held_lines:
        print(f"  quarantined (not gating): {line}")
    for flag in model.perf:
        print(f"  perf: {flag.line}")
    if args.fail_on_perf and model.perf:
        return 1
    return 1 if args.fail_on_regression and gate else 0


def cmd_nights(args) -> int:
    """nights.html over a folder of nights."""
    from ..report.nights import load_nights, page

    start = time.monotonic()
    nights = load_nights(args.nights_dir, args.last, lambda w: print(f"warning: {w}", file=sys.stderr))
    if not nights:
        raise SystemExit(f"iree-regress: no results files in {args.nights_dir} (*.jsonl or */results.jsonl)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(page(nights))
    print(f"wrote {args.out}: {len(nights)} nights, "
          f"{len({k for n in nights for k in n.items})} items ({time.monotonic() - start:.1f} s)")
    return 0


def cmd_releases(args) -> int:
    """The per-release table (docs/releases.md keeps it), and each red item by name."""
    from ..report.releases import read_runs, table

    runs = read_runs(args.runs_dir)
    if not runs:
        raise SystemExit(f"iree-regress: no <release>-<target>/results.jsonl in {args.runs_dir} "
                         "(ci/releases writes them)")
    print(table(runs))
    for run in runs:
        for name in run.failing:
            print(f"  red on {run.release} {run.target}: {name}", file=sys.stderr)
    return 1 if args.fail_on_red and any(r.red for r in runs) else 0
