"""Paired design (thesis 4.3.2 and 4.4.2): two classifiers score the same instances.

Oracles: (a) every stratified bootstrap resample of tiny data sets, as multinomial count vectors
with exact integer weights (probabilities are Fractions with denominator ``n**n``); (b) the
interval formulas of the docs' reading-paired-wald / reading-paired-score written out by hand; (c)
an independent closed form of the
joint law of the two vertical-averaging thresholds, ``Pr{T1 >= u, T2 >= v}`` as a multinomial
tail, itself checked against enumeration; (d) seeded Monte Carlo bootstraps on paired binormal
data.

Conventions: ``pos1[i]``, ``pos2[i]`` are the two scores of positive ``i`` (likewise the
negatives) and travel together in a resample; predicted positive means ``score >= t``;
``dTPR = TPR1(t1) - TPR2(t2)``, ``dFPR = FPR1(t1) - FPR2(t2)``; ``b`` counts the instances judged
positive by classifier 1 only, ``c`` by classifier 2 only.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from enumeration import assert_mc_agrees, multinomial_law
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from small_count import small_count_table

from rocsim.core.intervals import paired_difference_ci
from rocsim.core.paired_threshold import (
    dominance_probability,
    threshold_difference_ci,
    threshold_difference_distribution,
)
from rocsim.core.paired_vertical import vertical_difference, vertical_difference_ci


def z_of(level):
    return float(stats.norm.ppf(0.5 + level / 2))


# --- brute-force enumeration of resamples ------------------------------------------------------


@cache
def resample_table(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every resample of ``n`` items: counts (R, n) and integer weights summing to ``n**n``."""
    law = multinomial_law(n)
    counts = np.array([c for c, _ in law], dtype=np.int64)
    weights = np.array([int(p * n**n) for _, p in law], dtype=np.int64)
    assert all(Fraction(int(w), n**n) == p for w, (_, p) in zip(weights, law))
    assert int(weights.sum()) == n**n
    return counts, weights


def resampled_differences(s1, s2, t1, t2) -> np.ndarray:
    """``#{>= t1 under 1} - #{>= t2 under 2}`` in every resample of the class (index = row)."""
    counts, _ = resample_table(len(s1))
    step = np.array([int(a >= t1) - int(b >= t2) for a, b in zip(s1, s2)], dtype=np.int64)
    return counts @ step


def difference_law(s1, s2, t1, t2) -> dict[int, Fraction]:
    """{d: Pr{#(>= t1 under 1) - #(>= t2 under 2) = d}} over all resamples, exact."""
    n = len(s1)
    _, weights = resample_table(n)
    law: dict[int, int] = {}
    for d, w in zip(resampled_differences(s1, s2, t1, t2).tolist(), weights.tolist()):
        law[d] = law.get(d, 0) + w
    out = {d: Fraction(w, n**n) for d, w in law.items()}
    assert sum(out.values()) == 1
    return out


def law_moments(law: dict[int, Fraction], n: int) -> tuple[Fraction, Fraction]:
    """Mean and variance of ``d / n`` under {d: probability}, exact."""
    mean = sum(p * Fraction(d, n) for d, p in law.items())
    var = sum(p * (Fraction(d, n) - mean) ** 2 for d, p in law.items())
    return mean, var


def law_as_pmf(law: dict[int, Fraction], n: int) -> list[float]:
    """pmf[d + n] = Pr{d}, d = -n..n."""
    return [float(law.get(d, 0)) for d in range(-n, n + 1)]


def joint_dominance(pos1, pos2, neg1, neg2, t1, t2) -> tuple[Fraction, Fraction]:
    """(f1, f2) as the probability of the dominance events over the JOINT resample space.

    Every (positive resample, negative resample) pair, weighted by the product of their
    multinomial weights: f1 = Pr{TPR1 >= TPR2, FPR1 <= FPR2, not both equal}, f2 symmetric.
    """
    n_pos, n_neg = len(pos1), len(neg1)
    _, w_pos = resample_table(n_pos)
    _, w_neg = resample_table(n_neg)
    dtp = resampled_differences(pos1, pos2, t1, t2)[:, None]
    dfp = resampled_differences(neg1, neg2, t1, t2)[None, :]
    both_equal = (dtp == 0) & (dfp == 0)
    one = (dtp >= 0) & (dfp <= 0) & ~both_equal
    two = (dtp <= 0) & (dfp >= 0) & ~both_equal
    weight = w_pos[:, None] * w_neg[None, :]  # int64: at most 5**5 * 5**5
    total = n_pos**n_pos * n_neg**n_neg
    assert int(weight.sum()) == total
    return Fraction(int(weight[one].sum()), total), Fraction(int(weight[two].sum()), total)


# --- 1. difference of paired proportions ------------------------------------------------------

LEVELS = [0.5, 0.8, 0.9, 0.95, 0.99]
SIZES = [1, 2, 3, 5, 10, 37, 200]


