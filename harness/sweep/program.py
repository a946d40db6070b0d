"""What a sweep's builder returns, and the pieces builders share.

A builder (sweeps/<family>.py) is pure Python that never imports torch: `build(point)`
returns a `Program` whose `source` is a whole, self-contained model.py (Model,
example_inputs(), and dynamic_shapes() when dims are dynamic), exactly what a case
directory holds. So a variant runs through the case's import, golden and stages, and
`sweep --promote` only has to copy it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# The one per-dtype table of tolerances (atol, rtol, why): outputs are compared in the
# dtype the program computes in. Selections (topk values, gathers) are exact anyway.
TOLERANCES = {
    "f32": (1e-5, 1e-5, ""),
    "f16": (1e-2, 1e-2, ""),
    "bf16": (6e-2, 2e-2, "bf16 keeps 8 bits of mantissa: one rounding step is 2^-8 relative"),
    "i8": (0, 0, ""), "u8": (0, 0, ""), "i32": (0, 0, ""), "i64": (0, 0, ""), "bool": (0, 0, ""),
}
TORCH_DTYPES = {"f32": "torch.float32", "f16": "torch.float16", "bf16": "torch.bfloat16",
                "i8": "torch.int8", "u8": "torch.uint8", "i32": "torch.int32", "i64": "torch.int64"}
FLOATS = ("f32", "f16", "bf16")
AUTO = "AUTO"  # a dynamic dim whose relations export works out (model_source)


@dataclass(frozen=True)
class Program:
    source: str  # model.py
    dtype: str  # of the outputs compared: picks the tolerances
    outputs: tuple[dict, ...] = field(default=())  # [[compare.output]] rules (indices outputs)
    # What a generated program is made of, as "dtype=f16", "dims=dynamic", "context=cast":
    # the report's heat maps count failures by them (a grid's variant id says its own).
    traits: tuple[str, ...] = field(default=())
    # A program written in MLIR (IREE's own tests): `source` is then its reference.py
    # (example_inputs(), reference()) and `mlir` the module whose @main is compiled.
    mlir: str = ""
    tolerance: tuple[float, float] | None = None  # (atol, rtol) the program's checks state
    # Compiler flags the program is written for (an e2e test's upstream suite's), added to
    # the sweep's and checked as a case's are.
    flags: tuple[str, ...] = ()
    # How many results @main returns: what a differential sweep's sides compare (its
    # programs have no golden to count them by).
    results: int = 0
    # The golden carries its spread (reference.spread): a drawn program's values come from
    # a seed, not a person, so some elements sit where an ulp decides them.
    spread: bool = False

    def compare_table(self) -> dict:
        atol, rtol, why = TOLERANCES[self.dtype]
        if self.tolerance is not None:
            (atol, rtol), why = self.tolerance, "the tolerance the program's own checks state"
        table = {"atol": atol, "rtol": rtol, "output": [dict(o) for o in self.outputs]}
        if why:
            table["tolerance_reason"] = why
        if self.spread:
            table["spread"] = True
        return table


# Inlined into every generated model.py (a case reads nothing outside itself).
VALUES_SOURCE = '''
def values(shape, dtype, kind, seed):
    """Seeded inputs that hit the hard cases. kind: random; ties (few distinct values);
    extremes (+-inf, +-0 and the largest finite values for floats, the type's min and
    max for integers). bf16 is held as the f32 values it rounds to (numpy has no bf16)."""
    g = torch.Generator().manual_seed(seed)
    n = 1
    for s in shape:
        n *= s
    if dtype.is_floating_point:
        if kind == "ties":
            x = torch.randint(-3, 4, (n,), generator=g).to(torch.float32) / 2
        else:
            x = torch.randn(n, generator=g) * 4
        if kind == "extremes" and n >= 2:
            big = float(torch.finfo(dtype).max)
            specials = torch.tensor([float("inf"), -float("inf"), 0.0, -0.0, big, -big])
            where = torch.randperm(n, generator=g)[: min(n, len(specials))]
            x[where] = specials[: len(where)]
        x = x.reshape(shape).to(dtype)
        return x.to(torch.float32) if dtype == torch.bfloat16 else x
    info = torch.iinfo(dtype)
    if kind == "ties":
        lo, hi = max(info.min, -3), min(info.max, 3)
    else:
        lo, hi = max(info.min, -(2 ** 40)), min(info.max, 2 ** 40)
    x = torch.randint(lo, hi + 1, (n,), generator=g, dtype=torch.int64)
    if kind == "extremes" and n >= 2:
        where = torch.randperm(n, generator=g)[:2]
        x[where[0]], x[where[1]] = info.min, info.max
    return x.to(dtype).reshape(shape)
'''


def values_call(shape: list[int], dtype: str, seed: int, kind: str | None = None) -> str:
    """The example-input expression `values(...)` (VALUES_SOURCE) for one input. The
    default kind: random floats, and small integers (ties) for integer dtypes, so that
    sums and products stay exact and overflow is never what a variant is about."""
    kind = kind or ("random" if dtype in FLOATS else "ties")
    return f"values({shape}, {TORCH_DTYPES[dtype]}, {kind!r}, seed={seed})"


def model_source(doc: str, forward_args: list[str], body: list[str], inputs: list[str],
                 dynamic: dict[str, dict[int, str]] | None = None, helpers: str = "",
                 mins: dict[str, int] | None = None) -> str:
    """A model.py: `forward(self, *forward_args)` runs `body`; example_inputs() returns
    the expressions `inputs`; `dynamic` maps an argument to {dim: name} of dynamic dims,
    each at least `mins[name]` (default 2: export specialises sizes 0 and 1). The name
    AUTO leaves the dim to export (torch.export.Dim.AUTO): dynamic where the program
    allows, related to the other inputs' dims as the program relates them (a matmul's
    contraction, a product of collapsed dims), static where the program needs a size."""
    lines = [f'"""{doc}"""', "import torch", "", VALUES_SOURCE.strip(), ""]
    if helpers:
        lines += [helpers.strip(), ""]
    lines += ["", "class Model(torch.nn.Module):",
              f"    def forward(self, {', '.join(forward_args)}):"]
    lines += [f"        {line}" for line in body]
    lines += ["", "", "def example_inputs():", f"    return ({', '.join(inputs)},)"]
    if dynamic:
        dims = sorted({name for per_arg in dynamic.values() for name in per_arg.values()} - {AUTO})
        lines += ["", "", "def dynamic_shapes():"]
        # No max: a bounded dim is a program of its own (its stack buffers are sized by
        # the bound), and the seeds' dims are unbounded.
        lines += [f"    {d} = torch.export.Dim({d!r}, min={(mins or {}).get(d, 2)})" for d in dims]
        if any(AUTO in per_arg.values() for per_arg in dynamic.values()):
            lines += [f"    {AUTO} = torch.export.Dim.AUTO"]
        spelled = ", ".join(f"{arg!r}: {{{', '.join(f'{k}: {v}' for k, v in per.items())}}}"
                            for arg, per in dynamic.items())
        lines += [f"    return {{{spelled}}}"]
    return "\n".join(lines) + "\n"
