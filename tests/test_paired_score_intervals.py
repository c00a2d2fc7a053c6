"""Tango's score interval and the Bonett-Price Wald interval for a paired difference.

Oracles: (a) values printed by the R package contingencytables 3.0.0 (Fagerland, Lydersen &
Laake, the companion of their book and of Fagerland, Lydersen & Laake 2014, Statistics in
Medicine 33:2850-2875) for the tables of its chapter 8; (b) Tango's score statistic written
out here from the textbook formula, with the restricted MLE of ``p21`` checked against a
numerical maximisation of the likelihood; (c) a brute-force scan of that statistic on a grid.

Convention: rocsim's ``d = (b - c)/n``. contingencytables' 2x2 matrix ``n`` has
``delta = pi_1+ - pi_+1 = (n[1, 2] - n[2, 1])/N``, so ``b = n[1, 2]`` and ``c = n[2, 1]``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize
from scipy.stats import norm

from rocsim.core import PAIRED_METHODS
from rocsim.core.intervals import paired_difference_ci, paired_interval_from_counts

NEW_METHODS = ["tango", "bonett_price"]


def z_of(level):
    return float(norm.ppf(0.5 + level / 2))


def all_tables(max_n: int):
    """Every ``(b, c, n)`` with ``b + c <= n`` and ``1 <= n <= max_n``, as float arrays."""
    rows = [(b, c, n) for n in range(1, max_n + 1) for b in range(n + 1) for c in range(n + 1 - b)]
    b, c, n = (np.array(col, dtype=float) for col in zip(*rows))
    return b, c, n


# --- (a) printed values --------------------------------------------------------------------------
#
# Sources (95% intervals, printed with "%6.4f"):
# * Airway hyper-responsiveness before and after stem cell transplantation (Bentur et al. 2009),
#   the worked example of Fagerland, Lydersen & Laake (2014): rbind(c(1, 1), c(7, 12)), i.e.
#   b = 1, c = 7, n = 21, d = -0.2857. Printed by the examples of
#   https://ocbe-uio.github.io/contingencytables/reference/Tango_asymptotic_score_CI_paired_2x2.html
#   ("Tango asymptotic score CI: estimate = -0.2857 (95% CI -0.5172 to -0.0260)"),
#   https://ocbe-uio.github.io/contingencytables/reference/Wald_CI_BonettPrice_paired_2x2.html
#   ("The Wald CI with Bonett-Price adjustment: estimate = -0.2857 (95% CI -0.5084 to -0.0134)")
#   and the summary table of
#   https://ocbe-uio.github.io/contingencytables/reference/the_paired_2x2_table_CIs_difference.html
#   ("Wald w/Bonett-Price adjustment -0.5084 to -0.0134", "Tango asymptotic score -0.5172 to
#   -0.0260"); pkgdown build of contingencytables 3.0.0, gh-pages commit a9ac70f.
# * Complete response before and after consolidation therapy (Cavo et al. 2012):
#   rbind(c(59, 6), c(16, 80)), i.e. b = 6, c = 16, n = 161. Same pages, and the package's
#   tests/testthat/test-ch8.R: Tango "-0.0621 (95% CI -0.1240 to -0.0054)", Bonett-Price
#   "-0.0621 (95% CI -0.1195 to -0.0032)".
# * tests/testthat/test-ch8.R of contingencytables 3.0.0, boundary tables for Tango:
#   matrix(c(0, 0, 3, 0), 2) (column-major: n[1, 2] = 3, so b = n = 3) prints
#   "1.0000 (95% CI -0.1230 to 1.0000)"; matrix(c(0, 3, 0, 0), 2) (c = n = 3) prints
#   "-1.0000 (95% CI -1.0000 to 0.1230)".

PRINTED = [
    pytest.param("tango", 1, 7, 21, (-0.5172, -0.0260), id="tango-bentur2009"),
    pytest.param("bonett_price", 1, 7, 21, (-0.5084, -0.0134), id="bonett_price-bentur2009"),
    pytest.param("tango", 6, 16, 161, (-0.1240, -0.0054), id="tango-cavo2012"),
    pytest.param("bonett_price", 6, 16, 161, (-0.1195, -0.0032), id="bonett_price-cavo2012"),
    pytest.param("tango", 3, 0, 3, (-0.1230, 1.0000), id="tango-b=n=3"),
    pytest.param("tango", 0, 3, 3, (-1.0000, 0.1230), id="tango-c=n=3"),
]


@pytest.mark.parametrize(("method", "b", "c", "n", "printed"), PRINTED)
def test_printed_95_percent_intervals(method, b, c, n, printed):
    low, high = paired_difference_ci(b, c, n, confidence_level=0.95, method=method)
    # agreement to the printed 4 decimals
    assert float(low) == pytest.approx(printed[0], abs=5e-5)
    assert float(high) == pytest.approx(printed[1], abs=5e-5)


@pytest.mark.parametrize(("method", "b", "c", "n", "printed"), PRINTED)
def test_printed_intervals_with_the_discordant_cells_swapped(method, b, c, n, printed):
    # the table transposed: delta changes sign and so does the interval
    low, high = paired_difference_ci(c, b, n, confidence_level=0.95, method=method)
    assert float(low) == pytest.approx(-printed[1], abs=5e-5)
    assert float(high) == pytest.approx(-printed[0], abs=5e-5)


# --- (b) Tango's statistic written out -----------------------------------------------------------


def p21_restricted_mle(delta, b, c, n):
    """Tango (1998): the larger root of ``2n q^2 + B q + C``, textbook form."""
    big_a = 2.0 * n
    big_b = -b - c + (2.0 * n - b + c) * delta
    big_c = -c * delta * (1.0 - delta)
    return (math.sqrt(max(big_b * big_b - 4.0 * big_a * big_c, 0.0)) - big_b) / (2.0 * big_a)


def tango_statistic(delta, b, c, n):
    q = p21_restricted_mle(delta, b, c, n)
    return (b - c - n * delta) / math.sqrt(n * (2.0 * q + delta * (1.0 - delta)))


@pytest.mark.parametrize(("b", "c", "n"), [(1, 7, 21), (6, 16, 161), (4, 0, 9), (2, 2, 5)])
def test_restricted_mle_maximises_the_multinomial_likelihood(b, c, n):
    """The quadratic's root is the MLE of ``p21`` given ``p12 - p21 = delta``."""
    for delta in np.linspace(-0.9, 0.9, 19):
        lo, hi = max(0.0, -delta), (1.0 - delta) / 2.0

        def minus_loglik(q, delta=delta):
            terms = [(b, q + delta), (c, q), (n - b - c, 1.0 - 2.0 * q - delta)]
            return -sum(k * math.log(p) for k, p in terms if k > 0)

        found = optimize.minimize_scalar(
            minus_loglik, bounds=(lo, hi), method="bounded", options={"xatol": 1e-12}
        )
        assert p21_restricted_mle(delta, b, c, n) == pytest.approx(found.x, abs=1e-6)


