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
"""

from __future__ import annotations

import warnings

import numpy as np

from rocsim.core import _band
from rocsim.core.cost import CostCI, cost_ci
from rocsim.core.counting import count_at_or_above
from rocsim.core.curve_band import TINY, Calibration, calibrate


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

    def measure(low: np.ndarray, high: np.ndarray) -> float:
        return cost_containment(pos, neg, w, thresholds, low, high)

    calibration = calibrate(bounds_at, measure, level)
    if calibration.containment < level:
        warnings.warn(
            f"the {method} cost intervals at their widest hold the whole bootstrap cost curve "
            f"with probability {calibration.containment:.4g} only, below {level}",
            UserWarning,
            stacklevel=3,
        )
    return intervals[calibration.gamma], calibration
