"""Reductions: sum, mean, amax, argmax, cumsum, with and without keepdim."""

from . import FLOATS, T, Made, op


def _reduced(rng, a: T, name: str, floats_only: bool = False, to: str | None = None) -> Made:
    d = rng.randrange(a.rank)
    keep = rng.choice((True, False))
    shape = [1 if i == d else s for i, s in enumerate(a.shape)] if keep else \
        [s for i, s in enumerate(a.shape) if i != d]
    return Made(a.with_(shape=shape, dtype=to or a.dtype), f"{{a}}.{name}(dim={d}, keepdim={keep})",
                f"{name}(dim={d},keepdim={keep})")


NUMBERS = lambda a: a.rank >= 1 and a.dtype != "bool"  # noqa: E731


@op("sum", "reduction", "rank >= 1, not bool (i8 / u8 sum to i64, as PyTorch)", NUMBERS)
def _sum(rng, a: T) -> Made:
    return _reduced(rng, a, "sum", to="i64" if a.dtype in ("i8", "u8", "i32") else None)


@op("mean", "reduction", "rank >= 1 floats", lambda a: a.rank >= 1 and a.dtype in FLOATS)
def _mean(rng, a: T) -> Made:
    return _reduced(rng, a, "mean")


@op("amax", "reduction", "rank >= 1, not bool", NUMBERS)
def _amax(rng, a: T) -> Made:
    return _reduced(rng, a, "amax")


@op("argmax", "reduction", "rank >= 1 floats (ties make integer argmax a choice): gives i64",
    lambda a: a.rank >= 1 and a.dtype in FLOATS)
def _argmax(rng, a: T) -> Made:
    return _reduced(rng, a, "argmax", to="i64")


@op("cumsum", "reduction", "rank >= 1, f32 / i32 / i64 (keeps the shape; integers sum in i64, as PyTorch)",
    lambda a: a.rank >= 1 and a.dtype in ("f32", "i32", "i64"))
def _cumsum(rng, a: T) -> Made:
    d = rng.randrange(a.rank)
    return Made(a.with_(dtype="f32" if a.dtype == "f32" else "i64"), f"torch.cumsum({{a}}, dim={d})", f"cumsum(dim={d})")


@op("var", "reduction", "a float dim of size >= 4: var or std with a correction of 0, 1 or 2, keepdim drawn",
    lambda a: a.dtype in ("f32", "f16") and any(s >= 4 for s in a.shape), weight=1.5, edition=2)
def _var(rng, a: T) -> Made:
    d = rng.choice([i for i, s in enumerate(a.shape) if s >= 4])
    keep, correction, name = rng.choice((True, False)), rng.choice((0, 1, 2)), rng.choice(("var", "std"))
    shape = [1 if i == d else s for i, s in enumerate(a.shape)] if keep else \
        [s for i, s in enumerate(a.shape) if i != d]
    return Made(a.with_(shape=shape), f"torch.{name}({{a}}, dim={d}, correction={correction}, keepdim={keep})",
                f"{name}(dim={d},correction={correction},keepdim={keep})")