@pytest.mark.parametrize("level", [0.5, 0.8, 0.9**0.5, 0.95, 0.99])
def test_tango_endpoints_solve_the_score_equation(level):
    z = z_of(level)
    b, c, n = all_tables(15)
    low, high = paired_difference_ci(b, c, n, confidence_level=level, method="tango")
    for i in range(b.size):
        if low[i] > -1.0:
            assert tango_statistic(low[i], b[i], c[i], n[i]) == pytest.approx(z, abs=1e-9)
        else:
            assert c[i] == n[i]  # -1 only when d = -1
        if high[i] < 1.0:
            assert tango_statistic(high[i], b[i], c[i], n[i]) == pytest.approx(-z, abs=1e-9)
        else:
            assert b[i] == n[i]


# --- (c) brute-force scan of the acceptance region -----------------------------------------------


@pytest.mark.parametrize(("b", "c", "n"), [(1, 7, 21), (0, 0, 4), (5, 0, 5), (3, 1, 7), (0, 2, 2)])
@pytest.mark.parametrize("level", [0.8, 0.95])
def test_tango_interval_is_the_acceptance_region_on_a_grid(b, c, n, level):
    z = z_of(level)
    low, high = (
        float(v) for v in paired_difference_ci(b, c, n, confidence_level=level, method="tango")
    )
    d = (b - c) / n
    for delta in np.linspace(-1.0, 1.0, 4001)[1:-1]:
        if delta == d:
            continue  # 0/0 when b = c = 0
        accepted = abs(tango_statistic(delta, b, c, n)) <= z
        if accepted:
            assert low - 1e-12 <= delta <= high + 1e-12, delta
        elif low + 1e-9 < delta < high - 1e-9:
            pytest.fail(f"delta={delta} rejected but inside [{low}, {high}]")


