"""Builder of the scatter-deep sweep (sweeps/scatter_deep.toml): a scatter inside the ops
around it, its indices computed in the program (index arithmetic), drawn from the seed by
harness/sweep/compose.py."""

from harness.sweep.compose import compose


def scatter(draft) -> None:
    """scatter_add, scatter_reduce(amax) along the last dim, or index_put(accumulate) of
    rows, to indices (m * i) mod n: a permutation for m = 1 or 3 on odd-free sizes, with
    repeats for m = 2 (their sums are defined: accumulate, add, amax)."""
    m = draft.rng.choice((1, 2, 3))
    form = draft.rng.choice(("scatter_add", "scatter_amax", "index_put_acc"))
    # The last dim spelled positive: dim=-1 crashes every release in torch-mlir's scatter
    # lowering (case scatter-add-negative-dim-crash), which would hide all else here.
    last = len(draft.shape) - 1
    if form == "index_put_acc":
        draft.body.append(f"rows = (torch.arange(y.shape[0]) * {m}) % y.shape[0]")
        draft.body.append("y = y.index_put((rows,), y * 2, accumulate=True)")
    else:
        draft.body.append(f"idx = ((torch.arange(y.shape[{last}]) * {m}) % y.shape[{last}]).expand(y.shape)")
        if form == "scatter_add":
            draft.body.append(f"y = torch.zeros_like(y).scatter_add({last}, idx, y)")
        else:
            draft.body.append(f'y = y.scatter_reduce({last}, idx, y * 2, reduce="amax", include_self=True)')
    draft.recipe.append(f"{form}(m={m})")


def build(p: dict):
    return compose(p["seed"], "scatter", scatter, drop=p.get("drop", ()))
