"""Builder of the int-graph sweep (sweeps/int_graph.toml): a graph drawn from the seed
by harness/sweep/graph.py over the whole op library of edition 3, from integer inputs
(u8 over its whole range) and an f32 now and then, no op forced."""

from harness.sweep.graph import graph


def build(p: dict):
    return graph(p["seed"], "int-graph")
