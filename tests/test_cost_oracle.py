"""Cost curves (thesis chapters 3 and 5): oracles for the exact bootstrap moments, the
intervals, the lower envelope and the true cost curves.

Oracles: (a) every bootstrap resample of tiny data sets with its exact multinomial weight
(stratified: each class separately; full: the whole set, no resample redrawn because eq. 5.9
is defined when a class is absent); (b) seeded Monte Carlo bootstraps that resample instance
indices on n = 200 per class; (c) the Agresti rule of Tables 5.1/5.2 applied literally, by
adding instances to the data; (d) statsmodels' Wilson interval; (e) brute-force minima over
every cost line and over a dense threshold grid.

Conventions: cost = ``w (1 - TPR) + (1 - w) FPR`` (eq. 3.12) under the stratified bootstrap,
``(w FN* + (1 - w) FP*) / (n max(w, 1 - w))`` under the full one (eq. 5.9); the difference is
``cost2 - cost1``.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pytest
from enumeration import assert_mc_agrees, multinomial_law
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from rocsim.core.cost import (
    cost_ci,
    cost_curve,
    cost_difference_ci,
    cost_envelope,
    normalized_cost,
    operating_range,
)
from rocsim.core.counting import count_at_or_above
from rocsim.sim.models import make_model

W = [0.0, 0.1, 0.37, 0.5, 0.8, 1.0]


def z_of(level: float) -> float:
    return float(stats.norm.ppf(0.5 + level / 2))


@cache
def resamples(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every resample of ``n`` items: counts (R, n) and probabilities (R,)."""
    law = multinomial_law(n)
    return (np.array([c for c, _ in law], dtype=np.int64), np.array([float(p) for _, p in law]))


def moments(values: np.ndarray, prob: np.ndarray) -> tuple[float, float]:
    mean = float(prob @ values)
    return mean, float(prob @ (values - mean) ** 2)


def product_law(values_pos, prob_pos, values_neg, prob_neg):
    """Values and probabilities of ``X + Y`` over independent resamples of the two classes."""
    return (
        (values_pos[:, None] + values_neg[None, :]).ravel(),
        (prob_pos[:, None] * prob_neg[None, :]).ravel(),
    )


def ge(scores, t) -> np.ndarray:
    return (np.asarray(scores, dtype=float) >= t).astype(np.int64)


# tiny data with ties, within and across classes and at the thresholds
POS = [2.0, 1.0, 1.0, -0.5]
NEG = [1.0, 0.0, -0.5]
POS2 = [1.5, 1.0, -1.0, 0.5]
NEG2 = [-1.0, 1.0, 0.5]
THRESHOLDS = [-np.inf, -0.5, 0.0, 1.0, 1.7, np.inf]


# --- (a) enumeration: one classifier -----------------------------------------------------------


def stratified_single_law(pos, neg, w, t):
    counts_p, prob_p = resamples(len(pos))
    counts_n, prob_n = resamples(len(neg))
    tpr = counts_p @ ge(pos, t) / len(pos)
    fpr = counts_n @ ge(neg, t) / len(neg)
    return product_law(w * (1 - tpr), prob_p, (1 - w) * fpr, prob_n)


def full_single_law(pos, neg, w, t):
    scores = np.array(pos + neg, dtype=float)
    is_pos = np.array([1] * len(pos) + [0] * len(neg))
    counts, prob = resamples(scores.size)
    fn = counts @ (is_pos * (scores < t))
    fp = counts @ ((1 - is_pos) * (scores >= t))
    return (w * fn + (1 - w) * fp) / (scores.size * max(w, 1 - w)), prob


@pytest.mark.parametrize("bootstrap", ["stratified", "full"])
@pytest.mark.parametrize("t", THRESHOLDS)
def test_single_moments_equal_enumeration(bootstrap, t):
    ci = cost_ci(POS, NEG, W, [t] * len(W), method="wald", bootstrap=bootstrap)
    law = stratified_single_law if bootstrap == "stratified" else full_single_law
    for k, w in enumerate(W):
        values, prob = law(POS, NEG, w, t)
        mean, var = moments(values, prob)
        assert ci.cost[k] == pytest.approx(mean, abs=1e-12)
        assert ci.var[k] == pytest.approx(var, abs=1e-12)


