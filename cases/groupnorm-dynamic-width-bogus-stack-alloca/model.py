"""nn.GroupNorm over an NCHW input whose width is a dynamic dim.

iree-org/iree#24483 (open): HoistStaticallyBoundAllocations takes the trivial
upper bound of an unconstrained dynamic index (2^53 - 1) as the static size of a
hoisted memref.alloca. The group-norm reduction dispatch (reduction_4xD) gets a
~3.6e17-byte stack buffer: 3.11.0 compiles it and the module dies at run time,
3.12.0 and 3.13.0 reject it ("exceeded stack allocation limit ... Got
360287970189639744 bytes"). 3.10.0 and older compile and run it correctly.
"""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.GroupNorm(num_groups=2, num_channels=4)
        with torch.no_grad():
            self.norm.weight.copy_(torch.tensor([0.5, 1.0, 1.5, 2.0]))
            self.norm.bias.copy_(torch.tensor([-0.25, 0.0, 0.25, 0.5]))

    def forward(self, x):
        return self.norm(x)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(2, 4, 5, 6, generator=g),)


def dynamic_shapes():
    return {"x": {3: torch.export.Dim("w")}}
