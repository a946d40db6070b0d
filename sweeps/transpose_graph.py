"""Builder of the transpose-graph sweep (sweeps/transpose_graph.toml): a graph drawn from the seed by
harness/sweep/graph.py, holding a transpose family op."""

from harness.sweep.graph import graph


def build(p: dict):
    return graph(p["seed"], "transpose-graph")