def test_full_moments_equal_eqs_5_10_and_5_11_as_printed():
    """The thesis's formulas with C(-|+) = w, C(+|-) = 1 - w, alpha and delta^2 of eq. 5.11."""
    n_pos, n_neg, n = len(POS), len(NEG), len(POS) + len(NEG)
    for t in THRESHOLDS:
        tp, fp = int(ge(POS, t).sum()), int(ge(NEG, t).sum())
        for w in (0.2, 0.5, 0.9):
            c_fn, c_fp, c_max = w, 1 - w, max(w, 1 - w)
            mean = (c_fn * (n_pos - tp) + c_fp * fp) / (n * c_max)
            alpha_pos, alpha_neg = tp - tp**2 / n_pos, fp - fp**2 / n_neg
            delta2 = (c_fn * (n_pos - tp) / n_pos - c_fp * fp / n_neg) ** 2 * n_pos * n_neg / n
            var = (c_fn**2 * alpha_pos + c_fp**2 * alpha_neg + delta2) / (n * c_max) ** 2
            ci = cost_ci(POS, NEG, [w], [t], method="wald", bootstrap="full")
            assert ci.cost[0] == pytest.approx(mean, abs=1e-14)
            assert ci.var[0] == pytest.approx(var, abs=1e-14)


# --- (a) enumeration: two classifiers ----------------------------------------------------------


def stratified_paired_law(w, t1, t2):
    counts_p, prob_p = resamples(len(POS))
    counts_n, prob_n = resamples(len(NEG))
    d_tpr = counts_p @ (ge(POS, t1) - ge(POS2, t2)) / len(POS)
    d_fpr = counts_n @ (ge(NEG2, t2) - ge(NEG, t1)) / len(NEG)
    return product_law(w * d_tpr, prob_p, (1 - w) * d_fpr, prob_n)


def full_paired_law(w, t1, t2):
    s1, s2 = np.array(POS + NEG, dtype=float), np.array(POS2 + NEG2, dtype=float)
    is_pos = np.array([1] * len(POS) + [0] * len(NEG))
    counts, prob = resamples(s1.size)
    fn_diff = counts @ (is_pos * ((s2 < t2).astype(int) - (s1 < t1)))
    fp_diff = counts @ ((1 - is_pos) * ((s2 >= t2).astype(int) - (s1 >= t1)))
    return (w * fn_diff + (1 - w) * fp_diff) / (s1.size * max(w, 1 - w)), prob


@pytest.mark.parametrize("bootstrap", ["stratified", "full"])
@pytest.mark.parametrize(
    ("t1", "t2"), [(0.0, 0.5), (1.0, 1.0), (-np.inf, 1.0), (1.7, -0.5), (np.inf, np.inf)]
)
def test_paired_moments_equal_enumeration(bootstrap, t1, t2):
    ci = cost_difference_ci(
        POS, POS2, NEG, NEG2, W, [t1] * len(W), [t2] * len(W), method="wald", bootstrap=bootstrap
    )
    law = stratified_paired_law if bootstrap == "stratified" else full_paired_law
    for k, w in enumerate(W):
        mean, var = moments(*law(w, t1, t2))
        assert ci.cost[k] == pytest.approx(mean, abs=1e-12)
        assert ci.var[k] == pytest.approx(var, abs=1e-12)


