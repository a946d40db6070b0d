import torch


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randint(-128, 128, (4, 3, 6), dtype=torch.int8, generator=g),)


def reference(x):
    # Reinterpret each pair of int8 (little-endian) as one int16.
    return x.view(torch.int16)
