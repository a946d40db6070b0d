"""torch.split of a tensor into unequal pieces, each piece used.

llvm/torch-mlir#4171: with torch >= 2.6, torch.export keeps aten.split.Tensor and
a prim.ListUnpack of its pieces; the torch-mlir inside IREE never recomposed the pair
into slices, the list was left unlowered and compilation stopped at
"failed to legalize operation 'torch.constant.int'" (the split size). llvm/torch-mlir#4340
runs RecomposeComplexOps after the decompositions (and takes split.Tensor out of the
decomposition table), which turns split + ListUnpack into slices.
"""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        head, tail = torch.split(x, 3, dim=0)
        return head * 2.0, tail + 1.0


def example_inputs():
    return (torch.arange(20, dtype=torch.float32).reshape(5, 4),)
