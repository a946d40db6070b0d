"""Builder of the attention sweep (sweeps/attention.toml): one point -> one model.py.

torch.nn.functional.scaled_dot_product_attention over q [B, H, L, E] and k, v
[B, KVH, S, E]: every mask form (none, bool, float, causal, a bool mask with a query row
that sees nothing), scales, equal and different lengths, head dims, and grouped kv heads
(written out with repeat_interleave as models do, and with enable_gqa). bf16 is carried
as f32 and cast inside the program. Dynamic dims are left to export (Dim.AUTO).
"""

from harness.sweep.program import AUTO, Program, model_source, values_call

HEADS = {"one": (1, 1, 1), "multi": (2, 4, 4), "grouped": (2, 4, 2), "gqa": (2, 4, 2)}  # B, H, KVH
L = 8
S = {"equal": 8, "different": 12}
SCALES = {"none": None, "one": 1.0, "other": 0.3}

MASKS = '''
def mask_of(kind, shape, seed):
    """bool: about a third masked out, never a whole row; empty_row: row 1 masked out
    whole (PyTorch answers zeros for it since 2.5); float: an additive bias with a few
    -inf entries, never a whole row."""
    g = torch.Generator().manual_seed(seed)
    keep = torch.rand(shape, generator=g) > 0.33
    keep[..., 0] = True
    if kind == "empty_row":
        keep[..., 1, :] = False
    if kind in ("bool", "empty_row"):
        return keep
    bias = torch.randn(shape, generator=g)
    return torch.where(keep, bias, torch.tensor(float("-inf")))
'''


def build(p: dict) -> Program:
    batch, heads, kv_heads = HEADS[p["heads"]]
    dim, dtype, mask = int(p["head_dim"]), p["dtype"], p["mask"]
    s = S[p["lengths"]]
    shapes = {"q": [batch, heads, L, dim], "k": [batch, kv_heads, s, dim], "v": [batch, kv_heads, s, dim]}
    inputs = [values_call(shape, dtype, i) for i, shape in enumerate(shapes.values())]
    body = []
    if dtype == "bf16":  # carried as f32 (numpy has no bf16)
        body.append("q, k, v = q.to(torch.bfloat16), k.to(torch.bfloat16), v.to(torch.bfloat16)")
    # values() are N(0, 16): scaled to N(0, 1), as activations are, so that the logits
    # (and the outputs' rounding) stay of the size attention meets in models.
    body.append("q, k, v = q / 4, k / 4, v / 4")
    args = ["attn_mask=mask" if mask in ("bool", "float", "empty_row") else "",
            "is_causal=True" if mask == "causal" else "",
            f"scale={SCALES[p['scale']]}" if p["scale"] != "none" else "",
            "enable_gqa=True" if p["heads"] == "gqa" else ""]
    if mask in ("bool", "float", "empty_row"):
        shapes["mask"] = [1, 1, L, s]
        inputs.append(f"mask_of({mask!r}, {shapes['mask']}, seed=9)")
        if mask == "float":
            body.append("mask = mask.to(q.dtype)")
    if p["heads"] == "grouped":  # grouped kv heads as models write them out
        body.append(f"k, v = k.repeat_interleave({heads // kv_heads}, dim=1), v.repeat_interleave({heads // kv_heads}, dim=1)")
    call = ", ".join(["q, k, v"] + [a for a in args if a])
    body.append(f"out = torch.nn.functional.scaled_dot_product_attention({call})")
    body.append("return out.float()" if dtype == "bf16" else "return out")

    dynamic = None
    if p["dims"] != "static":
        # dynamic_seq: the sequence lengths; dynamic: batch and sequence lengths too.
        seq = {"q": [2], "k": [2], "v": [2], "mask": [2, 3]}
        dynamic = {arg: {d: AUTO for d in seq[arg] + ([0] if p["dims"] == "dynamic" and arg != "mask" else [])}
                   for arg in shapes}
    doc = (f"attention sweep: sdpa of q {shapes['q']} over k/v {shapes['k']} {dtype}, mask {mask}, "
           f"scale {p['scale']}, heads {p['heads']}, {p['dims']} dims.")
    return Program(model_source(doc, list(shapes), body, inputs, dynamic, helpers=MASKS), dtype=dtype)
