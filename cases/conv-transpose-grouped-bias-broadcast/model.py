"""Grouped transposed convolution with a bias: ConvTranspose2d(4, 6, groups=2).

llvm/torch-mlir#4056: before it, the TorchToLinalg lowering of a transposed
convolution with groups > 1 split the groups out of the wrong weight dimension
(for a transposed conv the weight is [C_in, C_out/G, kH, kW]) and built a bias
linalg.broadcast whose output channel size did not match the bias, so it emitted
invalid IR: "'linalg.broadcast' op input dim 0 should match init dim 1".
"""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(1)
        self.conv = torch.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, groups=2)
        with torch.no_grad():
            self.conv.weight.copy_(torch.randn(4, 3, 3, 3, generator=g) * 0.3)
            self.conv.bias.copy_(torch.randn(6, generator=g))

    def forward(self, x):
        return self.conv(x)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(1, 4, 5, 5, generator=g),)