# --- properties ----------------------------------------------------------------------------------


def test_new_methods_are_in_the_dispatch_table():
    for method in NEW_METHODS:
        assert method in PAIRED_METHODS


@pytest.mark.parametrize("level", [0.5, 0.8, 0.9, 0.95, 0.99, 0.999])
def test_tango_always_contains_d(level):
    b, c, n = all_tables(15)
    low, high = paired_difference_ci(b, c, n, confidence_level=level, method="tango")
    d = (b - c) / n
    assert np.all(np.isfinite(low)) and np.all(np.isfinite(high))
    assert np.all((low <= d) & (d <= high))
    assert np.all((low >= -1.0) & (high <= 1.0))


@pytest.mark.parametrize("level", [0.78, 0.8, 0.9, 0.95, 0.99, 0.999])
def test_bonett_price_contains_d_from_z_squared_three_halves(level):
    # |d - centre| <= z sd for every table with n >= 1 iff z^2 >= 3/2 (level ~ 0.7793)
    assert z_of(level) ** 2 >= 1.5
    b, c, n = all_tables(15)
    low, high = paired_difference_ci(b, c, n, confidence_level=level, method="bonett_price")
    d = (b - c) / n
    assert np.all(np.isfinite(low)) and np.all(np.isfinite(high))
    assert np.all((low <= d) & (d <= high))


def test_bonett_price_below_z_squared_three_halves_misses_d_at_b_equals_n_equals_1():
    level = 0.779
    assert z_of(level) ** 2 < 1.5
    high = paired_difference_ci(1, 0, 1, confidence_level=level, method="bonett_price").high
    # centre 1/3, half-width z sqrt(8/27) < 2/3: d = 1 lies above the interval
    assert float(high) < 1.0
    assert float(high) == pytest.approx(1 / 3 + z_of(level) * math.sqrt(8 / 27), abs=1e-14)


@pytest.mark.parametrize("method", NEW_METHODS)
def test_vectorised_calls_equal_scalar_calls(method):
    b, c, n = all_tables(12)
    low, high = paired_difference_ci(b, c, n, confidence_level=0.9, method=method)
    assert low.shape == b.shape and high.shape == b.shape
    for i in range(b.size):
        lo, hi = paired_difference_ci(b[i], c[i], n[i], confidence_level=0.9, method=method)
        assert low[i] == pytest.approx(float(lo), abs=1e-15)
        assert high[i] == pytest.approx(float(hi), abs=1e-15)
    # a scalar n broadcasts against a 2-D block of counts
    bb = np.array([[0, 1, 2], [3, 4, 5]])
    cc = np.array([[5, 4, 3], [2, 1, 0]])
    low2, high2 = paired_difference_ci(bb, cc, 5, confidence_level=0.9, method=method)
    assert low2.shape == (2, 3)
    for i, j in np.ndindex(2, 3):
        lo, hi = paired_difference_ci(
            int(bb[i, j]), int(cc[i, j]), 5, confidence_level=0.9, method=method
        )
        assert low2[i, j] == pytest.approx(float(lo), abs=1e-15)
        assert high2[i, j] == pytest.approx(float(hi), abs=1e-15)


@pytest.mark.parametrize("method", NEW_METHODS)
def test_new_intervals_are_antisymmetric_in_b_and_c(method):
    b, c, n = all_tables(15)
    low, high = paired_difference_ci(b, c, n, confidence_level=0.9, method=method)
    low_s, high_s = paired_difference_ci(c, b, n, confidence_level=0.9, method=method)
    np.testing.assert_allclose(low_s, -high, rtol=0, atol=1e-13)
    np.testing.assert_allclose(high_s, -low, rtol=0, atol=1e-13)


