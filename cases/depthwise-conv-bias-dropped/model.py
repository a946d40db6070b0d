"""Depthwise Conv2d with a bias (groups == channels).

iree-org/iree#18600 / #19339: on llvm-cpu the bias had no effect on the output.
DetachElementwiseFromNamedOps (global optimization) replaced the conv's
bias-broadcast init with a zero fill, then hit a match failure (the depthwise
conv's output map is not an identity) before adding the bias back.
Fixed by iree-org/iree#19356.
"""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(1)
        self.conv = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8, bias=True)
        with torch.no_grad():
            self.conv.weight.copy_(torch.randn(8, 1, 3, 3, generator=g) * 0.3)
            self.conv.bias.copy_(torch.randn(8, generator=g))

    def forward(self, x):
        return self.conv(x)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(1, 8, 11, 11, generator=g),)
