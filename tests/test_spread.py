"""The golden's spread (harness/reference.py: spread): how far PyTorch's own result moves
when each value a program makes is nudged by an ulp or two, as a compile may."""

from __future__ import annotations

import types

import numpy as np
import pytest

from harness.reference import SPREAD_ULPS, eager, spread

pytestmark = pytest.mark.harness


def _program(forward):
    import torch

    class Model(torch.nn.Module):
        def forward(self, *xs):
            return forward(torch, *xs)

    return types.SimpleNamespace(Model=Model)


def test_a_cast_next_to_an_integer_boundary_has_a_spread_and_an_exact_one_has_none():
    # 2.0000001 * 1 -> 2 and 2.9999998 floor to 2 and 2; nudged, they cross 2 and 3.
    x = np.array([np.nextafter(np.float32(3.0), np.float32(0)), np.float32(5.5), np.float32(2.0)])
    program = _program(lambda torch, x: (x * 1.0).floor().to(torch.int64))
    golden = eager(program, [x])
    s = spread(program, [x], golden)[0]
    assert s[0] == 1.0, s  # 2.9999998 nudged up is 3
    assert s[1] == 0.0, s  # 5.5 is far from a boundary


def test_integer_programs_have_no_spread_and_the_spread_is_the_same_every_time():
    program = _program(lambda torch, a, b: (a * 3 + b, (a.float() * 0.5).sum()))
    a = np.arange(-6, 6, dtype=np.int32).reshape(3, 4)
    b = np.ones((3, 4), dtype=np.int32)
    golden = eager(program, [a, b])
    first = spread(program, [a, b], golden)
    assert not first[0].any()  # integer arithmetic: no ulp to nudge
    assert 0 < first[1] <= 16 * SPREAD_ULPS * np.finfo(np.float32).eps * np.abs(a).sum()
    again = spread(program, [a, b], golden)
    assert all(np.array_equal(x, y) for x, y in zip(first, again))


def test_a_program_writing_through_a_view_keeps_its_meaning_when_nudged():
    """Views and in-place results are left as they are: the write still lands."""
    def forward(torch, x):
        y = x.clone()
        y[0].add_(10.0)
        return y

    program = _program(forward)
    x = np.ones((2, 3), dtype=np.float32)
    golden = eager(program, [x])
    assert golden[0][0, 0] == 11.0
    s = spread(program, [x], golden)[0]
    assert (s < 1e-4).all(), s


def test_a_golden_that_should_carry_its_spread_and_does_not_is_the_references_fault(tmp_path):
    """compare_stage's check: a case saying `spread = true` whose spread/ is missing (or of
    other shapes) ends on the reference stage, never compared without it."""
    from types import SimpleNamespace

    from harness.reference import save_arrays
    from harness.stages import golden_spreads

    golden = [np.zeros((2, 3), dtype=np.float32)]
    case = SimpleNamespace(spread=True, spread_dir=tmp_path / "spread")
    assert "does not match its outputs" in golden_spreads(case, golden)
    save_arrays(tmp_path / "spread", "spread", [np.zeros(6)])
    assert "does not match its outputs" in golden_spreads(case, golden)
    save_arrays(tmp_path / "spread", "spread", [np.zeros((2, 3))])
    assert golden_spreads(case, golden)[0].shape == (2, 3)
    assert golden_spreads(SimpleNamespace(spread=False), golden) is None
