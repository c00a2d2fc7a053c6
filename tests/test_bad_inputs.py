"""Bad or edge inputs to the Python API: each ends in a clear error naming the argument (or a
correct result), never a NaN, a sentinel integer or a silently dropped part."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from rocsim.core.intervals import proportion_ci
from rocsim.core.kernel import kernel_roc_ci
from rocsim.core.threshold import threshold_ci
from rocsim.core.vertical import fpr_ranks, vertical_ci

POS, NEG = [0.9, 0.8, 0.3, 0.6], [0.7, 0.5, 0.2, 0.1]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        # fpr_ranks returned the int64 minimum for NaN and rank 0 with one negative
        (lambda: fpr_ranks([np.nan], 100), "fpr must be a non-empty 1-D array of finite"),
        (lambda: fpr_ranks([0.5], 1), "needs at least 2 negatives"),
        (lambda: fpr_ranks([0.0], 10), "fpr must lie strictly between 0 and 1"),
        (lambda: fpr_ranks(["abc"], 10), "fpr must hold numbers, got 'abc'"),
        # kernel_roc_ci returned NaN
        (lambda: kernel_roc_ci([1, 1, 1], [0, 1, 2], [0.5]), "pos_scores: kernel smoothing"),
        (lambda: kernel_roc_ci([1, 2, 3], [0, 0, 0], [0.5]), "neg_scores: kernel smoothing"),
        (lambda: kernel_roc_ci([1], [0], [0.5]), "at least 2 distinct scores"),
        (lambda: kernel_roc_ci([1, 2, 3], [0, 1, 2], [np.nan]), "fpr must be a non-empty"),
        # an overflowing pseudo-count gave [0, 0]
        (
            lambda: threshold_ci(POS, NEG, [0.5], method="agresti", pseudo_count=1e308),
            "pseudo_count must be a finite number in [0, 1e+300]",
        ),
        (
            lambda: proportion_ci(3, 10, method="agresti", pseudo_count="abc"),
            "pseudo_count must hold numbers, got 'abc'",
        ),
        (
            lambda: proportion_ci(3, 10, method="agresti", pseudo_count=1j),
            "pseudo_count must hold real numbers",
        ),
        # complex scores were accepted with the imaginary part dropped
        (lambda: threshold_ci([1 + 1j, 2, 3], NEG, [0.5]), "pos_scores must hold real numbers"),
        (lambda: vertical_ci(POS, [0.1, 0.2j, 0.3], [1]), "neg_scores must hold real numbers"),
        # non-numeric scores said "must be a 1-D array of scores, got shape (n,)"
        (lambda: threshold_ci(["a", "b"], NEG, [0.5]), "pos_scores must hold numbers, got 'a'"),
        (lambda: threshold_ci([[1, 2], [3]], NEG, [0.5]), "pos_scores must be an array of"),
    ],
)
def test_bad_input_is_named(call, message):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and no warning on the way (a NaN cast, a ComplexWarning)
        with pytest.raises(ValueError) as err:
            call()
    assert message in str(err.value)


def test_numeric_strings_are_numbers():
    got = threshold_ci(["0.9", "0.8", "0.3", "0.6"], NEG, [0.5])
    want = threshold_ci(POS, NEG, [0.5])
    for field in ("fpr_low", "fpr_high", "tpr_low", "tpr_high"):
        np.testing.assert_array_equal(getattr(got, field), getattr(want, field))


def test_largest_accepted_pseudo_count_gives_the_half_point():
    ci = proportion_ci(3, 10, method="agresti", pseudo_count=1e300)
    assert float(ci.low) == pytest.approx(0.5) and float(ci.high) == pytest.approx(0.5)
