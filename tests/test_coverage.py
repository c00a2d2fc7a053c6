"""Exact coverage against brute-force binomial sums, the thesis example and simulation."""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from scipy import stats

from rocsim.core import binomial_coverage, proportion_ci, threshold_exact_coverage
from rocsim.sim.models import make_model

P_GRID = [0.0, 1e-9, 1e-4, 0.01, 0.05, 0.2, 0.37, 0.5, 0.8, 0.95, 0.99, 1 - 1e-4, 1.0]
METHODS = [
    ("wald", None),
    ("score", None),
    ("agresti", None),
    ("agresti", 0.5),
    ("jeffreys", None),
    ("clopper_pearson", None),
]


def brute_axis(n, p, interval):
    """cover, below, above, width by summing over every x in 0..n."""
    x = np.arange(n + 1)
    low, high = interval(x)
    pmf = stats.binom.pmf(x, n, p)
    cover = sum(pmf[i] for i in range(n + 1) if low[i] <= p <= high[i])
    below = sum(pmf[i] for i in range(n + 1) if p < low[i])
    above = sum(pmf[i] for i in range(n + 1) if p > high[i])
    width = sum(pmf[i] * (high[i] - low[i]) for i in range(n + 1))
    return cover, below, above, width


@pytest.mark.parametrize(("method", "a"), METHODS)
@pytest.mark.parametrize("n", [1, 7, 25, 120])
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_binomial_coverage_is_the_brute_force_sum(method, a, n, level):
    def interval(x, trials):
        ci = proportion_ci(x, trials, confidence_level=level, method=method, pseudo_count=a)
        return ci.low, ci.high

    got = binomial_coverage(n, P_GRID, interval)
    for i, p in enumerate(P_GRID):
        cover, below, above, width = brute_axis(n, p, lambda x: interval(x, n))
        assert got.cover[i] == pytest.approx(cover, abs=1e-12)
        assert got.below[i] == pytest.approx(below, abs=1e-12)
        assert got.above[i] == pytest.approx(above, abs=1e-12)
        assert got.width[i] == pytest.approx(width, abs=1e-12)
        assert cover + below + above == pytest.approx(1.0, abs=1e-12)


def test_binomial_coverage_wald_at_the_edges_by_hand():
    # Wald at p = 0: x = 0 surely, interval [0, 0] contains 0; at p = 1 likewise.
    def wald(x, trials):
        ci = proportion_ci(x, trials, confidence_level=0.95, method="wald")
        return ci.low, ci.high

    got = binomial_coverage(25, [0.0, 1.0, 1e-3], wald)
    assert got.cover[0] == pytest.approx(1.0, abs=1e-15)
    assert got.cover[1] == pytest.approx(1.0, abs=1e-15)
    # p = 0.001, n = 25, z = 1.96: x = 0 gives [0, 0], which misses 0.001;
    # x = 3: 0.12 - 1.96 sqrt(0.12 * 0.88 / 25) = -0.0074 < 0.001, covered;
    # x = 4: 0.16 - 1.96 sqrt(0.16 * 0.84 / 25) = 0.0163 > 0.001, missed (and above).
    # So coverage = Pr{1 <= X <= 3}.
    p = 1e-3
    want = sum(math.comb(25, k) * p**k * (1 - p) ** (25 - k) for k in (1, 2, 3))
    assert got.cover[2] == pytest.approx(want, abs=1e-13)
    assert got.above[2] == pytest.approx((1 - p) ** 25, abs=1e-13)
    assert got.below[2] == pytest.approx(1 - want - (1 - p) ** 25, abs=1e-13)


@pytest.mark.parametrize("method", ["wald", "score", "agresti", "jeffreys", "clopper_pearson"])
@pytest.mark.parametrize("n", [3, 25, 10000])
@pytest.mark.parametrize("bootstrap", ["stratified", "full"])
def test_exact_coverage_at_true_rates_zero_and_one(method, n, bootstrap):
    # p = 0 gives X = 0 surely and p = 1 gives X = n surely. Every method's interval at
    # x = 0 starts at 0 (score: centre - half = 0 exactly in real arithmetic; agresti: Wald
    # on (x + 2)/(n + 4) reaches below 0 and is clipped) and at x = n ends at 1, so the truth
    # is always covered: coverage 1 on each axis.
    cov = threshold_exact_coverage(
        [0.0, 1.0], [1.0, 0.0], n, n, confidence_level=0.9, method=method, bootstrap=bootstrap
    )
    np.testing.assert_array_equal(cov.tpr.cover, [1.0, 1.0])
    np.testing.assert_array_equal(cov.fpr.cover, [1.0, 1.0])
    np.testing.assert_array_equal(cov.cover, [1.0, 1.0])


