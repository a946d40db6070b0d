"""The StableHLO path into IREE, written by JAX (`frontend = "stablehlo"`), run inside a
torch job like the iree-turbine import.

JAX, TensorFlow and torch-xla users reach IREE through StableHLO: a different input
conversion (stablehlo to linalg, IREE's scatter and gather preprocessing) in front of the
same compiler. Here a case's PyTorch program is exported with `torch.export` (static
shapes, as JAX programs are) and decomposed to core ATen; each ATen op is then one call
of jax.numpy / lax (the table below), and the StableHLO is what `jax.jit(f).lower(...)`
emits for the whole function: JAX's own lowering, scatter dimension numbers, sort
comparators, f16 sums accumulated in f32 and all, as a JAX user's program gets it.

Two references: PyTorch eager (the golden, as for every frontend) and XLA on the CPU
running the same JAX function on the same inputs (`write_import`: one trace makes both
the text and those outputs); the compare stage says when the two disagree (a reference
problem, never IREE's verdict).

An ATen op the table lacks is the frontend's failure (UnsupportedOp names it), never
IREE's. Every result is cast to the dtype the export recorded for it, so PyTorch's type
promotion holds whatever JAX's would have been; a result of another shape than the
recorded one is the table's mistake, refused the same way.
"""

from __future__ import annotations

import functools

import numpy as np

FUNCTION = "main"


class UnsupportedOp(RuntimeError):
    """No jax.numpy / lax call for this ATen op (or these arguments of it)."""


def _jax():
    import jax

    jax.config.update("jax_enable_x64", True)  # i64 and f64 stay themselves, as in PyTorch
    return jax


def traced(program):
    """(the program as a JAX function of numpy-typed inputs, the example inputs)."""
    import torch

    args = tuple(program.example_inputs())
    with torch.no_grad():
        exported = torch.export.export(program.Model().eval(), args).run_decompositions()
    return _Interpreter(exported).function, [a.detach().numpy() if hasattr(a, "detach") else np.asarray(a)
                                            for a in args]


def export_stablehlo(program) -> str:
    """The program as JAX writes it: a StableHLO module whose public function is @main."""
    function, args = traced(program)
    return _lowered(function, args)


def _lowered(function, args) -> str:
    jax = _jax()
    specs = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in args]
    text = jax.jit(function).lower(*specs).as_text()
    if f"func.func public @{FUNCTION}(" not in text:
        raise UnsupportedOp(f"JAX wrote no public @{FUNCTION} function")
    return text