def test_paired_moments_equal_eqs_5_7_5_8_and_5_13_5_14_as_printed():
    n_pos, n_neg, n = len(POS), len(NEG), len(POS) + len(NEG)
    t1, t2, w = 0.0, 0.5, 0.3
    # 1n: right by classifier 1 only, 2n: right by classifier 2 only (thesis 5.1)
    n1_pos = int(np.sum(ge(POS, t1) * (1 - ge(POS2, t2))))
    n2_pos = int(np.sum(ge(POS2, t2) * (1 - ge(POS, t1))))
    n1_neg = int(np.sum((1 - ge(NEG, t1)) * ge(NEG2, t2)))
    n2_neg = int(np.sum((1 - ge(NEG2, t2)) * ge(NEG, t1)))
    p1p, p2p, p1n, p2n = n1_pos / n_pos, n2_pos / n_pos, n1_neg / n_neg, n2_neg / n_neg
    mean = w * (p1p - p2p) + (1 - w) * (p2n - p1n)
    var = w**2 / n_pos * (p1p + p2p - (p1p - p2p) ** 2) + (1 - w) ** 2 / n_neg * (
        p1n + p2n - (p1n - p2n) ** 2
    )
    ci = cost_difference_ci(POS, POS2, NEG, NEG2, [w], [t1], [t2], method="wald")
    assert (ci.cost[0], ci.var[0]) == pytest.approx((mean, var), abs=1e-14)
    # eq. 5.12 counts 2N- - 1N- as the negatives' term: FP of 2 minus FP of 1 = n1_neg - n2_neg
    c_max = max(w, 1 - w)
    mean_full = (w * (n1_pos - n2_pos) + (1 - w) * (n1_neg - n2_neg)) / (n * c_max)
    alpha_pos = n1_pos + n2_pos - (n1_pos - n2_pos) ** 2 / n_pos
    alpha_neg = n1_neg + n2_neg - (n1_neg - n2_neg) ** 2 / n_neg
    delta2 = (
        (w * (n1_pos - n2_pos) / n_pos - (1 - w) * (n1_neg - n2_neg) / n_neg) ** 2
        * n_pos
        * n_neg
        / n
    )
    var_full = (w**2 * alpha_pos + (1 - w) ** 2 * alpha_neg + delta2) / (n * c_max) ** 2
    ci = cost_difference_ci(POS, POS2, NEG, NEG2, [w], [t1], [t2], method="wald", bootstrap="full")
    assert (ci.cost[0], ci.var[0]) == pytest.approx((mean_full, var_full), abs=1e-14)


score_lists = st.lists(st.integers(-2, 2).map(float), min_size=1, max_size=3)


@settings(max_examples=40, deadline=None)
@given(
    pos=score_lists,
    neg=score_lists,
    t=st.sampled_from([-1.5, 0.0, 0.5, 2.0]),
    w=st.sampled_from([0.15, 0.5, 0.7]),
    bootstrap=st.sampled_from(["stratified", "full"]),
)
def test_single_moments_equal_enumeration_on_generated_data(pos, neg, t, w, bootstrap):
    law = stratified_single_law if bootstrap == "stratified" else full_single_law
    mean, var = moments(*law(pos, neg, w, t))
    ci = cost_ci(pos, neg, [w], [t], method="wald", bootstrap=bootstrap)
    assert (ci.cost[0], ci.var[0]) == pytest.approx((mean, var), abs=1e-12)


# --- (b) Monte Carlo bootstrap on realistic data -----------------------------------------------

B = 20_000


def binormal_pair(n: int, seed: int):
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((4, n))
    pos1, neg1 = 1.0 + 3 * z[0], -1.0 + 3 * z[1]
    pos2 = 3.0 + 3 * (0.6 * z[0] + 0.8 * z[2])
    neg2 = -1.0 + 3 * (0.6 * z[1] + 0.8 * z[3])
    return pos1, pos2, neg1, neg2


def mc_single(pos, neg, w, t, bootstrap, rng):
    if bootstrap == "stratified":
        tp = ge(pos, t)[rng.integers(0, pos.size, (B, pos.size))].sum(axis=1)
        fp = ge(neg, t)[rng.integers(0, neg.size, (B, neg.size))].sum(axis=1)
        return w * (1 - tp / pos.size) + (1 - w) * fp / neg.size
    fn_cell = np.concatenate([1 - ge(pos, t), np.zeros(neg.size, dtype=np.int64)])
    fp_cell = np.concatenate([np.zeros(pos.size, dtype=np.int64), ge(neg, t)])
    n = fn_cell.size
    idx = rng.integers(0, n, (B, n))
    return (w * fn_cell[idx].sum(axis=1) + (1 - w) * fp_cell[idx].sum(axis=1)) / (
        n * max(w, 1 - w)
    )


