"""An f16 matmul over dynamic dims, a [5, 10] matrix times a batch [4, 6, 10, 8]: on llvm-cpu
some sums come out several f16 ulps off, beyond where PyTorch's (f32-accumulated) result
and any f16 rounding of it could be. From the transpose sweep's variant
between=expand,consumer=matmul_rhs,dims=dynamic,dtype=f16,perm=1023, reduced: the permute
and the unsqueeze are not needed; a 2-D matmul of the same sizes is right."""
import torch


class Model(torch.nn.Module):
    def forward(self, x, w):
        return torch.matmul(w, x)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    x = (torch.randn(4, 6, 10, 8, generator=g) * 4).to(torch.float16)
    w = (torch.randn(5, 10, generator=g) * 4).to(torch.float16)
    return x, w


def dynamic_shapes():
    AUTO = torch.export.Dim.AUTO
    return {"x": {0: AUTO, 1: AUTO, 2: AUTO, 3: AUTO}, "w": {0: AUTO, 1: AUTO}}
