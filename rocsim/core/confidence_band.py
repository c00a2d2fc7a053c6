"""A simultaneous confidence band for the *true* ROC curve (vertical averaging; horizontal
averaging is the same band on the classes exchanged): the sup-t band on the exact bootstrap
law, with distribution-free floors where that law cannot see.

The band. At the FPRs ``r_i / n-`` of a stratified vertical law (thesis section 4.4.1),

    mean_i -+ c sd_i                                                   (method="wald")

with ``mean_i`` the exact bootstrap mean of TPR (eq. 4.13; Algorithm 4.3 centres its interval
there too), ``sd_i`` its exact standard deviation (eq. 4.14) floored at the Wilson standard
deviation of ``m+`` draws (:func:`wilson_variance`: a point where every bootstrap curve has
the same TPR, such as TPR = 1 at a high FPR, keeps the width of a binomial count instead of
none), and ``c`` the smallest critical value at which the whole bootstrap curve lies in the
band with probability at least the level: the sup-t band (Montiel Olea & Plagborg-Moller
2019), its ``c`` calibrated on the law of the whole curve. That probability is
:class:`rocsim.core.curve_band.ContainmentMeasure`'s: exact (the forward pass over the
negatives) up to its size, the Gaussian copula on the exact marginal laws beyond
(:mod:`rocsim.core.copula`; the result says which). ``method="score"`` widens each point's
interval to the score-type interval of Algorithm 4.3 (lines 20-21) at ``z = c`` as well,
asymmetric near 0 and 1.

Floors. At the lowest ranks (``r <= FLOOR_RANKS``) the threshold is an extreme order statistic
of the negatives, whose spread a bootstrap of the data under-reads where the curve bends: no
resampled threshold rises above the data's largest negative. There the band also holds the
distribution-free bounds of :func:`order_statistic_bounds` (the fact rocci's Beta floor uses:
the true FPR of the ``j``-th largest of ``n-`` continuous negatives is ``Beta(j, n- + 1 - j)``
whatever their law).

Monotone. The true curve is non-decreasing, so the lower bound at an FPR can be raised to the
largest lower bound at or left of it, and the upper bound lowered to the smallest at or right
of it: every non-decreasing curve inside the band stays inside, the bootstrap curves included,
so the containment does not change.

``docs/bands_study.md`` gives the band's coverage of the true curve, measured by the band
studies (``rocsim study=bands_small_n``, ``bands``).

References
----------
Montiel Olea, J. L. & Plagborg-Moller, M. (2019). Simultaneous confidence bands: theory,
implementation, and an application to SVARs. Journal of Applied Econometrics 34(1), 1-17.
David, H. A. & Nagaraja, H. N. (2003). Order Statistics, 3rd ed. Wiley (section 2.2: the
law of a uniform order statistic). Wilson, E. B. (1927). Probable inference, the law of
succession, and statistical inference. JASA 22(158), 209-212.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import special

from rocsim.core.curve_band import ContainmentMeasure, calibrate, count_bounds
from rocsim.core.formulas import normal_quantile
from rocsim.core.vertical import VerticalCI

#: Pointwise shapes of the band for the true curve: each point's interval at the common
#: critical value ``c``.
CONFIDENCE_BAND_METHODS = ("wald", "score")
#: Ranks (the ``r`` of FPR ``r / n-``) up to which the order-statistic floors apply.
FLOOR_RANKS = 10
#: The calibration starts from the Gaussian sup-t critical value on this many of the copula's
#: points (a first guess only: the search then brackets the law's own).
GUESS_DRAWS = 2**12


@dataclass(frozen=True)
class BandCalibration:
    """How a band for the true curve was calibrated: its critical value ``c``, the pointwise
    level it amounts to (``2 Phi(c) - 1``), the share of bootstrap curves the sup-t band at
    ``c`` holds (``calibrated``, the first step at or above the level) and the returned band
    holds (``containment``: more, where the band is wider than the bootstrap sees), how
    those shares were computed (``how``: ``"exact"`` or ``"gaussian copula"``), and the FPRs
    where the order-statistic floors widened it."""

    critical_value: float
    pointwise_level: float
    calibrated: float
    containment: float
    how: str
    floored: np.ndarray


def confidence_band(
    law, n_pos: int, level: float, method: str
) -> tuple[VerticalCI, BandCalibration]:
    """The simultaneous band for the true curve at the FPRs of the stratified vertical ``law``
    (module docstring), at family level ``level``, of ``method`` (one of
    :data:`CONFIDENCE_BAND_METHODS`); ``n_pos`` is the data's count of positives (of the class
    whose rate the law gives). Returns the intervals (a
    :class:`~rocsim.core.vertical.VerticalCI` at the pointwise level of ``c``) and the
    :class:`BandCalibration`.

    Examples
    --------
    >>> from rocsim.core.vertical import vertical_distribution
    >>> rng = np.random.default_rng(0)
    >>> pos, neg = rng.normal(1, 1, 60), rng.normal(0, 1, 60)
    >>> law = vertical_distribution(pos, neg, [6, 18, 30, 42, 54])
    >>> ci, calibration = confidence_band(law, 60, 0.95, "wald")
    >>> bool(calibration.containment >= 0.95), calibration.how
    (True, 'exact')
    """
    law._require_stratified("a simultaneous band")
    measure = ContainmentMeasure(law)
    m = law.m_pos
    sd = np.sqrt(np.maximum(law.var, wilson_variance(law.mean, m, level)))

    def wald_at(gamma: float) -> tuple[np.ndarray, np.ndarray]:
        c = normal_quantile(gamma)
        return law.mean - c * sd, law.mean + c * sd

    # start from the Gaussian sup-t critical value of the curve's correlation: the law's own
    # is near it (heavier tailed where the law is lumpy)
    rough = measure.copula.sup_t(level, np.sqrt(law.var) / sd, draws=GUESS_DRAWS)
    guess = 2 * special.ndtr(rough) - 1
    calibration = calibrate(lambda g: count_bounds(*wald_at(g), m), measure, level, guess=guess)
    gamma, c = calibration.gamma, normal_quantile(calibration.gamma)
    if calibration.containment < level:
        warnings.warn(
            f"the widest band tried (critical value {c:.3g}) holds the whole bootstrap curve "
            f"with probability {calibration.containment:.4g} only, below {level}",
            UserWarning,
            stacklevel=3,
        )
    low, high = wald_at(gamma)
    # a binomial count's own uncertainty at c: where the bootstrap law has (almost) no
    # spread, as at TPR = 1, Wilson's interval at z = c still has width (about c^2 / n+)
    low = np.minimum(low, wilson_bound(law.tpr, n_pos, c, upper=False))
    high = np.maximum(high, wilson_bound(law.tpr, n_pos, c, upper=True))
    if method == "score":
        score_low, score_high = score_interval(law.mean, law.var, m, c)
        low, high = np.minimum(low, score_low), np.maximum(high, score_high)
    floor, ceiling = order_statistic_bounds(law._rates, law.r, n_pos, (1 - level) / 4)
    floored = (floor < low) | (ceiling > high)
    low, high = monotone(np.minimum(low, floor), np.maximum(high, ceiling), law.r)
    low, high = np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
    held = measure(*count_bounds(low, high, m))
    ci = VerticalCI.from_bounds(law, low, high, gamma, method)
    return ci, BandCalibration(c, gamma, calibration.containment, held, measure.how, floored)


def wilson_variance(p: np.ndarray, m: int, level: float) -> np.ndarray:
    """The squared half-width of Wilson's interval for a proportion ``p`` of ``m`` draws at
    ``level``, over ``z^2``: ``(p (1 - p) / m + z^2 / (4 m^2)) / (1 + z^2 / m)^2``, positive
    at ``p = 0`` and 1 (the floor of the band's variance; rocci floors its studentization the
    same way)."""
    z = normal_quantile(level)
    p = np.asarray(p, dtype=float)
    return (p * (1 - p) / m + z * z / (4 * m * m)) / (1 + z * z / m) ** 2


def score_interval(mean, var, m: int, z: float) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 4.3, lines 20-21, at the critical value ``z``: ``(mean + z^2/2m -+
    z sqrt(var + z^2/4m^2)) / (1 + z^2/m)``."""
    centre = mean + z * z / (2 * m)
    half = z * np.sqrt(var + z * z / (4 * m * m))
    return (centre - half) / (1 + z * z / m), (centre + half) / (1 + z * z / m)


