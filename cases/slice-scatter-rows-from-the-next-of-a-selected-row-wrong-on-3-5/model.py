"""v = x[0] (a row of the input, a view), then slice_scatter(v, v[1:] + 1, 0, 0, n - 1):
each element but the last becomes the next one plus one. Dims dynamic.

Found by the wide-graph-3 sweep: seed 1043 is this program (int32 ties in -3..3); seed
223 (a column x[:, -1] of a u8 [4, 4]) and int-graph seed 457 (the same write into a
reshaped and flattened shifted byte tensor) are wrong on 3.5.0 alone too. Every written
element is read from the source before any is written in PyTorch; the writes run in
ascending order, so even an in-place copy reading ahead would be right: 3.5.0 writes
something else.
"""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        v = x.select(0, 0)
        return torch.slice_scatter(v, v.narrow(0, 1, v.shape[0] - 1) + 1, 0, 0, v.shape[0] - 1),


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randint(-3, 4, (8, 10), generator=g).to(torch.int32),)


def dynamic_shapes():
    return {"x": {0: torch.export.Dim.AUTO, 1: torch.export.Dim.AUTO}}
