"""Indexing: gathers, scatters and masks. Indices are computed in the program from the
operand's own sizes, `(i * k + c) % n`, so they are in range whatever the dynamic sizes;
a scatter's indices are a permutation along its dim (k = 1), so no two writes meet and
the result is PyTorch's on every backend. Masks are built from positions (arange,
triu / tril, a causal mask), as models build them."""

from . import FLOATS, INTS, T, Made, TORCH, dim_of, op


def _rolled(a: str, d: int, shift: int) -> str:
    """Indices along dim d of {a}'s shape: each position's (i + shift) mod n."""
    return f"((torch.arange({a}.shape[{d}]) + {shift}) % {a}.shape[{d}])"


def _index_like(a: T, d: int, shift: int) -> str:
    """An index tensor of {a}'s shape along dim d: a permutation of each line."""
    view = ", ".join("-1" if i == d else "1" for i in range(a.rank))
    return f"{_rolled('{a}', d, shift)}.reshape({view}).expand_as({{a}})"


@op("gather", "indexing", "rank >= 1: a permutation of each line along a dim", lambda a: a.rank >= 1)
def _gather(rng, a: T) -> Made:
    d = rng.randrange(a.rank)
    return Made(a, f"torch.gather({{a}}, {d}, {_index_like(a, d, 1)})", f"gather(dim={d})")


@op("index_select", "indexing", "rank >= 1: rows (i * 3) mod n along a dim", lambda a: a.rank >= 1)
def _index_select(rng, a: T) -> Made:
    d = rng.randrange(a.rank)
    return Made(a, f"torch.index_select({{a}}, {d}, (torch.arange({{a}}.shape[{d}]) * 3) % {{a}}.shape[{d}])",
                f"index_select(dim={d},3i mod n)")


@op("take_along_dim", "indexing", "rank >= 2, not bool (no torch-mlir lowering on 3.13.0: drawn rarely): the line taken along by its argsort (sorted values: "
    "which of equal values comes first does not change them)",
    lambda a: a.rank >= 2 and a.dtype != "bool", weight=0.3)
def _take(rng, a: T) -> Made:
    d = rng.randrange(a.rank)
    return Made(a, f"torch.take_along_dim({{a}}, torch.argsort({{a}}, dim={d}), dim={d})",
                f"take_along_dim(argsort,dim={d})")


@op("scatter", "indexing", "rank >= 1: writes a value's lines to permuted positions", 
    lambda a, b: a == b and a.rank >= 1, arity=2, family="scatter")
def _scatter(rng, a: T, b: T) -> Made:
    d = rng.randrange(a.rank)
    return Made(a, f"torch.scatter({{a}}, {d}, {_index_like(a, d, 1)}, {{b}})", f"scatter(dim={d})")


@op("scatter_add", "indexing", "not bool: adds a value into permuted positions",
    lambda a, b: a == b and a.rank >= 1 and a.dtype != "bool", arity=2, family="scatter")
def _scatter_add(rng, a: T, b: T) -> Made:
    d = rng.randrange(a.rank)
    return Made(a, f"torch.scatter_add({{a}}, {d}, {_index_like(a, d, 2)}, {{b}})", f"scatter_add(dim={d})")


@op("scatter_reduce", "indexing", "not bool: amax / amin / sum of a value into positions, include_self",
    lambda a, b: a == b and a.rank >= 1 and a.dtype != "bool", arity=2, family="scatter")
def _scatter_reduce(rng, a: T, b: T) -> Made:
    d = rng.randrange(a.rank)
    how = rng.choice(("amax", "amin", "sum"))
    return Made(a, f"torch.scatter_reduce({{a}}, {d}, {_index_like(a, d, 1)}, {{b}}, '{how}')",
                f"scatter_reduce({how},dim={d})")


@op("index_put", "indexing", "rank >= 2, not bool: rows at permuted positions, accumulate or not",
    lambda a, b: a == b and a.rank >= 2 and a.dtype != "bool", arity=2, family="scatter")
def _index_put(rng, a: T, b: T) -> Made:
    acc = rng.choice((True, False))
    return Made(a, f"{{a}}.index_put(({_rolled('{a}', 0, 1)},), {{b}}, accumulate={acc})",
                f"index_put(accumulate={acc})")


@op("one_hot", "indexing", "an integer value of rank <= 2: its (x mod 5) one-hot, 5 classes, as the float "
    "or int the program computes in", lambda a: a.dtype in INTS and a.rank <= 2)
def _one_hot(rng, a: T) -> Made:
    to = rng.choice(("f32", "i64"))
    return Made(a.with_(shape=[*a.shape, 5], dtype=to),
                f"torch.nn.functional.one_hot(({{a}}.to(torch.int64) % 5), 5).to({TORCH[to]})", f"one_hot(5,{to})")


