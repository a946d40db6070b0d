"""The windows of real models, as the `<family>-windows` sweeps read them: one JSON catalog
a family (sweeps/windows/<family>.json.gz, written by `iree-regress sweep windows --write`,
harness/sweep/windows.py), each window's whole model.py under its id. Pure Python: the
sweeps' builders read it in the sandbox and never import torch."""

from __future__ import annotations

import functools
import gzip
import json

from .program import Program
from .spec import SWEEPS_DIR

CATALOG_DIR = SWEEPS_DIR / "windows"
DRAW_SOURCE = '''
def draw(shape, dtype, stats, seed):
    """A seeded value in the range the model's own value had: floats normal with its
    mean and spread, clamped to its min and max; integers uniform in its min..max; bools
    true as often as its were."""
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) < stats[0]
    if dtype.is_floating_point:
        mean, std, lo, hi = stats
        return (torch.randn(shape, generator=g) * std + mean).clamp(lo, hi).to(dtype)
    lo, hi = stats
    return torch.randint(lo, hi + 1, shape, generator=g, dtype=torch.int64).to(dtype)
'''
_HELPER = DRAW_SOURCE.strip() + "\n\n"  # in every window's model.py, stored once here


def pack(source: str) -> str:
    """A window's model.py as the catalog holds it: without the draw() every one has."""
    return source.replace(_HELPER, "", 1)


def unpack(stored: str) -> str:
    return stored.replace("import torch\n\n", "import torch\n\n" + _HELPER, 1)
WINDOW_FAMILIES = ("transpose", "topk", "scatter", "attention", "matmul")


def catalog_path(family: str):
    return CATALOG_DIR / f"{family}.json.gz"  # gzip: the matmul catalog is 6 MB of repeated text, 0.2 MB packed


@functools.lru_cache(maxsize=None)
def catalog(family: str) -> dict[str, dict]:
    return json.loads(gzip.decompress(catalog_path(family).read_bytes()))


def window_program(family: str, window: str) -> Program:
    """The window's program: the model's own dtypes (f32 models: f32 tolerances)."""
    entry = catalog(family)[window]
    return Program(unpack(entry["source"]), dtype="f32", traits=tuple(entry["traits"]))
