"""attention-graph seed 1474 (dynamic dims): inputs x0: f16[12, 8, 12], x1: bf16[10], x2: f32[10], x3: f16[12, 5]; -abs(x2)->v0; scatter_add(dim=0)(v0, x2)->v1; erf(x2)->v2; cast(f32->f16)(v2)->v3; slice(dim=0,1::2)(x1)->v4; transpose(0,2)(x0)->v5; expand(3,...)(v5)->v6; sdpa(mask=causal)(v6)->v7; matmul(x,w)(v7)->v8; pad(0,3,value=1)(v8)->v9. Drawn by harness/sweep/graph.py from the seed; the same on every machine."""
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
        q = x.unsqueeze(0).expand(3, -1, -1, -1)
        return torch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True),


def example_inputs():
    return (values([12, 8, 12], torch.float16, 'random', seed=0),)
