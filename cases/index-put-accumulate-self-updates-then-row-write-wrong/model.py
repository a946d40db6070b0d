"""x.index_put((i,), x, accumulate=True) with i = (arange(n) + 1) mod n (every row added into the next; the updates are the destination itself), then rows 1..6 of the result overwritten by a [3, 2, 6, 17] update flattened. x is f32 [12, 6, 17], its dims 1 and 2 exported with Dim.AUTO. Found by the wide-graph sweep (seed 1954), reduced by sweep reduce on 3.13.0 and by hand.
"""
import torch

def values(shape, dtype, kind, seed):
    """Seeded inputs that hit the hard cases. kind: random; ties (few distinct values);
    extremes (+-inf, +-0 and the largest finite values for floats, the type's min and
    max for integers). bf16 is held as the f32 values it rounds to (numpy has no bf16)."""
    g = torch.Generator().manual_seed(seed)
    n = 1
    for s in shape:
        n *= s
    if dtype.is_floating_point:
        if kind == "ties":
            x = torch.randint(-3, 4, (n,), generator=g).to(torch.float32) / 2
        else:
            x = torch.randn(n, generator=g) * 4
        if kind == "extremes" and n >= 2:
            big = float(torch.finfo(dtype).max)
            specials = torch.tensor([float("inf"), -float("inf"), 0.0, -0.0, big, -big])
            where = torch.randperm(n, generator=g)[: min(n, len(specials))]
            x[where] = specials[: len(where)]
        x = x.reshape(shape).to(dtype)
        return x.to(torch.float32) if dtype == torch.bfloat16 else x
    info = torch.iinfo(dtype)
    if kind == "ties":
        lo, hi = max(info.min, -3), min(info.max, 3)
    else:
        lo, hi = max(info.min, -(2 ** 40)), min(info.max, 2 ** 40)
    x = torch.randint(lo, hi + 1, (n,), generator=g, dtype=torch.int64)
    if kind == "extremes" and n >= 2:
        where = torch.randperm(n, generator=g)[:2]
        x[where[0]], x[where[1]] = info.min, info.max
    return x.to(dtype).reshape(shape)


class Model(torch.nn.Module):
    def forward(self, x, kv):
        # every row of x accumulated into the next one (the updates are x itself) ...
        y = x.index_put(((torch.arange(x.shape[0]) + 1) % x.shape[0],), x, accumulate=True)
        # ... then rows 1 .. b*s overwritten by a KV-cache style write
        return y.index_put(((torch.arange(kv.shape[0] * kv.shape[1]) + 1) % y.shape[0],), kv.flatten(0, 1)),


def example_inputs():
    return (values([12, 6, 17], torch.float32, 'random', seed=1), values([3, 2, 6, 17], torch.float32, 'random', seed=5))


def dynamic_shapes():
    return {'x': {1: torch.export.Dim.AUTO, 2: torch.export.Dim.AUTO}, 'kv': {}}
