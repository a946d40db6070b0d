"""Failure signatures: ten items failing for one reason are one group.

A signature is the failing stage's diagnostic with what varies between items
removed: paths, SSA names, numbers, shapes and types' sizes, hex, dispatch names.
Groups are ordered by how much a reader should care: wrong numbers (miscompiles)
first, then crashes, compile errors, run errors, timeouts and the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .outcomes import XPASS, severity
from .record import ItemRecord

_RULES = (
    (re.compile(r"(?:[A-Za-z]:)?(?:/[\w.@+-]+)+/?"), "<path>"),  # absolute paths
    (re.compile(r"[\w.-]+\.(?:mlir|vmfb|npy|py)\b"), "<file>"),
    (re.compile(r"%[\w.$-]+"), "%v"),  # SSA values
    (re.compile(r"@[\w$.-]+"), "@f"),  # symbols (dispatch names carry shapes)
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "<hex>"),
    (re.compile(r"\b[0-9a-f]{12,40}\b"), "<hash>"),
    (re.compile(r"\b(?:\d+|\?)(?:x(?:\d+|\?))+(?:x[a-z]+\d*)?\b"), "<shape>"),  # 4x?x8xf32
    (re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?"), "<n>"),
    (re.compile(r"\s+"), " "),
)


def normalise(text: str) -> str:
    text = text.strip().splitlines()[0] if text.strip() else ""
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return text.strip()[:240]


@dataclass
class Group:
    outcome: str
    signature: str
    items: list[ItemRecord] = field(default_factory=list)

    @property
    def example(self) -> ItemRecord:
        return self.items[0]


def signature_of(item: ItemRecord) -> str:
    stage = item.failing_stage
    if stage is None:
        return normalise(item.message)
    if stage.stage == "compare":
        # Wrong numbers: the signature is which outputs differ, not by how much.
        comps = stage.data.get("comparisons", [])
        bad = sorted({o["index"] for c in comps for o in c.get("outputs", []) if not o["ok"]})
        return f"wrong values in output(s) {bad}" if bad else normalise(stage.detail)
    return normalise(stage.detail or stage.log)


def group_failures(items: list[ItemRecord]) -> list[Group]:
    """Failing items (verdict FAIL or ERROR) grouped by outcome + signature, most severe first."""
    groups: dict[tuple[str, str], Group] = {}
    for item in items:
        if not item.is_failure or item.verdict == XPASS:
            continue
        key = (item.outcome, signature_of(item))
        groups.setdefault(key, Group(*key)).items.append(item)
    return sorted(groups.values(), key=lambda g: (severity(g.outcome), -len(g.items), g.signature))
