"""index_put of three single elements t[r, c] = v into a static [6, 8] f32 tensor, i32 indices in range
(the scatter grid's variant under aggressive fusion, its negative indices made positive: the
compile failure does not depend on index values, and in-range indices give a golden every
release can meet)."""
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

def indices(shape, dim, high, unique, negative, dtype, seed):
    """Seeded indices into [0, high) along `dim` of `shape`: both ends of the range
    appear; unique: no repeat within a slice along dim; else at least one repeat;
    negative: every other index spelled from the end (i - high)."""
    g = torch.Generator().manual_seed(seed)
    shape = list(shape)
    n = shape[dim]
    rest = [s for i, s in enumerate(shape) if i != dim]
    count = 1
    for s in rest:
        count *= s
    if unique:
        rows = torch.stack([torch.randperm(high, generator=g)[:n] for _ in range(count)])
        if n >= 2:
            middle = torch.randperm(high - 2, generator=g)[: n - 2] + 1
            rows[0] = torch.cat([torch.tensor([0, high - 1]), middle])
    else:
        rows = torch.randint(0, high, (count, n), generator=g)
        rows[:, 1] = rows[:, 0]
        rows[0, 0] = rows[0, 1] = 0
        rows[0, -1] = high - 1
    out = rows.reshape(rest + [n]).movedim(-1, dim) if rest else rows.reshape(n)
    out = out.contiguous()
    if negative:
        out.view(-1)[::2] -= high
    return out.to(dtype)


class Model(torch.nn.Module):
    def forward(self, t, r, idx, v):
        out = t.index_put((r, idx), v, accumulate=False)
        return out


def example_inputs():
    return (values([6, 8], torch.float32, 'random', seed=0), indices([3], 0, 6, True, False, torch.int32, seed=11), indices([3], 0, 8, True, False, torch.int32, seed=3), values([3], torch.float32, 'random', seed=4),)
