"""sdpa-fully-masked-row-nan (iree-org/iree#24175, open).

scaled_dot_product_attention with a boolean mask whose row 1 is all False.
PyTorch (since 2.5, `_safe_softmax`) returns zeros for such a query row; IREE's
iree_linalg_ext.attention computes 0/0 in the softmax normalization and returns NaN.
"""
import torch


class Model(torch.nn.Module):
    def forward(self, q, k, v, mask):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    q = torch.randn(1, 2, 4, 8, generator=g)
    k = torch.randn(1, 2, 6, 8, generator=g)
    v = torch.randn(1, 2, 6, 8, generator=g)
    mask = torch.ones(1, 1, 4, 6, dtype=torch.bool)
    mask[..., 1, :] = False  # query row 1 attends to nothing
    return q, k, v, mask
