"""Programs as graphs: a typed DAG drawn from the op library (harness/sweep/ops/).

`graph(seed, sweep)` draws 1 to 3 inputs (dtype, rank, sizes), then 2 to 10 ops, each one
any op of the library that the values at hand fit: the newest value most often (chains),
an older one otherwise (a value used twice: a residual, a mask built once), two values
for a binary op. A family sweep keeps at least one of its family's ops in the graph and
may hold any other op, other families' too; the plain sweep has no family op. The program returns its sinks (values no op consumed), the newest
first. Ops are drawn rare-first: an op the graph has not used yet, and a (producer ->
consumer) pair not yet seen, weigh more, so that the library is covered evenly.

The same seed gives the same graph and program on every machine (random.Random is
portable); the recipe is written into the program's doc and its traits.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from .ops import FLOATS, LIBRARY, Made, Op, T
from .program import AUTO, Program, model_source, values_call

SIZES = (6, 4, 10, 8, 12)
INPUT_DTYPES = ("f32", "f32", "f16", "bf16", "i32", "i64", "i8", "u8")  # f32 most, as models


@dataclass
class Value:
    name: str
    type: T
    op: str  # the op that made it ("input" for an input)


@dataclass
class Drawn:
    """A graph being drawn."""
    rng: random.Random
    values: list[Value] = field(default_factory=list)
    inputs: list[tuple[str, T]] = field(default_factory=list)
    body: list[str] = field(default_factory=list)
    recipe: list[str] = field(default_factory=list)
    pairs: set[tuple[str, str]] = field(default_factory=set)  # (producer op, consumer op)
    used: set[str] = field(default_factory=set)  # values some op consumed
    fresh: set[str] = field(default_factory=set)  # inputs an op made for itself (weights)
    seen: set[str] = field(default_factory=set)  # every dtype a value had

    def new_input(self, t: T) -> str:
        name = f"x{len(self.inputs)}"
        self.inputs.append((name, t))
        self.seen.add(t.dtype)
        return name


def _input_type(rng: random.Random, like: T | None, kind: GraphSweep) -> T:
    if like is not None and rng.random() < 0.5:  # a partner for binary ops, or the same with another dtype
        return like if rng.random() < 0.6 else like.with_(dtype=rng.choice(kind.dtypes))
    rank = rng.choice(kind.ranks)
    return T(tuple(rng.choice(SIZES) for _ in range(rank)), rng.choice(kind.dtypes))


def _operands(d: Drawn, o: Op) -> list[Value] | None:
    """Values `o` fits, drawn: the newest first most often; None when none fits."""
    order = list(reversed(d.values))
    if d.rng.random() < 0.3:
        d.rng.shuffle(order)
    if o.arity == 1:
        return next(([v] for v in order if o.fits(v.type)), None)
    for a in order:
        partners = [b for b in order if b is not a and o.fits(a.type, b.type)]
        if partners:
            return [a, d.rng.choice(partners)]
        if o.fits(a.type, a.type):  # the value with itself (x + x, a scatter of x into x)
            return [a, a]
    return None


def _fits_alone(o: Op, t: T) -> bool:
    """o takes t (as both operands, for a binary op)."""
    return o.fits(t) if o.arity == 1 else o.fits(t, t)


def _weight(d: Drawn, o: Op, operands: list[Value], edition: int) -> float:
    """How much an op is wanted next: unused ops and unseen pairs first, and the ops of the
    sweep's own edition (a newer edition's sweep exists for them)."""
    newest = edition > 1 and o.edition == edition
    w = o.weight * (1.0 if any(v.op == o.name for v in d.values) else 3.0) * (4.0 if newest else 1.0)
    if operands and (operands[0].op, o.name) not in d.pairs:
        w *= 2.0
    return w


def _apply(d: Drawn, o: Op, operands: list[Value]) -> None:
    made: Made = o.make(d.rng, *(v.type for v in operands))
    fresh = [d.new_input(t) for t in made.fresh]
    d.fresh.update(fresh)
    names = {"a": operands[0].name, **({"b": operands[1].name} if len(operands) > 1 else {}),
             **{f"w{i}": n for i, n in enumerate(fresh)}}
    out = f"v{len(d.body)}"
    d.body.append(f"{out} = {made.torch.format(**names)}")
    d.values.append(Value(out, made.out, o.name))
    d.seen.add(made.out.dtype)
    for v in operands:
        d.used.add(v.name)
        d.pairs.add((v.op, o.name))
    d.recipe.append(f"{made.note}({', '.join(v.name for v in operands)})->{out}")


@dataclass(frozen=True)
class GraphSweep:
    """What a graph sweep draws: the family op each program keeps, the library edition
    (ops added later stay out of the older sweeps, so their seeds keep their programs),
    and whether family ops may be drawn as context."""
    family: str | None = None
    edition: int = 1
    family_context: bool = True
    ranks: tuple[int, ...] = (1, 2, 2, 3, 3, 3, 4)  # an input's rank is drawn from these
    dtypes: tuple[str, ...] = INPUT_DTYPES  # an input's dtype is drawn from these
    # u8 inputs over all of 0..255 (bytes, pixels, quantized values), not the small ties
    # other integers keep: a byte's sign bit is where signed and unsigned lowerings part.
    full_bytes: bool = False
    dims: tuple[str, ...] = ("static", "dynamic", "dynamic", "mixed")  # a program's DIMS mode, drawn

    def __post_init__(self):
        unknown = set(self.dims) - set(DIMS)
        if unknown:  # a misspelt mode would silently make every dim static
            raise ValueError(f"GraphSweep.dims: {sorted(unknown)} not among {DIMS}")


def draw_graph(seed: int, sweep: str) -> Drawn:
    kind = GRAPH_SWEEPS[sweep]
    rng = random.Random(f"{sweep}:{seed}")
    d = Drawn(rng)
    library = [o for o in LIBRARY.values() if o.edition <= kind.edition]
    family_ops = [o for o in library if kind.family and o.family == kind.family]
    first = None
    for _ in range(rng.choice((1, 1, 2, 2, 3))):
        t = _input_type(rng, first, kind)
        # A family sweep's first input fits a family op (an input stays at hand to the end).
        while first is None and family_ops and not any(_fits_alone(o, t) for o in family_ops):
            t = _input_type(rng, None, kind)
        first = first or t
        d.values.append(Value(d.new_input(t), t, "input"))
    length = rng.randint(2, 10)
    # A family sweep's context is the whole library: another family's op is a neighbour
    # like any other (a permute beside an sdpa is in three survey rows). The plain sweep
    # has no family op at all.
    context = library if kind.family_context else [o for o in library if not o.family]
    at = rng.randrange(length) if family_ops else -1
    steps = 0
    while steps < length:
        pool = family_ops if steps == at else context
        choices = [(o, ops) for o in pool if (ops := _operands(d, o)) is not None]
        if not choices:  # (never for a family op: the first input fits one)
            break
        weights = [_weight(d, o, ops, kind.edition) for o, ops in choices]
        o, operands = rng.choices(choices, weights=weights)[0]
        _apply(d, o, operands)
        steps += 1
    return d


# Which of a program's input dims are dynamic, by mode: none; all; every other (mixed);
# the batch dims (all but the last two, the matrix or image plane a matmul, conv or pool
# works on; the first of a rank 1 or 2 input: batch x features); or each dim drawn
# (per-dim). Real models fix a few dims and leave others free: a bug that needs N and C
# dynamic with H and W static is out of reach of all-or-every-other.
DIMS = ("static", "dynamic", "mixed", "batch", "per-dim")


def dims_of(seed: int, sweep: str) -> str:
    """The DIMS mode of a program, drawn apart from the graph so that the graph keeps its draw."""
    return random.Random(f"{sweep}:{seed}:dims").choice(GRAPH_SWEEPS[sweep].dims)


def dynamic_dims(mode: str, rank: int, rng: random.Random) -> tuple[int, ...]:
    """The dims of a rank-`rank` input that `mode` (DIMS) makes dynamic; `rng` draws per-dim's."""
    if mode == "dynamic":
        return tuple(range(rank))
    if mode == "mixed":
        return tuple(range(0, rank, 2))
    if mode == "batch":
        return tuple(range(rank - 2)) if rank > 2 else tuple(range(min(rank, 1)))
    if mode == "per-dim":
        return tuple(i for i in range(rank) if rng.random() < 0.5)
    return ()


