"""matmul-windows: efficientnet (transformers), around `conv2d_3` (aten.conv2d.padding) with 5 neighbours downstream: aten.conv2d.padding, aten.sigmoid.default, aten.mul.Tensor, aten.conv2d.padding, aten.batch_norm.default, aten.conv2d.padding.
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
        self.register_buffer('w0', draw([8, 2, 1, 1], torch.float32, (-0.008763, 0.02112, -0.04303, 0.03765), seed=102))
        self.register_buffer('w1', draw([8], torch.float32, (0.0, 0.0, 0.0, 0.0), seed=103))
        self.register_buffer('w2', draw([8, 8, 1, 1], torch.float32, (0.001792, 0.02162, -0.04243, 0.0507), seed=104))
        self.register_buffer('w3', draw([8], torch.float32, (-0.007581, 0.01427, -0.02553, 0.01609), seed=105))
        self.register_buffer('w4', draw([8], torch.float32, (0.0, 0.0, 0.0, 0.0), seed=106))
        self.register_buffer('w5', draw([8], torch.float32, (0.0, 0.0, 0.0, 0.0), seed=107))
        self.register_buffer('w6', draw([8], torch.float32, (1.0, 0.0, 1.0, 1.0), seed=108))
        self.register_buffer('w7', draw([48, 8, 1, 1], torch.float32, (-5.605e-05, 0.01941, -0.05942, 0.07715), seed=109))

    def forward(self, x0, x1):
        v0 = torch.ops.aten.conv2d.padding(x0, self.w0, self.w1, [1, 1], 'same')
        v1 = torch.ops.aten.sigmoid.default(v0)
        v2 = torch.ops.aten.mul.Tensor(x1, v1)
        v3 = torch.ops.aten.conv2d.padding(v2, self.w2, None, [1, 1], 'same')
        v4 = torch.ops.aten.batch_norm.default(v3, self.w3, self.w4, self.w5, self.w6, False, 0.99, 0.001, False)
        v5 = torch.ops.aten.conv2d.padding(v4, self.w7, None, [1, 1], 'same')
        return (v5,)


def example_inputs():
    return (
        draw([2, 2, 1, 1], torch.float32, (-2.779e-10, 1.845e-10, -5.051e-10, -1.09e-10), seed=0),
        draw([2, 8, 16, 16], torch.float32, (7.633e-09, 5.152e-07, -3.117e-06, 2.985e-06), seed=1),
    )


def dynamic_shapes():
    batch = torch.export.Dim('batch', min=2, max=16)
    return {'x0': {0: batch}, 'x1': {0: batch}}
