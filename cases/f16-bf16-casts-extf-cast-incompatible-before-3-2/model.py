"""f16 -> bf16 and bf16 -> f16: the two casts between the 16-bit float types, each as
PyTorch writes it (`.to(dtype)`). Static dims; inputs are values both types hold exactly
(small integers and halves), so the casts are exact and the comparison can be too.

llvm/torch-mlir#3962: TorchToLinalg lowered a cast between two 16-bit float types as
`arith.extf`, which the verifier refuses (neither is wider); llvm/torch-mlir#3963 converts
through f32. Found by the plain-graph sweep: seed 1185 (a where, then f16 -> bf16).
"""
import torch


class Model(torch.nn.Module):
    def forward(self, x, y):
        a = x.to(torch.bfloat16)  # f16 -> bf16
        b = y.to(torch.bfloat16).to(torch.float16)  # bf16 -> f16 (the direction)
        return a.to(torch.float32), b


def example_inputs():
    g = torch.Generator().manual_seed(0)
    x = (torch.randint(-64, 65, (8,), generator=g) / 2).to(torch.float16)
    y = torch.randint(-64, 65, (8,), generator=g) / 2
    return (x, y)
