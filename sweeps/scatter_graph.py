"""Builder of the scatter-graph sweep (sweeps/scatter_graph.toml): a graph drawn from the seed by
harness/sweep/graph.py, holding a scatter family op."""

from harness.sweep.graph import graph


def build(p: dict):
    return graph(p["seed"], "scatter-graph")
