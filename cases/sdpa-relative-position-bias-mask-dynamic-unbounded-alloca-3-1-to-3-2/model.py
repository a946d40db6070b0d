"""T5's relative-position attention bias as its encoder builds it: an embedding of position
buckets, permuted to [1, heads, seq, seq], masked with where() by a [batch, 1, seq, seq] mask
and given to scaled_dot_product_attention as its mask, batch and sequence dynamic. On
3.1.0..3.2.0 llvm-cpu puts an unbounded buffer on the stack for the mask ("'memref.alloca' op
expected no unbounded stack allocations" at the where); 3.3.0 compiles it. Found by the
scatter-windows sweep (window t5-encoder.embedding_1.down7 of the T5 encoder), reduced by hand
(T5's scale=1.0 dropped: that is case sdpa-explicit-scale-dropped).
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
    def __init__(self):
        super().__init__()
        self.register_buffer('table', values([32, 4], torch.float32, 'random', seed=2))

    def forward(self, buckets, mask, q, k, v):
        bias = torch.nn.functional.embedding(buckets, self.table).permute(2, 0, 1).unsqueeze(0)
        bias = torch.where(mask, bias, -3.4028234663852886e+38)
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, bias)


def example_inputs():
    buckets = torch.arange(256).reshape(16, 16).flip(0) // 11
    mask = values([2, 1, 16, 16], torch.int64, 'random', seed=0) >= -(2 ** 41)
    q, k, v = (values([2, 4, 16, 8], torch.float32, 'random', seed=s) / 8 for s in (3, 4, 5))
    return (buckets, mask, q, k, v)


def dynamic_shapes():
    batch = torch.export.Dim('batch', min=2, max=16)
    sequence = torch.export.Dim('sequence', min=2, max=64)
    return {'buckets': {0: sequence, 1: sequence}, 'mask': {0: batch, 2: sequence, 3: sequence},
            'q': {0: batch, 2: sequence}, 'k': {0: batch, 2: sequence}, 'v': {0: batch, 2: sequence}}
