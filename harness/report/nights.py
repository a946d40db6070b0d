"""Across nights: a folder of nightly results read as one history, and its page.

    NIGHTS/<anything>.jsonl  or  NIGHTS/<night>/results.jsonl      one night each

Nights are ordered by the run id in their header (it starts with the date and time),
else by name. `iree-regress nights NIGHTS` writes nights.html: per case and item the
outcome over the last nights as a strip of cells, when each failure was first and last
seen, how often the item flipped, and trend lines of its measurements (inline SVG: the
page needs no network).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path

from ..outcomes import CELL_ERROR, CELL_FAIL, CELL_STATES, CELL_XPASS
from ..record import ItemRecord
from ..results import read_results
from .perf import METRICS, metrics


@dataclass
class Night:
    name: str
    run_id: str
    items: dict[str, ItemRecord]


def load_nights(folder: Path, last: int = 30, warn=None) -> list[Night]:
    """The last `last` nights in `folder`, oldest first."""
    files = sorted(Path(folder).glob("*.jsonl")) + sorted(Path(folder).glob("*/results.jsonl"))
    nights = []
    for f in files:
        header, items = read_results(f, warn)
        name = f.stem if f.name != "results.jsonl" else f.parent.name
        nights.append(Night(name, str(header.get("run_id", "")), {r.key: r for r in items}))
    nights.sort(key=lambda n: (n.run_id or n.name, n.name))
    return nights[-last:]


@dataclass
class ItemHistory:
    key: str
    states: list[str | None]  # cell state per night (None: not run that night)
    first_seen: str = ""  # night where its current failure began
    last_seen: str = ""  # last night it failed
    flips: int = 0  # changes between passing and failing, night to night
    series: dict[str, list[float | None]] = field(default_factory=dict)  # metric -> value per night


_FAILING = {CELL_FAIL, CELL_XPASS, CELL_ERROR}


def histories(nights: list[Night]) -> list[ItemHistory]:
    keys = sorted({k for n in nights for k in n.items})
    found = []
    for key in keys:
        records = [n.items.get(key) for n in nights]
        states = [r.cell_state if r else None for r in records]
        h = ItemHistory(key, states, series={m: [] for m in METRICS})
        failing = [s in _FAILING if s else None for s in states]
        seen = [f for f in failing if f is not None]
        h.flips = sum(1 for a, b in zip(seen, seen[1:]) if a != b)
        for i, f in enumerate(failing):
            if f:
                h.last_seen = nights[i].name
                if i == 0 or not failing[i - 1]:
                    h.first_seen = nights[i].name
        for r in records:
            m = metrics(r) if r else {}
            for name in METRICS:
                h.series[name].append(m.get(name))
        found.append(h)
    return found


def _spark(values: list[float | None], width: int = 120, height: int = 18) -> str:
    points = [(i, v) for i, v in enumerate(values) if v is not None]
    if len(points) < 2:
        return ""
    lo = min(v for _, v in points)
    hi = max(v for _, v in points)
    span = (hi - lo) or 1.0
    step = width / max(len(values) - 1, 1)
    coords = " ".join(f"{i * step:.1f},{height - 2 - (v - lo) / span * (height - 4):.1f}" for i, v in points)
    return (f"<svg width='{width}' height='{height}' role='img'><title>{lo:.4g} .. {hi:.4g}</title>"
            f"<polyline fill='none' stroke='#555' stroke-width='1' points='{coords}'/></svg>")


_CSS = """body{font:13px system-ui,sans-serif;margin:16px}table{border-collapse:collapse}
td,th{padding:2px 6px;border-bottom:1px solid #eee;text-align:left;white-space:nowrap}
.strip span{display:inline-block;width:9px;height:14px;margin-right:1px}
.none{background:#eee}""" + "".join(f".s-{s.name}{{background:{s.colour}}}" for s in CELL_STATES.values())


def page(nights: list[Night]) -> str:
    e = html.escape
    rows = []
    for h in histories(nights):
        strip = "".join(f"<span class='{'s-' + s if s else 'none'}' title='{e(n.name)}: {e(s or 'not run')}'></span>"
                        for s, n in zip(h.states, nights))
        trends = "".join(f"<td>{_spark(h.series[m])}</td>" for m in ("compile_s", "module_bytes", "run_s"))
        rows.append(f"<tr><td>{e(h.key)}</td><td class='strip'>{strip}</td><td>{e(h.first_seen)}</td>"
                    f"<td>{e(h.last_seen)}</td><td>{h.flips}</td>{trends}</tr>")
    names = f"{e(nights[0].name)} .. {e(nights[-1].name)}" if nights else "none"
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>iree-regress nights</title>"
            f"<style>{_CSS}</style></head><body><h1>iree-regress: {len(nights)} nights ({names})</h1>"
            "<table><tr><th>item</th><th>outcome per night (oldest first)</th><th>failing since</th>"
            "<th>last failed</th><th>flips</th><th>compile s</th><th>module bytes</th><th>run s</th></tr>"
            + "".join(rows) + "</table></body></html>\n")
