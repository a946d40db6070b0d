"""A lit-test function's numpy evaluation, written as Python: the golden of an iree-lit item.

A lit test's function has no expected values. Where its ops have a plain meaning in numpy
(arith and math elementwise, linalg.generic of any maps and iterators, the named
contractions, fill / transpose / broadcast / reduce / softmax, the tensor ops that move
data), `translate` writes the function as straight-line numpy over the helpers in
`HELPERS`, which the reference.py inlines (a case reads nothing outside itself). It reads
the function through the MLIR Python bindings of the installed compiler when the catalog
is written; the reference.py it writes imports only numpy and torch, and runs in the
sandbox like every golden.

What has no such meaning (LinalgExt ops, convolutions, packs, a read of an uninitialized
tensor, an unsigned cast attribute) is refused with the reason, and counted.
"""

from __future__ import annotations

import re

import numpy as np

from .mlir_text import split_top

# Inlined into every lit reference.py. linalg.generic is evaluated as its definition says:
# the parallel dims at once (index grids), the reduction dims one point at a time in
# order, so a body that accumulates does so in the loop order the IR states.
HELPERS = r'''
import itertools
import math

import numpy as np

STEPS = 200_000  # reduction points one generic may take: a bound, not a semantics


class Map:
    """An affine map: `fn` gives the operand's indices from the loop indices; `dims`, per
    result, the loop dim it is when it is one alone (what bounds the loops)."""
    def __init__(self, fn, dims):
        self.fn, self.dims = fn, dims


def loop_sizes(operands, maps, n):
    sizes = [None] * n
    for x, m in zip(operands, maps):
        shape = np.shape(x)
        for k, d in enumerate(m.dims):
            if d is None:
                continue
            if sizes[d] is not None and sizes[d] != shape[k]:
                raise ValueError(f"loop d{d}: sizes {sizes[d]} and {shape[k]} disagree")
            sizes[d] = shape[k]
    if None in sizes:
        raise ValueError("a loop no operand bounds")
    return sizes


def generic(ins, outs, maps, iters, body):
    n = len(iters)
    sizes = loop_sizes(list(ins) + list(outs), maps, n)
    par = [i for i in range(n) if iters[i] == "p"]
    red = [i for i in range(n) if iters[i] == "r"]
    steps = math.prod(sizes[i] for i in red)
    if steps > STEPS:
        raise ValueError(f"{steps} reduction points: too many to evaluate")
    grid = np.meshgrid(*[np.arange(sizes[i]) for i in par], indexing="ij") if par else []
    shape = grid[0].shape if grid else ()
    results = [np.array(o, copy=True) for o in outs]
    in_maps, out_maps = maps[:len(ins)], maps[len(ins):]
    for point in itertools.product(*[range(sizes[i]) for i in red]):
        d = [None] * n
        for i, g in zip(par, grid):
            d[i] = g
        for i, v in zip(red, point):
            d[i] = v
        args = [np.broadcast_to(x[m.fn(*d)], shape) if isinstance(x, np.ndarray) else x
                for x, m in zip(ins, in_maps)]
        accs = [np.broadcast_to(r[m.fn(*d)], shape) for r, m in zip(results, out_maps)]
        yielded = body(d, *args, *accs)
        for r, m, y in zip(results, out_maps, yielded):
            r[m.fn(*d)] = np.asarray(y).astype(r.dtype, copy=False)
    return results


def contract(spec, a, b, out):
    """out + a . b (einsum), the operands cast to the result's type first, as linalg's
    contractions define; f16 sums in f32 and rounds once (tolerances cover the order)."""
    wide = np.float32 if out.dtype == np.float16 else out.dtype
    return (out.astype(wide) + np.einsum(spec, a.astype(wide), b.astype(wide))).astype(out.dtype)


def unsigned(x):
    x = np.asarray(x)
    if x.dtype == np.bool_:
        return x
    return x.view(np.dtype(f"u{x.dtype.itemsize}"))


def cmpf(p, a, b):
    unordered = np.isnan(a) | np.isnan(b)
    ordered = ~unordered
    table = {0: np.zeros_like(unordered), 1: ordered & (a == b), 2: ordered & (a > b), 3: ordered & (a >= b),
             4: ordered & (a < b), 5: ordered & (a <= b), 6: ordered & (a != b), 7: ordered,
             8: unordered | (a == b), 9: unordered | (a > b), 10: unordered | (a >= b), 11: unordered | (a < b),
             12: unordered | (a <= b), 13: unordered | (a != b), 14: unordered, 15: np.ones_like(unordered)}
    return table[p]


def cmpi(p, a, b):
    if p >= 6:
        a, b, p = unsigned(a), unsigned(b), p - 4
    return [a == b, a != b, a < b, a <= b, a > b, a >= b][p]


def divsi(a, b):
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q).astype(np.result_type(a, b))


def ceildivsi(a, b):
    return (-(-a // b)).astype(np.result_type(a, b))


def remsi(a, b):
    return (a - divsi(a, b) * b).astype(np.result_type(a, b))


def as_int(x, dtype):
    """fptosi: toward zero; a value the type cannot hold is undefined, so refused."""
    x = np.trunc(np.asarray(x, dtype=np.float64))
    info = np.iinfo(dtype)
    if np.any((x < info.min) | (x > info.max)):
        raise ValueError("fptosi of a value out of range")
    return x.astype(dtype)


def erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x).astype(np.asarray(x).dtype)


def round_away(x):
    return (np.sign(x) * np.floor(np.abs(x) + 0.5)).astype(np.asarray(x).dtype)


def extract(t, *idx):
    for i, n in zip(idx, t.shape):
        if np.any((np.asarray(i) < 0) | (np.asarray(i) >= n)):
            raise ValueError("tensor.extract out of bounds")
    return t[tuple(idx)]


def slice_of(x, offsets, sizes, strides, shape):
    index = tuple(slice(o, o + (s - 1) * st + 1, st) for o, s, st in zip(offsets, sizes, strides))
    for o, s, st, n in zip(offsets, sizes, strides, x.shape):
        if o < 0 or s < 0 or (s and o + (s - 1) * st >= n):
            raise ValueError("extract_slice out of bounds")
    return x[index].reshape(shape)


def insert(src, dest, offsets, sizes, strides):
    out = np.array(dest, copy=True)
    index = tuple(slice(o, o + (s - 1) * st + 1, st) for o, s, st in zip(offsets, sizes, strides))
    for o, s, st, n in zip(offsets, sizes, strides, dest.shape):
        if o < 0 or s < 0 or (s and o + (s - 1) * st >= n):
            raise ValueError("insert_slice out of bounds")
    out[index] = np.reshape(src, [s for s in sizes])
    return out


def dropped_shape(sizes, rank):
    """A rank-reducing slice's result shape: unit dims dropped (from the left) to `rank`."""
    sizes, drop = list(sizes), len(sizes) - rank
    out = []
    for s in sizes:
        if drop and s == 1:
            drop -= 1
            continue
        out.append(s)
    return out


def softmax(x, dim):
    e = np.exp((x - np.max(x, axis=dim, keepdims=True)).astype(np.float32))
    return (e / np.sum(e, axis=dim, keepdims=True)).astype(x.dtype)
'''

