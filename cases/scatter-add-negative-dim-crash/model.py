"""scatter_add along dim=-1 (the last), its index an arange expanded (broadcast) to the input's
shape, int32, static shapes. Reduced by `iree-regress sweep reduce` from the scatter-deep
sweep's variant flags=default,seed=0 (every context op and the dynamic dims left out: the
crash stays)."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        idx = (torch.arange(x.shape[-1]) % x.shape[-1]).expand(x.shape)
        return torch.zeros_like(x).scatter_add(-1, idx, x)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randint(-3, 4, (6, 4, 10, 8), generator=g, dtype=torch.int32),)
