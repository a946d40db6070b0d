"""uint8 operands of aten.add.Tensor / aten.sub.Tensor are sign-extended.

iree-org/iree#24583 (ONNX MatMulInteger with a uint8 zero point): torch-mlir's
TorchToLinalg lowering of add/sub widened a ui8 operand with arith.extsi (and
sitofp for float results), so every byte >= 128 became negative (200 -> -56).
Fixed in torch-mlir by llvm/torch-mlir#4601 (zero-extend unsigned operands).
"""
import torch


class Model(torch.nn.Module):
    def forward(self, x, zp, u, f):
        # int32 - uint8 -> int32 (the MatMulInteger "A - zero_point" shape)
        centered = x - zp
        # uint8 + float32 -> float32 (uitofp, not sitofp)
        shifted = u + f
        return centered, shifted


def example_inputs():
    g = torch.Generator().manual_seed(0)
    x = torch.randint(-100, 100, (4, 16), generator=g, dtype=torch.int32)
    zp = torch.randint(0, 256, (4, 16), generator=g).to(torch.uint8)
    u = torch.randint(0, 256, (4, 16), generator=g).to(torch.uint8)
    f = torch.randn(4, 16, generator=g)
    return x, zp, u, f
