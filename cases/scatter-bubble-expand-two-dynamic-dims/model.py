"""scatter-bubble-expand-two-dynamic-dims (iree-org/iree#21889, fixed by #21894).

A KV-cache style write: rows of `cache` at the flattened slot ids get the
flattened (b, s) updates. With b and s both dynamic, `flatten(0, 1)` is a
collapse_shape whose group holds two dynamic dims; dispatch creation bubbles it
through the scatter and, in 3.2.0 - 3.7.0, builds an expand_shape it cannot size.
"""
import torch


class Model(torch.nn.Module):
    def forward(self, cache, kv, slots):
        return torch.index_put(cache, (slots.flatten(),), kv.flatten(0, 1))


def example_inputs():
    g = torch.Generator().manual_seed(0)
    cache = torch.randn(16, 4, 8, generator=g)
    kv = torch.randn(2, 3, 4, 8, generator=g)
    slots = torch.randperm(16, generator=g)[:6].reshape(2, 3)
    return cache, kv, slots


def dynamic_shapes():
    n = torch.export.Dim("n")
    b = torch.export.Dim("b")
    s = torch.export.Dim("s")
    return {"cache": {0: n}, "kv": {0: b, 1: s}, "slots": {0: b, 1: s}}
