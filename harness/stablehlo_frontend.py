"""The StableHLO path into IREE for a case's PyTorch program (`frontend = "stablehlo"`),
run inside a torch job like the iree-turbine import.

JAX, TensorFlow and torch-xla users reach IREE through StableHLO: a different input
conversion (stablehlo to linalg, IREE's own scatter and gather preprocessing) in front of
the same compiler. Here the program is exported with `torch.export` (static shapes, as
JAX programs are), decomposed to core ATen, and each ATen op is written as the StableHLO
ops TorchToStablehlo and JAX write for it. The golden stays PyTorch eager on the same
program. An op this table does not know is the frontend's failure (`export_stablehlo`
raises, naming it), never IREE's. The text itself is stablehlo_text.py's.
"""

from __future__ import annotations

from .stablehlo_text import Emitter, T, literal

FUNCTION = "main"


class UnsupportedOp(RuntimeError):
    """The emitter has no StableHLO for this ATen op (or these arguments of it)."""


def export_stablehlo(program) -> str:
    """The program (a loaded model.py: reference.load_program) as a StableHLO module
    whose function is @main; UnsupportedOp names the ATen op it cannot write."""
    import torch

    args = tuple(program.example_inputs())
    with torch.no_grad():
        exported = torch.export.export(program.Model().eval(), args).run_decompositions()
    return _Writer(exported).module()


