"""scaled_dot_product_attention of a 3-D query (batch, length, features: one head, no
head dim) with a 2-D boolean mask (length x length) built from positions, as a causal
mask is written by hand. PyTorch broadcasts the mask over the batch."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        mask = torch.ones(x.shape[-2], x.shape[-2], dtype=torch.bool).tril()
        return torch.nn.functional.scaled_dot_product_attention(x, x, x, attn_mask=mask),


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(4, 6, 8, generator=g),)