def wilson_bound(p, n: int, z: float, upper: bool) -> np.ndarray:
    """Wilson's one-sided bound for a proportion ``p`` of ``n`` at the normal quantile
    ``z``."""
    p = np.asarray(p, dtype=float)
    centre = p + z * z / (2 * n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre + half if upper else centre - half) / (1 + z * z / n)


def order_statistic_bounds(
    rates: np.ndarray, r: np.ndarray, n_pos: int, a: float
) -> tuple[np.ndarray, np.ndarray]:
    """Distribution-free bounds of the true TPR at FPR ``t = r / n-`` for the ranks ``r <=
    FLOOR_RANKS`` (elsewhere ``(inf, -inf)``: no bound). ``rates[j - 1]``: the data's share
    of positives reaching the ``j``-th largest negative ``s_j``.

    For continuous scores the true FPR ``U_j`` of ``s_j`` is ``Beta(j, n- + 1 - j)`` (David &
    Nagaraja 2003, 2.2), whatever the scores' law. Where its ``1 - a`` quantile is at most
    ``t`` (the largest such ``j``), ``U_j <= t`` with probability at least ``1 - a``, and the
    curve, being non-decreasing, is at ``t`` at least its value at ``U_j``, the true share of
    positives reaching ``s_j``, itself at least Wilson's lower bound on the data's share (at
    ``a`` too): the floor. The ceiling is the same on the other side (the smallest ``j`` whose
    ``a`` quantile is at least ``t``; Wilson's upper bound). With no such ``j`` the floor is 0
    and the ceiling 1. Ties among the negatives make ``U_j`` smaller, so the floor errs on the
    safe side.
    """
    rates = np.asarray(rates, dtype=float)
    n_neg = rates.size
    z = special.ndtri(1 - a)
    floor, ceiling = np.full(r.size, np.inf), np.full(r.size, -np.inf)
    for i, rank in enumerate(np.asarray(r)):
        if rank > FLOOR_RANKS:
            continue
        t = rank / n_neg
        j = np.arange(1, min(n_neg, 3 * rank + 50) + 1)
        last_below = np.flatnonzero(special.betaincinv(j, n_neg + 1 - j, 1 - a) <= t)
        floor[i] = (
            wilson_bound(rates[last_below[-1]], n_pos, z, upper=False) if last_below.size else 0
        )
        first_above = np.flatnonzero(special.betaincinv(j, n_neg + 1 - j, a) >= t)
        ceiling[i] = (
            wilson_bound(rates[first_above[0]], n_pos, z, upper=True) if first_above.size else 1
        )
    return floor, ceiling


def monotone(low: np.ndarray, high: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The band's bounds tightened by the curve's monotonicity along the ranks ``r`` (any
    order, repeats allowed): each lower bound raised to the largest at or left of it, each
    upper bound lowered to the smallest at or right of it."""
    order = np.argsort(r, kind="stable")
    tight_low, tight_high = np.empty_like(low), np.empty_like(high)
    tight_low[order] = np.maximum.accumulate(low[order])
    tight_high[order] = np.minimum.accumulate(high[order][::-1])[::-1]
    return tight_low, tight_high
