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

Size. The pass keeps two ``(m- + 1) x (m+ + 1)`` grids and its time grows about as ``m+ m-``,
so :class:`ContainmentMeasure` runs it only up to :data:`EXACT_CELLS` grid cells; beyond, the
containment is the Gaussian copula's on the exact marginal laws (:mod:`rocsim.core.copula`),
with the exact covariance across the FPRs up to :data:`EXACT_COVARIANCE_NEGATIVES` negatives
and its Brownian-bridge approximation beyond
(:func:`rocsim.core.curve_covariance.bridge_covariance`). Each result says which it used.

Calibration (``band="bootstrap-containment"``). The band is the method's pointwise intervals at
a common pointwise level ``gamma``, the smallest (to a relative ``1e-2`` in ``1 - gamma``)
whose containment reaches the level: containment only changes where a bound crosses a count,
so the reached containment is the first step at or above the level. The search brackets the
level by tenfold steps of ``1 - gamma``, then narrows the bracket by regula falsi on
``-log(1 - gamma)`` (Illinois), about half the evaluations of a bisection. This band holds
``level`` of the *bootstrap* curves; the band for the true curve is
:mod:`rocsim.core.confidence_band`'s.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, replace

import numpy as np

from rocsim.core import _band
from rocsim.core.copula import GaussianCopula, correlation, lattice_probabilities
from rocsim.core.curve_covariance import bridge_covariance, rate_runs
from rocsim.core.methods import method_name
from rocsim.core.vertical import threshold_ranks

#: Binomial terms and states below this are left out of the forward pass (each at most this
#: much probability; the tests check the containment to 1e-12 against every resample).
TINY = 1e-22
#: Stop refining ``1 - gamma`` when the bracket is this narrow relative to it.
GAMMA_TOLERANCE = 1e-2
#: The smallest ``1 - gamma`` tried (the largest level :func:`check_confidence_level` takes).
LEAST_MISS = 1e-9
#: The exact pass runs up to this many cells of its ``(m- + 1) x (m+ + 1)`` grids (a few
#: milliseconds a pass, about 100 per class); larger curves use the Gaussian copula on the
#: exact marginals.
EXACT_CELLS = 2**14
#: The exact passes refuse grids of more cells than this (two of them, 8 bytes a cell: 1 GiB).
PASS_CELLS_LIMIT = 2**26
#: A band holding more than this above its level of the bootstrap curves says so
#: (:class:`ContainmentWarning`).
OVERSHOOT = 0.01
#: The copula takes the exact covariance across FPRs up to this many resampled negatives
#: (its pass grows as ``k m-^1.5``), the Brownian-bridge approximation beyond.
EXACT_COVARIANCE_NEGATIVES = 500


class ContainmentWarning(UserWarning):
    """A whole-curve band holds more of the bootstrap curves than the level asked (by more
    than :data:`OVERSHOOT`): the bootstrap law's steps leave no narrower band of its kind."""


def say_if_above(containment: float, level: float, band: str) -> None:
    """A :class:`ContainmentWarning` when ``containment`` exceeds ``level`` by more than
    :data:`OVERSHOOT`."""
    if containment > level + OVERSHOOT:
        warnings.warn(
            f"the {band} band holds {containment:.4g} of the bootstrap curves, above the "
            f"{level:g} asked: the bootstrap law puts much weight on single counts (a TPR near "
            "0 or 1, small classes), so no narrower band of its kind reaches the level",
            ContainmentWarning,
            stacklevel=6,  # the user's call of roc_ci
        )


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
    check_pass_size(m_neg, m_pos)
    order = np.argsort(t, kind="stable")
    t, lo, hi = (np.ascontiguousarray(a[order], dtype=np.int64) for a in (t, lo, hi))
    x = np.arange(m_pos + 1)[:, None]
    bad = (x < lo[None, :]) | (x > hi[None, :])
    next_bad = _next_true(bad)
    values, lengths = rate_runs(rates)
    return float(_band.band_containment(values, lengths, m_neg, m_pos, t, next_bad, TINY))