def _xla(function, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """What XLA on the CPU computes for the function on `inputs`."""
    jax = _jax()
    with jax.default_device(jax.devices("cpu")[0]):
        outputs = jax.jit(function)(*inputs)
    return [np.asarray(o) for o in (outputs if isinstance(outputs, (list, tuple)) else [outputs])]


def write_import(program_path, out, inputs: list[np.ndarray]) -> None:
    """The torch job's StableHLO import, from one trace of the program: out/model.mlir as
    JAX writes it, and the second reference beside the eager outputs, XLA's xla<i>.npy on
    `inputs` (the compare stage says when the two references disagree)."""
    from .reference import load_program, save_arrays

    function, args = traced(load_program(program_path))
    (out / "model.mlir").write_text(_lowered(function, args))
    save_arrays(out, "xla", _xla(function, inputs))


class _Interpreter:
    def __init__(self, exported):
        self.ep = exported

    def function(self, *user_args):
        import torch

        jnp = _jax().numpy
        signature = self.ep.graph_signature
        user_inputs = list(signature.user_inputs)
        lifted = {**signature.inputs_to_lifted_tensor_constants, **signature.inputs_to_buffers,
                  **signature.inputs_to_parameters}
        constants = {**self.ep.constants, **dict(self.ep.named_buffers()), **dict(self.ep.named_parameters())}
        env = {}
        for node in self.ep.graph.nodes:
            if node.op == "placeholder":
                if node.name in user_inputs:
                    env[node.name] = user_args[user_inputs.index(node.name)]
                elif node.name in lifted:
                    env[node.name] = jnp.asarray(constants[lifted[node.name]].detach().numpy())
                else:
                    raise UnsupportedOp(f"an input of kind {node.name!r} the StableHLO path does not take")
            elif node.op == "call_function":
                env[node.name] = self._call(node, env, torch)
            elif node.op == "output":
                results = node.args[0]
                results = results if isinstance(results, (list, tuple)) else [results]
                return tuple(env[r.name] for r in results)
        raise UnsupportedOp("the exported graph has no output")

    def _call(self, node, env, torch):
        name = getattr(node.target, "__name__", str(node.target))  # e.g. "add.Tensor"
        op = name.split(".")[0]
        if op == "getitem":
            return env[node.args[0].name][node.args[1]]
        handler = OPS().get(op)
        if handler is None:
            raise UnsupportedOp(f"the StableHLO path has no lowering for aten.{name}")

        def value(a):
            if hasattr(a, "name") and hasattr(a, "op"):
                return env[a.name]
            if isinstance(a, (list, tuple)):
                return type(a)(value(x) for x in a)
            return a

        args = [value(a) for a in node.args]
        kwargs = {k: value(v) for k, v in node.kwargs.items()}
        meta = node.meta.get("val")
        try:
            return _as_recorded(handler(Call(node, meta, torch), *args, **kwargs), meta)
        except UnsupportedOp as e:
            raise UnsupportedOp(f"aten.{name}: {e}") from None
        except (TypeError, ValueError) as e:
            raise UnsupportedOp(f"aten.{name}: {e}") from None


class Call:
    """What a handler knows of its node besides the operands: the recorded result type,
    and PyTorch's promotion of the operands."""

    def __init__(self, node, meta, torch):
        self.node, self.meta, self.torch = node, meta, torch

    @property
    def dtype(self):
        return _np_dtype(self.meta.dtype)

    @property
    def shape(self):
        return tuple(int(d) for d in self.meta.shape)

    def common(self):
        """PyTorch's result type of the operands (a compare computes in it, not in bool)."""
        torch = self.torch
        metas = [a.meta["val"] if hasattr(a, "meta") else a for a in self.node.args
                 if hasattr(a, "meta") or isinstance(a, (int, float, bool))]
        common = metas[0] if len(metas) == 1 and hasattr(metas[0], "dtype") else torch.result_type(*metas[:2])
        return _np_dtype(common.dtype if hasattr(common, "dtype") else common)


def _np_dtype(torch_dtype):
    import ml_dtypes

    name = str(torch_dtype).replace("torch.", "")
    return {"bfloat16": ml_dtypes.bfloat16, "bool": np.bool_}.get(name) or np.dtype(name)


def _as_recorded(result, meta):
    """The result with the dtype the export recorded (PyTorch's promotion, not JAX's)."""
    if result is None:  # a result the table does not make (max_pool2d's indices): never read
        return None
    if meta is None or isinstance(result, (tuple, list)):
        if isinstance(result, (tuple, list)) and isinstance(meta, (tuple, list)):
            return tuple(_as_recorded(r, m) for r, m in zip(result, meta))
        return result
    if not hasattr(meta, "dtype"):
        return result
    jnp = _jax().numpy
    result = jnp.asarray(result)
    want = _np_dtype(meta.dtype)
    if result.dtype != want:
        result = result.astype(want)
    shape = tuple(int(d) for d in meta.shape)
    if tuple(result.shape) != shape:  # the table's mistake, never hidden by a reshape
        raise UnsupportedOp(f"gave shape {list(result.shape)} where the export recorded {list(shape)}")
    return result


# ------------------------------------------------------------------ the ATen table

def _jnp():
    return _jax().numpy


def _lax():
    return _jax().lax


def _in(c: Call, *xs):
    """Operands in the operands' common dtype (PyTorch's promotion)."""
    jnp = _jnp()
    dtype = c.common()
    return [jnp.asarray(x, dtype=dtype) if not hasattr(x, "dtype") else x.astype(dtype) for x in xs]


def _binary(f):
    def handler(c, a, b, alpha=1, **_):
        a, b = _in(c, a, b)
        return f(a, b * alpha if alpha != 1 else b)
    return handler


def _div(c, a, b, rounding_mode=None):
    jnp = _jnp()
    a, b = _in(c, a, b)
    if rounding_mode is None:
        dtype = c.dtype
        return jnp.true_divide(a.astype(dtype), b.astype(dtype))
    if rounding_mode == "floor":
        return jnp.floor_divide(a, b)
    if rounding_mode == "trunc":
        q = jnp.true_divide(a, b) if jnp.issubdtype(a.dtype, jnp.floating) else _lax().div(a, b)
        return jnp.trunc(q) if jnp.issubdtype(a.dtype, jnp.floating) else q
    raise UnsupportedOp(f"aten.div with rounding_mode={rounding_mode!r}")


def _remainder(c, a, b):
    a, b = _in(c, a, b)
    return _jnp().remainder(a, b)  # the sign of the divisor, as PyTorch and Python


def _compare(f):
    def handler(c, a, b):
        a, b = _in(c, a, b)
        return f(a, b)
    return handler


def _unary(f):
    return lambda c, a, *_, **__: f(a)


def _reduce(f):
    def handler(c, a, dims=None, keepdim=False, dtype=None, **_):
        axis = None if dims is None or (isinstance(dims, (list, tuple)) and not dims) else \
            tuple(dims) if isinstance(dims, (list, tuple)) else dims
        if dtype is not None:
            a = a.astype(_np_dtype(dtype))
        return f(a, axis=axis, keepdims=keepdim)
    return handler


def _sum(c, a, dims=None, keepdim=False, dtype=None):
    # In the result's dtype (an integer sum in i64, as PyTorch); JAX accumulates f16 in f32.
    return _reduce(_jnp().sum)(c, a.astype(c.dtype), dims, keepdim)


def _accumulator(dtype):
    """What a contraction accumulates in, stated in the program: PyTorch accumulates f16
    and bf16 contractions in f32 and rounds once, while an f16 dot_general without a
    preferred type leaves the accumulator to the compiler (IREE's cpu target accumulates
    in f16 on some host CPUs and in f32 on others: topk-stablehlo seed 0, 2 of 1,200
    values off by 0.03 on an AVX2 host). None keeps the operands' type."""
    jnp = _jnp()
    return jnp.float32 if dtype in (jnp.float16, jnp.bfloat16) else None


def _matmul(a, b):
    out = _jnp().matmul(a, b, preferred_element_type=_accumulator(a.dtype))
    return out.astype(a.dtype)


def _mean(c, a, dims=None, keepdim=False, dtype=None):
    return _reduce(_jnp().mean)(c, a, dims, keepdim, dtype)


def _slice(c, a, dim=0, start=None, end=None, step=1):
    n = a.shape[dim]
    start = 0 if start is None else max(min(start + n if start < 0 else start, n), 0)
    end = n if end is None else max(min(end + n if end < 0 else end, n), 0)
    index = [slice(None)] * a.ndim
    index[dim] = slice(start, end, step)
    return a[tuple(index)]


def _transpose(c, a, d0, d1):
    return _jnp().swapaxes(a, d0, d1)


def _arange(c, *args, **_):
    return _jnp().arange(*args, dtype=c.dtype)


def _full(c, size, value, **_):
    return _jnp().full(tuple(size), value, dtype=c.dtype)


def _sort(c, a, dim=-1, descending=False, stable=False):
    jnp = _jnp()
    if isinstance(dim, bool):  # sort.stable(self, stable, dim, descending) positionally
        stable, dim = dim, -1
    order = jnp.argsort(-a if descending and not jnp.issubdtype(a.dtype, jnp.bool_) else a, axis=dim, stable=True)
    return jnp.take_along_axis(a, order, axis=dim), order.astype(np.int64)


def _topk(c, a, k, dim=-1, largest=True, sorted=True):
    jnp, lax = _jnp(), _lax()
    x = jnp.moveaxis(a, dim, -1)
    values, indices = lax.top_k(x if largest else -x, k)
    values = values if largest else -values
    return jnp.moveaxis(values, -1, dim), jnp.moveaxis(indices.astype(np.int64), -1, dim)


def _coordinates(index, dim):
    """Each position's own coordinate, `index` along dim (a gather / scatter's full index)."""
    jnp = _jnp()
    grids = jnp.meshgrid(*[jnp.arange(n) for n in index.shape], indexing="ij")
    grids[dim] = index
    return tuple(grids)


def _scatter(c, a, dim, index, src, reduce=None):
    jnp = _jnp()
    src = jnp.broadcast_to(jnp.asarray(src, dtype=a.dtype), index.shape) if not hasattr(src, "shape") or \
        src.shape != index.shape else src[tuple(slice(0, n) for n in index.shape)]
    at = a.at[_coordinates(index, dim % a.ndim)]
    combine = {None: at.set, "add": at.add, "multiply": at.multiply}.get(reduce)
    if combine is None:
        raise UnsupportedOp(f"aten.scatter with reduce={reduce!r}")
    return combine(src.astype(a.dtype))


def _scatter_add(c, a, dim, index, src):
    return _scatter(c, a, dim, index, src[tuple(slice(0, n) for n in index.shape)], "add")


def _scatter_reduce(c, a, dim, index, src, reduce, include_self=True):
    jnp = _jnp()
    src = src[tuple(slice(0, n) for n in index.shape)].astype(a.dtype)
    coords = _coordinates(index, dim % a.ndim)
    if not include_self:
        if reduce not in ("amax", "amin", "sum"):
            raise UnsupportedOp(f"aten.scatter_reduce with reduce={reduce!r}, include_self=False")
        neutral = {"sum": 0, "amax": jnp.finfo(a.dtype).min if jnp.issubdtype(a.dtype, jnp.floating)
                   else jnp.iinfo(a.dtype).min, "amin": jnp.finfo(a.dtype).max
                   if jnp.issubdtype(a.dtype, jnp.floating) else jnp.iinfo(a.dtype).max}[reduce]
        touched = jnp.zeros(a.shape, bool).at[coords].set(True)
        base = jnp.where(touched, jnp.asarray(neutral, a.dtype), a)
    else:
        base = a
    at = base.at[coords]
    combine = {"sum": at.add, "prod": at.multiply, "amax": at.max, "amin": at.min}.get(reduce)
    if combine is None:
        raise UnsupportedOp(f"aten.scatter_reduce with reduce={reduce!r}")
    return combine(src)


def _index_put(c, a, indices, values, accumulate=False):
    index = tuple(slice(None) if i is None else i for i in indices)
    at = a.at[index]
    return (at.add if accumulate else at.set)(_jnp().asarray(values).astype(a.dtype))


def _index(c, a, indices):
    return a[tuple(slice(None) if i is None else i for i in indices)]


def _constant_pad_nd(c, a, pad, value=0):
    widths = [(0, 0)] * a.ndim
    for i in range(len(pad) // 2):
        widths[a.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    if any(lo < 0 or hi < 0 for lo, hi in widths):
        return _lax().pad(a, _jnp().asarray(value, a.dtype), [(lo, hi, 0) for lo, hi in widths])
    return _jnp().pad(a, widths, constant_values=value)


def _convolution(c, x, w, bias, stride, padding, dilation, transposed, output_padding, groups):
    lax = _lax()
    if transposed:
        raise UnsupportedOp("aten.convolution with transposed=True")
    spatial = x.ndim - 2
    names = {1: ("NCH", "OIH", "NCH"), 2: ("NCHW", "OIHW", "NCHW"), 3: ("NCDHW", "OIDHW", "NCDHW")}.get(spatial)
    if names is None:
        raise UnsupportedOp(f"aten.convolution over {spatial} spatial dims")
    out = lax.conv_general_dilated(x, w.astype(x.dtype), tuple(stride), [(p, p) for p in padding],
                                   rhs_dilation=tuple(dilation), dimension_numbers=names,
                                   feature_group_count=groups,
                                   preferred_element_type=_accumulator(x.dtype)).astype(x.dtype)
    return out if bias is None else out + bias.astype(x.dtype).reshape((1, -1) + (1,) * spatial)


def _batch_norm(c, x, weight, bias, mean, var, momentum, eps):
    """Inference batch norm over dim 1 (running statistics); the two saved statistics
    torch returns beside it are empty at inference."""
    jnp = _jnp()
    shape = (1, -1) + (1,) * (x.ndim - 2)
    y = (x - mean.reshape(shape)) / jnp.sqrt(var.reshape(shape) + eps)
    y = y * weight.reshape(shape) if weight is not None else y
    y = y + bias.reshape(shape) if bias is not None else y
    return y.astype(x.dtype), jnp.zeros((0,), x.dtype), jnp.zeros((0,), x.dtype)


def _max_pool(c, x, kernel, stride=(), padding=(0, 0), dilation=(1, 1), ceil_mode=False):
    """max_pool2d_with_indices' values (the indices, torch's second result, are not taken)."""
    if ceil_mode or any(d != 1 for d in dilation):
        raise UnsupportedOp("max_pool2d with ceil_mode or dilation")
    stride = tuple(stride) or tuple(kernel)
    pads = [(0, 0), (0, 0)] + [(p, p) for p in padding]
    out = _lax().reduce_window(x, -np.inf, _lax().max, (1, 1) + tuple(kernel), (1, 1) + stride, pads)
    return out, None


def _softmax(f):
    def handler(c, a, dim, half_to_float=False):
        dtype = c.dtype
        return f(a.astype(np.float32) if a.dtype != dtype or a.dtype == np.float16 else a, axis=dim).astype(dtype)
    return handler


def _layer_norm(c, x, shape, weight, bias, eps):
    jnp = _jnp()
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    rstd = 1 / jnp.sqrt(var + eps)
    y = (x - mean) * rstd
    y = y * weight if weight is not None else y
    y = y + bias if bias is not None else y
    return y, mean, rstd


def _group_norm(c, x, weight, bias, n, channels, hw, groups, eps):
    jnp = _jnp()
    g = x.reshape((n, groups, -1))
    mean = g.mean(axis=-1, keepdims=True)
    var = ((g - mean) ** 2).mean(axis=-1, keepdims=True)
    rstd = 1 / jnp.sqrt(var + eps)
    y = ((g - mean) * rstd).reshape(x.shape)
    shape = (1, channels) + (1,) * (x.ndim - 2)
    y = y * weight.reshape(shape) if weight is not None else y
    y = y + bias.reshape(shape) if bias is not None else y
    return y, mean.reshape((n, groups)), rstd.reshape((n, groups))


def _arg(f):
    def handler(c, a, dim=None, keepdim=False):
        out = f(a if dim is not None else a.reshape(-1), axis=dim if dim is not None else 0)
        return _jnp().expand_dims(out, dim) if keepdim and dim is not None else out
    return handler


def _max_dim(f, arg):
    def handler(c, a, dim, keepdim=False):
        return f(a, axis=dim, keepdims=keepdim), arg(a, axis=dim, keepdims=keepdim).astype(np.int64)
    return handler


def _split(c, a, sizes, dim=0):
    import itertools

    cuts = list(itertools.accumulate(sizes))[:-1]
    return tuple(_jnp().split(a, cuts, axis=dim))


def _embedding(c, weight, indices, *_):
    return _jnp().take(weight, indices, axis=0)


def _clamp(c, a, low=None, high=None):
    return _jnp().clip(a, low, high)


def _shift(kind):
    def handler(c, a, b):
        a, b = _in(c, a, b)
        lax = _lax()
        if kind == "left":
            return lax.shift_left(a, b)
        signed = _jnp().issubdtype(a.dtype, _jnp().signedinteger)
        return lax.shift_right_arithmetic(a, b) if signed else lax.shift_right_logical(a, b)
    return handler


def _where(c, cond, a, b):
    jnp = _jnp()
    return jnp.where(cond, jnp.asarray(a).astype(c.dtype), jnp.asarray(b).astype(c.dtype))


def _ops():
    jnp = _jnp()
    lax = _lax()
    return {
        "add": _binary(jnp.add), "sub": _binary(jnp.subtract), "mul": _binary(jnp.multiply),
        "rsub": _binary(lambda a, b: b - a), "div": _div, "remainder": _remainder, "fmod": _binary(jnp.fmod),
        "maximum": _binary(jnp.maximum), "minimum": _binary(jnp.minimum), "pow": _binary(jnp.power),
        "eq": _compare(jnp.equal), "ne": _compare(jnp.not_equal), "lt": _compare(jnp.less),
        "le": _compare(jnp.less_equal), "gt": _compare(jnp.greater), "ge": _compare(jnp.greater_equal),
        "bitwise_and": _binary(jnp.bitwise_and), "bitwise_or": _binary(jnp.bitwise_or),
        "bitwise_xor": _binary(jnp.bitwise_xor), "logical_and": _compare(jnp.logical_and),
        "logical_or": _compare(jnp.logical_or), "logical_xor": _compare(jnp.logical_xor),
        "bitwise_left_shift": _shift("left"), "__lshift__": _shift("left"),
        "bitwise_right_shift": _shift("right"), "__rshift__": _shift("right"),
        "where": _where,
        "neg": _unary(jnp.negative), "exp": _unary(jnp.exp), "log": _unary(jnp.log), "sqrt": _unary(jnp.sqrt),
        "rsqrt": _unary(lax.rsqrt), "tanh": _unary(jnp.tanh), "abs": _unary(jnp.abs),
        "sigmoid": _unary(_jax().nn.sigmoid), "erf": _unary(_jax().scipy.special.erf),
        "sin": _unary(jnp.sin), "cos": _unary(jnp.cos), "floor": _unary(jnp.floor), "ceil": _unary(jnp.ceil),
        "round": _unary(jnp.round), "trunc": _unary(jnp.trunc), "sign": _unary(jnp.sign),
        "reciprocal": _unary(jnp.reciprocal), "log1p": _unary(jnp.log1p), "expm1": _unary(jnp.expm1),
        "bitwise_not": _unary(jnp.invert), "logical_not": _unary(jnp.logical_not),
        "clamp": _clamp, "clamp_min": lambda c, a, v: jnp.maximum(a, v), "clamp_max": lambda c, a, v: jnp.minimum(a, v),
        "_to_copy": lambda c, a, **_: a, "clone": lambda c, a, **_: a, "alias": lambda c, a: a,
        "lift_fresh_copy": lambda c, a: a, "copy": lambda c, a, b, *_: jnp.broadcast_to(b, a.shape),
        "_assert_tensor_metadata": lambda c, *_, **__: None,
        "view": lambda c, a, *_: a.reshape(c.shape), "_unsafe_view": lambda c, a, *_: a.reshape(c.shape),
        "reshape": lambda c, a, *_: a.reshape(c.shape), "unsqueeze": lambda c, a, *_: a.reshape(c.shape),
        "squeeze": lambda c, a, *_: a.reshape(c.shape),
        "expand": lambda c, a, *_, **__: jnp.broadcast_to(a, c.shape),
        "permute": lambda c, a, perm: jnp.transpose(a, [p % a.ndim for p in perm]),
        "t": lambda c, a: a.T, "transpose": _transpose, "flip": lambda c, a, dims: jnp.flip(a, tuple(dims)),
        "roll": lambda c, a, shifts, dims=(): jnp.roll(a, tuple(shifts), tuple(dims) or None),
        "slice": _slice, "select": lambda c, a, dim, i: jnp.take(a, i, axis=dim),
        "cat": lambda c, tensors, dim=0: jnp.concatenate([t.astype(c.dtype) for t in tensors], axis=dim),
        "split_with_sizes": _split, "constant_pad_nd": _constant_pad_nd,
        "arange": _arange, "full": _full, "full_like": lambda c, a, v, **_: jnp.full(c.shape, v, c.dtype),
        "zeros_like": lambda c, a, **_: jnp.zeros(c.shape, c.dtype), "ones_like": lambda c, a, **_: jnp.ones(c.shape, c.dtype),
        "zeros": lambda c, *_, **__: jnp.zeros(c.shape, c.dtype), "ones": lambda c, *_, **__: jnp.ones(c.shape, c.dtype),
        "empty": lambda c, *_, **__: jnp.zeros(c.shape, c.dtype),
        "scalar_tensor": lambda c, v, **_: jnp.asarray(v, c.dtype),
        "sum": _sum, "mean": _mean, "amax": _reduce(jnp.max), "amin": _reduce(jnp.min), "prod": _reduce(jnp.prod),
        "any": _reduce(jnp.any), "all": _reduce(jnp.all),
        "argmax": _arg(jnp.argmax), "argmin": _arg(jnp.argmin),
        "max": _max_dim(jnp.max, jnp.argmax), "min": _max_dim(jnp.min, jnp.argmin),
        "cumsum": lambda c, a, dim, dtype=None: jnp.cumsum(a.astype(c.dtype), axis=dim),
        "_softmax": _softmax(_jax().nn.softmax), "_log_softmax": _softmax(_jax().nn.log_softmax),
        "mm": lambda c, a, b: _matmul(a, b), "bmm": lambda c, a, b: _matmul(a, b),
        "addmm": lambda c, bias, a, b, beta=1, alpha=1: beta * bias + alpha * _matmul(a, b),
        "sort": _sort, "topk": _topk,
        "index_select": lambda c, a, dim, index: jnp.take(a, index, axis=dim),
        "gather": lambda c, a, dim, index, sparse_grad=False: jnp.take_along_axis(a, index, axis=dim),
        "scatter": _scatter, "scatter_add": _scatter_add, "scatter_reduce": _scatter_reduce,
        "index_put": _index_put, "index": _index, "embedding": _embedding,
        "native_layer_norm": _layer_norm, "native_group_norm": _group_norm, "convolution": _convolution,
        "_native_batch_norm_legit_no_training": _batch_norm, "max_pool2d_with_indices": _max_pool,
        "relu": _unary(_jax().nn.relu), "hardtanh": lambda c, a, lo=-1.0, hi=1.0: jnp.clip(a, lo, hi),
        "gelu": lambda c, a, approximate="none": _jax().nn.gelu(a, approximate=approximate == "tanh"),
    }


OPS = functools.cache(_ops)  # built on first use: jax is imported only where the path runs
