"""conv2d(x, w, b) with x [2, 3, 5, 4], w [4, 3, 3, 3] static and the bias b [4] exported with a dynamic length (torch.export.Dim.AUTO on an input bias). The TorchToLinalg convolution lowering broadcasts the bias into the static [2, 4, 3, 2] output with a linalg.broadcast whose input keeps the dynamic size, and it fails to verify: "'linalg.broadcast' op input dim 0 should match init dim 1. input: -9223372036854775808, init: 4". conv_transpose2d takes the same path. Found by the wide-graph sweep (seed 704), reduced.
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
        return torch.nn.functional.conv2d(x, w, b)


def example_inputs():
    return (values([2, 3, 5, 4], torch.float32, 'random', seed=0),
            values([4, 3, 3, 3], torch.float32, 'random', seed=1),
            values([4], torch.float32, 'random', seed=2))


def dynamic_shapes():
    # only the bias's length dynamic, as torch.export.Dim.AUTO leaves it when the bias is an input
    return {'x': {}, 'w': {}, 'b': {0: torch.export.Dim.AUTO}}