def mc_paired(pos1, pos2, neg1, neg2, w, t1, t2, bootstrap, rng):
    x_cell = ge(pos1, t1) - ge(pos2, t2)  # TP1 - TP2 = FN2 - FN1, per positive
    y_cell = ge(neg2, t2) - ge(neg1, t1)  # FP2 - FP1, per negative
    if bootstrap == "stratified":
        x = x_cell[rng.integers(0, pos1.size, (B, pos1.size))].sum(axis=1) / pos1.size
        y = y_cell[rng.integers(0, neg1.size, (B, neg1.size))].sum(axis=1) / neg1.size
        return w * x + (1 - w) * y
    cells_x = np.concatenate([x_cell, np.zeros(neg1.size, dtype=np.int64)])
    cells_y = np.concatenate([np.zeros(pos1.size, dtype=np.int64), y_cell])
    n = cells_x.size
    idx = rng.integers(0, n, (B, n))
    return (w * cells_x[idx].sum(axis=1) + (1 - w) * cells_y[idx].sum(axis=1)) / (
        n * max(w, 1 - w)
    )


@pytest.mark.parametrize("bootstrap", ["stratified", "full"])
def test_moments_agree_with_monte_carlo_bootstrap(bootstrap):
    pos1, pos2, neg1, neg2 = binormal_pair(200, seed=5)
    rng = np.random.default_rng(20091)
    for w, t1, t2 in ((0.1, 4.0, 5.0), (0.5, 0.0, 1.0), (0.85, -3.0, -2.0)):
        single = cost_ci(pos1, neg1, [w], [t1], bootstrap=bootstrap)
        assert_mc_agrees(
            mc_single(pos1, neg1, w, t1, bootstrap, rng), single.cost[0], single.var[0]
        )
        paired = cost_difference_ci(pos1, pos2, neg1, neg2, [w], [t1], [t2], bootstrap=bootstrap)
        assert_mc_agrees(
            mc_paired(pos1, pos2, neg1, neg2, w, t1, t2, bootstrap, rng),
            paired.cost[0],
            paired.var[0],
        )


# --- intervals -------------------------------------------------------------------------------


@pytest.mark.parametrize("bootstrap", ["stratified", "full"])
@pytest.mark.parametrize("level", [0.8, 0.9, 0.95])
def test_wald_is_the_gaussian_with_the_exact_moments(bootstrap, level):
    ci = cost_ci(
        POS, NEG, W, [0.5] * len(W), confidence_level=level, method="wald", bootstrap=bootstrap
    )
    half = z_of(level) * np.sqrt(ci.var)
    np.testing.assert_allclose(ci.low, np.clip(ci.cost - half, 0, 1), atol=1e-14)
    np.testing.assert_allclose(ci.high, np.clip(ci.cost + half, 0, 1), atol=1e-14)
    d = cost_difference_ci(
        POS,
        POS2,
        NEG,
        NEG2,
        W,
        [0.5] * len(W),
        [0.0] * len(W),
        confidence_level=level,
        method="wald",
        bootstrap=bootstrap,
    )
    half = z_of(level) * np.sqrt(d.var)
    np.testing.assert_allclose(d.low, np.clip(d.cost - half, -1, 1), atol=1e-14)
    np.testing.assert_allclose(d.high, np.clip(d.cost + half, -1, 1), atol=1e-14)


def augmented_single(pos, neg, t, a: int):
    """Table 5.1 literally: ``a`` new instances in each cell of the confusion matrix."""
    above, below = t + 1.0, t - 1.0
    return (list(pos) + [above] * a + [below] * a, list(neg) + [above] * a + [below] * a)


