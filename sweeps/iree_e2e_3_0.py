"""Builder of the iree-e2e-3-0 sweep (sweeps/iree_e2e_3_0.toml): a test function of IREE's own e2e
check programs, from the catalog sweeps/own/e2e-<revision>.json (harness/sweep/own_tests.py)."""

from harness.sweep.own_tests import e2e_program

REVISION = "iree-3.0.0"  # the iree-org/iree tag whose tests/e2e the catalog holds


def build(p: dict):
    return e2e_program(REVISION, p["test"])
