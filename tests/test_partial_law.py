"""The exact law of the partial AUC under the stratified bootstrap
(:func:`rocsim.core.partial_law.exact_partial_area_law`) and its percentile interval
(``partial_auc_ci(method="percentile")``): the law against every resample of tiny data
(ties, ranges with lo > 0 and cuts that are no whole number of negatives, both foci); its
moments against the exact bootstrap mean and variance at n = 60-150 per class; its quantiles
against a seeded Monte Carlo bootstrap; the p-value that inverts the interval; the refusal of
a law over budget (one line, fast, before allocating); bad inputs."""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
import pytest
from enumeration import assert_mc_agrees, multinomial_law
from test_vertical_oracle import TINY_DATA

import rocsim
from rocsim.analysis.auc import DEFAULT_METHODS
from rocsim.core.area import auc_ci
from rocsim.core.partial_area import (
    PARTIAL_AUC_METHODS,
    bootstrap_mean_area,
    exact_partial_area_var,
    mcclish,
    mcclish_scale,
    partial_area,
    partial_auc_ci,
)
from rocsim.core.partial_law import exact_partial_area_law, percentile_interval

#: Ranges of FPRs on the tiny data: from 0, from inside (cuts of 2-4 negatives that fall
#: between two of them or inside a tie block), and the whole curve.
RANGES = [(0.0, 0.5), (0.0, 0.3), (0.2, 0.7), (0.25, 1.0), (0.1, 0.35), (0.5, 0.75), (0.0, 1.0)]

#: Distinct atoms of the tiny laws are far further apart than this; the enumerated areas are
#: within rounding of them.
SLACK = 1e-9


def enumerated_law(pos, neg, ranges) -> dict:
    """``{range: (areas, probabilities)}`` over every pair of stratified resamples."""
    pos, neg = np.asarray(pos, float), np.asarray(neg, float)
    out = {rates: ([], []) for rates in ranges}
    for pos_counts, p_pos in multinomial_law(len(pos)):
        resampled = np.repeat(pos, pos_counts)
        for neg_counts, p_neg in multinomial_law(len(neg)):
            negatives = np.repeat(neg, neg_counts)
            for rates, (areas, probs) in out.items():
                areas.append(partial_area(resampled, negatives, *rates))
                probs.append(float(p_pos * p_neg))
    return {rates: (np.array(a), np.array(p)) for rates, (a, p) in out.items()}


def assert_same_law(values, probs, areas, weights) -> None:
    """The two CDFs agree to 1e-12 at every atom of either law."""
    assert np.all(np.diff(values) > 0)
    assert probs.sum() == pytest.approx(1.0, abs=1e-12)
    for x in np.union1d(values, areas):
        mine = probs[values <= x + SLACK].sum()
        brute = weights[areas <= x + SLACK].sum()
        assert mine == pytest.approx(brute, abs=1e-12), x


def brute_bounds(areas, weights, a, b, level, alternative) -> tuple[float, float]:
    """The percentile bounds of the enumerated law by their definitions, value by value."""
    scaled = np.clip(mcclish(areas, a, b), 0.0, 1.0)
    support = np.unique(scaled)
    cdf = np.array([weights[scaled <= v + SLACK].sum() for v in support])
    sf = np.array([weights[scaled >= v - SLACK].sum() for v in support])
    tail = (1 - level) / 2 if alternative == "two-sided" else 1 - level
    low = support[np.flatnonzero(cdf >= tail - 1e-12)[0]]
    high = support[np.flatnonzero(sf >= tail - 1e-12)[-1]]
    return {"two-sided": (low, high), "greater": (low, 1.0), "less": (0.0, high)}[alternative]


@pytest.mark.parametrize(("pos", "neg"), TINY_DATA)
def test_law_equals_enumeration_of_every_resample(pos, neg):
    enumerated = enumerated_law(pos, neg, RANGES)
    for rates in RANGES:
        values, probs = exact_partial_area_law(pos, neg, *rates)
        assert_same_law(values, probs, *enumerated[rates])


