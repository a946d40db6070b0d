import torch


def example_inputs():
    g = torch.Generator().manual_seed(0)
    n = 5
    x = torch.randn(2, n, generator=g)
    d = torch.randn(2 * n, 32, generator=g)
    return x, d


def reference(x, d):
    out = d.clone()
    out[:, 3] = (x + x).reshape(-1)
    return out
