"""An f16 sum over the last dim, on rows whose partial sums are large next to their total.

Found by the scatter-deep sweep (seed 147: an index_put with accumulate, then this sum),
reduced by hand to the sum with inputs that show the accumulation type plainly.
"""

import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return x.sum(dim=-1)


def example_inputs():
    # Each row's true sum is small next to its partial sums: summed in f16, the ones are
    # lost against 2048 (one f16 step there is 2); summed in f32, as PyTorch does for
    # f16 on CPU, they count.
    row = [2048.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, -2048.0]
    quarter = [1024.0, 0.25, 0.25, 0.25, 0.25, 0.25, 0.25, -1024.0]
    return (torch.tensor([row, row[::-1], [0.5] * 8, quarter], dtype=torch.float16),)
