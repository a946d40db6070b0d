"""torch.var with a Bessel-style correction over a dynamic last dim.

iree-org/iree#21359: a CPU dispatch holding two reductions (here the mean and
the sum of squared deviations that aten.var.correction decomposes into) only
had its root reduction tiled along the reduction dim; the other one was
vectorized at the dim's upper bound from util.assume (2^53 - 1), and codegen
stopped with "One or more operations with large vector sizes (...) were found".
Broken from 3.4.0 to 3.6.0, fixed by iree-org/iree#21500 (3.7.0).
"""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return torch.var(x, dim=-1, correction=2, keepdim=True)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(3, 17, generator=g),)


def dynamic_shapes():
    return {"x": {0: torch.export.Dim("n"), 1: torch.export.Dim("s")}}
