"""adaptive_avg_pool2d(interpolate(x, scale_factor=2.0, mode='nearest'), 1) of an f32 [2, 3, 10, 12] input whose height is dynamic. 3.12.0 and 3.13.0 fail: "'iree_codegen.workgroup_count_hint' op failed to resolve workgroup count hint in terms of workload"; 3.9.0..3.11.0 crash (SIGSEGV in mlir::AffineMap::getResults, case adaptive-avg-pool-after-pool-dynamic-width-crash-3-7-to-3-11); before 3.9.0 the upsampling by a scale factor is not lowered (case upsample-nearest-vec-scale-factor-legalize). Found by the wide-graph sweep (seed 625), reduced by sweep reduce on 3.13.0.
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
        # an upsampling into a global average pool, the height dynamic
        up = torch.nn.functional.interpolate(x, scale_factor=2.0, mode='nearest')
        return torch.nn.functional.adaptive_avg_pool2d(up, 1)


def example_inputs():
    return (values([2, 3, 10, 12], torch.float32, 'random', seed=0),)


def dynamic_shapes():
    return {'x': {2: torch.export.Dim.AUTO}}