# threshold_exact_coverage ---------------------------------------------------------------------


@cache
def full_bootstrap_inverse_means(k_pos, k_neg):
    """E[1/N+], E[1/N-] of a full-bootstrap resample of k_pos + k_neg instances, exactly."""
    n = k_pos + k_neg
    pmf = {
        k: math.comb(n, k) * Fraction(k_pos, n) ** k * Fraction(k_neg, n) ** (n - k)
        for k in range(1, n)
    }
    total = sum(pmf.values())
    return (
        float(sum(p / total / k for k, p in pmf.items())),
        float(sum(p / total / (n - k) for k, p in pmf.items())),
    )


def axis_interval(k, other, positive, level, method, a, bootstrap):
    """The interval the analyst reports from x of k instances of one class."""
    if bootstrap == "stratified":
        return lambda x: tuple(
            proportion_ci(x, k, confidence_level=level, method=method, pseudo_count=a)
        )
    inv = full_bootstrap_inverse_means(*((k, other) if positive else (other, k)))
    size = 1 / (inv[0] if positive else inv[1])
    return lambda x: tuple(
        proportion_ci(x / k * size, size, confidence_level=level, method=method, pseudo_count=a)
    )


def brute_rectangle(tpr, fpr, k_pos, k_neg, level, method, a, bootstrap):
    axis_level = math.sqrt(level)
    t = brute_axis(k_pos, tpr, axis_interval(k_pos, k_neg, True, axis_level, method, a, bootstrap))
    f = brute_axis(
        k_neg, fpr, axis_interval(k_neg, k_pos, False, axis_level, method, a, bootstrap)
    )
    return t, f


# strictly inside (0, 1): the edges 0 and 1 are checked by hand above
TRUTHS = [(1e-9, 1 - 1e-9), (0.5, 0.5), (0.9, 0.1), (0.999, 1e-3), (0.26, 1.75e-5), (0.02, 0.7)]


def exact_coverage_of_truths(n_pos, n_neg, method, a, bootstrap, sampling):
    """``threshold_exact_coverage`` at level 0.9 for every true point of ``TRUTHS``."""
    return threshold_exact_coverage(
        [t for t, _ in TRUTHS],
        [f for _, f in TRUTHS],
        n_pos,
        n_neg,
        confidence_level=0.9,
        method=method,
        pseudo_count=a,
        bootstrap=bootstrap,
        sampling=sampling,
    )


@pytest.mark.parametrize(("method", "a"), METHODS)
@pytest.mark.parametrize("bootstrap", ["stratified", "full"])
@pytest.mark.parametrize(("n_pos", "n_neg"), [(25, 25), (10, 30)])
def test_threshold_exact_coverage_stratified_sampling_brute_force(
    method, a, bootstrap, n_pos, n_neg
):
    got = exact_coverage_of_truths(n_pos, n_neg, method, a, bootstrap, "stratified")
    for i, (tp, fp) in enumerate(TRUTHS):
        t, f = brute_rectangle(tp, fp, n_pos, n_neg, 0.9, method, a, bootstrap)
        assert got.tpr.cover[i] == pytest.approx(t[0], abs=1e-12)
        assert got.fpr.cover[i] == pytest.approx(f[0], abs=1e-12)
        assert got.tpr.width[i] == pytest.approx(t[3], abs=1e-12)
        assert got.fpr.width[i] == pytest.approx(f[3], abs=1e-12)
        assert got.cover[i] == pytest.approx(t[0] * f[0], abs=1e-12)
        assert got.below[i] == pytest.approx(1 - (1 - t[1]) * (1 - f[1]), abs=1e-12)
        assert got.above[i] == pytest.approx(1 - (1 - t[2]) * (1 - f[2]), abs=1e-12)


