"""A simultaneous band for the cost curve at fixed thresholds, calibrated on the exact
stratified-bootstrap law of the whole curve.

At the ``(w_k, t_k)`` pairs the normalized cost of a resample is ``w_k (1 - X_k / m+) + (1 -
w_k) N_k / m-``, ``X_k`` (``N_k``) its positives (negatives) scoring at least ``t_k``. Walked
from the highest threshold down, ``X`` and ``N`` are independent Markov chains with binomial
increments, the same law as the ROC curve's (:mod:`rocsim.core.curve_band`) but read at fixed
thresholds rather than at the ranks of the negatives: the probability that every cost lies in
its interval is one forward pass on the joint law of ``(N, X)``
(:func:`rocsim.core._band.cost_containment`), exact up to the binomial terms and states below
:data:`rocsim.core.curve_band.TINY` it leaves out. The band is the method's intervals at the
smallest common level whose containment reaches the level
(:func:`rocsim.core.curve_band.calibrate`).

Size. Beyond :data:`rocsim.core.curve_band.EXACT_CELLS` the containment is the Gaussian
copula's on the exact marginal laws (:mod:`rocsim.core.copula`), as for the ROC curve: a
cost is ``w (1 - X / m+) + (1 - w) N / m-`` with ``X``, ``N`` independent binomials, so its
distribution function is a sum over ``X`` of binomial distribution functions of ``N``
(:func:`cost_cdf`), and the covariance across the pairs is exact in closed form, the counts
at two thresholds being nested binomials (:func:`cost_covariance`).
"""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
from scipy import special

from rocsim.core import _band
from rocsim.core.copula import GaussianCopula, correlation
from rocsim.core.cost import CostCI, cost_ci
from rocsim.core.counting import count_at_or_above
from rocsim.core.curve_band import (
    EXACT_CELLS,
    TINY,
    Calibration,
    calibrate,
    check_pass_size,
    say_if_above,
)

#: A cost's distribution function sums the binomial terms of ``X`` above this.
TERM_FLOOR = 1e-17


def cost_containment(
    pos: np.ndarray,
    neg: np.ndarray,
    w: np.ndarray,
    thresholds: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
) -> float:
    """Probability that the stratified bootstrap's cost at every ``(w[k], thresholds[k])``
    lies in ``[low[k], high[k]]`` (module docstring).

    Examples
    --------
    >>> pos, neg = np.array([0.9, 0.4]), np.array([0.6, 0.1])
    >>> # at w = 0.5 and t = 0.5 the cost 0.5 (1 - X/2) + 0.5 N/2 is 0.25 when X - N = 1:
    >>> # (X, N) = (1, 0) or (2, 1), probability 1/2 * 1/4 + 1/4 * 1/2
    >>> cost_containment(pos, neg, np.array([0.5]), np.array([0.5]), np.array([0.25]),
    ...                  np.array([0.25]))
    0.25
    """
    check_pass_size(neg.size, pos.size)
    values = np.unique(thresholds)[::-1]  # the distinct thresholds, highest first
    pos_share = count_at_or_above(pos, values) / pos.size
    neg_share = count_at_or_above(neg, values) / neg.size
    step = np.searchsorted(-values, -np.asarray(thresholds))
    order = np.argsort(step, kind="stable")
    return float(
        _band.cost_containment(
            np.ascontiguousarray(pos_share, dtype=float),
            np.ascontiguousarray(neg_share, dtype=float),
            pos.size,
            neg.size,
            np.ascontiguousarray(step[order], dtype=np.int64),
            *(np.ascontiguousarray(np.asarray(a, dtype=float)[order]) for a in (w, low, high)),
            TINY,
        )
    )


def simultaneous_cost_ci(
    pos: np.ndarray,
    neg: np.ndarray,
    w: np.ndarray,
    thresholds: np.ndarray,
    level: float,
    method,
    pseudo_count: float | None,
) -> tuple[CostCI, Calibration]:
    """The cost intervals of ``method`` at the common level at which the whole bootstrap cost
    curve (at the given pairs) lies inside with probability at least ``level``; the
    :class:`~rocsim.core.cost.CostCI` there and the calibration."""
    intervals = {}

    def bounds_at(gamma: float) -> tuple[np.ndarray, np.ndarray]:
        intervals[gamma] = ci = cost_ci(
            pos,
            neg,
            w,
            thresholds,
            confidence_level=gamma,
            method=method,
            pseudo_count=pseudo_count,
        )
        return ci.low, ci.high

    measure = CostContainmentMeasure(pos, neg, w, thresholds)
    calibration = replace(calibrate(bounds_at, measure, level), how=measure.how)
    say_if_above(calibration.containment, level, "simultaneous cost")
    if calibration.containment < level:
        warnings.warn(
            f"the {method} cost intervals at their widest hold the whole bootstrap cost curve "
            f"with probability {calibration.containment:.4g} only, below {level}",
            UserWarning,
            stacklevel=3,
        )
    return intervals[calibration.gamma], calibration


