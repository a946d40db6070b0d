"""A computed value's rows shifted down by one into itself: v = 2x; out = v;
out[1:] = v[:-1] + 1.

Found by the wide-graph-3 sweep (seed 608: an expert-weighted contraction, reshaped, then
its slice_scatter op) and reduced by hand to a doubling. Each output row i >= 1 must be
v's row i - 1 plus one; from 3.7.0 IREE gives row 2 as (v[0] + 1) + 1: the update reads
row 1 after it has written it. The same shape over a function argument instead of a
computed value is case slice-scatter-shifted-self-reads-written-rows-before-3-9, wrong
on the releases before this one's.
"""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        v = x * 2
        return torch.slice_scatter(v, v.narrow(0, 0, v.shape[0] - 1) + 1, 0, 1, v.shape[0])


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(3, 10, generator=g),)
