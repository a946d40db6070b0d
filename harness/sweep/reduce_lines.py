"""A generated program's forward() made small line by line: the edits a person makes when
reducing a reproducer by hand, each one kept only when the item still fails the same way.

A graph program (harness/sweep/graph.py) has no slots to leave out: it is a list of
`vN = op(...)` lines over the inputs, returning its sinks. The edits, tried in turn until
none is kept:

- leave out one returned value (one stays), then every line nothing reads any more;
- bypass a line: `vN = op(a, b)` becomes `vN = a` (or `b`): the op is not needed when the
  failure stays (a bypass that breaks the types fails in PyTorch first, another failure,
  and is not kept);
- make one dynamic dim static;
- read `vN = a`'s a where vN was read (a bypass's leftover).

The text is only ever edited here: every trial is built, given its golden and run as
every program is (reduce.py's failure_of), in the sandbox.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from typing import Callable, Iterator

from .program import Program

_ASSIGN = re.compile(r"^(\s+)(v\d+) = (.+)$")
_RETURN = re.compile(r"^(\s+)return (.+?),?\s*$")
_NAME = re.compile(r"\b([vx]\d+)\b")
_DYNAMIC = re.compile(r"^(\s+)return (\{.*\})\s*$")


def forward_span(lines: list[str]) -> tuple[int, int]:
    """[start, end) of forward()'s body (a generated one: no blank line inside)."""
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("def forward(")) + 1
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("        ")), len(lines))
    return start, end


def _split_top(text: str) -> list[str]:
    """`a, f(b, c), d` -> [a, f(b, c), d]: commas outside brackets."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def _without_dead(lines: list[str]) -> list[str]:
    """Leave out the `vN = ...` lines nothing after them reads (repeated until none)."""
    start, end = forward_span(lines)
    body = lines[start:end]
    while True:
        dead = None
        for i, line in enumerate(body):
            m = _ASSIGN.match(line)
            if m and not any(re.search(rf"\b{m.group(2)}\b", later) for later in body[i + 1:]):
                dead = i
                break
        if dead is None:
            return lines[:start] + body + lines[end:]
        del body[dead]


def _with_body(program: Program, lines: list[str]) -> Program:
    return replace(program, source="\n".join(_without_dead(lines)) + "\n")


def edits(program: Program) -> Iterator[tuple[str, Program]]:
    """Every single edit of the program, smallest first: (what it does, the program)."""
    lines = program.source.splitlines()
    start, end = forward_span(lines)
    ret = next((i for i in range(start, end) if _RETURN.match(lines[i])), None)
    if ret is not None:
        indent, returned = _RETURN.match(lines[ret]).groups()
        outputs = _split_top(returned)
        for k in range(len(outputs)) if len(outputs) > 1 else ():
            kept = outputs[:k] + outputs[k + 1:]
            yield (f"return without {outputs[k]}",
                   _with_body(program, lines[:ret] + [f"{indent}return {', '.join(kept)},"] + lines[ret + 1:]))
    for i in range(start, end):
        m = _ASSIGN.match(lines[i])
        if not m:
            continue
        indent, name, expr = m.groups()
        if _NAME.fullmatch(expr):  # `v1 = v0` after a bypass: read v0 where v1 was read
            renamed = [re.sub(rf"\b{name}\b", expr, line) for line in lines[i + 1:end]]
            yield (f"{name} read as {expr}", _with_body(program, lines[:i] + renamed + lines[end:]))
            continue
        for operand in dict.fromkeys(n for n in _NAME.findall(expr)):
            yield (f"{name} = {operand} (its op bypassed)",
                   _with_body(program, lines[:i] + [f"{indent}{name} = {operand}"] + lines[i + 1:]))
    for i, line in enumerate(lines):
        m = _DYNAMIC.match(line) if i > end else None
        if not m:
            continue
        try:
            dims = ast.literal_eval(re.sub(r"\b([A-Za-z_]\w*)\b(?=\s*[,}])", r"'\1'", m.group(2)))
        except (ValueError, SyntaxError):
            continue
        for arg, per in dims.items():
            for dim in list(per or {}):
                fewer = {a: {d: n for d, n in (p or {}).items() if (a, d) != (arg, dim)} for a, p in dims.items()}
                spelled = ", ".join(f"{a!r}: {{{', '.join(f'{d}: {n}' for d, n in p.items())}}}"
                                    for a, p in fewer.items())
                yield (f"{arg} dim {dim} static",
                       replace(program, source="\n".join(lines[:i] + [f"{m.group(1)}return {{{spelled}}}"]
                                                           + lines[i + 1:]) + "\n"))


def reduce_lines(program: Program, same: Callable[[Program], tuple[bool, str]]) -> tuple[Program, list[tuple[str, str]]]:
    """The program with every edit `same` keeps applied, greedily to a fixed point;
    and each trial's (edit, what it did). `same(trial)`: (still the same failure, why not)."""
    current = program
    trials: list[tuple[str, str]] = []
    tried = {program.source}  # a trial not kept is not run again after a later edit
    changed = True
    while changed:
        changed = False
        unused = ("lines nothing reads left out", _with_body(current, current.source.splitlines()))
        for what, trial in (unused, *edits(current)):
            if trial.source in tried:
                continue
            tried.add(trial.source)
            kept, why = same(trial)
            trials.append((what, "the same failure: kept" if kept else f"not kept: {why}"[:120]))
            if kept:
                current, changed = trial, True
                break
    return current, trials
