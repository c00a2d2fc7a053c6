"""The interval methods of one AUC, the pivots of :func:`rocsim.core.area.auc_ci`
(registered in :mod:`rocsim.core.registry`).

Every method is a pivot ``z(theta)``, decreasing in the candidate AUC ``theta``; the interval
is the set of ``theta`` the test does not reject (``|z| <= z_(1 - alpha/2)``, or one side at
``z_(1 - alpha)``) and the p-value that test's normal tail at the null, so that the two agree
by construction for every method and every alternative.

``delong``, ``exact_bootstrap``
    Wald: ``z = (auc - theta) / sd`` with DeLong's variance or the exact stratified-bootstrap
    variance (:mod:`rocsim.core.area`), clipped to [0, 1]. Exact here is the variance: the
    AUC's bootstrap law itself is not normal.
``hanley_mcneil``
    Wald with Hanley & McNeil's (1982) variance, ``(A (1 - A) + (n+ - 1)(Q1 - A^2) +
    (n- - 1)(Q2 - A^2)) / (n+ n-)``, ``Q1 = A / (2 - A)``, ``Q2 = 2 A^2 / (1 + A)`` (the
    exponential model's).
``logit``
    DeLong's variance on the logit scale (the delta method): ``z = (logit auc - logit theta)
    auc (1 - auc) / sd``; its bounds stay inside (0, 1) (Pepe 2003, section 5.2).
``newcombe``
    Newcombe's (2006) score-type interval: ``z = (auc - theta) / sqrt(V(theta))`` with the
    variance evaluated at the candidate ``theta``, ``V(theta) = theta (1 - theta) / (n+ n-)
    ((2N - 1) - (3N - 3) / ((2 - theta)(1 + theta)))``, ``N = (n+ + n-) / 2`` (Hanley and
    McNeil's with both sizes replaced by their mean). At ``auc = 1`` its lower bound stays
    below 1, where the Wald intervals collapse to ``[1, 1]``.

``mover`` (the paired difference ``auc1 - auc2``, :func:`mover_interval`)
    Zou & Donner's (2008) method of variance estimates recovery: each AUC's score interval
    on its DeLong variance carried to the candidate AUC by the shape of Newcombe's
    (:func:`rescaled_newcombe_var`), combined with DeLong's correlation of the two AUCs. An
    approximation, as every method here; its coverage of the true difference is measured by
    the ``auc_paired`` study.

References
----------
Hanley, J. A. & McNeil, B. J. (1982). The meaning and use of the area under a receiver
operating characteristic (ROC) curve. Radiology 143, 29-36.
Newcombe, R. G. (2006). Confidence intervals for an effect size measure based on the
Mann-Whitney statistic. Part 2: asymptotic methods and evaluation. Statistics in Medicine 25,
559-573.
Dowell, M. & Jarratt, P. (1971). A modified regula falsi method for computing the root of an
equation. BIT 11, 168-174.
Zou, G. Y. & Donner, A. (2008). Construction of confidence limits about effect measures: a
general approach. Statistics in Medicine 27, 1693-1702 (the MOVER).
Pepe, M. S. (2003). The Statistical Evaluation of Medical Tests for Classification and
Prediction. Oxford University Press.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import special


@dataclass(frozen=True)
class AUCData:
    """What an AUC interval method sees: the AUC, the class sizes and ``variance(name)``,
    the AUC's ``delong`` or ``exact_bootstrap`` variance (computed when a method asks)."""

    auc: float
    n_pos: int
    n_neg: int
    variance: Callable[[str], float]


@dataclass(frozen=True)
class AUCDifferenceData:
    """What a method of the user's own for ``auc1 - auc2`` sees: both AUCs, their
    ``difference``, the class sizes and ``variance(name)``, the difference's ``delong`` or
    ``exact_bootstrap`` variance (computed when the method asks)."""

    difference: float
    auc1: float
    auc2: float
    n_pos: int
    n_neg: int
    variance: Callable[[str], float]


