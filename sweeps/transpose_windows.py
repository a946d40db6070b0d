"""Builder of the transpose-windows sweep (sweeps/transpose_windows.toml): a window of a real model from
the catalog sweeps/windows/transpose.json.gz (harness/sweep/windows.py cuts them)."""

from harness.sweep.window_catalog import window_program


def build(p: dict):
    return window_program("transpose", p["window"])
