"""Programs as compositions: one family op inside the ops around it, drawn from a seed.

The grids (sweeps/<family>.py) put a family op next to at most one fixed neighbour. Most
of IREE's bugs need more (docs/survey.md): what fuses into the op, the reshapes and casts
around it, index arithmetic, dynamic dims on the neighbours too. `compose(seed, ...)`
draws such a program: a producer, the family op, up to two ops between, a consumer (one
to four context ops in all), a dtype, dims and which of them are dynamic. Every op here
knows its output shape and dtype and is only drawn where it applies, so the program is
well typed by construction (a test runs every variant in PyTorch eager). The same seed
gives the same recipe and program on every machine (random.Random is portable); the
recipe is written into the program's doc, so an item says what it is.

Like a builder, this never imports torch: it writes model.py's source.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from .program import AUTO, FLOATS, Program, model_source, values_call

SIZES = (6, 4, 10, 8)  # distinct, so a dim taken for another shows; even, so halves are whole


@dataclass
class Draft:
    """A program being composed: the forward body, its inputs, the value flowing."""
    rng: random.Random
    shape: list[int]
    dtype: str
    body: list[str] = field(default_factory=list)
    args: list[str] = field(default_factory=lambda: ["x"])
    inputs: list[str] = field(default_factory=list)
    ranks: dict[str, int] = field(default_factory=dict)
    recipe: list[str] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)  # every dtype the value had: the loosest sets tolerances

    def operand(self, name: str, shape: list[int], dtype: str | None = None) -> str:
        """A further input of the program (a bias, a weight)."""
        self.args.append(name)
        self.ranks[name] = len(shape)
        self.inputs.append(values_call(shape, dtype or self.dtype, len(self.inputs)))
        return name


# Each context op: (name, applies(draft) -> bool, apply(draft)). apply writes `y = ...`.
def _scale(d: Draft):
    bias = d.operand("b", [d.shape[-1]])
    d.body.append(f"y = y * 2 + {bias}")


def _cast(d: Draft):
    to = "f32" if d.dtype != "f32" else "f16"
    d.body.append(f"y = y.to(torch.{'float32' if to == 'f32' else 'float16'})")
    d.dtype = to
    d.seen.add(to)


def _index_add(d: Draft):  # values depend on positions: index arithmetic (linalg.index)
    d.body.append(f"y = y + (torch.arange(y.shape[-1]) % 3).to(y.dtype)")


def _flatten(d: Draft):
    d.body.append("y = y.flatten(0, 1)")
    d.shape = [d.shape[0] * d.shape[1]] + d.shape[2:]


def _unsqueeze(d: Draft):
    d.body.append("y = y.unsqueeze(1)")
    d.shape = [d.shape[0], 1] + d.shape[1:]


def _split(d: Draft):
    d.body.append("y = y.unflatten(0, (2, -1))")
    d.shape = [2, d.shape[0] // 2] + d.shape[1:]


def _slice(d: Draft):
    d.body.append("y = y[..., 1:]")
    d.shape = d.shape[:-1] + [d.shape[-1] - 1]


def _matmul(d: Draft):
    w = d.operand("w", [d.shape[-1], 5])
    d.body.append(f"y = torch.matmul(y, {w})")
    d.shape = d.shape[:-1] + [5]


def _reduce(d: Draft):
    d.body.append("y = y.sum(dim=-1)" if d.rng.random() < 0.5 else "y = y.amax(dim=0)")
    d.shape = d.shape[:-1] if d.body[-1].endswith("-1)") else d.shape[1:]


def _softmax(d: Draft):
    d.body.append("y = torch.softmax(y, dim=-1)")


def _elementwise(d: Draft):
    c = d.operand("c", list(d.shape))
    d.body.append(f"y = torch.maximum(y, {c}) - {c}")


def _gather_mod(d: Draft):  # indices computed in the program: (3 * i) mod n
    d.body.append("idx = (torch.arange(y.shape[-1]) * 3) % y.shape[-1]")
    d.body.append("y = torch.index_select(y, -1, idx)")


PRODUCERS = (("scale", lambda d: True, _scale), ("cast", lambda d: True, _cast),
             ("index_add", lambda d: True, _index_add))
BETWEEN = (("flatten", lambda d: len(d.shape) >= 3, _flatten), ("unsqueeze", lambda d: True, _unsqueeze),
           ("split", lambda d: d.shape[0] % 2 == 0 and d.shape[0] >= 4, _split),
           ("slice", lambda d: d.shape[-1] > 2, _slice), ("cast", lambda d: True, _cast))
CONSUMERS = (("matmul", lambda d: len(d.shape) >= 2, _matmul), ("reduce", lambda d: len(d.shape) >= 2, _reduce),
             ("softmax", lambda d: d.dtype in FLOATS, _softmax), ("elementwise", lambda d: True, _elementwise),
             ("gather_mod", lambda d: d.shape[-1] > 1, _gather_mod))


def _draw(d: Draft, choices) -> None:
    usable = [(name, apply) for name, applies, apply in choices if applies(d)]
    name, apply = d.rng.choice(usable)
    apply(d)
    d.recipe.append(name)


# What a reduction may take out of a drawn program (harness/sweep/reduce.py): a context
# slot, or the dynamic dims (the program then has static shapes).
SLOTS = ("producer", "between", "between2", "consumer")
DROPPABLE = (*SLOTS, "dynamic")


def compose(seed: int, family: str, family_op, dtypes=("f32", "f16", "i32"), ranks=(2, 3, 4),
            drop=()) -> Program:
    """The program of `seed`: `family_op(draft)` writes the family op on `y` (and updates
    draft.shape); one to four context ops are drawn around it. `dtypes` and `ranks`: what
    the family op takes (attention: floats of rank 4). `drop`: slots of DROPPABLE left out
    (a reduction's step); each slot draws from a stream of its own, so leaving one out
    keeps the others' draws."""
    rng = random.Random(f"{family}:{seed}")
    rank = rng.choice(ranks)
    draft = Draft(rng, list(SIZES[:rank]), rng.choice(dtypes))
    draft.seen.add(draft.dtype)
    draft.inputs.append(values_call(draft.shape, draft.dtype, 0))
    draft.ranks["x"] = rank
    dims = rng.choice(("static", "dynamic", "dynamic", "mixed"))  # the survey: dynamic dims lead
    first = (draft.dtype, list(draft.shape))
    budget = rng.randint(1, 4)
    slots = [slot for slot in rng.sample(SLOTS, budget) if slot not in drop]
    if "dynamic" in drop:
        dims = "static"

    contexts = []

    def draw(slot: str, choices=None) -> None:
        draft.rng = random.Random(f"{family}:{seed}:{slot}")
        if choices is None:
            family_op(draft)
        else:
            _draw(draft, choices)
            contexts.append(draft.recipe[-1])

    draft.body.append("y = x")
    if "producer" in slots:
        draw("producer", PRODUCERS)
    draw("op")
    for slot in ("between", "between2"):
        if slot in slots:
            draw(slot, BETWEEN)
    if "consumer" in slots:
        draw("consumer", CONSUMERS)
    draft.body.append("return y")
    dynamic = None
    if dims != "static":
        x_dims = range(rank) if dims == "dynamic" else range(0, rank, 2)
        dynamic = {arg: {i: AUTO for i in (x_dims if arg == "x" else range(r))} for arg, r in draft.ranks.items()}
    recipe = " > ".join(draft.recipe)
    dropped = f" (reduced: without {', '.join(d for d in DROPPABLE if d in drop)})" if drop else ""
    doc = (f"{family} in context, seed {seed}{dropped}: {first[0]} {first[1]} ({dims} dims): {recipe}. "
           "Drawn by harness/sweep/compose.py from the seed; the same on every machine.")
    # Compared at the precision of the loosest float the value passed through.
    compared = "f16" if draft.dtype in FLOATS and "f16" in draft.seen else draft.dtype
    traits = (f"dtype={first[0]}", f"dims={dims}", *sorted({f"context={c}" for c in contexts}))
    return Program(model_source(doc, draft.args, draft.body, draft.inputs, dynamic), dtype=compared,
                   traits=traits)
