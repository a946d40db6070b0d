"""Combine: values joined or cut (cat, stack, split / chunk, pad)."""

from . import FLOATS, T, Made, dim_of, op


@op("cat", "combine", "two values of one dtype and rank, equal but in one dim", 
    lambda a, b: a.dtype == b.dtype and a.rank == b.rank and a.rank >= 1
    and sum(x != y for x, y in zip(a.shape, b.shape)) <= 1, arity=2)
def _cat(rng, a: T, b: T) -> Made:
    differ = [i for i, (x, y) in enumerate(zip(a.shape, b.shape)) if x != y]
    d = differ[0] if differ else rng.randrange(a.rank)
    shape = [x + y if i == d else x for i, (x, y) in enumerate(zip(a.shape, b.shape))]
    return Made(a.with_(shape=shape), f"torch.cat([{{a}}, {{b}}], dim={d})", f"cat(dim={d})")


@op("stack", "combine", "two values of one type", lambda a, b: a == b and a.rank <= 3, arity=2)
def _stack(rng, a: T, b: T) -> Made:
    d = rng.randrange(a.rank + 1)
    return Made(a.with_(shape=[*a.shape[:d], 2, *a.shape[d:]]), f"torch.stack([{{a}}, {{b}}], dim={d})",
                f"stack(dim={d})")


@op("split", "combine", "a dim of size >= 4: split in pieces of 3, the last piece kept",
    lambda a: any(s >= 4 for s in a.shape))
def _split(rng, a: T) -> Made:
    d = dim_of(rng, a, lambda s: s >= 4)
    last = a.shape[d] % 3 or 3
    return Made(a.with_(shape=[last if i == d else s for i, s in enumerate(a.shape)]),
                f"torch.split({{a}}, 3, dim={d})[-1]", f"split(3,dim={d})[-1]")


@op("chunk", "combine", "a dim of even size: two chunks, added", lambda a: any(s % 2 == 0 for s in a.shape)
    and a.dtype != "bool")
def _chunk(rng, a: T) -> Made:
    d = dim_of(rng, a, lambda s: s % 2 == 0)
    return Made(a.with_(shape=[s // 2 if i == d else s for i, s in enumerate(a.shape)]),
                f"(lambda c: c[0] + c[1])(torch.chunk({{a}}, 2, dim={d}))", f"chunk(2,dim={d}) summed")


@op("pad", "combine", "rank >= 1: constant padding of the last dim (reflect for floats of rank 3)",
    lambda a: a.rank >= 1 and a.dtype != "bool")
def _pad(rng, a: T) -> Made:
    left, right = rng.choice(((1, 2), (0, 3), (2, 0)))
    if a.dtype in FLOATS and a.rank == 3 and a.shape[-1] > max(left, right) and rng.random() < 0.3:
        shape = [*a.shape[:-1], a.shape[-1] + left + right]
        return Made(a.with_(shape=shape), f"torch.nn.functional.pad({{a}}, ({left}, {right}), mode='reflect')",
                    f"pad_reflect({left},{right})")
    shape = [*a.shape[:-1], a.shape[-1] + left + right]
    return Made(a.with_(shape=shape), f"torch.nn.functional.pad({{a}}, ({left}, {right}), value=1)",
                f"pad({left},{right},value=1)")


@op("pad_replicate", "combine", "rank 3 or 4 floats: edge values repeated (2d padding of the last two dims "
    "for rank 4)", lambda a: a.rank in (3, 4) and a.dtype in ("f32", "f16"), weight=2.0, edition=2)
def _pad_replicate(rng, a: T) -> Made:
    pads = rng.choice(((2, 1, 1, 2), (1, 1, 0, 2), (0, 2, 1, 0)))[:2 * (a.rank - 2)]
    shape = list(a.shape)
    for i in range(a.rank - 2):  # pads name the last dim first: (left, right, top, bottom)
        shape[-1 - i] += pads[2 * i] + pads[2 * i + 1]
    return Made(a.with_(shape=shape), f"torch.nn.functional.pad({{a}}, {pads}, mode='replicate')",
                f"pad_replicate{pads}")


# Edition 3: the shapes recall's misses need (docs/recall.md), each as models write it.

@op("cat_computed", "combine", "rank >= 1, floats or i32 / i64, a dim of size >= 2: two elementwise results of "
    "one slice of it, concatenated the later first (as rotate_half and gated features are)",
    lambda a: a.rank >= 1 and a.dtype in (*FLOATS, "i32", "i64") and any(s >= 2 for s in a.shape), edition=3)
def _cat_computed(rng, a: T) -> Made:
    d = dim_of(rng, a, lambda s: s >= 2)
    one = rng.random() < 0.5  # a width-1 slice (one column), or all but the first
    width = f"{{a}}.shape[{d}] - 1" if not one else "1"
    size = 1 if one else a.shape[d] - 1
    first, later = rng.choice((("-s", "s * 2"), ("s - s", "s + (s - s)"), ("s + 1", "-s")))
    return Made(a.with_(shape=[2 * size if i == d else s for i, s in enumerate(a.shape)]),
                f"(lambda s: torch.cat([{later}, {first}], dim={d}))({{a}}.narrow({d}, 1, {width}))",
                f"cat_computed(dim={d},{'1' if one else 'n-1'})")


@op("slice_scatter", "combine", "not bool, a dim of size >= 3: a shifted prefix of it written into it "
    "(the last n-1 rows into the first, or the first into the last: a dynamic-length write)",
    lambda a: a.dtype != "bool" and any(s >= 3 for s in a.shape), edition=3)
def _slice_scatter(rng, a: T) -> Made:
    d = dim_of(rng, a, lambda s: s >= 3)
    into, from_ = rng.choice(((0, 1), (1, 0)))
    n = f"{{a}}.shape[{d}] - 1"
    return Made(a, f"torch.slice_scatter({{a}}, {{a}}.narrow({d}, {from_}, {n}) + 1, {d}, {into}, {into} + {n})",
                f"slice_scatter(dim={d},into {into})")