@pytest.mark.parametrize("n", [1, 2, 7, 100])
@pytest.mark.parametrize("level", [0.5, 0.95])
def test_edge_cases_by_hand(n, level):
    z = z_of(level)
    # b = c = 0: T(delta) = -sign(delta) sqrt(n |delta| / (1 - |delta|)), so the limits are
    # +- z^2 / (n + z^2)
    low, high = paired_difference_ci(0, 0, n, confidence_level=level, method="tango")
    assert float(high) == pytest.approx(z * z / (n + z * z), abs=1e-14)
    assert float(low) == pytest.approx(-z * z / (n + z * z), abs=1e-14)
    # Bonett-Price at b = c = 0: centre 0, variance 2/(n + 2)^2
    low, high = paired_difference_ci(0, 0, n, confidence_level=level, method="bonett_price")
    assert float(high) == pytest.approx(z * math.sqrt(2.0) / (n + 2), abs=1e-14)
    assert float(low) == pytest.approx(-z * math.sqrt(2.0) / (n + 2), abs=1e-14)
    # b = n: the Tango interval reaches 1 exactly, c = n: -1 exactly; the other limit solves
    # T = z, where T = sqrt(n (1 - delta)/(1 + delta)) (q = (1 - delta)/2)
    low, high = paired_difference_ci(n, 0, n, confidence_level=level, method="tango")
    assert float(high) == 1.0
    assert float(low) == pytest.approx((n - z * z) / (n + z * z), abs=1e-13)
    low, high = paired_difference_ci(0, n, n, confidence_level=level, method="tango")
    assert float(low) == -1.0
    assert float(high) == pytest.approx(-(n - z * z) / (n + z * z), abs=1e-13)
    # Bonett-Price at b = n: centre n/(n + 2), variance 4 (n + 1)/(n + 2)^3, clipped at 1
    ci = paired_difference_ci(n, 0, n, confidence_level=level, method="bonett_price")
    raw_high = n / (n + 2) + z * math.sqrt(4.0 * (n + 1) / (n + 2) ** 3)
    assert float(ci.high) == pytest.approx(min(raw_high, 1.0), abs=1e-14)
    assert float(ci.low) == pytest.approx(
        n / (n + 2) - z * math.sqrt(4.0 * (n + 1) / (n + 2) ** 3), abs=1e-14
    )
    assert bool(ci.clipped) == (raw_high > 1.0)


def test_tango_never_needs_clipping():
    b, c, n = all_tables(15)
    for level in (0.5, 0.95, 0.999):
        assert not np.any(
            paired_difference_ci(b, c, n, confidence_level=level, method="tango").clipped
        )


def test_large_random_arrays_are_finite_and_contain_d():
    rng = np.random.default_rng(20260101)
    n = rng.integers(1, 5000, 100_000).astype(float)
    b = rng.integers(0, n + 1).astype(float)
    c = rng.integers(0, n - b + 1).astype(float)
    d = (b - c) / n
    for method in NEW_METHODS:
        low, high = paired_interval_from_counts(b, c, n, 0.95, method, None)
        assert np.all(np.isfinite(low)) and np.all(np.isfinite(high))
        assert np.all((low <= d) & (d <= high))


def test_non_integer_effective_counts_are_accepted():
    low, high = paired_difference_ci(1.5, 6.25, 20.5, confidence_level=0.95, method="tango")
    d = (1.5 - 6.25) / 20.5
    assert float(low) < d < float(high)
    z = z_of(0.95)
    assert tango_statistic(float(low), 1.5, 6.25, 20.5) == pytest.approx(z, abs=1e-9)
    assert tango_statistic(float(high), 1.5, 6.25, 20.5) == pytest.approx(-z, abs=1e-9)


@pytest.mark.parametrize("method", NEW_METHODS)
def test_new_methods_take_no_pseudo_count(method):
    with pytest.raises(ValueError, match="pseudo_count"):
        paired_difference_ci(1, 2, 10, method=method, pseudo_count=0.5)


def test_the_practitioner_default_contains_the_observed_difference():
    # the thesis's eq. 4.8 interval (method="score") excludes d = 1 here
    low, high = paired_difference_ci(10, 0, 10)
    assert low <= 1.0 <= high
    _, score_high = paired_difference_ci(10, 0, 10, method="score")
    assert score_high < 1.0  # why it is not the default
    import rocsim

    y = np.repeat([1, 0], [10, 10])
    first = np.r_[np.full(10, 2.0), np.zeros(10)]
    second = np.r_[np.zeros(10), np.full(10, 2.0)]
    cmp = rocsim.compare_roc(y, first, second, thresholds=([1.0], [1.0]))
    assert cmp.method == "tango"
    assert cmp.dtpr_low[0] <= cmp.dtpr[0] == 1.0 <= cmp.dtpr_high[0]
