"""Recall on the suite's own history: would the generated programs have caught the bugs
the suite's historic cases hold?

A case counts when its window is historic (a bad and a good release measured, inside the
PyPI releases) and a person wrote it from an upstream thread (not `found_by` the suite: a
generator cannot be credited with its own finds, nor with a grid's). A generated item catches it when, in a
sweep scan's records, it shows the case's signature on the case's last bad release,
passes on no release inside the window, passes on the case's first good release, and on
its last good one where the item ran there; exactly: catches() below. The
signature is the window's outcome and, for a diagnostic, the case's own message
(`match`); wrong numbers have no message that carries over from one program to another,
so for them the outcome, the window, one op of the case's own program (SPELLINGS) and the
kind of wrongness (a wrong shape or wrong values, as the case's own sample shows) are
the signature: a resemblance, said as such, never a checked same_as.

Nothing is compiled here: `iree-regress sweep recall` reads the scans' records.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from packaging.version import Version

from ..case import Case, Window
from ..compare import WRONG_SHAPE
from ..outcomes import NUMBERS_OUTCOMES, PASS_OUTCOME
from ..record import ItemRecord
from ..targets import opt_level_supported
from .scan import UNSUPPORTED, ItemHistory, Scan

# How a case's PyTorch program spells an op of the library: wrong numbers carry no message
# from one program to another, so a program must also hold one of the case's own ops to
# catch it (GLUE, below, says nothing and is left out).
SPELLINGS = {
    "permute": r"\.permute\(", "transpose": r"\.transpose\(|\.mT\b|\.T\b", "flip": r"\.flip\(|torch\.flip",
    "narrow": r"\.narrow\(", "roll": r"\.roll\(", "strided_slice": r"::\s*\d|\[[^]]*:[^]]*:\s*\d",
    "flatten": r"\.flatten\(", "reshape_group": r"\.reshape\(|\.view\(", "view_split": r"\.view\(",
    "unflatten": r"\.unflatten\(", "squeeze": r"\.squeeze\(", "unsqueeze": r"\.unsqueeze\(",
    "expand": r"\.expand\(", "broadcast_to": r"broadcast_to", "cat": r"torch\.cat\(|torch\.concat",
    "stack": r"torch\.stack\(", "split": r"\.split\(", "chunk": r"\.chunk\(", "pad": r"functional\.pad|F\.pad",
    "gather": r"\.gather\(|torch\.gather", "index_select": r"index_select", "take_along_dim": r"take_along_dim",
    "scatter": r"\.scatter_?\(", "scatter_add": r"scatter_add", "scatter_reduce": r"scatter_reduce",
    "index_put": r"index_put|\]\s*=|\]\s*\+=", "one_hot": r"one_hot", "embedding": r"embedding",
    "masked_fill": r"masked_fill", "where_causal": r"torch\.where|tril|triu", "matmul": r"matmul|@|\.mm\(|bmm",
    "matmul_transposed": r"matmul|@", "self_matmul": r"matmul|@", "bmm": r"bmm|matmul", "linear": r"\blinear\(|\bLinear\(",
    "einsum": r"einsum", "conv1d": r"conv1d|Conv1d", "conv2d": r"conv2d|Conv2d|conv_transpose",
    "sum": r"\.sum\(|torch\.sum", "mean": r"\.mean\(|torch\.mean|avg_pool", "amax": r"amax|\.max\(",
    "argmax": r"argmax", "cumsum": r"cumsum", "softmax": r"softmax", "log_softmax": r"log_softmax",
    "layer_norm": r"layer_norm|LayerNorm", "group_norm": r"group_norm|GroupNorm", "rms_norm": r"rsqrt|rms_norm|RMSNorm",
    "cast": r"\.to\(|\.float\(|\.half\(|\.int\(|\.long\(|\.double\(", "compare": r"[<>]=?\s*\d|==|!=",
    "compare_select": r"torch\.where", "clamp": r"clamp", "int_div": r"//|floor_divide|\.div\(",
    "remainder": r"%|remainder|fmod", "shift": r">>|<<|bitwise_(?:left|right)_shift|__[rl]shift__", "exp": r"\.exp\(|torch\.exp", "tanh": r"tanh",
    "erf": r"\berf\(|\.erf\(|torch\.erf", "abs_neg": r"\.abs\(|torch\.abs", "bool_logic": r"logical_|[&|^]", "topk": r"topk",
    "sort": r"\.sort\(|torch\.sort", "argsort": r"argsort", "sdpa": r"scaled_dot_product_attention",
    # edition 2 (wide-graph)
    "pad_replicate": r"replicate|ReplicationPad", "var": r"\.var\(|torch\.var|\.std\(|torch\.std",
    "select": r"\.select\(|\[[^]]*,\s*-?\d+\s*\]", "kv_write": r"index_put|index_copy",
    "max_pool2d": r"max_pool2d|MaxPool2d", "avg_pool2d": r"avg_pool2d|AvgPool2d",
    "adaptive_avg_pool2d": r"adaptive_avg_pool2d|AdaptiveAvgPool2d",
    "interpolate": r"interpolate|upsample|Upsample", "conv_transpose": r"conv_transpose|ConvTranspose",
    "negative_step_view": r"\.flip\([^)]*\)\s*\.narrow\(|torch\.flip\([^)]*\)\s*\.narrow\(",
    # edition 3 (wide-graph-3)
    "cat_computed": r"torch\.cat\(", "slice_scatter": r"slice_scatter|\[[^=\n]*:[^=\n]*\]\s*=[^=]",
    "permute_select": r"\.permute\([^)]*\)(?:\.select\(|\[[^]]*\b\d+\s*[],])",
    "kv_write_slots": r"index_put\((?s:.*)\.flatten\(\)", "length_mask": r"arange\([^)]*\)\s*<",
    "expert_gather": r"\w\[\s*\w+(?:\.long\(\))?\s*\](?s:.*)einsum|einsum(?s:.*)\[torch\.arange",
}


def computation(source: str) -> str:
    """What a case's program computes, as source: its forward() and __init__() (a model and
    its layers) or reference() (an MLIR case's PyTorch reference) bodies, docstrings left out. The rest of the file
    spells ops it never runs (`torch.export` reads as exp, a docstring's `N*C > 1` as a
    compare) and would let an unrelated program take the credit. A file with neither is
    read whole."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    bodies = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name in ("forward", "__init__", "reference"):
            body = node.body[1:] if ast.get_docstring(node) is not None else node.body
            bodies += [ast.get_source_segment(source, statement) or "" for statement in body]
    return "\n".join(bodies) if bodies else source


# Ops that say nothing of a bug when they are all a program shares with a case: add and
# mul are in every program; a cast and a compare are the glue of nearly all (a dtype
# change, a mask). Measured: transpose-graph seed 130, with no shift at all, took the
# credit for case rshift-signedness-swapped through a bf16 cast alone.
GLUE = frozenset({"add", "mul", "cast", "compare"})


def ops_spelled(source: str) -> frozenset[str]:
    """The library ops a PyTorch program's source spells (SPELLINGS)."""
    return frozenset(name for name, pattern in SPELLINGS.items() if re.search(pattern, source))


@dataclass(frozen=True)
class Target:
    """One historic case's bug, as a generated program would have to show it."""
    slug: str
    family: str
    window: Window
    outcomes: tuple[str, ...]
    match: re.Pattern | None
    ops: frozenset[str] = frozenset()  # the library ops its program spells (wrong numbers need one)
    wrong_shape: bool | None = None  # wrong numbers: its sample shows a wrong shape (None: no sample)

    def label(self) -> str:
        w = self.window
        return f"{w.last_good or '-'} < [{w.first_bad} .. {w.last_bad}] < {w.first_good}"


def historic_targets(cases: list[Case], releases: list[str]) -> list[Target]:
    """The cases recall is measured on: each one's newest historic window."""
    known = {Version(r) for r in releases}
    out = []
    for case in cases:
        if case.found_by:  # the suite's own finds (a sweep's, a grid's): not the net's to catch again
            continue
        done = [w for w in case.history.windows if w.first_good and Version(w.first_good) in known
                and Version(w.first_bad) in known]
        if not done:
            continue
        w = done[-1]
        outcomes = w.bad_outcomes or case.history.bad_outcomes
        match = w.bad_match or case.history.bad_match
        # An MLIR case's ops are its PyTorch reference's (the same computation, written out).
        program = case.reference_program
        source = computation(program.read_text(errors="replace")) if program else ""
        numbers = w.sample if w.sample and w.sample.outcome in NUMBERS_OUTCOMES else None
        out.append(Target(case.slug, case.family, w, tuple(outcomes), match, ops_spelled(source),
                          bool(WRONG_SHAPE.search(numbers.text)) if numbers else None))
    return out


def _shows(t: Target, h: ItemHistory, release: str) -> bool:
    outcome = h.outcomes.get(release)
    if outcome not in t.outcomes:
        return False
    record = h.records.get(release)
    if outcome in NUMBERS_OUTCOMES or t.match is None:
        return _shares_an_op(t, h) and _same_wrongness(t, record)
    return record is not None and bool(t.match.search(record.failure_text()))


def _same_wrongness(t: Target, record: ItemRecord | None) -> bool:
    """Wrong numbers: a wrong shape where the case's sample has one, wrong values where it has
    those: another symptom. Measured: wide-graph seed 1025, a grouped conv_transpose2d giving
    [3, 2, 13, 13] for [3, 6, 13, 13], took the credit for case f32-to-f16-truncf-generic-cpu
    (one value rounded wrong) through a shared expand."""
    if t.wrong_shape is None or record is None or record.outcome not in NUMBERS_OUTCOMES:
        return True
    return bool(WRONG_SHAPE.search(record.failure_text())) == t.wrong_shape


def _shares_an_op(t: Target, h: ItemHistory) -> bool:
    """For a signature without a message: the program holds one of the case's own ops (its
    traits name them: op=..., or a composition's context and family ops)."""
    record = next(iter(h.records.values()), None)
    held = {trait.partition("=")[2] for trait in (record.traits if record else [])}
    # A window's traits name ATen ops (op=scaled_dot_product_attention): read as the PyTorch
    # calls they are, they spell the library's names too (sdpa).
    held |= ops_spelled(" ".join(f"torch.{op}(" for op in held))
    return bool(held & (t.ops - GLUE))


def catches(t: Target, h: ItemHistory) -> bool:
    """The case's signature on its last bad release, no pass anywhere inside its window
    (a release that cannot read the program, or fails it another way, hides the bug
    there and is no pass), a pass on its first good release, and a pass on its last
    good one where the program ran there."""
    w = t.window
    inside = [r for r in h.outcomes if w.holds(r)]
    if w.last_bad not in inside or not _shows(t, h, w.last_bad):
        return False
    if any(h.outcomes[r] == PASS_OUTCOME for r in inside):
        return False
    if h.outcomes.get(w.first_good) != PASS_OUTCOME:
        return False
    # The onset: a pass on the last good release, where the program ran there.
    return w.last_good is None or h.outcomes.get(w.last_good) in (None, PASS_OUTCOME, UNSUPPORTED)


def why_missed(t: Target, scan: Scan) -> str:
    """The nearest the programs came, in words."""
    w = t.window
    if w.first_good not in scan.releases or not any(w.holds(r) for r in scan.releases):
        return "the scan has none of its releases"
    # A signature without a message is the case's ops (_shows): glue alone names no bug.
    if (set(t.outcomes) <= set(NUMBERS_OUTCOMES) or t.match is None) and not t.ops - GLUE:
        return (f"its program holds only glue ops ({', '.join(sorted(t.ops)) or 'none the library names'}): "
                "no op tells its failure from another bug's")
    shown = [h for h in scan.items.values() if any(_shows(t, h, r) for r in h.outcomes if w.holds(r))]
    if not shown:
        what = "wrong numbers" if set(t.outcomes) <= set(NUMBERS_OUTCOMES) else \
            f"{'/'.join(t.outcomes)}" + (f" matching /{t.match.pattern}/" if t.match else "")
        return f"no program shows {what} inside the window"
    fixed = [h for h in shown if h.outcomes.get(w.first_good) == PASS_OUTCOME]
    if not fixed:
        return f"{len(shown)} programs show it inside the window, none passes on {w.first_good}"
    onset = f" or show it on {w.last_good}" if w.last_good else ""
    return (f"{len(fixed)} programs show it and pass on {w.first_good}, but not on {w.last_bad}, "
            f"or pass inside the window{onset}")


@dataclass(frozen=True)
class Row:
    target: Target
    caught_by: dict[str, str]  # scan label -> the first item that catches it ("" none)
    why: dict[str, str]  # scan label -> why not, where not


def recall(targets: list[Target], scans: dict[str, Scan]) -> list[Row]:
    rows = []
    for t in targets:
        caught, why = {}, {}
        for label, scan in scans.items():
            hit = next((h.key for h in sorted(scan.items.values(), key=lambda h: h.key) if catches(t, h)), "")
            caught[label] = hit
            if not hit:
                why[label] = why_missed(t, scan)
        rows.append(Row(t, caught, why))
    return rows


def share(rows: list[Row], label: str) -> tuple[int, int]:
    return sum(1 for r in rows if r.caught_by.get(label)), len(rows)


def describe(scan: Scan) -> str:
    """A scan in words, as docs/recall.md heads each generator: its programs and releases."""
    sweeps = sorted({k.split("::")[0] for k in scan.items})
    reach: dict[str, int] = {}  # program -> the most releases one of its items was run on
    for key, h in scan.items.items():
        program, item = key.rsplit("::", 1)
        # An O1-O3 item has no verdict of its own on a release without levels (its one
        # compile is the O0 item's): such a release was scanned for it all the same.
        levelless = 0 if item.endswith("-O0") else \
            sum(1 for r in scan.releases if r not in h.outcomes and not opt_level_supported(r))
        reach[program] = max(reach.get(program, 0), len(h.outcomes) + levelless)
    counts = sorted(set(reach.values()))
    releases = f"{counts[-1]} releases" if len(counts) <= 1 else \
        f"{counts[0]} to {counts[-1]} releases a program (scans in parts)"
    return f"{len(reach)} programs of {', '.join(sweeps) or 'no sweep'}, {releases}"


def markdown(rows: list[Row], scans: dict[str, Scan], described: dict[str, str]) -> str:
    labels = list(scans)
    lines = ["# Recall on the suite's own history", ""]
    for label in labels:
        n, m = share(rows, label)
        lines.append(f"- {label} ({described.get(label, '')}): {n} of {m} "
                     f"({100.0 * n / m if m else 0:.0f}%)")
    n, m = share(rows, labels[0]) if labels else (0, 0)
    lines += ["", "Written by `iree-regress sweep recall --write` from the kept scans scans/recall.toml "
              "names (scans/README.md says what each holds; nothing compiled for it); how an item "
              "catches a case: harness/sweep/recall.py. The cases: every one "
              "written from an upstream thread whose window is historic (a bad and a good release "
              "among those scanned).", "",
              "| case | family | window | " + " | ".join(labels) + " |",
              "|---|---|---|" + "---|" * len(labels)]
    for r in sorted(rows, key=lambda r: (r.target.family, r.target.slug)):
        cells = [f"caught by `{r.caught_by[lb]}`" if r.caught_by[lb] else f"missed: {r.why[lb]}" for lb in labels]
        lines.append(f"| {r.target.slug} | {r.target.family} | {r.target.label()} | " + " | ".join(cells) + " |")
    lines += ["", "Per family (" + labels[0] + "):" if labels else "", ""]
    for family in sorted({r.target.family for r in rows}):
        mine = [r for r in rows if r.target.family == family]
        lines.append(f"- {family}: " + ", ".join(f"{lb} {share(mine, lb)[0]} of {len(mine)}" for lb in labels))
    lines += ["", f"overall recall: {n} of {m} ({100.0 * n / m if m else 0:.0f}%)", ""]
    return "\n".join(lines)


def read_scans(spec: str, releases: list[str]) -> tuple[str, Scan]:
    """'label=DIR,DIR': the scans one generator's numbers come from, read as one."""
    from .scan import read_scan

    label, _, dirs = spec.partition("=")
    parts = [read_scan(Path(d), releases) for d in dirs.split(",") if d]
    if not label or not parts:
        raise ValueError(f"--scan {spec!r}: LABEL=DIR[,DIR...] (folders `sweep scan --out` wrote)")
    items = {k: h for p in parts for k, h in p.items.items()}
    scanned = [r for r in releases if any(r in p.releases for p in parts)]
    unusable = {r: why for p in parts for r, why in p.unusable.items()}
    return label, Scan(scanned, unusable, items)
