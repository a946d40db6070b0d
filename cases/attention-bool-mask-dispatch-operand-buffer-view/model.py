"""attention sweep: sdpa of q [2, 4, 8, 16] over k/v [2, 2, 8, 16] f16, mask bool, scale none, heads grouped, static dims."""
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

def mask_of(kind, shape, seed):
    """bool: about a third masked out, never a whole row; empty_row: row 1 masked out
    whole (PyTorch answers zeros for it since 2.5); float: an additive bias with a few
    -inf entries, never a whole row."""
    g = torch.Generator().manual_seed(seed)
    keep = torch.rand(shape, generator=g) > 0.33
    keep[..., 0] = True
    if kind == "empty_row":
        keep[..., 1, :] = False
    if kind in ("bool", "empty_row"):
        return keep
    bias = torch.randn(shape, generator=g)
    return torch.where(keep, bias, torch.tensor(float("-inf")))


class Model(torch.nn.Module):
    def forward(self, q, k, v, mask):
        q, k, v = q / 4, k / 4, v / 4
        k, v = k.repeat_interleave(2, dim=1), v.repeat_interleave(2, dim=1)
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return out


def example_inputs():
    return (values([2, 4, 8, 16], torch.float16, 'random', seed=0), values([2, 2, 8, 16], torch.float16, 'random', seed=1), values([2, 2, 8, 16], torch.float16, 'random', seed=2), mask_of('bool', [1, 1, 8, 8], seed=9),)
