"""A simultaneous band for the ROC curve, calibrated on the exact bootstrap law of the whole
curve (vertical averaging, stratified bootstrap).

Containment. At the threshold ranks ``t_1 < ... < t_k`` (the ``t``-th largest resampled
negative is the threshold; :func:`rocsim.core.vertical.threshold_ranks`) a band gives each
point an interval ``[low_i, high_i]`` of TPR, i.e. of the resampled positives' count ``X_i``
(``ceil(m+ low_i) <= X_i <= floor(m+ high_i)``). Write the negatives' resample as ``m-``
uniforms in the cells of the sorted negatives and walk the cells in order (highest score
first). After cell ``c`` the state is ``(N, X)``: ``N`` resampled negatives in cells ``1..c``,
``X`` resampled positives scoring at least cell ``c``'s negative (strictly above, on the upper
side). Both are Markov along the cells and independent of each other (the classes are
resampled apart): ``X`` grows by ``Bin(m+ - X, (q_c - q_{c-1}) / (1 - q_{c-1}))``, ``N`` by
``Bin(m- - N, 1 / (n- - c + 1))``. Rank ``t_i``'s threshold lies in the cell where ``N``
first reaches ``t_i``, and the count there is that cell's ``X``: a path stays inside the band
when every such ``X`` is within its bounds. The forward pass over the cells
(:func:`rocsim.core._band.band_containment`, compiled) carries the joint law of ``(N, X)``
and drops the paths that leave, so the mass left at the end is the exact probability that the
bootstrap curve lies wholly inside the band (binomial terms and states below :data:`TINY` left
out). Its cost is the cells times the likely ``(N, X)`` pairs of each cell times the likely
moves of each: about quadratic in ``n`` (the pairs grow with ``sqrt(n+) sqrt(n-)``, the cells with
``n-``), and each calibration runs it some twenty times.

Calibration (``band="simultaneous"``). The band is the method's pointwise intervals at a common
pointwise level ``gamma``, the smallest (to a relative ``1e-2`` in ``1 - gamma``) whose
containment reaches the level: containment only changes where a bound crosses a count, so the
reached containment is the first step at or above the level. The search brackets the level by
tenfold steps of ``1 - gamma``, then narrows the bracket by regula falsi on ``-log(1 - gamma)``
(Illinois), about half the evaluations of a bisection.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from rocsim.core import _band
from rocsim.core.curve_covariance import rate_runs
from rocsim.core.methods import method_name
from rocsim.core.vertical import threshold_ranks

#: Binomial terms and states below this are left out of the forward pass (each at most this
#: much probability; the tests check the containment to 1e-12 against every resample).
TINY = 1e-22
#: Stop refining ``1 - gamma`` when the bracket is this narrow relative to it.
GAMMA_TOLERANCE = 1e-2
#: The smallest ``1 - gamma`` tried (the largest level :func:`check_confidence_level` takes).
LEAST_MISS = 1e-9


def count_bounds(low: np.ndarray, high: np.ndarray, m_pos: int) -> tuple[np.ndarray, np.ndarray]:
    """The counts ``X`` with ``low <= X / m+ <= high`` (rounding-safe)."""
    lo = np.ceil(np.asarray(low) * m_pos - 1e-9).astype(np.int64)
    hi = np.floor(np.asarray(high) * m_pos + 1e-9).astype(np.int64)
    return lo, hi


def containment(
    rates: np.ndarray, t: np.ndarray, lo: np.ndarray, hi: np.ndarray, m_neg: int, m_pos: int
) -> float:
    """Probability that the stratified bootstrap's counts ``X_i`` at the threshold ranks ``t``
    all lie in ``[lo_i, hi_i]`` (module docstring). ``rates``: the data's shares of positives
    reaching each sorted negative on the side of the ranks."""
    order = np.argsort(t, kind="stable")
    t, lo, hi = (np.ascontiguousarray(a[order], dtype=np.int64) for a in (t, lo, hi))
    x = np.arange(m_pos + 1)[:, None]
    bad = (x < lo[None, :]) | (x > hi[None, :])
    next_bad = _next_true(bad)
    values, lengths = rate_runs(rates)
    return float(_band.band_containment(values, lengths, m_neg, m_pos, t, next_bad, TINY))


def _next_true(mask: np.ndarray) -> np.ndarray:
    """``out[x, i]``: the first column ``>= i`` where ``mask[x]`` is true (``k`` if none), for
    ``i = 0..k``."""
    rows, k = mask.shape
    out = np.full((rows, k + 1), k, dtype=np.int64)
    for i in range(k - 1, -1, -1):
        out[:, i] = np.where(mask[:, i], i, out[:, i + 1])
    return out


@dataclass(frozen=True)
class Calibration:
    """The common pointwise level ``gamma`` of a simultaneous band and the exact bootstrap
    containment it reaches (and the containment one step narrower: ``below``)."""

    gamma: float
    containment: float
    below: float
    evaluations: int


def simultaneous_ci(law, level: float, method) -> tuple[object, Calibration]:
    """The band of ``method``'s pointwise intervals of the stratified vertical ``law`` (a
    :class:`~rocsim.core.vertical.VerticalDistribution`) at the common level calibrated so
    that the whole bootstrap curve lies inside with probability at least ``level``; the
    :class:`~rocsim.core.vertical.VerticalCI` at that level and the :class:`Calibration`."""
    law._require_stratified("a simultaneous band")
    t = threshold_ranks(law.r, law.side)
    m_neg = law._rates.size

    intervals = {}  # gamma -> the method's intervals there (the band returns one of them)

    def bounds_at(gamma: float) -> tuple[np.ndarray, np.ndarray]:
        intervals[gamma] = ci = law.ci(gamma, method)
        return count_bounds(ci.low, ci.high, law.m_pos)

    calibration = calibrate(bounds_at, vertical_measure(law._rates, t, m_neg, law.m_pos), level)
    if calibration.containment < level:
        warnings.warn(
            f"the {method_name(method)} intervals at their widest (level {calibration.gamma}) "
            f"hold the whole bootstrap curve with probability {calibration.containment:.4g} "
            f"only, below {level}: some bound never reaches a count the law gives weight to "
            "(e.g. TPR = 1 at a high FPR); method='percentile' reaches any level",
            UserWarning,
            stacklevel=3,
        )
    return intervals[calibration.gamma], calibration


def vertical_measure(rates, t, m_neg: int, m_pos: int):
    """The :func:`containment` of count bounds ``(lo, hi)`` at the threshold ranks ``t``."""

    def measure(lo: np.ndarray, hi: np.ndarray) -> float:
        return containment(rates, t, lo, hi, m_neg, m_pos)

    return measure


def calibrate(bounds_at, measure, level: float, start: float | None = None) -> Calibration:
    """The smallest pointwise level ``gamma >= start`` (default ``level``) whose band
    (``bounds_at(gamma)`` gives its bounds, ``measure(lo, hi)`` the probability that the
    bootstrap curve lies inside them) holds the whole bootstrap curve with probability at
    least ``level``; ``gamma`` may also index another family of nested bands
    (:func:`rocsim.core.band_comparators.fixed_width_band`), and the curve be another
    (:mod:`rocsim.core.cost_band`)."""
    start = level if start is None else start
    seen: dict[bytes, float] = {}

    def reached(gamma: float) -> float:
        lo, hi = bounds_at(gamma)
        key = lo.tobytes() + hi.tobytes()  # the same bounds: the same containment
        if key not in seen:
            seen[key] = measure(lo, hi)
        return seen[key]

    evaluations = 1
    low_gamma, low_value = start, reached(start)
    if low_value >= level:
        return Calibration(start, low_value, low_value, evaluations)
    # widen (1 - gamma) by factors of 10 until the band holds enough, up to the largest level
    # an interval takes
    miss = 1.0 - start
    while True:
        miss = max(miss / 10, LEAST_MISS)
        high_gamma = 1.0 - miss
        high_value = reached(high_gamma)
        evaluations += 1
        if high_value >= level:
            break
        if miss == LEAST_MISS:  # the method's widest band still loses some curves
            return Calibration(high_gamma, high_value, high_value, evaluations)
        low_gamma, low_value = high_gamma, high_value
    # on u = -log(1 - gamma), where the containment grows smoothly but for the count steps:
    # regula falsi (Illinois), each new point where the line through the bracket's ends
    # reaches the level, kept inside the middle four fifths of the bracket
    low_u, high_u = -math.log1p(-low_gamma), -math.log1p(-high_gamma)
    low_f, high_f = low_value - level, high_value - level
    side = 0
    while high_u - low_u > GAMMA_TOLERANCE:
        share = -low_f / (high_f - low_f) if high_f > low_f else 0.5
        u = low_u + min(max(share, 0.1), 0.9) * (high_u - low_u)
        middle = -math.expm1(-u)
        value = reached(middle)
        evaluations += 1
        if value >= level:
            high_u, high_gamma, high_value, high_f = u, middle, value, value - level
            low_f = low_f / 2 if side == 1 else low_f  # Illinois: the end kept twice, halved
            side = 1
        else:
            low_u, low_gamma, low_value, low_f = u, middle, value, value - level
            high_f = high_f / 2 if side == -1 else high_f
            side = -1
    return Calibration(high_gamma, high_value, low_value, evaluations)
