"""A row max (`amax` over the last dim) of an f32 tensor with dynamic dims.

Found by the transpose-deep sweep (seed 5: a permute, a cast to f32, then this max),
reduced by hand to the max alone (the permute and the cast are not needed) with rows
whose max is negative.
"""

import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return x.amax(dim=1)


def example_inputs():
    # Rows 0, 2 and 3 have a negative max: a neutral value that beats every negative
    # number (the negative subnormal nearest zero) comes back instead, as -0. Row 1's max
    # is positive and comes back right.
    return (torch.tensor([[-1.0, -2.0, -3.0, -4.0, -5.0, -6.0],
                          [-3.0, 2.0, -1.0, 5.0, -7.0, 0.5],
                          [-0.25] * 6,
                          [-100.0, -50.0, -0.5, -7.0, -8.0, -9.0]], dtype=torch.float32),)


def dynamic_shapes():
    AUTO = torch.export.Dim.AUTO
    return {"x": {0: AUTO, 1: AUTO}}
