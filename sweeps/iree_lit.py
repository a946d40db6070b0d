"""Builder of the iree-lit sweep (sweeps/iree_lit.toml): a function of IREE's lit tests of the
pass areas, with seeded inputs and its numpy evaluation as the golden, from the catalog
sweeps/own/lit-<revision>.json.gz (harness/sweep/lit_tests.py)."""

from harness.sweep.lit_tests import lit_program

REVISION = "v3.9.0"  # the iree-org/iree tag whose lit tests the catalog holds


def build(p: dict):
    return lit_program(REVISION, p["test"])
