"""argmax over a dim of length 1 (here the whole of an f32 [1]): the answer is index 0,
and the module crashes computing it before 3.9.0."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return x.argmax(dim=0, keepdim=True),


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(1, generator=g),)