@pytest.mark.parametrize(("pos", "neg"), TINY_DATA[::3])
def test_tpr_range_is_the_law_of_the_classes_exchanged(pos, neg):
    # a TPR range [lo, hi]: the FPR range [1 - hi, 1 - lo] of the classes exchanged, scores
    # negated; its percentile bounds are the quantiles of that law, enumerated
    exchanged = (-np.asarray(neg, float), -np.asarray(pos, float))
    for lo, hi in [(0.5, 1.0), (0.0, 0.8), (0.25, 0.75)]:
        a, b = 1 - hi, 1 - lo
        areas, weights = enumerated_law(*exchanged, [(a, b)])[(a, b)]
        assert_same_law(*exact_partial_area_law(*exchanged, a, b), areas, weights)
        r = partial_auc_ci(pos, neg, (lo, hi), focus="tpr", method="percentile")
        low, high = brute_bounds(areas, weights, a, b, 0.95, "two-sided")
        assert (r.low, r.high) == pytest.approx((low, high), abs=1e-12)


@pytest.mark.parametrize(("pos", "neg"), TINY_DATA[1::2])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_percentile_bounds_are_the_enumerated_quantiles(pos, neg, alternative):
    rates = (0.0, 0.5)
    areas, weights = enumerated_law(pos, neg, [rates])[rates]
    for level in (0.5, 0.8, 0.95):
        r = partial_auc_ci(
            pos, neg, rates, method="percentile", confidence_level=level, alternative=alternative
        )
        expected = brute_bounds(areas, weights, *rates, level, alternative)
        assert (r.low, r.high) == pytest.approx(expected, abs=1e-12)


def realistic(n: int, decimals: int | None, seed: int):
    rng = np.random.default_rng(seed)
    pos, neg = rng.normal(1.0, 1.0, n), rng.normal(0.0, 1.0, n)
    if decimals is not None:  # ties within and across the classes
        pos, neg = np.round(pos, decimals), np.round(neg, decimals)
    return pos, neg


@pytest.mark.parametrize(
    ("n", "decimals", "rates"),
    [
        (60, 1, (0.0, 0.2)),
        (100, None, (0.0, 0.1)),
        (150, None, (0.0, 0.05)),
        (120, 1, (0.0, 0.05)),
        (80, None, (0.1, 0.4)),
        (73, None, (0.1, 0.3)),  # cuts 7.3 and 21.9 negatives
    ],
)
def test_moments_are_the_exact_bootstrap_mean_and_variance(n, decimals, rates):
    pos, neg = realistic(n, decimals, seed=n)
    values, probs = exact_partial_area_law(pos, neg, *rates)
    assert probs.sum() == pytest.approx(1.0, abs=1e-12)
    mean = probs @ values
    assert mean == pytest.approx(bootstrap_mean_area(pos, neg, *rates), rel=1e-12)
    # exact_partial_area_var is itself within about 1e-11 of the truth (the whole-curve
    # test below pins the law's variance to the closed form at 1e-12)
    var = probs @ (values - mean) ** 2
    assert var == pytest.approx(exact_partial_area_var(pos, neg, *rates), rel=1e-10)


@pytest.mark.parametrize(("n", "decimals"), [(40, None), (30, 1)])
def test_whole_range_variance_is_the_exact_bootstrap_variance_of_the_auc(n, decimals):
    pos, neg = realistic(n, decimals, seed=4)
    values, probs = exact_partial_area_law(pos, neg, 0.0, 1.0)
    mean = probs @ values
    assert mean == pytest.approx(partial_area(pos, neg, 0.0, 1.0), rel=1e-13)
    closed_form = auc_ci(pos, neg, method="exact_bootstrap").var
    assert probs @ (values - mean) ** 2 == pytest.approx(closed_form, rel=1e-12)


