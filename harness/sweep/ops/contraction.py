"""Contractions: matmul (operands transposed as users write them), bmm, linear, einsum,
conv1d / conv2d (plain, depthwise, grouped). Floats, and integer matmuls as users write
them (i32 / i64: torch-mlir lowers them to an accumulate in i64)."""

from . import FLOATS, T, Made, op

CONTRACTS = (*FLOATS, "i32", "i64")


@op("matmul", "contraction", "rank 2-4, floats or i32 / i64: by a fresh weight [k, 5]",
    lambda a: 2 <= a.rank <= 4 and a.dtype in CONTRACTS)
def _matmul(rng, a: T) -> Made:
    w = T((a.shape[-1], 5), a.dtype)
    return Made(a.with_(shape=[*a.shape[:-1], 5]), "torch.matmul({a}, {w0})", "matmul(x,w)", fresh=(w,))


@op("matmul_transposed", "contraction", "rank 2-3, floats or i32 / i64: x^T @ w or x @ w^T (a transposed operand)",
    lambda a: 2 <= a.rank <= 3 and a.dtype in CONTRACTS)
def _matmul_t(rng, a: T) -> Made:
    if rng.random() < 0.5:  # x^T @ w: contract over x's second-to-last dim
        w = T((a.shape[-2], 5), a.dtype)
        return Made(a.with_(shape=[*a.shape[:-2], a.shape[-1], 5]), "torch.matmul({a}.transpose(-1, -2), {w0})",
                    "matmul(x^T,w)", fresh=(w,))
    w = T((5, a.shape[-1]), a.dtype)
    return Made(a.with_(shape=[*a.shape[:-1], 5]), "torch.matmul({a}, {w0}.t())", "matmul(x,w^T)", fresh=(w,))


@op("self_matmul", "contraction", "rank 2-3 f32: x @ x^T (a value used twice; f16 would overflow)",
    lambda a: 2 <= a.rank <= 3 and a.dtype == "f32")
def _self(rng, a: T) -> Made:
    return Made(a.with_(shape=[*a.shape[:-1], a.shape[-2]]), "torch.matmul({a}, {a}.transpose(-1, -2))", "x@x^T")


@op("bmm", "contraction", "rank 3 floats or i32 / i64: batched by a fresh [b, k, 4]",
    lambda a: a.rank == 3 and a.dtype in CONTRACTS)
def _bmm(rng, a: T) -> Made:
    w = T((a.shape[0], a.shape[2], 4), a.dtype)
    return Made(a.with_(shape=[a.shape[0], a.shape[1], 4]), "torch.bmm({a}, {w0})", "bmm", fresh=(w,))


@op("linear", "contraction", "rank 1-4 floats: a fresh [6, k] weight and bias",
    lambda a: 1 <= a.rank <= 4 and a.dtype in FLOATS)
def _linear(rng, a: T) -> Made:
    w, b = T((6, a.shape[-1]), a.dtype), T((6,), a.dtype)
    return Made(a.with_(shape=[*a.shape[:-1], 6]), "torch.nn.functional.linear({a}, {w0}, {w1})", "linear(6)",
                fresh=(w, b))


@op("einsum", "contraction", "rank 3 floats: 'bij,bkj->bik' against a fresh [b, 3, j]",
    lambda a: a.rank == 3 and a.dtype in FLOATS)
def _einsum(rng, a: T) -> Made:
    w = T((a.shape[0], 3, a.shape[2]), a.dtype)
    return Made(a.with_(shape=[a.shape[0], a.shape[1], 3]), "torch.einsum('bij,bkj->bik', {a}, {w0})",
                "einsum(bij,bkj->bik)", fresh=(w,))


@op("conv1d", "contraction", "rank 3 f32 [n, c, l], l >= 3: plain or depthwise (groups = c)",
    lambda a: a.rank == 3 and a.dtype == "f32" and a.shape[2] >= 3, weight=2.0)
def _conv1d(rng, a: T) -> Made:
    c = a.shape[1]
    depthwise = rng.random() < 0.5
    w = T((c, 1, 3), "f32") if depthwise else T((4, c, 3), "f32")
    out_c = c if depthwise else 4
    groups = c if depthwise else 1
    return Made(a.with_(shape=[a.shape[0], out_c, a.shape[2] - 2]),
                f"torch.nn.functional.conv1d({{a}}, {{w0}}, groups={groups})",
                "conv1d(depthwise)" if depthwise else "conv1d(4)", fresh=(w,))


@op("conv2d", "contraction", "rank 4 f32 [n, c, h, w], h, w >= 3: plain, depthwise, or grouped (2 groups, even c)",
    lambda a: a.rank == 4 and a.dtype == "f32" and a.shape[2] >= 3 and a.shape[3] >= 3, weight=6.0)
def _conv2d(rng, a: T) -> Made:
    c = a.shape[1]
    kind = rng.choice(("plain", "depthwise", "grouped") if c % 2 == 0 else ("plain", "depthwise"))
    groups = {"plain": 1, "depthwise": c, "grouped": 2}[kind]
    out_c = {"plain": 4, "depthwise": c, "grouped": 4}[kind]
    w = T((out_c, c // groups, 3, 3), "f32")
    return Made(a.with_(shape=[a.shape[0], out_c, a.shape[2] - 2, a.shape[3] - 2]),
                f"torch.nn.functional.conv2d({{a}}, {{w0}}, groups={groups})", f"conv2d({kind})", fresh=(w,))


@op("conv_transpose", "contraction", "rank 3 or 4 f32 [n, c, ...], spatial >= 2: conv_transpose1d / 2d with a bias, "
    "plain or grouped (2 groups, even c), stride 1 or 2, padding 0 or 1",
    lambda a: a.rank in (3, 4) and a.dtype == "f32" and min(a.shape[2:]) >= 2, weight=4.0, edition=2)
def _conv_transpose(rng, a: T) -> Made:
    c, spatial = a.shape[1], a.rank - 2
    groups = rng.choice((1, 2)) if c % 2 == 0 else 1
    out_c = 6 if groups == 2 else 4
    stride, pad = rng.choice((1, 2)), rng.choice((0, 1))
    w, b = T((c, out_c // groups, *(3,) * spatial), "f32"), T((out_c,), "f32")
    shape = [a.shape[0], out_c, *((x - 1) * stride - 2 * pad + 3 for x in a.shape[2:])]
    return Made(a.with_(shape=shape), f"torch.nn.functional.conv_transpose{spatial}d({{a}}, {{w0}}, {{w1}}, "
                f"stride={stride}, padding={pad}, groups={groups})",
                f"conv_transpose{spatial}d(groups={groups},stride={stride},pad={pad})", fresh=(w, b))


@op("expert_gather", "contraction", "rank 2 floats [n, k]: each row by the weight of its expert, gathered "
    "from a fresh [4, k, 5] table by (row mod 4) (a mixture of experts' per-token weights)",
    lambda a: a.rank == 2 and a.dtype in FLOATS, edition=3, weight=2.0)
def _expert_gather(rng, a: T) -> Made:
    table = T((4, a.shape[1], 5), a.dtype)
    return Made(a.with_(shape=[a.shape[0], 5]),
                "torch.einsum('nk,nko->no', {a}, {w0}[torch.arange({a}.shape[0]) % 4])", "expert_gather(4 experts)",
                fresh=(table,))
