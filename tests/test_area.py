"""AUC with confidence intervals (rocsim.core.area): DeLong's variance and the exact bootstrap's.

Oracles: (a) every stratified bootstrap resample of tiny data sets, as multinomial count vectors
with exact integer weights, for the exact bootstrap mean and variance; (b) seeded Monte Carlo
bootstraps on binormal data; (c) DeLong's variance and covariance written out on the
``n+ x n-`` matrix of ``psi``; (d) brute-force counts for the ``O(n log n)`` sums; (e)
``rocsim.core.auc``, scikit-learn and exact fractions for the AUC itself.

Scores on small integer grids make ties frequent, within a class, across the classes and, in
the paired design, under both classifiers at once.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from enumeration import assert_mc_agrees, multinomial_law
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import roc_auc_score

from rocsim.core.area import (
    AUC_METHODS,
    _cross_sum,
    _discordant_across,
    _kernel,
    auc_ci,
    auc_difference_ci,
)
from rocsim.core.roc import auc as roc_auc

# --- brute force on the n+ x n- matrix ---------------------------------------------------------


def twice_psi(pos, neg) -> np.ndarray:
    """``2 psi_ij``: 2 when ``pos_i > neg_j``, 1 on a tie, 0 below (exact integers)."""
    pos, neg = np.asarray(pos, dtype=float)[:, None], np.asarray(neg, dtype=float)[None, :]
    return (pos > neg).astype(np.int64) + (pos >= neg)


def delong_by_matrix(psis: list[np.ndarray], contrast) -> float:
    """DeLong et al. (1988): ``L S10 L'/n+ + L S01 L'/n-`` with the covariance matrices of the
    placement values of each classifier's ``psi`` matrix."""
    v10 = np.vstack([p.mean(axis=1) for p in psis])  # one row of placements per classifier
    v01 = np.vstack([p.mean(axis=0) for p in psis])
    s10, s01 = np.atleast_2d(np.cov(v10)), np.atleast_2d(np.cov(v01))
    c = np.asarray(contrast, dtype=float)
    return float(c @ s10 @ c / v10.shape[1] + c @ s01 @ c / v01.shape[1])


# --- (a) enumeration of every stratified resample ----------------------------------------------


