"""The probability that a whole bootstrap curve lies inside a band, approximated by a Gaussian
copula on the exact marginal laws: for curves too long for the exact forward pass
(:func:`rocsim.core.curve_band.containment`), and for laws that have no such pass.

Each point's bootstrap law is exact (its distribution function ``F_i``); only the dependence
across the points is approximated, by the Gaussian copula with the curve's correlation ``R``
(Nelsen 2006, section 2.3). A point with a law on a lattice lies in ``[lo_i, hi_i]`` exactly
when its copula coordinate ``U_i`` lies in ``(F_i(lo_i-), F_i(hi_i)]``, so the whole curve lies
inside with probability

    Pr{a_i < Z_i <= b_i for every i},  Z ~ N(0, R),
    a_i = Phi^-1(F_i(lo_i-)),  b_i = Phi^-1(F_i(hi_i)),

a rectangle probability of the multivariate normal. It is integrated on one fixed set of
:data:`DRAWS` standard normal points in antithetic pairs (``z`` and ``-z``: a band symmetric
about the centre is then integrated with less error), drawn from a constant
:class:`numpy.random.SeedSequence`, so that a band is the same on every call and machine
(and no first call imports ``scipy.stats``). The marginals are exact at any size; the
dependence is the central limit's; ``tests/test_copula.py`` measures the whole against the
exact pass and against a seeded Monte Carlo bootstrap of whole curves.

References
----------
Nelsen, R. B. (2006). An Introduction to Copulas, 2nd ed. Springer. Genz, A. & Bretz, F.
(2009). Computation of Multivariate Normal and t Probabilities. Springer (section 4.1: Monte
Carlo with antithetic variates).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import numpy as np
from scipy import special

#: Points of the integration set (half of them the other half's negatives).
DRAWS = 2**14
#: The integration set's seed: a constant, so every call integrates on the same points.
SEED = 20091119


@lru_cache(maxsize=8)
def normal_points(dimension: int) -> np.ndarray:
    """The fixed ``(DRAWS, dimension)`` set of standard normal points, in antithetic pairs."""
    rng = np.random.default_rng(np.random.SeedSequence(SEED))
    half = rng.standard_normal((DRAWS // 2, dimension))
    points = np.concatenate([half, -half])
    points.flags.writeable = False
    return points


def correlation(cov: np.ndarray) -> np.ndarray:
    """The correlation matrix of ``cov``; a point of zero variance (its law is one value) is
    uncorrelated with the others, which changes nothing: its coordinate is never outside."""
    sd = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    varies = sd > 0
    out = np.eye(sd.size)
    scale = np.where(varies, sd, 1.0)
    inner = np.clip(cov / np.outer(scale, scale), -1.0, 1.0)
    out[np.ix_(varies, varies)] = inner[np.ix_(varies, varies)]
    np.fill_diagonal(out, 1.0)
    return out


class GaussianCopula:
    """The Gaussian copula of a curve's points with correlation ``corr``: it turns the exact
    marginal probabilities of a band's bounds into the probability that every point is
    inside at once (module docstring).

    Examples
    --------
    >>> copula = GaussianCopula(np.eye(2))
    >>> # two independent points, each inside with probability 0.9: 0.81, integrated on
    >>> # the fixed points to within their Monte Carlo error
    >>> inside = copula.inside(np.array([0.05, 0.05]), np.array([0.95, 0.95]))
    >>> bool(abs(inside - 0.81) < 0.01)
    True
    """

    def __init__(self, corr: np.ndarray):
        corr = np.asarray(corr, dtype=float)
        # a square root of the correlation that survives a matrix that is only positive
        # semi-definite (repeated points, points with one value)
        eigenvalues, vectors = np.linalg.eigh(corr)
        root = vectors * np.sqrt(np.clip(eigenvalues, 0.0, None))
        # one row per point of the curve (contiguous: each bound compares one row)
        self._z = np.ascontiguousarray(root @ normal_points(corr.shape[0]).T)

    def sup_t(self, level: float, scale: np.ndarray | float = 1.0, draws: int = DRAWS) -> float:
        """The ``level`` quantile of ``max_i |scale_i Z_i|`` over the first ``draws`` of the
        copula's normal points ``Z`` (independent ones, up to half of them): the sup-t
        critical value of a Gaussian curve whose point ``i`` has standard deviation
        ``scale_i`` (in the band's units)."""
        largest = np.abs(self._z[:, :draws] * np.reshape(scale, (-1, 1))).max(axis=0)
        return float(np.quantile(largest, level, method="inverted_cdf"))

    def inside(self, below: np.ndarray, upto: np.ndarray) -> float:
        """``Pr{below_i < U_i <= upto_i for every i}`` for the copula's uniforms ``U``:
        ``below_i = F_i(lo_i-)`` and ``upto_i = F_i(hi_i)`` of the exact marginals."""
        a = special.ndtri(np.clip(below, 0.0, 1.0))[:, None]
        b = special.ndtri(np.clip(upto, 0.0, 1.0))[:, None]
        inside = np.logical_and.reduce((self._z > a) & (self._z <= b), axis=0)
        return float(np.count_nonzero(inside)) / DRAWS


def lattice_probabilities(
    cdf: Callable[[np.ndarray], np.ndarray], lo: np.ndarray, hi: np.ndarray, size: int
) -> tuple[np.ndarray, np.ndarray]:
    """``(F(lo-), F(hi))`` of laws on ``{0, 1/size, ..., 1}`` at the count bounds ``lo``,
    ``hi`` (``cdf`` takes one rate per point)."""
    below = np.where(lo > 0, cdf(np.maximum(lo - 1, 0) / size), 0.0)
    upto = np.where(hi >= size, 1.0, np.where(hi >= 0, cdf(np.clip(hi, 0, size) / size), 0.0))
    return below, upto
