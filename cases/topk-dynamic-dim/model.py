"""torch.topk over the last dim of a [?, 8] input (dynamic leading dim).

A control beside iree-org/iree#20699 / #21014 (neither reports this form): the plain form compiles and runs on every
target; the slice form (case topk-dynamic-slice) is the one still broken.
"""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        values, indices = torch.topk(x, 2, dim=-1)
        return values, indices


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(6, 8, generator=g),)


def dynamic_shapes():
    return {"x": {0: torch.export.Dim("n")}}
