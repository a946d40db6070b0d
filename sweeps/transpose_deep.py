"""Builder of the transpose-deep sweep (sweeps/transpose_deep.toml): a permute inside the
ops around it, drawn from the seed by harness/sweep/compose.py (what fuses into it, the
reshapes, slices and casts after it, the consumer, index arithmetic, dynamic dims)."""

from harness.sweep.compose import compose


def permute(draft) -> None:
    """The family op: a permutation of the value's dims that is not the identity."""
    rank = len(draft.shape)
    perm = list(range(rank))
    while perm == list(range(rank)):
        draft.rng.shuffle(perm)
    draft.body.append(f"y = y.permute({', '.join(map(str, perm))})")
    draft.shape = [draft.shape[i] for i in perm]
    draft.recipe.append(f"permute{tuple(perm)}")


def build(p: dict):
    return compose(p["seed"], "transpose", permute, drop=p.get("drop", ()))
