"""Right shifts lowered with the wrong signedness by torch-mlir.

llvm/torch-mlir#4676: `aten.__rshift__.Scalar` always lowered to a logical
shift (arith.shrui), so `x >> n` on a negative signed integer filled the top
bits with zeros; `aten.bitwise_right_shift.Tensor` always lowered to an
arithmetic shift (arith.shrsi), so a uint8 value >= 128 was shifted in ones.
"""
import torch


class Model(torch.nn.Module):
    def forward(self, x, u, s):
        signed = x >> 2                              # aten.__rshift__.Scalar on int8
        unsigned = torch.bitwise_right_shift(u, s)   # aten.bitwise_right_shift.Tensor on uint8
        # widened: IREE returns a ui8 result as a signless i8 buffer (read back as int8)
        return signed, unsigned.to(torch.int32)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    x = torch.randint(-128, 128, (4, 16), generator=g).to(torch.int8)
    u = torch.randint(0, 256, (4, 16), generator=g).to(torch.uint8)
    s = torch.randint(0, 8, (4, 16), generator=g).to(torch.uint8)
    return x, u, s
