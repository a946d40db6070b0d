"""Render a ReportModel as Markdown and as one self-contained HTML page.

The HTML needs no network: styles and the small script are inline. The script
writes what the browser actually rendered (cells per computed background colour)
into #render-check, which the test reads back from headless Chromium.
"""

from __future__ import annotations

import hashlib
import html
import re

from ..outcomes import (CELL_COMPILE_ONLY, CELL_ERROR, CELL_FAIL, CELL_SKIP, CELL_STATES, CELL_XFAIL,
                       CELL_XPASS, PASS, SKIP)
from ..case import ISSUE_REF
from ..record import ItemRecord
from ..signatures import signature_of
from .heatmap import Cell, FamilyHeat, heat_maps, needs_a_reader, sweep_of
from .rundiff import not_run_reason
from .summary import ReportModel, cell_label, diagnosis


def _env_lines(env: dict) -> list[tuple[str, str]]:
    pk = env.get("packages", {})
    lines = [("IREE compiler", f"{env.get('compiler_version', '?')} @ {env.get('compiler_revision', '')[:12]}"),
             ("IREE runtime", env.get("runtime_version", "?")),
             ("packages", ", ".join(f"{k} {v}" for k, v in pk.items() if v)),
             ("host", f"{env.get('host_cpu', '?')} ({env.get('machine', '?')})"),
             ("case code", env.get("case_code", "?")),
             *([("cache", env["cache"])] if env.get("cache") else [])]
    for driver, devices in env.get("device_info", {}).items():
        for d in devices:
            lines.append((driver, f"{d.get('name', '?')} / {d.get('driver', '')} {d.get('driver_info', '')}".strip()))
    return lines


def _md(text) -> str:
    """Plain text inside a Markdown table, list item or heading: one line, no table
    breaks, and no markup (GitHub renders summary.md: a stranger's slug or a compiler's
    message must not become HTML)."""
    text = " ".join(str(text).split())
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


def _span(text) -> str:
    """Text as a code span: markup inside shows as written; it cannot close the span."""
    return "`" + " ".join(str(text).split()).replace("`", "'").replace("|", "\\|") + "`"


def _code(text) -> str:
    """Text inside a fenced block: it must not be able to close the fence."""
    return str(text).replace("```", "` ` `")


def _family_counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {state}" for state, n in counts.items() if state != "cases")


def _verdict_counts(model: ReportModel) -> str:
    return ", ".join(f"{n} {s}" for s, n in model.counts.items() if n)


# ------------------------------------------------------------------------- markdown