@dataclass(frozen=True)
class Pivot:
    """``z(theta)``, decreasing in ``theta``, and the variance the method reports. ``z`` is
    None for a Wald interval (``z = (auc - theta) / sqrt(var)``, solved in closed form by
    :class:`rocsim.core.area.Hypothesis`, which also tests a sure AUC, ``var = 0``)."""

    var: float
    z: Callable[[float], float] | None = None


def hanley_mcneil_var(auc: float, n_pos: int, n_neg: int) -> float:
    """Hanley & McNeil's (1982) variance of the AUC (their exponential model's ``Q1``,
    ``Q2``)."""
    q1, q2 = auc / (2 - auc), 2 * auc * auc / (1 + auc)
    return (auc * (1 - auc) + (n_pos - 1) * (q1 - auc**2) + (n_neg - 1) * (q2 - auc**2)) / (
        n_pos * n_neg
    )


def newcombe_var(theta: float, n_pos: int, n_neg: int) -> float:
    """Newcombe's (2006) variance at the AUC ``theta`` (module docstring)."""
    half = (n_pos + n_neg) / 2
    spread = (2 * half - 1) - (3 * half - 3) / ((2 - theta) * (1 + theta))
    return theta * (1 - theta) / (n_pos * n_neg) * spread


def logit_pivot(data: AUCData) -> Pivot:
    """DeLong's variance on the logit scale (the delta method; Pepe 2003, section 5.2)."""
    var = data.variance("delong")
    sd = float(np.sqrt(var))
    auc = data.auc
    if sd == 0.0 or auc in (0.0, 1.0):  # no logit scale at the ends: a sure AUC
        return Pivot(0.0)
    scale = auc * (1 - auc) / sd

    def z(theta: float) -> float:
        if theta <= 0.0 or theta >= 1.0:
            return np.inf if theta <= 0.0 else -np.inf
        return (special.logit(auc) - special.logit(theta)) * scale

    return Pivot(var, z)


def _score(auc: float, var_at: Callable[[float], float]) -> Callable[[float], float]:
    """The score-type pivot ``z(theta) = (auc - theta) / sqrt(var_at(theta))``."""

    def z(theta: float) -> float:
        var = var_at(theta)
        if var <= 0.0:  # theta at 0 or 1: only an AUC there is not rejected
            return 0.0 if theta == auc else (np.inf if theta < auc else -np.inf)
        return (auc - theta) / np.sqrt(var)

    return z


def newcombe_pivot(data: AUCData) -> Pivot:
    """Newcombe's (2006) score-type pivot, the variance at the candidate AUC."""

    def var_at(theta: float) -> float:
        return newcombe_var(theta, data.n_pos, data.n_neg)

    return Pivot(var_at(data.auc), _score(data.auc, var_at))


def rescaled_newcombe_var(theta: float, var: float, auc: float, n_pos: int, n_neg: int) -> float:
    """``var`` (an AUC's estimated variance, DeLong's) carried to the candidate AUC ``theta``
    by the shape of Newcombe's variance, ``var V(theta) / V(auc)``; Newcombe's own where
    ``var`` or ``V(auc)`` is 0 (an AUC of 0 or 1)."""
    shape = newcombe_var(auc, n_pos, n_neg)
    if var > 0.0 and shape > 0.0:
        return var * newcombe_var(theta, n_pos, n_neg) / shape
    return newcombe_var(theta, n_pos, n_neg)


def rescaled_score_bounds(
    auc: float, var: float, n_pos: int, n_neg: int, critical: float
) -> tuple[float, float]:
    """The score interval of one AUC on :func:`rescaled_newcombe_var` where ``|z|`` stays
    within ``critical``: the MOVER's component (:func:`mover_bounds`)."""
    z = _score(auc, lambda theta: rescaled_newcombe_var(theta, var, auc, n_pos, n_neg))
    return _crossing(z, critical, 0.0, auc), _crossing(z, -critical, auc, 1.0)


def delong_pivot(data: AUCData) -> Pivot:
    """Wald on DeLong et al.'s (1988) variance."""
    return Pivot(data.variance("delong"))


