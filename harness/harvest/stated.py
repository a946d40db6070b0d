"""The correct output a thread states in its prose: a golden, quoted.

Reports of wrong numbers often say what the right answer is instead of shipping a
reference: a line that says what is "expected" or what the result "should be" (the values
inline, or in the code block after it), or a table with a column named Expected,
Reference, ORT, ONNX Runtime, numpy or PyTorch. Each such statement is a candidate; one
that holds as many values as the program's results have elements is the golden, kept
with its quote. Two candidates that disagree are ambiguous: harvest asks, and writes
nothing. An iree-run-module style value (`9xf32=9 8 7 ...`) gives its own shape and type.

The values are parsed, never run; the golden is written by reference.py in the sandbox
like any other (commands/harvest.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .thread import HarvestError

# What introduces the right answer in prose.
_SAYS = re.compile(r"\b(?:expected(?: (?:output|result|values?))?|should (?:be|give|return|output)|"
                   r"correct (?:result|output|answer|values?)s?(?: (?:is|are|should be))?|ground truth)\b\s*[:=]?",
                   re.I)
# A table column holding the right answer.
_REFERENCE_COLUMN = re.compile(r"expected|reference|\bort\b|onnx ?runtime|numpy|pytorch|\btorch\b|golden|correct",
                               re.I)
_FENCE = re.compile(r"^(`{3,}|~{3,})[^\n]*\n(.*?)^\1[ \t]*$", re.M | re.S)
_INLINE = re.compile(r"`([^`\n]+)`")
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|inf|nan)(?![\w.])", re.I)
_TYPED = re.compile(r"\b((?:\d+x)*)([a-z]+\d*)=")  # iree-run-module's `2x3xf32=`
_WITHIN_LINES = 3  # how far below a statement its code block may start
_DTYPES = {"f32": "float32", "f16": "float16", "bf16": "bfloat16", "f64": "float64", "i8": "int8", "i16": "int16",
           "i32": "int32", "i64": "int64", "i1": "bool", "ui8": "uint8", "ui32": "uint32", "si32": "int32"}


@dataclass(frozen=True)
class Result:
    """One result of the program: its static shape and element type (numpy's name)."""
    shape: tuple[int, ...]
    dtype: str

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


@dataclass(frozen=True)
class Statement:
    """Values the thread states as correct, with the words that state them."""
    values: tuple[str, ...]  # as printed: their digits give the tolerance
    quote: str

    def floats(self) -> list[float]:
        return [float(v) for v in self.values]

    def atol(self) -> float:
        """Half a unit of the last printed digit of the least precise value: a value
        printed as 1.5 may be anything from 1.45 to 1.55."""
        return max((_last_place(v) / 2 for v in self.values), default=0.0)


def _last_place(text: str) -> float:
    mantissa, _, exponent = text.lower().partition("e")
    if mantissa.strip("+-") in ("inf", "nan"):
        return 0.0
    decimals = len(mantissa.split(".", 1)[1]) if "." in mantissa else 0
    return 10.0 ** (int(exponent or 0) - decimals)


def _header(program: str, function: str | None) -> tuple[str, int] | None:
    """(the entry function's argument list, where its header goes on), or None."""
    funcs = list(re.finditer(r"func\.func\s+(?:public\s+)?@([\w$.-]+)\s*\(", program))
    chosen = next((m for m in funcs if function is None or m.group(1) == function), None)
    if chosen is None:
        return None
    depth, i = 1, chosen.end()
    while i < len(program) and depth:
        depth += {"(": 1, ")": -1}.get(program[i], 0)
        i += 1
    return program[chosen.end():i - 1], i


def argument_count(program: str, function: str | None = None) -> int | None:
    header = _header(program, function)
    return None if header is None else len(re.findall(r"%[\w$.-]+\s*:", header[0]))


def _types(text: str) -> list[Result] | None:
    """The static tensor types in `text` (builtin or torch), None if one is not static."""
    found = []
    for m in re.finditer(r"tensor<((?:[\d?]+x)*)(\w+)>|!torch\.vtensor<\[([-\d,]*)\],(\w+)>", text):
        dims = m.group(1).split("x")[:-1] if m.group(2) else m.group(3).split(",")
        element = m.group(2) or m.group(4)
        if element not in _DTYPES or any(not d.isdigit() for d in dims if d):
            return None
        found.append(Result(tuple(int(d) for d in dims if d), _DTYPES[element]))
    return found


def argument_types(program: str, function: str | None = None) -> list[Result] | None:
    """The entry function's arguments' static types, None when one is dynamic or unknown."""
    header = _header(program, function)
    return None if header is None else _types(header[0])


def result_types(program: str, function: str | None = None) -> list[Result]:
    """The results of the program's entry function (`-> tensor<9xf32>` or a torch
    `!torch.vtensor<[9],f32>`); [] where a result's shape is not static."""
    header = _header(program, function)
    if header is None:
        return []
    arrow = re.match(r"\s*->\s*(\([^{]*?\)|[^{]*?)\s*(?:attributes\s*)?\{", program[header[1]:], re.S)
    return (_types(arrow.group(1)) or []) if arrow else []


def candidates(text: str) -> list[Statement]:
    """Every statement of correct values in the thread's markdown, in order."""
    found = []
    lines = text.splitlines()
    fences = [(text.count("\n", 0, m.start()), m.group(2)) for m in _FENCE.finditer(text)]
    inside = {n for start, body in fences for n in range(start, start + body.count("\n") + 2)}
    for n, line in enumerate(lines):
        if n in inside:
            continue
        m = _SAYS.search(line)
        if m:
            after = line[m.end():]
            inline = _INLINE.findall(after)
            values = _values(inline[0] if inline else after)
            if not values:  # the values in the code block just below
                block = next((body for start, body in fences if n < start <= n + _WITHIN_LINES), "")
                values = _values(block)
                quote = (line.strip() + "\n" + block.strip())[:400]
            else:
                quote = line.strip()[:400]
            if values:
                found.append(Statement(tuple(values), quote))
    found += _table_columns(lines, inside)
    return found


def _values(text: str) -> list[str]:
    """The numbers of a printed value, without an iree-run-module `2x3xf32=` prefix."""
    typed = _TYPED.search(text)
    if typed:
        text = text[typed.end():]
    return _NUMBER.findall(text.replace("[", " ").replace("]", " ").replace(",", " "))


def _table_columns(lines: list[str], inside: set[int]) -> list[Statement]:
    """A markdown table's reference column (Expected, ORT, numpy, ...), its cells in order."""
    found = []
    n = 0
    while n < len(lines) - 1:
        head, rule = lines[n], lines[n + 1]
        if n in inside or "|" not in head or not re.fullmatch(r"\s*\|?\s*:?-{2,}.*", rule):
            n += 1
            continue
        names = [c.strip() for c in head.strip().strip("|").split("|")]
        rows = []
        n += 2
        while n < len(lines) and "|" in lines[n]:
            rows.append([c.strip() for c in lines[n].strip().strip("|").split("|")])
            n += 1
        for j, name in enumerate(names):
            if _REFERENCE_COLUMN.search(name) and not re.search(r"actual|iree|got|observed", name, re.I):
                values = [v for row in rows if j < len(row) for v in _values(row[j])]
                if values:
                    found.append(Statement(tuple(values), f"the table column {name!r}: {' '.join(values)[:300]}"))
    return found


def stated_golden(text: str, results: list[Result]) -> Statement | None:
    """The statement whose values fill the program's results, or None. HarvestError when
    two statements that fill them disagree (the thread is ambiguous: harvest asks)."""
    total = sum(r.size for r in results)
    fitting = [s for s in candidates(text) if results and len(s.values) == total]
    distinct: list[Statement] = []
    for s in fitting:
        if not any(_agree(s, d) for d in distinct):
            distinct.append(s)
    if len(distinct) > 1:
        quotes = "; ".join(repr(s.quote.splitlines()[0][:120]) for s in distinct[:3])
        raise HarvestError(f"the thread states {len(distinct)} different correct outputs ({quotes}): "
                           "say which with --reference reference.py (example_inputs(), reference())")
    return distinct[0] if distinct else None


def _agree(a: Statement, b: Statement) -> bool:
    tol = max(a.atol(), b.atol(), 1e-6)
    return all(x == y or abs(x - y) <= tol + 1e-5 * abs(y) for x, y in zip(a.floats(), b.floats()))


def stated_reference(statement: Statement, results: list[Result], inputs: list) -> str:
    """reference.py: example_inputs() are the thread's run inputs (none: the program takes
    none), reference() the values the thread states, shaped as the program's results."""
    lines = ["# The values the thread states as correct (written by iree-regress harvest):",
             *[f"#   {q}" for q in statement.quote.splitlines()[:6]],
             "import torch", "", "", "def example_inputs():"]
    arrays = [f"torch.tensor({_py(a.ravel().tolist())}, dtype=torch.{_torch_name(a.dtype.name)})"
              f".reshape({list(a.shape)})" for a in inputs]
    lines.append(f"    return ({', '.join(arrays)}{',' if arrays else ''})")
    lines += ["", "", "def reference(*inputs):  # the stated values: the same whatever the inputs"]
    values, at, outs = statement.floats(), 0, []
    for j, r in enumerate(results):
        chunk = values[at:at + r.size]
        at += r.size
        lines.append(f"    out{j} = torch.tensor({_py(chunk)}, dtype=torch.float64).reshape({list(r.shape)})"
                     f".to(torch.{_torch_name(r.dtype)})")
        outs.append(f"out{j}")
    lines.append(f"    return {', '.join(outs)}" + ("," if len(outs) == 1 else ""))
    return "\n".join(lines) + "\n"


def _py(values: list) -> str:
    """A Python list literal of numbers (nan and inf as float(...))."""
    def one(v) -> str:
        v = float(v) if not isinstance(v, bool) else v
        return repr(v) if isinstance(v, bool) or v == v and abs(v) != float("inf") else f"float({str(v)!r})"
    return "[" + ", ".join(one(v) for v in values) + "]"


def _torch_name(numpy_name: str) -> str:
    return {"bool": "bool", "uint8": "uint8"}.get(numpy_name, numpy_name)
