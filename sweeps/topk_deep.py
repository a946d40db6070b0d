"""Builder of the topk-deep sweep (sweeps/topk_deep.toml): a topk, sort or argsort inside
the ops around it, drawn from the seed by harness/sweep/compose.py."""

from harness.sweep.compose import compose


def topk(draft) -> None:
    """The family op along the last or the first dim: topk's values, topk's indices used
    to gather (the form of the survey's gather bugs), or a sort."""
    dim = draft.rng.choice((-1, 0))
    n = draft.shape[dim]
    k = draft.rng.choice(sorted({1, 3, n - 1, n} & set(range(1, n + 1))))
    largest = draft.rng.choice((True, False))
    form = draft.rng.choice(("values", "gather", "sort"))
    if form == "values":
        draft.body.append(f"y = torch.topk(y, {k}, dim={dim}, largest={largest}).values")
    elif form == "gather":
        draft.body.append(f"_, i = torch.topk(y, {k}, dim={dim}, largest={largest})")
        draft.body.append(f"y = torch.gather(y, {dim}, i)")
    else:
        k = n
        draft.body.append(f"y = torch.sort(y, dim={dim}, descending={largest}).values")
    draft.shape = [k if i == dim % len(draft.shape) else s for i, s in enumerate(draft.shape)]
    draft.recipe.append(f"{form}(k={k},dim={dim},largest={largest})")


def build(p: dict):
    return compose(p["seed"], "topk", topk, drop=p.get("drop", ()))
