"""Two classifiers scored on the same test set, threshold averaging (thesis 4.3.2).

``pos1[i]`` and ``pos2[i]`` are the two classifiers' scores of positive ``i`` (likewise for the
negatives); the stratified bootstrap resamples instances, so both scores travel together.

At a threshold pair ``(t1, t2)`` (eqs. 4.5-4.9, Algorithm 4.2) each instance of a class falls in
one of four cells: judged positive by both classifiers, by the first only (``b``), by the second
only (``c``), or by neither. The bootstrap counts of the cells are multinomial, so the difference
of the true positive rates is ``dTPR = (B - C)/m+`` with ``(B, C)`` two cells of a multinomial:
mean ``(b - c)/n+`` (eq. 4.6) and variance ``(g - d^2)/m+`` (eq. 4.7 corrected,
``g = (b + c)/n+``). Its exact law follows by conditioning on ``S = B + C ~ Bin(m+, g)``: then
``B | S ~ Bin(S, b/(b + c))``.

Vertical averaging of two classifiers is in :mod:`rocsim.core.paired_vertical`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import special

from rocsim.core._validation import (
    check_confidence_level,
    check_paired,
    check_thresholds,
    common_class_sizes,
)
from rocsim.core.binomial import binomial_pmf
from rocsim.core.counting import chain_order, decision_counts, stacked_counts
from rocsim.core.intervals import (
    check_paired_method,
    check_pseudo_count,
    paired_interval_from_counts,
)
from rocsim.core.methods import method_name
from rocsim.core.results import Result, from_law


def discordant_counts(
    scores1: np.ndarray, scores2: np.ndarray, t1: np.ndarray, t2: np.ndarray, order=None
) -> tuple[np.ndarray, np.ndarray]:
    """``(b, c)``: instances judged positive (score ``>=`` threshold) by the first classifier
    only, and by the second only, at each threshold pair (categories (a) and (b) of 4.3.2);
    ``order`` as in :func:`rocsim.core.counting.decision_counts`."""
    first, second, both = decision_counts(scores1, scores2, t1, t2, order)
    return first - both, second - both


def _split_law(b: np.ndarray, c: np.ndarray, n: int, m: int, band: bool = False):
    """Law of ``S = B + C ~ Bin(m, g)`` and the share ``theta = b / (b + c)`` of ``B`` within
    it: ``(s, Pr{S = s}, theta)``. With ``band``, ``s`` is a per-pair window of
    ``g m +- (12 sd + 30)``, outside which the binomial mass is below ``1e-30``."""
    g = (b + c) / n
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = np.where(b + c > 0, b / np.maximum(b + c, 1), 0.5)
    s = np.arange(m + 1)[None, :]
    if band:
        half = np.ceil(12 * np.sqrt(m * g * (1 - g)) + 30).astype(np.int64)
        start = np.clip(np.floor(m * g).astype(np.int64) - half, 0, m)
        s = np.minimum(start[:, None] + np.arange(2 * half.max() + 1)[None, :], m)
        # windows clipped at m repeat s = m: count it once
        first = np.diff(s, axis=1, prepend=-1) > 0
        return s, np.where(first, binomial_pmf(s, m, g[:, None]), 0.0), theta[:, None]
    return s, binomial_pmf(s, m, g[:, None]), theta[:, None]


def difference_tails(b, c, n: int, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``Pr{B - C > 0}``, ``Pr{B - C = 0}``, ``Pr{B - C < 0}`` for ``(B, C)`` two cells of a
    ``Mult(m; b/n, c/n, ...)`` (Algorithm 4.2), summing over ``S = B + C`` within the window of
    ``O(sqrt(m))`` values where its law is not negligible."""
    b, c = np.asarray(b, dtype=float), np.asarray(c, dtype=float)
    s, weight, theta = _split_law(b, c, n, m, band=True)
    # B - C = 2B - S: positive when B >= floor(S/2) + 1, zero when S is even and B = S/2
    above = special.bdtrc(s // 2, s, theta)
    tie = np.where(s % 2 == 0, binomial_pmf(s // 2, s, theta), 0.0)
    greater = np.sum(weight * above, axis=1)
    equal = np.sum(weight * tie, axis=1)
    return greater, equal, np.maximum(1.0 - greater - equal, 0.0)


def difference_pmf(b, c, n: int, m: int) -> np.ndarray:
    """``pmf[i, d + m] = Pr{B - C = d}``, ``d = -m..m``, for each pair ``(b[i], c[i])``.

    ``O(m^2)`` per pair: the sum over ``S = B + C`` of ``Bin(S; m, g) Bin((S + d)/2; S, theta)``.
    """
    b, c = np.asarray(b, dtype=float), np.asarray(c, dtype=float)
    _, weight, theta = _split_law(b, c, n, m)
    out = np.zeros((b.size, 2 * m + 1))
    for total in range(m + 1):
        first = np.arange(total + 1)
        cond = binomial_pmf(first[None, :], total, theta)
        out[:, 2 * first - total + m] += weight[:, total : total + 1] * cond
    return out


@dataclass(frozen=True, repr=False)
class ThresholdDifferenceDistribution(Result):
    """Exact stratified bootstrap law of ``dTPR = TPR1(t1) - TPR2(t2)`` and ``dFPR``.

    Attributes
    ----------
    dtpr, dfpr : ndarray
        Observed differences, also the bootstrap means (eq. 4.6).
    var_dtpr, var_dfpr : ndarray
        Bootstrap variances ``(g - d^2)/m`` (eq. 4.7 corrected).
    b_pos, c_pos, b_neg, c_neg : ndarray
        Discordant counts per class.
    """

    t1: np.ndarray
    t2: np.ndarray
    n_pos: int
    n_neg: int
    b_pos: np.ndarray
    c_pos: np.ndarray
    b_neg: np.ndarray
    c_neg: np.ndarray

    _columns = ("t1", "t2", "dtpr", "dfpr", "var_dtpr", "var_dfpr")
    _settings = ()

    def _summary(self) -> str:
        return (
            f"exact bootstrap law of (dFPR, dTPR) at {self.t1.size} threshold pairs, "
            f"n+={self.n_pos}, n-={self.n_neg}"
        )

    def ci(
        self,
        confidence_level: float = 0.95,
        method: str | Callable = "tango",
        *,
        pseudo_count: float | None = None,
    ) -> ThresholdDifferenceCI:
        """Rectangles from this law (:func:`threshold_difference_ci`), each axis at
        ``sqrt(confidence_level)``, without counting again."""
        level, method, a = threshold_difference_ci_options(confidence_level, method, pseudo_count)
        return self._interval(level, method, a)

    def _interval(
        self, level: float, method: str | Callable, a: float | None
    ) -> ThresholdDifferenceCI:
        """:meth:`ci` on a checked level, method and pseudo-count."""
        axis = float(np.sqrt(level))
        tpr = paired_interval_from_counts(self.b_pos, self.c_pos, self.n_pos, axis, method, a)
        fpr = paired_interval_from_counts(self.b_neg, self.c_neg, self.n_neg, axis, method, a)
        return ThresholdDifferenceCI(
            self,
            tpr.low,
            tpr.high,
            fpr.low,
            fpr.high,
            level,
            axis,
            method_name(method),
            tpr.clipped | fpr.clipped,
        )

    @property
    def dtpr(self) -> np.ndarray:
        return (self.b_pos - self.c_pos) / self.n_pos

    @property
    def dfpr(self) -> np.ndarray:
        return (self.b_neg - self.c_neg) / self.n_neg

    @property
    def var_dtpr(self) -> np.ndarray:
        g = (self.b_pos + self.c_pos) / self.n_pos
        return (g - self.dtpr**2) / self.n_pos

    @property
    def var_dfpr(self) -> np.ndarray:
        g = (self.b_neg + self.c_neg) / self.n_neg
        return (g - self.dfpr**2) / self.n_neg

    @cached_property
    def pmf_dtpr(self) -> np.ndarray:
        """``pmf_dtpr[i, d + m+] = Pr{dTPR = d / m+}``, ``d = -m+..m+``."""
        return difference_pmf(self.b_pos, self.c_pos, self.n_pos, self.n_pos)

    @cached_property
    def pmf_dfpr(self) -> np.ndarray:
        """``pmf_dfpr[i, d + m-] = Pr{dFPR = d / m-}``, ``d = -m-..m-``."""
        return difference_pmf(self.b_neg, self.c_neg, self.n_neg, self.n_neg)

    @cached_property
    def dominance(self) -> tuple[np.ndarray, np.ndarray]:
        """``(f1, f2)``: probabilities that classifier 1 (2) dominates the other (eq. 4.5)."""
        tp_gt, tp_eq, tp_lt = difference_tails(self.b_pos, self.c_pos, self.n_pos, self.n_pos)
        fp_gt, fp_eq, fp_lt = difference_tails(self.b_neg, self.c_neg, self.n_neg, self.n_neg)
        both_equal = tp_eq * fp_eq
        f1 = (tp_gt + tp_eq) * (fp_lt + fp_eq) - both_equal
        f2 = (tp_lt + tp_eq) * (fp_gt + fp_eq) - both_equal
        return f1, f2


def threshold_difference_distribution(
    pos1, pos2, neg1, neg2, t1, t2
) -> ThresholdDifferenceDistribution:
    """Exact stratified bootstrap law of the paired differences at threshold pairs (4.3.2).

    Parameters
    ----------
    pos1, pos2 : array-like of shape (n+,)
        Scores of the positives by classifiers 1 and 2 (``pos1[i]``, ``pos2[i]``: positive i).
    neg1, neg2 : array-like of shape (n-,)
        Scores of the negatives.
    t1, t2 : array-like of shape (h,)
        Threshold pairs: classifier 1 at ``t1[j]`` against classifier 2 at ``t2[j]``.

    Returns
    -------
    ThresholdDifferenceDistribution

    Examples
    --------
    >>> law = threshold_difference_distribution([3, 2, 1], [3, 0, 2], [0, 1], [1, 0], [2], [2])
    >>> law.dtpr.tolist(), law.pmf_dtpr.round(4).tolist()
    ([0.0], [[0.037, 0.1111, 0.2222, 0.2593, 0.2222, 0.1111, 0.037]])
    """
    pos1, pos2, neg1, neg2 = check_paired(pos1, pos2, neg1, neg2)
    t1, t2 = check_thresholds(t1, "t1"), check_thresholds(t2, "t2")
    if t1.shape != t2.shape:
        raise ValueError(f"t1 and t2 must pair up: shapes {t1.shape} and {t2.shape}")
    b_pos, c_pos = discordant_counts(pos1, pos2, t1, t2)
    b_neg, c_neg = discordant_counts(neg1, neg2, t1, t2)
    return ThresholdDifferenceDistribution(
        t1, t2, pos1.size, neg1.size, b_pos, c_pos, b_neg, c_neg
    )


def dominance_probability(pos1, pos2, neg1, neg2, t1, t2) -> tuple[np.ndarray, np.ndarray]:
    """Exact bootstrap probabilities that one classifier strictly dominates the other (eq. 4.5).

    Classifier 1 dominates at ``(t1, t2)`` when its TPR is ``>=`` and its FPR ``<=`` those of
    classifier 2, not both equal:
    ``f1 = Pr{dTPR >= 0} Pr{dFPR <= 0} - Pr{dTPR = 0} Pr{dFPR = 0}`` (the classes are resampled
    independently), and ``f2`` symmetrically. ``O(n)`` per threshold pair (Algorithm 4.2).

    Returns
    -------
    f1, f2 : ndarray of shape (h,)

    Examples
    --------
    >>> f1, f2 = dominance_probability([3, 2, 1], [3, 0, 2], [0, 1], [1, 0], [2], [2])
    >>> round(float(f1[0]), 4), round(float(f2[0]), 4)
    (0.3704, 0.3704)
    """
    return threshold_difference_distribution(pos1, pos2, neg1, neg2, t1, t2).dominance


@dataclass(frozen=True, repr=False)
class ThresholdDifferenceCI(Result):
    """Rectangles for ``(dFPR, dTPR)`` at threshold pairs; each axis at
    ``axis_level = sqrt(confidence_level)``; bounds clipped to [-1, 1] (``clipped``). The law
    ``law`` (a :class:`ThresholdDifferenceDistribution`) gives ``t1``, ``t2`` and the data's
    ``dtpr``, ``dfpr``."""

    law: ThresholdDifferenceDistribution
    dtpr_low: np.ndarray
    dtpr_high: np.ndarray
    dfpr_low: np.ndarray
    dfpr_high: np.ndarray
    confidence_level: float
    axis_level: float
    method: str
    clipped: np.ndarray

    _columns = (
        "t1",
        "t2",
        "dtpr",
        "dtpr_low",
        "dtpr_high",
        "dfpr",
        "dfpr_low",
        "dfpr_high",
        "clipped",
    )
    _settings = ("confidence_level", "axis_level", "method")
    _plot_kind = "difference"

    t1 = from_law("t1", "The first classifier's thresholds.")
    t2 = from_law("t2", "The second classifier's thresholds.")
    dtpr = from_law("dtpr", "The data's ``TPR1 - TPR2``.")
    dfpr = from_law("dfpr", "The data's ``FPR1 - FPR2``.")

    def _summary(self) -> str:
        return (
            f"(dFPR, dTPR) rectangles at {self.t1.size} threshold pairs "
            f"({self._level_and_method()}; each axis at {100 * self.axis_level:.2f}%)"
        )


def threshold_difference_ci(
    pos1,
    pos2,
    neg1,
    neg2,
    t1,
    t2,
    *,
    confidence_level: float = 0.95,
    method: str = "tango",
    pseudo_count: float | None = None,
) -> ThresholdDifferenceCI:
    """Confidence rectangles for the paired differences ``(dFPR, dTPR)`` at threshold pairs.

    Parameters
    ----------
    pos1, pos2, neg1, neg2 : array-like
        The two classifiers' scores of the same positives and negatives.
    t1, t2 : array-like of shape (h,)
        Threshold pairs.
    confidence_level : float, default 0.95
        Level of the rectangle; each axis gets ``sqrt(confidence_level)`` (thesis 4.5.2).
    method : {'tango', 'score', 'wald', 'agresti', 'bonett_price'} or callable, default 'tango'
        Paired-difference interval (see :func:`rocsim.core.paired_difference_ci`): ``tango`` is
        Tango's score interval, which always contains the observed difference; ``score`` is
        the thesis's eq. 4.8 with the nuisance of eq. 4.9; a function ``f(b, c, n,
        confidence_level) -> (low, high)`` is one of your own (:mod:`rocsim.core.methods`).
    pseudo_count : float, optional
        For ``agresti`` (Agresti-Min, default 1/2 per cell).

    Returns
    -------
    ThresholdDifferenceCI
        ``dtpr, dfpr`` and the bounds ``dtpr_low, dtpr_high, dfpr_low, dfpr_high``.

    Examples
    --------
    >>> ci = threshold_difference_ci([3, 2, 1, 5], [3, 0, 2, 4], [0, 1, 2], [1, 0, 3], [2], [2],
    ...                              confidence_level=0.9)
    >>> ci.dtpr.tolist(), ci.dfpr.round(4).tolist()
    ([0.0], [0.0])
    """
    level, method, a = threshold_difference_ci_options(confidence_level, method, pseudo_count)
    law = threshold_difference_distribution(pos1, pos2, neg1, neg2, t1, t2)
    return law._interval(level, method, a)


def threshold_difference_bounds(samples, t1, t2, level: float, method, pseudo_count):
    """``(dtpr_low, dtpr_high, dfpr_low, dfpr_high)`` of :func:`threshold_difference_ci` for
    validated inputs, one row per paired test set of ``samples`` (``(pos1, pos2, neg1,
    neg2)``, all of the same class sizes) at the validated threshold pairs ``t1, t2``, the
    options checked by :func:`threshold_difference_ci_options`. The simulation studies' path: the
    interval formulas evaluated once on every test set's discordant counts (elementwise, so
    each row as it would be alone)."""
    sizes = common_class_sizes((sample[0].size, sample[2].size) for sample in samples)
    axis, order = float(np.sqrt(level)), chain_order(t1, t2)
    bounds = []
    for k, n_class in zip((0, 2), sizes):
        counts = [discordant_counts(*sample[k : k + 2], t1, t2, order) for sample in samples]
        b, c = (stacked_counts(list(column)) for column in zip(*counts))
        ci = paired_interval_from_counts(b, c, n_class, axis, method, pseudo_count)
        bounds += [np.reshape(ci.low, (len(samples), -1)), np.reshape(ci.high, (len(samples), -1))]
    return tuple(bounds)


def threshold_difference_ci_options(confidence_level, method, pseudo_count):
    """``(level, method, pseudo_count)`` of the paired rectangles, checked once."""
    level = check_confidence_level(confidence_level)
    method = check_paired_method(method)
    return level, method, check_pseudo_count(method, pseudo_count, "paired")
