"""Builder of the wide-graph sweep (sweeps/wide_graph.toml): a graph drawn from the seed by
harness/sweep/graph.py over the whole op library of edition 2, no op forced."""

from harness.sweep.graph import graph


def build(p: dict):
    return graph(p["seed"], "wide-graph")