@pytest.mark.parametrize(("method", "a"), [("score", None), ("wald", None), ("agresti", 1.0)])
@pytest.mark.parametrize("bootstrap", ["stratified", "full"])
@pytest.mark.parametrize(("n_pos", "n_neg"), [(3, 3), (2, 4)])
def test_threshold_exact_coverage_full_sampling_brute_force(method, a, bootstrap, n_pos, n_neg):
    n = n_pos + n_neg
    # N+ ~ Bin(n, n_pos/n) conditioned on 1 <= N+ <= n-1 (n_pos = n_neg = 3: Bin(6, 1/2))
    weights = {
        k: math.comb(n, k) * Fraction(n_pos, n) ** k * Fraction(n_neg, n) ** (n - k)
        for k in range(1, n)
    }
    total = sum(weights.values())
    got = exact_coverage_of_truths(n_pos, n_neg, method, a, bootstrap, "full")
    for i, (tp, fp) in enumerate(TRUTHS):
        cover = tpr_cover = fpr_cover = 0.0
        for k, w in weights.items():
            w = float(w / total)
            t, f = brute_rectangle(tp, fp, k, n - k, 0.9, method, a, bootstrap)
            cover += w * t[0] * f[0]
            tpr_cover += w * t[0]
            fpr_cover += w * f[0]
        assert got.cover[i] == pytest.approx(cover, abs=1e-12)
        assert got.tpr.cover[i] == pytest.approx(tpr_cover, abs=1e-12)
        assert got.fpr.cover[i] == pytest.approx(fpr_cover, abs=1e-12)


def test_full_sampling_differs_from_stratified():
    # guards the brute force above against comparing two identical things
    args, options = ([0.5], [0.3], 3, 3), {"confidence_level": 0.9, "method": "score"}
    full = threshold_exact_coverage(*args, **options, sampling="full").cover[0]
    strat = threshold_exact_coverage(*args, **options, sampling="stratified").cover[0]
    assert abs(full - strat) > 1e-3


def test_thesis_worked_example():
    model = make_model("binormal", (5.0, 3.75), (-5.0, 3.0))
    t = model.threshold_for_total_positive_ratio(0.13)
    cov = threshold_exact_coverage(
        model.tpr(t), model.fpr(t), 10000, 10000, confidence_level=0.9, method="score"
    )
    assert abs(cov.cover[0] - 0.7960) <= 5e-4
    assert round(float(cov.tpr.cover[0]), 4) == 0.9487
    assert round(float(cov.fpr.cover[0]), 4) == 0.8390
    assert cov.cover[0] == pytest.approx(cov.tpr.cover[0] * cov.fpr.cover[0], abs=1e-15)


def test_thesis_worked_example_fpr_axis_by_hand():
    # FPR 1.7549e-5 with n- = 10000: x = 0 gives [0, 3.7965e-4] (misses nothing: covers),
    # x = 1 gives [1.7794e-5, ...] which misses 1.7549e-5 from above; x >= 2 lower bounds are
    # larger still. So coverage = Pr{X = 0} = (1 - p)^n.
    p = 1.7549e-5
    cov = threshold_exact_coverage([0.5], [p], 10000, 10000, confidence_level=0.9, method="score")
    assert cov.fpr.cover[0] == pytest.approx((1 - p) ** 10000, abs=1e-12)
    assert round((1 - p) ** 10000, 4) == 0.8390


# simulation -----------------------------------------------------------------------------------

R = 20000


