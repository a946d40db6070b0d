"""Builder of the plain-graph sweep (sweeps/plain_graph.toml): a graph drawn from the seed by
harness/sweep/graph.py, with no family op."""

from harness.sweep.graph import graph


def build(p: dict):
    return graph(p["seed"], "plain-graph")
