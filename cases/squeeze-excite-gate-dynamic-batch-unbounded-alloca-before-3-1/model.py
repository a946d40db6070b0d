"""A squeeze-excite gate over a dynamic batch: x * sigmoid(conv1x1(mean(x))).

Found by the matmul-windows scan in timm's MaxViT (its MBConv blocks' squeeze-excite,
cut out with its neighbours); EfficientNet and MobileNetV3 gate their channels the same
way. On 2.9.0 and 3.0.0 the 1x1 conv over the [?, 128, 1, 1] mean, fused with the gate,
asks llvm-cpu for a stack buffer whose size follows the dynamic batch.
"""
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(1)
        self.gate = torch.nn.Conv2d(128, 128, 1)
        with torch.no_grad():
            self.gate.weight.copy_(torch.randn(128, 128, 1, 1, generator=g) * 0.1)
            self.gate.bias.copy_(torch.randn(128, generator=g) * 0.1)

    def forward(self, x):
        return x * torch.sigmoid(self.gate(x.mean(dim=(2, 3), keepdim=True)))


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randn(2, 128, 8, 8, generator=g),)


def dynamic_shapes():
    return {"x": {0: torch.export.Dim("batch", min=2)}}
