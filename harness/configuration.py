"""The configuration IREE picks for each attention dispatch on a GPU, as small JSON.

A GPU compile (hip, cuda) dumps each executable right after strategy selection
(--iree-hal-dump-executable-configurations-to). Of the executables that hold an
attention op (iree_linalg_ext.attention / online_attention), this reads:

  pipeline, workgroup_size, subgroup_size   the function's translation_info
  lowering_config                            the attention op's own (workgroup/reduction tiles...)
  qk, pv                                     its decomposition_config's per-matmul configs
  mma                                        every MMA intrinsic named in them

So a change in tile sizes or intrinsic shows night to night (report --previous lists it,
as information), while an attention op that became no configured attention dispatch is a
failure, and so is a tuning attribute that --iree-codegen-strip-compilation-info leaves
on the attention op (the bug of iree-org/iree#20053, checked on every variant's real
configuration).
"""

from __future__ import annotations

import re
from pathlib import Path

ATTENTION_OP = re.compile(r"iree_linalg_ext\.(?:online_)?attention\b")
# What the source says it computes attention with (the import, before any dispatch).
ATTENTION_IN_SOURCE = re.compile(r"torch\.aten\.(?:_scaled_dot_product\w*|scaled_dot_product_attention)\b"
                                 r"|iree_linalg_ext\.(?:online_)?attention\b")
_EXPORT = re.compile(r"hal\.executable\.export public @[\w$]*?_dispatch_\d+_?(\w*)")
_TRANSLATION = re.compile(r"translation_info = #iree_codegen\.translation_info<pipeline = (#[\w.]+<\w+>|[\w#.]+)"
                          r"(?: workgroup_size = \[([\d, ]*)\])?(?: subgroup_size = (\d+))?")
_MMA = re.compile(r"mma_kind = #iree_gpu\.\w+<(\w+)")
# What the strip pass must leave no trace of on an attention op.
TUNING_ATTRIBUTES = ("lowering_config", "compilation_info", "qk_attrs", "pv_attrs", "translation_info")


def _bracketed(text: str, start: int) -> str:
    """The text from `start` (an opening bracket) to its matching closing one."""
    pairs = {"<": ">", "{": "}", "[": "]", "(": ")"}
    stack = []
    for i in range(start, len(text)):
        c = text[i]
        if c in pairs:
            stack.append(pairs[c])
        elif stack and c == stack[-1]:
            stack.pop()
            if not stack:
                return text[start:i + 1]
    return text[start:]


def _fields(body: str) -> dict[str, str]:
    """`{a = 1, b = [2, 3]}` -> {"a": "1", "b": "[2, 3]"} (top-level entries only)."""
    body = body.strip()[1:-1] if body.strip().startswith("{") else body
    out, depth, key_start, parts = {}, 0, 0, []
    for i, c in enumerate(body):
        if c in "<{[(":
            depth += 1
        elif c in ">}])" and not (c == ">" and i and body[i - 1] == "-"):
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(body[key_start:i])
            key_start = i + 1
    parts.append(body[key_start:])
    for part in parts:
        key, eq, value = part.partition("=")
        if eq:
            out[key.strip()] = " ".join(value.split())
    return out


def _lowering_config(text: str, at: int) -> dict[str, str]:
    """The fields of the first #iree_gpu.lowering_config<{...}> at or after `at`."""
    m = re.compile(r"lowering_config = #iree_\w+\.lowering_config<").search(text, at)
    if not m:
        return {}
    return _fields(_bracketed(text, m.end() - 1)[1:-1])


def read_configuration(text: str) -> dict | None:
    """One dumped executable's attention configuration, or None (no attention op)."""
    op = ATTENTION_OP.search(text)
    if not op:
        return None
    export = _EXPORT.search(text)
    config: dict = {"dispatch": export.group(1) if export else ""}
    translation = _TRANSLATION.search(text)
    if translation:
        config["pipeline"] = translation.group(1)
        if translation.group(2):
            config["workgroup_size"] = [int(n) for n in translation.group(2).split(",")]
        if translation.group(3):
            config["subgroup_size"] = int(translation.group(3))
    # The op's decomposition_config (qk/pv), then its own lowering_config after it.
    line_end = text.find("\n", op.start())
    line = text[op.start(): line_end if line_end > 0 else len(text)]
    decomposition = re.search(r"decomposition_config = ", line)
    rest = 0
    if decomposition:
        body = _bracketed(line, decomposition.end())
        rest = decomposition.end() + len(body)
        for part in ("qk", "pv"):
            m = re.search(part + r"_attrs = \{", body)
            if m:
                config[part] = _lowering_config(body, m.end())
    own = _lowering_config(line, rest)
    if own:
        config["lowering_config"] = own
    mmas = sorted(set(_MMA.findall(line)))
    if mmas:
        config["mma"] = mmas
    return config


def read_configurations(folder: Path) -> list[dict]:
    """Every attention dispatch's configuration in a dump folder, by dispatch name."""
    found = []
    for path in sorted(Path(folder).glob("*.mlir")):
        config = read_configuration(path.read_text(errors="replace"))
        if config is not None:
            found.append(config)
    return sorted(found, key=lambda c: c["dispatch"])


def has_attention(source_text: str) -> bool:
    return bool(ATTENTION_IN_SOURCE.search(source_text))


def left_after_strip(stripped: str) -> list[str]:
    """The tuning attributes still on an attention op after the strip pass."""
    left = []
    for m in ATTENTION_OP.finditer(stripped):
        end = stripped.find("\n", m.start())
        line = stripped[m.start(): end if end > 0 else len(stripped)]
        left += [a for a in TUNING_ATTRIBUTES if a in line and a not in left]
    return left


def changes(before: list[dict], after: list[dict]) -> list[tuple[str, str, str, str]]:
    """(dispatch, field, before, after) for each field that differs; a dispatch present
    in one list only shows as a whole."""
    old = {c["dispatch"]: c for c in before}
    new = {c["dispatch"]: c for c in after}
    out = []
    for name in sorted(old.keys() | new.keys()):
        a, b = old.get(name), new.get(name)
        if a is None or b is None:
            out.append((name, "(dispatch)", "absent" if a is None else "present", "absent" if b is None else "present"))
            continue
        for key in sorted((a.keys() | b.keys()) - {"dispatch"}):
            if a.get(key) != b.get(key):
                out.append((name, key, _spelled(a.get(key)), _spelled(b.get(key))))
    return out


def _spelled(value) -> str:
    if value is None:
        return "absent"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {v}" for k, v in value.items()) + "}"
    return str(value)
