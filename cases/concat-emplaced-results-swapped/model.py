"""torch.cat([c, b], dim=1) of two elementwise results of x[:, 1:], batch dim dynamic.

iree-org/iree#20819: both halves of the concat come out of one multi-result
dispatch whose results are emplaced into the concat buffer by
iree-stream-emplace-allocations; the pass tied them in block order of the
update ops instead of result order, so `c` and `b` land in each other's place.
Fixed by iree-org/iree#21026.
"""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        a = x[:, 1:]
        b = a - a
        c = a + b
        return torch.cat([c, b], dim=1)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(4, 2, generator=g),)


def dynamic_shapes():
    return {"x": {0: torch.export.Dim("n")}}
