"""adaptive_avg_pool2d of a bf16 image to a 2x2 grid (a global pool to 1x1 compiles).

Found by the dims-graph sweep's sample on 3.13.0 (seed 1459: tanh, pad, adaptive pool,
over bf16), reduced by `iree-regress sweep reduce` and then by hand: the bf16 input and
the pool to more than one cell are all it needs. llvm-cpu leaves an f32 -> bf16
truncation as a call to the compiler-rt routine __truncsfbf2, which the embedded linker
does not have (iree-org/iree#13499 was that message in 2023, fixed then).
"""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.adaptive_avg_pool2d(x.to(torch.bfloat16), 2).float()


def example_inputs():
    g = torch.Generator().manual_seed(0)
    # values bf16 holds exactly: the input's own rounding is no part of the comparison
    return (torch.randn(1, 1, 6, 10, generator=g).to(torch.bfloat16).float(),)
