"""A second reduction, after iree-reduce: operand forwarding (as llvm-reduce does).

iree-reduce replaces ops by constants and splats; a program whose bug needs real data
flowing through it (a fusion chain, a reduction feeding a division) keeps every op. Here
an operation's result is replaced by one of its own operands of the same type and the op
deleted, then whatever lost its last use is deleted too; the step is kept only when the
oracle says the program still shows the bug on the bad release and not on the good one.
Ops are tried from the last to the first, so a chain shrinks from its end.

It reads MLIR as text, one statement per `%x = ...` line (with its region, up to the
closing brace at the same indentation), which is how iree-compile prints it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

_STATEMENT = re.compile(r"^(\s*)(%[\w$.-]+) = ([\w.]+)")
_VALUE = r"(?<![\w$.#-]){}(?![\w$.-])"
_LOC = re.compile(r"\s*loc\((?:[^()]|\([^()]*\))*\)\s*$")
_ARG = re.compile(r"(%[\w$.-]+)\s*:\s*(tensor<[^<>]*>|!torch\.vtensor<[^<>]*>|[^,{}()\s]+)")  # torch: imports
_ALIAS = re.compile(r"^(#[\w$.-]+)\s*=")
# Ops that must stay though nothing uses their result: the program's interface and effects.
KEEP = ("hal.", "util.call", "util.global", "util.optimization_barrier", "flow.tensor.trace",
        "iree_tensor_ext.", "func.call")


@dataclass(frozen=True)
class Statement:
    first: int  # line index of `%x = ...`
    last: int  # line index of its closing line (== first without a region)
    result: str  # %x
    op: str  # e.g. linalg.generic
    type: str  # its result type as printed, '' when not read

    def text(self, lines: list[str]) -> str:
        return "\n".join(lines[self.first:self.last + 1])


# Ops whose printed type is an operand's, not their result's.
_TYPE_IS_OPERANDS = ("tensor.dim", "memref.dim", "arith.cmpi", "arith.cmpf")


def _result_type(op: str, closing: str) -> str:
    if op in _TYPE_IS_OPERANDS:
        return ""
    line = _LOC.sub("", closing).rstrip()
    for marker in (" -> ", " into ", " to ", " : "):
        if marker in line:
            return re.sub(r"\{[^{}]*\}$", "", line.rsplit(marker, 1)[1].strip())  # dynamic dims
    return ""


def statements(lines: list[str]) -> list[Statement]:
    found = []
    i = 0
    while i < len(lines):
        m = _STATEMENT.match(lines[i])
        if not m:
            i += 1
            continue
        indent, last = m.group(1), i
        if _LOC.sub("", lines[i]).rstrip().endswith("{"):  # a region: up to its closing brace
            last = next((j for j in range(i + 1, len(lines))
                         if lines[j].startswith(indent + "}")), i)
        found.append(Statement(i, last, m.group(2), m.group(3), _result_type(m.group(3), lines[last])))
        i += 1  # statements inside a region are read too
    return found


def _top_level(lines: list[str], found: list[Statement] | None = None) -> list[Statement]:
    """The statements not inside another's region."""
    found = statements(lines) if found is None else found
    return [s for s in found if not any(o.first < s.first <= o.last for o in found if o is not s)]


def _uses(lines: list[str], name: str, skip: Statement | None = None) -> int:
    pattern = re.compile(_VALUE.format(re.escape(name)))
    return sum(len(pattern.findall(line)) for k, line in enumerate(lines)
               if not (skip and skip.first <= k <= skip.last))


def _types(lines: list[str]) -> dict[str, str]:
    known = {}
    for line in lines:
        if ("func.func" in line or "util.func" in line) and "@" in line:
            known.update({name: t for name, t in _ARG.findall(line.split("->")[0])})
    for s in statements(lines):
        if s.type:
            known.setdefault(s.result, s.type)
    return known


def forward(lines: list[str], s: Statement, operand: str) -> list[str]:
    """`s` deleted and its result's uses read `operand` instead."""
    pattern = re.compile(_VALUE.format(re.escape(s.result)))
    kept = lines[:s.first] + lines[s.last + 1:]
    return [pattern.sub(operand, line) for line in kept]


def sweep(lines: list[str]) -> list[str]:
    """Delete statements nothing uses (but the interface's) and aliases nothing names."""
    changed = True
    while changed:
        changed = False
        for s in reversed(_top_level(lines)):  # inside a region its yield decides: leave it
            if s.op.startswith(KEEP) or _uses(lines, s.result, skip=s):
                continue
            lines = lines[:s.first] + lines[s.last + 1:]
            changed = True
            break
    text = "\n".join(lines)
    return [line for line in lines
            if not (m := _ALIAS.match(line)) or len(re.findall(_VALUE.format(re.escape(m.group(1))), text)) > 1]


def candidates(lines: list[str]):
    """(description, candidate lines) for each forwarding, last op first."""
    types = _types(lines)
    found = statements(lines)
    for s in reversed(_top_level(lines, found)):
        if s.op.startswith(KEEP) or not s.type:
            continue
        body = s.text(lines)
        inner = {t.result for t in found if s.first < t.first <= s.last}
        operands = []
        for name in re.findall(r"%[\w$.-]+", body):
            if name != s.result and name not in inner and name not in operands \
                    and types.get(name) == s.type:
                operands.append(name)
        for operand in operands:
            yield f"{s.result} ({s.op}) -> {operand}", sweep(forward(lines, s, operand))


