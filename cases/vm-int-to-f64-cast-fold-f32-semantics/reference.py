import torch


def example_inputs():
    # Unused by the program (see model.mlir); only there so the run has an input.
    return (torch.zeros(1, dtype=torch.float64),)


def reference(unused):
    # cast(int) - exact value, computed in float64 as the VM should fold it.
    u = torch.tensor(4294967295, dtype=torch.int64).to(torch.float64) - 4294967295.0
    s = torch.tensor(-2147483649, dtype=torch.int64).to(torch.float64) - (-2147483649.0)
    return u, s
