"""A matmul whose left operand is a slice ([..., 1:]) of a matrix with dynamic dims,
compiled with data tiling.

Found by the scatter-deep sweep (seed 285 with data tiling: a scatter_add, this slice,
then an f16 matmul); reduced by hand to the slice and the matmul, in f32 (f16 fails the
same).
"""

import torch


class Model(torch.nn.Module):
    def forward(self, x, w):
        return torch.matmul(x[..., 1:], w)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(6, 4, generator=g), torch.randn(3, 5, generator=g))


def dynamic_shapes():
    AUTO = torch.export.Dim.AUTO
    return {"x": {0: AUTO, 1: AUTO}, "w": {0: AUTO, 1: AUTO}}