@pytest.mark.parametrize("a", [1, 2, 3])
@pytest.mark.parametrize("w", [0.05, 0.3, 0.5, 0.95])
def test_agresti_is_wald_on_data_with_pseudo_instances(a, w):
    """Table 5.1: adding ``a`` instances to each cell then Wald (stratified formulas)."""
    t = 0.5
    got = cost_ci(POS, NEG, [w], [t], confidence_level=0.9, method="agresti", pseudo_count=a)
    pos_a, neg_a = augmented_single(POS, NEG, t, a)
    want = cost_ci(pos_a, neg_a, [w], [t], confidence_level=0.9, method="wald")
    assert (got.low[0], got.high[0]) == pytest.approx((want.low[0], want.high[0]), abs=1e-14)
    # the moments stay those of the data
    assert got.cost[0] == cost_ci(POS, NEG, [w], [t], method="wald").cost[0]


def test_default_agresti_pseudo_counts_are_2_and_one_half():
    assert cost_ci(POS, NEG, [0.3], [0.5]).pseudo_count == 2.0
    d = cost_difference_ci(POS, POS2, NEG, NEG2, [0.3], [0.5], [0.5])
    assert d.pseudo_count == 0.5 and d.method == "agresti"
    explicit = cost_ci(POS, NEG, [0.3], [0.5], method="agresti", pseudo_count=2.0)
    assert cost_ci(POS, NEG, [0.3], [0.5]).low[0] == explicit.low[0]


def augmented_paired(t1, t2, a: int):
    """Table 5.2 literally with ``a`` instances per cell of each class's 2x2 table."""
    cells = [(t1 + 1, t2 + 1), (t1 + 1, t2 - 1), (t1 - 1, t2 + 1), (t1 - 1, t2 - 1)]
    extra1 = [c[0] for c in cells for _ in range(a)]
    extra2 = [c[1] for c in cells for _ in range(a)]
    return POS + extra1, POS2 + extra2, NEG + extra1, NEG2 + extra2


@pytest.mark.parametrize("bootstrap", ["stratified"])
@pytest.mark.parametrize("w", [0.1, 0.5, 0.9])
def test_agresti_min_is_wald_on_data_with_pseudo_instances(bootstrap, w):
    t1, t2 = 0.0, 0.5
    got = cost_difference_ci(
        POS,
        POS2,
        NEG,
        NEG2,
        [w],
        [t1],
        [t2],
        confidence_level=0.9,
        method="agresti",
        pseudo_count=1.0,
        bootstrap=bootstrap,
    )
    want = cost_difference_ci(
        *augmented_paired(t1, t2, 1),
        [w],
        [t1],
        [t2],
        confidence_level=0.9,
        method="wald",
        bootstrap=bootstrap,
    )
    assert (got.low[0], got.high[0]) == pytest.approx((want.low[0], want.high[0]), abs=1e-14)


@pytest.mark.parametrize("level", [0.9, 0.95])
@pytest.mark.parametrize("bootstrap", ["stratified", "full"])
def test_score_combines_the_classes_wilson_intervals(level, bootstrap):
    """Each class's Wilson interval (statsmodels) read as a Gaussian, then eq. 5.4/5.5 (or
    5.10/5.11 with the Wilson centres in delta^2)."""
    pos = np.array([3.0, 2.5, 2.0, 1.0, 0.2, -1.0, 0.0])
    neg = np.array([1.5, 0.5, 0.1, -0.3, -1.0, -2.0])
    t, z = 0.4, z_of(level)
    n_pos, n_neg, n = pos.size, neg.size, pos.size + neg.size
    centres, variances = [], []
    for count, size in ((int(ge(pos, t).sum()), n_pos), (int(ge(neg, t).sum()), n_neg)):
        low, high = proportion_confint(count, size, alpha=1 - level, method="wilson")
        centres.append((low + high) / 2)
        variances.append(((high - low) / (2 * z)) ** 2)
    for w in (0.1, 0.5, 0.8):
        if bootstrap == "stratified":
            a, b, extra = w, 1 - w, 0.0
        else:
            c_max, pi = max(w, 1 - w), n_pos / n
            a, b = w * pi / c_max, (1 - w) * (1 - pi) / c_max
            extra = (
                (w * (1 - centres[0]) - (1 - w) * centres[1]) ** 2 * pi * (1 - pi) / (n * c_max**2)
            )
        centre = a * (1 - centres[0]) + b * centres[1]
        half = z * math.sqrt(a**2 * variances[0] + b**2 * variances[1] + extra)
        ci = cost_ci(
            pos, neg, [w], [t], confidence_level=level, method="score", bootstrap=bootstrap
        )
        assert (ci.low[0], ci.high[0]) == pytest.approx(
            (max(centre - half, 0), centre + half), abs=1e-12
        )


