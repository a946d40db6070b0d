"""avg_pool2d(x, 3, 2) of an f32 [6, 8, 4, 12] input whose batch is dynamic: every output value is wrong on cpu and vulkan from 3.7.0 (240 of 240 on 3.13.0); with every dim static the same pool fails to verify instead (case max-pool-one-window-leftover-column-rejected). Found by the wide-graph sweep (seed 1171: a bf16 avg_pool2d among pools over mixed dynamic dims, wrong from 3.7.0 to 3.13.0), reduced by sweep reduce on 3.13.0 and by hand (f32).
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
        # 3x3 windows, stride 2: one window down the height of 4 (its last row unread), five
        # across the width of 12 (its last column unread); the batch is dynamic
        return torch.nn.functional.avg_pool2d(x, 3, 2),


def example_inputs():
    return (values([6, 8, 4, 12], torch.float32, 'random', seed=0),)


def dynamic_shapes():
    return {'x': {0: torch.export.Dim.AUTO}}
