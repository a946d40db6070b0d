"""torch.topk over sigmoid(x[:, :4]) of a [?, 8] input (dynamic leading dim).

The "passing" twin from iree-org/iree#21014: an elementwise op between the slice
and the topk gives the topk a materialized input, and it compiles everywhere.
"""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        values, indices = torch.topk(torch.sigmoid(x[:, :4]), 2, dim=-1)
        return values, indices


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(6, 8, generator=g),)


def dynamic_shapes():
    return {"x": {0: torch.export.Dim("n")}}
