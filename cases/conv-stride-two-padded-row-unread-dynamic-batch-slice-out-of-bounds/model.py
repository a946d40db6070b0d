"""A 3x3 conv with stride 2 and padding 1 over a 2x2 input with a dynamic batch: the padded
input is 4x4 and the one window per dim reads rows 0..2, so the last padded row and column are
never read. IREE's llvm-cpu translation fails: "slice along dimension 0 runs out-of-bounds:
15 >= 9" (9 = the kernel's 3x3 taps). With every dim static the same conv fails to verify
instead, with the message of case max-pool-one-window-leftover-column-rejected. Found by the
models sweep: torchvision's MobileNetV3 and ShuffleNetV2 and timm's MaxViT at a 32x32 image
reach a 2x2 map before their last stride-2 convs; reduced by hand.
"""
import torch

def values(shape, dtype, kind, seed):
    """Seeded inputs that hit the hard cases. kind: random; ties (few distinct values);
    extremes (+-inf, +-0 and the largest finite values for floats, the type's min and
    max for integers). bf16 is held as the f32 values it rounds to (numpy has no bf16)."""
    g = torch.Generator().manual_seed(seed)
    n = 1
    for s in shape:
        n *= s
    if dtype.is_floating_point:
        if kind == "ties":
            x = torch.randint(-3, 4, (n,), generator=g).to(torch.float32) / 2
        else:
            x = torch.randn(n, generator=g) * 4
        if kind == "extremes" and n >= 2:
            big = float(torch.finfo(dtype).max)
            specials = torch.tensor([float("inf"), -float("inf"), 0.0, -0.0, big, -big])
            where = torch.randperm(n, generator=g)[: min(n, len(specials))]
            x[where] = specials[: len(where)]
        x = x.reshape(shape).to(dtype)
        return x.to(torch.float32) if dtype == torch.bfloat16 else x
    info = torch.iinfo(dtype)
    if kind == "ties":
        lo, hi = max(info.min, -3), min(info.max, 3)
    else:
        lo, hi = max(info.min, -(2 ** 40)), min(info.max, 2 ** 40)
    x = torch.randint(lo, hi + 1, (n,), generator=g, dtype=torch.int64)
    if kind == "extremes" and n >= 2:
        where = torch.randperm(n, generator=g)[:2]
        x[where[0]], x[where[1]] = info.min, info.max
    return x.to(dtype).reshape(shape)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.c = torch.nn.Conv2d(1, 1, 3, stride=2, padding=1, bias=False)  # 2x2 -> 1x1

    def forward(self, x):
        return self.c(x)


def example_inputs():
    return (values([2, 1, 2, 2], torch.float32, 'random', seed=0),)


def dynamic_shapes():
    batch = torch.export.Dim('batch', min=2, max=16)
    return {'x': {0: batch}}
