"""avg_pool2d with ceil_mode=True and count_include_pad=True (PyTorch semantics).

llvm/torch-mlir#4079: after torch-mlir commit 7b23a1f5 (generalised avg_pool
lowering, torch-mlir#4035) the TorchToLinalg lowering divides the windows that
ceil_mode adds past the padded input by the full kernel size instead of by the
number of taps inside the padded input. Fixed by torch-mlir#4144.
"""
import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def forward(self, x):
        return F.avg_pool2d(x, kernel_size=3, stride=2, padding=1,
                            ceil_mode=True, count_include_pad=True)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(1, 3, 8, 8, generator=g),)
