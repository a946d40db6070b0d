"""Output comparison and its diagnostics (harness/compare.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from harness.case import OutputRule
from harness.compare import compare_outputs, tensor_summary

pytestmark = pytest.mark.harness


def one(actual, expected, atol=1e-5, rtol=1e-5, rules=(), inputs=()):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # inf - inf etc. are expected here
        c = compare_outputs([np.asarray(actual)], [np.asarray(expected)], list(inputs), atol,
                            rtol, rules)
    assert len(c.outputs) == 1
    return c, c.outputs[0]


def test_exact_match_is_ok():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    c, d = one(x, x.copy())
    assert c.ok and d.ok
    assert d.mismatched == 0 and d.total == 12 and d.max_abs == 0.0
    assert c.summary() == "vs golden: 1 output(s) match"
    assert c.as_dict()["ok"] is True


def test_within_tolerance_is_ok_and_just_outside_is_not():
    e = np.array([1.0, 100.0], dtype=np.float64)
    _, d = one(e + [0.9e-5, 0.9e-3], e, atol=1e-5, rtol=1e-5)  # 1e-5 + 1e-5*100 = 1.01e-3
    assert d.ok, d.message
    _, d = one(e + [0.0, 1.1e-3], e, atol=1e-5, rtol=1e-5)
    assert not d.ok


def test_values_off_message():
    expected = np.zeros((2, 3), dtype=np.float32)
    actual = expected.copy()
    actual[0, 2] = 0.5
    actual[1, 1] = 2.5  # the worst
    c, d = one(actual, expected, atol=0.01, rtol=0.0)
    assert not c.ok and not d.ok
    assert d.mismatched == 2 and d.total == 6
    assert d.max_abs == pytest.approx(2.5)
    m = d.message
    assert "2/6 elements differ" in m
    assert "max abs err 2.5" in m
    assert "worst at [1, 1]" in m
    assert "got 2.5, expected 0;" in m  # plain numbers, not np.float32(...)
    assert "max rel err 0;" in m  # no relative error against an expected 0 (it read 6e+307)
    assert "atol=0.01" in m and "rtol=0" in m
    assert "max=2.5" in m  # the tensor summary of what IREE produced
    assert c.summary().startswith("vs golden: output 0: 2/6")
    assert c.as_dict()["outputs"][0]["mismatched"] == 2


def test_worst_index_is_the_largest_error_among_mismatches():
    expected = np.array([10.0, 20.0, 30.0, 40.0])
    actual = np.array([10.0, 20.5, 37.0, 41.0])
    _, d = one(actual, expected, atol=0.1, rtol=0)
    assert "worst at [2]" in d.message and "3/4" in d.message
    assert d.max_abs == pytest.approx(7.0)
    assert d.max_rel == pytest.approx(7.0 / 30.0)


def test_shape_mismatch():
    c, d = one(np.zeros((2, 3)), np.zeros((3, 2)))
    assert not c.ok
    assert "shape [2, 3] != expected [3, 2]" in d.message


def test_dtype_difference_is_noted_but_values_compared():
    _, d = one(np.array([1, 2, 3], dtype=np.int32), np.array([1, 2, 3], dtype=np.int64))
    assert d.ok
    assert "dtype int32 vs expected int64" in d.message
    _, d = one(np.array([1, 2, 4], dtype=np.int32), np.array([1, 2, 3], dtype=np.int64))
    assert not d.ok and "dtype int32 vs expected int64" in d.message


def test_non_finite_values_are_counted():
    _, d = one(np.array([1.0, np.nan, np.inf, 0.5]), np.array([1.0, 2.0, 3.0, 0.5]))
    assert "(got 1 NaN, 1 Inf)" in d.message and "got nan, expected 2" in d.message


def test_nan_vs_nan_is_ok():
    x = np.array([1.0, np.nan, 3.0], dtype=np.float32)
    _, d = one(x, x.copy())
    assert d.ok, d.message


def test_nan_vs_number_is_a_mismatch():
    _, d = one(np.array([1.0, np.nan, 3.0]), np.array([1.0, 2.0, 3.0]))
    assert not d.ok
    assert d.mismatched == 1
    assert "worst at [1]" in d.message and "nan" in d.message


def test_number_vs_expected_nan_is_a_mismatch():
    _, d = one(np.array([1.0, 2.0]), np.array([1.0, np.nan]))
    assert not d.ok and d.mismatched == 1


@pytest.mark.parametrize("actual, rtol", [(1.0, 1e-5), (1.0, 0.0), (-np.inf, 1e-5)])
def test_value_vs_expected_inf_is_a_mismatch(actual, rtol):
    _, d = one(np.array([actual]), np.array([np.inf]), rtol=rtol)
    assert not d.ok


def test_inf_vs_same_inf_is_ok_and_inf_vs_number_is_not():
    x = np.array([np.inf, -np.inf, 1.0])
    _, d = one(x, x.copy())
    assert d.ok, d.message
    _, d = one(np.array([np.inf]), np.array([1.0]))
    assert not d.ok


def test_empty_outputs_are_ok():
    _, d = one(np.zeros((0, 3)), np.zeros((0, 3)))
    assert d.ok


def test_output_count_mismatch():
    x = np.zeros(3)
    c = compare_outputs([x, x], [x], [], 1e-5, 1e-5, (), "eager")
    assert not c.ok
    assert c.problem == "2 outputs, expected 1"
    assert c.summary() == "vs eager: 2 outputs, expected 1"
    assert not compare_outputs([], [x], [], 1e-5, 1e-5).ok


def test_only_the_bad_output_is_reported():
    good = np.ones(4)
    c = compare_outputs([good, good + 1], [good, good], [], 1e-5, 1e-5)
    assert not c.ok
    assert [o.ok for o in c.outputs] == [True, False]
    assert "output 1:" in c.summary() and "output 0" not in c.summary()


# ------------------------------------------------------------------------ indices mode

SOURCE = np.array([[3.0, 1.0, 3.0, 2.0],
                   [0.5, 7.0, 7.0, 7.0]], dtype=np.float32)
TOPK2 = np.array([[0, 2], [1, 2]], dtype=np.int64)  # golden: ties resolved one way
RULE = (OutputRule(index=1, mode="indices", input=0, axis=-1),)


def topk(indices):
    """A topk result: (values, indices); only the indices are under test."""
    values = np.take_along_axis(SOURCE, TOPK2, axis=-1)
    return compare_outputs([values, np.asarray(indices)], [values, TOPK2], [SOURCE], 1e-5,
                           1e-5, RULE)


def test_indices_identical_pass():
    c = topk(TOPK2.copy())
    assert c.ok and "indices ok" in c.outputs[1].message


def test_indices_tied_in_swapped_order_pass():
    c = topk(np.array([[2, 0], [3, 1]]))  # same values picked, other tie order/choice
    assert c.ok, c.summary()


def test_indices_wrong_index_fails():
    c = topk(np.array([[0, 1], [1, 2]]))  # picks 1.0 where 3.0 was wanted
    assert not c.ok
    d = c.outputs[1]
    assert d.mismatched == 1
    assert "output 1 (indices, compared by the values they select)" in d.message
    assert "worst at [0, 1]" in d.message


@pytest.mark.parametrize("bad", [4, -1])
def test_indices_out_of_range_fails(bad):
    c = topk(np.array([[0, bad], [1, 2]]))
    assert not c.ok
    assert "indices out of range [0, 4)" in c.outputs[1].message


def test_indices_along_axis_0():
    source = np.array([[1.0, 5.0], [1.0, 2.0]])  # column 0: rows 0 and 1 tie
    rule = (OutputRule(index=0, mode="indices", input=0, axis=0),)
    golden = np.array([[0, 0]])  # argmax over rows
    assert compare_outputs([np.array([[1, 0]])], [golden], [source], 0, 0, rule).ok
    assert not compare_outputs([np.array([[0, 1]])], [golden], [source], 0, 0, rule).ok
    assert not compare_outputs([np.array([[2, 0]])], [golden], [source], 0, 0, rule).ok


def test_indices_shape_mismatch():
    c = topk(np.array([0, 2]))
    assert not c.ok and "shape [2] != expected [2, 2]" in c.outputs[1].message


def test_tensor_summary():
    assert tensor_summary(np.array([1.0, 3.0], dtype=np.float32)) == \
        "float32[2] min=1 max=3 mean=2"
    assert tensor_summary(np.array([True, False, True])) == "bool[3] true=2"
    assert tensor_summary(np.zeros((0, 2))) == "float64[0, 2] (empty)"


def test_signless_integer_results_read_with_the_goldens_signedness():
    golden = np.array([1, 169, 255], dtype=np.uint8)
    from_iree = golden.view(np.int8)  # the same bits, as IREE's signless i8 writes them
    assert compare_outputs([from_iree], [golden], [], 0, 0).ok
    assert not compare_outputs([np.array([1, 168, 255], np.uint8).view(np.int8)], [golden], [], 0, 0).ok


# ------------------------------------------------------------------ the golden's spread

def test_an_element_within_the_goldens_spread_passes_and_is_counted():
    """A generated program's float cast to an integer next to a boundary: the golden's
    spread says the element moves by 1 under nudges a compiler may make, so 35 for 36
    passes there; the same difference where the spread is 0 fails."""
    expected = np.array([36, 12, 7], dtype=np.int64)
    actual = np.array([35, 12, 7], dtype=np.int64)
    ill = np.array([1.0, 0.0, 0.0])
    c = compare_outputs([actual], [expected], [], 0.06, 0.02, (), "golden", [ill])
    assert c.ok, c.summary()
    assert "1 element(s) judged within the golden's spread only" in c.outputs[0].message
    planted = compare_outputs([np.array([36, 11, 7])], [expected], [], 0.06, 0.02, (), "golden", [ill])
    assert not planted.ok and "1/3 elements differ" in planted.summary()
    without = compare_outputs([actual], [expected], [], 0.06, 0.02)
    assert not without.ok


def test_a_wrong_value_far_beyond_the_spread_still_fails():
    e = np.linspace(1, 2, 8, dtype=np.float32)
    spread = np.full(8, 1e-6)
    wrong = e.copy()
    wrong[3] += 0.5  # a bug, not a rounding
    c = compare_outputs([wrong], [e], [], 1e-5, 1e-5, (), "golden", [spread])
    assert not c.ok and "1/8 elements differ" in c.summary()
    assert "spread" not in c.summary()


def test_a_spread_of_another_shape_is_refused():
    e = np.zeros((2, 3), dtype=np.float32)
    with pytest.raises(ValueError, match="spread has shape"):
        compare_outputs([e], [e], [], 1e-5, 1e-5, (), "golden", [np.zeros(6)])