@op("embedding", "indexing", "an integer value of rank <= 2: rows of a 7 x 6 table (index x mod 7)",
    lambda a: a.dtype in INTS and a.rank <= 2)
def _embedding(rng, a: T) -> Made:
    table = T((7, 6), "f32")
    return Made(table.with_(shape=[*a.shape, 6]),
                "torch.nn.functional.embedding({a}.to(torch.int64) % 7, {w0})", "embedding(7x6)", fresh=(table,))


@op("masked_fill", "indexing", "rank >= 2: positions above the diagonal (triu) filled",
    lambda a: a.rank >= 2 and a.dtype != "bool")
def _masked_fill(rng, a: T) -> Made:
    fill = "-1e4" if a.dtype in FLOATS else "0"
    tri = rng.choice(("triu", "tril"))
    mask = f"torch.ones({{a}}.shape[-2], {{a}}.shape[-1], dtype=torch.bool).{tri}(diagonal=1)"
    return Made(a, f"{{a}}.masked_fill({mask}, {fill})", f"masked_fill({tri})")


@op("where_causal", "indexing", "rank >= 2: a causal mask from arange (row >= col) selects the value or 0",
    lambda a: a.rank >= 2 and a.dtype != "bool")
def _where_causal(rng, a: T) -> Made:
    mask = "(torch.arange({a}.shape[-2]).unsqueeze(-1) >= torch.arange({a}.shape[-1]).unsqueeze(0))"
    return Made(a, f"torch.where({mask}, {{a}}, torch.zeros_like({{a}}))", "where(causal)")


def _kv_update(rng, a: T) -> tuple[int, int, T]:
    """A KV-cache write's fresh [b, s, ...] update, b * s <= the cache's rows."""
    b, s = rng.choice([(b, s) for b in (2, 3) for s in (2, 3) if b * s <= a.shape[0]])
    return b, s, T((b, s, *a.shape[1:]), a.dtype)


@op("kv_write", "indexing", "rank >= 2, not bool, rows >= 4: a KV-cache write, rows at slots from a fresh "
    "[b, s, ...] update flattened (b x s, two dynamic sizes in one group)",
    lambda a: a.rank >= 2 and a.dtype != "bool" and a.shape[0] >= 4, family="scatter", edition=2)
def _kv_write(rng, a: T) -> Made:
    b, s, update = _kv_update(rng, a)
    # slot i is (i + 1) mod n: b * s <= n distinct rows, so no two writes meet
    slots = "((torch.arange({w0}.shape[0] * {w0}.shape[1]) + 1) % {a}.shape[0])"
    return Made(a, f"{{a}}.index_put(({slots},), {{w0}}.flatten(0, 1))", f"kv_write({b}x{s})", fresh=(update,))


@op("kv_write_slots", "indexing", "rank >= 2, not bool, rows >= 4: a KV-cache write whose slots are a [b, s] "
    "tensor flattened with the update (a slot mapping, as serving code passes it)",
    lambda a: a.rank >= 2 and a.dtype != "bool" and a.shape[0] >= 4, family="scatter", edition=3)
def _kv_write_slots(rng, a: T) -> Made:
    b, s, update = _kv_update(rng, a)
    # slot [i, j] is (i * s + j + 1) mod n: b * s <= n distinct rows, so no two writes meet
    slots = ("((torch.arange({w0}.shape[0]).unsqueeze(1) * {w0}.shape[1] + torch.arange({w0}.shape[1]).unsqueeze(0)"
             " + 1) % {a}.shape[0])")
    return Made(a, f"{{a}}.index_put(({slots}.flatten(),), {{w0}}.flatten(0, 1))", f"kv_write_slots({b}x{s})",
                fresh=(update,))


@op("length_mask", "indexing", "rank >= 1, not bool: positions of a dim at or past a length from a fresh "
    "input (1..4) filled (a padding mask from sequence lengths)",
    lambda a: a.rank >= 1 and a.dtype != "bool", edition=3)
def _length_mask(rng, a: T) -> Made:
    d = rng.randrange(a.rank)
    view = ", ".join("-1" if i == d else "1" for i in range(a.rank))
    fill = "-1e4" if a.dtype in FLOATS else "0"
    keep = f"(torch.arange({{a}}.shape[{d}]) < {{w0}}.abs() + 1).reshape({view})"
    # the fill a Python scalar, as models write it
    return Made(a, f"torch.where({keep}, {{a}}, {fill})", f"length_mask(dim={d})",
                fresh=(T((1,), "i64"),))
