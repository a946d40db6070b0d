"""torch.scatter_add(x.select(2, -1), 0, i, y): the destination is x's last row along dim 2 (x f32 [10, 4, 6, 12], so a strided [10, 4, 12] view), the indices a permutation along dim 0 (the rows reversed), y f32 [10, 4, 12]. Up to 3.11.0 cpu returns garbage (most values wrong, NaN among them); from 3.12.0 it matches PyTorch. Found by the wide-graph sweep (seed 1778: the select, a scatter_add of the slice into itself; seed 1584: a scatter_reduce into x.select(0, 0), the same window), reduced by sweep reduce on 3.11.0 and by hand.
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
    def forward(self, x, y):
        # the destination is a rank-reducing slice of x: its last row along dim 2
        d = x.select(2, -1)
        i = torch.arange(d.shape[0]).flip(0).reshape(-1, 1, 1).expand_as(d)  # rows reversed: a permutation
        return torch.scatter_add(d, 0, i, y),


def example_inputs():
    return (values([10, 4, 6, 12], torch.float32, 'ties', seed=0), values([10, 4, 12], torch.float32, 'ties', seed=1))