def count_grid():
    """(b, c, n) with b + c <= n: every cell for small n, edges and a spread for large n."""
    out = []
    for n in SIZES:
        if n <= 5:
            out += [(b, c, n) for b in range(n + 1) for c in range(n + 1 - b)]
        else:
            picks = sorted({0, 1, 2, n // 4, n // 3, n // 2, n - 2, n - 1, n})
            out += [(b, c, n) for b in picks for c in picks if b + c <= n]
    return out


COUNT_GRID = count_grid()


def wald_by_hand(b, c, n, level):
    d, g = (b - c) / n, (b + c) / n
    half = z_of(level) * math.sqrt(max(g - d * d, 0.0) / n)
    return d - half, d + half


def score_by_hand(b, c, n, level):
    z = z_of(level)
    d = (b - c) / n
    gamma = (b + c + 2) / (n + 4)
    shrink = 1 + z * z / n
    half = z * math.sqrt(max(gamma * shrink - d * d, 0.0) / n)
    return (d - half) / shrink, (d + half) / shrink


def agresti_min_by_hand(b, c, n, level, a=0.5):
    nt = n + 4 * a
    d = (b - c) / nt
    g = (b + c + 2 * a) / nt
    half = z_of(level) * math.sqrt(max(g - d * d, 0.0) / nt)
    return d - half, d + half


def check_interval(got, raw):
    """``got`` = (low, high, clipped) of rocsim; ``raw`` = the unclipped formula bounds."""
    low, high, clipped = got
    want = np.clip(raw, -1.0, 1.0)
    assert float(low) == pytest.approx(want[0], abs=1e-12)
    assert float(high) == pytest.approx(want[1], abs=1e-12)
    assert -1.0 <= float(low) <= float(high) <= 1.0
    if raw[0] < -1 - 1e-9 or raw[1] > 1 + 1e-9:
        assert bool(clipped)
    elif raw[0] > -1 + 1e-9 and raw[1] < 1 - 1e-9:
        assert not bool(clipped)


def as_triple(ci):
    low, high = ci  # unpacks as (low, high)
    return low, high, ci.clipped


@pytest.mark.parametrize("level", LEVELS)
def test_paired_wald_score_and_agresti_min_by_hand(level):
    for b, c, n in COUNT_GRID:
        check_interval(
            as_triple(paired_difference_ci(b, c, n, confidence_level=level, method="wald")),
            wald_by_hand(b, c, n, level),
        )
        check_interval(
            as_triple(paired_difference_ci(b, c, n, confidence_level=level, method="score")),
            score_by_hand(b, c, n, level),
        )
        check_interval(
            as_triple(paired_difference_ci(b, c, n, confidence_level=level, method="agresti")),
            agresti_min_by_hand(b, c, n, level),
        )
        for a in (0.25, 1.0, 2.0):
            got = paired_difference_ci(
                b, c, n, confidence_level=level, method="agresti", pseudo_count=a
            )
            check_interval(as_triple(got), agresti_min_by_hand(b, c, n, level, a))


def test_paired_score_at_95_percent():
    # the default is Tango's interval (tests/test_paired_score_intervals.py); score is the
    # thesis's, named by its studies
    for b, c, n in [(0, 0, 1), (3, 1, 10), (10, 0, 10), (0, 37, 37), (50, 60, 200)]:
        got = as_triple(paired_difference_ci(b, c, n, method="score"))
        check_interval(got, score_by_hand(b, c, n, 0.95))


def test_paired_edge_cases_by_hand():
    z = z_of(0.9)
    # b = c = 0: Wald collapses to the point 0, score and Agresti-Min do not
    low, high = paired_difference_ci(0, 0, 10, confidence_level=0.9, method="wald")
    assert float(low) == 0.0 and float(high) == 0.0
    low, high = paired_difference_ci(0, 0, 10, confidence_level=0.9, method="score")
    half = z * math.sqrt(2 / 14 * (1 + z * z / 10) / 10) / (1 + z * z / 10)
    assert (float(low), float(high)) == pytest.approx((-half, half), abs=1e-14)
    # b = n: d = 1, zero Wald variance; c = n: d = -1
    low, high = paired_difference_ci(10, 0, 10, confidence_level=0.9, method="wald")
    assert float(low) == pytest.approx(1.0, abs=1e-14) and float(high) == 1.0
    low, high = paired_difference_ci(0, 10, 10, confidence_level=0.9, method="wald")
    assert float(low) == -1.0 and float(high) == pytest.approx(-1.0, abs=1e-14)
    # Agresti-Min pulls the b = n interval off the boundary: d~ = 10/12, g~ = 11/12
    low, high = paired_difference_ci(10, 0, 10, confidence_level=0.9, method="agresti")
    half = z * math.sqrt((11 / 12 - (10 / 12) ** 2) / 12)
    assert float(low) == pytest.approx(10 / 12 - half, abs=1e-14)
    assert float(high) == pytest.approx(min(10 / 12 + half, 1.0), abs=1e-14)
    # n = 1, b = 1 with the score method: clipped at 1 or not, never above
    ci = paired_difference_ci(1, 0, 1, confidence_level=0.99, method="score")
    raw = score_by_hand(1, 0, 1, 0.99)
    assert float(ci.high) == pytest.approx(min(raw[1], 1.0), abs=1e-14)
    assert bool(ci.clipped) == (raw[1] > 1.0 or raw[0] < -1.0)


@pytest.mark.parametrize("method", ["wald", "score", "agresti"])
def test_paired_interval_is_antisymmetric_in_b_and_c(method):
    for b, c, n in COUNT_GRID:
        low, high = paired_difference_ci(b, c, n, confidence_level=0.9, method=method)
        low_swapped, high_swapped = paired_difference_ci(
            c, b, n, confidence_level=0.9, method=method
        )
        assert float(low_swapped) == pytest.approx(-float(high), abs=1e-13)
        assert float(high_swapped) == pytest.approx(-float(low), abs=1e-13)


@pytest.mark.parametrize("method", ["wald", "score", "agresti"])
def test_paired_interval_broadcasts_like_scalar_calls(method):
    b = np.array([0, 3, 10, 1, 0, 7])
    c = np.array([0, 1, 0, 9, 10, 2])
    n = np.array([10, 10, 10, 10, 10, 30])
    low, high = paired_difference_ci(b, c, n, confidence_level=0.8, method=method)
    assert np.shape(low) == (6,) and np.shape(high) == (6,)
    for i in range(b.size):
        lo, hi = paired_difference_ci(
            int(b[i]), int(c[i]), int(n[i]), confidence_level=0.8, method=method
        )
        assert low[i] == pytest.approx(float(lo), abs=1e-15)
        assert high[i] == pytest.approx(float(hi), abs=1e-15)
    # a scalar n broadcasts against arrays of counts
    low_n, high_n = paired_difference_ci(b[:5], c[:5], 10, confidence_level=0.8, method=method)
    np.testing.assert_allclose(low_n, low[:5], rtol=0, atol=1e-15)
    np.testing.assert_allclose(high_n, high[:5], rtol=0, atol=1e-15)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5])
def test_wald_variance_is_the_exact_variance_of_a_multinomial_difference(n):
    # n pairs: b judged positive by classifier 1 only, c by 2 only, the rest concordant
    z = z_of(0.9)
    for b in range(n + 1):
        for c in range(n + 1 - b):
            s1 = [1] * b + [0] * c + [1] * (n - b - c)
            s2 = [0] * b + [1] * c + [1] * (n - b - c)
            mean, var = law_moments(difference_law(s1, s2, 1, 1), n)
            d, g = Fraction(b - c, n), Fraction(b + c, n)
            assert mean == d
            assert var == (g - d * d) / n  # the corrected eq. 4.7
            if d != 0:
                assert var != (g + d * d) / n  # the printed eq. 4.7 is not the variance
            low, high = paired_difference_ci(b, c, n, confidence_level=0.9, method="wald")
            if float(low) > -1 and float(high) < 1:  # unclipped: half width = z sd
                assert ((float(high) - float(low)) / (2 * z)) ** 2 == pytest.approx(
                    float(var), abs=1e-14
                )


@pytest.mark.parametrize("level", [0.8, 0.95])
def test_agresti_min_with_zero_pseudo_count_is_wald(level):
    for b, c, n in COUNT_GRID:
        a = paired_difference_ci(b, c, n, confidence_level=level, method="agresti", pseudo_count=0)
        w = paired_difference_ci(b, c, n, confidence_level=level, method="wald")
        assert float(a.low) == pytest.approx(float(w.low), abs=1e-15)
        assert float(a.high) == pytest.approx(float(w.high), abs=1e-15)
        assert bool(a.clipped) == bool(w.clipped)


def test_paired_difference_ci_is_exported_at_top_level():
    import rocsim
    from rocsim.core import intervals

    assert rocsim.core.paired_difference_ci is intervals.paired_difference_ci


def test_paired_difference_ci_rejects_bad_input():
    with pytest.raises(ValueError, match="wald") as err:
        paired_difference_ci(1, 2, 10, method="wilson")
    assert "score" in str(err.value) and "agresti" in str(err.value)
    for level in (0.0, 1.0, 1.5, -0.1, float("nan"), "high"):
        with pytest.raises(ValueError):
            paired_difference_ci(1, 2, 10, confidence_level=level)
    for method in ("wald", "score"):
        with pytest.raises(ValueError, match="pseudo_count"):
            paired_difference_ci(1, 2, 10, method=method, pseudo_count=0.5)
    for bad in (-0.5, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="pseudo_count"):
            paired_difference_ci(1, 2, 10, method="agresti", pseudo_count=bad)
    for b, c, n in [
        (6, 5, 10),
        (11, 0, 10),
        (0, 11, 10),
        (-1, 0, 10),
        (0, -1, 10),
        (0, 0, 0),
        (0, 0, -3),
        (float("nan"), 0, 10),
        (1, 1, float("nan")),
    ]:
        with pytest.raises(ValueError):
            paired_difference_ci(b, c, n)
    with pytest.raises(ValueError):
        paired_difference_ci([1, 6], [1, 5], 10)  # one bad element is enough


