"""Builder of the topk/sort sweep (sweeps/topk.toml): one point -> one model.py.

The sorted dim holds N = 10 elements of a rank-3 input; `dim` says where it sits.
Inputs hit ties, +-inf, +-0 and integer extremes (program.values); bf16 is carried as
f32 and cast inside the program, since numpy holds no bf16.
"""

from harness.sweep.program import FLOATS, Program, model_source, values_call

N = 10
SHAPES = {"first": [N, 4, 6], "middle": [4, N, 6], "last": [4, 6, N]}
DIMS = {"first": 0, "middle": 1, "last": -1}
KS = {"1": 1, "3": 3, "n-1": N - 1, "n": N}


def build(p: dict) -> Program:
    dtype, dim, op = p["dtype"], DIMS[p["dim"]], p["op"]
    shape = SHAPES[p["dim"]]
    axis = dim % 3
    body = ["x = x.to(torch.bfloat16)"] if dtype == "bf16" else []
    if p["source"] == "slice":  # the seeds' form (#20699): topk over a slice of the input
        body.append(f"x = x.narrow({dim}, 0, {N - 2})")
    largest = p["largest"]
    if op == "topk":
        k = min(KS[p["k"]], N - 2) if p["source"] == "slice" else KS[p["k"]]
        body.append(f"values, indices = torch.topk(x, {k}, dim={dim}, largest={largest}, sorted=True)")
    else:
        # Passing stable at all picks the aten *.stable overload, a program of its own.
        stable = ", stable=True" if p["stable"] else ""
        if op == "sort":
            body.append(f"values, indices = torch.sort(x, dim={dim}, descending={largest}{stable})")
        else:
            body.append(f"indices = torch.argsort(x, dim={dim}, descending={largest}{stable})")
            body.append(f"values = torch.gather(x, {dim}, indices)")
    after = p["after"]
    if after == "slice":
        body.append(f"values, indices = values.narrow({dim}, 0, 1), indices.narrow({dim}, 0, 1)")
    elif after == "sigmoid":  # topk -> sigmoid, the #20699 model's head
        body.append("values = torch.sigmoid(values if values.is_floating_point() else values.float())")
    elif after == "gather":
        body.append(f"values = torch.gather(x, {dim}, indices)")
    if dtype == "bf16":
        body.append("values = values.float()")
    body.append("return values, indices")

    dynamic = None
    if p["dims"] != "static":
        # mixed: the batch dims are dynamic and the sorted one static (#21014's [?, 8]).
        dims = range(3) if p["dims"] == "dynamic" else [d for d in range(3) if d != axis]
        dynamic = {"x": {d: ("n" if d == axis else f"b{d}") for d in dims}}
    inputs = [values_call(shape, dtype, 0, p["values"])]
    doc = (f"topk sweep: {op} of a {shape} {dtype} input along dim {dim} ({p['values']} values, "
           f"{p['dims']} dims, source {p['source']}, then {after}).")
    out_dtype = dtype if (after != "sigmoid" or dtype in FLOATS) else "f32"
    return Program(model_source(doc, ["x"], body, inputs, dynamic, mins={"n": N}),
                   dtype=out_dtype,
                   outputs=({"index": 1, "mode": "indices", "input": 0, "axis": dim},))
