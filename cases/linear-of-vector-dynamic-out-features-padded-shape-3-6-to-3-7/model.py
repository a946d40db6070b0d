"""torch.nn.functional.linear(x, w, b) of a 1-D f32 x [10] with w [6, 10] and b [6] whose output-feature dim is dynamic (Dim.AUTO): cpu returns 16 values where PyTorch has 6 (shape [16] != expected [6]) on 3.6.0 and 3.7.0; 3.5.0 and 3.8.0..3.13.0 are right, and vulkan is right on all of them. Found by the wide-graph sweep (seed 1745, wrong values on 3.7.0..3.8.0 there), reduced by sweep reduce on 3.7.0 to the linear.
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
    def forward(self, x, w, b):
        # a vector through a linear layer whose output features are dynamic
        return torch.nn.functional.linear(x, w, b),


def example_inputs():
    return (values([10], torch.float32, 'random', seed=0), values([6, 10], torch.float32, 'random', seed=1),
            values([6], torch.float32, 'random', seed=2))


def dynamic_shapes():
    return {'x': {}, 'w': {0: torch.export.Dim.AUTO}, 'b': {0: torch.export.Dim.AUTO}}
