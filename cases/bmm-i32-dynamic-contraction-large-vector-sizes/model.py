"""An i32 bmm whose batch and contraction dims are dynamic (from the transpose sweep:
between=none,consumer=bmm,dims=mixed,dtype=i32,perm=1230, reduced: the permute that made
the contraction dim dynamic is not needed)."""
import torch


class Model(torch.nn.Module):
    def forward(self, y, w):
        return torch.bmm(y, w)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    y = torch.randint(-3, 4, (40, 8, 6), generator=g, dtype=torch.int32)
    w = torch.randint(-3, 4, (40, 6, 5), generator=g, dtype=torch.int32)
    return y, w


def dynamic_shapes():
    AUTO = torch.export.Dim.AUTO
    return {"y": {0: AUTO, 2: AUTO}, "w": {0: AUTO, 1: AUTO, 2: AUTO}}