def test_paired_score_uses_eq_4_8_per_class():
    t1, t2, w, level = 0.0, 0.5, 0.4, 0.9
    z2 = z_of(level) ** 2
    parts = []
    for b, c, n in (
        (
            int(np.sum(ge(POS, t1) * (1 - ge(POS2, t2)))),
            int(np.sum(ge(POS2, t2) * (1 - ge(POS, t1)))),
            len(POS),
        ),
        (
            int(np.sum(ge(NEG2, t2) * (1 - ge(NEG, t1)))),
            int(np.sum(ge(NEG, t1) * (1 - ge(NEG2, t2)))),
            len(NEG),
        ),
    ):
        d, gamma, shrink = (b - c) / n, (b + c + 2) / (n + 4), 1 + z2 / n
        half = math.sqrt(z2 * max(gamma * shrink - d * d, 0) / n) / shrink
        parts.append((d / shrink, half**2 / z2))
    centre = w * parts[0][0] + (1 - w) * parts[1][0]
    half = math.sqrt(z2 * (w**2 * parts[0][1] + (1 - w) ** 2 * parts[1][1]))
    ci = cost_difference_ci(
        POS, POS2, NEG, NEG2, [w], [t1], [t2], confidence_level=level, method="score"
    )
    assert (ci.low[0], ci.high[0]) == pytest.approx((centre - half, centre + half), abs=1e-12)


@pytest.mark.parametrize("method", ["wald", "score", "agresti"])
def test_intervals_contain_the_estimate_and_stay_in_range(method):
    pos1, pos2, neg1, neg2 = binormal_pair(50, seed=2)
    w = np.linspace(0, 1, 21)
    for bootstrap in ("stratified", "full"):
        ci = cost_ci(pos1, neg1, w, "empirical", method=method, bootstrap=bootstrap)
        assert np.all((0 <= ci.low) & (ci.low <= ci.high) & (ci.high <= 1))
        if method == "wald":
            assert np.all((ci.low <= ci.cost) & (ci.cost <= ci.high))
        d = cost_difference_ci(
            pos1, pos2, neg1, neg2, w, "empirical", "empirical", method=method, bootstrap=bootstrap
        )
        assert np.all((-1 <= d.low) & (d.low <= d.high) & (d.high <= 1))


def test_empirical_thresholds_give_the_cost_curve():
    pos1, _, neg1, _ = binormal_pair(80, seed=3)
    w = np.linspace(0, 1, 41)
    ci = cost_ci(pos1, neg1, w, "empirical")
    np.testing.assert_allclose(ci.cost, cost_curve(pos1, neg1, w), atol=1e-15)


def test_empirical_thresholds_of_the_full_statistic_minimize_it():
    """With n+ != n-, the full statistic's minimizer is that of eq. 3.12 at w' != w."""
    pos1, _, neg1, _ = binormal_pair(90, seed=4)
    neg1 = neg1[:30]
    w = np.linspace(0.05, 0.95, 19)
    best = cost_ci(pos1, neg1, w, "empirical", method="wald", bootstrap="full").cost
    every = np.unique(np.concatenate([pos1, neg1, [np.inf]]))
    for k, wk in enumerate(w):
        all_costs = cost_ci(pos1, neg1, wk, every, method="wald", bootstrap="full").cost
        assert best[k] == pytest.approx(all_costs.min(), abs=1e-14)