def test_quantiles_against_monte_carlo():
    # n = 80 per class, scores rounded to ties, FPR [0, 0.1]; B seeded resamples
    pos, neg = realistic(80, 1, seed=2029)
    rng = np.random.default_rng(2029)
    n, b, rates = 80, 20000, (0.0, 0.1)
    areas = np.sort(
        [partial_area(rng.choice(pos, n), rng.choice(neg, n), *rates) for _ in range(b)]
    )
    values, probs = exact_partial_area_law(pos, neg, *rates)
    mean = probs @ values
    assert_mc_agrees(areas, mean, probs @ (values - mean) ** 2)
    cdf = np.cumsum(probs)
    for p in (0.025, 0.975):
        exact = values[np.searchsorted(cdf, p)]  # the lower quantile
        # between the Monte Carlo quantiles 4 standard errors of p either side
        spread = 4 * np.sqrt(p * (1 - p) / b)
        assert areas[int((p - spread) * b)] - SLACK <= exact <= areas[int((p + spread) * b)]
    # Kolmogorov-Smirnov: sup |F_B - F| within its 1% critical value (a discrete law only
    # lowers the statistic)
    at = np.searchsorted(values, areas + SLACK, "right")
    exact_cdf = np.r_[0.0, cdf][at]
    empirical = np.arange(1, b + 1) / b
    gap = max(np.abs(empirical - exact_cdf).max(), np.abs(empirical - 1 / b - exact_cdf).max())
    assert gap <= 1.63 / np.sqrt(b)


@pytest.mark.parametrize(
    ("n", "decimals", "rates"), [(6, 1, (0.0, 0.5)), (25, 1, (0.0, 0.3)), (40, None, (0.1, 0.4))]
)
def test_p_value_inverts_the_interval(n, decimals, rates):
    pos, neg = realistic(n, decimals, seed=7)
    values, probs = exact_partial_area_law(pos, neg, *rates)
    scaled = np.clip(mcclish(values, *rates), 0, 1)
    for alternative in ("two-sided", "greater", "less"):
        for level in (0.5, 0.8, 0.9, 0.95):
            (low, high), _ = percentile_interval(scaled, probs, level, alternative)
            # the bounds, the atoms around them, their neighbours by an ulp, and a grid
            near = np.searchsorted(scaled, [low, high])[:, None] + np.arange(-3, 4)
            atoms = scaled[np.clip(near, 0, scaled.size - 1)].ravel()
            nulls = np.r_[low, high, atoms, np.linspace(0, 1, 11)]
            nulls = np.clip(np.r_[nulls, np.nextafter(nulls, 0), np.nextafter(nulls, 1)], 0, 1)
            for null in nulls:
                _, p = percentile_interval(scaled, probs, level, alternative, null)
                assert 0.0 <= p <= 1.0
                assert (p < 1 - level) == (null < low or null > high), (level, null, p)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_p_value_inverts_the_interval_of_either_focus(alternative):
    pos, neg = realistic(20, 1, seed=8)
    for focus, rates in (("fpr", (0.0, 0.5)), ("tpr", (0.5, 1.0))):
        r = partial_auc_ci(pos, neg, rates, focus=focus, method="percentile")
        for null in (r.low, r.high, 0.5):
            t = partial_auc_ci(
                pos,
                neg,
                rates,
                focus=focus,
                method="percentile",
                alternative=alternative,
                null=null,
            )
            assert (t.p_value < 0.05) == (null < t.low or null > t.high)


def test_result_fields_and_a_sure_law():
    pos, neg = realistic(40, None, seed=3)
    r = partial_auc_ci(pos, neg, (0.0, 0.3), method="percentile")
    assert r.method == "percentile" and "percentile" in repr(r)
    assert r.auc == mcclish(partial_area(pos, neg, 0.0, 0.3), 0.0, 0.3)
    exact = partial_auc_ci(pos, neg, (0.0, 0.3), method="exact_bootstrap")
    assert (
        r.var
        == exact.var
        == exact_partial_area_var(pos, neg, 0.0, 0.3) * mcclish_scale(0.0, 0.3) ** 2
    )
    assert 0 <= r.low <= r.high <= 1
    # every positive above every negative: every resample's area is the whole range's
    r = partial_auc_ci([5.0, 6.0, 7.0], [0.0, 1.0], (0.0, 0.5), method="percentile")
    assert (r.low, r.high, r.p_value) == (1.0, 1.0, 0.0)


