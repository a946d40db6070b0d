"""MoE router scores via one_hot, with mixed dynamic/static dims (iree-org/iree#21028).

Inputs: ffn_input [num_tokens, input_feature_dim] (both dynamic),
top_experts_index / expert_gate [num_tokens, top_k] (num_tokens dynamic, top_k
static = 2): the dim pattern the issue reported as giving wrong numbers.
"""
import torch
import torch.nn.functional as F

NUM_EXPERTS = 8


class Model(torch.nn.Module):
    def forward(self, ffn_input, top_experts_index, expert_gate):
        one_hot = F.one_hot(top_experts_index, num_classes=NUM_EXPERTS).to(dtype=ffn_input.dtype)
        weighted = one_hot * expert_gate.unsqueeze(-1)
        return weighted.sum(dim=1).transpose(0, 1).T


def example_inputs():
    g = torch.Generator().manual_seed(0)
    tokens, features, top_k = 6, 16, 2
    ffn_input = torch.randn(tokens, features, generator=g)
    index = torch.stack([torch.randperm(NUM_EXPERTS, generator=g)[:top_k] for _ in range(tokens)])
    gate = torch.rand(tokens, top_k, generator=g)
    return ffn_input, index, gate


def dynamic_shapes():
    tokens = torch.export.Dim("num_tokens")
    features = torch.export.Dim("input_feature_dim")
    return {
        "ffn_input": {0: tokens, 1: features},
        "top_experts_index": {0: tokens},
        "expert_gate": {0: tokens},
    }


# The other two shape forms of the issue, used by the sibling cases
# (case.toml: [source] dynamic_shapes = "all_dynamic" / "all_static").
def all_dynamic():
    shapes = dynamic_shapes()
    top_k = torch.export.Dim("num_top_experts")
    shapes["top_experts_index"][1] = top_k
    shapes["expert_gate"][1] = top_k
    return shapes


def all_static():
    return None
