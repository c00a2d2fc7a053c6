"""A proportion interval defined outside rocsim: the mid-p interval.

rocsim calls a proportion method as ``f(x, n, confidence_level) -> (low, high)`` with float
arrays ``x`` and ``n`` that broadcast together (``docs/extending.md``). The mid-p interval
(Lancaster 1961; Berry & Armitage 1995) inverts the binomial test with half the probability of
the observed count in each tail: ``low`` solves ``Pr{X > x} + Pr{X = x}/2 = alpha/2`` and
``high`` solves ``Pr{X < x} + Pr{X = x}/2 = alpha/2``. The tails are continuous in ``x``
through the regularized incomplete beta function, so effective (non-integer) counts work too.

References
----------
Lancaster, H. O. (1961). Significance tests in discrete distributions. JASA 56, 223-234.
Berry, G. & Armitage, P. (1995). Mid-P confidence intervals: a brief review. The
Statistician 44, 417-423.
"""

from __future__ import annotations

import numpy as np
from scipy import special


def upper_tail(x: np.ndarray, n: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``Pr{X > x} + Pr{X = x}/2`` for ``X ~ Bin(n, p)``: increasing in ``p``."""
    tiny = np.finfo(float).tiny
    at_least_x = np.where(x > 0, special.betainc(np.maximum(x, tiny), n - x + 1, p), 1.0)
    above_x = np.where(x < n, special.betainc(x + 1, np.maximum(n - x, tiny), p), 0.0)
    return 0.5 * (at_least_x + above_x)


def solve(x: np.ndarray, n: np.ndarray, target: float, steps: int = 52) -> np.ndarray:
    """The ``p`` in [0, 1] with ``upper_tail(x, n, p) = target``, by vectorised bisection
    (``steps`` halvings: to the resolution of a double)."""
    low, high = np.zeros(x.shape), np.ones(x.shape)
    for _ in range(steps):
        middle = (low + high) / 2
        below = upper_tail(x, n, middle) < target
        low, high = np.where(below, middle, low), np.where(below, high, middle)
    return (low + high) / 2


def mid_p(x, n, confidence_level: float) -> tuple[np.ndarray, np.ndarray]:
    """Mid-p confidence interval for the binomial proportion ``x / n``."""
    x, n = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(n, dtype=float))
    tail = (1.0 - confidence_level) / 2.0
    return solve(x, n, tail), solve(x, n, 1.0 - tail)


def logit_wald(law, confidence_level: float) -> tuple[np.ndarray, np.ndarray]:
    """A vertical-averaging method: Wald on the logit scale with the exact bootstrap moments.

    rocsim calls a vertical method as ``f(law, confidence_level) -> (low, high)``, where
    ``law.mean`` and ``law.var`` are the exact bootstrap mean and variance of TPR at each FPR.
    The delta method gives ``logit(TPR)`` the standard error ``sqrt(var) / (mean (1 - mean))``;
    the interval is built there and mapped back, so it stays inside (0, 1). Where the mean is
    0 or 1 the bootstrap law is a point mass and so is the interval.
    """
    z = special.ndtri(0.5 + confidence_level / 2.0)
    mean, var = np.asarray(law.mean, dtype=float), np.asarray(law.var, dtype=float)
    inside = (mean > 0) & (mean < 1)
    safe = np.where(inside, mean, 0.5)
    half = z * np.sqrt(var) / (safe * (1 - safe))
    centre = special.logit(safe)
    low = np.where(inside, special.expit(centre - half), mean)
    high = np.where(inside, special.expit(centre + half), mean)
    return low, high


def larger_variance(data) -> float:
    """An AUC method: the Wald interval on the larger of DeLong's and the exact bootstrap's
    variance, a cautious choice for small test sets.

    rocsim calls a method of one AUC as ``f(data)`` with ``data.auc``, ``data.n_pos``,
    ``data.n_neg`` and ``data.variance(name)`` (``"delong"`` or ``"exact_bootstrap"``); a
    variance returned gives the Wald interval and test on it, a
    ``rocsim.core.Pivot(var, z)`` the AUCs its test ``z(theta)`` does not reject.
    """
    return max(data.variance("delong"), data.variance("exact_bootstrap"))
