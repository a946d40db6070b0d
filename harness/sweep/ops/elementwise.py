"""Elementwise: casts in every direction (bit-extending, narrowing, to and from bool),
compare / select, clamp, arithmetic with PyTorch's promotion, integer division,
remainder and shifts, exp / tanh / erf. Values stay well defined: exp of a clamped
value, division by a value made nonzero, shifts by 1 of small integers."""

from . import DTYPES, FLOATS, INTS, TORCH, T, Made, broadcastable, op, promoted


@op("cast", "elementwise", "any dtype to any other (float <-> int truncates toward 0; to bool is != 0)",
    lambda a: True)
def _cast(rng, a: T) -> Made:
    to = rng.choice([d for d in DTYPES if d != a.dtype and not (a.dtype in FLOATS and d in ("u8", "i8"))])
    # A float cast to a narrow int would wrap where the value is out of range: floats go
    # to i32 / i64 / bool / floats only (u8 and i8 are reached from ints and bools).
    if a.dtype in FLOATS and to in INTS:
        # Float to int rounds toward 0: a value that sits on an integer (a saturated tanh,
        # the 0 and 1 of a mask) would flip with a last-bit difference, so it is moved off
        # the integers first (x * 3.7 + 0.5); out of range it is undefined: clamped.
        return Made(a.with_(dtype=to), f"({{a}} * 3.7 + 0.5).clamp(-1000, 1000).to({TORCH[to]})",
                    f"cast({a.dtype}->{to})")
    return Made(a.with_(dtype=to), f"{{a}}.to({TORCH[to]})", f"cast({a.dtype}->{to})")


def _binary_fits(a: T, b: T) -> bool:
    # No 0-d operand: PyTorch promotes a 0-d tensor by category only (f16 * 0-d f32 is f16).
    return (a.rank >= 1 and b.rank >= 1 and broadcastable(a, b) and promoted(a.dtype, b.dtype) in DTYPES
            and "bool" not in (a.dtype, b.dtype))


@op("add", "elementwise", "two values that broadcast (b no larger), not bool: a + b with promotion",
    _binary_fits, arity=2)
def _add(rng, a: T, b: T) -> Made:
    return Made(a.with_(dtype=promoted(a.dtype, b.dtype)), "{a} + {b}", "add")


@op("mul", "elementwise", "two values that broadcast, not bool: a * b with promotion", _binary_fits, arity=2)
def _mul(rng, a: T, b: T) -> Made:
    return Made(a.with_(dtype=promoted(a.dtype, b.dtype)), "{a} * {b}", "mul")


@op("compare_select", "elementwise", "two values that broadcast, not bool: where(a > b, a, b)",
    lambda a, b: _binary_fits(a, b) and a.dtype == b.dtype, arity=2)
def _select(rng, a: T, b: T) -> Made:
    cmp = rng.choice((">", "<", ">="))
    return Made(a, f"torch.where({{a}} {cmp} {{b}}, {{a}}, {{b}})", f"where(a{cmp}b)")


@op("compare", "elementwise", "not bool: a compare with 0 (gives bool)", lambda a: a.dtype != "bool")
def _compare(rng, a: T) -> Made:
    cmp = rng.choice((">", "<=", "=="))
    return Made(a.with_(dtype="bool"), f"({{a}} {cmp} 0)", f"compare({cmp}0)")


@op("clamp", "elementwise", "not bool: clamp to [-2, 2] (u8: [1, 2])", lambda a: a.dtype != "bool")
def _clamp(rng, a: T) -> Made:
    lo = 1 if a.dtype == "u8" else -2
    return Made(a, f"torch.clamp({{a}}, {lo}, 2)", f"clamp({lo},2)")


@op("int_div", "elementwise", "integers: floor division by (|x| mod 3 + 1), never 0",
    lambda a: a.dtype in ("i32", "i64"))
def _div(rng, a: T) -> Made:
    mode = rng.choice(("floor", "trunc"))
    return Made(a, f"torch.div({{a}}, {{a}}.abs() % 3 + 1, rounding_mode='{mode}')", f"div({mode})")


@op("remainder", "elementwise", "i32 / i64: x mod 3 (sign of the divisor, as Python)",
    lambda a: a.dtype in ("i32", "i64"))
def _remainder(rng, a: T) -> Made:
    return Made(a, "torch.remainder({a}, 3)", "remainder(3)")


@op("shift", "elementwise", "i32 / i64 / u8: left or right shift by a tensor of ones (the scalar form has no "
    "torch-mlir lowering)", lambda a: a.dtype in ("i32", "i64", "u8"))
def _shift(rng, a: T) -> Made:
    how = rng.choice(("left", "right"))
    return Made(a, f"torch.bitwise_{how}_shift({{a}}, torch.ones_like({{a}}))", f"shift_{how}(1)")


@op("exp", "elementwise", "floats: exp of the value clamped to [-4, 4]", lambda a: a.dtype in FLOATS)
def _exp(rng, a: T) -> Made:
    return Made(a, "torch.exp(torch.clamp({a}, -4, 4))", "exp(clamped)")


@op("tanh", "elementwise", "floats", lambda a: a.dtype in FLOATS)
def _tanh(rng, a: T) -> Made:
    return Made(a, "torch.tanh({a})", "tanh")


@op("erf", "elementwise", "f32", lambda a: a.dtype == "f32")
def _erf(rng, a: T) -> Made:
    return Made(a, "torch.erf({a})", "erf")


@op("abs_neg", "elementwise", "signed ints and floats: -|x|", lambda a: a.dtype in (*FLOATS, "i8", "i32", "i64"))
def _abs_neg(rng, a: T) -> Made:
    return Made(a, "-torch.abs({a})", "-abs")


@op("bool_logic", "elementwise", "two bools that broadcast: and / or / xor",
    lambda a, b: a.dtype == "bool" and b.dtype == "bool" and broadcastable(a, b), arity=2, weight=6.0)
def _logic(rng, a: T, b: T) -> Made:
    how = rng.choice(("&", "|", "^"))
    return Made(a, f"({{a}} {how} {{b}})", f"bool{how}")

