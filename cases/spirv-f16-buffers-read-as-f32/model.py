"""f16 elementwise add on the default Vulkan target (vp_android_baseline_2022).

The default target has no 16-bit storage or arithmetic (`storage = b32`,
`compute = fp32|int32`). SPIR-V conversion then turns every f16 into f32,
buffers included, so the kernel reads and writes the f16 buffers as arrays of
f32: element i is fetched from byte 4*i of a buffer that holds 2-byte values.
Related, not a report of this bug: iree-org/iree#24688 (open) asks to drop this default target because it "may
lead to incorrect results" and "does not support fp16/int8/int64".
"""
import torch


class Model(torch.nn.Module):
    def forward(self, a, b):
        return a + b


def example_inputs():
    g = torch.Generator().manual_seed(0)
    a = torch.randn(64, generator=g).to(torch.float16)
    b = torch.randn(64, generator=g).to(torch.float16)
    return a, b
