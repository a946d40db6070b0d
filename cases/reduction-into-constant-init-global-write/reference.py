import torch


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randint(-3, 4, (4, 2), generator=g, dtype=torch.int32),)


def reference(x):
    return torch.tensor([21, 42], dtype=torch.int32) + x.sum(dim=0, dtype=torch.int32)
