"""The literature's simultaneous bands for the ROC curve, as comparators of rocsim's own
(:mod:`rocsim.core.curve_band`): each gives TPR bounds at the FPRs ``r / n-`` meant to hold the
true curve at all of them at once.

``working-hotelling`` (Ma & Hall 1993). Under the binormal model ``Phi^-1(TPR) = a +
b Phi^-1(FPR)``, a straight line in probit space, the Working-Hotelling band of a line with
asymptotically normal ``(a, b)`` is ``Phi(a + b x -+ k se(x))``, ``x = Phi^-1(FPR)``, ``se(x)^2
= Var a + x^2 Var b + 2 x Cov(a, b)`` and ``k^2`` the ``level`` quantile of chi-square with 2
degrees of freedom (``-2 log(1 - level)``). Here ``a = (mu+ - mu-) / sd+`` and ``b = sd- /
sd+`` from the classes' means and standard deviations, with their delta-method (co)variances
under normal scores: ``Var a = 1/n+ + b^2/n- + a^2/(2 n+)``, ``Var b = b^2/(2 n-) +
b^2/(2 n+)``, ``Cov(a, b) = a b / (2 n+)``. Ma & Hall's abstract: "Under the conventional
binormal model for the ROC curve, two-sided and one-sided simultaneous confidence bands for an
entire ROC curve [...] are constructed by employing Working-Hotelling-type confidence bands for
simple linear regression"; they allow any asymptotically normal estimates with a consistent
covariance (these moment estimates are one).

``ks`` (Campbell 1994: "simultaneous confidence regions [...] based on Kolmogorov-Smirnov
confidence bands for distribution functions"). If each class's empirical distribution function
is within ``c / sqrt(n)`` of the true one (a KS band for each, at level ``sqrt(level)`` so that
both hold with probability ``level``, the classes being independent), the true curve at FPR
``t`` lies between the empirical curve's bottom at ``t - c/sqrt(n-)`` less ``c/sqrt(n+)`` and
its top at ``t + c/sqrt(n-)`` plus ``c/sqrt(n+)``. ``c = sqrt(log(2 / alpha') / 2)`` with
``alpha' = 1 - sqrt(level)``, the Dvoretzky-Kiefer-Wolfowitz bound with Massart's constant:
valid at every ``n``, so the band is conservative.

``fixed-width`` (Macskassy, Provost & Rosset 2005: "The only method that attains reasonable
containment out-of-the-box produces non-parametric, 'fixed-width' bands (FWBs)"). The same
shape as ``ks`` (the curve shifted by ``c (-1/sqrt(n-), 1/sqrt(n+))`` each way), with ``c`` the
smallest width whose band holds the whole bootstrap curve with probability at least ``level``.
Macskassy et al. find ``c`` on Monte Carlo bootstrap curves; here the containment at the FPRs
of the band is :class:`rocsim.core.curve_band.ContainmentMeasure`'s (exact up to its size,
the Gaussian copula on the exact marginals beyond).

References
----------
Ma, G. & Hall, W. J. (1993). Confidence bands for receiver operating characteristic curves.
Medical Decision Making 13(3), 191-197. Campbell, G. (1994). Advances in statistical
methodology for the evaluation of diagnostic and laboratory tests. Statistics in Medicine 13,
499-508. Macskassy, S. A., Provost, F. & Rosset, S. (2005). ROC confidence bands: an empirical
evaluation. ICML 2005, 537-544. Massart, P. (1990). The tight constant in the
Dvoretzky-Kiefer-Wolfowitz inequality. Annals of Probability 18(3), 1269-1283.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from scipy import special

from rocsim.core.curve_band import (
    Calibration,
    ContainmentMeasure,
    calibrate,
    count_bounds,
    say_if_above,
)
from rocsim.core.roc import roc_curve

#: Comparator bands by name.
COMPARATOR_BANDS = ("working-hotelling", "ks", "fixed-width")


def working_hotelling_band(
    pos: np.ndarray, neg: np.ndarray, fpr: np.ndarray, level: float
) -> tuple[np.ndarray, np.ndarray]:
    """Ma & Hall's Working-Hotelling band for the binormal ROC curve at the FPRs ``fpr`` (in
    (0, 1)), from the classes' moments (module docstring).

    Examples
    --------
    >>> low, high = working_hotelling_band(np.array([1.2, 2.0, 0.4, 1.5]),
    ...                                    np.array([0.1, -0.5, 0.8, 0.0]), np.array([0.5]), 0.95)
    >>> bool(low[0] < 0.9 < high[0])
    True
    """
    n_pos, n_neg = pos.size, neg.size
    sd_pos, sd_neg = pos.std(ddof=1), neg.std(ddof=1)
    if sd_pos == 0 or sd_neg == 0:
        raise ValueError(
            "band='working-hotelling' fits a binormal curve and needs scores that vary within "
            "each class"
        )
    a = (pos.mean() - neg.mean()) / sd_pos
    b = sd_neg / sd_pos
    var_a = 1 / n_pos + b * b / n_neg + a * a / (2 * n_pos)
    var_b = b * b / (2 * n_neg) + b * b / (2 * n_pos)
    cov_ab = a * b / (2 * n_pos)
    x = special.ndtri(fpr)
    se = np.sqrt(var_a + x * x * var_b + 2 * x * cov_ab)
    k = math.sqrt(-2.0 * math.log1p(-level))  # chi-square (2 df) quantile, square-rooted
    centre = a + b * x
    return special.ndtr(centre - k * se), special.ndtr(centre + k * se)


def ks_constant(level: float) -> float:
    """``c`` of the KS band: each class's DKW band at level ``sqrt(level)``."""
    per_class = 1.0 - math.sqrt(level)
    return math.sqrt(math.log(2.0 / per_class) / 2.0)


