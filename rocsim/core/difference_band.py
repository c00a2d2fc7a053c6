"""A simultaneous confidence band for the true difference of two ROC curves scored on the same
instances (``compare_roc(band="simultaneous")``, vertical averaging; horizontal on the classes
exchanged): the sup-t band on the exact bootstrap moments of ``dTPR = TPR1 - TPR2``.

The band. At the FPRs ``r_i / n-``,

    mean_i -+ c sd_i,

``mean_i`` and ``sd_i`` the exact paired stratified-bootstrap moments of ``dTPR``
(:func:`rocsim.core.paired_vertical.vertical_difference`, eqs. 4.15-4.17), ``sd_i`` floored at
the standard deviation of Agresti & Min's paired difference (a pseudo-count 1/2 in each cell of
the positives' 2 x 2 table: a point where both classifiers reach TPR 1 keeps a width), widened
to Tango's score interval of the data's discordant counts at ``z = c`` (it holds the observed
difference, and a binomial pair's width where the bootstrap sees none). ``c`` is the sup-t
critical value of the curve's Gaussian law: the ``level`` quantile of ``max_i |Z_i|``, ``Z ~
N(0, R)``, integrated on the fixed normal points of :mod:`rocsim.core.copula`.

The correlation ``R`` (**approximate**). The exact law of the whole difference curve needs the
joint law of both classifiers' thresholds at every FPR at once, one resample of the negatives
read in two orders, which rocsim has no pass for. ``R`` is the large-sample one, from the
influence functions of the two empirical curves (Hsieh & Turnbull 1996): at FPR ``t`` with
threshold ``theta_k`` (the data's), a positive ``y`` moves classifier ``k``'s curve by
``1{s_k(y) >= theta_k} / n+`` and a negative ``x`` by ``-R_k'(t) 1{s_k(x) >= theta_k} / n-``
(it moves the threshold), so::

    Cov(dTPR_i, dTPR_j) ~ Cov_+(A_i, A_j) / n+ + Cov_-(B_i, B_j) / n-,
    A_i = 1{s_1 >= theta_1i} - 1{s_2 >= theta_2i},
    B_i = R_2'(t_i) 1{s_2 >= theta_2i} - R_1'(t_i) 1{s_1 >= theta_1i},

with the covariances over the data's positives and negatives, and each slope ``R_k'(t_i)`` the
one the classifier's exact vertical law implies: its threshold part ``Var q`` (eq. 4.14 read
backwards) is ``R_k'(t)^2 u (1 - u) / m-``, ``u = t / (m- + 1)``. Only the correlation is taken
from it; the variances are the exact ones. ``tests/test_difference_band.py`` measures the
critical value against one calibrated on seeded paired bootstrap curves, and the paired band
study (``rocsim study=paired_bands``) its coverage of the true difference.

References
----------
Hsieh, F. & Turnbull, B. W. (1996). Nonparametric and semiparametric estimation of the
receiver operating characteristic curve. Annals of Statistics 24(1), 25-40. Agresti, A. & Min,
Y. (2005). Simple improved confidence intervals for comparing matched proportions. Statistics
in Medicine 24(5), 729-740. Tango, T. (1998). Equivalence test and confidence interval for the
difference in proportions for the paired-sample design. Statistics in Medicine 17(8),
891-908. Montiel Olea, J. L. & Plagborg-Moller, M. (2019), for the sup-t band.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from rocsim.core.copula import GaussianCopula, correlation
from rocsim.core.counting import sorted_scores
from rocsim.core.intervals import paired_interval_from_counts
from rocsim.core.paired_vertical import VerticalDifference, vertical_difference
from rocsim.core.vertical import threshold_ranks, vertical_distribution

#: Agresti & Min's pseudo-count of each cell of the 2 x 2 table (the floor of the variance).
FLOOR_PSEUDO_COUNT = 0.5


@dataclass(frozen=True)
class DifferenceBand:
    """The band of ``TPR1 - TPR2`` at the FPRs of ``law`` (the exact paired moments): its
    bounds, critical value ``c`` and the pointwise level it amounts to."""

    law: VerticalDifference
    low: np.ndarray
    high: np.ndarray
    critical_value: float
    pointwise_level: float


def difference_band(pos1, pos2, neg1, neg2, ranks, side: str, level: float) -> DifferenceBand:
    """The simultaneous band for the true ``TPR1 - TPR2`` at FPRs ``ranks / n-`` (module
    docstring); the scores are the two classifiers' of the same positives and negatives.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> pos, neg = rng.normal(1, 1, (2, 80)), rng.normal(0, 1, (2, 80))
    >>> band = difference_band(pos[0], pos[1], neg[0], neg[1], np.array([8, 40, 72]),
    ...                        "lower", 0.95)
    >>> bool(np.all(band.low <= band.law.dtpr) and np.all(band.law.dtpr <= band.high))
    True
    """
    law = vertical_difference(pos1, pos2, neg1, neg2, ranks, side=side)
    t = threshold_ranks(np.asarray(ranks), side)
    cov = influence_covariance(pos1, pos2, neg1, neg2, t, side)
    c = GaussianCopula(correlation(cov)).sup_t(level)
    b, d = discordant_counts(pos1, pos2, neg1, neg2, t, side)
    m = law.m_pos
    sd = np.sqrt(np.maximum(law.var, agresti_min_variance(b, d, m)))
    gamma = float(2 * special.ndtr(c) - 1)
    score = paired_interval_from_counts(b, d, m, gamma, "tango", None)
    low = np.minimum(law.mean - c * sd, score.low)
    high = np.maximum(law.mean + c * sd, score.high)
    return DifferenceBand(law, np.clip(low, -1, 1), np.clip(high, -1, 1), c, gamma)


def thresholds_at(neg: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The data's threshold of rank ``t``: the ``t``-th largest negative (past the last
    negative, below every score)."""
    neg_desc = sorted_scores(neg)[::-1]
    return np.where(t <= neg.size, neg_desc[np.minimum(t, neg.size) - 1], -np.inf)


