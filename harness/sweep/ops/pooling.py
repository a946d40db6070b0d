"""Pooling and resampling (edition 2): avg / max pools with ceil_mode and padding as vision
models write them, adaptive average pooling, nearest and bilinear upsampling by a scale
factor (the `.vec` form torch.export emits)."""

from . import FLOATS, T, Made, op

# (kernel, stride, padding) as models draw them: ResNet's 3/2/1 stem pool, 2/2/0 halving.
WINDOWS = ((3, 2, 1), (2, 2, 0), (3, 1, 1), (3, 2, 0))


def pooled(size: int, k: int, s: int, p: int, ceil: bool) -> int:
    """PyTorch's pooled size: a ceil_mode window must start inside the input or its left pad."""
    span = size + 2 * p - k
    out = (span + (s - 1 if ceil else 0)) // s + 1
    if ceil and (out - 1) * s >= size + p:
        out -= 1
    return out


def _window(rng, a: T) -> tuple[int, int, int, bool]:
    k, s, p = rng.choice([w for w in WINDOWS if min(a.shape[2:]) >= w[0]])
    return k, s, p, rng.choice((True, False))


SPATIAL = lambda a: a.rank == 4 and a.dtype in FLOATS and min(a.shape[2:]) >= 3  # noqa: E731


@op("avg_pool2d", "pooling", "rank 4 floats [n, c, h, w], h, w >= 3: a 3/2/1, 2/2/0, 3/1/1 or 3/2/0 window, "
    "ceil_mode and count_include_pad drawn", SPATIAL, weight=10.0, edition=2)
def _avg_pool(rng, a: T) -> Made:
    k, s, p, ceil = _window(rng, a)
    include = rng.choice((True, False)) if p else True
    shape = [*a.shape[:2], *(pooled(x, k, s, p, ceil) for x in a.shape[2:])]
    return Made(a.with_(shape=shape), f"torch.nn.functional.avg_pool2d({{a}}, {k}, {s}, {p}, ceil_mode={ceil}, "
                f"count_include_pad={include})", f"avg_pool2d({k},{s},{p},ceil={ceil},include_pad={include})")


@op("max_pool2d", "pooling", "rank 4 floats [n, c, h, w], h, w >= 3: the same windows, ceil_mode drawn",
    SPATIAL, weight=10.0, edition=2)
def _max_pool(rng, a: T) -> Made:
    k, s, p, ceil = _window(rng, a)
    shape = [*a.shape[:2], *(pooled(x, k, s, p, ceil) for x in a.shape[2:])]
    return Made(a.with_(shape=shape), f"torch.nn.functional.max_pool2d({{a}}, {k}, {s}, {p}, ceil_mode={ceil})",
                f"max_pool2d({k},{s},{p},ceil={ceil})")


@op("adaptive_avg_pool2d", "pooling", "rank 4 floats [n, c, h, w], h, w >= 2: to 1 x 1 (a classifier head) "
    "or 2 x 2", lambda a: a.rank == 4 and a.dtype in FLOATS and min(a.shape[2:]) >= 2, weight=10.0, edition=2)
def _adaptive(rng, a: T) -> Made:
    side = rng.choice((1, 2))
    return Made(a.with_(shape=[*a.shape[:2], side, side]),
                f"torch.nn.functional.adaptive_avg_pool2d({{a}}, {side})", f"adaptive_avg_pool2d({side})")


@op("interpolate", "pooling", "rank 3 or 4 f32: nearest by a scale factor (2, or 1.5 x 2 for rank 4), "
    "or bilinear x2 for rank 4", lambda a: a.rank in (3, 4) and a.dtype == "f32", weight=3.0, edition=2)
def _interpolate(rng, a: T) -> Made:
    mode = rng.choice(("nearest", "nearest", "bilinear")) if a.rank == 4 else "nearest"
    scales = (2.0,) * (a.rank - 2) if mode == "bilinear" or rng.random() < 0.5 or a.rank == 3 else (1.5, 2.0)
    shape = [*a.shape[:2], *(int(x * f) for x, f in zip(a.shape[2:], scales))]
    factor = scales[0] if len(set(scales)) == 1 else scales
    extra = ", align_corners=False" if mode == "bilinear" else ""
    return Made(a.with_(shape=shape), f"torch.nn.functional.interpolate({{a}}, scale_factor={factor}, "
                f"mode={mode!r}{extra})", f"interpolate({mode},{factor})")
