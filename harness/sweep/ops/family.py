"""The family ops themselves: topk, sort, argsort (the topk family), scaled dot-product
attention with every mask kind (the attention family). Scatter and permute / transpose
are in indexing.py and layout.py, marked with their families."""

from . import FLOATS, T, Made, op

SORTABLE = ("f32", "f16", "i32", "i64")


@op("topk", "family", "rank >= 1 of f32 / f16 / i32 / i64: values, or the values its indices gather",
    lambda a: a.rank >= 1 and a.dtype in SORTABLE, family="topk")
def _topk(rng, a: T) -> Made:
    d = rng.randrange(a.rank)
    n = a.shape[d]
    k = rng.choice(sorted({1, max(1, n // 2), n}))
    largest = rng.choice((True, False))
    shape = [k if i == d else s for i, s in enumerate(a.shape)]
    if rng.random() < 0.4:
        return Made(a.with_(shape=shape),
                    f"torch.gather({{a}}, {d}, torch.topk({{a}}, {k}, dim={d}, largest={largest}).indices)",
                    f"gather(topk(k={k},dim={d},largest={largest}).indices)")
    return Made(a.with_(shape=shape), f"torch.topk({{a}}, {k}, dim={d}, largest={largest}).values",
                f"topk(k={k},dim={d},largest={largest})")


@op("sort", "family", "rank >= 1 of f32 / f16 / i32 / i64: sorted values", lambda a: a.rank >= 1 and a.dtype in SORTABLE,
    family="topk")
def _sort(rng, a: T) -> Made:
    d = rng.randrange(a.rank)
    desc = rng.choice((True, False))
    return Made(a, f"torch.sort({{a}}, dim={d}, descending={desc}).values", f"sort(dim={d},descending={desc})")


@op("argsort", "family", "rank >= 1 of f32 / i32 / i64: the values in sorted order, gathered by the argsort "
    "(equal values are equal whichever index comes first)", lambda a: a.rank >= 1 and a.dtype in ("f32", "i32", "i64"), family="topk")
def _argsort(rng, a: T) -> Made:
    d = rng.randrange(a.rank)
    return Made(a, f"torch.gather({{a}}, {d}, torch.argsort({{a}}, dim={d}))", f"argsort(dim={d})")


@op("sdpa", "family", "rank 3-4 floats [.., L, E]: attention of the value with itself, with no mask, a causal "
    "mask, a boolean mask from positions, or an additive float mask", lambda a: a.rank in (3, 4) and a.dtype in FLOATS,
    family="attention")
def _sdpa(rng, a: T) -> Made:
    mask = rng.choice(("none", "causal", "bool", "float"))
    causal = mask == "causal"
    positions = "(torch.arange({a}.shape[-2]).unsqueeze(-1) >= torch.arange({a}.shape[-2]).unsqueeze(0))"
    attn = {"none": "", "causal": "", "bool": f", attn_mask={positions}",
            "float": f", attn_mask=torch.where({positions}, 0.0, -1e4).to({{a}}.dtype)"}[mask]
    return Made(a, f"torch.nn.functional.scaled_dot_product_attention({{a}}, {{a}}, {{a}}{attn}"
                   f"{', is_causal=True' if causal else ''})", f"sdpa(mask={mask})")
