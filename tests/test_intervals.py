"""Proportion intervals against statsmodels, hand formulas and the thesis worked example."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm
from statsmodels.stats.proportion import proportion_confint

from rocsim.core import PROPORTION_METHODS, proportion_ci

LEVELS = [0.5, 0.8, 0.9, 0.9**0.5, 0.95, 0.99, 0.999]
SIZES = [1, 2, 5, 10, 25, 100, 1000, 10000]


def grid():
    """Every (x, n, level) with x in a spread of 0..n that always includes 0, 1, n-1 and n."""
    cases = []
    for n in SIZES:
        xs = sorted({0, 1, n // 3, n // 2, n - 1, n} & set(range(n + 1)))
        for level in LEVELS:
            cases.extend((x, n, level) for x in xs)
    return cases


GRID = grid()
X = np.array([c[0] for c in GRID], dtype=float)
N = np.array([c[1] for c in GRID], dtype=float)


def z_of(level):
    return norm.ppf(0.5 + level / 2)


def sm(x, n, level, method):
    low, high = proportion_confint(x, n, alpha=1 - level, method=method)
    return np.asarray(low, dtype=float), np.asarray(high, dtype=float)


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [("wald", "normal"), ("score", "wilson"), ("clopper_pearson", "beta")],
)
@pytest.mark.parametrize("level", LEVELS)
def test_matches_statsmodels(ours, theirs, level):
    want_low, want_high = sm(X, N, level, theirs)
    got = proportion_ci(X, N, confidence_level=level, method=ours)
    np.testing.assert_allclose(got.low, want_low, rtol=0, atol=1e-10)
    np.testing.assert_allclose(got.high, want_high, rtol=0, atol=1e-10)


@pytest.mark.parametrize("level", LEVELS)
def test_agresti_with_half_z_squared_is_agresti_coull(level):
    a = z_of(level) ** 2 / 2
    want_low, want_high = sm(X, N, level, "agresti_coull")
    got = proportion_ci(X, N, confidence_level=level, method="agresti", pseudo_count=a)
    np.testing.assert_allclose(got.low, want_low, rtol=0, atol=1e-10)
    np.testing.assert_allclose(got.high, want_high, rtol=0, atol=1e-10)


@pytest.mark.parametrize("level", LEVELS)
def test_jeffreys_matches_statsmodels_inside_and_brown_cai_dasgupta_at_edges(level):
    want_low, want_high = sm(X, N, level, "jeffreys")
    got = proportion_ci(X, N, confidence_level=level, method="jeffreys")
    # low: statsmodels' beta quantile except at x = 0, where Brown-Cai-DasGupta set 0
    at_zero, at_n = X == 0, X == N
    np.testing.assert_allclose(got.low[~at_zero], want_low[~at_zero], rtol=0, atol=1e-10)
    np.testing.assert_allclose(got.high[~at_n], want_high[~at_n], rtol=0, atol=1e-10)
    assert np.all(got.low[at_zero] == 0.0)
    assert np.all(got.high[at_n] == 1.0)
    # statsmodels does not apply the modification: the edges really differ
    assert np.all(want_low[at_zero] > 0.0)
    assert np.all(want_high[at_n] < 1.0)


def test_jeffreys_edges_scalar():
    low, high = proportion_ci(0, 20, confidence_level=0.9, method="jeffreys")
    assert low == 0.0
    assert high == pytest.approx(sm(0, 20, 0.9, "jeffreys")[1], abs=1e-12)
    low, high = proportion_ci(20, 20, confidence_level=0.9, method="jeffreys")
    assert high == 1.0
    assert low == pytest.approx(sm(20, 20, 0.9, "jeffreys")[0], abs=1e-12)


@pytest.mark.parametrize("ours", ["wald", "score", "clopper_pearson"])
def test_non_integer_counts_match_statsmodels(ours):
    theirs = {"wald": "normal", "score": "wilson", "clopper_pearson": "beta"}[ours]
    x = np.array([0.5, 1.25, 3.3, 7.9, 49.99])
    n = np.array([1.5, 4.75, 10.2, 8.0, 50.5])
    want_low, want_high = sm(x, n, 0.9, theirs)
    got = proportion_ci(x, n, confidence_level=0.9, method=ours)
    np.testing.assert_allclose(got.low, want_low, rtol=0, atol=1e-10)
    np.testing.assert_allclose(got.high, want_high, rtol=0, atol=1e-10)


@pytest.mark.parametrize("level", [0.8, 0.95])
def test_agresti_default_pseudo_count_is_two(level):
    z = z_of(level)
    for x, n in [(0, 1), (0, 10), (1, 10), (5, 10), (10, 10), (3, 250), (250, 250)]:
        p = (x + 2) / (n + 4)
        half = z * math.sqrt(p * (1 - p) / (n + 4))
        low, high = proportion_ci(x, n, confidence_level=level, method="agresti")
        assert low == pytest.approx(max(0.0, p - half), abs=1e-12)
        assert high == pytest.approx(min(1.0, p + half), abs=1e-12)
        explicit = proportion_ci(x, n, confidence_level=level, method="agresti", pseudo_count=2)
        assert explicit.low == low and explicit.high == high


def test_agresti_pseudo_count_zero_is_wald():
    x, n = np.arange(11.0), 10.0
    a = proportion_ci(x, n, confidence_level=0.9, method="agresti", pseudo_count=0)
    w = proportion_ci(x, n, confidence_level=0.9, method="wald")
    np.testing.assert_array_equal(a.low, w.low)
    np.testing.assert_array_equal(a.high, w.high)


def test_wald_clipped_flag_exactly_where_formula_leaves_unit_interval():
    n, level = 20, 0.95
    z = z_of(level)
    x = np.arange(n + 1)
    ci = proportion_ci(x, n, confidence_level=level, method="wald")
    flags = []
    for xi in range(n + 1):
        p = xi / n
        half = z * math.sqrt(p * (1 - p) / n)
        flags.append(p - half < 0 or p + half > 1)
        assert ci.low[xi] == pytest.approx(max(0.0, p - half), abs=1e-12)
        assert ci.high[xi] == pytest.approx(min(1.0, p + half), abs=1e-12)
    np.testing.assert_array_equal(ci.clipped, flags)
    # Wald: zero width at x = 0 and x = n (not clipped), clipped at small positive x
    assert not ci.clipped[0] and not ci.clipped[n]
    assert ci.clipped[1] and ci.clipped[n - 1]
    assert not ci.clipped[n // 2]
    assert ci.low[0] == ci.high[0] == 0.0


def test_clipped_flag_agresti_hand_formula():
    n, level, a = 5, 0.99, 2.0
    z = z_of(level)
    ci = proportion_ci(
        np.arange(n + 1), n, confidence_level=level, method="agresti", pseudo_count=a
    )
    for xi in range(n + 1):
        p = (xi + a) / (n + 2 * a)
        half = z * math.sqrt(p * (1 - p) / (n + 2 * a))
        assert ci.clipped[xi] == (p - half < 0 or p + half > 1)


@pytest.mark.parametrize("method", list(PROPORTION_METHODS))
def test_bounds_lie_in_unit_interval_and_contain_estimate(method):
    x = np.arange(0, 31, dtype=float)
    ci = proportion_ci(x, 30, confidence_level=0.9, method=method)
    assert np.all((0 <= ci.low) & (ci.low <= ci.high) & (ci.high <= 1))
    if method != "agresti":  # agresti is centred on (x+2)/(n+4), not x/n
        outside = (ci.low > x / 30) | (x / 30 > ci.high)
        assert not outside.any(), [(x[i], ci.low[i], ci.high[i]) for i in np.flatnonzero(outside)]


@pytest.mark.parametrize("level", [0.9, 0.9**0.5, 0.95, 0.99])
def test_score_interval_is_exact_at_the_edges(level):
    # Wilson at x = 0: centre = z^2/(2n) / (1 + z^2/n) and half = z sqrt(z^2/(4n^2)) /
    # (1 + z^2/n) are equal, so low = 0 exactly; symmetrically high = 1 at x = n. The formula
    # never leaves [0, 1], so nothing is clipped. In particular the interval after 0 successes
    # must contain the proportion 0 (and the estimate x/n).
    n = np.arange(1, 2001, dtype=float)
    z = z_of(level)
    at_zero = proportion_ci(0, n, confidence_level=level, method="score")
    at_n = proportion_ci(n, n, confidence_level=level, method="score")
    np.testing.assert_allclose(at_zero.high, z**2 / (n + z**2), rtol=1e-12)
    np.testing.assert_allclose(at_n.low, n / (n + z**2), rtol=1e-12)
    bad = {
        "low > 0 at x = 0": n[at_zero.low != 0.0],
        "high < 1 at x = n": n[at_n.high != 1.0],
        "clipped at x = 0": n[at_zero.clipped],
        "clipped at x = n": n[at_n.clipped],
    }
    summary = {k: (v.size, v[:5].tolist()) for k, v in bad.items() if v.size}
    assert not summary, f"n with inexact Wilson edges (count, first few): {summary}"


def test_unpacking_and_fields():
    result = proportion_ci(3, 10, confidence_level=0.9, method="score")
    low, high = result
    assert low == result.low and high == result.high
    want_low, want_high = proportion_confint(3, 10, alpha=0.1, method="wilson")
    assert low == pytest.approx(want_low, abs=1e-12)
    assert high == pytest.approx(want_high, abs=1e-12)
    assert result.clipped.dtype == bool


def test_broadcasting():
    x = np.array([[0], [1], [2], [3]], dtype=float)  # (4, 1)
    n = np.array([3.0, 5.0, 10.0])  # (3,)
    ci = proportion_ci(x, n, confidence_level=0.95, method="clopper_pearson")
    assert ci.low.shape == ci.high.shape == ci.clipped.shape == (4, 3)
    for i in range(4):
        for j in range(3):
            if x[i, 0] <= n[j]:
                want = proportion_confint(x[i, 0], n[j], alpha=0.05, method="beta")
                assert ci.low[i, j] == pytest.approx(want[0], abs=1e-10)
                assert ci.high[i, j] == pytest.approx(want[1], abs=1e-10)
    low, high = proportion_ci(np.array([1.0, 2.0]), 4, confidence_level=0.9, method="wald")
    assert low.shape == high.shape == (2,)


def test_thesis_worked_example():
    level = math.sqrt(0.9)
    low, high = proportion_ci(0, 10000, confidence_level=level)  # default method: score
    assert low == 0.0
    assert float(f"{float(high):.4e}") == 3.7965e-4
    low, high = proportion_ci(1, 10000, confidence_level=level)
    assert float(f"{float(low):.4e}") == 1.7794e-5
    assert float(f"{float(high):.4e}") == 5.6178e-4


@pytest.mark.parametrize("level", [0, 1, 1.5, -0.1, "abc", float("nan")])
def test_bad_confidence_level(level):
    with pytest.raises(ValueError, match="confidence_level"):
        proportion_ci(1, 10, confidence_level=level)


def test_unknown_method_lists_valid_names():
    with pytest.raises(ValueError, match="method") as info:
        proportion_ci(1, 10, confidence_level=0.9, method="wilsom")
    for name in ["wald", "score", "agresti", "jeffreys", "clopper_pearson"]:
        assert name in str(info.value)


@pytest.mark.parametrize("bad", [-1, -0.5, float("inf"), float("nan")])
def test_bad_pseudo_count(bad):
    with pytest.raises(ValueError, match="pseudo_count"):
        proportion_ci(1, 10, confidence_level=0.9, method="agresti", pseudo_count=bad)


@pytest.mark.parametrize("method", ["wald", "score", "jeffreys", "clopper_pearson"])
def test_pseudo_count_with_other_method(method):
    with pytest.raises(ValueError, match="pseudo_count"):
        proportion_ci(1, 10, confidence_level=0.9, method=method, pseudo_count=1.0)


@pytest.mark.parametrize(
    ("x", "n", "word"),
    [
        (11, 10, "x"),
        (-1, 10, "x"),
        ([1, 2, 12], 10, "x"),
        (0, 0, "n"),
        (1, -5, "n"),
        (float("nan"), 10, "x"),
        (1, float("nan"), "n"),
        (float("inf"), 10, "x"),
    ],
)
def test_bad_counts(x, n, word):
    with pytest.raises(ValueError, match=rf"\b{word}\b"):
        proportion_ci(x, n, confidence_level=0.9, method="score")
