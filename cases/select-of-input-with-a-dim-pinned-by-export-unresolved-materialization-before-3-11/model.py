"""A row of an input whose last dim is dynamic, added to a static [10, 8].

torch.export keeps x's signature [6, 10, ?] but, from the add, types the selected row
[10, 8]: the select's result is static while its operand's dim is not. Releases before
3.11.0 lower the select to a tensor<10x?xf32> and leave the conversion to the static type
unresolved (2.9.0 and 3.0.0 refuse a collapse_shape of it instead). Without the dynamic
last dim (only dim 0 dynamic) every release compiles it: measured on 3.10.0.

Found by the wide-graph-3 sweep: seed 2016 is `einsum('nk,nko->no', x0.select(0, 0),
x1[arange(n) % 4])` over f16 with mixed dims, failing the same way on 2.9.0..3.10.0.
"""
import torch


class Model(torch.nn.Module):
    def forward(self, x, y):
        return x.select(0, 0) + y,


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(6, 10, 8, generator=g), torch.randn(10, 8, generator=g))


def dynamic_shapes():
    return {"x": {2: torch.export.Dim.AUTO}, "y": {}}
