"""Builder of the dims-graph sweep (sweeps/dims_graph.toml): a graph drawn from the seed
by harness/sweep/graph.py over the whole op library of edition 3, its dynamic dims the
batch dims or drawn per dim, no op forced."""

from harness.sweep.graph import graph


def build(p: dict):
    return graph(p["seed"], "dims-graph")