class _Writer:
    def __init__(self, exported):
        self.ep = exported
        self.e = Emitter()
        self.values: dict[str, tuple[str, T]] = {}

    def module(self) -> str:
        signature = self.ep.graph_signature
        user_inputs = set(signature.user_inputs)
        constants = {**self.ep.constants, **dict(self.ep.named_buffers()), **dict(self.ep.named_parameters())}
        lifted = {**signature.inputs_to_lifted_tensor_constants, **signature.inputs_to_buffers,
                  **signature.inputs_to_parameters}
        params, outputs = [], []
        for node in self.ep.graph.nodes:
            if node.op == "placeholder":
                t = _type_of(node)
                if node.name in user_inputs:
                    name = f"%arg{len(params)}"
                    params.append(f"{name}: {t.mlir}")
                    self.values[node.name] = (name, t)
                elif node.name in lifted:
                    self.values[node.name] = self._tensor_constant(constants[lifted[node.name]], t)
                else:
                    raise UnsupportedOp(f"an input of kind {node.name!r} the StableHLO path does not take")
            elif node.op == "call_function":
                self.values[node.name] = self._call(node)
            elif node.op == "output":
                results = node.args[0]
                outputs = [self.values[r.name] for r in (results if isinstance(results, (list, tuple)) else [results])]
        ret = ", ".join(v for v, _ in outputs)
        types = ", ".join(t.mlir for _, t in outputs)
        body = "\n".join(self.e.lines)
        return (f"func.func @{FUNCTION}({', '.join(params)}) -> ({types}) {{\n{body}\n"
                f"    return {ret} : {types}\n}}\n")

    def _tensor_constant(self, tensor, t: T):
        values = tensor.detach().reshape(-1).tolist()
        if len(set(values)) == 1:
            return self.e.broadcast(self.e.constant(values[0], t.scalar), t.shape)
        flat = ", ".join(literal(v, t) for v in values)
        name, flat_t = self.e.op(f"stablehlo.constant dense<[{flat}]> : {t.of(shape=(len(values),)).mlir}",
                                 t.of(shape=(len(values),)))
        return self.e.reshape((name, flat_t), t.shape)

    def _arg(self, value, like: T):
        """An operand: a traced value, one made here ((name, type)), or a Python number as
        a tensor of `like`'s type."""
        if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], T):
            return value
        if hasattr(value, "name") and value.name in self.values:
            return self.values[value.name]
        return self.e.broadcast(self.e.constant(value, like.scalar), like.shape)

    def _call(self, node):
        target = node.target
        name = getattr(target, "__name__", str(target))  # e.g. "add.Tensor"
        op = name.split(".")[0]
        handler = getattr(self, f"_op_{op}", None)
        if handler is None:
            raise UnsupportedOp(f"the StableHLO path has no lowering for aten.{name}")
        result = handler(node, _type_of(node) if "val" in node.meta and not isinstance(node.meta["val"], (list, tuple))
                         else None, *node.args, **node.kwargs)
        return result

    # ----------------------------------------------------------------- elementwise
    def _binary(self, kind, node, out: T, a, b, alpha=1):
        common = _common_type(node, out)
        x = self.e.convert(self._arg(a, common), common.dtype)
        y = self.e.convert(self._arg(b, common), common.dtype)
        if alpha != 1:
            y = self.e.binary("multiply", y, self.e.broadcast(self.e.constant(alpha, y[1].scalar), y[1].shape))
        shape = out.shape
        x, y = self.e.broadcast(x, shape), self.e.broadcast(y, shape)
        return self.e.convert(self.e.binary(kind, x, y), out.dtype)

    def _op_add(self, node, out, a, b, alpha=1):
        return self._binary("add", node, out, a, b, alpha)

    def _op_sub(self, node, out, a, b, alpha=1):
        return self._binary("subtract", node, out, a, b, alpha)

    def _op_mul(self, node, out, a, b):
        return self._binary("multiply", node, out, a, b)

    def _op_div(self, node, out, a, b, rounding_mode=None):
        if rounding_mode not in (None, "floor") or (rounding_mode and not out.is_float):
            raise UnsupportedOp(f"aten.div with rounding_mode={rounding_mode!r} to {out.dtype}")
        common = out if out.is_float else out.of(dtype="float32")
        q = self._binary("divide", node, common, a, b)
        if rounding_mode == "floor":
            q = self.e.unary("floor", q)
        return q

    def _op_maximum(self, node, out, a, b):
        return self._binary("maximum", node, out, a, b)

    def _op_minimum(self, node, out, a, b):
        return self._binary("minimum", node, out, a, b)

    def _op_remainder(self, node, out, a, b):
        """Python's remainder (the sign of the divisor), from StableHLO's (the dividend's)."""
        x = self.e.broadcast(self.e.convert(self._arg(a, out), out.dtype), out.shape)
        y = self.e.broadcast(self.e.convert(self._arg(b, out), out.dtype), out.shape)
        r = self.e.binary("remainder", x, y)
        zero = self.e.broadcast(self.e.constant(0, out.scalar), out.shape)
        nonzero = self.e.compare("NE", r, zero)
        signs_differ = self.e.compare("NE", self.e.compare("LT", r, zero), self.e.compare("LT", y, zero))
        fix = self.e.binary("and", nonzero, signs_differ)
        return self.e.select(fix, self.e.binary("add", r, y), r)

    def _compare(self, direction, node, out, a, b):
        common = _common_type(node, None)
        x = self.e.broadcast(self.e.convert(self._arg(a, common), common.dtype), out.shape)
        y = self.e.broadcast(self.e.convert(self._arg(b, common), common.dtype), out.shape)
        return self.e.compare(direction, x, y)

    def _op_eq(self, node, out, a, b):
        return self._compare("EQ", node, out, a, b)

    def _op_ne(self, node, out, a, b):
        return self._compare("NE", node, out, a, b)

    def _op_lt(self, node, out, a, b):
        return self._compare("LT", node, out, a, b)

    def _op_le(self, node, out, a, b):
        return self._compare("LE", node, out, a, b)

    def _op_gt(self, node, out, a, b):
        return self._compare("GT", node, out, a, b)

    def _op_ge(self, node, out, a, b):
        return self._compare("GE", node, out, a, b)

    def _op_where(self, node, out, c, a, b):
        cond = self.e.broadcast(self._arg(c, out.of(dtype="bool")), out.shape)
        x = self.e.broadcast(self.e.convert(self._arg(a, out), out.dtype), out.shape)
        y = self.e.broadcast(self.e.convert(self._arg(b, out), out.dtype), out.shape)
        return self.e.select(cond, x, y)

    def _unary(self, kind, out, a):
        return self.e.unary(kind, self.e.convert(self._arg(a, out), out.dtype))

    def _op_neg(self, node, out, a):
        return self._unary("negate", out, a)

    def _op_exp(self, node, out, a):
        return self._unary("exponential", out, a)

    def _op_log(self, node, out, a):
        return self._unary("log", out, a)

    def _op_sqrt(self, node, out, a):
        return self._unary("sqrt", out, a)

    def _op_rsqrt(self, node, out, a):
        return self._unary("rsqrt", out, a)

    def _op_tanh(self, node, out, a):
        return self._unary("tanh", out, a)

    def _op_abs(self, node, out, a):
        return self._unary("abs", out, a)

    def _op_sigmoid(self, node, out, a):
        return self._unary("logistic", out, a)

    def _op__to_copy(self, node, out, a, **_):
        return self.e.convert(self._arg(a, out), out.dtype)

    def _op_clone(self, node, out, a, **_):
        return self._arg(a, out)

    _op_alias = _op_clone
    _op_lift_fresh_copy = _op_clone

    def _op__assert_tensor_metadata(self, node, out, *_, **__):
        """PyTorch export's check of a value's dtype and shape: no computation (nothing
        uses its result), and static shapes are checked by the types already."""
        return None

    # ------------------------------------------------------------ shape and layout
    def _op_view(self, node, out, a, *_):
        return self.e.reshape(self._arg(a, out), out.shape)

    _op__unsafe_view = _op_view
    _op_reshape = _op_view
    _op_unsqueeze = _op_view
    _op_squeeze = _op_view

    def _op_expand(self, node, out, a, *_, **__):
        return self.e.broadcast(self._arg(a, out), out.shape)

    def _op_permute(self, node, out, a, perm):
        rank = len(out.shape)
        return self.e.transpose(self._arg(a, out), [p % rank for p in perm])

    def _op_t(self, node, out, a):
        return self.e.transpose(self._arg(a, out), [1, 0] if len(out.shape) == 2 else [0])

    def _op_transpose(self, node, out, a, d0, d1):
        rank = len(out.shape)
        perm = list(range(rank))
        perm[d0 % rank], perm[d1 % rank] = perm[d1 % rank], perm[d0 % rank]
        return self.e.transpose(self._arg(a, out), perm)

    def _op_slice(self, node, out, a, dim=0, start=None, end=None, step=1):
        x = self._arg(a, out)
        shape = x[1].shape
        dim %= len(shape)
        start = 0 if start is None else (start + shape[dim] if start < 0 else min(start, shape[dim]))
        starts = [0] * len(shape)
        limits = list(shape)
        strides = [1] * len(shape)
        starts[dim], limits[dim], strides[dim] = start, start + (out.shape[dim] - 1) * step + 1, step
        return self.e.op(f'"stablehlo.slice"({x[0]}) {{start_indices = array<i64: {", ".join(map(str, starts))}>, '
                         f'limit_indices = array<i64: {", ".join(map(str, limits))}>, '
                         f'strides = array<i64: {", ".join(map(str, strides))}>}} : ({x[1].mlir}) -> {out.mlir}', out)

    def _op_cat(self, node, out, tensors, dim=0):
        parts = [self.e.convert(self._arg(t, out), out.dtype) for t in tensors]
        dim %= len(out.shape)
        operands = ", ".join(p[0] for p in parts)
        types = ", ".join(p[1].mlir for p in parts)
        return self.e.op(f'"stablehlo.concatenate"({operands}) {{dimension = {dim} : i64}} : ({types}) -> {out.mlir}',
                         out)

    # ------------------------------------------------------------------- creation
    def _op_arange(self, node, out, *args, **_):
        numbers = [a for a in args if isinstance(a, (int, float))]
        start, step = (numbers[0], numbers[2] if len(numbers) > 2 else 1) if len(numbers) >= 2 else (0, 1)
        v = self.e.iota(out, 0)
        if step != 1:
            v = self.e.binary("multiply", v, self.e.broadcast(self.e.constant(step, out.scalar), out.shape))
        if start != 0:
            v = self.e.binary("add", v, self.e.broadcast(self.e.constant(start, out.scalar), out.shape))
        return v

    def _op_full(self, node, out, size, value, **_):
        return self.e.broadcast(self.e.constant(value, out.scalar), out.shape)

    def _op_full_like(self, node, out, a, value, **_):
        return self.e.broadcast(self.e.constant(value, out.scalar), out.shape)

    def _op_zeros_like(self, node, out, a, **_):
        return self.e.broadcast(self.e.constant(0, out.scalar), out.shape)

    def _op_zeros(self, node, out, *_, **__):
        return self.e.broadcast(self.e.constant(0, out.scalar), out.shape)

    def _op_ones(self, node, out, *_, **__):
        return self.e.broadcast(self.e.constant(1, out.scalar), out.shape)

    def _op_scalar_tensor(self, node, out, value, **_):
        return self.e.constant(value, out)

    # ------------------------------------------------------------------ reductions
    def _reduce(self, out, a, dims, keepdim, kind, init, accumulated=False):
        """`accumulated`: the result in the dtype it was summed in (_accumulated), not out's."""
        x = self._arg(a, out)
        rank = len(x[1].shape)
        dims = sorted({d % rank for d in (dims if dims not in (None, []) else range(rank))})
        inner = _accumulated(out) if kind == "add" else out.dtype
        r = self.e.reduce(self.e.convert(x, inner), dims, kind, init(x[1].of(dtype=inner)))
        r = r if accumulated else self.e.convert(r, out.dtype)
        return self.e.reshape(r, out.shape) if keepdim else r

    def _op_sum(self, node, out, a, dims=None, keepdim=False, dtype=None):
        return self._reduce(out, a, dims, keepdim, "add", lambda t: 0)

    def _op_amax(self, node, out, a, dims=(), keepdim=False):
        return self._reduce(out, a, dims, keepdim, "maximum", _lowest)

    def _op_amin(self, node, out, a, dims=(), keepdim=False):
        return self._reduce(out, a, dims, keepdim, "minimum", _highest)

    def _op_mean(self, node, out, a, dims=None, keepdim=False, dtype=None):
        s = self._reduce(out, a, dims, keepdim, "add", lambda t: 0, accumulated=True)
        shape = self._arg(a, out)[1].shape
        rank = len(shape)
        count = 1
        for d in ({d % rank for d in dims} if dims else range(rank)):
            count *= shape[d]
        mean = self.e.binary("divide", s, self.e.broadcast(self.e.constant(count, s[1].scalar), s[1].shape))
        return self.e.convert(mean, out.dtype)

    def _op__softmax(self, node, out, a, dim, half_to_float):
        inner = out.of(dtype=_accumulated(out))  # PyTorch computes an f16 softmax in f32
        x = self.e.convert(self._arg(a, out), inner.dtype)
        rank = len(out.shape)
        dim %= rank
        keep = [d for d in range(rank) if d != dim]
        m = self.e.broadcast_dims(self.e.reduce(x, [dim], "maximum", _lowest(inner)), out.shape, keep)
        ex = self.e.unary("exponential", self.e.binary("subtract", x, m))
        s = self.e.broadcast_dims(self.e.reduce(ex, [dim], "add", 0), out.shape, keep)
        return self.e.convert(self.e.binary("divide", ex, s), out.dtype)

    # -------------------------------------------------------------- contractions
    def _dot(self, out, a, b, batch: int):
        inner = out.of(dtype=_accumulated(out))
        x = self.e.convert(self._arg(a, out), inner.dtype)
        y = self.e.convert(self._arg(b, out), inner.dtype)
        lb = rb = list(range(batch))
        product = self.e.op(f'"stablehlo.dot_general"({x[0]}, {y[0]}) {{dot_dimension_numbers = #stablehlo.dot<'
                            f"lhs_batching_dimensions = {lb}, rhs_batching_dimensions = {rb}, "
                            f"lhs_contracting_dimensions = [{batch + 1}], rhs_contracting_dimensions = [{batch}]>}} : "
                            f"({x[1].mlir}, {y[1].mlir}) -> {inner.mlir}", inner)
        return self.e.convert(product, out.dtype)

    def _op_mm(self, node, out, a, b):
        return self._dot(out, a, b, 0)

    def _op_bmm(self, node, out, a, b):
        return self._dot(out, a, b, 1)

    # ------------------------------------------------------------- sort and topk
    def _op_getitem(self, node, out, values, index):
        return self.values[values.name][index]

    def _op_sort(self, node, out, a, dim=-1, descending=False, stable=False):
        if isinstance(dim, bool):  # sort.stable(self, stable, dim, descending) positionally
            stable, dim = dim, -1
        x = self._arg(a, _type_of(a))
        t = x[1]
        dim %= len(t.shape)
        idx = self.e.iota(t.of(dtype="int64"), dim)
        s, i = t.scalar.mlir, "tensor<i64>"
        p = [self.e.new() for _ in range(4)]
        body = (f"^bb0({p[0]}: {s}, {p[1]}: {s}, {p[2]}: {i}, {p[3]}: {i}):\n"
                f"      %r = stablehlo.compare {'GT' if descending else 'LT'}, {p[0]}, {p[1]}, {t.compare_type} : "
                f"({s}, {s}) -> tensor<i1>\n      stablehlo.return %r : tensor<i1>")
        name = self.e.new()
        self.e.lines.append(f'    {name}:2 = "stablehlo.sort"({x[0]}, {idx[0]}) ({{\n    {body}\n    }}) '
                            f"{{dimension = {dim} : i64, is_stable = true}} : ({t.mlir}, {idx[1].mlir}) -> "
                            f"({t.mlir}, {idx[1].mlir})")
        return (f"{name}#0", t), (f"{name}#1", idx[1])

    def _op_topk(self, node, out, a, k, dim=-1, largest=True, sorted=True):
        x = self._arg(a, _type_of(a))
        rank = len(x[1].shape)
        dim %= rank
        perm = [d for d in range(rank) if d != dim] + [dim]  # chlo.top_k takes the last dim
        x = self.e.transpose(x, perm)
        if not largest:
            x = self.e.unary("negate", x)
        t = x[1]
        values_t = t.of(shape=(*t.shape[:-1], k))
        name = self.e.new()
        self.e.lines.append(f'    {name}:2 = "chlo.top_k"({x[0]}) {{k = {k} : i64}} : ({t.mlir}) -> '
                            f"({values_t.mlir}, {values_t.of(dtype='int32').mlir})")
        values, indices = (f"{name}#0", values_t), (f"{name}#1", values_t.of(dtype="int32"))
        if not largest:
            values = self.e.unary("negate", values)
        back = [perm.index(d) for d in range(rank)]
        return self.e.transpose(values, back), self.e.transpose(self.e.convert(indices, "int64"), back)

    # ------------------------------------------------------------ gather, scatter
    def _op_index_select(self, node, out, a, dim, index):
        x = self._arg(a, out)
        rank = len(x[1].shape)
        dim %= rank
        idx = self.e.reshape(self.e.convert(self._arg(index, out), "int64"), (out.shape[dim], 1))
        sizes = [1 if d == dim else n for d, n in enumerate(x[1].shape)]
        return self.e.gather(x, idx, {"offset_dims": [d for d in range(rank) if d != dim],
                                      "collapsed_slice_dims": [dim], "start_index_map": [dim],
                                      "index_vector_dim": 1}, sizes, out)

    def _op_gather(self, node, out, a, dim, index, sparse_grad=False):
        x = self._arg(a, _type_of(a))
        rank = len(x[1].shape)
        coords = self._full_coordinates(index, dim % rank, out.shape)
        every = list(range(rank))
        return self.e.gather(x, coords, {"offset_dims": [], "collapsed_slice_dims": every, "start_index_map": every,
                                         "index_vector_dim": rank}, [1] * rank, out)

    def _full_coordinates(self, index, dim: int, shape):
        """[*shape, rank] indices: `index` along dim, each position's own elsewhere."""
        rank = len(shape)
        parts = []
        for d in range(rank):
            t = T(tuple(shape), "int64")
            part = self.e.convert(self._arg(index, t), "int64") if d == dim else self.e.iota(t, d)
            parts.append(self.e.reshape(part, (*shape, 1)))
        types = ", ".join(p[1].mlir for p in parts)
        out = T((*shape, rank), "int64")
        return self.e.op(f'"stablehlo.concatenate"({", ".join(p[0] for p in parts)}) {{dimension = {rank} : i64}} : '
                         f"({types}) -> {out.mlir}", out)

    def _elementwise_scatter(self, out, a, dim, index, src, combine):
        x = self.e.convert(self._arg(a, out), out.dtype)
        rank = len(out.shape)
        dim %= rank
        index_t = _type_of(index)
        updates = self.e.convert(self._arg(src, out), out.dtype)
        if updates[1].shape != index_t.shape:
            raise UnsupportedOp("a scatter whose index and source shapes differ")
        coords = self._full_coordinates(index, dim, index_t.shape)
        return self.e.scatter(x, coords, updates, {"update_window_dims": [], "inserted_window_dims": list(range(rank)),
                                                   "scatter_dims_to_operand_dims": list(range(rank)),
                                                   "index_vector_dim": rank}, combine)

    def _op_scatter_add(self, node, out, a, dim, index, src):
        return self._elementwise_scatter(out, a, dim, index, src, "add")

    def _op_scatter(self, node, out, a, dim, index, src, reduce=None):
        if not hasattr(src, "name"):  # scatter.value: one value everywhere the index points
            src = self.e.broadcast(self.e.constant(src, out.scalar), _type_of(index).shape)
        combine = {None: None, "add": "add", "multiply": "multiply"}.get(reduce, "?")
        if combine == "?":
            raise UnsupportedOp(f"aten.scatter with reduce={reduce!r}")
        return self._elementwise_scatter(out, a, dim, index, src, combine)

    def _op_scatter_reduce(self, node, out, a, dim, index, src, reduce, include_self=True):
        combine = {"sum": "add", "prod": "multiply", "amax": "maximum", "amin": "minimum"}.get(reduce)
        if combine is None or not include_self:
            raise UnsupportedOp(f"aten.scatter_reduce with reduce={reduce!r}, include_self={include_self}")
        return self._elementwise_scatter(out, a, dim, index, src, combine)

    def _op_index_put(self, node, out, a, indices, values, accumulate=False):
        if len(indices) != 1 or indices[0] is None:
            raise UnsupportedOp("aten.index_put with other than one index tensor, on dim 0")
        x = self.e.convert(self._arg(a, out), out.dtype)
        rows = _type_of(indices[0])
        if len(rows.shape) != 1:
            raise UnsupportedOp("aten.index_put with an index tensor of rank other than 1")
        idx = self.e.reshape(self.e.convert(self._arg(indices[0], rows), "int64"), (rows.shape[0], 1))
        shape = (rows.shape[0], *out.shape[1:])
        updates = self.e.broadcast(self.e.convert(self._arg(values, out), out.dtype), shape)
        rank = len(out.shape)
        return self.e.scatter(x, idx, updates, {"update_window_dims": list(range(1, rank)),
                                                "inserted_window_dims": [0], "scatter_dims_to_operand_dims": [0],
                                                "index_vector_dim": 1}, "add" if accumulate else None)


