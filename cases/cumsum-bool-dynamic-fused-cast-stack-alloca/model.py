"""torch.cumsum of a bool mask (cast to int64) along a dynamic dim.

iree-org/iree#19481: the issue's model (aten.to.dtype i1 -> si64, then
aten.cumsum over a [?] tensor) failed on llvm-cpu with "'memref.alloca' op
expected no unbounded stack allocations". The i1 -> i64 cast is fused into the
iree_linalg_ext.scan dispatch, the scan is not tiled along the scanned dim, and
the fused producer's full-length result is placed on the stack.
"""
import torch


class Model(torch.nn.Module):
    def forward(self, mask):
        return torch.cumsum(mask.to(torch.int64), dim=0)


def example_inputs():
    return (torch.tensor([True, False, True, True, False, True, True, False, True, True, False, True]),)


def dynamic_shapes():
    return {"mask": {0: torch.export.Dim("n")}}
