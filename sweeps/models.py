"""Builder of the models sweep (sweeps/models.toml): each architecture of the models table
(harness/sweep/models.py) whole, as users export it."""

from harness.sweep.models import model_program


def build(p: dict):
    return model_program(p["arch"])
