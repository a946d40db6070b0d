"""Each of 10 rows times the weight of its expert, the experts gathered by index
(`w[arange(n) % 4]`: the expert-gather of a mixture-of-experts layer), written as the
einsum models write it. f16, static dims.

Found by the wide-graph-3 sweep: seed 2016 is this einsum of a selected row over f16
with mixed dims. Without the gather (the same einsum of a [10, 8, 5] input) and over f32
3.11.0 is right at O3: measured.
"""
import torch


class Model(torch.nn.Module):
    def forward(self, x, w):
        return torch.einsum("nk,nko->no", x, w[torch.arange(x.shape[0]) % 4]),


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(10, 8, generator=g).half(), torch.randn(4, 8, 5, generator=g).half())
