import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return torch.argsort(x, dim=0)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randperm(16, generator=g).to(torch.float32),)


def dynamic_shapes():
    return {"x": {0: torch.export.Dim("n")}}
