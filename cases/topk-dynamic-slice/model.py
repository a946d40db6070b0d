"""torch.topk over a static slice x[:, :4] of a [?, 8] input (dynamic leading dim).

iree-org/iree#21014: the topk input is a `[?, 4]` view of the argument; GPU
codegen fails with "failed to bufferize op" (a bufferization.alloc_tensor of
the ?x4 slice), CPU/Vulkan codegen leave a write outside the distributed loops.
"""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        values, indices = torch.topk(x[:, :4], 2, dim=-1)
        return values, indices


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(6, 8, generator=g),)


def dynamic_shapes():
    return {"x": {0: torch.export.Dim("n")}}
