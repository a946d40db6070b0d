"""torch.cumsum(embedding(i % 7, w), dim=0) with a static u8 index [36, 10] and an f32 [7, 6] table: on 2.9.0..3.2.0 the scan fused with the gather gets an operand typed [36, 1, 6] and a result [?, 1, 6], refused. Reduced by hand from plain-graph seed 777.
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
    def forward(self, i, w):
        return torch.cumsum(torch.nn.functional.embedding(i.to(torch.int64) % 7, w), dim=0),


def example_inputs():
    return (values([36, 10], torch.uint8, 'ties', seed=0), values([7, 6], torch.float32, 'random', seed=1))
