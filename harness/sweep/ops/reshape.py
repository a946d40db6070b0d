"""Reshape: the same elements under other sizes, written with the operand's own sizes
(`y.shape[i]`) so that a dynamic dim stays dynamic through the reshape."""

from . import T, Made, op


@op("flatten", "reshape", "rank >= 2: two adjacent dims into one", lambda a: a.rank >= 2)
def _flatten(rng, a: T) -> Made:
    d = rng.randrange(a.rank - 1)
    shape = [*a.shape[:d], a.shape[d] * a.shape[d + 1], *a.shape[d + 2:]]
    return Made(a.with_(shape=shape), f"{{a}}.flatten({d}, {d + 1})", f"flatten({d},{d + 1})")


@op("reshape_group", "reshape", "rank >= 3: every dim but the last into one group (-1), the way a batch x sequence "
    "pair is merged", lambda a: a.rank >= 3)
def _group(rng, a: T) -> Made:
    rest = 1
    for s in a.shape[:-1]:
        rest *= s
    return Made(a.with_(shape=[rest, a.shape[-1]]), "{a}.reshape(-1, {a}.shape[-1])", "reshape(-1,last)")


@op("unflatten", "reshape", "a dim of even size >= 4: split in two", lambda a: any(s % 2 == 0 and s >= 4 for s in a.shape))
def _unflatten(rng, a: T) -> Made:
    d = next(i for i in rng.sample(range(a.rank), a.rank) if a.shape[i] % 2 == 0 and a.shape[i] >= 4)
    shape = [*a.shape[:d], 2, a.shape[d] // 2, *a.shape[d + 1:]]
    return Made(a.with_(shape=shape), f"{{a}}.unflatten({d}, (2, -1))", f"unflatten({d},(2,-1))")


@op("view_split", "reshape", "rank 2 or 3: the first dim regrouped with the second, sizes from the operand's own",
    lambda a: a.rank in (2, 3) and a.shape[0] % 2 == 0)
def _view(rng, a: T) -> Made:
    shape = [a.shape[0] // 2, 2 * a.shape[1], *a.shape[2:]]
    rest = ", ".join(f"{{a}}.shape[{i}]" for i in range(2, a.rank))
    return Made(a.with_(shape=shape), f"{{a}}.reshape({{a}}.shape[0] // 2, 2 * {{a}}.shape[1]{', ' + rest if rest else ''})",
                "reshape(n/2,2m)")


@op("squeeze", "reshape", "a dim of size 1", lambda a: 1 in a.shape, weight=1.5)
def _squeeze(rng, a: T) -> Made:
    d = a.shape.index(1)
    return Made(a.with_(shape=[s for i, s in enumerate(a.shape) if i != d]), f"{{a}}.squeeze({d})", f"squeeze({d})")


@op("unsqueeze", "reshape", "rank <= 3", lambda a: a.rank <= 3)
def _unsqueeze(rng, a: T) -> Made:
    d = rng.randrange(a.rank + 1)
    return Made(a.with_(shape=[*a.shape[:d], 1, *a.shape[d:]]), f"{{a}}.unsqueeze({d})", f"unsqueeze({d})")


@op("expand", "reshape", "rank <= 3: a new leading dim of 3 (a broadcast of the value)", lambda a: a.rank <= 3)
def _expand(rng, a: T) -> Made:
    rest = ", ".join(["-1"] * a.rank)
    return Made(a.with_(shape=[3, *a.shape]), f"{{a}}.unsqueeze(0).expand(3, {rest})", "expand(3,...)")


@op("broadcast_to", "reshape", "a dim of size 1: broadcast to 5", lambda a: 1 in a.shape, weight=1.5)
def _broadcast(rng, a: T) -> Made:
    d = a.shape.index(1)
    shape = [5 if i == d else s for i, s in enumerate(a.shape)]
    sizes = ", ".join("5" if i == d else f"{{a}}.shape[{i}]" for i in range(a.rank))
    return Made(a.with_(shape=shape), f"torch.broadcast_to({{a}}, ({sizes},))", f"broadcast_to(dim {d}: 5)")