def test_auc_ci_passes_percentile_through():
    pos, neg = realistic(50, 2, seed=11)
    y, s = np.r_[np.ones(50), np.zeros(50)], np.r_[pos, neg]
    got = rocsim.auc_ci(y, s, max_fpr=0.2, method="percentile")
    core = partial_auc_ci(pos, neg, (0.0, 0.2), method="percentile")
    assert (got.low, got.high, got.p_value, got.var) == (
        core.low,
        core.high,
        core.p_value,
        core.var,
    )
    # a method, not a default: delong stays first, logit_t the partial AUC's default
    assert "percentile" in PARTIAL_AUC_METHODS and PARTIAL_AUC_METHODS[0] == "delong"
    assert DEFAULT_METHODS[("auc", "partial")] == "logit_t"


def test_over_budget_is_refused_in_one_line_before_allocating():
    rng = np.random.default_rng(1)
    pos, neg = rng.normal(1, 1, 3000), rng.normal(0, 1, 3000)
    tracemalloc.start()
    start = time.perf_counter()
    with pytest.raises(ValueError) as caught:
        partial_auc_ci(pos, neg, (0.0, 0.3), method="percentile")
    elapsed = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    message = str(caught.value)
    assert "\n" not in message
    assert "n+=3000, n-=3000 over FPR [0, 0.3]" in message
    assert "method='logit_t'" in message and "'exact_bootstrap'" in message
    assert elapsed < 2.0 and peak < 50e6
    with pytest.raises(ValueError, match=r"over TPR \[0.5, 1\] needs ~"):
        partial_auc_ci(pos, neg, (0.5, 1.0), focus="tpr", method="percentile")
    with pytest.raises(ValueError, match="operations"):
        exact_partial_area_law(pos, neg, 0.0, 1.0)


def test_a_rate_rounded_to_twelve_digits_is_read_as_its_fraction():
    """A study's grid point 2/15 rounded to 12 digits (0.133333333333, 25 negatives: a cut
    2.5e-12 negatives off 10/3) gives the law at 10/3, not a refusal."""
    rng = np.random.default_rng(3)
    pos, neg = rng.normal(1, 1, 8), rng.normal(0, 1, 25)
    rounded = exact_partial_area_law(pos, neg, 0.0, 0.133333333333)
    exact = exact_partial_area_law(pos, neg, 0.0, 2 / 15)
    assert np.array_equal(rounded[0], exact[0]) and np.array_equal(rounded[1], exact[1])


def test_bad_inputs():
    pos, neg = [0.9, 0.4, 0.7], [0.6, 0.1, 0.3, 0.2, 0.5, 0.8, 0.05]
    # a cut that is no fraction with a small denominator: 0.1234567 of 7 negatives
    with pytest.raises(ValueError, match=r"^hi: .*method='exact_bootstrap'$"):
        exact_partial_area_law(pos, neg, 0.0, 0.1234567)
    with pytest.raises(ValueError, match=r"^lo: the exact bootstrap law needs its cut"):
        exact_partial_area_law(pos, neg, 0.0123457, 0.5)
    with pytest.raises(ValueError, match=r"^rate_range: .* of 3 positives"):
        partial_auc_ci(pos, neg, (0.0, 0.9876543), focus="tpr", method="percentile")
    with pytest.raises(ValueError, match="range must satisfy 0 <= lo < hi <= 1"):
        exact_partial_area_law(pos, neg, 0.5, 0.5)
    with pytest.raises(ValueError, match="pos_scores contains 1 NaN"):
        exact_partial_area_law([0.1, np.nan], neg, 0.0, 0.5)
    with pytest.raises(ValueError, match="neg_scores is empty"):
        exact_partial_area_law(pos, [], 0.0, 0.5)
    with pytest.raises(ValueError, match="valid: delong, exact_bootstrap, logit_t, percentile"):
        partial_auc_ci(pos, neg, (0.0, 0.5), method="percentiles")