# --- (e) cost space --------------------------------------------------------------------------


def brute_force_curve(pos, neg, w):
    thresholds = np.concatenate([[np.inf], np.unique(np.concatenate([pos, neg]))])
    tpr = count_at_or_above(np.asarray(pos, float), thresholds) / len(pos)
    fpr = count_at_or_above(np.asarray(neg, float), thresholds) / len(neg)
    costs = normalized_cost(np.asarray(w)[:, None], tpr[None, :], fpr[None, :])
    return costs.min(axis=1)


@pytest.mark.parametrize("seed", range(8))
def test_envelope_is_the_minimum_over_every_cost_line(seed):
    rng = np.random.default_rng(seed)
    n_pos, n_neg = rng.integers(1, 60, size=2)
    # few distinct values: many ties within and across classes
    pos = rng.integers(-5, 8, n_pos).astype(float)
    neg = rng.integers(-8, 5, n_neg).astype(float)
    w = np.concatenate([np.linspace(0, 1, 101), rng.random(50)])
    env = cost_envelope(pos, neg, w)
    np.testing.assert_allclose(env.cost, brute_force_curve(pos, neg, w), atol=1e-14)
    # the reported threshold reproduces the reported ROC point and cost
    np.testing.assert_array_equal(count_at_or_above(pos, env.threshold) / n_pos, env.tpr)
    np.testing.assert_array_equal(count_at_or_above(neg, env.threshold) / n_neg, env.fpr)
    np.testing.assert_allclose(env.cost, normalized_cost(w, env.tpr, env.fpr), atol=0)


@settings(max_examples=60, deadline=None)
@given(
    pos=st.lists(st.integers(-3, 3).map(float), min_size=1, max_size=12),
    neg=st.lists(st.integers(-3, 3).map(float), min_size=1, max_size=12),
)
def test_envelope_on_generated_data(pos, neg):
    w = np.linspace(0, 1, 57)
    np.testing.assert_allclose(cost_curve(pos, neg, w), brute_force_curve(pos, neg, w), atol=1e-14)


def test_cost_curve_by_hand():
    # ROC points (0,0), (0,1/3), (0,2/3), (1/2,2/3), (1/2,1), (1,1);
    # hull (0,0)-(0,2/3)-(1/2,1)-(1,1)
    w = [0.0, 0.1, 0.4, 0.5, 0.9, 1.0]
    got = cost_curve([0.9, 0.8, 0.3], [0.7, 0.2], w)
    want = [min(wk * (1 - 2 / 3), wk * 0 + (1 - wk) * 0.5, 1 - wk, wk) for wk in w]
    np.testing.assert_allclose(got, want, atol=1e-15)


def test_operating_range_by_hand():
    # one ROC point (0.25, 0.75) besides the trivial ones: beats w for w > 0.25 and
    # 1 - w for w < 0.75/1.0
    assert operating_range([1.0, 1.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0]) == (0.25, 0.75)
    assert operating_range([0.0, 0.0], [1.0, 1.0]) is None
    low, high = operating_range([3.0, 2.0, 1.0, 0.5], [2.0, 0.0, -1.0, -2.0])
    w = np.linspace(0, 1, 100_001)
    better = cost_curve([3.0, 2.0, 1.0, 0.5], [2.0, 0.0, -1.0, -2.0], w) < np.minimum(w, 1 - w)
    assert w[better].min() == pytest.approx(low, abs=1e-5)
    assert w[better].max() == pytest.approx(high, abs=1e-5)


# --- true cost curves --------------------------------------------------------------------------

MODELS = [
    ("binormal", (1.0, 3.0), (-1.0, 3.0)),  # one SD: closed form
    ("binormal", (5.0, 3.0), (-5.0, 3.0)),
    ("binormal", (3.0, 3.75), (-3.0, 3.0)),  # unequal SDs: non-monotone likelihood ratio
    ("binormal", (2.0, 2.0), (0.0, 1.0)),
    ("beta", (1.2, 2.0), (1.2, 3.0)),
    ("exponential", (3.0,), (2.0,)),
    ("beta", (2.0, 4.0), (2.0, 3.0)),  # below the diagonal: trivial classifiers win
]