CMPF = {"false": 0, "oeq": 1, "ogt": 2, "oge": 3, "olt": 4, "ole": 5, "one": 6, "ord": 7, "ueq": 8,
        "ugt": 9, "uge": 10, "ult": 11, "ule": 12, "une": 13, "uno": 14, "true": 15}
DYNAMIC = -9223372036854775808  # ShapedType's dynamic size and offset

NUMPY = {"f16": "float16", "f32": "float32", "f64": "float64", "i1": "bool_", "i8": "int8", "i16": "int16",
         "i32": "int32", "i64": "int64", "index": "int64"}

BINARY = {"arith.addf": "({a} + {b})", "arith.subf": "({a} - {b})", "arith.mulf": "({a} * {b})",
          "arith.divf": "({a} / {b})", "arith.remf": "np.fmod({a}, {b})",
          "arith.maximumf": "np.maximum({a}, {b})", "arith.minimumf": "np.minimum({a}, {b})",
          "arith.maxnumf": "np.fmax({a}, {b})", "arith.minnumf": "np.fmin({a}, {b})",
          "arith.addi": "({a} + {b})", "arith.subi": "({a} - {b})", "arith.muli": "({a} * {b})",
          "arith.divsi": "divsi({a}, {b})", "arith.remsi": "remsi({a}, {b})",
          "arith.floordivsi": "({a} // {b})", "arith.ceildivsi": "ceildivsi({a}, {b})",
          "arith.divui": "(unsigned({a}) // unsigned({b})).view({a}.dtype)",
          "arith.remui": "(unsigned({a}) % unsigned({b})).view({a}.dtype)",
          "arith.andi": "({a} & {b})", "arith.ori": "({a} | {b})", "arith.xori": "({a} ^ {b})",
          "arith.shli": "({a} << {b})", "arith.shrsi": "({a} >> {b})",
          "arith.shrui": "(unsigned({a}) >> unsigned({b})).view({a}.dtype)",
          "arith.maxsi": "np.maximum({a}, {b})", "arith.minsi": "np.minimum({a}, {b})",
          "arith.maxui": "np.maximum(unsigned({a}), unsigned({b})).view({a}.dtype)",
          "arith.minui": "np.minimum(unsigned({a}), unsigned({b})).view({a}.dtype)",
          "math.powf": "np.power({a}, {b})", "math.atan2": "np.arctan2({a}, {b})",
          "math.copysign": "np.copysign({a}, {b})"}
