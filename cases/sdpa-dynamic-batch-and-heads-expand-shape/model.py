"""scaled_dot_product_attention, f32, q/k/v [6, 4, 10, 8] with the batch and head dims
dynamic (lengths and head dim static). Reduced by `iree-regress sweep reduce` from the
attention-deep sweep's variant flags=default,seed=213 (every context op left out; the
dynamic dims kept: static shapes pass), then by hand: the key as long as the query and
only batch and heads dynamic fail the same way."""
import torch


class Model(torch.nn.Module):
    def forward(self, q, k, v):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return tuple(torch.randn(6, 4, 10, 8, generator=g) for _ in range(3))


def dynamic_shapes():
    AUTO = torch.export.Dim.AUTO
    return {"q": {0: AUTO, 1: AUTO}, "k": {0: AUTO, 1: AUTO}, "v": {0: AUTO, 1: AUTO}}
