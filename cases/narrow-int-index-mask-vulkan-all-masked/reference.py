import torch


def example_inputs():
    x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    bound = torch.tensor([2], dtype=torch.int16)
    return x, bound


def reference(x, bound):
    # columns below the bound kept, the rest -inf (the bound here is positive: the MLIR
    # compares unsigned after a sign-extending cast, the same for any bound >= 0)
    keep = torch.arange(x.shape[1]) < int(bound[0])
    return torch.where(keep, x, torch.full_like(x, float("-inf")))
