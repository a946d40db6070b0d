"""scaled_dot_product_attention with enable_gqa=True and a boolean mask, 4 query heads
over 2 key/value heads, the query 8 long and the key 12 long (from the attention sweep:
dims=static,dtype=f32,head_dim=16,heads=gqa,lengths=different,mask=bool,scale=none)."""
import torch


class Model(torch.nn.Module):
    def forward(self, q, k, v, mask):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    q = torch.randn(2, 4, 8, 16, generator=g)
    k = torch.randn(2, 2, 12, 16, generator=g)
    v = torch.randn(2, 2, 12, 16, generator=g)
    mask = torch.rand(1, 1, 8, 12, generator=g) > 0.33
    mask[..., 0] = True  # never a whole row masked out (that is case sdpa-fully-masked-row-nan)
    return q, k, v, mask
