import torch


def example_inputs():
    # Constant along d1, the dim the output map leaves out: whichever of the writes to one
    # output element lands last, they write the same value.
    g = torch.Generator().manual_seed(0)
    row = torch.randn(2, 1, 4, generator=g)
    return (row.expand(2, 3, 4).contiguous(),)


def reference(x):
    # out[d0, d2, d3] = x[d0, d1, d2] for every d1 (all equal): x[:, 0, :] along a new last dim.
    return x[:, 0, :].unsqueeze(-1).expand(2, 4, 5).contiguous()
