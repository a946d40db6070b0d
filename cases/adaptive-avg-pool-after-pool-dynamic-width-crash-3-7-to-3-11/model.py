"""adaptive_avg_pool2d(max_pool2d(x, 2, ceil_mode=True), 1) with x f32 [10, 12, 8, 4], its width dynamic: 3.0.0..3.6.0 compile and match PyTorch; 3.7.0..3.11.0 crash (SIGSEGV in mlir::AffineMap::getResults); 3.12.0 and 3.13.0 are right again. Found by the wide-graph sweep (seed 1105, reduced by sweep reduce on 3.7.0; five more programs of the second share with a pool or an upsampling before an adaptive_avg_pool2d crash the same way).
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
    def forward(self, x):
        # a pool into a global average pool (a classifier head), the width dynamic
        v = torch.nn.functional.max_pool2d(x, 2, 2, 0, ceil_mode=True)
        return torch.nn.functional.adaptive_avg_pool2d(v, 1)


def example_inputs():
    return (values([10, 12, 8, 4], torch.float32, 'random', seed=0),)


def dynamic_shapes():
    return {'x': {3: torch.export.Dim.AUTO}}