def exact_bootstrap_pivot(data: AUCData) -> Pivot:
    """Wald on the exact stratified-bootstrap variance of the AUC."""
    return Pivot(data.variance("exact_bootstrap"))


def hanley_mcneil_pivot(data: AUCData) -> Pivot:
    """Wald on Hanley & McNeil's (1982) variance (:func:`hanley_mcneil_var`)."""
    return Pivot(hanley_mcneil_var(data.auc, data.n_pos, data.n_neg))


def pivot_interval(
    pivot: Pivot,
    estimate: float,
    level: float,
    alternative: str,
    lower: float = 0.0,
    upper: float = 1.0,
) -> tuple[float, float]:
    """The values in ``[lower, upper]`` (an AUC's [0, 1], a difference's [-1, 1]) that the
    pivot's test does not reject at ``1 - level``: where ``z`` crosses the critical value on
    each side of the estimate (:func:`bisect_root`), or the end of the range where it does
    not."""
    if alternative == "two-sided":
        critical = float(special.ndtri(0.5 + level / 2))
    else:
        critical = float(special.ndtri(level))
    low = lower if alternative == "less" else _crossing(pivot.z, critical, lower, estimate)
    high = upper if alternative == "greater" else _crossing(pivot.z, -critical, estimate, upper)
    return low, high


def _crossing(z: Callable[[float], float], level: float, a: float, b: float) -> float:
    """Where the decreasing ``z`` falls to ``level`` in ``[a, b]`` (``a`` if below there
    already, ``b`` if not yet)."""
    if z(a) <= level:
        return a
    if z(b) >= level:
        return b
    return bisect_root(lambda t: z(t) - level, a, b)


#: :func:`bisect_root` stops when its bracket is narrower than this, relative (absolute
#: near 0): a few units in the last place of the bounds.
ROOT_TOLERANCE = 1e-15


def bisect_root(f: Callable[[float], float], a: float, b: float) -> float:
    """The root of the monotone ``f`` in ``[a, b]`` (``f(a)`` and ``f(b)`` of opposite signs),
    to :data:`ROOT_TOLERANCE`: regula falsi with the Illinois modification (Dowell & Jarratt
    1971), a bisection step wherever the secant leaves the bracket (an infinite ``f`` at an
    end), so about ten evaluations of the pivots here, and no ``scipy.optimize`` to import
    (0.4 s, which the first call of the default AUC interval would pay)."""
    fa, fb = f(a), f(b)
    kept = 0  # which end the last two steps kept: the Illinois halving of its value
    for _ in range(MAX_ROOT_STEPS):
        if b - a <= ROOT_TOLERANCE * max(1.0, abs(a), abs(b)):
            break
        c = (a * fb - b * fa) / (fb - fa) if np.isfinite(fa) and np.isfinite(fb) else np.nan
        if not a < c < b:
            c = 0.5 * (a + b)
            if c in (a, b):  # adjacent floats
                break
        fc = f(c)
        if fc == 0:
            return c
        if (fc < 0) == (fa < 0):
            a, fa = c, fc
            fb = fb / 2 if kept == 1 else fb
            kept = 1
        else:
            b, fb = c, fc
            fa = fa / 2 if kept == -1 else fa
            kept = -1
    return 0.5 * (a + b)


#: Most steps of :func:`bisect_root` (bisection alone needs about 60 for a bracket of [0, 1]).
MAX_ROOT_STEPS = 200


def pivot_p_value(pivot: Pivot, null: float, alternative: str) -> float:
    """The normal tail of ``z(null)`` against ``alternative``."""
    z = pivot.z(null)
    if alternative == "greater":
        return float(special.ndtr(-z))
    if alternative == "less":
        return float(special.ndtr(z))
    return float(2 * special.ndtr(-abs(z)))


@dataclass(frozen=True)
class PairedAUCs:
    """What the MOVER interval of ``auc1 - auc2`` sees: both AUCs, their DeLong variances and
    covariance, and the class sizes."""

    auc1: float
    auc2: float
    var1: float
    var2: float
    cov: float
    n_pos: int
    n_neg: int

    @property
    def correlation(self) -> float:
        """DeLong's correlation of the two AUCs (0 where either variance is 0)."""
        scale = np.sqrt(self.var1 * self.var2)
        return float(np.clip(self.cov / scale, -1.0, 1.0)) if scale > 0 else 0.0


