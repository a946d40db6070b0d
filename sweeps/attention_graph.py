"""Builder of the attention-graph sweep (sweeps/attention_graph.toml): a graph drawn from the seed by
harness/sweep/graph.py, holding a attention family op."""

from harness.sweep.graph import graph


def build(p: dict):
    return graph(p["seed"], "attention-graph")
