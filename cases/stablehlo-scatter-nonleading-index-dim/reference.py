import torch


def example_inputs():
    g = torch.Generator().manual_seed(0)
    operand = torch.randn(2, 5, 3, generator=g)
    idx = torch.tensor([[3]], dtype=torch.int32)
    upd = torch.randn(2, 1, 3, generator=g)
    return operand, idx, upd


def reference(operand, idx, upd):
    # index_copy along dim 1: row idx[0, 0] of every [5, 3] slab becomes upd[:, 0, :]
    out = operand.clone()
    out[:, int(idx[0, 0]), :] = upd[:, 0, :]
    return out
