"""Builder of the wide-graph-3 sweep (sweeps/wide_graph_3.toml): a graph drawn from the seed
by harness/sweep/graph.py over the whole op library of edition 3, no op forced."""

from harness.sweep.graph import graph


def build(p: dict):
    return graph(p["seed"], "wide-graph-3")
