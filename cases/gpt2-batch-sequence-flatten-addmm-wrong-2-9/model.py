"""matmul-windows: gpt2 (transformers), around `addmm_1` (aten.addmm.default) with 2 neighbours upstream: aten.reshape.default, aten.view.default, aten.addmm.default.
Cut from the model's torch.export by harness/sweep/windows.py; inputs and weights drawn in the ranges the model's own values had."""
import torch

def draw(shape, dtype, stats, seed):
    """A seeded value in the range the model's own value had: floats normal with its
    mean and spread, clamped to its min and max; integers uniform in its min..max; bools
    true as often as its were."""
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) < stats[0]
    if dtype.is_floating_point:
        mean, std, lo, hi = stats
        return (torch.randn(shape, generator=g) * std + mean).clamp(lo, hi).to(dtype)
    lo, hi = stats
    return torch.randint(lo, hi + 1, shape, generator=g, dtype=torch.int64).to(dtype)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer('w0', draw([32], torch.float32, (0.0, 0.0, 0.0, 0.0), seed=101))
        self.register_buffer('w1', draw([32, 32], torch.float32, (-0.000417, 0.01013, -0.03422, 0.03542), seed=102))

    def forward(self, x0):
        n0 = x0.size(0)
        n1 = x0.size(1)
        v0 = torch.ops.aten.reshape.default(x0, [n0, n1, -1])
        v1 = torch.ops.aten.view.default(v0, [-1, 32])
        v2 = torch.ops.aten.addmm.default(self.w0, v1, self.w1)
        return (v2,)


def example_inputs():
    return (
        draw([2, 16, 2, 16], torch.float32, (-0.003147, 0.05204, -0.2445, 0.3144), seed=0),
    )


def dynamic_shapes():
    batch = torch.export.Dim('batch', min=2, max=16)
    sequence = torch.export.Dim('sequence', min=2, max=64)
    return {'x0': {0: batch, 1: sequence}}
