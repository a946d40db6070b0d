"""PyTorch reference for model.mlir: (transpose(a) * b + transpose(a)) @ w."""
import torch


def example_inputs():
    g = torch.Generator().manual_seed(0)
    a = torch.randn(64, 32, generator=g)
    b = torch.randn(32, 64, generator=g)
    w = torch.randn(64, 48, generator=g)
    return (a, b, w)


def reference(a, b, w):
    t = a.transpose(0, 1)
    return (t * b + t) @ w