@pytest.mark.parametrize(("family", "pos", "neg"), MODELS)
def test_true_cost_curve_equals_a_dense_numerical_minimum(family, pos, neg):
    model = make_model(family, pos, neg)
    w = np.array([0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99])
    u = np.linspace(0, 1, 200_001)[1:-1]
    grid = np.concatenate([model.pos.ppf(u), model.neg.ppf(u), [np.inf, -np.inf]])
    dense = np.array([np.min(model.cost(wk, grid)) for wk in w])
    got = model.cost_curve(w)
    assert np.all(got <= dense + 1e-12)
    np.testing.assert_allclose(got, dense, atol=1e-8)
    np.testing.assert_allclose(got, model.cost(w, model.cost_threshold(w)), atol=0)


@pytest.mark.parametrize("theta", [0.75, 1.5, 3.0, 5.0])
def test_closed_form_threshold_equals_numerical_minimizer(theta):
    model = make_model("binormal", (theta, 3.0), (-theta, 3.0))
    w = np.linspace(0.01, 0.99, 25)
    closed = model.cost_threshold(w)
    numeric = model._minimize_cost(w)
    np.testing.assert_allclose(model.cost(w, closed), model.cost(w, numeric), atol=1e-15)
    # where the cost is not flat to machine precision, the minimizers agree too
    inner = (w >= 0.1) & (w <= 0.9)
    np.testing.assert_allclose(closed[inner], numeric[inner], atol=1e-5)
    # and it is a stationary point: w f+(t) = (1 - w) f-(t)
    np.testing.assert_allclose(
        w * model.pos.pdf(closed), (1 - w) * model.neg.pdf(closed), rtol=1e-9
    )


def test_true_cost_threshold_at_the_edges():
    model = make_model("binormal", (1.0, 3.0), (-1.0, 3.0))
    assert model.cost_threshold([0.0, 1.0]).tolist() == [np.inf, -np.inf]
    np.testing.assert_allclose(
        model.cost_curve([0.0, 0.5, 1.0]), [0.0, stats.norm.cdf(-1 / 3), 0.0], atol=1e-15
    )


# --- input checks ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "word"),
    [
        ({"method": "jeffreys"}, "wald, score, agresti"),
        ({"method": "wald", "pseudo_count": 1.0}, "pseudo_count"),
        ({"method": "agresti", "pseudo_count": -1.0}, "pseudo_count"),
        ({"bootstrap": "bayes"}, "stratified, full"),
        ({"confidence_level": 95}, "confidence_level"),
        ({"w": [0.5, 1.5]}, r"\[0, 1\]"),
        ({"w": [np.nan]}, r"\[0, 1\]"),
        ({"thresholds": [0.0, 1.0, 2.0]}, "broadcast"),
        ({"thresholds": "oracle"}, "empirical"),
        ({"thresholds": [np.nan, 0.0]}, "NaN"),
        ({"pos_scores": []}, "empty"),
    ],
)
def test_cost_ci_bad_input(kwargs, word):
    args = {
        "pos_scores": POS,
        "neg_scores": NEG,
        "w": [0.2, 0.5],
        "thresholds": [0.0, 1.0],
        **kwargs,
    }
    with pytest.raises(ValueError, match=word):
        cost_ci(**args)


def test_cost_difference_ci_bad_input():
    with pytest.raises(ValueError, match="same positives"):
        cost_difference_ci(POS, POS2[:2], NEG, NEG2, [0.5], [0.0], [0.0])
    with pytest.raises(ValueError, match="pseudo_count"):
        cost_difference_ci(
            POS, POS2, NEG, NEG2, [0.5], [0.0], [0.0], method="score", pseudo_count=0.5
        )
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        cost_curve(POS, NEG, [-0.1])
