"""x.argmax(dim=0, keepdim=True) of an f32 [4, ?, ?], its columns gathered by a computed index: 3.9.0..3.11.0 compile it, 3.12.0 and 3.13.0 fail with 'failed to legalize unresolved target materialization'. Reduced from plain-graph seed 327 by sweep reduce (an argmax, a gather and a grouped conv1d of the same input), the three kept: without the conv, 3.12.0 compiles the rest (measured).
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
    def forward(self, x, w):
        a = x.argmax(dim=0, keepdim=True)
        c = torch.nn.functional.conv1d(x, w, groups=6)  # needed: without it 3.12.0 compiles the rest
        g = torch.index_select(a, 1, (torch.arange(a.shape[1]) * 3) % a.shape[1])
        return g, c


def example_inputs():
    return (values([4, 6, 4], torch.float32, 'random', seed=0), values([6, 1, 3], torch.float32, 'random', seed=1))


def dynamic_shapes():
    AUTO = torch.export.Dim.AUTO
    return {'x': {1: AUTO, 2: AUTO}, 'w': {}}
