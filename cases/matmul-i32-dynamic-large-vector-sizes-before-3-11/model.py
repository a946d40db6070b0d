"""An int32 matmul of two matrices whose dims are all dynamic.

Found by the scatter-deep sweep (seed 240: a scatter_add, a flatten, then this matmul by
a weight with dynamic dims); reduced by hand to the matmul alone.
"""

import torch


class Model(torch.nn.Module):
    def forward(self, x, w):
        return torch.matmul(x, w)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randint(-3, 4, (24, 10), generator=g, dtype=torch.int32),
            torch.randint(-3, 4, (10, 5), generator=g, dtype=torch.int32))


def dynamic_shapes():
    AUTO = torch.export.Dim.AUTO
    return {"x": {0: AUTO, 1: AUTO}, "w": {0: AUTO, 1: AUTO}}
