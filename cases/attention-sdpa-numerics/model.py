"""A tiny scaled dot-product attention, the form of iree-org/iree#24221.

Exported through iree-turbine, F.scaled_dot_product_attention lowers to
iree_linalg_ext.attention; this case checks that op end to end against PyTorch eager.
"""
import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    q = torch.randn(1, 2, 16, 32, generator=g)
    k = torch.randn(1, 2, 16, 32, generator=g)
    v = torch.randn(1, 2, 16, 32, generator=g)
    return (q, k, v)
