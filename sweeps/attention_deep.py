"""Builder of the attention-deep sweep (sweeps/attention_deep.toml): a
scaled_dot_product_attention inside the ops around it, drawn from the seed by
harness/sweep/compose.py (floats of rank 4: batch, heads, length, head dim)."""

from harness.sweep.compose import compose


def attention(draft) -> None:
    """y is the query; the key and value are inputs of the same head dim, as long as the
    query or two longer; causal only where the lengths are equal."""
    b, h, length, e = draft.shape
    keys = draft.rng.choice((length, length + 2))
    k = draft.operand("k", [b, h, keys, e])
    v = draft.operand("v", [b, h, keys, e])
    causal = keys == length and draft.rng.random() < 0.4
    # Scaled down as the grid's are (sweeps/attention.py): scores of inputs ~N(0, 16) make
    # a softmax so peaked that f16 rounding alone moves it past any tolerance.
    draft.body.append(f"y = torch.nn.functional.scaled_dot_product_attention(y / 4, {k} / 4, {v} / 4"
                      f"{', is_causal=True' if causal else ''})")
    draft.recipe.append(f"sdpa(keys={keys}{',causal' if causal else ''})")


def build(p: dict):
    return compose(p["seed"], "attention", attention, dtypes=("f32", "f16"), ranks=(4,), drop=p.get("drop", ()))
