"""transpose-graph seed 1858 (mixed dims): inputs x0: i64[10, 10], x2: i64[10, 10]; stack(dim=0)(x2, x0)->v0; remainder(3)(v0)->v1; permute(0, 2, 1)(v1)->v2; mul(v2, v1)->v3; scatter(dim=1)(v3, v1)->v4; cumsum(dim=1)(v4)->v5; amax(dim=1,keepdim=False)(v5)->v6; add(v6, v6)->v7; clamp(-2,2)(v0)->v8. Drawn by harness/sweep/graph.py from the seed; the same on every machine."""
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
    def forward(self, x0, x2):
        v0 = torch.stack([x2, x0], dim=0)
        v2 = v0.permute(0, 2, 1)
        v4 = torch.scatter(v2, 1, ((torch.arange(v2.shape[1]) + 1) % v2.shape[1]).reshape(1, -1, 1).expand_as(v2), v0)
        v8 = torch.clamp(v0, -2, 2)
        return v8, v4


def example_inputs():
    return (values([10, 10], torch.int64, 'ties', seed=0), values([10, 10], torch.int64, 'ties', seed=2),)


def dynamic_shapes():
    AUTO = torch.export.Dim.AUTO
    return {'x0': {0: AUTO}, 'x2': {0: AUTO}}