def reduce_text(text: str, interesting: Callable[[str], bool], budget: int = 400,
                log=lambda line: None) -> tuple[str, int]:
    """Forward operands while `interesting(candidate text)` holds; returns the smallest
    text and how many candidates were asked (at most `budget`)."""
    lines = text.splitlines()
    swept = sweep(lines)
    if swept != lines and interesting("\n".join(swept) + "\n"):
        lines = swept
    asked = 0
    refused: set[str] = set()  # names do not change as statements go: no need to ask twice
    progress = True
    while progress and asked < budget:
        progress = False
        for what, candidate in candidates(lines):
            if asked >= budget:
                break
            if what in refused:
                continue
            asked += 1
            if interesting("\n".join(candidate) + "\n"):
                log(f"forward: kept {what}")
                lines, progress = candidate, True
                break  # statements moved: start over from the (new) end
            refused.add(what)
    return "\n".join(lines) + "\n", asked


_LOC_ATTACHED = re.compile(r"\s*loc\((?:[^()]|\([^()]*\))*\)")
_LOC_ALIAS = re.compile(r"^#loc[\w$.-]*\s*=.*$\n?", re.M)


def without_locations(text: str) -> str:
    """The program without source locations (`loc(...)` and `#loc` aliases): what a
    reader upstream wants, when the bug's message does not need them."""
    return _LOC_ALIAS.sub("", _LOC_ATTACHED.sub("", text))


# The ABI an imported PyTorch program gets: `@main` (buffer views) calls `@main$async`,
# which imports its tensors from buffer views, waits on and signals fences, and exports.
_IMPORT = re.compile(r"^\s*(%[\w$.-]+) = hal\.tensor\.import(?: wait\(%[\w$.-]+\))? => (%[\w$.-]+) : "
                     r"!hal\.buffer_view -> (tensor<[^<>]*>)")
_BARRIER = re.compile(r"^\s*(%[\w$.-]+) = hal\.tensor\.barrier join\((%[\w$.-]+) : [^)]*\) => ")
_EXPORT = re.compile(r"^\s*(%[\w$.-]+) = hal\.tensor\.export (%[\w$.-]+) : (tensor<[^<>]*>)")
_RETURN = re.compile(r"^(\s*)util\.return (.*?) : (.*?)(\s*loc\(.*\))?$")


def _function(lines: list[str], name: str) -> tuple[int, int] | None:
    """(header line, closing line) of `util.func ... @name(`."""
    head = next((i for i, line in enumerate(lines)
                 if re.match(rf"^\s*util\.func public @{re.escape(name)}\(", line)), None)
    if head is None:
        return None
    indent = lines[head][:len(lines[head]) - len(lines[head].lstrip())]
    end = next((j for j in range(head + 1, len(lines)) if lines[j].startswith(indent + "}")), None)
    return (head, end) if end is not None else None


def plain_entry(text: str, function: str = "main") -> str | None:
    """The program with the import ABI taken off: `@function` takes and returns tensors
    (what a reader upstream wants, and ~12 lines shorter); None when the program does not
    have that ABI's shape."""
    lines = text.splitlines()
    wrapper, inner = _function(lines, function), _function(lines, function + "$async")
    if wrapper is None or inner is None:
        return None
    head, end = inner
    args, renames, results = {}, {}, []
    body = []
    for line in lines[head + 1:end]:
        m = _IMPORT.match(line)
        if m:
            args[m.group(2)] = m.group(3)
            renames[m.group(1)] = m.group(2)
            continue
        m = _BARRIER.match(line)
        if m:
            renames[m.group(1)] = m.group(2)
            continue
        m = _EXPORT.match(line)
        if m:
            results.append((m.group(1), m.group(2), m.group(3)))
            continue
        if "hal.buffer_view.dim<" in line:
            continue
        body.append(line)
    if not args and not results:
        return None
    signature = re.match(r"^(\s*)util\.func public @[\w$.-]+\((.*?)\)\s*->", lines[head])
    if signature is None:
        return None
    order = [a for a in re.findall(r"(%[\w$.-]+)\s*:\s*!hal\.buffer_view", signature.group(2))]
    if any(a not in args for a in order):
        return None
    exported = {name: (value, type_) for name, value, type_ in results}
    out_types = [t for _, _, t in results]
    new_head = (f"{signature.group(1)}util.func public @{function}("
                + ", ".join(f"{a}: {args[a]}" for a in order) + ") -> "
                + (out_types[0] if len(out_types) == 1 else "(" + ", ".join(out_types) + ")") + " {")
    fixed = []
    for line in body:
        m = _RETURN.match(line)
        if m:
            values = [v.strip() for v in m.group(2).split(",")]
            if any(v not in exported for v in values):
                return None
            line = (f"{m.group(1)}util.return " + ", ".join(exported[v][0] for v in values)
                    + " : " + ", ".join(exported[v][1] for v in values))
        for old, new in renames.items():
            line = re.sub(_VALUE.format(re.escape(old)), new, line)
        fixed.append(line)
    w_head, w_end = wrapper
    kept = [line for i, line in enumerate(lines) if not (w_head <= i <= w_end)]
    offset = sum(1 for i in range(len(lines)) if w_head <= i <= w_end and i < head)
    h, e = head - offset, end - offset
    result = kept[:h] + [new_head] + fixed + kept[e:]
    return "\n".join(result) + "\n"