def graph(seed: int, sweep: str) -> Program:
    """The program of `seed` in graph sweep `sweep` (GRAPH_SWEEPS)."""
    d = draw_graph(seed, sweep)
    made = [v for v in d.values if v.op != "input"]
    # Inputs no op reads are left out (each keeps its seed: its place in the draw).
    taken = [(i, name, t) for i, (name, t) in enumerate(d.inputs) if name in d.used or name in d.fresh]
    # bf16 values are given as the f32 values they round to (program.values): cast back first.
    casts = [f"{name} = {name}.to(torch.bfloat16)" for _, name, t in taken if t.dtype == "bf16"]
    sinks = [v for v in reversed(made) if v.name not in d.used][:2] or made[-1:]
    # Outputs numpy can hold: a bool as i32, a bf16 as the f32 of its values (program.values' convention).
    as_ = {"bool": "torch.int32", "bf16": "torch.float32"}
    returns = [f"{v.name}.to({as_[v.type.dtype]})" if v.type.dtype in as_ else v.name for v in sinks]
    body = [*casts, *d.body, f"return {', '.join(returns)}" + ("," if len(returns) == 1 else "")]
    dims = dims_of(seed, sweep)
    dynamic = None
    if dims != "static":
        per_dim = random.Random(f"{sweep}:{seed}:per-dim")
        dynamic = {name: {i: AUTO for i in dynamic_dims(dims, t.rank, per_dim)} for _, name, t in taken if t.rank}
    kind = GRAPH_SWEEPS[sweep]
    inputs = [values_call(list(t.shape), t.dtype, i, "random" if kind.full_bytes and t.dtype == "u8" else None)
              for i, _, t in taken]
    doc = (f"{sweep} seed {seed} ({dims} dims): inputs {', '.join(f'{n}: {t.dtype}{list(t.shape)}' for _, n, t in taken)}; "
           f"{'; '.join(d.recipe)}. Drawn by harness/sweep/graph.py from the seed; the same on every machine.")
    loosest = next((f for f in ("bf16", "f16", "f32") if f in d.seen), None)
    out_dtype = sinks[0].type.dtype
    compared = loosest if out_dtype in FLOATS or any(v.type.dtype in FLOATS for v in sinks) else \
        ("i32" if out_dtype == "bool" else out_dtype)
    traits = (f"dims={dims}", f"ops={len(made)}", *sorted({f"op={v.op}" for v in made}))
    return Program(model_source(doc, [n for _, n, _ in taken], body, inputs, dynamic), dtype=compared, traits=traits,
                   spread=True)



