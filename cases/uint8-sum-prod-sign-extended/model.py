"""Sums of uint8 bytes: PyTorch widens each byte to the result type (int64 by default)
before adding, so 200 counts as 200. Byte values are drawn over all of 0..255, as pixels
and quantized weights are: about half of them have the top bit set."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return x.sum(dim=0), x.sum(dim=1, dtype=torch.int32), x.prod(dim=2)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randint(0, 256, (4, 4, 4), generator=g, dtype=torch.int64).to(torch.uint8),)
