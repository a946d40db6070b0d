"""The op library: every op a generated program may hold, one entry each.

An entry says where it applies (`fits`: the types of the values it would take) and, drawn
with a seeded random.Random, what it makes (`make`): its output type, the fresh inputs it
needs (a weight, a bias), the recipe text, and how it writes itself as PyTorch (a format
string over its operands {a} {b} and fresh inputs {w0} {w1}). Writers for other frontends
(JAX) go beside the PyTorch one. Like the builders, this never imports torch: it writes
model.py's source. As NNSmith's ops (nnsmith/abstract/op.py): the op as data plus rules,
the generator (graph.py) inserts any op the values at hand satisfy.

Types: a shape of static sizes (dims may still be exported dynamic: model_source's AUTO)
and one of DTYPES. Integer inputs are small (values(kind="ties"): -3..3), so sums and
products of a few ops stay exact and never overflow.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

DTYPES = ("f32", "f16", "bf16", "i8", "u8", "i32", "i64", "bool")
FLOATS = ("f32", "f16", "bf16")
INTS = ("i8", "u8", "i32", "i64")
TORCH = {"f32": "torch.float32", "f16": "torch.float16", "bf16": "torch.bfloat16", "i8": "torch.int8",
         "u8": "torch.uint8", "i32": "torch.int32", "i64": "torch.int64", "bool": "torch.bool"}


@dataclass(frozen=True)
class T:
    """A value's type: its sizes and dtype."""
    shape: tuple[int, ...]
    dtype: str

    @property
    def rank(self) -> int:
        return len(self.shape)

    def with_(self, shape=None, dtype=None) -> "T":
        return T(tuple(self.shape if shape is None else shape), self.dtype if dtype is None else dtype)


@dataclass(frozen=True)
class Made:
    """One drawn use of an op: what it gives and how it is written."""
    out: T
    torch: str  # a PyTorch expression over {a} {b} (operands) and {w0} {w1} (fresh inputs)
    note: str  # the recipe's words: the op and its drawn parameters
    fresh: tuple[T, ...] = ()  # inputs the program gains (weights, biases)


@dataclass(frozen=True)
class Op:
    name: str
    group: str
    where: str  # where it applies, in words (`iree-regress sweep ops`)
    fits: Callable[..., bool]  # fits(*operand types)
    make: Callable[..., Made]  # make(rng, *operand types)
    arity: int = 1
    family: str = ""  # the family sweep this op is the family op of ("" for context ops)
    weight: float = 1.0  # how much more often it is drawn where it fits: ops that fit few types
                         # are weighted up so that each is in a fair share of the programs
    edition: int = 1  # the library edition that added it: a sweep draws the ops of its own
                      # edition and before, so adding an op never changes an existing seed's program


LIBRARY: dict[str, Op] = {}


def op(name: str, group: str, where: str, fits, arity: int = 1, family: str = "", weight: float = 1.0,
       edition: int = 1):
    """Register the decorated make function as op `name`."""
    def register(make):
        if name in LIBRARY:
            raise ValueError(f"op {name!r} is registered twice")
        LIBRARY[name] = Op(name, group, where, fits, make, arity, family, weight, edition)
        return make
    return register


def dim_of(rng: random.Random, t: T, pred=lambda size: True) -> int | None:
    """A dim of t whose size satisfies pred, drawn; None when none does."""
    dims = [i for i, s in enumerate(t.shape) if pred(s)]
    return rng.choice(dims) if dims else None


def broadcastable(a: T, b: T) -> bool:
    """b broadcasts against a to a's shape (PyTorch's rule, b no larger than a)."""
    if b.rank > a.rank:
        return False
    return all(y in (1, x) for x, y in zip(a.shape[a.rank - b.rank:], b.shape))


def promoted(a: str, b: str) -> str:
    """PyTorch's type promotion of two tensor dtypes (the categories bool < int < float)."""
    if a == b:
        return a
    order = ("bool", "u8", "i8", "i32", "i64")
    if a in FLOATS or b in FLOATS:
        floats = [d for d in (a, b) if d in FLOATS]
        if len(floats) == 1:
            return floats[0]
        return "f32"  # f16 with bf16 (or with f32) promotes to f32
    if {a, b} == {"u8", "i8"}:
        return "i16"  # not one of DTYPES: a binary op over the two does not fit
    return max(a, b, key=order.index)


from . import (combine, contraction, elementwise, family, indexing, layout, normalization,  # noqa: E402,F401
               pooling, reduction, reshape)
