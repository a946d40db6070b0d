"""Builder of the transpose sweep (sweeps/transpose.toml): one point -> one model.py.

A rank-2..4 input is permuted (`perm` spells the permutation, "021" = permute(0, 2, 1)),
optionally reshaped (`between`), and fed to one consumer: the places where IREE's
transpose propagation moves or fuses a transpose. Sizes are distinct, so a dim taken for
another shows as a wrong shape or wrong numbers, and even, so a split has whole halves.
Dynamic dims are left to export (Dim.AUTO), which relates the inputs' dims as the program
relates them.
"""

from harness.sweep.program import AUTO, FLOATS, Program, model_source, values_call

SIZES = (6, 4, 10, 8)

INDICES = '''
def indices(shape, high, seed):
    """Seeded indices in [0, high) that include both ends of the range."""
    g = torch.Generator().manual_seed(seed)
    out = torch.randint(0, high, shape, generator=g)
    out.view(-1)[0], out.view(-1)[-1] = 0, high - 1
    return out
'''


def build(p: dict) -> Program:
    perm = [int(c) for c in p["perm"]]
    dtype, consumer, between = p["dtype"], p["consumer"], p["between"]
    shape = list(SIZES[: len(perm)])
    body = [f"y = x.permute({', '.join(map(str, perm))})"]
    u = [shape[i] for i in perm]  # the consumer's input shape, followed below
    if between == "collapse":  # tensor.collapse_shape of the two leading dims
        body.append("y = y.flatten(0, 1)")
        u = [u[0] * u[1]] + u[2:]
    elif between == "expand":  # tensor.expand_shape adding a unit dim
        body.append("y = y.unsqueeze(1)")
        u = [u[0], 1] + u[1:]
    elif between == "split":  # tensor.expand_shape splitting the leading dim
        body.append("y = y.unflatten(0, (2, -1))")
        u = [2, u[0] // 2] + u[1:]

    ranks = {"x": len(shape)}  # argument -> rank
    inputs = [values_call(shape, dtype, 0)]

    def operand(name, operand_shape):
        ranks[name] = len(operand_shape)
        inputs.append(values_call(operand_shape, dtype, len(ranks)))

    floating = dtype in FLOATS
    if consumer == "matmul_lhs":
        operand("w", [u[-1], 5])
        body.append("out = torch.matmul(y, w)")
    elif consumer == "matmul_rhs":
        operand("w", [5, u[-2]])
        body.append("out = torch.matmul(w, y)")
    elif consumer == "bmm":
        batch = 1
        for size in u[:-2]:
            batch *= size
        body.append("y = y.reshape(-1, y.shape[-2], y.shape[-1])")
        operand("w", [batch, u[-1], 5])
        body.append("out = torch.bmm(y, w)")
    elif consumer == "unary":
        body.append("out = torch.sigmoid(y)" if floating else "out = torch.abs(y) * 3 - 1")
    elif consumer == "elementwise":  # a transposed operand beside a plain and a broadcast one
        operand("c", u)
        operand("b", [u[-1]])
        body.append("out = y * b + c")
    elif consumer == "reduce":
        body.append("out = (y.sum(dim=-1), y.amax(dim=0))")
    elif consumer == "gather":  # reads its input at computed indices
        ranks["idx"] = len(u)
        inputs.append(f"indices({u}, {u[-1]}, seed=7)")
        body.append("out = torch.gather(y, -1, idx)")
    elif consumer == "arange_mask":  # values depend on positions (linalg.index)
        body += ["rows = torch.arange(y.shape[-2]).unsqueeze(-1)",
                 "cols = torch.arange(y.shape[-1])",
                 "out = torch.where(cols <= rows, y, -y) + (rows - cols).to(y.dtype)"]
    else:
        raise ValueError(f"unknown consumer {consumer!r}")
    body.append("return out")

    dynamic = None
    if p["dims"] != "static":
        # dynamic: every dim of every input; mixed: x's even dims, and what follows them.
        x_dims = range(len(shape)) if p["dims"] == "dynamic" else range(0, len(shape), 2)
        dynamic = {arg: {d: AUTO for d in (x_dims if arg == "x" else range(rank))}
                   for arg, rank in ranks.items()}
    doc = (f"transpose sweep: permute{tuple(perm)} of a {shape} {dtype} input, {between} between, "
           f"into {consumer} ({p['dims']} dims).")
    return Program(model_source(doc, list(ranks), body, inputs, dynamic, helpers=INDICES), dtype=dtype)

