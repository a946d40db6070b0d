"""Builder of the matmul-windows sweep (sweeps/matmul_windows.toml): a window of a real model from
the catalog sweeps/windows/matmul.json.gz (harness/sweep/windows.py cuts them)."""

from harness.sweep.window_catalog import window_program


def build(p: dict):
    return window_program("matmul", p["window"])
