"""exp of a conv1d whose batch, length and output channels are all dynamic: on 2.9.0 the
elementwise dispatch's tile is put on the stack, past llvm-cpu's 32 KiB limit."""
import torch


class Model(torch.nn.Module):
    def forward(self, x, w):
        return torch.exp(torch.nn.functional.conv1d(x, w)),


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(10, 12, 8, generator=g), torch.randn(4, 12, 3, generator=g) / 4)


def dynamic_shapes():
    AUTO = torch.export.Dim.AUTO
    return {'x': {0: AUTO, 2: AUTO}, 'w': {0: AUTO}}
