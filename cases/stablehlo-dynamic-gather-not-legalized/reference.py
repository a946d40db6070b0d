import torch


def example_inputs():
    g = torch.Generator().manual_seed(0)
    table = torch.randn(4, 2, generator=g)
    idx = torch.tensor([2, 0, 3], dtype=torch.int64)
    return table, idx


def reference(table, idx):
    return table[idx]
