"""scaled_dot_product_attention, no mask, the key longer than the query, batch and
sequence dims dynamic, f32 (from the attention sweep: dims=dynamic,dtype=f32,head_dim=16,
heads=multi,lengths=different,mask=none,scale=none; reduced to the one op)."""
import torch


class Model(torch.nn.Module):
    def forward(self, q, k, v):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    q = torch.randn(2, 4, 8, 16, generator=g) / 4
    k = torch.randn(2, 4, 12, 16, generator=g) / 4
    v = torch.randn(2, 4, 12, 16, generator=g) / 4
    return q, k, v


def dynamic_shapes():
    AUTO = torch.export.Dim.AUTO
    return {"q": {0: AUTO, 2: AUTO}, "k": {0: AUTO, 2: AUTO}, "v": {0: AUTO, 2: AUTO}}
