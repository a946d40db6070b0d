"""torch.pow(x, y) with a negative base and an integer-valued float exponent tensor.

PyTorch (like C pow) defines pow(-1.5, 3.0) = -3.375 and pow(-1.5, 2.0) = 2.25.
iree-org/iree#19996: after an LLVM integrate in February 2025, math.powf with
x < 0 became NaN ("invalid case but was supported"); the fix restored constant
exponents such as 3.0, but an exponent that is only known at run time still
gives NaN for every negative base.
"""
import torch


class Model(torch.nn.Module):
    def forward(self, x, y):
        return torch.pow(x, y)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, 16, generator=g) * 2
    y = torch.randint(0, 4, (4, 16), generator=g).to(torch.float32)  # 0.0 .. 3.0
    return x, y
