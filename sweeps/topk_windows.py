"""Builder of the topk-windows sweep (sweeps/topk_windows.toml): a window of a real model from
the catalog sweeps/windows/topk.json.gz (harness/sweep/windows.py cuts them)."""

from harness.sweep.window_catalog import window_program


def build(p: dict):
    return window_program("topk", p["window"])