# The graph sweeps: the plain one, one a family the library's family ops name (edition 1,
# their ids fixed by the scans' records), and wide-graph(-3): the whole library of edition
# 2 (3), family ops as context like any other op, none forced (the ops added for recall's misses).
GRAPH_SWEEPS = {"plain-graph": GraphSweep(family_context=False),
                **{f"{f}-graph": GraphSweep(f) for f in sorted({o.family for o in LIBRARY.values() if o.family})},
                # rank 4 as often as 3: edition 2's pools, upsampling and transposed convs are NCHW
                "wide-graph": GraphSweep(edition=2, ranks=(1, 2, 2, 3, 3, 4, 4)),
                # edition 3: the shapes recall's next misses need, weighted up as edition 2's were
                "wide-graph-3": GraphSweep(edition=3, ranks=(1, 2, 2, 3, 3, 4, 4)),
                # integer programs: bytes over their whole range beside small signed ints, the
                # signedness of each lowering on trial (recall's misses rshift and ui8)
                "int-graph": GraphSweep(edition=3, ranks=(1, 2, 2, 3, 3, 4),
                                        dtypes=("u8", "u8", "i8", "i32", "i64", "f32"), full_bytes=True),
                # dims fixed and free per dim, as models have them (recall's miss replication-pad2d:
                # a pad over dynamic N and C with H and W static)
                "dims-graph": GraphSweep(edition=3, ranks=(1, 2, 2, 3, 3, 4, 4), dims=("batch", "batch", "per-dim"))}


def drawn_graphs(seeds: int):
    """Every graph sweep's first `seeds` graphs, drawn only (nothing is built or run): what
    op counts and op-pair coverage read."""
    for sweep in GRAPH_SWEEPS:
        for seed in range(seeds):
            yield draw_graph(seed, sweep)


def op_counts(seeds: int) -> dict[str, int]:
    """How many programs of the graph sweeps' first `seeds` seeds hold each op."""
    held: dict[str, int] = {}
    for d in drawn_graphs(seeds):
        for name in {v.op for v in d.values if v.op != "input"}:
            held[name] = held.get(name, 0) + 1
    return held
