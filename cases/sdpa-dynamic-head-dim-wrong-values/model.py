"""scaled_dot_product_attention of a 3-D [batch, length, features] value whose feature
(head) dim is dynamic: no mask, no scale, query = key = value."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.scaled_dot_product_attention(x, x, x),


def example_inputs():
    g = torch.Generator().manual_seed(1)
    return (torch.randn(6, 4, 10, generator=g) * 4,)


def dynamic_shapes():
    # the head dim alone: [6, 4, ?]
    return {"x": {2: torch.export.Dim.AUTO}}
