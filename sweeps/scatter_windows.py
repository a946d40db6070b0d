"""Builder of the scatter-windows sweep (sweeps/scatter_windows.toml): a window of a real model from
the catalog sweeps/windows/scatter.json.gz (harness/sweep/windows.py cuts them)."""

from harness.sweep.window_catalog import window_program


def build(p: dict):
    return window_program("scatter", p["window"])
