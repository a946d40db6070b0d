"""torch.sort(x, descending=True) of a dynamic [4] f32, then narrow, flip, narrow and
a concat of two results of the last slice (cat([2s, -s])): each step a view or an
elementwise op of the sorted values.

Found by the dims-graph sweep's share 1/16 on 3.13.0: seed 1664 (nine ops over a
dynamic [4]), cut down by `iree-regress sweep reduce` on 3.13.0 to these five lines,
each still refused the same way. The sort alone, and the sort beside an argmax, compile
and are right on 3.13.0 (measured).
"""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        v1 = torch.sort(x, dim=0, descending=True).values
        v5 = v1.narrow(0, 0, v1.shape[0] - 1)
        v6 = torch.flip(v5, [0]).narrow(0, 1, v5.shape[0] - 1)
        s = v6.narrow(0, 1, v6.shape[0] - 1)
        return torch.cat([s * 2, -s], dim=0),


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(4, generator=g) * 4,)


def dynamic_shapes():
    return {"x": {0: torch.export.Dim.AUTO}}
