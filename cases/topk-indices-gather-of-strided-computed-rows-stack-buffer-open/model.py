"""The two smallest of every other row of a computed value, by column, gathered back by
their indices: `topk(v, 2, dim=0, largest=False)` of `v = (2 * x)[1::2]`, then
`gather(v, 0, indices)`. The row count of x is dynamic.

Found by the wide-graph-3 sweep: seed 1600 ends in this gather of an embedding's odd rows.
Needed, measured on 3.6.0: the stride (`[1:]` compiles and is right) and the gather (the
topk's values alone fail otherwise: the global-write refusal of a sort over a slice,
another bug).
"""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        v = (x * 2)[1::2]
        return torch.gather(v, 0, torch.topk(v, 2, dim=0, largest=False).indices),


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(7, 6, generator=g),)


def dynamic_shapes():
    return {"x": {0: torch.export.Dim.AUTO}}
