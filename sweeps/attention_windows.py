"""Builder of the attention-windows sweep (sweeps/attention_windows.toml): a window of a real model from
the catalog sweeps/windows/attention.json.gz (harness/sweep/windows.py cuts them)."""

from harness.sweep.window_catalog import window_program


def build(p: dict):
    return window_program("attention", p["window"])
