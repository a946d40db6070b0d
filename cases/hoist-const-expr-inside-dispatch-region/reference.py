import torch


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(2, 2, generator=g),)


def reference(x):
    a = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    b = torch.tensor([[5.0, 6.0], [7.0, 8.0]])
    return a @ b + x
