"""The percentile interval of vertical averaging against a brute-force quantile of the exact
law (issue: a bracket at -1 made the lower bound -1/m+, reported as 0)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from rocsim.core.vertical import vertical_ci, vertical_distribution

LEVEL = 0.95
TAIL = (1 - LEVEL) / 2


def dense_pmf(law) -> np.ndarray:
    """``pmf[i, l] = sum_c w[i, c] Bin(l; m+, q[i, c])`` from scipy.stats.binom, densely."""
    support = np.arange(law.m_pos + 1)
    pmf = stats.binom.pmf(support[None, None, :], law.m_pos, law._q[:, :, None])
    return np.einsum("ic,icl->il", law._w, pmf)


def brute_quantile(pmf: np.ndarray, p: float) -> np.ndarray:
    """Smallest ``l`` with ``sum_{k <= l} pmf[k] >= p``, per row."""
    return np.argmax(np.cumsum(pmf, axis=1) >= p, axis=1)


def test_reported_lower_bound_is_the_exact_quantile_not_minus_one_step():
    pos = [-0.6, 1.0, 0.2, 0.6, 3.1, 1.0, 0.7, 0.8, -0.5, 2.3, 1.8, 0.5, 1.2, 0.3]
    neg = [0.4, -1.3, 0.3, 1.5]
    law = vertical_distribution(pos, neg, [1])
    assert law.quantile(0.025)[0] == pytest.approx(1 / 14)
    ci = vertical_ci(pos, neg, [1], confidence_level=LEVEL, method="percentile")
    assert ci.low[0] == pytest.approx(1 / 14)


@pytest.mark.parametrize("ties", [False, True])
def test_percentile_bounds_equal_brute_force_quantiles(ties):
    rng = np.random.default_rng(16 + ties)
    for _ in range(100):
        # few negatives and more positives: where the normal guess undershoots at low FPR
        n_pos, n_neg = rng.integers(2, 30), rng.integers(2, 9)
        pos, neg = rng.normal(0.8, 1, n_pos), rng.normal(0, 1, n_neg)
        if ties:
            pos, neg = np.round(pos * 2) / 2, np.round(neg * 2) / 2
        r = np.arange(1, n_neg)
        law = vertical_distribution(pos, neg, r)
        pmf = dense_pmf(law)
        ci = vertical_ci(pos, neg, r, confidence_level=LEVEL, method="percentile")
        low = brute_quantile(pmf, TAIL - 1e-12) / n_pos
        high = brute_quantile(pmf, 1 - TAIL - 1e-12) / n_pos
        np.testing.assert_array_equal(ci.low, low)
        np.testing.assert_array_equal(ci.high, high)