UNARY = {"arith.negf": "(-{a})", "math.exp": "np.exp({a})", "math.exp2": "np.exp2({a})",
         "math.expm1": "np.expm1({a})", "math.log": "np.log({a})", "math.log2": "np.log2({a})",
         "math.log10": "np.log10({a})", "math.log1p": "np.log1p({a})", "math.tanh": "np.tanh({a})",
         "math.sqrt": "np.sqrt({a})", "math.rsqrt": "(1 / np.sqrt({a}))", "math.absf": "np.abs({a})",
         "math.absi": "np.abs({a})", "math.sin": "np.sin({a})", "math.cos": "np.cos({a})",
         "math.tan": "np.tan({a})", "math.atan": "np.arctan({a})", "math.floor": "np.floor({a})",
         "math.ceil": "np.ceil({a})", "math.trunc": "np.trunc({a})", "math.roundeven": "np.rint({a})",
         "math.round": "round_away({a})", "math.erf": "erf({a})"}
# Casts: the result's numpy type is {t}.
CASTS = {"arith.extf": "np.asarray({a}).astype({t})", "arith.truncf": "np.asarray({a}).astype({t})",
         "arith.sitofp": "np.asarray({a}).astype({t})", "arith.uitofp": "unsigned({a}).astype({t})",
         "arith.fptosi": "as_int({a}, {t})", "arith.extsi": "np.asarray({a}).astype({t})",
         "arith.extui": "unsigned({a}).astype({t})", "arith.trunci": "np.asarray({a}).astype({t})",
         "arith.index_cast": "np.asarray({a}).astype({t})", "arith.index_castui": "np.asarray({a}).astype({t})",
         "arith.bitcast": "np.asarray({a}).view({t})"}
# linalg's named contractions: einsum over (lhs, rhs) -> out.
CONTRACTIONS = {"linalg.matmul": "mk,kn->mn", "linalg.batch_matmul": "bmk,bkn->bmn",
                "linalg.matvec": "mn,n->m", "linalg.vecmat": "m,mn->n", "linalg.dot": "k,k->",
                "linalg.matmul_transpose_a": "km,kn->mn", "linalg.matmul_transpose_b": "mk,nk->mn",
                "linalg.batch_matmul_transpose_a": "bkm,bkn->bmn",
                "linalg.batch_matmul_transpose_b": "bmk,bnk->bmn", "linalg.batch_reduce_matmul": "bmk,bkn->mn",
                "linalg.batch_matvec": "bmk,bk->bm", "linalg.batch_vecmat": "bk,bkn->bn"}
NAMED_ELEMENTWISE = {"linalg.add": "arith.addf", "linalg.sub": "arith.subf", "linalg.mul": "arith.mulf",
                     "linalg.div": "arith.divf", "linalg.max": "arith.maximumf", "linalg.min": "arith.minimumf",
                     "linalg.exp": "math.exp", "linalg.log": "math.log", "linalg.abs": "math.absf",
                     "linalg.ceil": "math.ceil", "linalg.floor": "math.floor", "linalg.negf": "arith.negf",
                     "linalg.sqrt": "math.sqrt", "linalg.rsqrt": "math.rsqrt", "linalg.tanh": "math.tanh",
                     "linalg.erf": "math.erf"}


# linalg's named convolutions as the generics they are: loop dims, then the input's, the
# filter's and the output's indices; H and W (and w) are strided and dilated windows.
_H, _W = "oh * {sh} + kh * {dh}", "ow * {sw} + kw * {dw}"
CONVS = {
    "linalg.conv_2d_nhwc_hwcf": ("n oh ow f kh kw c", f"n, {_H}, {_W}, c", "kh, kw, c, f", "n, oh, ow, f"),
    "linalg.conv_2d_nhwc_fhwc": ("n oh ow f kh kw c", f"n, {_H}, {_W}, c", "f, kh, kw, c", "n, oh, ow, f"),
    "linalg.conv_2d_nchw_fchw": ("n f oh ow c kh kw", f"n, c, {_H}, {_W}", "f, c, kh, kw", "n, f, oh, ow"),
    "linalg.conv_2d_nhwc_hwcf_q": ("n oh ow f kh kw c", f"n, {_H}, {_W}, c", "kh, kw, c, f", "n, oh, ow, f"),
    "linalg.conv_2d_nchw_fchw_q": ("n f oh ow c kh kw", f"n, c, {_H}, {_W}", "f, c, kh, kw", "n, f, oh, ow"),
    "linalg.depthwise_conv_2d_nhwc_hwc": ("n oh ow c kh kw", f"n, {_H}, {_W}, c", "kh, kw, c", "n, oh, ow, c"),
    "linalg.depthwise_conv_2d_nchw_chw": ("n c oh ow kh kw", f"n, c, {_H}, {_W}", "c, kh, kw", "n, c, oh, ow"),
    "linalg.depthwise_conv_2d_nhwc_hwc_q": ("n oh ow c kh kw", f"n, {_H}, {_W}, c", "kh, kw, c", "n, oh, ow, c"),
    "linalg.conv_1d_nwc_wcf": ("n ow f kw c", f"n, {_W}, c", "kw, c, f", "n, ow, f"),
    "linalg.pooling_nhwc_sum": ("n oh ow c kh kw", f"n, {_H}, {_W}, c", "kh, kw", "n, oh, ow, c"),
    "linalg.pooling_nhwc_max": ("n oh ow c kh kw", f"n, {_H}, {_W}, c", "kh, kw", "n, oh, ow, c"),
}


