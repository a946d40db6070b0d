"""Builder of the scatter/one_hot sweep (sweeps/scatter.toml): one point -> one model.py.

A [ROWS, COLS] tensor `t` is written or read at indices along its first or last dim,
the shape of the seeds (iree-org/iree#21028/#21038: scores.scatter_(1, top_experts_index,
expert_gate) over dynamic tokens). Indices are seeded to hit both ends of the range;
`duplicates` forces a repeated index (only where the op accumulates or reads, since a
repeated plain write has no defined winner); `negative` spells some indices from the end
(only index_put accepts that). Dynamic dims are left to export (Dim.AUTO).
"""

from harness.sweep.program import AUTO, FLOATS, TORCH_DTYPES, Program, model_source, values_call

ROWS, COLS = 6, 8
DIMS = {"first": 0, "last": 1}
TAKEN = {"first": 4, "last": 3}  # indices per slice along the dim
# The ops whose PyTorch signature takes int64 indices only: an i32 index input is
# widened inside the program, as a model holding i32 indices would.
LONG_ONLY = ("scatter", "scatter_value", "scatter_add", "scatter_reduce_sum", "scatter_reduce_prod",
             "scatter_reduce_amax", "scatter_reduce_amin", "gather", "take_along_dim", "one_hot")

INDICES = '''
def indices(shape, dim, high, unique, negative, dtype, seed):
    """Seeded indices into [0, high) along `dim` of `shape`: both ends of the range
    appear; unique: no repeat within a slice along dim; else at least one repeat;
    negative: every other index spelled from the end (i - high)."""
    g = torch.Generator().manual_seed(seed)
    shape = list(shape)
    n = shape[dim]
    rest = [s for i, s in enumerate(shape) if i != dim]
    count = 1
    for s in rest:
        count *= s
    if unique:
        rows = torch.stack([torch.randperm(high, generator=g)[:n] for _ in range(count)])
        if n >= 2:
            middle = torch.randperm(high - 2, generator=g)[: n - 2] + 1
            rows[0] = torch.cat([torch.tensor([0, high - 1]), middle])
    else:
        rows = torch.randint(0, high, (count, n), generator=g)
        rows[:, 1] = rows[:, 0]
        rows[0, 0] = rows[0, 1] = 0
        rows[0, -1] = high - 1
    out = rows.reshape(rest + [n]).movedim(-1, dim) if rest else rows.reshape(n)
    out = out.contiguous()
    if negative:
        out.view(-1)[::2] -= high
    return out.to(dtype)
'''


def build(p: dict) -> Program:
    op, dtype, where = p["op"], p["dtype"], p["dim"]
    dim, taken = DIMS[where], TAKEN[where]
    index_dtype = TORCH_DTYPES[p["index_dtype"]]
    unique, negative = not p["duplicates"], p["negative"]
    floating = dtype in FLOATS
    shapes = {"t": [ROWS, COLS]}  # argument -> shape, in forward's order
    inputs = [values_call([ROWS, COLS], dtype, 0)]
    high = COLS if dim == 1 else ROWS

    def index(name, shape, along=dim):
        shapes[name] = shape
        inputs.append(f"indices({shape}, {along}, {high}, {unique}, {negative}, {index_dtype}, seed={len(shapes)})")

    def operand(name, shape):
        shapes[name] = shape
        inputs.append(values_call(shape, dtype, len(shapes)))

    sliced = [ROWS, taken] if dim == 1 else [taken, COLS]  # an index/src shape along dim
    body = []
    if op.startswith("scatter") or op in ("gather", "take_along_dim"):
        index("idx", sliced)
    if p["index_dtype"] == "i32" and op in LONG_ONLY:
        body.append("idx = idx.long()")
    if op == "scatter":
        operand("src", sliced)
        body.append(f"out = t.scatter({dim}, idx, src)")
    elif op == "scatter_value":
        body.append(f"out = t.scatter({dim}, idx, {2.5 if floating else 7})")
    elif op == "scatter_add":
        operand("src", sliced)
        body.append(f"out = t.scatter_add({dim}, idx, src)")
    elif op.startswith("scatter_reduce_"):
        operand("src", sliced)
        reduce = op.removeprefix("scatter_reduce_")
        body.append(f"out = t.scatter_reduce({dim}, idx, src, reduce={reduce!r}, include_self={p['include_self']})")
    elif op == "gather":
        body.append(f"out = torch.gather(t, {dim}, idx)")
    elif op == "take_along_dim":
        body.append(f"out = torch.take_along_dim(t, idx, dim={dim})")
    elif op == "index_select":
        index("idx", [taken], along=0)
        body.append(f"out = torch.index_select(t, {dim}, idx)")
    elif op == "index_add":
        index("idx", [taken], along=0)
        operand("src", sliced)
        body.append(f"out = t.index_add({dim}, idx, src)")
    elif op in ("index_put", "index_put_acc"):
        accumulate = op == "index_put_acc"
        if dim == 0:  # t[rows] = v: whole rows
            index("idx", [taken], along=0)
            operand("v", [taken, COLS])
            body.append(f"out = t.index_put((idx,), v, accumulate={accumulate})")
        else:  # t[r, c] = v: single elements; r spans the rows, c the columns
            shapes["r"] = [taken]
            inputs.append(f"indices([{taken}], 0, {ROWS}, True, {negative}, {index_dtype}, seed=11)")
            index("idx", [taken], along=0)
            operand("v", [taken])
            body.append(f"out = t.index_put((r, idx), v, accumulate={accumulate})")
    elif op == "one_hot":  # the seed's MoE router: scores = sum_k one_hot(idx_k) * gate_k
        index("idx", [ROWS, taken], along=1)
        operand("gate", [ROWS, taken])
        body += ["hot = torch.nn.functional.one_hot(idx, t.shape[-1]).to(t.dtype)",
                 "out = t + (hot * gate.unsqueeze(-1)).sum(dim=1)"]
    else:
        raise ValueError(f"unknown op {op!r}")
    body.append("return out")

    dynamic = None
    if p["dims"] != "static":
        # dynamic: every dim of every input; mixed: the leading (token) dim of each.
        dynamic = {arg: {d: AUTO for d in (range(len(shape)) if p["dims"] == "dynamic" else [0])}
                   for arg, shape in shapes.items()}
    doc = (f"scatter sweep: {op} on a [{ROWS}, {COLS}] {dtype} tensor along dim {dim}, "
           f"{p['index_dtype']} indices ({'with' if not unique else 'no'} repeats"
           f"{', negative' if negative else ''}), {p['dims']} dims.")
    return Program(model_source(doc, list(shapes), body, inputs, dynamic, helpers=INDICES), dtype=dtype)

