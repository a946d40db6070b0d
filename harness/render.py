"""Render a ReportModel as Markdown and as one self-contained HTML page.

The HTML needs no network: styles and the small script are inline. The script
writes what the browser actually rendered (cells per computed background colour)
into #render-check, which the test reads back from headless Chromium.
"""

from __future__ import annotations

import hashlib
import html

from .outcomes import CELL_STATES, PASS, SKIP
from .record import ItemRecord
from .summary import ReportModel, cell_label, diagnosis


def _env_lines(env: dict) -> list[tuple[str, str]]:
    pk = env.get("packages", {})
    lines = [("IREE compiler", f"{env.get('compiler_version', '?')} @ {env.get('compiler_revision', '')[:12]}"),
             ("IREE runtime", env.get("runtime_version", "?")),
             ("packages", ", ".join(f"{k} {v}" for k, v in pk.items() if v)),
             ("host", f"{env.get('host_cpu', '?')} ({env.get('machine', '?')})")]
    for driver, devices in env.get("device_info", {}).items():
        for d in devices:
            lines.append((driver, f"{d.get('name', '?')} / {d.get('driver', '')} {d.get('driver_info', '')}".strip()))
    return lines


def _md(text) -> str:
    """Plain text inside a Markdown table or list item: one line, no table breaks."""
    return " ".join(str(text).split()).replace("|", "\\|")


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
    out += [f"- **{k}**: {v}" for k, v in _env_lines(model.environment)]
    out += ["", f"**{len(model.items)} items**: {_verdict_counts(model)}", ""]
    out += ["## By family", "", "| family | cases | items |", "|---|---|---|"]
    out += [f"| {family} | {counts['cases']} | {_family_counts(counts)} |"
            for family, counts in model.families().items()]
    out.append("")
    if model.diff is not None:
        d = model.diff
        out += ["## Since the previous run", ""]
        out += [f"- new failures: {len(d.new_failures)}", f"- unexpected passes: {len(d.unexpected_passes)}",
                f"- errors (not loaded, harness, worker): {len(d.errors)}",
                f"- vanished items: {len(d.gone)}",
                f"- new passes: {len(d.new_passes)}", f"- compile-time changes: {len(d.time_changes)}", ""]
        for title, items in (("New failures", d.new_failures), ("Unexpected passes", d.unexpected_passes),
                             ("Errors", d.errors), ("New passes", d.new_passes)):
            if items:
                out += [f"### {title}", ""] + [f"- `{_md(i.key)}` {i.outcome}" for i in items] + [""]
        if d.gone:
            out += ["### Vanished items", ""] + [f"- `{_md(k)}`" for k in d.gone] + [""]
        if d.time_changes:
            out += ["### Compile time", ""] + [f"- `{c.key}` {c.before:.1f} s -> {c.after:.1f} s "
                                                f"({c.ratio:.2f}x)" for c in d.time_changes] + [""]
    cols = model.columns
    out += ["## Matrix", "", "| case | " + " | ".join(cols) + (" | ir |" if model.has_ir else " |"),
            "|---" * (len(cols) + 1 + model.has_ir) + "|"]
    for row in model.rows:
        cells = [cell_label(row.cells[c]) if c in row.cells else "" for c in cols]
        if model.has_ir:
            cells.append(", ".join(f"{_md(i.ir_check)}: {cell_label(i)}" for i in row.ir_cells))
        links = " ".join(f"[{ref}]({url})" for ref, url in row.issue_links())
        out.append(f"| {_md(row.slug)} {links} | " + " | ".join(cells) + " |")
    gate = model.gate_lines()
    out += ["", f"## Gate: {'FAIL' if gate else 'pass'}", ""]
    out += [f"- {_md(line)}" for line in gate] or ["Nothing fails the gate."]
    held = model.quarantined_lines()
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
    out += ["", "## Failures by signature (wrong numbers first)", ""]
    if not model.groups:
        out.append("None.")
    for g in model.groups:
        names = ", ".join(f"`{_md(i.key)}`" for i in g.items[:12])
        more = f" and {len(g.items) - 12} more" if len(g.items) > 12 else ""
        out += [f"### {g.outcome} x{len(g.items)}: {g.signature}", "", f"Items: {names}{more}", "",
                "```", _code(diagnosis(g.example)[-1500:]), "```", "", "Reproducer:", "",
                "```sh", _code(g.example.reproducer), "```", ""]
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- html

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}
table.matrix{border-collapse:collapse;margin:12px 0}
.matrix th,.matrix td{border:1px solid #fff;padding:3px 6px;text-align:center;font-size:12px}
.matrix th{background:#eee}.matrix td.case{text-align:left;background:#fafafa;white-space:nowrap}
td.cell a{color:inherit;text-decoration:none;display:block}
td.cell{min-width:64px;color:#fff}
.legend span{display:inline-block;padding:2px 8px;margin:2px;border-radius:3px;color:#fff;font-size:12px}
pre{background:#f5f5f5;padding:8px;overflow:auto;max-height:320px;font-size:12px}
.env td{padding:1px 8px}.diff li{margin:2px 0}
""" + "".join(f"td.s-{s.name},.legend .s-{s.name}{{background:{s.colour}"
              + (";color:#222" if s.dark_text else "") + "}" for s in CELL_STATES.values())

_CHECK_JS = """
(function(){var cells=document.querySelectorAll('td.cell');var by={};
for(var i=0;i<cells.length;i++){var c=getComputedStyle(cells[i]).backgroundColor;by[c]=(by[c]||0)+1;}
document.getElementById('render-check').textContent=JSON.stringify({cells:cells.length,colours:by});})();
"""


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _has_detail(item: ItemRecord) -> bool:
    return item.verdict not in (PASS, SKIP)


def _cell(item: ItemRecord, anchor: str) -> str:
    state = item.cell_state
    title = f"{item.key}: {item.outcome} ({item.verdict})"
    inner = _e(cell_label(item))
    if _has_detail(item):
        inner = f'<a href="#{anchor}">{inner}</a>'
    return f'<td class="cell s-{state}" title="{_e(title)}">{inner}</td>'


def _anchor(item: ItemRecord) -> str:
    """An id made only of safe characters (a case name is whatever its folder is called)."""
    return "d-" + hashlib.sha256(item.key.encode()).hexdigest()[:16]


def _cell_text(item: ItemRecord) -> str:
    return f"<a href='#{_anchor(item)}' class='err'>{_e(item.outcome)}</a>"


def html_page(model: ReportModel) -> str:
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>iree-regress report</title>",
             f"<style>{_CSS}</style></head><body><h1>iree-regress report</h1><table class='env'>"]
    parts += [f"<tr><th align=left>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in _env_lines(model.environment)]
    parts.append(f"</table><p><b>{len(model.items)} items</b>: {_e(_verdict_counts(model))}</p>")
    parts.append("<div class='legend'>" + "".join(
        f"<span class='s-{s.name}' title='{_e(s.meaning)}'>{_e(s.name)}</span>"
        for s in CELL_STATES.values()) + "</div>")
    gate = model.gate_lines()
    parts.append(f"<h2>Gate: {'FAIL' if gate else 'pass'}</h2><ul class='gate'>"
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
        for title, keys in (("New failures", [i.key for i in d.new_failures]),
                            ("Unexpected passes", [i.key for i in d.unexpected_passes]),
                            ("Errors", [i.key for i in d.errors]), ("Vanished items", d.gone),
                            ("New passes", [i.key for i in d.new_passes])):
            names = ", ".join(_e(k) for k in keys) or "none"
            parts.append(f"<li><b>{title}</b> ({len(keys)}): {names}</li>")
        changes = ", ".join(_e(f"{c.key} {c.before:.1f}s→{c.after:.1f}s") for c in d.time_changes) or "none"
        parts.append(f"<li><b>Compile-time changes</b> ({len(d.time_changes)}): {changes}</li></ul>")

    parts.append("<h2>By family</h2><table class='env'>" + "".join(
        f"<tr><th align=left>{_e(f)}</th><td>{c['cases']} cases</td><td>{_e(_family_counts(c))}</td></tr>"
        for f, c in model.families().items()) + "</table>")
    cols = model.columns
    parts.append("<h2>Matrix</h2><table class='matrix'><tr><th>case</th>"
                 + "".join(f"<th>{_e(c)}</th>" for c in cols) + ("<th>ir</th>" if model.has_ir else "") + "</tr>")
    details = []
    for row in model.rows:
        links = " ".join(f"<a href='{_e(url)}'>{_e(ref)}</a>" for ref, url in row.issue_links())
        errors = "".join(f"<br>{_cell_text(i)}" for i in row.errors)
        window = f"<br><small>{_e(row.windows)}</small>" if row.windows else ""
        tds = [f"<td class='case' title='{_e(row.title)}'><b>{_e(row.slug)}</b> <small>{_e(row.family)}</small>"
               f"<br>{links}{window}{errors}</td>"]
        for c in cols:
            item = row.cells.get(c)
            if item is None:
                tds.append("<td></td>")
                continue
            anchor = _anchor(item)
            tds.append(_cell(item, anchor))
            details.append((anchor, item))
        if model.has_ir:
            sub = "".join(_cell(i, _anchor(i)) for i in row.ir_cells)
            details += [(_anchor(i), i) for i in row.ir_cells]
            tds.append(f"<td><table><tr>{sub}</tr></table></td>" if sub else "<td></td>")
        parts.append("<tr>" + "".join(tds) + "</tr>")
    parts.append("</table>")

    parts.append("<h2>Failures by signature</h2>")
    if not model.groups:
        parts.append("<p>None.</p>")
    for g in model.groups:
        names = ", ".join(_e(i.key) for i in g.items)
        parts.append(f"<h3>{_e(g.outcome)} ×{len(g.items)}: {_e(g.signature)}</h3><p>{names}</p>")

    parts.append("<h2>Details</h2>")
    details += [(_anchor(i), i) for row in model.rows for i in row.errors]
    for anchor, item in details:
        if not _has_detail(item):
            continue
        parts.append(f"<h3 id='{_e(anchor)}'>{_e(item.key)} — {_e(item.outcome)} "
                     f"({_e(item.verdict)})</h3><p>{_e(item.message)}</p>")
        if item.failing_stage is not None:
            parts.append(f"<pre>{_e(diagnosis(item))}</pre>")
        parts.append(f"<p>Reproducer:</p><pre>{_e(item.reproducer)}</pre>")
    parts.append("<pre id='render-check' hidden></pre>")
    parts.append(f"<script>{_CHECK_JS}</script></body></html>")
    return "\n".join(parts)

