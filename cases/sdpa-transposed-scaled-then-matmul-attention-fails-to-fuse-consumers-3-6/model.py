"""Self-attention over a [6, 16, 10] (no mask), its result transposed (the first two dims
swapped), scaled by a vector along the last dim, then multiplied by a [10, 5] matrix.
Static dims, f32.

Found by the attention-graph sweep: seed 129 (an rms_norm and a reshape before the
attention, an i64 vector as the scale, a clamp and a linear after). Needed, measured on
3.6.0: the transpose (without it, it compiles), the scale (the transposed attention straight
into the matmul compiles) and the matmul (the scaled transpose alone compiles).
"""
import torch


class Model(torch.nn.Module):
    def forward(self, x, w, m):
        a = torch.nn.functional.scaled_dot_product_attention(x, x, x)
        return (a.transpose(0, 1) * w) @ m,


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(6, 16, 10, generator=g), torch.randn(10, generator=g), torch.randn(10, 5, generator=g))
