import torch


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(6, 10, generator=g),)


def reference(x):
    # a descending sort of each row without its first element
    return torch.sort(x[:, 1:], dim=1, descending=True).values
