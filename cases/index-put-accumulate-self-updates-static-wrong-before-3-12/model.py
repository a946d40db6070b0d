"""x.index_put((i,), x, accumulate=True) of a static [4, 4] int32, i = each row's next
row: every row of x is added into the row after it, the updates being x itself.

Found by the int-graph sweep, seed 1897 (a u8 [4, 4] accumulated into itself so, then
shifted left; wrong on 2.9.0..3.11.0, right from 3.12.0), reduced by hand: the
index_put alone is wrong the same way over int32, so neither the bytes nor the shift
are needed. PyTorch reads the updates as they were before the write; IREE reads rows
the accumulation has already written.
"""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        i = (torch.arange(x.shape[0]) + 1) % x.shape[0]
        return x.index_put((i,), x, accumulate=True),


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randint(0, 50, (4, 4), generator=g).to(torch.int32),)