@cache
def resamples(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every resample of ``n`` items: counts (R, n) and integer weights summing to ``n**n``."""
    law = multinomial_law(n)
    counts = np.array([c for c, _ in law], dtype=np.int64)
    weights = np.array([p * n**n for _, p in law], dtype=np.int64)
    assert int(weights.sum()) == n**n
    return counts, weights


def enumerated_moments(s: np.ndarray) -> tuple[Fraction, Fraction]:
    """Exact mean and variance of ``sum_ij W_i U_j s_ij / (2 n+ n-)`` over every pair of
    resamples (``s`` an integer matrix: ``2 psi`` or ``2 psi1 - 2 psi2``)."""
    n_pos, n_neg = s.shape
    w, pw = resamples(n_pos)
    u, pu = resamples(n_neg)
    x = w @ s @ u.T  # 2 n+ n- AUC* of every (positives, negatives) resample, exact integers
    scale = n_pos**n_pos * n_neg**n_neg * 2 * n_pos * n_neg
    mean = Fraction(int(pw @ x @ pu), scale)
    second = Fraction(int(pw @ (x * x) @ pu), scale * 2 * n_pos * n_neg)
    return mean, second - mean * mean


SINGLE_CASES = {
    "ties across classes": ([0.9, 0.8, 0.4], [0.7, 0.4, 0.1]),
    "ties everywhere": ([1.0, 2.0, 2.0], [2.0, 0.0, 1.0]),
    "unequal sizes": ([3.0, 1.0, 1.0, 2.0], [1.0, 2.0, 0.0]),
    "one positive": ([1.0], [0.0, 1.0, 2.0]),
    "all tied": ([1.0, 1.0, 1.0], [1.0, 1.0, 1.0]),
    "separated": ([2.0, 3.0, 4.0], [0.0, 1.0, 1.0]),
}

PAIRED_CASES = {
    # (pos1, pos2, neg1, neg2): ties within and across classes under both classifiers
    "ties in both": ([1.0, 2.0, 2.0], [0.0, 1.0, 1.0], [2.0, 0.0, 1.0], [1.0, 1.0, 0.0]),
    "opposite orders": ([3.0, 1.0, 2.0], [1.0, 3.0, 2.0], [2.0, 1.0, 1.0], [1.0, 2.0, 2.0]),
    "unequal sizes": (
        [1.0, 1.0, 2.0, 0.0],
        [2.0, 1.0, 1.0, 1.0],
        [1.0, 0.0, 1.0],
        [1.0, 1.0, 2.0],
    ),
}


@pytest.mark.parametrize("pos, neg", SINGLE_CASES.values(), ids=SINGLE_CASES.keys())
def test_single_moments_equal_enumeration(pos, neg):
    mean, var = enumerated_moments(twice_psi(pos, neg))
    got = auc_ci(pos, neg, method="exact_bootstrap")
    assert got.auc == float(mean)  # E[AUC*] = AUC, both correctly rounded
    assert got.var == pytest.approx(float(var), rel=0, abs=1e-12)


@pytest.mark.parametrize("pos1, pos2, neg1, neg2", PAIRED_CASES.values(), ids=PAIRED_CASES.keys())
def test_paired_moments_equal_enumeration(pos1, pos2, neg1, neg2):
    mean, var = enumerated_moments(twice_psi(pos1, neg1) - twice_psi(pos2, neg2))
    got = auc_difference_ci(pos1, pos2, neg1, neg2, method="exact_bootstrap")
    assert got.difference == pytest.approx(float(mean), rel=0, abs=1e-15)
    assert got.var == pytest.approx(float(var), rel=0, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n_pos=st.integers(1, 4), n_neg=st.integers(1, 4))
def test_moments_equal_enumeration_on_generated_data(data, n_pos, n_neg):
    grid = st.integers(0, 3).map(float)
    pos1, pos2 = (data.draw(st.lists(grid, min_size=n_pos, max_size=n_pos)) for _ in "12")
    neg1, neg2 = (data.draw(st.lists(grid, min_size=n_neg, max_size=n_neg)) for _ in "12")
    _, var1 = enumerated_moments(twice_psi(pos1, neg1))
    got1 = auc_ci(pos1, neg1, method="exact_bootstrap")
    assert got1.var == pytest.approx(float(var1), abs=1e-12)
    _, var = enumerated_moments(twice_psi(pos1, neg1) - twice_psi(pos2, neg2))
    got = auc_difference_ci(pos1, pos2, neg1, neg2, method="exact_bootstrap")
    assert got.var == pytest.approx(float(var), rel=0, abs=1e-12)


# --- (b) Monte Carlo bootstrap -----------------------------------------------------------------


def binormal_pair(rng, n: int, rho: float = 0.6):
    """Two correlated binormal classifiers (separations 1.0 and 0.7) on ``n`` instances per
    class, rounded to 2 decimals so that ties occur."""

    def scores(shift1, shift2):
        z1 = rng.normal(size=n)
        z2 = rho * z1 + np.sqrt(1 - rho**2) * rng.normal(size=n)
        return np.round(z1 + shift1, 2), np.round(z2 + shift2, 2)

    pos1, pos2 = scores(1.0, 0.7)
    neg1, neg2 = scores(0.0, 0.0)
    return pos1, pos2, neg1, neg2


def resample_counts(rng, b: int, n: int) -> np.ndarray:
    """Multinomial counts of ``b`` bootstrap resamples of ``n`` items, shape (b, n)."""
    rows = np.repeat(np.arange(b) * n, n)
    picks = rng.integers(0, n, size=b * n)
    return np.bincount(rows + picks, minlength=b * n).reshape(b, n).astype(float)


def test_exact_moments_agree_with_monte_carlo_bootstrap():
    rng = np.random.default_rng(20240611)
    pos1, pos2, neg1, neg2 = binormal_pair(rng, 200)
    psi = twice_psi(pos1, neg1) / 2.0
    psi_diff = psi - twice_psi(pos2, neg2) / 2.0
    b = 20_000
    w, u = resample_counts(rng, b, pos1.size), resample_counts(rng, b, neg1.size)
    n_pairs = pos1.size * neg1.size
    single = auc_ci(pos1, neg1, method="exact_bootstrap")
    assert_mc_agrees(((w @ psi) * u).sum(axis=1) / n_pairs, single.auc, single.var)
    paired = auc_difference_ci(pos1, pos2, neg1, neg2, method="exact_bootstrap")
    assert_mc_agrees(((w @ psi_diff) * u).sum(axis=1) / n_pairs, paired.difference, paired.var)


# --- (c) DeLong against the matrix, and its relation to the exact bootstrap ---------------------


def tied_sample(rng, n_pos, n_neg, levels=6):
    return (
        rng.integers(0, levels, n_pos).astype(float),
        rng.integers(0, levels, n_neg).astype(float),
    )


@pytest.mark.parametrize("seed, n_pos, n_neg", [(0, 2, 2), (1, 7, 5), (2, 30, 41), (3, 3, 60)])
def test_delong_equals_the_matrix_formula(seed, n_pos, n_neg):
    rng = np.random.default_rng(seed)
    pos1, neg1 = tied_sample(rng, n_pos, n_neg)
    pos2, neg2 = tied_sample(rng, n_pos, n_neg, levels=4)
    psi1, psi2 = twice_psi(pos1, neg1) / 2.0, twice_psi(pos2, neg2) / 2.0
    single = auc_ci(pos1, neg1)
    assert single.method == "delong"
    assert single.var == pytest.approx(delong_by_matrix([psi1], [1.0]), rel=1e-12, abs=0)
    paired = auc_difference_ci(pos1, pos2, neg1, neg2)
    # Var(A1 - A2) = var1 + var2 - 2 cov from the 2x2 covariance matrices S10, S01
    expected = delong_by_matrix([psi1, psi2], [1.0, -1.0])
    assert paired.var == pytest.approx(expected, rel=1e-12, abs=1e-18)


@pytest.mark.parametrize("seed", range(4))
def test_exact_bootstrap_is_shrunk_delong_plus_pair_variance(seed):
    """Var_boot = (1 - 1/n+)(1 - 1/n-) Var_DeLong + Var_pairs(psi) / (n+ n-): the centred form
    of the closed formula, checked on the matrix."""
    rng = np.random.default_rng(seed)
    n_pos, n_neg = rng.integers(2, 40, size=2)
    pos1, neg1 = tied_sample(rng, n_pos, n_neg)
    pos2, neg2 = tied_sample(rng, n_pos, n_neg, levels=3)
    shrink = (1 - 1 / n_pos) * (1 - 1 / n_neg)
    psi = twice_psi(pos1, neg1) / 2.0
    psi_diff = psi - twice_psi(pos2, neg2) / 2.0
    got = auc_ci(pos1, neg1, method="exact_bootstrap").var
    expected = shrink * delong_by_matrix([psi], [1.0]) + psi.var() / psi.size
    assert got == pytest.approx(expected, rel=1e-12)
    got = auc_difference_ci(pos1, pos2, neg1, neg2, method="exact_bootstrap").var
    expected = shrink * delong_by_matrix([psi_diff], [1.0]) + psi_diff.var() / psi.size
    assert got == pytest.approx(expected, rel=1e-12)


def test_exact_bootstrap_and_delong_agree_at_large_n():
    # Their relative difference is -(1/n+ + 1/n- - 1/(n+ n-)) = -4e-4 plus the positive
    # Var_pairs / (n+ n- Var_DeLong), both O(1/n); measured at n = 5000 per class: -7.5e-5
    # (single AUC) and +4.8e-5 (paired difference).
    rng = np.random.default_rng(7)
    n = 5000
    pos1, pos2, neg1, neg2 = binormal_pair(rng, n)
    ratio = auc_ci(pos1, neg1, method="exact_bootstrap").var / auc_ci(pos1, neg1).var
    assert abs(ratio - 1) < 2 / n
    ratio = (
        auc_difference_ci(pos1, pos2, neg1, neg2, method="exact_bootstrap").var
        / auc_difference_ci(pos1, pos2, neg1, neg2).var
    )
    assert abs(ratio - 1) < 2 / n


# --- (d) the O(n log n) sums against brute force -----------------------------------------------


tied_scores = st.lists(st.integers(-3, 3).map(float), min_size=1, max_size=25)


@settings(max_examples=200, deadline=None)
@given(pos=tied_scores, neg=tied_scores)
def test_kernel_sums_equal_the_matrix(pos, neg):
    s = twice_psi(pos, neg)
    k = _kernel(np.array(pos), np.array(neg))
    np.testing.assert_array_equal(k.rows, s.sum(axis=1))
    np.testing.assert_array_equal(k.cols, s.sum(axis=0))
    assert k.quad == int((s * s).sum())


@settings(max_examples=300, deadline=None)
@given(
    data=st.data(), n_pos=st.integers(1, 25), n_neg=st.integers(1, 25), levels=st.integers(1, 6)
)
def test_paired_cross_term_equals_the_matrix(data, n_pos, n_neg, levels):
    grid = st.integers(0, levels - 1).map(float)
    pos1, pos2 = (
        np.array(data.draw(st.lists(grid, min_size=n_pos, max_size=n_pos))) for _ in "12"
    )
    neg1, neg2 = (
        np.array(data.draw(st.lists(grid, min_size=n_neg, max_size=n_neg))) for _ in "12"
    )
    expected = int((twice_psi(pos1, neg1) * twice_psi(pos2, neg2)).sum())
    kernels = _kernel(pos1, neg1), _kernel(pos2, neg2)
    # the count in n log n and the sum over every pair (the default for so few pairs)
    for dense in (False, True, None):
        assert _cross_sum(pos1, pos2, neg1, neg2, *kernels, dense=dense) == expected


@pytest.mark.parametrize("n", [1, 2, 3, 7, 64, 65, 300, 1025])
def test_discordant_across_equals_brute_force(n):
    rng = np.random.default_rng(n)
    for levels in (2, 5, n + 1):
        values = rng.integers(0, levels, n)
        is_pos = rng.random(n) < 0.4
        i, j = np.triu_indices(n, 1)
        expected = int(((values[i] > values[j]) & (is_pos[i] != is_pos[j])).sum())
        assert _discordant_across(values, is_pos) == expected


def test_difference_with_a_constant_classifier_is_the_single_variance():
    # a classifier that ties everything has psi = 1/2 on every pair: subtracting it only
    # shifts psi, so every variance is the first classifier's own
    rng = np.random.default_rng(3)
    pos, neg = tied_sample(rng, 40, 25)
    for method in AUC_METHODS:
        single = auc_ci(pos, neg, method=method)
        got = auc_difference_ci(pos, np.zeros(40), neg, np.zeros(25), method=method)
        assert got.auc2 == 0.5
        assert got.difference == single.auc - 0.5
        assert got.var == pytest.approx(single.var, rel=1e-12)


# --- (e) the AUC itself, intervals and p-values ------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_auc_equals_rocsim_sklearn_and_the_exact_fraction(seed):
    rng = np.random.default_rng(seed)
    pos, neg = tied_sample(rng, 37, 23, levels=5)
    s = twice_psi(pos, neg)
    exact = float(Fraction(int(s.sum()), 2 * s.size))
    y = np.r_[np.ones(pos.size), np.zeros(neg.size)]
    for method in AUC_METHODS:
        got = auc_ci(pos, neg, method=method).auc
        assert got == exact
        # the trapezoid sums round differently from one correctly rounded division
        assert got == pytest.approx(roc_auc(pos, neg), rel=0, abs=1e-15)
        assert got == pytest.approx(roc_auc_score(y, np.r_[pos, neg]), rel=0, abs=1e-15)
    paired = auc_difference_ci(pos, neg[0] - pos, neg, neg[0] - neg)
    assert paired.auc1 == exact
    assert paired.auc2 == auc_ci(neg[0] - pos, neg[0] - neg).auc


@pytest.mark.parametrize("method", AUC_METHODS)
@pytest.mark.parametrize("level", [0.5, 0.9, 0.95])
def test_intervals_are_normal_and_clipped(method, level):
    rng = np.random.default_rng(11)
    pos1, pos2, neg1, neg2 = binormal_pair(rng, 30)
    z = stats.norm.ppf(0.5 + level / 2)
    r = auc_ci(pos1, neg1, confidence_level=level, method=method)
    assert (r.confidence_level, r.method, r.n_pos, r.n_neg) == (level, method, 30, 30)
    half = z * np.sqrt(r.var)
    assert r.low == pytest.approx(max(r.auc - half, 0.0), abs=1e-15)
    assert r.high == pytest.approx(min(r.auc + half, 1.0), abs=1e-15)
    d = auc_difference_ci(pos1, pos2, neg1, neg2, confidence_level=level, method=method)
    half = z * np.sqrt(d.var)
    assert d.low == pytest.approx(d.difference - half, abs=1e-15)
    assert d.high == pytest.approx(d.difference + half, abs=1e-15)
    assert d.difference == d.auc1 - d.auc2
    assert d.p_value == pytest.approx(
        2 * stats.norm.sf(abs(d.difference) / np.sqrt(d.var)), rel=1e-12
    )


@pytest.mark.parametrize("method", AUC_METHODS)
def test_clipping_and_degenerate_variances(method):
    rng = np.random.default_rng(5)
    pos, neg = rng.normal(3, 1, 40), rng.normal(0, 1, 30)
    # nearly separated: the upper bound reaches past 1 and is clipped
    r = auc_ci(np.r_[pos, -5.0], neg, confidence_level=0.99, method=method)
    assert r.auc + 2.5 * np.sqrt(r.var) > 1.0 and r.high == 1.0
    # perfectly separated: no variance, a point interval
    r = auc_ci(pos + 10, neg, method=method)
    assert (r.auc, r.var, r.low, r.high) == (1.0, 0.0, 1.0, 1.0)
    # the same classifier twice: the difference is exactly 0 with no variance
    d = auc_difference_ci(pos, pos, neg, neg, method=method)
    assert (d.difference, d.var, d.low, d.high, d.p_value) == (0.0, 0.0, 0.0, 0.0, 1.0)
    # separated against all-tied: psi1 - psi2 = 1/2 on every pair
    d = auc_difference_ci(pos + 10, np.ones(40), neg, np.ones(30), method=method)
    assert (d.difference, d.var, d.low, d.high, d.p_value) == (0.5, 0.0, 0.5, 0.5, 0.0)
    # a difference near 1 is clipped at 1
    d = auc_difference_ci(
        np.r_[pos + 10, -5.0], np.r_[-pos, 5.0], neg, neg, confidence_level=0.99, method=method
    )
    assert d.difference > 0.9 and d.high == 1.0


# --- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, word",
    [
        ({"method": "bootstrap"}, "delong, exact_bootstrap"),
        ({"method": "DeLong"}, "unknown AUC method"),
        ({"confidence_level": 1.0}, "confidence_level"),
        ({"confidence_level": 0.0}, "confidence_level"),
        ({"confidence_level": "high"}, "confidence_level"),
        ({"pos_scores": [0.1, np.nan]}, "NaN"),
        ({"neg_scores": [np.inf, 0.0]}, "NaN or infinite"),
        ({"neg_scores": []}, "empty"),
        ({"pos_scores": [[0.1, 0.2]]}, "1-D"),
        ({"pos_scores": [0.3]}, "at least 2 positives"),
    ],
)
def test_auc_ci_bad_input(kwargs, word):
    args = {"pos_scores": [0.9, 0.4], "neg_scores": [0.5, 0.1], **kwargs}
    with pytest.raises(ValueError, match=word):
        auc_ci(**args)


@pytest.mark.parametrize(
    "kwargs, word",
    [
        ({"method": "mann_whitney"}, "delong, exact_bootstrap"),
        ({"confidence_level": 95}, "confidence_level"),
        ({"pos2": [0.9, 0.4, 0.2]}, "same positives"),
        ({"neg1": [0.5]}, "same negatives"),
        ({"neg2": [0.5, np.nan]}, "NaN"),
        ({"pos1": [1, 2], "pos2": [1, 2], "neg1": [0], "neg2": [0]}, "at least 2"),
    ],
)
def test_auc_difference_ci_bad_input(kwargs, word):
    args = {
        "pos1": [0.9, 0.4],
        "pos2": [0.8, 0.3],
        "neg1": [0.5, 0.1],
        "neg2": [0.2, 0.6],
        **kwargs,
    }
    with pytest.raises(ValueError, match=word):
        auc_difference_ci(**args)


def test_exact_bootstrap_allows_one_instance_per_class():
    # the bootstrap needs no sample variance: one positive is resampled as itself
    assert auc_ci([0.3], [0.1, 0.5], method="exact_bootstrap").var == pytest.approx(1 / 8)
