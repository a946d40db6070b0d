import torch


def example_inputs():
    return torch.tensor(1.5, dtype=torch.float32), torch.tensor([3, 5], dtype=torch.int32)


def reference(value, sizes):
    # The result's shape is the data: sizes[0] x sizes[1], every element the scalar.
    return torch.full((int(sizes[0]), int(sizes[1])), float(value), dtype=torch.float32)
