"""Nearest-neighbour upsampling by a scale factor (F.interpolate / nn.Upsample).

llvm/torch-mlir#4327: torch.export emits aten.upsample_nearest2d.vec with
output_size=None and a list of float scale factors. TorchToLinalg could not
lower that form, so conversion stopped on the scale operands:
"failed to legalize operation 'torch.constant.float'". Fixed by
llvm/torch-mlir#4330, which decomposes upsample_nearest1d/2d.vec into
aten.__interpolate.
"""
import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def forward(self, x):
        up2 = F.interpolate(x, scale_factor=2.0, mode="nearest")        # the 2x case
        up15 = F.interpolate(x, scale_factor=(1.5, 1.6), mode="nearest")  # fractional scales
        return up2, up15


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(2, 3, 5, 6, generator=g),)