# --- 2. exact law of (dTPR, dFPR) at threshold pairs -----------------------------------------

# (pos1, pos2, neg1, neg2)
PAIRED_TINY = [
    pytest.param([0.9, 0.4], [0.3, 0.8], [0.7, 0.2], [0.1, 0.6], id="2x2-no-ties"),
    pytest.param(
        [0.9, 0.5, 0.5], [0.5, 0.9, 0.1], [0.5, 0.3, 0.1], [0.3, 0.5, 0.5], id="3x3-ties"
    ),
    pytest.param(
        [1.0, 1.0, 1.0, 0.0], [1.0, 0.0, 1.0, 1.0], [1.0, 0.0], [0.0, 1.0], id="4x2-binary-scores"
    ),
    pytest.param(
        [2.0, 1.0, 0.0],
        [2.0, 1.0, 0.0],
        [1.0, 0.0, -1.0, 1.0],
        [1.0, 0.0, -1.0, 1.0],
        id="3x4-identical-classifiers",
    ),
    pytest.param(
        [0.1, 0.2],
        [0.8, 0.9],
        [0.5, 0.5, 0.5, 0.5, 0.5],
        [0.4, 0.6, 0.5, 0.5, 0.1],
        id="2x5-neg1-all-tied",
    ),
    pytest.param(
        [0.9, 0.6, 0.6, 0.3, 0.1],
        [0.2, 0.6, 0.9, 0.3, 0.6],
        [0.7, 0.6, 0.3, 0.3, 0.0],
        [0.6, 0.1, 0.3, 0.7, 0.2],
        id="5x5-ties",
    ),
    pytest.param(
        [3.0, 2.0, 1.0, 0.5],
        [30.0, 20.0, 10.0, 5.0],
        [2.5, 1.5, 0.7],
        [25.0, 15.0, 7.0],
        id="4x3-rescaled",
    ),
]
EXTRA_THRESHOLDS = [np.inf, -np.inf, 0.55, 100.0, -100.0]


def thresholds_for(*scores):
    return sorted(set().union(*map(set, scores))) + EXTRA_THRESHOLDS


def all_pairs(*scores):
    """Every (t1, t2) over the scores and extra thresholds."""
    ts = thresholds_for(*scores)
    t1, t2 = np.meshgrid(ts, ts, indexing="ij")
    return t1.ravel(), t2.ravel()


def some_pairs(*scores):
    """(t, t) and (t, next t) and (t, t three on): h about 3 times the number of thresholds."""
    ts = np.array(thresholds_for(*scores))
    t1 = np.concatenate([ts, ts, ts])
    t2 = np.concatenate([ts, np.roll(ts, 1), np.roll(ts, 3)])
    return t1, t2


def discordant(s1, s2, t1, t2):
    b = sum(1 for a, c in zip(s1, s2) if a >= t1 and c < t2)
    c = sum(1 for a, c in zip(s1, s2) if a < t1 and c >= t2)
    return b, c


def check_threshold_law(pos1, pos2, neg1, neg2, t1, t2):
    law = threshold_difference_distribution(pos1, pos2, neg1, neg2, t1, t2)
    n_pos, n_neg, h = len(pos1), len(neg1), len(t1)
    assert law.pmf_dtpr.shape == (h, 2 * n_pos + 1)
    assert law.pmf_dfpr.shape == (h, 2 * n_neg + 1)
    for name in ("dtpr", "dfpr", "var_dtpr", "var_dfpr", "b_pos", "c_pos", "b_neg", "c_neg"):
        assert np.shape(getattr(law, name)) == (h,), name
    for j, (a, b) in enumerate(zip(t1, t2)):
        for s1, s2, n, pmf, diff, var, bb, cc in (
            (pos1, pos2, n_pos, law.pmf_dtpr, law.dtpr, law.var_dtpr, law.b_pos, law.c_pos),
            (neg1, neg2, n_neg, law.pmf_dfpr, law.dfpr, law.var_dfpr, law.b_neg, law.c_neg),
        ):
            want = difference_law(s1, s2, a, b)
            np.testing.assert_allclose(
                pmf[j], law_as_pmf(want, n), rtol=0, atol=1e-12, err_msg=f"t1={a}, t2={b}"
            )
            mean, v = law_moments(want, n)
            observed = Fraction(sum(x >= a for x in s1) - sum(x >= b for x in s2), n)
            assert mean == observed  # the bootstrap mean is the observed difference
            assert diff[j] == pytest.approx(float(observed), abs=1e-15), (a, b)
            assert var[j] == pytest.approx(float(v), abs=1e-12), (a, b)
            assert (bb[j], cc[j]) == discordant(s1, s2, a, b), (a, b)
            d = np.arange(-n, n + 1) / n
            assert float(pmf[j] @ d) == pytest.approx(float(mean), abs=1e-12)
    assert np.all(law.pmf_dtpr >= -1e-15) and np.all(law.pmf_dfpr >= -1e-15)
    return law


@pytest.mark.parametrize(("pos1", "pos2", "neg1", "neg2"), PAIRED_TINY)
def test_threshold_difference_law_equals_enumeration(pos1, pos2, neg1, neg2):
    t1, t2 = all_pairs(pos1, pos2, neg1, neg2)
    law = check_threshold_law(pos1, pos2, neg1, neg2, t1, t2)
    np.testing.assert_array_equal(law.t1, t1)
    np.testing.assert_array_equal(law.t2, t2)


def test_identical_classifiers_never_differ():
    pos, neg = [2.0, 1.0, 1.0, 0.0], [1.5, 1.0, -1.0]
    ts = np.array(thresholds_for(pos, neg))
    law = threshold_difference_distribution(pos, pos, neg, neg, ts, ts)
    assert np.all(law.dtpr == 0) and np.all(law.dfpr == 0)
    assert np.all(law.var_dtpr == 0) and np.all(law.var_dfpr == 0)
    np.testing.assert_allclose(law.pmf_dtpr[:, len(pos)], 1.0, rtol=0, atol=1e-15)
    np.testing.assert_allclose(law.pmf_dfpr[:, len(neg)], 1.0, rtol=0, atol=1e-15)
    f1, f2 = law.dominance
    np.testing.assert_allclose(f1, 0.0, atol=1e-15)  # equal everywhere: nobody dominates
    np.testing.assert_allclose(f2, 0.0, atol=1e-15)


#: Tiny paired data sets of tied integer scores: (pos1, pos2, neg1, neg2), 2..4 per class.
TINY_PAIRED_INTEGER_SCORES = st.integers(2, 4).flatmap(
    lambda n_pos: st.integers(2, 4).flatmap(
        lambda n_neg: st.tuples(
            *(
                st.lists(st.integers(0, 3), min_size=n, max_size=n)
                for n in (n_pos, n_pos, n_neg, n_neg)
            )
        )
    )
)


