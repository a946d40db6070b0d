"""log-softmax-cpu-unfused-producer-store (iree-org/iree#21836).

log_softmax over dim 1 of a (3, 4, 5) tensor. At --iree-opt-level=O2/O3 (3.3.0 -
3.7.0) dispatch creation fuses the elementwise `x - max` producer into the
sum-of-exp reduction dispatch, and llvm-cpu leaves its store outside the
workgroup-distributed loops: compile error. Fixed in 3.8.0.
"""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return torch.log_softmax(x, dim=1)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(3, 4, 5, generator=g),)
