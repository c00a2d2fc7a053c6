"""Bands for the whole cost curve (``cost_curve_ci(band=...)``): the exact containment of the
bootstrap cost curve against every stratified resample of tiny data sets and a seeded Monte
Carlo at n = 200; Bonferroni is the pointwise interval at ``1 - alpha / k`` bit for bit; the
simultaneous band reaches its level."""

from __future__ import annotations

import numpy as np
import pytest
from enumeration import multinomial_law
from scipy import stats
from test_vertical_oracle import TINY_DATA

import rocsim
from rocsim.core.cost import cost_ci
from rocsim.core.cost_band import CostContainmentMeasure, cost_cdf, cost_containment
from rocsim.core.curve_band import EXACT_CELLS


def enumerated_containment(pos, neg, w, t, low, high) -> float:
    total = 0.0
    for pos_counts, p_pos in multinomial_law(len(pos)):
        x = [sum(c for s, c in zip(pos, pos_counts) if s >= v) for v in t]
        for neg_counts, p_neg in multinomial_law(len(neg)):
            n = [sum(c for s, c in zip(neg, neg_counts) if s >= v) for v in t]
            cost = [
                wk * (1 - xk / len(pos)) + (1 - wk) * nk / len(neg) for wk, xk, nk in zip(w, x, n)
            ]
            if all(lo - 1e-12 <= c <= hi + 1e-12 for lo, c, hi in zip(low, cost, high)):
                total += float(p_pos * p_neg)
    return total


@pytest.mark.parametrize(("pos", "neg"), TINY_DATA)
def test_containment_equals_enumeration(pos, neg):
    pos, neg = np.array(pos, dtype=float), np.array(neg, dtype=float)
    scores = np.unique(np.r_[pos, neg])
    # thresholds at the scores, repeated and out of order, and one above them all
    t = np.r_[scores[::-1], scores[0], scores[-1] + 1]
    w = np.linspace(0.1, 0.9, t.size)
    ci = cost_ci(pos, neg, w, t, confidence_level=0.6, method="wald")
    expected = enumerated_containment(pos, neg, w, t, ci.low, ci.high)
    got = cost_containment(pos, neg, w, t, ci.low, ci.high)
    assert got == pytest.approx(expected, abs=1e-12)


def test_a_costs_distribution_function_is_the_binomials_convolution():
    # cost = w (1 - X / m+) + (1 - w) N / m-, X ~ Bin(30, 0.6), N ~ Bin(25, 0.3): by brute
    # force over every (x, n), at values on and between the support's points
    w, m_pos, m_neg, p, q = 0.3, 30, 25, 0.6, 0.3
    x, n = np.meshgrid(np.arange(m_pos + 1), np.arange(m_neg + 1), indexing="ij")
    cost = w * (1 - x / m_pos) + (1 - w) * n / m_neg
    prob = stats.binom.pmf(x, m_pos, p) * stats.binom.pmf(n, m_neg, q)
    for v in (0.1, 0.2, w * (1 - 18 / 30) + (1 - w) * 7 / 25, 0.45):
        for strict in (False, True):
            expected = prob[cost < v - 1e-12].sum() if strict else prob[cost <= v + 1e-12].sum()
            got = cost_cdf(
                np.array([w]),
                np.array([p]),
                np.array([q]),
                m_pos,
                m_neg,
                np.array([v]),
                strict=strict,
            )
            assert got[0] == pytest.approx(expected, abs=1e-13)


def test_copula_containment_of_the_cost_curve_is_close_to_the_exact_pass():
    rng = np.random.default_rng(32)
    n = 100
    assert (n + 1) ** 2 <= EXACT_CELLS
    pos, neg = rng.normal(1, 1, n), rng.normal(0, 1, n)
    w = np.linspace(0.05, 0.95, 19)
    measure = CostContainmentMeasure(pos, neg, w, np.full(w.size, 0.5))
    copula = CostContainmentMeasure(pos, neg, w, np.full(w.size, 0.5))
    copula.exact = False
    for level in (0.99, 0.999):
        ci = cost_ci(pos, neg, w, np.full(w.size, 0.5), confidence_level=level, method="wald")
        assert copula(ci.low, ci.high) == pytest.approx(measure(ci.low, ci.high), abs=0.01)


def test_simultaneous_band_holds_its_level_of_bootstrap_cost_curves():
    # n = 200: the containment is the Gaussian copula's on the exact marginals
    rng = np.random.default_rng(31)
    n, b = 200, 40000
    pos, neg = np.round(rng.normal(1, 1, n), 2), np.round(rng.normal(0, 1, n), 2)
    y, s = np.r_[np.ones(n), np.zeros(n)], np.r_[pos, neg]
    w = np.linspace(0.05, 0.95, 19)
    band = rocsim.cost_curve_ci(y, s, w=w, band="simultaneous")
    assert band.containment >= 0.95 and "simultaneous band" in repr(band)
    assert band.calibration == "gaussian copula" and "gaussian copula" in repr(band)
    t = band.threshold
    inside = 0
    for _ in range(b):
        x = (rng.choice(pos, n)[:, None] >= t).mean(axis=0)
        f = (rng.choice(neg, n)[:, None] >= t).mean(axis=0)
        cost = w * (1 - x) + (1 - w) * f
        inside += np.all((band.low - 1e-12 <= cost) & (cost <= band.high + 1e-12))
    assert abs(inside / b - band.containment) < 0.005


def test_bonferroni_is_the_pointwise_interval_at_alpha_over_k():
    rng = np.random.default_rng(2)
    y = np.r_[np.ones(80), np.zeros(80)]
    s = y + rng.normal(size=160)
    w = [0.2, 0.4, 0.6, 0.8]
    band = rocsim.cost_curve_ci(y, s, w=w, band="bonferroni", confidence_level=0.9)
    pointwise = rocsim.cost_curve_ci(y, s, w=w, confidence_level=1 - 0.1 / 4)
    np.testing.assert_array_equal(band.low, pointwise.low)
    np.testing.assert_array_equal(band.high, pointwise.high)
    frame = band.to_frame()
    assert frame.attrs["band"] == "bonferroni" and frame.attrs["confidence_level"] == 0.9


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"band": "ks"}, "band"),
        ({"band": "simultaneous", "bootstrap": "full"}, "needs bootstrap='stratified'"),
    ],
)
def test_bad_band_is_one_clear_line(kwargs, message):
    y, s = [1, 1, 1, 0, 0, 0], [0.9, 0.8, 0.4, 0.5, 0.3, 0.2]
    with pytest.raises(ValueError, match=message):
        rocsim.cost_curve_ci(y, s, w=[0.5], **kwargs)