@settings(max_examples=40, deadline=None)
@given(
    data=TINY_PAIRED_INTEGER_SCORES,
    t1=st.lists(
        st.sampled_from([-np.inf, 0.0, 0.5, 1.0, 2.0, 3.0, np.inf]), min_size=1, max_size=4
    ),
    shift=st.sampled_from([-1.0, 0.0, 1.0, 2.5]),
)
def test_threshold_difference_law_on_random_tied_integer_scores(data, t1, shift):
    pos1, pos2, neg1, neg2 = ([float(s) for s in v] for v in data)
    t1 = np.array(t1)
    check_threshold_law(pos1, pos2, neg1, neg2, t1, t1 + shift)


# --- 3. dominance probabilities -----------------------------------------------------------------


@pytest.mark.parametrize(("pos1", "pos2", "neg1", "neg2"), PAIRED_TINY)
def test_dominance_equals_joint_enumeration(pos1, pos2, neg1, neg2):
    t1, t2 = some_pairs(pos1, pos2, neg1, neg2)
    f1, f2 = dominance_probability(pos1, pos2, neg1, neg2, t1, t2)
    law_f1, law_f2 = threshold_difference_distribution(pos1, pos2, neg1, neg2, t1, t2).dominance
    assert np.shape(f1) == (t1.size,) and np.shape(f2) == (t1.size,)
    for j, (a, b) in enumerate(zip(t1, t2)):
        want1, want2 = joint_dominance(pos1, pos2, neg1, neg2, a, b)
        assert f1[j] == pytest.approx(float(want1), abs=1e-12), (a, b)
        assert f2[j] == pytest.approx(float(want2), abs=1e-12), (a, b)
        assert law_f1[j] == pytest.approx(float(want1), abs=1e-12), (a, b)
        assert law_f2[j] == pytest.approx(float(want2), abs=1e-12), (a, b)


def test_dominance_by_hand_on_a_two_by_two_case():
    # positives: classifier 1 catches positive 0 only, classifier 2 catches both -> b=0, c=1
    # negatives: classifier 1 alarms on negative 0, classifier 2 on none -> b=1, c=0
    # so dTPR = -B'/2 <= 0 and dFPR = B''/2 >= 0: f1 = Pr{B' = 0, B'' = 0} - same = 0,
    # f2 = 1 - Pr{dTPR = 0} Pr{dFPR = 0} = 1 - (1/4)(1/4)
    f1, f2 = dominance_probability([1.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0], [0.5], [0.5])
    assert f1[0] == pytest.approx(0.0, abs=1e-15)
    assert f2[0] == pytest.approx(15 / 16, abs=1e-15)
    assert joint_dominance([1.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0], 0.5, 0.5) == (
        0,
        Fraction(15, 16),
    )


def test_dominance_is_symmetric_under_swapping_classifiers():
    pos1, pos2, neg1, neg2 = (
        [0.9, 0.6, 0.6, 0.3, 0.1],
        [0.2, 0.6, 0.9, 0.3, 0.6],
        [0.7, 0.6, 0.3, 0.3, 0.0],
        [0.6, 0.1, 0.3, 0.7, 0.2],
    )
    t1, t2 = some_pairs(pos1, pos2, neg1, neg2)
    f1, f2 = dominance_probability(pos1, pos2, neg1, neg2, t1, t2)
    g1, g2 = dominance_probability(pos2, pos1, neg2, neg1, t2, t1)
    np.testing.assert_allclose(f1, g2, rtol=0, atol=1e-14)
    np.testing.assert_allclose(f2, g1, rtol=0, atol=1e-14)


# seeded Monte Carlo bootstrap on paired binormal data ------------------------------------------

MC_B = 20000


def paired_binormal(n, rho, shift, seed, mean_pos=1.0):
    """Classifier 1: positives N(mean_pos, 1), negatives N(0, 1); classifier 2: positives
    shifted by ``shift``; the two scores of one instance have correlation ``rho``."""
    rng = np.random.default_rng(seed)
    cov = [[1.0, rho], [rho, 1.0]]
    pos = rng.multivariate_normal([mean_pos, mean_pos + shift], cov, size=n)
    neg = rng.multivariate_normal([0.0, 0.0], cov, size=n)
    return pos[:, 0], pos[:, 1], neg[:, 0], neg[:, 1]


def test_monte_carlo_bootstrap_agrees_with_exact_threshold_law():
    pos1, pos2, neg1, neg2 = paired_binormal(100, 0.6, 0.0, seed=20090405)
    pooled = np.concatenate([pos1, neg1])
    q = np.quantile(pooled, [0.2, 0.5, 0.8])
    t1 = np.concatenate([q, q])
    t2 = np.concatenate([q, q + 0.25])  # t1 == t2 and t1 != t2
    law = threshold_difference_distribution(pos1, pos2, neg1, neg2, t1, t2)
    f1, f2 = law.dominance
    rng = np.random.default_rng(17)
    ip = rng.integers(0, 100, size=(MC_B, 100))
    ineg = rng.integers(0, 100, size=(MC_B, 100))
    for j in range(t1.size):
        step_pos = (pos1 >= t1[j]).astype(int) - (pos2 >= t2[j]).astype(int)
        step_neg = (neg1 >= t1[j]).astype(int) - (neg2 >= t2[j]).astype(int)
        dtp = step_pos[ip].sum(1)
        dfp = step_neg[ineg].sum(1)
        assert law.var_dtpr[j] > 0 and law.var_dfpr[j] > 0
        assert_mc_agrees(dtp / 100, law.dtpr[j], law.var_dtpr[j])
        assert_mc_agrees(dfp / 100, law.dfpr[j], law.var_dfpr[j])
        both_equal = (dtp == 0) & (dfp == 0)
        for f, event in (
            (f1[j], (dtp >= 0) & (dfp <= 0) & ~both_equal),
            (f2[j], (dtp <= 0) & (dfp >= 0) & ~both_equal),
        ):
            freq = event.mean()
            mcse = math.sqrt(max(f * (1 - f), 1e-12) / MC_B)
            assert abs(freq - f) <= 4 * mcse, (j, freq, f, mcse)
        # the pmf too: every cell with an expected count of 10 or more within 4.5 standard
        # errors, and the rare cells together
        for counts, pmf, n in ((dtp, law.pmf_dtpr[j], 100), (dfp, law.pmf_dfpr[j], 100)):
            freq = np.bincount(counts + n, minlength=2 * n + 1) / MC_B
            common = pmf * MC_B >= 10
            se = np.sqrt(pmf * (1 - pmf) / MC_B)
            z = np.abs(freq - pmf)[common] / se[common]
            assert np.all(z <= 4.5), z.max()
            rare, rare_freq = pmf[~common].sum(), freq[~common].sum()
            assert abs(rare_freq - rare) <= 4 * math.sqrt(rare / MC_B) + 1 / MC_B


# --- 4. confidence rectangles for (dFPR, dTPR) ------------------------------------------------