# LinalgExt ops with no evaluation here that read their inits (the last operands, one per
# result): an accumulator, the original a scatter writes into, the data sorted or
# transformed in place. From a tensor.empty they have no defined result, with or without
# a golden to judge them by.
READS_INITS = {f"iree_linalg_ext.{op}" for op in ("arg_compare", "scatter", "sort", "topk", "fft", "scan",
                                                   "exp_reduction", "online_attention", "map_scatter")}


class Untranslatable(Exception):
    """Why a function has no numpy evaluation here (the reason is what the catalog counts):
    the writer's limit, so the program is still run, judged by its differential items."""


class Undefined(Untranslatable):
    """Why the function has no defined result at all (an uninitialized read, an element
    written twice, bytes the test leaves out): no oracle can judge it, so it is not run."""


def numpy_type(t) -> str:
    s = str(t)
    if s not in NUMPY:
        raise Untranslatable(f"an element type numpy has no plain form of: {s}")
    return "np." + NUMPY[s]


def _ints(attr) -> list[int]:
    """An attribute's integers: `array<i64: 1, 2>`, `dense<[1, 2]> : tensor<2xi64>`, a splat
    `dense<2> : tensor<2xi64>` (repeated), `[0, 1]`, or one `2 : i64`."""
    text = str(attr).strip()
    if text.startswith("array<"):
        return [int(v) for v in re.findall(r"-?\d+", text.split(":", 1)[1])]
    dense = re.fullmatch(r"dense<(.*)>\s*:\s*(?:tensor|vector)<(\d+)x\w+>", text)
    if dense:
        values = [int(v) for v in re.findall(r"-?\d+", dense.group(1))]
        return values * int(dense.group(2)) if not dense.group(1).startswith("[") else values
    try:
        if text.startswith("["):
            return [int(v.split(":")[0]) for v in text.strip("[]").split(",") if v.strip()]
        return [int(text.split(":")[0])]
    except ValueError:
        raise Untranslatable(f"an integer attribute not read: {text[:40]}") from None


def _map(text: str) -> tuple[str, tuple]:
    """`affine_map<(d0, d1) -> (d1, d0 floordiv 2)>` as (`Map(lambda d0, d1: (...), dims)`,
    dims: per result, the loop dim it is alone, else None)."""
    m = re.fullmatch(r"affine_map<\((.*?)\)(\[.*?\])?\s*->\s*\((.*)\)>", text.strip())
    if not m:
        raise Untranslatable(f"an indexing map not read: {text[:60]}")
    if m.group(2):
        raise Untranslatable("an indexing map with symbols")
    dims = [d.strip() for d in m.group(1).split(",") if d.strip()]
    results = [r.strip() for r in split_top(m.group(3), ",", "(", ")")] if m.group(3).strip() else []
    exprs = []
    for r in results:
        e = r.replace("floordiv", "//").replace(" mod ", " % ")
        if "ceildiv" in e:
            raise Untranslatable("an indexing map with ceildiv")
        if not re.fullmatch(r"[\sd0-9+*/%()-]*", e):
            raise Untranslatable(f"an indexing map expression not read: {r}")
        exprs.append(e)
    pure = [int(r[1:]) if re.fullmatch(r"d\d+", r) else None for r in results]
    body = "(" + "".join(f"{e}, " for e in exprs) + ")"
    return f"Map(lambda {', '.join(dims)}: {body}, {tuple(pure)!r})", tuple(pure)


