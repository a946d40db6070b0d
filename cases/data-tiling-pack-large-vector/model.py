"""x @ w with a dynamic batch and sequence (llama MLP shape, shrunk), for --iree-opt-data-tiling.

iree-org/iree#24876: with data tiling on llvm-cpu, the dispatch that packs the
static weight into its data-tiled layout is vectorized over the whole K
dimension (a K x 16 transfer_read for AVX-512) and compilation stops with
"One or more operations with large vector sizes ... were found".
"""
import torch


class Model(torch.nn.Module):
    def forward(self, x, w):
        return torch.matmul(x, w)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(2, 3, 1024, generator=g), torch.randn(1024, 64, generator=g))


def dynamic_shapes():
    return {"x": {0: torch.export.Dim("b"), 1: torch.export.Dim("s")}, "w": {}}