@pytest.mark.parametrize("level", [0.5, 0.9, 0.95])
@pytest.mark.parametrize(
    ("method", "pseudo_count"),
    [("score", None), ("wald", None), ("agresti", None), ("agresti", 0.0), ("agresti", 1.5)],
)
@pytest.mark.parametrize(("pos1", "pos2", "neg1", "neg2"), PAIRED_TINY)
def test_threshold_difference_ci_by_hand(pos1, pos2, neg1, neg2, method, pseudo_count, level):
    t1, t2 = some_pairs(pos1, pos2, neg1, neg2)
    data = (pos1, pos2, neg1, neg2)
    ci = threshold_difference_ci(
        *data, t1, t2, confidence_level=level, method=method, pseudo_count=pseudo_count
    )
    axis = math.sqrt(level)
    hand = {
        "score": score_by_hand,
        "wald": wald_by_hand,
        "agresti": lambda b, c, n, lv: agresti_min_by_hand(
            b, c, n, lv, 0.5 if pseudo_count is None else pseudo_count
        ),
    }[method]
    for j, (a, b) in enumerate(zip(t1, t2)):
        for s1, s2, diff, low, high in (
            (pos1, pos2, ci.dtpr, ci.dtpr_low, ci.dtpr_high),
            (neg1, neg2, ci.dfpr, ci.dfpr_low, ci.dfpr_high),
        ):
            n = len(s1)
            bb, cc = discordant(s1, s2, a, b)
            assert diff[j] == pytest.approx((bb - cc) / n, abs=1e-15)
            want = np.clip(hand(bb, cc, n, axis), -1, 1)
            assert (low[j], high[j]) == pytest.approx(tuple(want), abs=1e-12), (a, b)
            via = paired_difference_ci(
                bb, cc, n, confidence_level=axis, method=method, pseudo_count=pseudo_count
            )
            assert low[j] == pytest.approx(float(via.low), abs=1e-15)
            assert high[j] == pytest.approx(float(via.high), abs=1e-15)


def test_threshold_difference_ci_default_is_tango_and_score_is_eq_4_8():
    pos1, pos2, neg1, neg2 = [0.9, 0.5, 0.5], [0.5, 0.9, 0.1], [0.5, 0.3, 0.1], [0.3, 0.5, 0.5]
    t = np.array([0.1, 0.3, 0.5, 0.9])
    default = threshold_difference_ci(pos1, pos2, neg1, neg2, t, t)
    tango = threshold_difference_ci(pos1, pos2, neg1, neg2, t, t, method="tango")
    score = threshold_difference_ci(
        pos1, pos2, neg1, neg2, t, t, confidence_level=0.95, method="score"
    )
    for name in ("dtpr_low", "dtpr_high", "dfpr_low", "dfpr_high"):
        np.testing.assert_array_equal(getattr(default, name), getattr(tango, name))
    for j, tj in enumerate(t):
        bb, cc = discordant(pos1, pos2, tj, tj)
        want = np.clip(score_by_hand(bb, cc, 3, math.sqrt(0.95)), -1, 1)
        assert (score.dtpr_low[j], score.dtpr_high[j]) == pytest.approx(tuple(want), abs=1e-12)


PAIRED_ENTRY_POINTS = [
    pytest.param(threshold_difference_distribution, id="distribution"),
    pytest.param(dominance_probability, id="dominance"),
    pytest.param(threshold_difference_ci, id="ci"),
]


@pytest.mark.parametrize("func", PAIRED_ENTRY_POINTS)
def test_paired_threshold_entry_points_reject_bad_input(func):
    good = ([0.9, 0.4], [0.3, 0.8], [0.7, 0.2], [0.1, 0.6])
    t = [0.5]
    with pytest.raises(ValueError, match="same"):
        func([0.9, 0.4, 0.1], [0.3, 0.8], good[2], good[3], t, t)
    with pytest.raises(ValueError, match="same"):
        func(good[0], good[1], [0.7, 0.2], [0.1, 0.6, 0.3], t, t)
    with pytest.raises(ValueError):
        func(*good, [0.5, 0.6], [0.5])
    with pytest.raises(ValueError):
        func(*good, [[0.5]], [[0.5]])
    with pytest.raises(ValueError):
        func(*good, [float("nan")], [0.5])
    with pytest.raises(ValueError):
        func(*good, [0.5], [float("nan")])
    for k in range(4):
        bad = [list(v) for v in good]
        bad[k][0] = float("nan")
        with pytest.raises(ValueError):
            func(*bad, t, t)
        bad[k][0] = float("inf")
        with pytest.raises(ValueError):
            func(*bad, t, t)
        bad[k] = []
        with pytest.raises(ValueError):
            func(*bad, t, t)


def test_threshold_difference_ci_rejects_bad_options():
    good = ([0.9, 0.4], [0.3, 0.8], [0.7, 0.2], [0.1, 0.6], [0.5], [0.5])
    with pytest.raises(ValueError, match="wald"):
        threshold_difference_ci(*good, method="clopper_pearson")
    for level in (0.0, 1.0, 2.0, float("nan")):
        with pytest.raises(ValueError):
            threshold_difference_ci(*good, confidence_level=level)
    with pytest.raises(ValueError, match="pseudo_count"):
        threshold_difference_ci(*good, method="score", pseudo_count=1.0)
    with pytest.raises(ValueError, match="pseudo_count"):
        threshold_difference_ci(*good, method="agresti", pseudo_count=-1.0)


# --- 5. vertical averaging: dTPR at FPR r / n- ------------------------------------------------


def rth_largest(scores, counts, r):
    """The ``r``-th largest score of the resample, counting multiplicity."""
    expanded = sorted((s for s, c in zip(scores, counts) for _ in range(c)), reverse=True)
    return expanded[r - 1]


def threshold_pair_law(neg1, neg2, r):
    """{(T1, T2): probability}: r-th largest resampled negative under each classifier, from the
    SAME negative resample."""
    law = {}
    for counts, p in multinomial_law(len(neg1)):
        key = (rth_largest(neg1, counts, r), rth_largest(neg2, counts, r))
        law[key] = law.get(key, 0) + p
    return law


def vertical_difference_law(pos1, pos2, neg1, neg2, r) -> dict[int, Fraction]:
    """{d: Pr{n+ dTPR = d}} at FPR r / n- over all stratified resamples, exact."""
    law: dict[int, Fraction] = {}
    for (u, v), p in threshold_pair_law(neg1, neg2, r).items():
        for d, q in difference_law(pos1, pos2, u, v).items():
            law[d] = law.get(d, 0) + p * q
    assert sum(law.values()) == 1
    return law


def case(name: str, scores: str):
    """A tiny paired data set: ``"pos1 / pos2 / neg1 / neg2"``, scores separated by spaces."""
    return pytest.param(*([float(x) for x in part.split()] for part in scores.split("/")), id=name)


# (pos1, pos2, neg1, neg2): n+, n- in 2..4, with and without ties
VERTICAL_TINY = [
    case("2x2-no-ties", "0.9 0.4 / 0.3 0.8 / 0.7 0.2 / 0.1 0.6"),
    case("3x4-no-ties", "0.9 0.6 0.3 / 0.5 0.95 0.1 / 0.8 0.5 0.1 0.05 / 0.2 0.7 0.6 0.0"),
    case("4x3-no-ties", "3.0 2.0 1.0 0.5 / 1.0 3.5 0.2 2.2 / 2.5 1.5 0.7 / 0.3 2.4 1.6"),
    case("3x3-ties", "0.9 0.3 0.6 / 0.6 0.6 0.3 / 0.5 0.5 0.2 / 0.2 0.5 0.6"),
    case("2x4-ties-neg", "1.0 0.0 / 0.0 1.0 / 0.5 0.5 0.5 0.1 / 0.5 0.1 0.1 0.5"),
    case("4x3-ties-across", "0.5 0.7 0.2 0.5 / 0.5 0.2 0.9 0.5 / 0.5 0.2 0.9 / 0.9 0.5 0.5"),
    case("4x4-ties", "2.0 1.0 1.0 0.0 / 1.0 1.0 0.0 2.0 / 1.0 1.0 0.0 -1.0 / 0.0 1.0 -1.0 1.0"),
    case("2x2-all-equal", "1.0 1.0 / 1.0 1.0 / 1.0 1.0 / 1.0 1.0"),
    case(
        "3x4-identical-classifiers",
        "0.9 0.1 0.5 / 0.9 0.1 0.5 / 0.4 0.8 0.2 0.4 / 0.4 0.8 0.2 0.4",
    ),
    case("3x4-shifted-copy", "0.1 0.8 0.3 / 1.1 1.8 1.3 / 0.2 0.9 0.4 0.0 / 1.2 1.9 1.4 1.0"),
]