def simulate(tpr, fpr, n_pos, n_neg, level, method, bootstrap, sampling, seed):
    rng = np.random.default_rng(seed)
    if sampling == "stratified":
        k_pos = np.full(R, n_pos)
    else:
        n = n_pos + n_neg
        k_pos = rng.binomial(n, n_pos / n, R)
        bad = (k_pos == 0) | (k_pos == n)
        while bad.any():  # redraw test sets with an empty class
            k_pos[bad] = rng.binomial(n, n_pos / n, bad.sum())
            bad = (k_pos == 0) | (k_pos == n)
    k_neg = n_pos + n_neg - k_pos
    x_pos = rng.binomial(k_pos, tpr)
    x_neg = rng.binomial(k_neg, fpr)
    axis = math.sqrt(level)
    if bootstrap == "stratified":
        m_pos, m_neg = k_pos.astype(float), k_neg.astype(float)
    else:
        inv = np.array(
            [full_bootstrap_inverse_means(int(a), int(b)) for a, b in zip(k_pos, k_neg)]
        )
        m_pos, m_neg = 1 / inv[:, 0], 1 / inv[:, 1]
    t_low, t_high = proportion_ci(
        x_pos / k_pos * m_pos, m_pos, confidence_level=axis, method=method
    )
    f_low, f_high = proportion_ci(
        x_neg / k_neg * m_neg, m_neg, confidence_level=axis, method=method
    )
    inside = (t_low <= tpr) & (tpr <= t_high) & (f_low <= fpr) & (fpr <= f_high)
    return inside.mean()


@pytest.mark.parametrize("method", ["wald", "score", "agresti", "clopper_pearson"])
@pytest.mark.parametrize(
    ("bootstrap", "sampling"),
    [
        ("stratified", "stratified"),
        ("full", "stratified"),
        ("stratified", "full"),
        ("full", "full"),
    ],
)
def test_exact_coverage_agrees_with_simulation(method, bootstrap, sampling):
    model = make_model("binormal", (3.0, 3.75), (-3.0, 3.0))
    qs = [0.05, 0.3, 0.5, 0.8]
    t = model.threshold_for_total_positive_ratio(qs)
    tpr, fpr = model.tpr(t), model.fpr(t)
    exact = threshold_exact_coverage(
        tpr,
        fpr,
        50,
        50,
        confidence_level=0.9,
        method=method,
        bootstrap=bootstrap,
        sampling=sampling,
    )
    for j in range(len(qs)):
        sim = simulate(tpr[j], fpr[j], 50, 50, 0.9, method, bootstrap, sampling, seed=100 + j)
        c = exact.cover[j]
        mcse = math.sqrt(c * (1 - c) / R)
        assert abs(sim - c) <= 4 * mcse, (qs[j], sim, c, mcse)


# input checks -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "word"),
    [
        ({"method": "wilson"}, "method"),
        ({"method": "score", "pseudo_count": 1.0}, "pseudo_count"),
        ({"confidence_level": 1.5}, "confidence_level"),
        ({"confidence_level": 0.0}, "confidence_level"),
        ({"sampling": "bogus"}, "sampling"),
        ({"bootstrap": "bogus"}, "bootstrap"),
    ],
)
def test_threshold_exact_coverage_bad_input(kwargs, word):
    args = {
        "tpr_true": [0.3],
        "fpr_true": [0.1],
        "n_pos": 20,
        "n_neg": 20,
        "confidence_level": 0.9,
        "method": "score",
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=word):
        threshold_exact_coverage(**args)


def test_binomial_support_leaves_out_each_tail_beyond_tail_mass_only():
    """The support ends where the upper tail's mass drops below TAIL_MASS, as it starts where
    the lower tail's does: not at ``trials`` (scipy's ``isf`` of so small a mass computes
    ``ppf(1 - mass) = ppf(1)``, the whole range, every entry of it a Boost pmf)."""
    from scipy import stats

    from rocsim.core.coverage import TAIL_MASS, binomial_support

    p = np.array([0.0, 1e-9, 0.01, 0.3, 0.5, 0.97, 1.0])
    for trials in (1, 10, 2500):
        x, pmf = binomial_support(trials, p)
        last = x[np.arange(p.size), np.argmax(np.cumsum(pmf > 0, axis=1), axis=1)]
        first = x[:, 0]
        # all but TAIL_MASS of each tail, and no more
        assert np.all(stats.binom.cdf(first - 1, trials, p) < TAIL_MASS)
        assert np.all(stats.binom.sf(last, trials, p) < TAIL_MASS)
        inner = (p > 0) & (p < 1) & (last < trials)
        assert np.all(stats.binom.sf(last[inner] - 1, trials, p[inner]) >= TAIL_MASS)
        assert np.allclose(pmf.sum(axis=1), 1.0, rtol=0, atol=1e-13)
    assert binomial_support(2500, np.array([0.01]))[0].shape[1] < 200
