"""The formulas of rocsim's built-in interval methods, as plain functions of counts or of a
law's moments.

This module holds formulas only; what each method is (its name, pseudo-count, the designs it
needs, whether it reads as a Gaussian) is said once, in :mod:`rocsim.core.registry`, and every
dispatch table of rocsim is derived from there. Each function returns unclipped bounds.

Proportion formulas take ``(x, n, confidence_level, pseudo_count)``, paired-difference formulas
``(b, c, n, confidence_level, pseudo_count)`` (``pseudo_count`` is None for a method that takes
none), law formulas ``(law, confidence_level)`` on an exact bootstrap law (``law.mean``,
``law.var``, ``law.m_pos``, ``law.quantile(p)``). A *moment form* (:class:`MomentForm`) is an
interval of the bootstrap mean ``e`` and variance ``v`` of a rate of size ``m`` together with its
inversion, the ``e`` whose interval holds a value: the planning laws of
:mod:`rocsim.sim.vertical_law` integrate it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import special

from rocsim.core.binomial import binomial_ppf

#: Slack below each tail probability, so that a quantile the CDF reaches exactly does not move
#: up by rounding (the proportion and the laws' percentile intervals alike).
QUANTILE_SLACK = 1e-12


# --- one proportion (thesis section 4.2, Table 5.1) -------------------------------------------


def normal_quantile(confidence_level: float) -> float:
    """Two-sided normal critical value ``z_{1 - alpha/2}`` for ``alpha = 1 - level``."""
    return float(special.ndtri(0.5 + confidence_level / 2.0))


def wald_interval(x, n, level, a):
    """Wald interval, thesis eq. 4.1."""
    p = x / n
    return wald_from_moments(p, p * (1.0 - p) / n, n, level)


def wilson_interval(x, n, level, a):
    """Wilson score interval, thesis eq. 4.2 with the radicand of Algorithm 4.1 line 12."""
    z = normal_quantile(level)
    p = x / n
    z2 = z * z
    centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n)
    half = z * np.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n)) / (1.0 + z2 / n)
    # In exact arithmetic the bounds are 0 at p = 0 and 1 at p = 1; do not leave rounding noise
    return np.where(p <= 0.0, 0.0, centre - half), np.where(p >= 1.0, 1.0, centre + half)


def adjusted_wald_interval(x, n, level, a):
    """Wald after adding ``a`` successes and ``a`` failures (thesis Table 5.1).

    With ``a = z^2 / 2`` this is the Agresti-Coull interval.
    """
    return wald_interval(x + a, n + 2.0 * a, level, None)


def clopper_pearson_interval(x, n, level, a):
    """Clopper-Pearson interval from beta quantiles (exact binomial tails)."""
    tail = (1.0 - level) / 2.0
    with np.errstate(invalid="ignore"):
        low = np.where(x > 0, special.betaincinv(x, n - x + 1.0, tail), 0.0)
        high = np.where(x < n, special.betaincinv(x + 1.0, n - x, 1.0 - tail), 1.0)
    return low, high


def jeffreys_interval(x, n, level, a):
    """Jeffreys interval; bounds 0 at ``x = 0`` and 1 at ``x = n`` (Brown, Cai & DasGupta 2001)."""
    tail = (1.0 - level) / 2.0
    low = np.where(x > 0, special.betaincinv(x + 0.5, n - x + 0.5, tail), 0.0)
    high = np.where(x < n, special.betaincinv(x + 0.5, n - x + 0.5, 1.0 - tail), 1.0)
    return low, high


def binomial_percentile_interval(x, n, level, a):
    """Exact bootstrap percentile interval of the rate ``x / n``: the equal-tailed quantiles of
    ``Bin(n, x/n) / n``, the law of the rate over resamples of the ``n`` instances. Needs an
    integer ``n`` (under the full bootstrap the law of a rate is a mixture, not a binomial)."""
    n = np.asarray(n, dtype=float)
    if np.any(n != np.round(n)):
        raise ValueError(
            "the percentile interval needs whole class sizes (the stratified bootstrap); "
            "got an effective size"
        )
    tail = (1.0 - level) / 2.0
    p = np.clip(np.asarray(x, dtype=float) / n, 0.0, 1.0)
    low = binomial_ppf(tail - QUANTILE_SLACK, n, p)
    high = binomial_ppf(1.0 - tail - QUANTILE_SLACK, n, p)
    return low / n, high / n


# --- the difference of two paired proportions (eqs. 4.6-4.9, Table 5.2) ----------------------


def paired_wald_interval(b, c, n, level, a):
    """``d +- z sqrt((g - d^2)/n)``: eq. 4.7 with the variance of a multinomial difference
    (the thesis prints ``g + d^2``)."""
    d, g = (b - c) / n, (b + c) / n
    half = normal_quantile(level) * np.sqrt(np.maximum(g - d * d, 0.0) / n)
    return d - half, d + half


def paired_score_interval(b, c, n, level, a):
    """Score interval of eq. 4.8 with the smoothed nuisance ``(b + c + 2)/(n + 4)`` (eq. 4.9)."""
    z2 = normal_quantile(level) ** 2
    d = (b - c) / n
    gamma = (b + c + 2.0) / (n + 4.0)
    shrink = 1.0 + z2 / n
    half = np.sqrt(z2 * np.maximum(gamma * shrink - d * d, 0.0) / n)
    return (d - half) / shrink, (d + half) / shrink


def paired_adjusted_wald_interval(b, c, n, level, a):
    """Wald after adding ``a`` to each of the four cells of the paired 2x2 table
    (Agresti & Min 2005; thesis Table 5.2)."""
    return paired_wald_interval(b + a, c + a, n + 4.0 * a, level, None)


def bonett_price_interval(b, c, n, level, a):
    """Wald interval with the pseudo-frequencies of Bonett & Price (2012): one is added to each
    discordant cell and two to ``n``, ``p12 = (b + 1)/(n + 2)``, ``p21 = (c + 1)/(n + 2)``,
    centred on ``p12 - p21`` with variance ``(p12 + p21 - (p12 - p21)^2)/(n + 2)`` (the
    "Bonett-Price" interval of Fagerland, Lydersen & Laake 2014, their adjustment: +1 to the
    discordant cells only, not +1/2 to all four cells as in Agresti & Min).

    Centred on the shrunk ``p12 - p21``, it holds ``d`` for every table with ``n >= 1`` if and
    only if ``z^2 >= 3/2`` (confidence level above about 0.78): the condition is tightest at
    ``|b - c| = b + c = n``, where it reads ``z^2 >= (n + 2)/(n + 1)``."""
    p12, p21 = (b + 1.0) / (n + 2.0), (c + 1.0) / (n + 2.0)
    centre = p12 - p21
    half = normal_quantile(level) * np.sqrt(
        np.maximum(p12 + p21 - centre * centre, 0.0) / (n + 2.0)
    )
    return centre - half, centre + half


#: Bisection halvings for the Tango limits: a bracket of width <= 2 shrinks below 2**-53.
_TANGO_STEPS = 54


def _tango_lower(b, c, n, z):
    """Lower Tango limit: the root of ``T(delta) = z`` in ``[-1, d]``, by vectorised bisection.

    Tango's (1998) score statistic for the hypothesis ``p12 - p21 = delta`` is
    ``T = (b - c - n delta) / sqrt(n (2 q + delta (1 - delta)))``, where ``q`` is the restricted
    MLE of ``p21``, the larger root of ``A q^2 + B q + C`` with ``A = 2n``,
    ``B = -b - c + (2n - b + c) delta`` and ``C = -c delta (1 - delta)``. On ``[-1, d]`` the
    numerator is >= 0 and ``T`` falls from ``+inf`` to 0, so ``T <= z`` is tested squared,
    without a division. The bracket ``[lo, hi]`` keeps ``T(lo) > z`` and ``T(hi) <= z``
    (``hi`` starts at ``d``) and ``lo`` is returned: the limit is -1 exactly when ``c = n``
    and never exceeds ``d``. ``T`` is only evaluated strictly inside ``(-1, d)``; a variance
    rounded below zero (next to -1) counts as outside.
    """
    slope_b, minus_b0 = 2.0 * n - b + c, b + c  # B = slope_b delta - minus_b0
    lo = np.full(np.shape(b), -1.0)
    hi = (b - c) / n
    for _ in range(_TANGO_STEPS):
        mid = 0.5 * (lo + hi)
        w = mid * (1.0 - mid)
        big_b = slope_b * mid - minus_b0
        # |B| + sqrt(B^2 - 4AC) (no cancellation); q = (root - B)/(2A) cancels when B > 0,
        # where its conjugate form -2C/(root + B) is used instead
        s = np.abs(big_b) + np.sqrt(np.maximum(big_b * big_b + 8.0 * n * c * w, 0.0))
        q = np.where(big_b > 0.0, 2.0 * c * w / s, s / (4.0 * n))
        numerator = b - c - n * mid
        inside = numerator * numerator <= z * z * n * (2.0 * q + w)
        lo = np.where(inside, lo, mid)
        hi = np.where(inside, mid, hi)
    return lo


def tango_interval(b, c, n, level, a):
    """Tango's (1998) asymptotic score interval: every ``delta`` with ``|T(delta)| <= z``
    (:func:`_tango_lower`); the two limits bracket ``d`` by construction. Swapping
    ``b`` and ``c`` negates ``delta``, so the upper limit is minus the lower limit of the
    swapped table, and both come from one vectorised bisection."""
    b, c, n = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (b, c, n)))
    with np.errstate(divide="ignore", invalid="ignore"):
        limits = _tango_lower(
            np.stack([b, c]), np.stack([c, b]), np.stack([n, n]), normal_quantile(level)
        )
    return limits[0], -limits[1]


# --- exact bootstrap laws: moment forms and quantiles (Algorithm 4.3) -------------------------


def score_on_moments(e, v, m, level: float):
    """Algorithm 4.3, lines 20-21: the Gaussian score-type interval of a rate with bootstrap
    mean ``e`` and variance ``v`` and binomial size ``m``,
    ``(e + z^2/2m +- z sqrt(v + z^2/4m^2)) / (1 + z^2/m)``."""
    z = normal_quantile(level)
    centre = e + z * z / (2 * m)
    half = z * np.sqrt(v + z * z / (4 * m * m))
    return (centre - half) / (1 + z * z / m), (centre + half) / (1 + z * z / m)


def wald_from_moments(e, v, m, level: float):
    """``e +- z sqrt(v)``: the Wald interval on a bootstrap mean and variance (``m`` unused)."""
    half = normal_quantile(level) * np.sqrt(v)
    return e - half, e + half


def wald_on_moments(law, level: float):
    """:func:`wald_from_moments` on the bootstrap mean and variance of ``law`` (one
    classifier, or the difference of two; with a pseudo-count, on moments after adding it)."""
    return wald_from_moments(law.mean, law.var, None, level)


def score_on_law(law, level: float):
    """Algorithm 4.3, lines 20-21, on the exact bootstrap moments of TPR (size ``m+``)."""
    return score_on_moments(law.mean, law.var, law.m_pos, level)


def equal_tailed(law, level: float):
    """Equal-tailed quantiles ``law.quantile(p)`` of an exact law; the slack keeps a quantile
    that the CDF hits exactly from moving up by rounding."""
    tail = (1 - level) / 2
    return law.quantile(tail - QUANTILE_SLACK), law.quantile(1 - tail - QUANTILE_SLACK)


def wald_percentile_hull(law, level: float):
    """The hull of :func:`wald_on_moments` and :func:`equal_tailed` on one law: each guards
    where the other fails, Wald where the law is a near point mass at the edge of the range
    (the percentile bound then sticks to the data's count), the quantiles where the law is
    skewed (a ratio whose denominator nears 0)."""
    wald_low, wald_high = wald_on_moments(law, level)
    low, high = equal_tailed(law, level)
    return np.minimum(wald_low, low), np.maximum(wald_high, high)


def stratified_percentile(law, level: float):
    """Equal-tailed quantiles of the exact pmf (eq. 4.12), which only the stratified bootstrap
    has."""
    if law.bootstrap != "stratified":
        raise ValueError("the percentile interval needs bootstrap='stratified'")
    return equal_tailed(law, level)


def precision_score(law, level: float):
    """Algorithm 4.3, lines 20-21, on the exact moments ``e``, ``v`` of a law of precision, with
    ``m`` the law's ``score_size`` (our reading: the number of predicted positives implied by
    the mean, ``expected true positives / e``)."""
    e = law.mean
    low, high = score_on_moments(e, law.var, law.score_size, level)
    # exactly 0 and 1 at e = 0 and e = 1, as the Wilson interval: no rounding noise there
    return np.where(e <= 0.0, 0.0, low), np.where(e >= 1.0, 1.0, high)


def difference_score(law, level: float):
    """The paired score interval (eq. 4.8, nuisance smoothed as in eq. 4.9) on the bootstrap
    moments of ``TPR1 - TPR2`` (``law.discordance`` the expected share of discordant
    positives; :func:`rocsim.core.paired_vertical.vertical_difference_ci`)."""
    z, m = normal_quantile(level), law.m_pos
    gamma = (m * law.discordance + 2) / (m + 4)
    spread = law.var + (gamma * (1 + z * z / m) - law.discordance) / m
    half = z * np.sqrt(np.maximum(spread, 0.0))
    return (law.mean - half) / (1 + z * z / m), (law.mean + half) / (1 + z * z / m)


def score_holding(tau: float, c: float, m: float, z: float) -> tuple[float, float] | None:
    """The means ``e`` whose :func:`score_on_moments` interval holds ``tau`` when the variance
    is ``v = e (1 - e) / m + c``: ``|e - tau| <= sqrt(k tau (1 - tau) + z^2 c / (1 + k))``,
    ``k = z^2 / m``."""
    k = z * z / m
    half = math.sqrt(max(k * tau * (1 - tau) + z**2 * c / (1 + k), 0.0))
    return tau - half, tau + half


def wald_holding(tau: float, c: float, m: float, z: float) -> tuple[float, float] | None:
    """The means ``e`` whose :func:`wald_from_moments` interval holds ``tau`` when the variance
    is ``v = e (1 - e) / m + c``: the roots of ``(1 + k) e^2 - (2 tau + k) e + tau^2 - z^2 c``,
    ``k = z^2 / m`` (None when it has none)."""
    k = z * z / m
    qa, qb, qc = 1 + k, -(2 * tau + k), tau * tau - z**2 * c
    disc = qb * qb - 4 * qa * qc
    if disc < 0:
        return None
    root = math.sqrt(disc)
    return (-qb - root) / (2 * qa), (-qb + root) / (2 * qa)


@dataclass(frozen=True)
class MomentForm:
    """An interval built on a rate's bootstrap mean ``e`` and variance ``v`` (binomial size
    ``m``): ``bounds(e, v, m, level)``, and ``holding(tau, c, m, z)``, the ``e`` (an interval of
    the real line, or None) whose interval holds ``tau`` when ``v = e (1 - e) / m + c``."""

    bounds: Callable
    holding: Callable[[float, float, float, float], tuple[float, float] | None]

    def on_law(self, law, level: float):
        """The interval on the moments of ``law`` (size ``law.m_pos``)."""
        return self.bounds(law.mean, law.var, law.m_pos, level)


#: The two moment forms of the thesis's intervals (Algorithm 4.3).
SCORE_FORM = MomentForm(score_on_moments, score_holding)
WALD_FORM = MomentForm(wald_from_moments, wald_holding)