class Writer:
    """Writes one function's numpy evaluation, op by op."""

    def __init__(self):
        self.names: dict = {}  # ir.Value -> Python name
        self.lines: list[str] = []
        self.uninitialized: set[str] = set()  # tensor.empty's values (and what only copies them)
        self.count = 0
        self.bodies = 0

    def name(self, value) -> str:
        try:
            return self.names[value]
        except KeyError:
            raise Untranslatable("a value defined outside what is read (a nested region's)") from None

    def fresh(self, value, prefix="v") -> str:
        n = f"{prefix}{self.count}"
        self.count += 1
        self.names[value] = n
        return n

    def read(self, value) -> str:
        n = self.name(value)
        if n in self.uninitialized:
            raise Undefined("reads an uninitialized tensor (tensor.empty)")
        return n

    # -- ops ------------------------------------------------------------------------------
    def function(self, func) -> tuple[list[str], list[str]]:
        block = func.regions[0].blocks[0]
        args = [self.fresh(a, "a") for a in block.arguments]
        for op in block.operations:
            if op.operation.name in ("func.return", "util.return"):
                outs = [self.read(v) for v in op.operands]
                return args, self.lines + [f"return ({''.join(o + ', ' for o in outs)})"]
            self.op(op, self.lines, indent="")
        raise Undefined("a function without a return")

    def op(self, op, lines: list[str], indent: str, body: bool = False) -> None:
        name = op.operation.name
        operands = list(op.operands)
        results = list(op.results)
        emit = lines.append

        def out(expr: str, i: int = 0):
            emit(f"{indent}{self.fresh(results[i])} = {expr}")

        if name == "arith.constant":
            out(self.constant(op))
        elif name in BINARY:
            out(BINARY[name].format(a=self.read(operands[0]), b=self.read(operands[1])))
        elif name in UNARY:
            out(UNARY[name].format(a=self.read(operands[0])))
        elif name in CASTS:
            out(CASTS[name].format(a=self.read(operands[0]), t=numpy_type(_element(results[0].type))))
        elif name == "math.fma":
            a, b, c = (self.read(v) for v in operands)
            out(f"({a} * {b} + {c})")
        elif name == "arith.select":
            c, a, b = (self.read(v) for v in operands)
            out(f"np.where({c}, {a}, {b})")
        elif name == "arith.cmpf":
            out(f"cmpf({_ints(op.attributes['predicate'])[0]}, {self.read(operands[0])}, {self.read(operands[1])})")
        elif name == "arith.cmpi":
            out(f"cmpi({_ints(op.attributes['predicate'])[0]}, {self.read(operands[0])}, {self.read(operands[1])})")
        elif body and name == "linalg.index":
            out(f"d[{_ints(op.attributes['dim'])[0]}]")
        elif name == "tensor.extract":
            t, *idx = (self.read(v) for v in operands)
            out(f"extract({t}{''.join(', ' + i for i in idx)})")
        elif body:
            raise Untranslatable(f"no numpy evaluation of {name} in a body")
        elif name == "tensor.empty":
            out(f"np.zeros({self.shape(results[0].type, operands)}, {numpy_type(_element(results[0].type))})")
            self.uninitialized.add(self.names[results[0]])
        elif name == "tensor.dim":
            out(f"np.int64(np.shape({self.read(operands[0])})[{self.read(operands[1])}])")
        elif name == "tensor.cast":
            out(self.read(operands[0]))
        elif name == "linalg.fill":
            value, init = self.read(operands[0]), self.name(operands[1])
            out(f"np.full(np.shape({init}), {value}, {init}.dtype)")
        elif name == "linalg.copy":
            out(f"np.array({self.read(operands[0])}, dtype={self.name(operands[1])}.dtype)")
        elif name == "linalg.transpose":
            out(f"np.transpose({self.read(operands[0])}, {_ints(op.attributes['permutation'])}).copy()")
        elif name == "linalg.broadcast":
            x, init = self.read(operands[0]), self.name(operands[1])
            out(f"np.broadcast_to(np.expand_dims({x}, {tuple(_ints(op.attributes['dimensions']))}), "
                f"np.shape({init})).copy()")
        elif name == "linalg.softmax":
            out(f"softmax({self.read(operands[0])}, {_ints(op.attributes['dimension'])[0]})")
        elif name in CONVS:
            self.conv(op, name)
        elif name in CONTRACTIONS or name in NAMED_ELEMENTWISE or name in ("linalg.generic", "linalg.reduce",
                                                                           "linalg.map", "linalg.contract"):
            self.structured(op, name, lines)
        elif name == "tensor.extract_slice":
            self.extract_slice(op)
        elif name == "tensor.insert_slice":
            self.insert_slice(op)
        elif name in ("tensor.expand_shape", "tensor.collapse_shape"):
            x = self.read(operands[0])
            out(f"np.reshape({x}, {self.reshaped(op, name, x)})")
        elif name == "tensor.concat":
            out(f"np.concatenate([{', '.join(self.read(v) for v in operands)}], axis={_ints(op.attributes['dim'])[0]})")
        elif name == "tensor.pad":
            self.pad(op)
        elif name == "tensor.from_elements":
            out(f"np.array([{', '.join(self.read(v) for v in operands)}], "
                f"{numpy_type(_element(results[0].type))}).reshape({list(results[0].type.shape)})")
        elif name == "tensor.splat":
            out(f"np.full({self.shape(results[0].type, operands[1:])}, {self.read(operands[0])})")
        elif name == "tensor.insert":
            v, t, *idx = operands
            n = self.fresh(results[0])
            emit(f"{n} = np.array({self.read(t)}, copy=True)")
            emit(f"{n}[{', '.join(self.read(i) for i in idx)}] = {self.read(v)}")
        elif name == "tensor.bitcast":
            out(f"{self.read(operands[0])}.view({numpy_type(_element(results[0].type))})")
        else:
            inits = operands[len(operands) - len(results):] if name in READS_INITS and results else []
            if any(self.name(v) in self.uninitialized for v in inits):
                raise Undefined("reads an uninitialized tensor (tensor.empty) as an accumulator")
            raise Untranslatable(f"no numpy evaluation of {name}")

    def constant(self, op) -> str:
        value = op.attributes["value"]
        t = op.results[0].type
        text = str(value)
        if "dense_resource" in text or "resource" in text.split("<")[0]:
            raise Undefined("a dense_resource constant (its bytes are not in the test)")
        if text.startswith("dense<"):
            el = numpy_type(_element(t))
            if getattr(value, "is_splat", False):
                return f"np.full({list(t.shape)}, {self.scalar(str(value.get_splat_value()), el)}, {el})"
            array = np.array(value)
            return f"np.array({array.tolist()!r}, {el}).reshape({list(t.shape)})"
        return self.scalar(text, numpy_type(t))

    @staticmethod
    def scalar(text: str, el: str) -> str:
        v = text.split(":")[0].strip()
        if v in ("true", "false"):
            return f"np.bool_({v == 'true'})"
        if v.startswith("0x"):
            raise Untranslatable("a constant given as bits (0x...)")
        if el == "np.bool_":
            return f"np.bool_({int(v) != 0})"
        if el.startswith("np.int"):
            return f"{el}({int(v)})"
        if v in ("inf", "-inf", "nan"):
            return f"{el}({v!r})"
        return f"{el}({float(v)!r})"

    def shape(self, t, dynamic_operands) -> str:
        sizes, it = [], iter(dynamic_operands)
        for s in t.shape:
            sizes.append(str(s) if s != DYNAMIC else f"int({self.read(next(it))})")
        return f"[{', '.join(sizes)}]"

    def mixed(self, op, static: str, dynamic) -> list[str]:
        """A static_* attribute with its dynamic entries taken from the operands, in order."""
        it = iter(dynamic)
        return [str(v) if v != DYNAMIC else f"int({self.read(next(it))})" for v in _ints(op.attributes[static])]

    def segments(self, op) -> list[list]:
        sizes = _ints(op.attributes["operandSegmentSizes"])
        operands, out, i = list(op.operands), [], 0
        for s in sizes:
            out.append(operands[i:i + s])
            i += s
        return out

    def extract_slice(self, op) -> None:
        source, offsets, sizes, strides = self.segments(op)
        o, s, st = (self.mixed(op, a, d) for a, d in (("static_offsets", offsets), ("static_sizes", sizes),
                                                        ("static_strides", strides)))
        rank = len(op.results[0].type.shape)
        shape = f"[{', '.join(s)}]" if rank == len(s) else f"dropped_shape([{', '.join(s)}], {rank})"
        self.lines.append(f"{self.fresh(op.results[0])} = slice_of({self.read(source[0])}, [{', '.join(o)}], "
                          f"[{', '.join(s)}], [{', '.join(st)}], {shape})")

    def insert_slice(self, op) -> None:
        source, dest, offsets, sizes, strides = self.segments(op)
        o, s, st = (self.mixed(op, a, d) for a, d in (("static_offsets", offsets), ("static_sizes", sizes),
                                                        ("static_strides", strides)))
        dest_name = self.name(dest[0])
        n = self.fresh(op.results[0])
        self.lines.append(f"{n} = insert({self.read(source[0])}, {dest_name}, [{', '.join(o)}], "
                          f"[{', '.join(s)}], [{', '.join(st)}])")
        covers = all(x == str(y) for x, y in zip(s, dest[0].type.shape)) and set(o) == {"0"} and set(st) == {"1"}
        if dest_name in self.uninitialized and not covers:
            self.uninitialized.add(n)  # partly written: reading it is reading the empty's rest

    def reshaped(self, op, name: str, x: str) -> str:
        t = op.results[0].type
        if name == "tensor.expand_shape" and "static_output_shape" in op.attributes:
            return f"[{', '.join(self.mixed(op, 'static_output_shape', list(op.operands)[1:]))}]"
        if name == "tensor.collapse_shape":
            groups = [[int(i) for i in re.findall(r"\d+", g)] for g in re.findall(r"\[([\d,\s]*)\]",
                                                                             str(op.attributes["reassociation"]))]
            return "[" + ", ".join("int(np.prod([" + ", ".join(f"np.shape({x})[{i}]" for i in g) + "]))"
                                   for g in groups) + "]"
        sizes = [str(s) if s != DYNAMIC else "-1" for s in t.shape]
        if sizes.count("-1") > 1:
            raise Untranslatable("an expand_shape with two dynamic sizes and no output_shape")
        return f"[{', '.join(sizes)}]"

    def pad(self, op) -> None:
        source, low, high = self.segments(op)
        lo, hi = self.mixed(op, "static_low", low), self.mixed(op, "static_high", high)
        block = op.regions[0].blocks[0]
        ops = list(block.operations)
        value = None
        for inner in ops:
            if inner.operation.name == "tensor.yield":
                value = inner.operands[0]
        if value is None:
            raise Untranslatable("a pad without a yield")
        owner = value.owner
        if getattr(owner, "name", None) == "arith.constant":
            pad_value = self.constant(owner)
        else:
            try:
                pad_value = self.read(value)  # a value from outside the region
            except Untranslatable:
                raise Untranslatable("a pad whose value depends on the position") from None
        widths = ", ".join(f"({a}, {b})" for a, b in zip(lo, hi))
        self.lines.append(f"{self.fresh(op.results[0])} = np.pad({self.read(source[0])}, [{widths}], "
                          f"constant_values={pad_value})")

    def structured(self, op, name: str, lines: list[str]) -> None:
        """linalg.generic / reduce / map, the named contractions and elementwise ops."""
        segs = _ints(op.attributes["operandSegmentSizes"]) if "operandSegmentSizes" in op.attributes else None
        operands = list(op.operands)
        n_in = segs[0] if segs else len(operands) - len(op.results)
        ins, outs = operands[:n_in], operands[n_in:]
        results = list(op.results)
        if name in CONTRACTIONS or name == "linalg.contract":
            if "cast" in op.attributes and "unsigned" in str(op.attributes["cast"]):
                raise Untranslatable(f"{name} with an unsigned cast")
            spec = self.einsum(op, name)
            a, b = (self.read(v) for v in ins)
            self.lines.append(f"{self.fresh(results[0])} = contract({spec!r}, {a}, {b}, {self.read(outs[0])})")
            return
        if name in NAMED_ELEMENTWISE:
            args = [self.read(v) for v in ins]
            expr = (BINARY.get(NAMED_ELEMENTWISE[name]) or UNARY[NAMED_ELEMENTWISE[name]]).format(
                a=args[0], b=args[1] if len(args) > 1 else "")
            self.lines.append(f"{self.fresh(results[0])} = np.asarray({expr}).astype({self.name(outs[0])}.dtype)")
            return
        block = op.regions[0].blocks[0]
        if name == "linalg.generic":
            read = [_map(str(m)) for m in op.attributes["indexing_maps"]]
            maps = [text for text, _ in read]
            iters = ["r" if "reduction" in str(i) else "p" for i in op.attributes["iterator_types"]]
            parallel = {i for i, it in enumerate(iters) if it == "p"}
            for _, held in read[len(ins):]:
                if not parallel <= set(held):
                    raise Undefined("an output map without every parallel dim (one element written "
                                         "more than once: no defined result)")
        elif name == "linalg.map":
            rank = len(outs[0].type.shape)
            ident = f"Map(lambda *d: tuple(d), {tuple(range(rank))!r})"
            maps, iters = [ident] * (len(ins) + len(outs)), ["p"] * rank
        else:  # linalg.reduce: its dimensions reduced, in order
            rank = len(ins[0].type.shape)
            dims = _ints(op.attributes["dimensions"])
            kept = [i for i in range(rank) if i not in dims]
            ident = f"Map(lambda *d: tuple(d), {tuple(range(rank))!r})"
            out_map = f"Map(lambda *d: tuple(d[i] for i in {kept!r}), {tuple(kept)!r})"
            maps, iters = [ident] * len(ins) + [out_map] * len(outs), ["r" if i in dims else "p" for i in range(rank)]
        args = list(block.arguments)
        out_args = args[len(ins):]  # none where a map's body takes its inputs alone
        for i, a in enumerate(out_args):
            if self.name(outs[i]) in self.uninitialized and any(True for _ in a.uses):
                raise Undefined("reads an uninitialized tensor (tensor.empty) as an accumulator")
        fn = f"body{self.bodies}"
        self.bodies += 1
        params = [self.fresh(a, "b") for a in args]
        # generic() passes the accumulators too; a body without arguments for them drops them.
        signature = ["d", *params, *(["*_acc"] if len(args) < len(ins) + len(outs) else [])]
        body_lines = [f"def {fn}({', '.join(signature)}):"]
        for inner in block.operations:
            if inner.operation.name in ("linalg.yield",):
                body_lines.append(f"    return ({''.join(self.read(v) + ', ' for v in inner.operands)})")
                break
            self.op(inner, body_lines, indent="    ", body=True)
        self.lines.extend(body_lines)
        ins_text = ", ".join(self.read(v) for v in ins)
        outs_text = ", ".join(self.name(v) for v in outs)
        res = [self.fresh(r) for r in results]
        self.lines.append(f"{', '.join(res)}, = generic([{ins_text}], [{outs_text}], [{', '.join(maps)}], "
                          f"{''.join(iters)!r}, {fn})")

    def conv(self, op, name: str) -> None:
        """A named convolution (or pooling) evaluated as its generic: out += in * filter, the
        operands cast to the output's type (a _q conv subtracts its zero points first)."""
        loops, x_idx, w_idx, o_idx = CONVS[name]
        dims = loops.split()
        strides = _ints(op.attributes["strides"]) if "strides" in op.attributes else [1, 1]
        dilations = _ints(op.attributes["dilations"]) if "dilations" in op.attributes else [1, 1]
        spatial = dict(sw=strides[-1], dw=dilations[-1], sh=strides[0], dh=dilations[0])
        segs = _ints(op.attributes["operandSegmentSizes"])
        operands = list(op.operands)
        ins, outs = operands[:segs[0]], operands[segs[0]:]
        if self.name(outs[0]) in self.uninitialized:
            raise Undefined("reads an uninitialized tensor (tensor.empty) as an accumulator")
        depthwise = "depthwise" in name or "pooling" in name
        iters = "".join("r" if d in ("kh", "kw") or (d == "c" and not depthwise) else "p" for d in dims)

        def as_map(idx: str) -> str:
            text = idx.format(**spatial)
            results = [r.strip() for r in text.split(",")]
            pure = tuple(dims.index(r) if r in dims else None for r in results)
            return f"Map(lambda {', '.join(dims)}: ({text},), {pure!r})"

        x, w = self.read(ins[0]), self.read(ins[1])
        fn = f"body{self.bodies}"
        self.bodies += 1
        if name == "linalg.pooling_nhwc_max":
            body = "return (np.maximum(o, x.astype(o.dtype)),)"
        elif name == "linalg.pooling_nhwc_sum":
            body = "return (o + x.astype(o.dtype),)"
        elif name.endswith("_q"):
            izp, wzp = self.read(ins[2]), self.read(ins[3])
            body = (f"return (o + (x.astype(o.dtype) - np.asarray({izp}).astype(o.dtype)) * "
                    f"(w.astype(o.dtype) - np.asarray({wzp}).astype(o.dtype)),)")
        else:
            body = "return (o + x.astype(o.dtype) * w.astype(o.dtype),)"
        self.lines += [f"def {fn}(d, x, w, o):", f"    {body}"]
        self.lines.append(f"{self.fresh(op.results[0])}, = generic([{x}, {w}], [{self.name(outs[0])}], "
                          f"[{as_map(x_idx)}, {as_map(w_idx)}, {as_map(o_idx)}], {iters!r}, {fn})")

    def einsum(self, op, name: str) -> str:
        if "indexing_maps" not in op.attributes:
            return CONTRACTIONS[name]
        letters = "abcdefghijklmnopqrstuvwxyz"
        specs = []
        for m in op.attributes["indexing_maps"]:
            text = str(m)
            results = re.fullmatch(r"affine_map<\(.*?\)\s*->\s*\((.*)\)>", text)
            if not results:
                raise Untranslatable(f"a contraction map not read: {text[:60]}")
            parts = [p.strip() for p in results.group(1).split(",") if p.strip()]
            if not all(re.fullmatch(r"d\d+", p) for p in parts):
                raise Untranslatable("a contraction map that is not a projection")
            specs.append("".join(letters[int(p[1:])] for p in parts))
        return f"{specs[0]},{specs[1]}->{specs[2]}"


def _element(t):
    return t.element_type if hasattr(t, "element_type") else t


def translate(func) -> tuple[list[str], list[str]]:
    """(argument names, the body's lines ending in `return (...)`) of a func.func / util.func."""
    return Writer().function(func)
