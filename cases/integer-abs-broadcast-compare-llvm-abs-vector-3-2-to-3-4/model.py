"""A padding mask from a length input: positions 0..n-1 compared with |length|.

Found by the wide-graph-3 sweep, whose length_mask op builds a mask the way models mask
padded positions (`arange(n) < length`); reduced by hand. On 3.2.0 to 3.4.0 llvm-cpu
cannot lower the integer abs of the one-element length once it is broadcast against the
positions (`llvm.intr.abs` of a `vector<i32>`). int32 throughout, as Vulkan's default target
has no 64-bit integers.
"""
import torch


class Model(torch.nn.Module):
    def forward(self, x, length):
        return (torch.arange(x.shape[0], dtype=torch.int32) < length.abs()).to(torch.int32)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(4, 10, generator=g), torch.tensor([-3], dtype=torch.int32))
