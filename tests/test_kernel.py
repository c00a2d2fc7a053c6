"""Kernel comparator (Hall, Hyndman & Fan 2004): binned evaluation against direct sums."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize, stats
from scipy.special import ndtr

from rocsim.core.kernel import hall_hyndman_bandwidth, kernel_roc_ci


def direct(pos, neg, p, level):
    """Kernel ROC and its interval by direct sums over instances and root finding."""
    hn, hp = hall_hyndman_bandwidth(neg, pos), hall_hyndman_bandwidth(pos, neg)

    def cdf(x, h, u):
        return ndtr((u - x) / h).mean()

    def pdf(x, h, u):
        return stats.norm.pdf((u - x) / h).mean() / h

    u = np.array(
        [
            optimize.brentq(lambda t, q=q: cdf(neg, hn, t) - (1 - q), -100, 100, xtol=1e-13)
            for q in p
        ]
    )
    g_cdf = np.array([cdf(pos, hp, t) for t in u])
    ratio = np.array([pdf(pos, hp, t) / pdf(neg, hn, t) for t in u])
    sigma = np.sqrt(g_cdf * (1 - g_cdf) / pos.size + p * (1 - p) * ratio**2 / neg.size)
    z = stats.norm.ppf(0.5 + level / 2)
    tpr = 1 - g_cdf
    return tpr, np.clip(tpr - z * sigma, 0, 1), np.clip(tpr + z * sigma, 0, 1)


@pytest.mark.parametrize("n, theta", [(25, 3.0), (300, 0.75), (2000, 5.0)])
def test_binned_evaluation_matches_direct_sums(n, theta):
    rng = np.random.default_rng(n)
    pos, neg = rng.normal(theta, 3.75, n), rng.normal(-theta, 3.0, n)
    p = np.array([0.01, 0.05, 0.3, 0.5, 0.8, 0.99])
    got = kernel_roc_ci(pos, neg, p, confidence_level=0.9)
    want = direct(pos, neg, p, 0.9)
    for g, w in zip((got.tpr, got.low, got.high), want):
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-5)  # rocsim.core.kernel.GRID_SIZE


def test_bandwidth_formula_by_hand():
    x = np.array([0.0, 1.0, 2.0, 4.0])
    y = np.array([1.0, 3.0, 5.0])
    sx, sy, d = np.std(x, ddof=1), np.std(y, ddof=1), x.mean() - y.mean()
    num = (
        4
        * sx**3
        * (sx**2 + sy**2) ** 2.5
        * np.exp(sx**2 * d**2 / ((sx**2 + sy**2) * (2 * sx**2 + sy**2)))
    )
    den = 4 * np.sqrt(2 * sx**2 + sy**2) * (sy**4 + sx**2 * sy**2 + 2 * sx**2 * d**2)
    assert hall_hyndman_bandwidth(x, y) == pytest.approx((num / den) ** (1 / 3), rel=1e-14)


def test_kernel_bad_fpr():
    with pytest.raises(ValueError, match="fpr"):
        kernel_roc_ci([1.0, 2.0], [0.0, 1.0], [0.0, 0.5])