def markdown(model: ReportModel) -> str:
    out = ["# iree-regress report", ""]
    out += [f"**{_md(p)}**" for p in model.shard_problems] + ([""] if model.shard_problems else [])
    out += [f"- **{k}**: {_md(v)}" for k, v in _env_lines(model.environment)]
    held = model.quarantined_lines()
    out += ["", f"**{len(model.items)} items**: {_verdict_counts(model)}"
            + (f"; **{len(held)} quarantined** (failing, not gating)" if held else ""), ""]
    out += ["## By family", "", "| family | cases | items |", "|---|---|---|"]
    out += [f"| {_md(family)} | {counts['cases']} | {_family_counts(counts)} |"
            for family, counts in model.families().items()]
    out.append("")
    if model.diff is not None:
        d = model.diff
        out += ["## Since the previous run", ""]
        out += [f"- new failures: {len(d.new_failures)}", f"- unexpected passes: {len(d.unexpected_passes)}",
                f"- errors (not loaded, harness, worker): {len(d.errors)}",
                f"- vanished items: {len(d.gone)}",
                f"- coverage lost (ran before, only compiled now): {len(d.coverage_lost)}",
                f"- new passes: {len(d.new_passes)}", f"- compile-time changes: {len(d.time_changes)}",
                f"- attention configuration changes: {len(d.config_changes)}", ""]
        for title, items in (("New failures", d.new_failures), ("Unexpected passes", d.unexpected_passes),
                             ("Errors", d.errors), ("New passes", d.new_passes)):
            if items:
                out += [f"### {title}", ""] + [f"- {_span(i.key)} {_md(i.outcome)}" for i in items] + [""]
        if d.gone:
            out += ["### Vanished items", ""] + [f"- {_span(k)}" for k in d.gone] + [""]
        if d.coverage_lost:
            out += ["### Coverage lost", ""] + [f"- {_span(i.key)}: {_md(not_run_reason(i))}"
                                                 for i in d.coverage_lost] + [""]
        if d.time_changes:
            out += ["### Compile time", ""] + [f"- {_span(c.key)} {c.before:.1f} s -> {c.after:.1f} s "
                                                f"({c.ratio:.2f}x)" for c in d.time_changes] + [""]
        if d.config_changes:
            out += ["### Attention configuration changes (information, not failures)", "",
                    "| item | dispatch | field | before | after |", "|---|---|---|---|---|"]
            out += [f"| {_span(c.key)} | {_md(c.dispatch)} | {_md(c.field)} | {_md(c.before)} | {_md(c.after)} |"
                    for c in d.config_changes] + [""]
    cols = model.columns
    out += ["## Matrix", "", "| case | " + " | ".join(cols) + (" | ir checks, differences |" if model.has_named else " |"),
            "|---" * (len(cols) + 1 + model.has_named) + "|"]
    for row in model.rows:
        cells = [cell_label(row.cells[c]) if c in row.cells else "" for c in cols]
        if model.has_named:
            cells.append(", ".join(f"{_md(i.ir_check or i.item)}: {cell_label(i)}" for i in row.named_cells))
        # A results file may come from anywhere: only a well-formed owner/repo#N becomes a link.
        links = " ".join(f"[{ref}]({url})" if ISSUE_REF.fullmatch(ref) else _md(ref) for ref, url in row.issue_links())
        out.append(f"| {_md(row.slug)} {links} | " + " | ".join(cells) + " |")
    gate = model.gate_lines()
    out += ["", f"## Gate: {'FAIL' if gate else 'pass'}", ""]
    out += [f"- {_md(line)}" for line in gate] or ["Nothing fails the gate."]
    if held:
        out += ["", "Quarantined (shown, not gating):", ""] + [f"- {_md(line)}" for line in held]
    if model.perf:
        out += ["", f"## Performance: {len(model.perf)} change(s) past the items' own noise", ""]
        out += [f"- {_md(f.line)}" for f in model.perf]
    if model.updates:
        out += ["", "Expectations that no longer describe what was measured (check, then):", "",
                "```sh", *model.updates, "```"]
    if model.warnings:
        out += ["", "Warnings:", ""] + [f"- {_md(w)}" for w in model.warnings]
    known = sum(1 for i in model.items if i.cell_state == CELL_XFAIL)
    out += ["", "## New failures by signature (wrong numbers first)", ""]
    if not model.groups:
        out.append(f"None: nothing failed that is not a known bug ({known} known-bug items failed as recorded).")
    for g in model.groups:
        names = ", ".join(f"{_span(i.key)}" for i in g.items[:12])
        more = f" and {len(g.items) - 12} more" if len(g.items) > 12 else ""
        out += [f"### {_md(g.outcome)} x{len(g.items)}: {_md(g.signature)}", "", f"Items: {names}{more}", "",
                "```", _code(diagnosis(g.example)[-1500:]), "```", "", "Reproducer:", "",
                "```sh", _code(g.example.reproducer), "```", ""]
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- html