def mover_bounds(data: PairedAUCs, critical: float) -> tuple[float, float]:
    """The two-sided MOVER interval of ``auc1 - auc2`` at the normal critical value
    ``critical`` (Zou & Donner 2008, with the correlation ``r`` of the two AUCs): each AUC's
    own score interval ``[l_k, u_k]`` (:func:`rescaled_score_bounds`) recovers the variance
    on each side::

        L = d - sqrt((a1 - l1)^2 + (u2 - a2)^2 - 2 r (a1 - l1)(u2 - a2)),
        U = d + sqrt((u1 - a1)^2 + (a2 - l2)^2 - 2 r (u1 - a1)(a2 - l2)),

    clipped to [-1, 1]."""
    a1, a2, r = data.auc1, data.auc2, data.correlation
    l1, u1 = rescaled_score_bounds(a1, data.var1, data.n_pos, data.n_neg, critical)
    l2, u2 = rescaled_score_bounds(a2, data.var2, data.n_pos, data.n_neg, critical)
    down = (a1 - l1) ** 2 + (u2 - a2) ** 2 - 2 * r * (a1 - l1) * (u2 - a2)
    up = (u1 - a1) ** 2 + (a2 - l2) ** 2 - 2 * r * (u1 - a1) * (a2 - l2)
    d = a1 - a2
    return max(d - np.sqrt(max(down, 0.0)), -1.0), min(d + np.sqrt(max(up, 0.0)), 1.0)


def mover_interval(data: PairedAUCs, level: float, alternative: str) -> tuple[float, float]:
    """:func:`mover_bounds` at ``level``, or one of them at twice the alpha for a one-sided
    ``alternative`` (the other bound -1 or 1)."""
    if alternative == "two-sided":
        return mover_bounds(data, float(special.ndtri(0.5 + level / 2)))
    low, high = mover_bounds(data, float(special.ndtri(level)))
    return (low, 1.0) if alternative == "greater" else (-1.0, high)


#: The largest normal critical value the p-value's inversion of the interval looks at (a
#: two-sided p-value of 1e-300).
WIDEST_CRITICAL = 37.0


def mover_p_value(data: PairedAUCs, null: float, alternative: str) -> float:
    """The p-value that inverts :func:`mover_interval` (:func:`inverted_p_value`)."""
    return inverted_p_value(
        lambda critical: mover_bounds(data, critical), data.auc1 - data.auc2, null, alternative
    )


def inverted_p_value(
    bounds_at: Callable[[float], tuple[float, float]],
    estimate: float,
    null: float,
    alternative: str,
    critical_of: Callable[[float], float] = float,
) -> float:
    """The p-value of an interval ``bounds_at(critical)`` that has no test of its own (the
    MOVER's): the normal tail of the ``z`` at which the bound moving towards ``null`` reaches
    it (:func:`bisect_root`), the interval's critical value being ``critical_of(z)`` (``z``
    itself unless given: a Student t interval's maps the normal quantile to t's), so that
    ``p < 1 - level`` exactly when ``null`` lies outside the interval at ``level``; 0 if it
    stays outside up to :data:`WIDEST_CRITICAL`. One-sided: half the two-sided tail on the
    tested side."""
    if null == estimate:
        return 1.0 if alternative == "two-sided" else 0.5
    side = 0 if null < estimate else 1  # the bound that moves towards the null

    def gap(z: float) -> float:
        return bounds_at(critical_of(z))[side] - null

    if (gap(WIDEST_CRITICAL) > 0) == (side == 0):  # outside at every level
        tail = 0.0
    else:
        tail = float(special.ndtr(-bisect_root(gap, 0.0, WIDEST_CRITICAL)))
    if alternative == "two-sided":
        return 2 * tail
    towards = (side == 0) == (alternative == "greater")  # the null on the tested side
    return tail if towards else 1 - tail
