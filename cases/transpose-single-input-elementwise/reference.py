"""PyTorch reference for model.mlir: (t * t + t) @ w with t = transpose(a)."""
import torch


def example_inputs():
    g = torch.Generator().manual_seed(0)
    a = torch.randn(64, 32, generator=g)
    w = torch.randn(64, 48, generator=g)
    return (a, w)


def reference(a, w):
    t = a.transpose(0, 1)
    return (t * t + t) @ w
