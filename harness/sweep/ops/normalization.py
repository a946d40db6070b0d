"""Normalizations: softmax, log_softmax, layer_norm, group_norm, an RMS norm."""

from . import FLOATS, T, Made, op


@op("softmax", "normalization", "rank >= 1 floats", lambda a: a.rank >= 1 and a.dtype in FLOATS)
def _softmax(rng, a: T) -> Made:
    d = rng.randrange(a.rank)
    return Made(a, f"torch.softmax({{a}}, dim={d})", f"softmax(dim={d})")


@op("log_softmax", "normalization", "rank >= 1 f32", lambda a: a.rank >= 1 and a.dtype == "f32")
def _log_softmax(rng, a: T) -> Made:
    d = rng.randrange(a.rank)
    return Made(a, f"torch.log_softmax({{a}}, dim={d})", f"log_softmax(dim={d})")


@op("layer_norm", "normalization", "rank >= 2 f32: over the last dim, with a fresh weight and bias",
    lambda a: a.rank >= 2 and a.dtype == "f32")
def _layer_norm(rng, a: T) -> Made:
    w, b = T((a.shape[-1],), "f32"), T((a.shape[-1],), "f32")
    return Made(a, "torch.nn.functional.layer_norm({a}, ({a}.shape[-1],), {w0}, {w1})", "layer_norm(last)",
                fresh=(w, b))


@op("group_norm", "normalization", "rank 3-4 f32 [n, c, ...], c even: 2 groups",
    lambda a: a.rank in (3, 4) and a.dtype == "f32" and a.shape[1] % 2 == 0)
def _group_norm(rng, a: T) -> Made:
    return Made(a, "torch.nn.functional.group_norm({a}, 2)", "group_norm(2)")


@op("rms_norm", "normalization", "rank >= 1 f32: x * rsqrt(mean(x^2) + eps) over the last dim",
    lambda a: a.rank >= 1 and a.dtype == "f32")
def _rms_norm(rng, a: T) -> Made:
    return Made(a, "{a} * torch.rsqrt({a}.pow(2).mean(-1, keepdim=True) + 1e-6)", "rms_norm(last)")
