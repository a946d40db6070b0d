"""scaled_dot_product_attention with an additive float mask, batch and sequence dims
dynamic, f32 (from the attention sweep: dims=dynamic,dtype=f32,head_dim=16,heads=grouped,
lengths=equal,mask=bool,scale=none, reduced: no repeat_interleave of grouped heads; a float
mask for the boolean one, which on 3.3.0-3.4.0 meets case
attention-bool-mask-dispatch-operand-buffer-view)."""
import torch


class Model(torch.nn.Module):
    def forward(self, q, k, v, mask):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    q = torch.randn(2, 4, 8, 16, generator=g) / 4
    k = torch.randn(2, 4, 8, 16, generator=g) / 4
    v = torch.randn(2, 4, 8, 16, generator=g) / 4
    mask = torch.randn(1, 1, 8, 8, generator=g)
    return q, k, v, mask


def dynamic_shapes():
    AUTO = torch.export.Dim.AUTO
    return {"q": {0: AUTO, 2: AUTO}, "k": {0: AUTO, 2: AUTO}, "v": {0: AUTO, 2: AUTO}, "mask": {2: AUTO, 3: AUTO}}