def check_pass_size(m_neg: int, m_pos: int) -> None:
    """A ``ValueError`` before an exact pass whose two ``(m- + 1) x (m+ + 1)`` grids would
    exceed :data:`PASS_CELLS_LIMIT` cells, naming what computes the containment instead."""
    cells = (m_neg + 1) * (m_pos + 1)
    if cells > PASS_CELLS_LIMIT:
        raise ValueError(
            f"the exact containment pass needs two {m_neg + 1} x {m_pos + 1} grids "
            f"({2 * 8 * cells / 2**30:.3g} GiB); beyond {PASS_CELLS_LIMIT} cells use "
            "ContainmentMeasure (or roc_ci / cost_curve_ci's bands), whose Gaussian copula on "
            "the exact marginals runs at any size"
        )


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
    """The common pointwise level ``gamma`` of a whole-curve band and the bootstrap
    containment it reaches (and the containment one step narrower: ``below``); ``how`` it
    was computed (``"exact"``, ``"gaussian copula"``)."""

    gamma: float
    containment: float
    below: float
    evaluations: int
    how: str = "exact"


def bootstrap_containment_ci(law, level: float, method) -> tuple[object, Calibration]:
    """The band of ``method``'s pointwise intervals of the stratified vertical ``law`` (a
    :class:`~rocsim.core.vertical.VerticalDistribution`) at the common level calibrated so
    that the whole *bootstrap* curve lies inside with probability at least ``level``; the
    :class:`~rocsim.core.vertical.VerticalCI` at that level and the :class:`Calibration`."""
    law._require_stratified("a whole-curve band")
    measure = ContainmentMeasure(law)
    intervals = {}  # gamma -> the method's intervals there (the band returns one of them)

    def bounds_at(gamma: float) -> tuple[np.ndarray, np.ndarray]:
        intervals[gamma] = ci = law.ci(gamma, method)
        return count_bounds(ci.low, ci.high, law.m_pos)

    calibration = calibrate(bounds_at, measure, level)
    calibration = replace(calibration, how=measure.how)
    say_if_above(calibration.containment, level, "bootstrap-containment")
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


class ContainmentMeasure:
    """The probability that the whole stratified bootstrap curve of the vertical ``law`` lies
    within count bounds ``(lo, hi)`` at its FPRs: :func:`containment`'s exact pass up to
    :data:`EXACT_CELLS`, the Gaussian copula on the exact marginals beyond (module
    docstring); ``how`` says which (``"exact"`` or ``"gaussian copula"``)."""

    def __init__(self, law):
        law._require_stratified("the containment of whole bootstrap curves")
        self.law = law
        self._m_neg, self._m_pos = law._rates.size, law.m_pos
        self.exact = (self._m_neg + 1) * (self._m_pos + 1) <= EXACT_CELLS
        self.how = "exact" if self.exact else "gaussian copula"
        self._t = threshold_ranks(law.r, law.side)
        self._copula: GaussianCopula | None = None
        self._cdf: dict[tuple[int, int], float] = {}  # (point, count) -> F

    def __call__(self, lo: np.ndarray, hi: np.ndarray) -> float:
        if self.exact:
            return containment(self.law._rates, self._t, lo, hi, self._m_neg, self._m_pos)
        below, upto = lattice_probabilities(self.cdf, lo, hi, self._m_pos)
        return self.copula.inside(below, upto)

    def cdf(self, x: np.ndarray) -> np.ndarray:
        """The law's :meth:`~rocsim.core.vertical.VerticalDistribution.cdf` at one rate per
        point (on its lattice ``l / m+``), remembered: a calibration moves a few points'
        bounds at a time, and only those points' mixtures are summed again."""
        counts = np.rint(np.asarray(x) * self._m_pos).astype(np.int64)
        keys = list(enumerate(counts.tolist()))
        new = np.array([key not in self._cdf for key in keys])
        if new.any():
            middle = new & (counts >= 0) & (counts < self._m_pos)
            values = self.law._mixture.cdf(np.clip(counts, 0, self._m_pos), middle)
            values = np.where(counts >= self._m_pos, 1.0, np.where(middle, values, 0.0))
            for i in np.flatnonzero(new):
                self._cdf[keys[i]] = float(values[i])
        return np.array([self._cdf[key] for key in keys])

    @property
    def copula(self) -> GaussianCopula:
        if self._copula is None:
            law = self.law
            if self._m_neg <= EXACT_COVARIANCE_NEGATIVES:
                cov = law.cov
            else:
                cov = bridge_covariance(self._t, self._m_neg, law.m_pos, law.mean, law.var)
            self._copula = GaussianCopula(correlation(cov))
        return self._copula


