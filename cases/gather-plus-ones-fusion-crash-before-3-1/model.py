"""A gather by computed rows of a dynamic [?] f32, then + ones_like of it: the gather's
linalg.generic has no inputs (it reads through tensor.extract), the add has one (the
ones fold to a constant), and elementwise fusion of the two crashes before 3.1.0."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        rows = x.shape[0] - 1 - torch.arange(x.shape[0])  # the elements reversed
        v = torch.gather(x, 0, rows)
        return v + torch.ones_like(v),


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(8, generator=g),)


def dynamic_shapes():
    AUTO = torch.export.Dim.AUTO
    return {'x': {0: AUTO}}
