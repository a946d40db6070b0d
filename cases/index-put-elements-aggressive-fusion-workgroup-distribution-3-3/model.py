"""index_put of three single elements t[r, c] = v into a static [6, 8] f32 tensor, i32 indices in range
(the scatter grid's variant under aggressive fusion, its negative indices made positive: the
compile failure does not depend on index values, and in-range indices give a golden every
release can meet)."""
import torch

def values(shape, seed):
    """Seeded f32 inputs (the scatter sweep's random draw)."""
    g = torch.Generator().manual_seed(seed)
    n = 1
    for s in shape:
        n *= s
    return (torch.randn(n, generator=g) * 4).reshape(shape)


def indices(n, high, seed):
    """n distinct i32 indices into [0, high), both ends among them (the sweep's draw)."""
    g = torch.Generator().manual_seed(seed)
    torch.randperm(high, generator=g)  # the sweep draws a row, then replaces it: keeps its stream
    middle = torch.randperm(high - 2, generator=g)[: n - 2] + 1
    return torch.cat([torch.tensor([0, high - 1]), middle]).to(torch.int32)


class Model(torch.nn.Module):
    def forward(self, t, r, idx, v):
        out = t.index_put((r, idx), v, accumulate=False)
        return out


def example_inputs():
    return (values([6, 8], seed=0), indices(3, 6, seed=11), indices(3, 8, seed=3), values([3], seed=4))
