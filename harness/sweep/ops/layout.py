"""Layout: the same elements in another order (permute, transpose, flip, strided and
negative-step views, narrow, roll)."""

from . import T, Made, dim_of, op


def _perm(rng, t: T) -> tuple[int, ...]:
    perm = list(range(t.rank))
    while perm == list(range(t.rank)):
        rng.shuffle(perm)
    return tuple(perm)


@op("permute", "layout", "rank >= 2, any dtype", lambda a: a.rank >= 2, family="transpose")
def _permute(rng, a: T) -> Made:
    perm = _perm(rng, a)
    return Made(a.with_(shape=[a.shape[p] for p in perm]), f"{{a}}.permute({', '.join(map(str, perm))})",
                f"permute{perm}")


@op("transpose", "layout", "rank >= 2, any dtype", lambda a: a.rank >= 2, family="transpose")
def _transpose(rng, a: T) -> Made:
    i, j = sorted(rng.sample(range(a.rank), 2))
    shape = list(a.shape)
    shape[i], shape[j] = shape[j], shape[i]
    return Made(a.with_(shape=shape), f"{{a}}.transpose({i}, {j})", f"transpose({i},{j})")


@op("flip", "layout", "any rank >= 1, any dtype", lambda a: a.rank >= 1)
def _flip(rng, a: T) -> Made:
    d = rng.randrange(a.rank)
    return Made(a, f"torch.flip({{a}}, [{d}])", f"flip({d})")


@op("strided_slice", "layout", "a dim of size >= 4: every second element from an offset",
    lambda a: any(s >= 4 for s in a.shape))
def _strided(rng, a: T) -> Made:
    d = dim_of(rng, a, lambda s: s >= 4)
    start = rng.choice((0, 1))
    size = (a.shape[d] - start + 1) // 2
    index = ", ".join([":"] * d + [f"{start}::2"])
    return Made(a.with_(shape=[size if i == d else s for i, s in enumerate(a.shape)]), f"{{a}}[{index}]",
                f"slice(dim={d},{start}::2)")


@op("negative_step_view", "layout", "a dim of size >= 3: the reversed view, then a slice of it",
    lambda a: any(s >= 3 for s in a.shape))
def _negative(rng, a: T) -> Made:
    d = dim_of(rng, a, lambda s: s >= 3)
    n = a.shape[d] - 1
    return Made(a.with_(shape=[n if i == d else s for i, s in enumerate(a.shape)]),
                f"torch.flip({{a}}, [{d}]).narrow({d}, 1, {{a}}.shape[{d}] - 1)", f"reversed_slice(dim={d})")


@op("narrow", "layout", "a dim of size >= 3", lambda a: any(s >= 3 for s in a.shape))
def _narrow(rng, a: T) -> Made:
    d = dim_of(rng, a, lambda s: s >= 3)
    start = rng.choice((0, 1))
    length = a.shape[d] - start - 1
    return Made(a.with_(shape=[length if i == d else s for i, s in enumerate(a.shape)]),
                f"{{a}}.narrow({d}, {start}, {{a}}.shape[{d}] - {start + 1})", f"narrow(dim={d},start={start})")


@op("roll", "layout", "any rank >= 1", lambda a: a.rank >= 1)
def _roll(rng, a: T) -> Made:
    d = rng.randrange(a.rank)
    k = rng.choice((1, -1, 2))
    return Made(a, f"torch.roll({{a}}, {k}, {d})", f"roll({k},dim={d})")


@op("select", "layout", "rank >= 2: one index of a dim taken, the dim dropped (x[:, i]; a rank-reducing slice)",
    lambda a: a.rank >= 2, edition=2)
def _select(rng, a: T) -> Made:
    d = rng.randrange(a.rank)
    i = rng.choice((0, 1, -1)) if a.shape[d] >= 2 else 0
    return Made(a.with_(shape=[s for j, s in enumerate(a.shape) if j != d]), f"{{a}}.select({d}, {i})",
                f"select(dim={d},{i})")


@op("permute_select", "layout", "rank >= 3: a permute, then an index taken of one of its dims (the dim "
    "dropped: a rank-reducing slice of a permuted value)", lambda a: a.rank >= 3, family="transpose", edition=3)
def _permute_select(rng, a: T) -> Made:
    perm = _perm(rng, a)
    shape = [a.shape[p] for p in perm]
    d = rng.randrange(len(shape))
    i = rng.choice((0, -1))
    return Made(a.with_(shape=[s for j, s in enumerate(shape) if j != d]),
                f"{{a}}.permute({', '.join(map(str, perm))}).select({d}, {i})", f"permute{perm}.select({d},{i})")
