"""Triage the bug item of every case with a measured window, and tabulate what came out.

    python benchmarks/triage_all.py --out DIR [--timeout 420] [--cases a b ...]

For each case: `iree-regress triage CASE::ITEM --out DIR/CASE` on one of the window's bug
items (a cpu one where there is one), bounded by --timeout seconds, one at a time (each
triage already uses every core the compiler wants). From each TRIAGE.json, one row: the
boundary, the phase, the pass (confirmed by rerunning it alone, or not), the failing pass
of a crash, reduced sizes and wall seconds; a case that is not triaged says why (its first
problem). Writes DIR/triage-table.md and DIR/triage-table.json, and prints the table.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.case import discover, load_case  # noqa: E402


def bug_items(case) -> list[str]:
    """The items triage is run on: a cpu item of the bug where there is one (else its first
    item), then, when that names no pass, an IR check of the bug (the pass pipeline itself)."""
    items = list(case.history.bad_items)
    first = next((i for i in items if i.startswith("cpu-")), items[0] if items else None)
    return [i for i in dict.fromkeys([first, *[i for i in items if i.startswith("ir-")]]) if i]


def triage_one(slug: str, item: str, folder: Path, timeout: int, log_path: Path) -> dict:
    start = time.monotonic()
    with open(log_path, "w") as log:
        # its own process group: a timeout stops the compilers it started too
        proc = subprocess.Popen([sys.executable, "-m", "harness.cli", "triage", f"{slug}::{item}",
                                 "--out", str(folder), "--force"], cwd=ROOT, stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)
        try:
            proc.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            timed_out = True
    return row(slug, item, folder, time.monotonic() - start, timed_out)


def row(slug: str, item: str, folder: Path, seconds: float, timed_out: bool) -> dict:
    report = folder / "TRIAGE.json"
    if timed_out or not report.is_file():
        return dict(case=slug, item=item, status="refused", seconds=round(seconds),
                    why="timed out" if timed_out else "no TRIAGE.json written")
    t = json.loads(report.read_text())
    named = t.get("pass") or t.get("failing_pass")
    boundary = (f"{t['good']['version']} good / {t['bad']['version']} bad" if t.get("good") and t.get("bad") else
                f"none: open, no release passes ({t['bad']['version']} bad)" if t.get("bad") else "")
    size = t.get("size") or {}
    confirmed = {True: "confirmed", False: "unconfirmed", None: "not checked"}[t.get("pass_confirmed")]
    options = t.get("options") or {}
    option = (f"{options['found']} ({'both ways' if options.get('both_ways') else 'one way'})"
              if options.get("found") else f"none of {len(options.get('changes', []))}" if options else "")
    triaged = bool(boundary and named)  # "bad" (the boundary) is written only with a start program
    return dict(
        case=slug, item=item, status="triaged" if triaged else "refused",
        boundary=boundary, phase=t.get("phase") or "", pass_=t.get("pass") or "",
        confirmed=confirmed if t.get("pass") else "", failing_pass=t.get("failing_pass") or "", option=option,
        reduced=(f"{size['before']['ops']} -> {size['after']['ops']} ops" if size.get("after") else ""),
        seconds=round(seconds), why="" if triaged else "; ".join(t.get("problems") or ["nothing named"]),
    )


def table(rows: list[dict]) -> str:
    head = "| case | item | boundary | phase | pass | alone | failing pass | option | reduced | s | not triaged because |"
    lines = [head, "|" + "---|" * 11]
    for r in rows:
        lines.append("| " + " | ".join(str(r.get(k, "")).replace("|", "/")[:160] for k in (
            "case", "item", "boundary", "phase", "pass_", "confirmed", "failing_pass", "option", "reduced", "seconds",
            "why")) + " |")
    done = sum(r["status"] == "triaged" for r in rows)
    lines.append(f"\n{done}/{len(rows)} triaged; {sum(r['seconds'] for r in rows)} s in all")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--timeout", type=int, default=420)
    ap.add_argument("--cases", nargs="*", help="case slugs (default: every case with a window)")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for manifest in discover():
        case = load_case(manifest)
        if not case.history.windows or (args.cases and case.slug not in args.cases):
            continue
        tried = []
        for j, item in enumerate(bug_items(case)):
            name = case.slug + (f"--{item}" if j else "")
            tried.append(triage_one(case.slug, item, args.out / name, args.timeout, args.out / f"{name}.log"))
            if tried[-1].get("pass_"):
                break
        if not tried:
            continue
        # the first item that named a pass, else the first triaged, else the first; seconds of all tries
        best = next((r for r in tried if r.get("pass_")), next((r for r in tried if r["status"] == "triaged"),
                                                               tried[0]))
        rows.append({**best, "seconds": sum(r["seconds"] for r in tried)})
        print(f"{case.slug}::{item}: {rows[-1]['status']} ({rows[-1]['seconds']} s) {rows[-1].get('why', '')[:120]}",
              flush=True)
    text = table(rows)
    (args.out / "triage-table.md").write_text(text + "\n")
    (args.out / "triage-table.json").write_text(json.dumps(rows, indent=1) + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
