"""Depthwise transposed convolution: ConvTranspose2d with groups == in_channels == out_channels.

llvm/torch-mlir#4621 (open): the grouped-transposed lowering added by
torch-mlir#4056 expands the [G, 1, kH, kW] weight to rank 5 before the spatial
flip, but the following tensor.collapse_shape reassociation is hard-coded for
rank 4, so the TorchToLinalg lowering emits invalid IR:
"'tensor.collapse_shape' op expected reassociation map #0 to have size equal to
the expanded rank (5), but it is 4".
"""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(1)
        self.conv = torch.nn.ConvTranspose2d(4, 4, 3, stride=2, padding=1, groups=4)
        with torch.no_grad():
            self.conv.weight.copy_(torch.randn(4, 1, 3, 3, generator=g) * 0.3)
            self.conv.bias.copy_(torch.randn(4, generator=g))

    def forward(self, x):
        return self.conv(x)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(1, 4, 5, 5, generator=g),)
