"""``compare_roc(band="simultaneous")``: the sup-t band of two classifiers' paired difference,
calibrated on seeded paired resamples (:mod:`rocsim.core.resampled_curves`). Its resampled
curves against the exact laws, the share of independent resampled curves the band holds, its
reproducibility and its bad input."""

from __future__ import annotations

import numpy as np
import pytest

import rocsim
from rocsim.core import vertical_distribution
from rocsim.core.paired_vertical import vertical_difference
from rocsim.core.resampled_curves import paired_vertical_tprs, sup_t_critical_value


def paired_data(n: int, seed: int, decimals: int | None = None):
    rng = np.random.default_rng(seed)
    scores = rng.multivariate_normal([0.0, 0.0], [[1.0, 0.6], [0.6, 1.0]], size=2 * n)
    scores[:n] += (1.2, 0.9)
    if decimals is not None:
        scores = np.round(scores, decimals)
    return np.r_[np.ones(n), np.zeros(n)], scores


@pytest.mark.parametrize("side", ["lower", "upper"])
def test_resampled_curves_follow_the_exact_laws(side):
    # scores rounded to one decimal: ties within and across the classes
    _, scores = paired_data(80, 1, decimals=1)
    (pos1, neg1), (pos2, neg2) = ((scores[:80, j], scores[80:, j]) for j in (0, 1))
    ranks = np.array([4, 20, 40, 60, 76])
    b = 40_000
    first, second = paired_vertical_tprs(
        [(pos1, neg1), (pos2, neg2)], ranks, side, b, np.random.default_rng(2)
    )
    for tprs, (pos, neg) in ((first, (pos1, neg1)), (second, (pos2, neg2))):
        law = vertical_distribution(pos, neg, ranks, side=side)
        se = np.sqrt(law.var / b)
        assert np.all(np.abs(tprs.mean(axis=0) - law.mean) <= 4 * se)
    difference = vertical_difference(pos1, pos2, neg1, neg2, ranks, side=side)
    d = first - second
    assert np.all(np.abs(d.mean(axis=0) - difference.mean) <= 4 * np.sqrt(difference.var / b))
    # the variance of a sample variance is about 2 var^2 / b for a near-normal statistic
    assert np.all(np.abs(d.var(axis=0) / difference.var - 1) <= 4 * np.sqrt(2 / b) * 1.5)


def test_critical_value_is_the_quantile_of_the_largest_deviation():
    curves = np.array([[0.0, 1.0], [2.0, 0.0], [0.5, 0.5], [0.0, 0.0]])
    mean, sd = np.zeros(2), np.array([1.0, 2.0])
    # largest standardised deviations 0.5, 2, 0.5, 0: three of four within 0.5
    assert sup_t_critical_value(curves, mean, sd, 0.75) == 0.5
    assert sup_t_critical_value(curves, mean, sd, 0.76) == 2.0
    # a point whose law is one value (sd 0) adds nothing
    assert sup_t_critical_value(curves[:, :1], mean[:1], np.zeros(1), 0.9) == 0.0


@pytest.mark.parametrize("averaging", ["vertical", "horizontal"])
def test_simultaneous_band_holds_its_level_of_independent_resampled_curves(averaging):
    n, at = 100, np.linspace(0.05, 0.95, 11)
    y, scores = paired_data(n, 3)
    got = rocsim.compare_roc(
        y, scores[:, 0], scores[:, 1], averaging=averaging, at=at, band="simultaneous"
    )
    pos, neg = scores[:n], scores[n:]
    if averaging == "vertical":
        classes = [(pos[:, 0], neg[:, 0]), (pos[:, 1], neg[:, 1])]
        ranks, side, low, high = (
            np.rint(got.fpr * n).astype(int),
            "lower",
            got.dtpr_low,
            got.dtpr_high,
        )
    else:  # FPR at TPR k/n+: the upper-side vertical law with the classes exchanged, negated
        classes = [(-neg[:, 0], -pos[:, 0]), (-neg[:, 1], -pos[:, 1])]
        ranks, side, low, high = (
            n - np.rint(got.tpr * n).astype(int),
            "upper",
            -got.dfpr_high,
            -got.dfpr_low,
        )
    b = 20_000
    first, second = paired_vertical_tprs(classes, ranks, side, b, np.random.default_rng(99))
    curves = first - second
    share = ((curves >= low) & (curves <= high)).all(axis=1).mean()
    # the resamples here and the 10000 that calibrated c each add Monte Carlo error
    se = np.sqrt(0.95 * 0.05 * (1 / b + 1 / 10_000))
    assert abs(share - 0.95) <= 4 * se, share
    assert got.band == "simultaneous" and got.method == "wald"
    assert got.pointwise_level > 1 - 0.05 / 1 and got.critical_value > 1.96


def test_simultaneous_band_is_reproducible_and_says_how_it_was_calibrated():
    y, scores = paired_data(150, 4)
    options = dict(averaging="vertical", at=np.linspace(0.1, 0.9, 9), band="simultaneous")
    first = rocsim.compare_roc(y, scores[:, 0], scores[:, 1], **options)
    again = rocsim.compare_roc(y, scores[:, 0], scores[:, 1], **options)
    np.testing.assert_array_equal(first.dtpr_low, again.dtpr_low)
    other = rocsim.compare_roc(y, scores[:, 0], scores[:, 1], random_state=7, **options)
    assert other.critical_value != first.critical_value
    assert abs(other.critical_value - first.critical_value) < 0.2
    fresh = rocsim.compare_roc(y, scores[:, 0], scores[:, 1], random_state=None, **options)
    assert fresh.random_state is None and np.isfinite(fresh.critical_value)
    attrs = first.to_frame().attrs
    assert attrs["band"] == "simultaneous" and attrs["n_resamples"] == 10_000
    assert attrs["random_state"] == 0 and attrs["critical_value"] == first.critical_value
    assert "calibrated by Monte Carlo on 10000 paired resamples, seed 0" in repr(first)
    # the bounds are the Wald intervals at the calibrated constant
    np.testing.assert_allclose(
        first.dtpr_high - first.dtpr_low, np.minimum(2 * first.critical_value * first.sd, 2)
    )


def test_simultaneous_band_finds_a_better_classifier():
    y, scores = paired_data(300, 5)
    scores[:300, 1] -= 0.8  # the second classifier's positives score lower
    got = rocsim.compare_roc(
        y,
        scores[:, 0],
        scores[:, 1],
        averaging="vertical",
        at=[0.1, 0.3, 0.5],
        band="simultaneous",
    )
    assert got.overall == "first better everywhere"


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"n_resamples": 99}, ValueError, "n_resamples must be at least 100"),
        ({"n_resamples": 1000.0}, TypeError, "n_resamples must be an integer"),
        ({"n_resamples": True}, TypeError, "n_resamples must be an integer"),
        ({"random_state": 1.5}, ValueError, "random_state"),
        ({"random_state": np.random.default_rng(0)}, ValueError, "random_state"),
        ({"method": "score"}, ValueError, "method='score'"),
    ],
)
def test_simultaneous_band_bad_input(options, error, message):
    y, scores = paired_data(30, 6)
    with pytest.raises(error, match=message):
        rocsim.compare_roc(
            y,
            scores[:, 0],
            scores[:, 1],
            averaging="vertical",
            at=[0.5],
            band="simultaneous",
            **options,
        )