def check_vertical_against_enumeration(pos1, pos2, neg1, neg2, ranks, algorithm="exact"):
    law = vertical_difference(pos1, pos2, neg1, neg2, ranks, algorithm=algorithm, pmf=True)
    n_pos, n_neg = len(pos1), len(neg1)
    assert law.algorithm == "exact"
    assert law.pmf.shape == (len(ranks), 2 * n_pos + 1)
    np.testing.assert_array_equal(law.r, ranks)
    np.testing.assert_allclose(law.fpr, np.asarray(ranks) / n_neg, rtol=0, atol=1e-15)
    np.testing.assert_allclose(law.pmf.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    for i, r in enumerate(ranks):
        want = vertical_difference_law(pos1, pos2, neg1, neg2, r)
        np.testing.assert_allclose(
            law.pmf[i], law_as_pmf(want, n_pos), rtol=0, atol=1e-12, err_msg=f"r={r}"
        )
        mean, var = law_moments(want, n_pos)
        assert law.mean[i] == pytest.approx(float(mean), abs=1e-12), r
        assert law.var[i] == pytest.approx(float(var), abs=1e-12), r
    return law


@pytest.mark.parametrize(("pos1", "pos2", "neg1", "neg2"), VERTICAL_TINY)
def test_vertical_difference_exact_equals_enumeration(pos1, pos2, neg1, neg2):
    ranks = list(range(1, len(neg1)))
    check_vertical_against_enumeration(pos1, pos2, neg1, neg2, ranks)
    # "auto" picks the exact algorithm on tiny data
    check_vertical_against_enumeration(pos1, pos2, neg1, neg2, ranks, algorithm="auto")


def test_vertical_difference_five_by_five_with_ties_and_repeated_ranks():
    pos1, pos2 = [0.9, 0.6, 0.6, 0.3, 0.1], [0.2, 0.6, 0.9, 0.3, 0.6]
    neg1, neg2 = [0.7, 0.6, 0.3, 0.3, 0.0], [0.6, 0.1, 0.3, 0.7, 0.2]
    check_vertical_against_enumeration(pos1, pos2, neg1, neg2, [3, 1, 4, 2, 3])


@settings(max_examples=25, deadline=None)
@given(data=TINY_PAIRED_INTEGER_SCORES)
def test_vertical_difference_exact_on_random_tied_integer_scores(data):
    pos1, pos2, neg1, neg2 = ([float(s) for s in v] for v in data)
    check_vertical_against_enumeration(pos1, pos2, neg1, neg2, list(range(1, len(neg1))))


@pytest.mark.parametrize(("pos1", "pos2", "neg1", "neg2"), VERTICAL_TINY)
def test_vertical_difference_moments_without_the_pmf_are_exact_on_tiny_data(
    pos1, pos2, neg1, neg2
):
    # the default call (no pmf): the moments come from the Lancaster pass alone
    ranks = list(range(1, len(neg1)))
    law = vertical_difference(pos1, pos2, neg1, neg2, ranks)
    assert law.algorithm == "exact"
    np.testing.assert_array_equal(law.r, ranks)
    np.testing.assert_allclose(law.fpr, np.asarray(ranks) / len(neg1), rtol=0, atol=1e-15)
    for i, r in enumerate(ranks):
        mean, var = law_moments(vertical_difference_law(pos1, pos2, neg1, neg2, r), len(pos1))
        assert law.mean[i] == pytest.approx(float(mean), abs=1e-12), r
        assert law.var[i] == pytest.approx(float(var), abs=1e-12), r


def test_vertical_difference_swapping_classifiers_mirrors_the_law():
    pos1, pos2 = [0.5, 0.7, 0.2, 0.5], [0.5, 0.2, 0.9, 0.5]
    neg1, neg2 = [0.5, 0.2, 0.9, 0.4], [0.9, 0.5, 0.5, 0.1]
    a = vertical_difference(pos1, pos2, neg1, neg2, [1, 2, 3], algorithm="exact", pmf=True)
    b = vertical_difference(pos2, pos1, neg2, neg1, [1, 2, 3], algorithm="exact", pmf=True)
    np.testing.assert_allclose(a.mean, -b.mean, rtol=0, atol=1e-14)
    np.testing.assert_allclose(a.var, b.var, rtol=0, atol=1e-14)
    np.testing.assert_allclose(a.pmf, b.pmf[:, ::-1], rtol=0, atol=1e-14)


def test_vertical_difference_with_a_blind_second_classifier_is_the_single_design():
    # classifier 2 ranks every positive below every negative: TPR2 = 0 in every resample, so
    # dTPR is TPR1 at FPR r/n-, whose law rocsim.core.vertical_distribution computes (eq. 4.12);
    # only the marginal law of T1 matters
    from rocsim.core import vertical_distribution

    rng = np.random.default_rng(5)
    pos1 = np.round(rng.normal(1.0, 1.0, 30), 1)
    neg1 = np.round(rng.normal(0.0, 1.0, 25), 1)
    pos2 = rng.uniform(-20.0, -10.0, 30)
    neg2 = rng.normal(0.0, 1.0, 25)
    ranks = [1, 3, 8, 12, 20, 24]
    single = vertical_distribution(pos1, neg1, ranks)
    law = vertical_difference(pos1, pos2, neg1, neg2, ranks, algorithm="exact", pmf=True)
    np.testing.assert_allclose(law.mean, single.mean, rtol=0, atol=1e-12)
    np.testing.assert_allclose(law.var, single.var, rtol=0, atol=1e-12)
    np.testing.assert_allclose(law.pmf[:, 30:], single.pmf, rtol=0, atol=1e-12)
    np.testing.assert_allclose(law.pmf[:, :30], 0.0, rtol=0, atol=1e-15)


def test_vertical_difference_rejects_bad_input():
    good = ([0.9, 0.4, 0.1], [0.3, 0.8, 0.2], [0.7, 0.2, 0.5], [0.1, 0.6, 0.4])
    with pytest.raises(ValueError, match="same"):
        vertical_difference([0.9, 0.4], good[1], good[2], good[3], [1])
    with pytest.raises(ValueError, match="same"):
        vertical_difference(good[0], good[1], good[2], [0.1, 0.6], [1])
    for r in ([0], [3], [1, 3], [-1], [1.5]):
        with pytest.raises(ValueError):
            vertical_difference(*good, r)
    with pytest.raises(ValueError):
        vertical_difference(*good, [1], algorithm="fast")
    with pytest.raises(ValueError):
        vertical_difference(good[0], good[1], [0.7, float("nan"), 0.5], good[3], [1])


def test_vertical_difference_has_one_algorithm_under_two_names():
    # the former "hybrid" (a Gaussian copula beyond 500 negatives) is gone: naming it is an
    # error that lists what is left, and "auto" is the exact algorithm, value for value
    data = paired_binormal(60, 0.8, 0.5, seed=60)
    ranks = [1, 7, 30, 52, 59]
    with pytest.raises(ValueError, match=r"'hybrid'; valid: auto, exact$"):
        vertical_difference(*data, ranks, algorithm="hybrid")
    with pytest.raises(ValueError, match=r"'hybrid'; valid: auto, exact$"):
        vertical_difference_ci(*data, ranks, algorithm="hybrid")
    auto = vertical_difference(*data, ranks, algorithm="auto")
    exact = vertical_difference(*data, ranks, algorithm="exact")
    assert auto.algorithm == exact.algorithm == "exact"
    for name in ("r", "fpr", "dtpr", "mean", "var", "discordance"):
        assert np.array_equal(getattr(auto, name), getattr(exact, name)), name


# independent closed form of the joint law of the two thresholds --------------------------------


def _both_at_most(m, n, x, y, w, s):
    """Pr{N_x + N_y <= s and N_x + N_w <= s} for the counts of ``m`` uniform draws among ``n``
    items falling in disjoint sets of sizes ``x``, ``y``, ``w`` (arrays, one entry per case):
    ``N_x ~ Bin(m, x/n)``, then ``N_y | N_x`` and ``N_w | N_x, N_y`` binomial."""
    x, y, w = (np.asarray(v, dtype=float)[:, None, None] for v in (x, y, w))
    k = np.arange(s + 1)[None, :, None]  # N_x
    j = np.arange(s + 1)[None, None, :]  # N_y
    q_y = np.divide(y, n - x, out=np.zeros_like(y), where=n - x > 0)
    q_w = np.divide(w, n - x - y, out=np.zeros_like(w), where=n - x - y > 0)
    valid = (k + j <= s) & (k + j <= m)
    terms = (
        stats.binom.pmf(k, m, x / n)
        * stats.binom.pmf(j, np.maximum(m - k, 0), q_y)
        * stats.binom.cdf(s - k, np.maximum(m - k - j, 0), q_w)
    )
    return np.sum(np.where(valid, terms, 0.0), axis=(1, 2))


def both_at_least(m, n, x, y, w, r, via="auto"):
    """Pr{N_A >= r and N_B >= r} with |A & B| = x, |A - B| = y, |B - A| = w (arrays).

    ``lower``: inclusion-exclusion on the lower tails, a grid of side r; ``complement``: the
    lower tail of the complements (|A' & B'| = n - x - y - w, |A' - B'| = w, |B' - A'| = y),
    a grid of side m - r + 1; ``auto``: the smaller grid."""
    x, y, w = (np.asarray(v, dtype=float) for v in (x, y, w))
    if via == "complement" or (via == "auto" and m - r + 1 < r):
        return _both_at_most(m, n, n - x - y - w, w, y, m - r)
    tail_a = stats.binom.cdf(r - 1, m, (x + y) / n)
    tail_b = stats.binom.cdf(r - 1, m, (x + w) / n)
    return 1.0 - tail_a - tail_b + _both_at_most(m, n, x, y, w, r - 1)


def formula_vertical_moments(pos1, pos2, neg1, neg2, ranks, via="auto"):
    """Mean and variance of dTPR at FPR r / n- (float), from Pr{T1 >= u, T2 >= v} (eq. 4.15)
    and the paired multinomial moments given the thresholds (docs: reading-paired-score); also the
    joint
    law of the thresholds, ``prob[i, iu, iv] = Pr{T1 = us[iu], T2 = vs[iv]}`` at ``ranks[i]``
    with ``us``, ``vs`` the distinct negative scores in decreasing order."""
    pos1, pos2, neg1, neg2 = map(np.asarray, (pos1, pos2, neg1, neg2))
    n, n_pos = neg1.size, pos1.size
    us, vs = np.unique(neg1)[::-1], np.unique(neg2)[::-1]
    above1 = neg1[None, :] >= us[:, None]  # (u, item)
    above2 = neg2[None, :] >= vs[:, None]  # (v, item)
    x = above1.astype(int) @ above2.T.astype(int)  # |A_u & B_v|
    y = above1.sum(1)[:, None] - x
    w = above2.sum(1)[None, :] - x
    # T1 >= u and T2 >= v  <=>  at least r draws in A_u and at least r in B_v
    surv = np.zeros((len(ranks), us.size + 1, vs.size + 1))  # row/col 0: above the maximum
    for i, r in enumerate(ranks):
        tail = both_at_least(n, n, x.ravel(), y.ravel(), w.ravel(), r, via)
        surv[i, 1:, 1:] = tail.reshape(x.shape)
    prob = np.diff(np.diff(surv, axis=1), axis=2)
    b = np.array([[np.sum((pos1 >= u) & (pos2 < v)) for v in vs] for u in us])
    c = np.array([[np.sum((pos1 < u) & (pos2 >= v)) for v in vs] for u in us])
    d, g = (b - c) / n_pos, (b + c) / n_pos
    second = (g - d * d) / n_pos + d * d
    mean = np.sum(prob * d, axis=(1, 2))
    return mean, np.sum(prob * second, axis=(1, 2)) - mean**2, prob


@pytest.mark.parametrize(("pos1", "pos2", "neg1", "neg2"), VERTICAL_TINY)
@pytest.mark.parametrize("via", ["lower", "complement"])
def test_formula_oracle_equals_enumeration(pos1, pos2, neg1, neg2, via):
    # the oracle of the larger tests below, itself checked against every resample
    ranks = list(range(1, len(neg1)))
    mean, var, prob = formula_vertical_moments(pos1, pos2, neg1, neg2, ranks, via)
    us, vs = np.unique(neg1)[::-1], np.unique(neg2)[::-1]
    for i, r in enumerate(ranks):
        pairs = threshold_pair_law(neg1, neg2, r)
        for (u, v), p in pairs.items():
            iu, iv = int(np.flatnonzero(us == u)[0]), int(np.flatnonzero(vs == v)[0])
            assert prob[i, iu, iv] == pytest.approx(float(p), abs=1e-14)
        assert prob[i].sum() == pytest.approx(1.0, abs=1e-14)
        want_mean, want_var = law_moments(
            vertical_difference_law(pos1, pos2, neg1, neg2, r), len(pos1)
        )
        assert mean[i] == pytest.approx(float(want_mean), abs=1e-14)
        assert var[i] == pytest.approx(float(want_var), abs=1e-14)


@pytest.mark.parametrize("n", [61, 200, 1000, 20000])
def test_small_count_table_equals_the_multinomial_lower_tail(n):
    # the small-count oracle (tests/small_count.py), checked cell by cell against this file's
    # independent sum over the three disjoint counts, on sets where the counts are small and on
    # nested, disjoint, empty and complementary sets (the degenerate odds ratios 0 and infinity)
    rng = np.random.default_rng(n)
    top = min(n, 90)
    a = np.concatenate([rng.integers(0, top, 40), [0, 10, 25, 40, 30, 12, n - 20, 5, n]])
    b = np.concatenate([rng.integers(0, top, 40), [15, 0, 25, 10, 30, 12, 20, n - 5, 0]])
    low, high = np.maximum(0, a + b - n), np.minimum(a, b)
    c = np.concatenate(
        [low[:40] + rng.integers(0, high[:40] - low[:40] + 1), [0, 0, 25, 10, 0, 12, 20, 0, 0]]
    )  # nested, disjoint, covering
    assert np.all((low <= c) & (c <= high))
    table = small_count_table(n, a, b, c, 30)
    for u in (0, 4, 17, 29):
        want = _both_at_most(n, n, c, a - c, b - c, u)
        np.testing.assert_allclose(table[:, u], want, rtol=1e-12, atol=1e-15)


def ranks_near(n):
    return sorted({max(1, min(n - 1, round(f * n))) for f in np.linspace(0.1, 0.9, 9)})


MODERATE = [
    pytest.param(n, rho, shift, id=f"n{n}-rho{rho}-shift{shift}")
    for n in (20, 40)
    for rho in (0.3, 0.9)
    for shift in (0.0, 2.0)
]


@cache
def moderate_case(n, rho, shift):
    pos1, pos2, neg1, neg2 = paired_binormal(n, rho, shift, seed=1000 * n + int(10 * rho + shift))
    ranks = ranks_near(n)
    mean, var, _ = formula_vertical_moments(pos1, pos2, neg1, neg2, ranks)
    return (pos1, pos2, neg1, neg2), ranks, mean, var


@pytest.mark.parametrize(("n", "rho", "shift"), MODERATE)
def test_vertical_difference_exact_matches_formula_oracle(n, rho, shift):
    data, ranks, mean, var = moderate_case(n, rho, shift)
    law = vertical_difference(*data, ranks, algorithm="exact", pmf=n <= 20)  # pmf is O(n^4)
    assert law.algorithm == "exact"
    np.testing.assert_allclose(law.mean, mean, rtol=0, atol=1e-12)
    np.testing.assert_allclose(law.var, var, rtol=0, atol=1e-12)
    if n > 20:
        return
    np.testing.assert_allclose(law.pmf.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    d = np.arange(-n, n + 1) / n
    np.testing.assert_allclose(law.pmf @ d, mean, rtol=0, atol=1e-12)
    np.testing.assert_allclose(law.pmf @ d**2 - mean**2, var, rtol=0, atol=1e-12)


def test_vertical_difference_with_ties_matches_formula_oracle():
    pos1, pos2, neg1, neg2 = (np.round(v, 1) for v in paired_binormal(20, 0.6, 0.5, seed=8))
    assert np.unique(neg1).size < 20 and np.unique(neg2).size < 20
    ranks = list(range(1, 20))
    mean, var, _ = formula_vertical_moments(pos1, pos2, neg1, neg2, ranks)
    law = vertical_difference(pos1, pos2, neg1, neg2, ranks, algorithm="exact")
    np.testing.assert_allclose(law.mean, mean, rtol=0, atol=1e-12)
    np.testing.assert_allclose(law.var, var, rtol=0, atol=1e-12)


# seeded Monte Carlo bootstrap at n = 100 per class ---------------------------------------------

VERTICAL_MC_B = 100_000
VERTICAL_MC_RANKS = [10, 30, 50, 70, 90]


def monte_carlo_dtpr(pos1, pos2, neg1, neg2, ranks, b, seed, chunk=10_000):
    """``b`` stratified bootstrap dTPRs at each rank: shape (len(ranks), b)."""
    rng = np.random.default_rng(seed)
    out = np.empty((len(ranks), b))
    for start in range(0, b, chunk):
        size = min(chunk, b - start)
        ineg = rng.integers(0, neg1.size, size=(size, neg1.size))
        ip = rng.integers(0, pos1.size, size=(size, pos1.size))
        desc1 = -np.sort(-neg1[ineg], axis=1)  # the SAME resampled negatives for both
        desc2 = -np.sort(-neg2[ineg], axis=1)
        p1, p2 = pos1[ip], pos2[ip]  # the same resampled positives for both
        for i, r in enumerate(ranks):
            t1, t2 = desc1[:, r - 1 : r], desc2[:, r - 1 : r]
            out[i, start : start + size] = ((p1 >= t1).sum(1) - (p2 >= t2).sum(1)) / pos1.size
    return out


def test_vertical_difference_auto_agrees_with_monte_carlo_bootstrap():
    pos1, pos2, neg1, neg2 = paired_binormal(100, 0.6, 0.5, seed=20090409)
    law = vertical_difference(pos1, pos2, neg1, neg2, VERTICAL_MC_RANKS, algorithm="auto")
    assert law.algorithm == "exact"
    np.testing.assert_allclose(law.fpr, np.array(VERTICAL_MC_RANKS) / 100, atol=1e-15)
    sample = monte_carlo_dtpr(pos1, pos2, neg1, neg2, VERTICAL_MC_RANKS, VERTICAL_MC_B, seed=9)
    for i, r in enumerate(VERTICAL_MC_RANKS):
        assert law.var[i] > 0, r
        assert_mc_agrees(sample[i], law.mean[i], law.var[i])


# vertical_difference_ci -------------------------------------------------------------------------


def test_vertical_difference_wald_is_mean_plus_minus_z_sd():
    pos1, pos2, neg1, neg2 = paired_binormal(30, 0.6, 0.5, seed=31)
    ci = vertical_difference_ci(
        pos1, pos2, neg1, neg2, [3, 15, 27], confidence_level=0.9, method="wald"
    )
    law = vertical_difference(pos1, pos2, neg1, neg2, [3, 15, 27])
    z = stats.norm.ppf(0.95)
    np.testing.assert_allclose(ci.low, np.clip(law.mean - z * np.sqrt(law.var), -1, 1), atol=1e-15)
    np.testing.assert_allclose(
        ci.high, np.clip(law.mean + z * np.sqrt(law.var), -1, 1), atol=1e-15
    )


@pytest.mark.parametrize("method", ["score", "wald"])
def test_vertical_difference_ci_with_sure_thresholds_is_the_paired_interval(method):
    # every negative scores 0 under both classifiers: the threshold is 0 in every resample, so
    # dTPR is the paired difference with b = 2, c = 1 discordant positives of 5
    pos1, pos2, neg = [1, -1, 1, 1, -1], [1, 1, -1, -1, -1], [0, 0, 0, 0]
    ci = vertical_difference_ci(
        pos1, pos2, neg, neg, [1, 2, 3], confidence_level=0.9, method=method
    )
    want = paired_difference_ci(2, 1, 5, confidence_level=0.9, method=method)
    np.testing.assert_allclose(ci.low, want.low, rtol=0, atol=1e-14)
    np.testing.assert_allclose(ci.high, want.high, rtol=0, atol=1e-14)


def test_vertical_difference_score_interval_is_inside_minus_one_one_and_covers_its_centre():
    pos1, pos2, neg1, neg2 = paired_binormal(80, 0.9, 4.0, seed=32)
    ci = vertical_difference_ci(pos1, pos2, neg1, neg2, list(range(1, 80)), confidence_level=0.9)
    assert ci.algorithm == "exact"  # "auto" names the exact algorithm
    assert np.all((-1 <= ci.low) & (ci.low <= ci.high) & (ci.high <= 1))
    z2 = stats.norm.ppf(0.95) ** 2
    centre = ci.mean / (1 + z2 / 80)
    assert np.all((ci.low <= centre + 1e-12) & (centre - 1e-12 <= ci.high))


def test_vertical_difference_ci_rejects_unknown_method():
    with pytest.raises(ValueError, match="valid: score, wald"):
        vertical_difference_ci([1, 2], [1, 2], [0, 1], [0, 1], [1], method="agresti")
