"""One meaning per name (issue 16, defects 2 and 4): ``at`` is always a rate on the
averaging's axis, score thresholds are ``thresholds=``, and every requested point gets its
own row (with the FPR actually used), never merged or dropped."""

from __future__ import annotations

import numpy as np
import pytest

import rocsim
from rocsim.analysis._input import thresholds_at_ratio

RNG = np.random.default_rng(16)
Y = np.repeat([1, 0], [40, 100])
S1 = np.concatenate([RNG.normal(1, 1, 40), RNG.normal(0, 1, 100)])
S2 = np.concatenate([RNG.normal(0.5, 1, 40), RNG.normal(0, 1, 100)])


def test_roc_ci_threshold_at_is_a_total_positive_ratio_as_in_compare_roc():
    q = np.array([0.1, 0.3, 0.6])
    bands = rocsim.roc_ci(Y, S1, at=q)
    np.testing.assert_array_equal(bands.q, q)
    np.testing.assert_array_equal(bands.threshold, thresholds_at_ratio(S1, q))
    cmp = rocsim.compare_roc(Y, S1, S2, at=q)
    np.testing.assert_array_equal(cmp.t1, bands.threshold)


def test_score_thresholds_are_passed_as_thresholds():
    bands = rocsim.roc_ci(Y, S1, thresholds=[2.0, 0.0, -2.0])
    np.testing.assert_array_equal(bands.threshold, [2.0, 0.0, -2.0])
    assert bands.q is None and "q" not in bands.to_frame()
    cmp = rocsim.compare_roc(Y, S1, S2, thresholds=([0.5, 0.0], [0.4, 0.1]))
    np.testing.assert_array_equal(cmp.t1, [0.5, 0.0])
    np.testing.assert_array_equal(cmp.t2, [0.4, 0.1])


@pytest.mark.parametrize("function", [rocsim.roc_ci, rocsim.compare_roc])
@pytest.mark.parametrize("averaging", ["threshold", "vertical"])
@pytest.mark.parametrize("at", [[0.0], [1.0], [2.0], [-0.5], [0.5, 1.0]])
def test_at_outside_the_open_unit_interval_is_refused(function, averaging, at):
    scores = (S1,) if function is rocsim.roc_ci else (S1, S2)
    with pytest.raises(ValueError, match=r"^at \(.*\) must lie strictly between 0 and 1"):
        function(Y, *scores, averaging=averaging, at=at)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"at": [0.5], "thresholds": [0.1]}, "give at .* or thresholds .*, not both"),
        ({"averaging": "vertical", "thresholds": [0.1]}, "thresholds apply to averaging="),
    ],
)
def test_at_and_thresholds_conflicts_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        rocsim.roc_ci(Y, S1, **kwargs)


@pytest.mark.parametrize(
    ("thresholds", "message"),
    [
        ([0.1, 0.2, 0.3], "thresholds must be a pair"),
        ("ab", "thresholds must be a pair"),
        (([0.1, 0.2], [0.1]), "differ in length: 2 != 1"),
        (([0.1], [np.nan]), r"thresholds\[1\] contains NaN"),
    ],
)
def test_compare_roc_threshold_pairs_are_checked(thresholds, message):
    with pytest.raises(ValueError, match=message):
        rocsim.compare_roc(Y, S1, S2, thresholds=thresholds)


def test_vertical_gives_a_row_per_request_with_the_fpr_used():
    # repeated and nearby FPRs used to come back as one row
    at = [0.5, 0.5, 0.001, 0.004, 0.006, 0.3]
    bands = rocsim.roc_ci(Y, S1, averaging="vertical", at=at)
    np.testing.assert_array_equal(bands.at, at)
    np.testing.assert_array_equal(bands.fpr, [0.5, 0.5, 0.01, 0.01, 0.01, 0.3])
    single = rocsim.roc_ci(Y, S1, averaging="vertical", at=[0.3])
    assert bands.tpr_low[-1] == single.tpr_low[0] and bands.tpr_high[-1] == single.tpr_high[0]
    assert bands.tpr_low[0] == bands.tpr_low[1]


def test_paired_vertical_gives_a_row_per_request_in_order():
    at = [0.3, 0.05, 0.3]
    cmp = rocsim.compare_roc(Y, S1, S2, averaging="vertical", at=at)
    np.testing.assert_array_equal(cmp.at, at)
    np.testing.assert_array_equal(cmp.fpr, [0.3, 0.05, 0.3])
    assert cmp.dtpr_low[0] == cmp.dtpr_low[2] and len(cmp.to_frame()) == 3


def test_threshold_averaging_gives_a_row_per_request_even_when_thresholds_coincide():
    q = [0.2, 0.2, 0.199]
    bands = rocsim.roc_ci(Y, S1, at=q)
    assert len(bands.to_frame()) == 3
    assert bands.threshold[0] == bands.threshold[1] == bands.threshold[2]
