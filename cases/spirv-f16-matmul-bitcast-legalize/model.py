"""f16 matmul compiled for the default Vulkan target (no 16-bit storage/arithmetic).

iree-org/iree#22717: `torch.aten.matmul` on two 64x64 f16 tensors fails to
compile with `--iree-hal-target-device=vulkan`:
    error: failed to legalize operation 'vector.bitcast'
    (vector<2xf32>) -> vector<4xf16>
"""
import torch


class Model(torch.nn.Module):
    def forward(self, a, b):
        return torch.matmul(a, b)


def example_inputs():
    g = torch.Generator().manual_seed(0)
    a = (torch.randn(64, 64, generator=g) * 0.25).to(torch.float16)
    b = (torch.randn(64, 64, generator=g) * 0.25).to(torch.float16)
    return a, b
