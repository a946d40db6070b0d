import torch


def example_inputs():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 2, generator=g)
    v = torch.randn(2, generator=g)
    return x, v


def reference(x, v):
    out = x[:, 0:1].clone()
    out[: v.shape[0], 0] = v
    return out