# The matrix fits 1400 px with all four targets and the IR checks: narrow cells with a
# one-letter mark (outcomes.CELL_STATES: the colour says the state, the tooltip says the
# rest), a sticky header row and case column.

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:16px;color:#222;max-width:1380px}
h1{font-size:22px;margin:4px 0}h2{font-size:18px;margin:12px 0 4px}ul{margin:4px 0}
.env{font-size:12px}
.wrap{max-height:80vh;overflow:auto;border:1px solid #ddd}
table.matrix{border-collapse:separate;border-spacing:0}
.matrix th,.matrix td{padding:1px 2px;text-align:center;font-size:12px;border:1px solid #fff}
.matrix thead th{position:sticky;background:#eee;z-index:2}
.matrix thead tr:first-child th{top:0}.matrix thead tr:nth-child(2) th{top:19px}
.matrix td.case,.matrix th.case{position:sticky;left:0;z-index:1;text-align:left;background:#fafafa;
  max-width:340px;min-width:260px;white-space:normal;overflow-wrap:anywhere}
.matrix thead th.case{z-index:3}
td.cell{width:22px;min-width:22px;color:#fff}td.cell a{color:inherit;text-decoration:none;display:block}
td.ir{text-align:left;min-width:180px}.chip{display:inline-block;padding:0 4px;margin:1px;border-radius:3px;color:#fff}
.chip a{color:inherit;text-decoration:none}
.status{font-size:11px;color:#555}
.legend span{display:inline-block;padding:2px 8px;margin:2px;border-radius:3px;color:#fff;font-size:12px}
pre{background:#f5f5f5;padding:8px;overflow:auto;max-height:240px;font-size:12px}
.env td{padding:1px 8px}.diff li{margin:2px 0}
.heat{display:flex;flex-wrap:wrap;gap:10px;align-items:flex-start}
.fam{max-height:340px;overflow:auto;border:1px solid #ddd;padding:0 6px 6px;max-width:306px}
.fam h3{font-size:13px;margin:4px 0;position:sticky;top:0;background:#fff}
table.heatmap{border-collapse:collapse;font-size:11px}.heatmap th,.heatmap td{padding:1px 4px;border:1px solid #eee}
.heatmap td.lbl{text-align:left;max-width:150px;overflow-wrap:anywhere}.heatmap td.h{text-align:center;min-width:34px}
.heatmap td.dark{color:#fff}
table.bugs{border-collapse:collapse}.bugs td,.bugs th{border-bottom:1px solid #eee;padding:2px 8px;text-align:left;font-size:13px}
""" + "".join(f".s-{s.name}{{background:{s.colour}" + (";color:#222" if s.dark_text else "") + "}"
              for s in CELL_STATES.values())

# What the browser rendered, for the test that reads it back from headless Chromium:
# cells per computed colour, and whether the matrix's last column is on screen.
_CHECK_JS = """
(function(){var cells=document.querySelectorAll('.cell,.chip');var by={};
for(var i=0;i<cells.length;i++){var c=getComputedStyle(cells[i]).backgroundColor;by[c]=(by[c]||0)+1;}
var heads=document.querySelectorAll('table.matrix thead tr:first-child th');var last=heads[heads.length-1];
var over=0,names=document.querySelectorAll('td.case,td.lbl');for(var j=0;j<names.length;j++){
 if(names[j].scrollWidth>names[j].clientWidth+1)over++;}
var heat=document.querySelector('.heat'),gate=document.querySelector('h2.gate');
document.getElementById('render-check').textContent=JSON.stringify({cells:cells.length,colours:by,
 last_column_right:last?Math.round(last.getBoundingClientRect().right):0,viewport:window.innerWidth,
 overflowing_names:over,heat_top:heat?Math.round(heat.getBoundingClientRect().top):-1,
 gate_top:gate?Math.round(gate.getBoundingClientRect().top):-1,viewport_height:window.innerHeight});})();
"""


_LISTED = 12  # names listed in a "since the previous run" line before they fold away


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _has_detail(item: ItemRecord) -> bool:
    return item.verdict not in (PASS, SKIP)


def _since(windows: str) -> str:
    """'known since 3.3.0' from a case's windows text (its newest window's onset)."""
    onsets = re.findall(r"\[(\S+) \.\.", windows)
    return f"known bug since IREE {onsets[-1]}" if onsets else ""


def _tooltip(item: ItemRecord, windows: str) -> str:
    state = item.cell_state
    shown = (CELL_COMPILE_ONLY, CELL_SKIP, CELL_XFAIL, CELL_FAIL, CELL_XPASS, CELL_ERROR)
    why = item.message if state in shown else ""
    if state == CELL_COMPILE_ONLY:  # say why it did not run, never "pass"
        run = item.stage("run")
        why = (run.detail if run else "") or "compiled; not run here"
    since = _since(windows) if state in (CELL_XFAIL, CELL_XPASS) else ""
    return " | ".join(p for p in (f"{item.key}: {state} ({item.outcome})", why[:300], since) if p)


def _mark(item: ItemRecord) -> str:
    state = CELL_STATES.get(item.cell_state)
    return state.mark if state else "?"


def _cell(item: ItemRecord, windows: str, anchor: str | None) -> str:
    mark = _e(_mark(item))
    if anchor:
        mark = f"<a href='#{anchor}'>{mark}</a>"
    return f"<td class='cell s-{item.cell_state}' title='{_e(_tooltip(item, windows))}'>{mark}</td>"


def _chip(item: ItemRecord, windows: str, anchor: str | None) -> str:
    text = _e(f"{item.ir_check or item.item}: {_mark(item)}")
    if anchor:
        text = f"<a href='#{anchor}'>{text}</a>"
    return f"<span class='chip s-{item.cell_state}' title='{_e(_tooltip(item, windows))}'>{text}</span>"


def _anchor(key: str) -> str:
    """An id made only of safe characters (a case name is whatever its folder is called)."""
    return "d-" + hashlib.sha256(key.encode()).hexdigest()[:16]


def _detail_groups(rows: list) -> list[tuple[str, list[ItemRecord]]]:
    """One block per case x verdict x signature: sixteen items failing one way are one block
    (of the rows the matrix shows)."""
    groups: dict[tuple[str, str, str], list[ItemRecord]] = {}
    for row in rows:
        for item in [*row.cells.values(), *row.named_cells, *row.errors]:
            if _has_detail(item):
                groups.setdefault((row.slug, item.verdict, signature_of(item)), []).append(item)
    return [(_anchor("|".join(k)), items) for k, items in groups.items()]


def _first_line(item: ItemRecord) -> str:
    text = diagnosis(item) or item.message
    return next((line.strip() for line in text.splitlines() if line.strip()), "")[:400]


def _known_bugs(model: ReportModel) -> list[str]:
    """Known bugs by issue: which cases and items, since when, still failing as recorded."""
    by_issue: dict[str, dict] = {}
    for row in model.rows:
        known = [i for i in [*row.cells.values(), *row.named_cells] if i.cell_state == CELL_XFAIL]
        if not known:
            continue
        for ref, url in (row.issue_links() or [("found by iree-regress", "")]):
            entry = by_issue.setdefault(ref, {"url": url, "cases": [], "items": 0})
            entry["cases"].append((row.slug, row.windows))
            entry["items"] += len(known)
    rows = []
    for ref, entry in sorted(by_issue.items()):
        link = f"<a href='{_e(entry['url'])}'>{_e(ref)}</a>" if entry["url"] else _e(ref)
        cases = "<br>".join(f"{_e(slug)} <span class='status'>{_e(w)}</span>" for slug, w in entry["cases"])
        rows.append(f"<tr><td>{link}</td><td>{cases}</td><td>{entry['items']}</td></tr>")
    return rows


def _heat_cell(cell: Cell | None) -> str:
    if cell is None or not cell.items:
        return "<td class='h'></td>"
    share = cell.failing / cell.items
    # Red for failures the gate counts, amber for failures as recorded; the shade is the share.
    rgb = "200,30,30" if cell.new else "230,140,0"
    style = f"background:rgba({rgb},{0.12 + 0.88 * share:.2f})" if cell.failing else ""
    levels = ", ".join(f"{lvl} {f}/{n}" for lvl, (f, n) in sorted(cell.levels.items()))
    tip = f"{cell.failing} of {cell.items} failing ({cell.new} against expectations): {levels}"
    dark = " dark" if cell.failing and share > 0.5 else ""
    return f"<td class='h{dark}' style='{style}' title='{_e(tip)}'>{cell.failing}/{cell.items}</td>"


def heat_maps_html(heats: list[FamilyHeat], shown: int, hidden: int) -> str:
    if not heats:
        return ""
    parts = ["<h2>Sweeps by family</h2><p class='status'>failing/items per axis value and target (all "
             "levels; hover for each level). Red: failures against expectations; amber: failing as "
             f"recorded. {shown} variant(s) that need a reader are rows of the matrix; {hidden} more, "
             "passing or failing as recorded, are counted here only.</p><div class='heat'>"]
    for heat in heats:
        head = "".join(f"<th>{_e(t)}</th>" for t in heat.targets)
        parts.append(f"<div class='fam'><h3>{_e(heat.family)}: {heat.variants} variants "
                     f"<span class='status'>({_e(', '.join(sorted(heat.sweeps)))})</span></h3>"
                     f"<table class='heatmap'><tr><th class='lbl'>axis value</th>{head}</tr>")
        for label, cells in heat.ordered():
            tds = "".join(_heat_cell(cells.get(t)) for t in heat.targets)
            parts.append(f"<tr><td class='lbl'>{_e(label)}</td>{tds}</tr>")
        parts.append("</table></div>")
    parts.append("</div>")
    return "".join(parts)


def html_page(model: ReportModel) -> str:
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>iree-regress report</title>",
             f"<style>{_CSS}</style></head><body><h1>iree-regress report</h1><table class='env'>"]
    parts += [f"<tr><th align=left>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in _env_lines(model.environment)]
    parts.append(f"</table><p><b>{len(model.items)} items</b>: {_e(_verdict_counts(model))}</p>")
    gate = model.gate_lines()
    parts.append(f"<h2 class='gate'>Gate: {'FAIL' if gate else 'pass'}</h2><ul class='gate'>"
                 + "".join(f"<li>{_e(line)}</li>" for line in gate) + "</ul>")
    if model.perf:
        parts.append(f"<h2>Performance: {len(model.perf)} change(s) past the items' own noise</h2><ul>"
                     + "".join(f"<li>{_e(f.line)}</li>" for f in model.perf) + "</ul>")
    held = model.quarantined_lines()
    if held:
        parts.append("<p>Quarantined (shown, not gating):</p><ul class='gate'>"
                     + "".join(f"<li>{_e(line)}</li>" for line in held) + "</ul>")
    if model.updates:
        parts.append("<p>Expectations that no longer describe what was measured (check, then):</p><pre>"
                     + _e("\n".join(model.updates)) + "</pre>")
    if model.diff is not None:
        d = model.diff
        parts.append("<h2>Since the previous run</h2><ul class='diff'>")
        lines = [(title, keys) for title, keys in (
            ("New failures", [i.key for i in d.new_failures]),
            ("Unexpected passes", [i.key for i in d.unexpected_passes]),
            ("Errors", [i.key for i in d.errors]), ("Vanished items", d.gone),
            ("Flaky", [i.key for i in d.flaky]),
            ("Coverage lost (ran before, only compiled now)", [i.key for i in d.coverage_lost]),
            ("New passes", [i.key for i in d.new_passes]),
            ("Compile-time changes", [f"{c.key} {c.before:.1f}s→{c.after:.1f}s" for c in d.time_changes]))]
        for title, keys in lines:
            if not keys:
                continue
            names = ", ".join(_e(k) for k in keys)
            if len(keys) > _LISTED:  # a new release can change hundreds: the count stays in view
                names = f"<details><summary>show</summary>{names}</details>"
            parts.append(f"<li><b>{title}</b> ({len(keys)}): {names}</li>")
        # What did not change, on one line: the first screen keeps room for the heat maps.
        unchanged = [title.split(" (")[0].lower() for title, keys in lines if not keys]
        if unchanged:
            parts.append(f"<li>None: {_e(', '.join(unchanged))}</li>")
        parts.append("</ul>")
        if d.config_changes:
            parts.append("<h3>Attention configuration changes (information, not failures)</h3><table>"
                         "<tr><th>item</th><th>dispatch</th><th>field</th><th>before</th><th>after</th></tr>"
                         + "".join(f"<tr><td>{_e(c.key)}</td><td>{_e(c.dispatch)}</td><td>{_e(c.field)}</td>"
                                   f"<td>{_e(c.before)}</td><td>{_e(c.after)}</td></tr>" for c in d.config_changes)
                         + "</table>")

    # Sweep variants are counted in the heat maps; the matrix keeps those that need a reader.
    shown = [r for r in model.rows if sweep_of(r) is None or needs_a_reader(r, model.diff)]
    hidden = len(model.rows) - len(shown)
    variants_shown = sum(1 for r in shown if sweep_of(r) is not None)
    parts.append(heat_maps_html(heat_maps(model), variants_shown, hidden))
    details = _detail_groups(shown)
    anchor_of = {item.key: anchor for anchor, items in details for item in items}
    parts.append("<h2>Matrix</h2><div class='legend'>" + "".join(
        f"<span class='s-{s.name}' title='{_e(s.meaning)}'>{_e(s.mark)} {_e(s.name)}</span>"
        for s in CELL_STATES.values()) + "</div>")
    cols = model.columns
    targets_in = list(dict.fromkeys(c.rsplit("-", 1)[0] for c in cols))
    head1 = "".join(f"<th colspan='{sum(1 for c in cols if c.rsplit('-', 1)[0] == t)}'>{_e(t)}</th>"
                    for t in targets_in)
    head2 = "".join(f"<th>{_e(c.rsplit('-', 1)[1])}</th>" for c in cols)
    ir_head = "<th rowspan='2'>IR checks, differences</th>" if model.has_named else ""
    parts.append("<div class='wrap'><table class='matrix'><thead>"
                 f"<tr><th class='case' rowspan='2'>case: status, windows, issues</th>{head1}{ir_head}</tr>"
                 f"<tr>{head2}</tr></thead><tbody>")
    for row in shown:
        links = " ".join(f"<a href='{_e(url)}'>{_e(ref)}</a>" for ref, url in row.issue_links())
        errors = "".join(f"<br><a href='#{anchor_of.get(i.key, '')}'>{_e(i.outcome)}</a>" for i in row.errors)
        tds = [f"<td class='case' title='{_e(row.title)}'><b>{_e(row.slug)}</b> "
               f"<span class='status'>{_e(row.family)} · {_e(row.windows or 'no window')}</span>"
               f"<br>{links}{errors}</td>"]
        for c in cols:
            item = row.cells.get(c)
            tds.append(_cell(item, row.windows, anchor_of.get(item.key)) if item else "<td></td>")
        if model.has_named:
            chips = "".join(_chip(i, row.windows, anchor_of.get(i.key)) for i in row.named_cells)
            tds.append(f"<td class='ir'>{chips}</td>")
        parts.append("<tr>" + "".join(tds) + "</tr>")
    parts.append("</tbody></table></div>")

    bugs = _known_bugs(model)
    parts.append(f"<h2>Known bugs by issue ({sum(1 for i in model.items if i.cell_state == 'xfail')} items, "
                 "failing as recorded)</h2>")
    parts.append("<table class='bugs'><tr><th>issue</th><th>cases (windows)</th><th>items</th></tr>"
                 + "".join(bugs) + "</table>" if bugs else "<p>None.</p>")

    parts.append("<h2>New failures by signature</h2>")
    if not model.groups:
        parts.append("<p>None: nothing failed that is not a known bug.</p>")
    for g in model.groups:
        names = ", ".join(_e(i.key) for i in g.items)
        parts.append(f"<h3>{_e(g.outcome)} ×{len(g.items)}: {_e(g.signature)}</h3><p>{names}</p>")

    parts.append("<h2>Details (one per case and failure)</h2>")
    for anchor, items in details:
        first = items[0]
        names = ", ".join(_e(i.item) for i in items)
        parts.append(f"<h3 id='{_e(anchor)}'>{_e(first.case)}: {_e(first.outcome)} ({_e(first.verdict)}) "
                     f"on {len(items)} item(s)</h3><p>{names}</p><p>{_e(_first_line(first))}</p>"
                     f"<p>Reproducer:</p><pre>{_e(first.reproducer)}</pre>")
        if first.failing_stage is not None:
            log = re.sub(r'cpu_features\s*=\s*"[^"]*"', 'cpu_features = "..."', diagnosis(first))
            parts.append(f"<details><summary>output</summary><pre>{_e(log)}</pre></details>")
    parts.append("<pre id='render-check' hidden></pre>")
    parts.append(f"<script>{_CHECK_JS}</script></body></html>")
    return "\n".join(parts)
