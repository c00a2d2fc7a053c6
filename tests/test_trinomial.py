"""The law of the difference of two multinomial cells by its characteristic function equals
the sum over ``B + C`` of binomial laws (and, through the net benefit's difference law, the
enumeration of every resample: ``tests/test_net_benefit.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from rocsim.core.trinomial import difference_pmf


def by_sum(m: int, b: float, c: float, d: np.ndarray) -> np.ndarray:
    """``Pr{B - C = d} = sum_s Pr{B + C = s} Pr{Bin(s, b / (b + c)) = (s + d) / 2}``."""
    s = np.arange(m + 1)[:, None]
    first = (s + d[None, :]) / 2
    whole = (first == np.floor(first)) & (first >= 0) & (first <= s)
    theta = b / (b + c) if b + c > 0 else 0.5
    inner = np.where(whole, stats.binom.pmf(np.where(whole, first, 0), s, theta), 0.0)
    return stats.binom.pmf(s[:, 0], m, b + c) @ inner


@pytest.mark.parametrize("m", [1, 7, 60, 900])
def test_the_pmf_is_the_sum_over_the_two_cells_total(m):
    rng = np.random.default_rng(m)
    b, c = rng.dirichlet([1.0, 1.0, 1.0], 6)[:, :2].T
    b[0], c[0] = 0.5, 0.5  # no rest: the characteristic function vanishes at z = i
    b[1], c[1] = 0.0, 0.3
    lo = np.full(b.size, -m)
    pmf = difference_pmf(m, b, c, lo, 2 * m + 1)
    for row in range(b.size):
        expected = by_sum(m, b[row], c[row], np.arange(-m, m + 1))
        np.testing.assert_allclose(pmf[row], expected, rtol=0, atol=2e-15)
    # each value within 2e-15; the rounding noise about 0 clipped to 0 adds up over the 2m + 1
    np.testing.assert_allclose(pmf.sum(axis=1), 1.0, rtol=0, atol=(2 * m + 1) * 2e-16)


def test_a_window_folds_only_the_negligible_mass_outside_it():
    m, b, c = 5000, np.array([0.2]), np.array([0.1])
    mean, sd = m * 0.1, np.sqrt(m * (0.3 - 0.01))
    lo = np.array([int(mean - 12 * sd)])
    width = int(24 * sd)
    pmf = difference_pmf(m, b, c, lo, width)
    expected = by_sum(m, 0.2, 0.1, lo[0] + np.arange(width))
    np.testing.assert_allclose(pmf[0], expected, rtol=0, atol=2e-15)
