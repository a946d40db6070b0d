"""A tensor's rows shifted down by one into itself: out = x; out[1:] = x[:-1] + 1.

Found by the wide-graph-3 sweep (its slice_scatter op writes a shifted prefix of a value
into the value, as a KV-cache or a delay line does) and reduced by hand. Each output row
i >= 1 must be the *input's* row i - 1 plus one; before 3.9.0 IREE gives row 2 as
(x[0] + 1) + 1: the update reads row 1 after it has written it.
"""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return torch.slice_scatter(x, x.narrow(0, 0, x.shape[0] - 1) + 1, 0, 1, x.shape[0])


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(3, 10, generator=g),)
