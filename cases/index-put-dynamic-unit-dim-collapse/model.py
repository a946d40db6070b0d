"""t[idx] = v: index_put of whole rows (along the first dim), every dim dynamic, i64
indices (from the scatter sweep: dim=first,dims=dynamic,dtype=i32,duplicates=false,
include_self=true,index_dtype=i64,negative=false,op=index_put)."""
import torch


class Model(torch.nn.Module):
    def forward(self, t, idx, v):
        return t.index_put((idx,), v, accumulate=False)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    t = torch.randint(-3, 4, (6, 8), generator=g, dtype=torch.int32)
    idx = torch.tensor([0, 5, 2, 3], dtype=torch.int64)  # distinct rows: a plain write has one winner
    v = torch.randint(-3, 4, (4, 8), generator=g, dtype=torch.int32)
    return t, idx, v


def dynamic_shapes():
    AUTO = torch.export.Dim.AUTO
    return {"t": {0: AUTO, 1: AUTO}, "idx": {0: AUTO}, "v": {0: AUTO, 1: AUTO}}
