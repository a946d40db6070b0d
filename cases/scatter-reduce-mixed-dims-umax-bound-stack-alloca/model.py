"""scatter_reduce(sum, include_self=False) along the last dim, the first dim dynamic and the
others static, i64 indices (from the scatter sweep: dim=last,dims=mixed,dtype=i32,
duplicates=false,include_self=false,index_dtype=i64,negative=false,op=scatter_reduce_sum;
reduced to plain tensors)."""
import torch


class Model(torch.nn.Module):
    def forward(self, t, idx, src):
        return t.scatter_reduce(1, idx, src, reduce="sum", include_self=False)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    t = torch.randint(-3, 4, (6, 8), generator=g, dtype=torch.int32)
    idx = torch.stack([torch.randperm(8, generator=g)[:3] for _ in range(6)])  # int64, no repeat in a row
    src = torch.randint(-3, 4, (6, 3), generator=g, dtype=torch.int32)
    return t, idx, src


def dynamic_shapes():
    AUTO = torch.export.Dim.AUTO
    return {"t": {0: AUTO}, "idx": {0: AUTO}, "src": {0: AUTO}}
