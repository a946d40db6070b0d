"""StableHLO as text: typed values (`T`) and the ops the StableHLO frontend writes with
them (`Emitter`), one SSA value per line. Complex ops are written in the generic form
with `array` attributes, which every release from 2.9.0 parses.
"""

from __future__ import annotations

from dataclasses import dataclass

_ELEMENT = {"float32": "f32", "float16": "f16", "bfloat16": "bf16", "float64": "f64", "int64": "i64",
            "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "ui8", "bool": "i1"}


@dataclass(frozen=True)
class T:
    """A tensor type: shape and torch dtype name (float32, int64, bool, ...)."""
    shape: tuple[int, ...]
    dtype: str

    @property
    def mlir(self) -> str:
        return f"tensor<{''.join(f'{d}x' for d in self.shape)}{_ELEMENT[self.dtype]}>"

    @property
    def scalar(self) -> "T":
        return T((), self.dtype)

    def of(self, shape=None, dtype=None) -> "T":
        return T(tuple(self.shape if shape is None else shape), self.dtype if dtype is None else dtype)

    @property
    def is_float(self) -> bool:
        return self.dtype.startswith(("float", "bfloat"))

    @property
    def compare_type(self) -> str:
        return "FLOAT" if self.is_float else "UNSIGNED" if self.dtype in ("uint8", "bool") else "SIGNED"


def literal(value, t: T) -> str:
    if t.dtype == "bool":
        return "true" if value else "false"
    if t.is_float:
        value = float(value)
        if value != value:
            return "0x7FC00000" if t.dtype == "float32" else "0x7E00" if t.dtype == "float16" else repr(value)
        if value in (float("inf"), float("-inf")):
            bits = {"float32": ("0x7F800000", "0xFF800000"), "float16": ("0x7C00", "0xFC00"),
                    "bfloat16": ("0x7F80", "0xFF80"), "float64": ("0x7FF0000000000000", "0xFFF0000000000000")}
            return bits[t.dtype][value < 0]
        return f"{value:.9e}"
    return str(int(value))


class Emitter:
    """Writes one function: values are %vN, each with its type."""

    def __init__(self):
        self.lines: list[str] = []
        self.count = 0

    def new(self) -> str:
        self.count += 1
        return f"%v{self.count}"

    def op(self, text: str, result: T) -> tuple[str, T]:
        name = self.new()
        self.lines.append(f"    {name} = {text}")
        return name, result

    # -------------------------------------------------------------- building blocks
    def constant(self, value, t: T) -> tuple[str, T]:
        return self.op(f"stablehlo.constant dense<{literal(value, t)}> : {t.mlir}", t)

    def convert(self, v: tuple[str, T], dtype: str) -> tuple[str, T]:
        name, t = v
        if t.dtype == dtype:
            return v
        out = t.of(dtype=dtype)
        return self.op(f"stablehlo.convert {name} : ({t.mlir}) -> {out.mlir}", out)

    def broadcast(self, v: tuple[str, T], shape: tuple[int, ...]) -> tuple[str, T]:
        """numpy broadcasting of v to shape (trailing dims aligned)."""
        name, t = v
        if t.shape == tuple(shape):
            return v
        offset = len(shape) - len(t.shape)
        dims = ", ".join(str(offset + i) for i in range(len(t.shape)))
        out = t.of(shape=shape)
        return self.op(f"stablehlo.broadcast_in_dim {name}, dims = [{dims}] : ({t.mlir}) -> {out.mlir}", out)

    def broadcast_dims(self, v: tuple[str, T], shape, dims) -> tuple[str, T]:
        name, t = v
        out = t.of(shape=shape)
        return self.op(f"stablehlo.broadcast_in_dim {name}, dims = [{', '.join(map(str, dims))}] : "
                       f"({t.mlir}) -> {out.mlir}", out)

    def reshape(self, v: tuple[str, T], shape) -> tuple[str, T]:
        name, t = v
        if t.shape == tuple(shape):
            return v
        out = t.of(shape=shape)
        return self.op(f"stablehlo.reshape {name} : ({t.mlir}) -> {out.mlir}", out)

    def binary(self, kind: str, a: tuple[str, T], b: tuple[str, T]) -> tuple[str, T]:
        return self.op(f"stablehlo.{kind} {a[0]}, {b[0]} : {a[1].mlir}", a[1])

    def unary(self, kind: str, a: tuple[str, T]) -> tuple[str, T]:
        return self.op(f"stablehlo.{kind} {a[0]} : {a[1].mlir}", a[1])

    def compare(self, direction: str, a: tuple[str, T], b: tuple[str, T]) -> tuple[str, T]:
        out = a[1].of(dtype="bool")
        return self.op(f"stablehlo.compare {direction}, {a[0]}, {b[0]}, {a[1].compare_type} : "
                       f"({a[1].mlir}, {b[1].mlir}) -> {out.mlir}", out)

    def select(self, c, a, b) -> tuple[str, T]:
        return self.op(f"stablehlo.select {c[0]}, {a[0]}, {b[0]} : {c[1].mlir}, {a[1].mlir}", a[1])

    def iota(self, t: T, dim: int) -> tuple[str, T]:
        return self.op(f"stablehlo.iota dim = {dim} : {t.mlir}", t)

    def transpose(self, v: tuple[str, T], perm) -> tuple[str, T]:
        name, t = v
        if list(perm) == list(range(len(perm))):
            return v
        out = t.of(shape=[t.shape[p] for p in perm])
        return self.op(f'"stablehlo.transpose"({name}) {{permutation = array<i64: {", ".join(map(str, perm))}>}} : '
                       f"({t.mlir}) -> {out.mlir}", out)

    def reduce(self, v: tuple[str, T], dims, kind: str, init) -> tuple[str, T]:
        name, t = v
        init_v = self.constant(init, t.scalar)
        out = t.of(shape=[d for i, d in enumerate(t.shape) if i not in dims])
        a, b = self.new(), self.new()
        s = t.scalar.mlir
        body = (f"^bb0({a}: {s}, {b}: {s}):\n      %r = stablehlo.{kind} {a}, {b} : {s}\n"
                f"      stablehlo.return %r : {s}")
        return self.op(f'"stablehlo.reduce"({name}, {init_v[0]}) ({{\n    {body}\n    }}) '
                       f"{{dimensions = array<i64: {', '.join(map(str, sorted(dims)))}>}} : "
                       f"({t.mlir}, {s}) -> {out.mlir}", out)

    def scatter(self, operand, indices, updates, dims: dict, combine: str | None) -> tuple[str, T]:
        """combine: "add" / "maximum" / ... of old and new, or None (the new value)."""
        t = operand[1]
        s = t.scalar.mlir
        old, new = self.new(), self.new()
        if combine is None:
            body = f"^bb0({old}: {s}, {new}: {s}):\n      stablehlo.return {new} : {s}"
        else:
            body = (f"^bb0({old}: {s}, {new}: {s}):\n      %r = stablehlo.{combine} {old}, {new} : {s}\n"
                    f"      stablehlo.return %r : {s}")
        numbers = ", ".join(f"{k} = [{', '.join(map(str, v))}]" if isinstance(v, list) else f"{k} = {v}"
                            for k, v in dims.items())
        return self.op(f'"stablehlo.scatter"({operand[0]}, {indices[0]}, {updates[0]}) ({{\n    {body}\n    }}) '
                       f"{{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<{numbers}>, "
                       f"unique_indices = false}} : ({t.mlir}, {indices[1].mlir}, {updates[1].mlir}) -> {t.mlir}", t)

    def gather(self, operand, indices, dims: dict, slice_sizes, out: T) -> tuple[str, T]:
        numbers = ", ".join(f"{k} = [{', '.join(map(str, v))}]" if isinstance(v, list) else f"{k} = {v}"
                            for k, v in dims.items())
        return self.op(f'"stablehlo.gather"({operand[0]}, {indices[0]}) {{dimension_numbers = '
                       f"#stablehlo.gather<{numbers}>, indices_are_sorted = false, "
                       f"slice_sizes = array<i64: {', '.join(map(str, slice_sizes))}>}} : "
                       f"({operand[1].mlir}, {indices[1].mlir}) -> {out.mlir}", out)