def calibrate(
    bounds_at, measure, level: float, start: float | None = None, guess: float | None = None
) -> Calibration:
    """The smallest pointwise level ``gamma >= start`` (default ``level``) whose band
    (``bounds_at(gamma)`` gives its bounds, ``measure(lo, hi)`` the probability that the
    bootstrap curve lies inside them) holds the whole bootstrap curve with probability at
    least ``level``; ``gamma`` may also index another family of nested bands
    (:func:`rocsim.core.band_comparators.fixed_width_band`), and the curve be another
    (:mod:`rocsim.core.cost_band`). ``guess``: a level near the answer (a Gaussian
    critical value's), where the search brackets it in small steps instead of from
    ``start`` in tenfold ones."""
    start = level if start is None else start
    seen: dict[bytes, float] = {}

    def reached(gamma: float) -> float:
        lo, hi = bounds_at(gamma)
        key = lo.tobytes() + hi.tobytes()  # the same bounds: the same containment
        if key not in seen:
            seen[key] = measure(lo, hi)
        return seen[key]

    if guess is not None and guess > start:
        bracket = _bracket_near(reached, level, start, guess)
    else:
        bracket = _bracket_from(reached, level, start)
    if isinstance(bracket, Calibration):
        return replace(bracket, evaluations=len(seen))
    (low_gamma, low_value), (high_gamma, high_value) = bracket
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
        if value >= level:
            high_u, high_gamma, high_value, high_f = u, middle, value, value - level
            low_f = low_f / 2 if side == 1 else low_f  # Illinois: the end kept twice, halved
            side = 1
        else:
            low_u, low_gamma, low_value, low_f = u, middle, value, value - level
            high_f = high_f / 2 if side == -1 else high_f
            side = -1
    return Calibration(high_gamma, high_value, low_value, len(seen))


#: :func:`calibrate`'s first step from a guess, on ``u = -log(1 - gamma)`` (doubled while the
#: level stays on the same side).
GUESS_STEP = 0.25


def _bracket_from(reached, level: float, start: float):
    """``((gamma, value) below the level, (gamma, value) at or above it)`` by tenfold steps of
    ``1 - gamma`` from ``start``; a :class:`Calibration` when ``start`` holds enough already
    or the widest band does not."""
    low = (start, reached(start))
    if low[1] >= level:
        return Calibration(start, low[1], low[1], 0)
    miss = 1.0 - start
    while True:
        miss = max(miss / 10, LEAST_MISS)
        high = (1.0 - miss, reached(1.0 - miss))
        if high[1] >= level:
            return low, high
        if miss == LEAST_MISS:  # the method's widest band still loses some curves
            return Calibration(high[0], high[1], high[1], 0)
        low = high


def _bracket_near(reached, level: float, start: float, guess: float):
    """:func:`_bracket_from`'s bracket, found in small steps of ``u = -log(1 - gamma)`` on
    either side of ``guess``."""
    u_start, u_most = -math.log1p(-start), -math.log(LEAST_MISS)
    u, step = min(-math.log1p(-guess), u_most), GUESS_STEP
    at = (guess, reached(-math.expm1(-u)))
    if at[1] >= level:  # step down until below the level
        high = at
        while True:
            u = max(u - step, u_start)
            gamma = start if u == u_start else -math.expm1(-u)
            low = (gamma, reached(gamma))
            if low[1] < level:
                return low, high
            if u == u_start:
                return Calibration(start, low[1], low[1], 0)
            high, step = low, 2 * step
    low = at
    while True:  # step up until the band holds enough
        u = min(u + step, u_most)
        high = (-math.expm1(-u), reached(-math.expm1(-u)))
        if high[1] >= level:
            return low, high
        if u == u_most:
            return Calibration(high[0], high[1], high[1], 0)
        low, step = high, 2 * step
