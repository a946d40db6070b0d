# The values the thread states as correct (written by iree-regress harvest):
#   The correct result should be:
#   [[[[ -1.109700e+00, -1.218800e+00, 1.167600e+00, -1.040800e+00, 9.166000e-01, -1.304200e+00]]]]
import torch


def example_inputs():
    return ()


def reference():
    out0 = torch.tensor([-1.1097, -1.2188, 1.1676, -1.0408, 0.9166, -1.3042], dtype=torch.float64).reshape([1, 1, 1, 6]).to(torch.float32)
    return out0,