class CostContainmentMeasure:
    """The probability that the whole stratified bootstrap cost curve at the ``(w,
    thresholds)`` pairs lies within ``(low, high)``: :func:`cost_containment`'s exact pass up
    to :data:`~rocsim.core.curve_band.EXACT_CELLS`, the Gaussian copula on the exact
    marginals beyond (module docstring); ``how`` says which."""

    def __init__(self, pos, neg, w, thresholds):
        self.pos, self.neg = pos, neg
        self.w, self.thresholds = np.asarray(w, dtype=float), np.asarray(thresholds, float)
        self.exact = (neg.size + 1) * (pos.size + 1) <= EXACT_CELLS
        self.how = "exact" if self.exact else "gaussian copula"
        self._shares = (
            count_at_or_above(pos, self.thresholds) / pos.size,
            count_at_or_above(neg, self.thresholds) / neg.size,
        )
        self._copula: GaussianCopula | None = None

    def __call__(self, low: np.ndarray, high: np.ndarray) -> float:
        if self.exact:
            return cost_containment(self.pos, self.neg, self.w, self.thresholds, low, high)
        p_pos, p_neg = self._shares
        sizes = (self.pos.size, self.neg.size)
        below = cost_cdf(self.w, p_pos, p_neg, *sizes, np.asarray(low, float), strict=True)
        upto = cost_cdf(self.w, p_pos, p_neg, *sizes, np.asarray(high, float), strict=False)
        return self.copula.inside(below, upto)

    @property
    def copula(self) -> GaussianCopula:
        if self._copula is None:
            cov = cost_covariance(self.w, *self._shares, self.pos.size, self.neg.size)
            self._copula = GaussianCopula(correlation(cov))
        return self._copula


def cost_cdf(w, p_pos, p_neg, m_pos: int, m_neg: int, v, strict: bool) -> np.ndarray:
    """``Pr{cost_k <= v_k}`` (``Pr{cost_k < v_k}``, ``strict``) for the stratified bootstrap's
    ``cost_k = w_k (1 - X / m+) + (1 - w_k) N / m-``, ``X ~ Bin(m+, p_pos[k])`` and ``N ~
    Bin(m-, p_neg[k])`` independent: over the likely ``x``, ``Pr{X = x}`` times the binomial
    distribution function of ``N`` at the largest count keeping the cost at most (below)
    ``v``; ``w`` in (0, 1).

    Examples
    --------
    >>> # w = 0.5, one positive and one negative each reached with probability 1/2: the cost
    >>> # is 0.5 (1 - X) + 0.5 N, at most 0.5 when X = 1 or N = 0: probability 3/4
    >>> cost_cdf(np.array([0.5]), np.array([0.5]), np.array([0.5]), 1, 1, np.array([0.5]),
    ...          strict=False).round(12).tolist()
    [0.75]
    """
    out = np.empty(len(w))
    for k in range(len(w)):
        x = _likely_counts(m_pos, p_pos[k])
        weight = binomial_pmf(x, m_pos, p_pos[k])
        room = (v[k] - w[k] * (1 - x / m_pos)) * m_neg / (1 - w[k])
        # the largest count of N keeping the cost at most (below) v, rounding-safe
        most = np.ceil(room - 1e-9) - 1 if strict else np.floor(room + 1e-9)
        below = special.bdtr(np.clip(most, 0, m_neg), m_neg, p_neg[k])
        out[k] = np.sum(weight * np.where(most >= 0, below, 0.0))
    return np.clip(out, 0.0, 1.0)


def binomial_pmf(x: np.ndarray, m: int, p: float) -> np.ndarray:
    """``Pr{Bin(m, p) = x}``, through logarithms (no overflow at large ``m``; exact 0 and 1
    at ``p`` in {0, 1})."""
    if p <= 0 or p >= 1:
        return (x == (0 if p <= 0 else m)).astype(float)
    log = special.gammaln(m + 1) - special.gammaln(x + 1) - special.gammaln(m - x + 1)
    return np.exp(log + x * np.log(p) + (m - x) * np.log1p(-p))


def _likely_counts(m: int, p: float) -> np.ndarray:
    """The counts of ``Bin(m, p)`` whose probability can exceed :data:`TERM_FLOOR`: the mean
    -+ 9 standard deviations (and a few counts), within ``0..m``."""
    spread = 9 * np.sqrt(m * p * (1 - p)) + 10
    return np.arange(max(0, int(m * p - spread)), min(m, int(np.ceil(m * p + spread))) + 1)


def cost_covariance(w, p_pos, p_neg, m_pos: int, m_neg: int) -> np.ndarray:
    """The exact covariance of the bootstrap costs across the pairs: the counts reaching two
    thresholds are nested binomials, ``Cov(X_k, X_l) / m+^2 = p_min (1 - p_max) / m+`` (the
    smaller share is the higher threshold's)."""
    w = np.asarray(w, dtype=float)

    def nested(p: np.ndarray, m: int) -> np.ndarray:
        return np.minimum.outer(p, p) * (1 - np.maximum.outer(p, p)) / m

    return np.outer(w, w) * nested(p_pos, m_pos) + np.outer(1 - w, 1 - w) * nested(p_neg, m_neg)
