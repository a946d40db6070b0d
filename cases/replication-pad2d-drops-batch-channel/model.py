"""Replicate padding (F.pad mode="replicate") of an NCHW tensor with dynamic N and C.

llvm/torch-mlir#3537: the TorchToLinalg lowering of aten.replication_pad2d cut the
edge slices (left/right columns, top/bottom rows, corners) with size 1 in every
dimension it did not pad, so the batch and channel dims were dropped to 1. With
static N*C > 1 the tensor.concat fails to verify; with dynamic N and C the module
compiles and returns a 1x1xH'xW' result (or corrupts the heap) instead of NxCxH'xW'.
Fixed by the replication-pad refactor llvm/torch-mlir#4282.
"""
import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def forward(self, x):
        # (left, right, top, bottom): asymmetric, every side padded
        return F.pad(x, (2, 1, 1, 2), mode="replicate")


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(3, 2, 5, 6, generator=g),)


def dynamic_shapes():
    return {"x": {0: torch.export.Dim("n"), 1: torch.export.Dim("c")}}
