"""Builder of the topk-graph sweep (sweeps/topk_graph.toml): a graph drawn from the seed by
harness/sweep/graph.py, holding a topk family op."""

from harness.sweep.graph import graph


def build(p: dict):
    return graph(p["seed"], "topk-graph")
