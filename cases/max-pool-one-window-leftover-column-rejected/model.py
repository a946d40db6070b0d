"""max_pool2d(x, 2) of a [1, 2, 4, 3] input: the output's width is 1 (one 2-wide window) and the input's last column is never read. From 3.7.0 the TorchToLinalg pooling op fails to verify: "'linalg.generic' op inferred input/output operand #1 has shape's dimension #1 to be 3, but found 2" (the window size inferred from a whole-width input, compared with the real kernel). avg_pool2d takes the same path (avg_pool2d(x, 3, 2) of a width of 4 fails the same way). Found by the wide-graph sweep (seeds 944 and 1024), reduced by hand.
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
        # 2x2 windows, stride 2, over a width of 3: one window per row, the last column unread
        return torch.nn.functional.max_pool2d(x, 2)


def example_inputs():
    return (values([1, 2, 4, 3], torch.float32, 'random', seed=0),)
