"""index_select along dim 0 of a strided select() view (iree-org/iree#19749).

`cache[:, 0]` of a [57, 2, 128] tensor is a [57, 128] view whose rows are 256
elements apart. index_select of two rows of it becomes a gather (tensor.extract
in a linalg.generic) on a strided 2-D memref; llvm-cpu vectorizes it into
vector.gather, whose lowering (before llvm/llvm-project#184706) linearized the
indices as if the memref were contiguous and read the wrong rows.

The issue used f16; f32 shows the same wrong rows on llvm-cpu (and keeps the
Vulkan items runnable on lavapipe, where f16 gathers misbehave for another reason).
"""
import torch


class Model(torch.nn.Module):
    def forward(self, cache, idx):
        return torch.index_select(cache[:, 0], 0, idx)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    cache = torch.randn(57, 2, 128, generator=g)
    idx = torch.tensor([5, 40], dtype=torch.int64)
    return cache, idx