def shifted_band(
    pos: np.ndarray, neg: np.ndarray, fpr: np.ndarray, c: float
) -> tuple[np.ndarray, np.ndarray]:
    """The empirical curve's lower envelope at ``fpr - c/sqrt(n-)`` less ``c/sqrt(n+)``, and
    its upper envelope at ``fpr + c/sqrt(n-)`` plus ``c/sqrt(n+)``, clipped to [0, 1] (the
    ``ks`` and ``fixed-width`` bands). The envelopes hold the curve however its vertices are
    joined (steps or diagonals): at FPR ``u`` it is at least the TPR of every vertex at or left
    of ``u`` and at most that of every vertex at or right of it.

    Examples
    --------
    >>> shifted_band(np.array([0.9, 0.8, 0.3]), np.array([0.7, 0.5, 0.2]), np.array([1/3]), 0.0)
    (array([0.66666667]), array([0.66666667]))
    """
    curve_fpr, curve_tpr, _ = roc_curve(pos, neg)
    shift, lift = c / math.sqrt(neg.size), c / math.sqrt(pos.size)
    # vertices nondecreasing in both rates: the last at or left of u, the first at or right
    left = np.searchsorted(curve_fpr, fpr - shift, "right") - 1
    right = np.searchsorted(curve_fpr, fpr + shift, "left")
    low = np.where(left >= 0, curve_tpr[np.maximum(left, 0)], 0.0) - lift
    high = np.where(right < curve_fpr.size, curve_tpr[np.minimum(right, curve_fpr.size - 1)], 1.0)
    return np.clip(low, 0.0, 1.0), np.clip(high + lift, 0.0, 1.0)


def fixed_width_band(
    pos: np.ndarray, neg: np.ndarray, law, level: float
) -> tuple[np.ndarray, np.ndarray, float, Calibration]:
    """The fixed-width band at the FPRs of the stratified vertical ``law`` (of ``pos``,
    ``neg``): the width ``c`` whose :func:`shifted_band` holds the whole bootstrap curve at
    those FPRs with probability at least ``level``, exactly; returns the bounds, ``c`` and the
    :class:`~rocsim.core.curve_band.Calibration`.

    The search is :func:`~rocsim.core.curve_band.calibrate`'s on an index ``gamma`` in [0, 1)
    of the widths, ``c = sqrt(-log(1 - gamma) / 2)`` (0 at ``gamma = 0``, increasing), from
    ``gamma = 0``: the smallest sufficient ``gamma`` is the narrowest sufficient width, found
    to a relative ``GAMMA_TOLERANCE`` in ``1 - gamma``.
    """
    law._require_stratified("a fixed-width band")
    measure = ContainmentMeasure(law)
    bands = {}

    def bounds_at(gamma: float) -> tuple[np.ndarray, np.ndarray]:
        c = math.sqrt(-math.log1p(-gamma) / 2.0)
        bands[gamma] = (*shifted_band(pos, neg, law.fpr, c), c)
        return count_bounds(bands[gamma][0], bands[gamma][1], law.m_pos)

    calibration = replace(calibrate(bounds_at, measure, level, start=0.0), how=measure.how)
    say_if_above(calibration.containment, level, "fixed-width")
    low, high, c = bands[calibration.gamma]
    return low, high, c, calibration
