"""Vertical averaging (thesis section 4.4.1, Algorithm 4.3) against independent oracles.

Oracles: (a) every bootstrap resample of tiny data sets, as multinomial count vectors with
exact Fraction probabilities (stratified and full bootstrap); (b) a seeded Monte Carlo bootstrap
on realistic data; (c) the interval formulas written out by hand; (d) the dense rank-weight
formula of eq. 4.11.

Conventions: predicted positive means ``score >= threshold``; at FPR ``r/m-`` the bootstrap
threshold ``T_r`` is the ``r``-th largest negative score of the negative resample (counting
multiplicity); ``TPR = #{resampled positives >= T_r} / m+``.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from enumeration import multinomial_law
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

from rocsim.core import fpr_ranks, vertical_ci, vertical_distribution
from rocsim.core.mixture import rank_weights

# (pos, neg): tiny data sets without ties, with ties within negatives, within positives,
# across classes, and all at once
TINY_DATA = [
    pytest.param([0.9, 0.4], [0.7, 0.2], id="2x2-no-ties"),
    pytest.param([0.9, 0.6, 0.3], [0.8, 0.5, 0.1, 0.05], id="3x4-no-ties"),
    pytest.param([3.0, 2.0, 1.0, 0.5], [2.5, 1.5, 0.7], id="4x3-no-ties"),
    pytest.param([0.1, 0.2, 0.15], [0.9, 0.8], id="3x2-separated-wrong-way"),
    pytest.param([0.9, 0.3, 0.6], [0.5, 0.5, 0.2], id="3x3-ties-neg"),
    pytest.param([1.0, 0.0], [0.5, 0.5, 0.5, 0.1], id="2x4-ties-neg"),
    pytest.param([0.9, 0.1, 0.5], [0.4, 0.4, 0.4, 0.4], id="3x4-neg-all-tied"),
    pytest.param([0.8, 0.8, 0.2], [0.9, 0.5, 0.1], id="3x3-ties-pos"),
    pytest.param([0.7, 0.7, 0.7, 0.7], [0.9, 0.1], id="4x2-pos-all-tied"),
    pytest.param([0.5, 0.7, 0.2, 0.5], [0.5, 0.2, 0.9], id="4x3-ties-across"),
    pytest.param([0.3, 0.6], [0.6, 0.3, 0.6, 0.0], id="2x4-ties-everywhere"),
    pytest.param([1.0, 1.0], [1.0, 1.0], id="2x2-all-equal"),
    pytest.param([2.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, -1.0], id="4x4-ties"),
]


# --- brute-force enumeration of resamples ------------------------------------------------------


def rth_largest(scores, counts, r):
    """The ``r``-th largest score of the resample, counting multiplicity."""
    expanded = sorted((s for s, c in zip(scores, counts) for _ in range(c)), reverse=True)
    return expanded[r - 1]


def threshold_law(neg, r):
    """{T_r: probability} over all negative resamples of size n-."""
    law = {}
    for counts, p in multinomial_law(len(neg)):
        t = rth_largest(neg, counts, r)
        law[t] = law.get(t, 0) + p
    return law


def positive_count_law(pos, t):
    """{#resampled positives >= t: probability} over all positive resamples of size n+."""
    law = {}
    for counts, p in multinomial_law(len(pos)):
        k = sum(c for c, s in zip(counts, pos) if s >= t)
        law[k] = law.get(k, 0) + p
    return law


def stratified_tpr_law(pos, neg, r):
    """Exact law of the TPR count ``l`` (TPR = l / n+) at FPR r / n-, by enumeration."""
    law = {}
    for t, pt in threshold_law(neg, r).items():
        for k, pk in positive_count_law(pos, t).items():
            law[k] = law.get(k, 0) + pt * pk
    assert sum(law.values()) == 1
    return law


def law_moments(law, m):
    """Mean and variance of ``l / m`` under {l: probability}, exact."""
    mean = sum(p * Fraction(k, m) for k, p in law.items())
    var = sum(p * (Fraction(k, m) - mean) ** 2 for k, p in law.items())
    return mean, var


def full_tpr_moments(pos, neg, r):
    """Mean and variance of TPR at FPR r / n- under the full bootstrap, by enumeration.

    Resample the pooled set, drop resamples with an empty class, use the rank
    ``round(r N- / n-)`` clipped to ``[1, max(N- - 1, 1)]``, TPR over the ``N+`` positives.
    """
    scores = list(pos) + list(neg)
    is_pos = [True] * len(pos) + [False] * len(neg)
    n_neg = len(neg)
    first = second = kept = Fraction(0)
    for counts, p in multinomial_law(len(scores)):
        big_pos = sum(c for c, y in zip(counts, is_pos) if y)
        big_neg = len(scores) - big_pos
        if big_pos == 0 or big_neg == 0:
            continue
        rank = round(Fraction(r * big_neg, n_neg))
        rank = min(max(rank, 1), max(big_neg - 1, 1))
        neg_counts = [c for c, y in zip(counts, is_pos) if not y]
        t = rth_largest(neg, neg_counts, rank)
        tp = sum(c for c, y, s in zip(counts, is_pos, scores) if y and s >= t)
        tpr = Fraction(tp, big_pos)
        first += p * tpr
        second += p * tpr * tpr
        kept += p
    mean = first / kept
    return mean, second / kept - mean * mean


# --- 1. stratified law against enumeration ------------------------------------------------------


def check_against_enumeration(pos, neg, ranks):
    law = vertical_distribution(pos, neg, ranks)
    n_pos, n_neg = len(pos), len(neg)
    assert law.pmf.shape == (len(ranks), n_pos + 1)
    np.testing.assert_array_equal(law.r, ranks)
    np.testing.assert_allclose(law.fpr, np.asarray(ranks) / n_neg, rtol=0, atol=1e-15)
    np.testing.assert_allclose(law.pmf.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    for i, r in enumerate(ranks):
        want = stratified_tpr_law(pos, neg, r)
        expected = [float(want.get(k, 0)) for k in range(n_pos + 1)]
        np.testing.assert_allclose(law.pmf[i], expected, rtol=0, atol=1e-12, err_msg=f"r={r}")
        mean, var = law_moments(want, n_pos)
        assert law.mean[i] == pytest.approx(float(mean), abs=1e-12), r
        assert law.var[i] == pytest.approx(float(var), abs=1e-12), r


@pytest.mark.parametrize(("pos", "neg"), TINY_DATA)
def test_stratified_law_equals_enumeration_of_all_resamples(pos, neg):
    check_against_enumeration(pos, neg, list(range(1, len(neg))))


def test_stratified_law_five_by_five_with_ties():
    pos = [0.9, 0.6, 0.6, 0.3, 0.1]
    neg = [0.7, 0.6, 0.3, 0.3, 0.0]
    check_against_enumeration(pos, neg, [1, 2, 3, 4])


def test_rows_follow_the_order_of_r_including_repeats():
    pos, neg = [0.5, 0.7, 0.2, 0.5], [0.5, 0.2, 0.9, 0.4]
    check_against_enumeration(pos, neg, [3, 1, 3, 2])


@settings(max_examples=40, deadline=None)
@given(
    pos=st.lists(st.integers(0, 3), min_size=2, max_size=4),
    neg=st.lists(st.integers(0, 3), min_size=2, max_size=4),
)
def test_stratified_law_on_random_tied_integer_scores(pos, neg):
    check_against_enumeration(
        [float(s) for s in pos], [float(s) for s in neg], list(range(1, len(neg)))
    )


# --- 2. seeded Monte Carlo bootstrap ------------------------------------------------------------

MC_B = 100_000
MC_RANKS = [2, 20, 100, 180, 198]


def monte_carlo_tpr(pos, neg, ranks, b, seed, chunk=10_000):
    """``b`` stratified bootstrap TPRs at each rank: shape (len(ranks), b)."""
    rng = np.random.default_rng(seed)
    out = np.empty((len(ranks), b))
    for start in range(0, b, chunk):
        size = min(chunk, b - start)
        neg_desc = -np.sort(-neg[rng.integers(0, neg.size, size=(size, neg.size))], axis=1)
        pos_boot = pos[rng.integers(0, pos.size, size=(size, pos.size))]
        for i, r in enumerate(ranks):
            threshold = neg_desc[:, r - 1]
            out[i, start : start + size] = (pos_boot >= threshold[:, None]).sum(1) / pos.size
    return out


def test_monte_carlo_bootstrap_agrees_with_exact_moments():
    rng = np.random.default_rng(20090401)
    pos = np.round(rng.normal(1.0, 1.0, 200), 2)  # rounding adds ties, also across classes
    neg = np.round(rng.normal(0.0, 1.0, 200), 2)
    assert np.unique(neg).size < neg.size and np.intersect1d(pos, neg).size > 0
    law = vertical_distribution(pos, neg, MC_RANKS)
    sample = monte_carlo_tpr(pos, neg, MC_RANKS, MC_B, seed=7)
    for i, r in enumerate(MC_RANKS):
        x = sample[i]
        m = x.mean()
        s2 = x.var(ddof=1)
        m4 = np.mean((x - m) ** 4)
        se_mean = math.sqrt(s2 / MC_B)
        se_var = math.sqrt((m4 - s2**2) / MC_B)
        assert abs(m - law.mean[i]) <= 4 * se_mean, (r, m, law.mean[i], se_mean)
        assert abs(s2 - law.var[i]) <= 4 * se_var, (r, s2, law.var[i], se_var)


def test_pmf_and_percentiles_on_moderate_data_match_a_dense_mixture():
    # independent of the band, the l-window and the bisection: every rank, every l, stats.binom
    rng = np.random.default_rng(11)
    pos = np.round(rng.normal(0.8, 1.0, 300), 1)
    neg = np.round(rng.normal(0.0, 1.3, 250), 1)
    ranks = fpr_ranks(np.linspace(0.01, 0.99, 99), neg.size)
    neg_desc = np.sort(neg)[::-1]
    q = np.array([np.sum(pos >= t) for t in neg_desc]) / pos.size
    weights = dense_rank_weights(neg.size, neg.size, ranks)
    dense = weights @ stats.binom.pmf(np.arange(pos.size + 1)[None, :], pos.size, q[:, None])
    law = vertical_distribution(pos, neg, ranks)
    assert np.max(np.abs(law.pmf - dense)) <= 1e-13
    for level in (0.8, 0.95, 0.99):
        ci = vertical_ci(pos, neg, ranks, confidence_level=level, method="percentile")
        cdf = np.cumsum(dense, axis=1)
        tail = (1 - level) / 2
        want_low = np.argmax(cdf >= tail - 1e-12, axis=1)
        want_high = np.argmax(cdf >= 1 - tail - 1e-12, axis=1)
        assert np.array_equal(np.rint(ci.low * pos.size), want_low)
        assert np.array_equal(np.rint(ci.high * pos.size), want_high)


# --- 3. interval methods ------------------------------------------------------------------------

LEVELS = [0.5, 0.8, 0.9, 0.95]
CI_DATA = [
    pytest.param([0.9, 0.4], [0.7, 0.2], id="2x2-no-ties"),
    pytest.param([0.9, 0.3, 0.6], [0.5, 0.5, 0.2], id="3x3-ties-neg"),
    pytest.param([0.5, 0.7, 0.2, 0.5], [0.5, 0.2, 0.9], id="4x3-ties-across"),
    pytest.param([0.3, 0.6], [0.6, 0.3, 0.6, 0.0], id="2x4-ties-everywhere"),
    pytest.param([2.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, -1.0], id="4x4-ties"),
]


def z_of(level):
    return stats.norm.ppf(0.5 + level / 2)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(("pos", "neg"), CI_DATA)
def test_wald_and_score_intervals_by_hand(pos, neg, level):
    ranks = list(range(1, len(neg)))
    z = z_of(level)
    m = len(pos)
    wald = vertical_ci(pos, neg, ranks, confidence_level=level, method="wald")
    score = vertical_ci(pos, neg, ranks, confidence_level=level, method="score")
    default = vertical_ci(pos, neg, ranks, confidence_level=level)
    for ci in (wald, score, default):
        assert ci.confidence_level == level
        np.testing.assert_array_equal(ci.r, ranks)
        np.testing.assert_allclose(ci.fpr, np.asarray(ranks) / len(neg), atol=1e-15)
    assert default.method == "score"
    for i, r in enumerate(ranks):
        e, v = (float(x) for x in law_moments(stratified_tpr_law(pos, neg, r), m))
        assert wald.mean[i] == pytest.approx(e, abs=1e-12)
        assert wald.var[i] == pytest.approx(v, abs=1e-12)
        want_wald = np.clip([e - z * math.sqrt(v), e + z * math.sqrt(v)], 0, 1)
        assert [wald.low[i], wald.high[i]] == pytest.approx(want_wald, abs=1e-12), r
        # Algorithm 4.3 lines 20-21
        centre = e + z * z / (2 * m)
        half = z * math.sqrt(v + z * z / (4 * m * m))
        want_score = np.clip(
            [(centre - half) / (1 + z * z / m), (centre + half) / (1 + z * z / m)], 0, 1
        )
        assert [score.low[i], score.high[i]] == pytest.approx(want_score, abs=1e-12), r
        assert [default.low[i], default.high[i]] == pytest.approx(want_score, abs=1e-12), r


def test_wald_and_score_on_moderate_data_use_the_exact_moments():
    rng = np.random.default_rng(3)
    pos = np.round(rng.normal(1.5, 1.0, 60), 1)
    neg = np.round(rng.normal(0.0, 1.0, 80), 1)
    ranks = fpr_ranks(np.linspace(0.01, 0.99, 99), neg.size)
    law = vertical_distribution(pos, neg, ranks)
    e, v, m = law.mean, law.var, pos.size
    for level in (0.9, 0.99):
        z = z_of(level)
        wald = vertical_ci(pos, neg, ranks, confidence_level=level, method="wald")
        np.testing.assert_allclose(wald.low, np.clip(e - z * np.sqrt(v), 0, 1), atol=1e-14)
        np.testing.assert_allclose(wald.high, np.clip(e + z * np.sqrt(v), 0, 1), atol=1e-14)
        score = vertical_ci(pos, neg, ranks, confidence_level=level, method="score")
        centre = e + z**2 / (2 * m)
        half = z * np.sqrt(v + z**2 / (4 * m**2))
        np.testing.assert_allclose(
            score.low, np.clip((centre - half) / (1 + z**2 / m), 0, 1), atol=1e-14
        )
        np.testing.assert_allclose(
            score.high, np.clip((centre + half) / (1 + z**2 / m), 0, 1), atol=1e-14
        )
        assert np.all(score.low <= e) and np.all(e <= score.high)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize(("pos", "neg"), CI_DATA)
def test_percentile_interval_from_enumerated_cdf(pos, neg, level):
    ranks = list(range(1, len(neg)))
    m = len(pos)
    ci = vertical_ci(pos, neg, ranks, confidence_level=level, method="percentile")
    tail = (1 - Fraction(str(level))) / 2
    for i, r in enumerate(ranks):
        law = stratified_tpr_law(pos, neg, r)
        cdf = list(itertools.accumulate(law.get(k, Fraction(0)) for k in range(m + 1)))
        low = next(k for k in range(m + 1) if cdf[k] >= tail)
        high = next(k for k in range(m + 1) if cdf[k] >= 1 - tail)
        assert ci.low[i] == pytest.approx(low / m, abs=1e-15), (r, cdf)
        assert ci.high[i] == pytest.approx(high / m, abs=1e-15), (r, cdf)


def test_percentile_interval_hits_an_exact_cdf_value():
    # pos [1, 0], neg [0.5, 0.2]: at r = 1, T_1 = 0.5 w.p. 3/4, 0.2 w.p. 1/4, and only the
    # positive 1.0 reaches either threshold: l ~ Bin(2, 1/2), CDF = 1/4, 3/4, 1.
    # At level 0.5 the tails are exactly 1/4 and 3/4: bounds 0 and 1/2.
    law = stratified_tpr_law([1.0, 0.0], [0.5, 0.2], 1)
    assert law == {0: Fraction(1, 4), 1: Fraction(1, 2), 2: Fraction(1, 4)}
    ci = vertical_ci([1.0, 0.0], [0.5, 0.2], [1], confidence_level=0.5, method="percentile")
    assert ci.low[0] == 0.0 and ci.high[0] == 0.5


def agresti_by_hand(pos, neg, r, a, level):
    """Wald on eqs. 4.13-4.14 with q -> (n+ q + a)/(n+ + 2a) and m+ -> m+ + 2a."""
    n_pos = len(pos)
    a = Fraction(a)
    m_tilde = n_pos + 2 * a
    mean = second = Fraction(0)
    for t, w in threshold_law(neg, r).items():  # Pr{T_r = t}, by brute force
        q = Fraction(sum(s >= t for s in pos), n_pos)
        q_tilde = (n_pos * q + a) / (n_pos + 2 * a)
        mean += w * q_tilde
        second += w * (q_tilde**2 + q_tilde * (1 - q_tilde) / m_tilde)
    var = second - mean**2
    z = z_of(level)
    e, v = float(mean), float(var)
    return e, v, max(e - z * math.sqrt(v), 0.0), min(e + z * math.sqrt(v), 1.0)


@pytest.mark.parametrize("pseudo_count", [None, 0.5, 1.0, 0.0, 3.25])
@pytest.mark.parametrize(("pos", "neg"), CI_DATA)
def test_agresti_interval_by_hand(pos, neg, pseudo_count):
    ranks = list(range(1, len(neg)))
    a = 2 if pseudo_count is None else Fraction(pseudo_count)
    for level in (0.8, 0.95):
        ci = vertical_ci(
            pos, neg, ranks, confidence_level=level, method="agresti", pseudo_count=pseudo_count
        )
        assert ci.method == "agresti"
        for i, r in enumerate(ranks):
            e, v, low, high = agresti_by_hand(pos, neg, r, a, level)
            assert ci.mean[i] == pytest.approx(e, abs=1e-12), r
            assert ci.var[i] == pytest.approx(v, abs=1e-12), r
            assert ci.low[i] == pytest.approx(low, abs=1e-12), r
            assert ci.high[i] == pytest.approx(high, abs=1e-12), r


def test_agresti_with_zero_pseudo_count_is_wald():
    pos, neg = [0.5, 0.7, 0.2, 0.5], [0.5, 0.2, 0.9]
    a = vertical_ci(pos, neg, [1, 2], confidence_level=0.9, method="agresti", pseudo_count=0)
    w = vertical_ci(pos, neg, [1, 2], confidence_level=0.9, method="wald")
    np.testing.assert_allclose([a.low, a.high], [w.low, w.high], atol=1e-15)


# --- 4. banded rank weights against the dense formula ------------------------------------------


def dense_rank_weights(n, m, ranks):
    """Pr{T_r = s_(c)} = bdtrc(r-1, m, c/n) - bdtrc(r-1, m, (c-1)/n), c = 1..n (eq. 4.11)."""
    r = np.asarray(ranks)[:, None]
    c = np.arange(1, n + 1)[None, :]
    return special.bdtrc(r - 1, m, c / n) - special.bdtrc(r - 1, m, (c - 1) / n)


def accurate_rank_weights(n, m, ranks):
    """The same weights without cancellation: where the upper tail exceeds 1/2, take the
    difference of lower tails, ``bdtr(r-1, m, (c-1)/n) - bdtr(r-1, m, c/n)`` (the form printed
    in eq. 4.11). The plain bdtrc difference carries one ulp of 1 (1.1e-16) of noise at ``c = n``
    because ``bdtrc(k, m, 1.0)`` is exactly 1 while ``bdtrc(k, m, 1 - 1/n)`` rounds to
    ``1 - 2**-53`` when its true value is ``1 - 1e-197``.
    """
    r = np.asarray(ranks)[:, None]
    c = np.arange(1, n + 1)[None, :]
    upper = special.bdtrc(r - 1, m, c / n)
    lower_form = special.bdtr(r - 1, m, (c - 1) / n) - special.bdtr(r - 1, m, c / n)
    return np.where(upper > 0.5, lower_form, dense_rank_weights(n, m, ranks))


def ranks_for(n):
    if n <= 100:
        return tuple(range(1, n))
    grid = fpr_ranks(np.linspace(0.01, 0.99, 99), n).tolist()
    return tuple(sorted(set(grid) | {1, 2, 3, 50, n - 50, n - 3, n - 2, n - 1}))


@pytest.mark.parametrize("n", [5, 100, 10_000])
def test_banded_rank_weights_match_dense_formula(n):
    ranks = ranks_for(n)
    banded = rank_weights(n, n, ranks)
    assert banded.weights.shape[0] == len(ranks)
    row_sums = banded.weights.sum(axis=1)
    assert np.max(np.abs(row_sums - 1.0)) <= 1e-15, row_sums
    assert np.all(banded.weights >= 0)
    dense = dense_rank_weights(n, n, ranks)
    accurate = accurate_rank_weights(n, n, ranks)
    width = banded.weights.shape[1]
    for i in range(len(ranks)):
        cols = banded.start[i] - 1 + np.arange(width)  # 0-based rank index of each column
        assert banded.start[i] >= 1
        # columns past n must carry no weight
        assert np.all(banded.weights[i, cols >= n] == 0)
        inside = cols < n
        got = np.zeros(n)
        got[cols[inside]] = banded.weights[i, inside]
        in_band = np.zeros(n, dtype=bool)
        in_band[cols[inside]] = banded.weights[i, inside] > 0
        err = np.abs(got - dense[i])
        assert np.max(err[in_band]) <= 1e-15, (ranks[i], np.max(err[in_band]))
        if (~in_band).any():
            # Outside the band the plain formula is below 1e-16 except for its one-ulp noise
            # (2**-53 = 1.1e-16) at c = n. Upper-tail weights are differences of two numbers
            # near 1, so rocsim (and the plain formula) resolve them to one ulp only: true
            # weights up to ~1.5e-16 come out as 0.0 and are dropped. Hence, on the accurate
            # weights, 2 ulp per entry and 1e-15 in total.
            assert np.max(np.abs(dense[i, ~in_band])) <= 2**-53, ranks[i]
            assert np.max(np.abs(accurate[i, ~in_band])) <= 2**-52, ranks[i]
            assert np.sum(np.abs(accurate[i, ~in_band])) <= 1e-15, ranks[i]


def test_rank_weights_when_bootstrap_size_differs_from_n():
    # the full bootstrap uses m- != n-; the band must still cover the law
    for n, m in [(7, 3), (7, 12), (300, 40), (40, 300)]:
        ranks = tuple(range(1, m))
        banded = rank_weights(n, m, ranks)
        dense = dense_rank_weights(n, m, ranks)
        width = banded.weights.shape[1]
        for i in range(len(ranks)):
            cols = banded.start[i] - 1 + np.arange(width)
            inside = cols < n
            got = np.zeros(n)
            got[cols[inside]] = banded.weights[i, inside]
            np.testing.assert_allclose(
                got, dense[i], rtol=0, atol=1e-15, err_msg=f"n={n} m={m} r={ranks[i]}"
            )


# --- 5. FPR grid -> ranks -----------------------------------------------------------------------


@pytest.mark.parametrize("m", [25, 50, 99])
def test_fpr_ranks_small_m_gives_every_rank(m):
    np.testing.assert_array_equal(fpr_ranks(np.linspace(0.01, 0.99, 99), m), np.arange(1, m))


def test_fpr_ranks_large_m_gives_99_distinct_rounded_ranks():
    grid = np.linspace(0.01, 0.99, 99)
    got = fpr_ranks(grid, 10_000)
    want = [round(f * 10_000) for f in grid]
    assert len(set(want)) == 99
    np.testing.assert_array_equal(got, want)
    assert got.dtype.kind == "i"


# --- 6. full bootstrap against enumeration ------------------------------------------------------

FULL_DATA = [
    pytest.param([0.9, 0.4], [0.7, 0.2], id="2x2-no-ties"),
    pytest.param([0.8, 0.3], [0.6, 0.3, 0.1], id="2x3-tie-across"),
    pytest.param([0.9, 0.5], [0.5, 0.5, 0.1], id="2x3-ties"),
    pytest.param([1.0, 1.0], [1.0, 0.0, 0.0], id="2x3-pos-tied"),
    pytest.param([0.9, 0.2, 0.6], [0.7, 0.6, 0.1], id="3x3-tie-across"),
    pytest.param([0.9, 0.4], [0.8, 0.6, 0.4, 0.1], id="2x4"),
]


@pytest.mark.parametrize(("pos", "neg"), FULL_DATA)
def test_full_bootstrap_moments_equal_enumeration(pos, neg):
    ranks = list(range(1, len(neg)))
    law = vertical_distribution(pos, neg, ranks, bootstrap="full")
    assert law.bootstrap == "full"
    np.testing.assert_allclose(law.fpr, np.asarray(ranks) / len(neg), atol=1e-15)
    for i, r in enumerate(ranks):
        mean, var = full_tpr_moments(pos, neg, r)
        assert law.mean[i] == pytest.approx(float(mean), abs=1e-12), r
        assert law.var[i] == pytest.approx(float(var), abs=1e-12), r


def test_full_bootstrap_wald_and_score_use_full_moments():
    pos, neg = [0.8, 0.3], [0.6, 0.3, 0.1]
    z = z_of(0.9)
    for method in ("wald", "score"):
        ci = vertical_ci(pos, neg, [1, 2], confidence_level=0.9, method=method, bootstrap="full")
        for i, r in enumerate([1, 2]):
            e, v = (float(x) for x in full_tpr_moments(pos, neg, r))
            assert ci.mean[i] == pytest.approx(e, abs=1e-12)
            if method == "wald":
                want = np.clip([e - z * math.sqrt(v), e + z * math.sqrt(v)], 0, 1)
            else:
                m = len(pos)
                centre = e + z * z / (2 * m)
                half = z * math.sqrt(v + z * z / (4 * m * m))
                want = np.clip(
                    [(centre - half) / (1 + z * z / m), (centre + half) / (1 + z * z / m)], 0, 1
                )
            assert [ci.low[i], ci.high[i]] == pytest.approx(want, abs=1e-12)


# --- 7. input validation ------------------------------------------------------------------------

POS, NEG = [0.9, 0.6, 0.3], [0.8, 0.5, 0.1, 0.05]


@pytest.mark.parametrize(
    ("r", "match"),
    [
        ([0], "r must"),
        ([1, 0], "r must"),
        ([4], "r must"),  # r = n-
        ([-1], "r must"),
        ([1.5], "r must"),
        ([[1, 2]], "r must"),
        ([], "r must"),
        (np.array([np.nan]), "r must"),
    ],
)
@pytest.mark.parametrize("func", [vertical_distribution, vertical_ci])
def test_bad_ranks_raise(func, r, match):
    with pytest.raises(ValueError, match=match):
        func(POS, NEG, r)


@pytest.mark.parametrize("func", [vertical_distribution, vertical_ci])
def test_nan_scores_raise_naming_the_class(func):
    with pytest.raises(ValueError, match="pos_scores"):
        func([0.9, np.nan], NEG, [1])
    with pytest.raises(ValueError, match="neg_scores"):
        func(POS, [0.1, np.nan, 0.3], [1])


@pytest.mark.parametrize("func", [vertical_distribution, vertical_ci])
def test_unknown_bootstrap_raises(func):
    with pytest.raises(ValueError, match="bootstrap") as info:
        func(POS, NEG, [1], bootstrap="jackknife")
    assert "stratified" in str(info.value) and "full" in str(info.value)


def test_unknown_method_raises_listing_valid_names():
    with pytest.raises(ValueError, match="method") as info:
        vertical_ci(POS, NEG, [1], method="bayes")
    for name in ("score", "wald", "agresti", "percentile"):
        assert name in str(info.value)


@pytest.mark.parametrize("level", [1.2, 0.0, 1.0, -0.5, float("nan")])
def test_bad_confidence_level_raises(level):
    with pytest.raises(ValueError, match="confidence_level"):
        vertical_ci(POS, NEG, [1], confidence_level=level)


def test_percentile_and_agresti_need_the_stratified_bootstrap():
    with pytest.raises(ValueError, match="stratified"):
        vertical_ci(POS, NEG, [1], method="percentile", bootstrap="full")
    with pytest.raises(ValueError, match="bootstrap"):
        vertical_ci(POS, NEG, [1], method="agresti", bootstrap="full")


@pytest.mark.parametrize("pseudo_count", [-1.0, float("nan"), float("inf")])
def test_bad_pseudo_count_raises(pseudo_count):
    with pytest.raises(ValueError, match="pseudo_count"):
        vertical_ci(POS, NEG, [1], method="agresti", pseudo_count=pseudo_count)


@pytest.mark.parametrize("method", ["wald", "score", "percentile"])
def test_pseudo_count_with_another_method_raises(method):
    # as in proportion_ci and threshold_ci: a pseudo_count given to a method that does not
    # use it is an error, not silently ignored
    with pytest.raises(ValueError, match="pseudo_count"):
        vertical_ci(POS, NEG, [1], method=method, pseudo_count=1.0)


def test_full_bootstrap_pmf_is_refused_not_silently_zero():
    law = vertical_distribution(POS, NEG, [1], bootstrap="full")
    assert np.isfinite(law.mean).all() and np.isfinite(law.var).all()
    with pytest.raises(NotImplementedError, match="stratified"):
        _ = law.pmf
