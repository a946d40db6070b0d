"""`iree-regress sweep ...`: the commands about sweeps (cli.py registers them here).

    iree-regress sweep list [FAMILY...]             families, axes, variant and item counts
    iree-regress sweep expect [FAMILY...] --from RESULTS [--write]
                                                    [[expect]] drafts for a run's new failures
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..case import CaseError
from .spec import Sweep, discover, load_sweep


def add_parser(sub) -> None:
    sw = sub.add_parser("sweep", help="family sweeps: list them, draft expectations from a run")
    actions = sw.add_subparsers(dest="action", required=True)
    ls = actions.add_parser("list", help="each sweep: axes, variants, items, expectations")
    ls.add_argument("families", nargs="*")
    ex = actions.add_parser("expect", help="[[expect]] drafts for the failures of a run, exactly scoped")
    ex.add_argument("families", nargs="*")
    ex.add_argument("--from", dest="results", type=Path, nargs="+", default=[Path("reports/results.jsonl")],
                    help="a run's results.jsonl, or the shards of one run")
    ex.add_argument("--write", action="store_true", help="append the drafts to the sweeps' specs")


def sweeps_named(families: list[str]) -> list[Sweep]:
    every = [load_sweep(p) for p in discover()]
    if not families:
        return every
    known = {s.family: s for s in every}
    for f in families:
        if f not in known:
            raise CaseError(f"no sweep of family {f!r}; sweeps: {', '.join(known) or '(none)'}")
    return [known[f] for f in families]


def cmd_sweep(args: argparse.Namespace) -> int:
    if args.action == "list":
        return _list(sweeps_named(args.families))
    return _expect(sweeps_named(args.families), args.results, args.write)


def _list(sweeps: list[Sweep]) -> int:
    for s in sweeps:
        variants = s.variants()
        items = len(variants) * sum(len(levels) for levels in s.levels.values())
        print(f"{s.family}: {len(variants)} variants, {items} items, sample {len(s.sample_of())} variants, "
              f"{len(s.expectations)} expectations ({s.strategy}{' per ' + ','.join(s.per) if s.per else ''})")
        for axis, values in s.axes.items():
            print(f"    {axis}: {', '.join(map(str, values))}")
    return 0


def _expect(sweeps: list[Sweep], results: list[Path], write: bool) -> int:
    from ..results import merge_results
    from .draft import drafts

    _, records = merge_results(results, lambda w: print(f"warning: {w}", file=sys.stderr))
    total = 0
    for s in sweeps:
        blocks = drafts(s, records)
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