def _type_of(node) -> T:
    val = node.meta["val"]
    return T(tuple(int(d) for d in val.shape), str(val.dtype).removeprefix("torch."))


def _common_type(node, out: T | None) -> T:
    """The dtype both operands are computed in (torch's promotion, as the traced result
    of an arithmetic op says; for a comparison, its operands')."""
    if out is not None:
        return out
    import torch

    vals = [a.meta["val"] for a in node.args if hasattr(a, "meta") and "val" in a.meta]
    scalars = [a for a in node.args if isinstance(a, (int, float, bool))]
    dtype = torch.result_type(*(vals + scalars)) if len(vals + scalars) >= 2 else vals[0].dtype
    return T(tuple(vals[0].shape), str(dtype).removeprefix("torch."))


def _accumulated(t: T) -> str:
    """The dtype PyTorch's CPU kernels sum and contract a `t` in: f32 for f16 and bf16
    (rounded once at the end), else its own. Written so, the program is the one PyTorch
    eager computes; a StableHLO producer that sums in f16 would be another program."""
    return "float32" if t.dtype in ("float16", "bfloat16") else t.dtype


def _lowest(t: T):
    if t.is_float:
        return float("-inf")
    if t.dtype == "bool":
        return 0
    return -(1 << (int(_bits(t.dtype)) - 1)) if not t.dtype.startswith("uint") else 0


def _highest(t: T):
    if t.is_float:
        return float("inf")
    if t.dtype == "bool":
        return 1
    bits = int(_bits(t.dtype))
    return (1 << bits) - 1 if t.dtype.startswith("uint") else (1 << (bits - 1)) - 1


def _bits(dtype: str) -> str:
    return "".join(ch for ch in dtype if ch.isdigit()) or "8"