def _reach(scores: np.ndarray, theta: np.ndarray, side: str) -> np.ndarray:
    """``(len(scores), len(theta))``: 1 where a score reaches the threshold (``>=`` on the
    lower side of the vertical step, ``>`` on the upper)."""
    s = np.asarray(scores, dtype=float)[:, None]
    return (s >= theta[None, :] if side == "lower" else s > theta[None, :]).astype(float)


def discordant_counts(pos1, pos2, neg1, neg2, t, side: str) -> tuple[np.ndarray, np.ndarray]:
    """The positives reaching classifier 1's threshold but not classifier 2's (``b``) and the
    reverse (``c``), at the threshold ranks ``t``: the discordant cells of the data."""
    first = _reach(pos1, thresholds_at(neg1, t), side)
    second = _reach(pos2, thresholds_at(neg2, t), side)
    return (first * (1 - second)).sum(axis=0), ((1 - first) * second).sum(axis=0)


def agresti_min_variance(b, c, n: int, a: float = FLOOR_PSEUDO_COUNT) -> np.ndarray:
    """Agresti & Min's variance of a paired difference, ``a`` added to each cell:
    ``((b + c + 2a) / (n + 4a) - d^2) / (n + 4a)``, ``d = (b - c) / (n + 4a)``; positive."""
    size = n + 4 * a
    d = (np.asarray(b, dtype=float) - c) / size
    return ((b + c + 2 * a) / size - d * d) / size


def implied_slopes(pos, neg, r, side: str) -> np.ndarray:
    """``R'(t)`` at the FPRs ``r / n-`` that one classifier's exact vertical law implies: its
    threshold part of the variance, ``Var q = R'(t)^2 u (1 - u) / m-`` (module docstring)."""
    law = vertical_distribution(pos, neg, r, side=side)
    m_pos, m_neg = law.m_pos, neg.size
    spread = (law.var - law.mean * (1 - law.mean) / m_pos) / (1 - 1 / m_pos) if m_pos > 1 else 0
    u = threshold_ranks(np.asarray(r), side) / (m_neg + 1)
    return np.sqrt(np.clip(spread, 0.0, None) * m_neg / (u * (1 - u)))


def influence_covariance(pos1, pos2, neg1, neg2, t, side: str) -> np.ndarray:
    """The large-sample covariance of the data's ``TPR1 - TPR2`` at the threshold ranks ``t``
    from the two curves' influence functions (module docstring)."""
    r = t - (side == "upper")
    theta1, theta2 = thresholds_at(neg1, t), thresholds_at(neg2, t)
    slope1, slope2 = implied_slopes(pos1, neg1, r, side), implied_slopes(pos2, neg2, r, side)
    a = _reach(pos1, theta1, side) - _reach(pos2, theta2, side)
    b = slope2 * _reach(neg2, theta2, side) - slope1 * _reach(neg1, theta1, side)
    return _covariance(a) / a.shape[0] + _covariance(b) / b.shape[0]


def _covariance(x: np.ndarray) -> np.ndarray:
    """The covariance of the columns of ``x`` over its rows (divisor the rows)."""
    centred = x - x.mean(axis=0)
    return centred.T @ centred / x.shape[0]
