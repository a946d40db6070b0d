import torch
import torch.nn as nn

class IreeBadConcatenation(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = x[:, 1:]
        b = a - a
        c = a + b
        return torch.cat([c, b], dim=1)


# The thread's snippet exports nothing: its inputs are seeded, of the shapes its printed
# export states (1x2xf32) (written by iree-regress harvest).
def Model():
    return IreeBadConcatenation()


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn((1, 2), generator=g).to(torch.float32),)
