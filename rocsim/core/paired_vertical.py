"""Two classifiers scored on the same test set, vertical averaging (thesis 4.4.2).

The stratified bootstrap law of ``dTPR = TPR1 - TPR2`` at FPR ``r/n-`` (eqs. 4.15-4.17,
Algorithm 4.4): its mean and variance for any ``n`` (:func:`vertical_difference`), its exact
pmf for small ``n``, and Gaussian intervals on those moments (:func:`vertical_difference_ci`).
The joint law of the two thresholds is in :mod:`rocsim.core.joint_thresholds`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from rocsim.core._validation import check_choice, check_confidence_level, check_paired
from rocsim.core.joint_thresholds import JointThresholdLaw
from rocsim.core.methods import PROBE_LEVEL, MethodProtocol, call_method, check_method, method_name
from rocsim.core.paired_threshold import difference_pmf
from rocsim.core.registry import formulas
from rocsim.core.results import Interval, Result, from_law
from rocsim.core.vertical import (
    SIDES,
    check_ranks,
    stratified_vertical_law,
    threshold_ranks,
)

#: ``auto`` and ``exact`` are the same (exact) algorithm; ``auto`` is kept for callers that name
#: the default.
VERTICAL_DIFFERENCE_ALGORITHMS = ("auto", "exact")


@dataclass(frozen=True, repr=False)
class VerticalDifference(Result):
    """Stratified bootstrap moments of ``dTPR = TPR1 - TPR2`` at the FPRs ``r / m-``.

    Attributes
    ----------
    r, fpr : ndarray
    dtpr : ndarray
        The data's ``TPR1 - TPR2`` at each FPR (on ``side`` of each curve's vertical step).
    mean, var : ndarray
        ``E[dTPR]`` (exact for every algorithm) and ``Var[dTPR]``.
    discordance : ndarray
        ``E[g]``, the bootstrap mean share of positives on which the classifiers disagree.
    m_pos : int
    algorithm : str
        ``exact``.
    side : {"lower", "upper"}
    """

    r: np.ndarray
    fpr: np.ndarray
    dtpr: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    discordance: np.ndarray
    m_pos: int
    algorithm: str
    side: str = "lower"
    _pmf: np.ndarray | None = None

    _columns = ("r", "fpr", "dtpr", "mean", "var", "discordance")
    _settings = ("algorithm", "side")

    def _summary(self) -> str:
        return (
            f"bootstrap law of TPR1 - TPR2 at {self.r.size} FPRs, {self.algorithm} "
            f"algorithm, {self.side} side, m+={self.m_pos}"
        )

    @property
    def pmf(self) -> np.ndarray:
        """``pmf[i, d + m+] = Pr{dTPR = d / m+}`` (eq. 4.17; when requested)."""
        if self._pmf is None:
            raise NotImplementedError(
                "the pmf of dTPR is computed only by vertical_difference(..., pmf=True)"
            )
        return self._pmf

    def ci(
        self, confidence_level: float = 0.95, method: str | Callable = "score"
    ) -> VerticalDifferenceCI:
        """Pointwise intervals of ``dTPR`` from these moments (:func:`vertical_difference_ci`),
        without computing them again."""
        level, method = _check_interval(confidence_level, method)
        return self._interval(level, method)

    def _interval(self, level: float, method: str | Callable) -> VerticalDifferenceCI:
        """:meth:`ci` on a checked level and method."""
        low, high = call_method(method, VERTICAL_DIFFERENCE_METHODS, self, level)
        return VerticalDifferenceCI.from_bounds(self, low, high, level, method_name(method))


def vertical_difference(
    pos1,
    pos2,
    neg1,
    neg2,
    r,
    *,
    algorithm: str = "auto",
    side: str = "lower",
    pmf: bool = False,
) -> VerticalDifference:
    """Stratified bootstrap law of ``dTPR = TPR1 - TPR2`` at FPR ``r / n-`` (Algorithm 4.4).

    In a resample, ``T1`` and ``T2`` are the ``r``-th largest resampled negative scores under
    each classifier (the same resampled negatives). Given the thresholds, ``dTPR`` is a paired
    multinomial difference with conditional mean ``q1 - q2`` and variance
    ``(q1 + q2 - 2 q12 - (q1 - q2)^2)/m+``, where ``q1``, ``q2`` are the shares of positives
    reaching ``T1``, ``T2`` and ``q12`` the share reaching both. Hence

    - ``E[dTPR] = E[q1(T1)] - E[q2(T2)]`` needs only each threshold's own law (eq. 4.11);
    - ``Var[dTPR] = Var[TPR1] + Var[TPR2] - 2 Cov``, with the single-design variances
      (eqs. 4.13-4.14) and ``Cov = (1 - 1/m+) E[q1 q2] + E[q12]/m+ - E[q1] E[q2]``, summed as
      ``(1 - 1/m+) Cov(q1, q2) + (E[q12] - E[q1] E[q2])/m+`` with ``Cov(q1, q2)`` summed
      centred (below): at high FPRs ``E[q1 q2]`` and ``E[q1] E[q2]`` are both near 1.

    The two joint expectations need the joint law of the thresholds only through
    ``L(a, b) = Pr{T1 <= x, T2 <= y} = Pr{N_A <= r - 1, N_B <= r - 1}`` with ``A``, ``B`` the
    negatives scoring above ``x`` (classifier 1) and ``y`` (classifier 2): it depends on
    ``|A|, |B|, |A & B|`` only (:ref:`reading-paired-vertical`). By summation by parts
    ``E[q12] = (1/n+) sum_i L(a_i, b_i)`` and ``E[q1 q2] = (1/n+^2) sum_{i,l} L(a_i, b_l)``, where
    ``a_i`` (``b_i``) counts the negatives scoring strictly above positive ``i`` under classifier
    1 (2). Likewise ``Cov(q1, q2) = (1/n+^2) sum_{i,l} (L(a_i, b_l) - F_A F_B)``, with the
    marginals ``F_A = Pr{N_A <= r - 1}``, ``F_B = Pr{N_B <= r - 1}``. Only distinct values of
    ``a`` and ``b`` are visited, and only where both marginals are in ``(1e-15, 1 - 1e-15)``
    (the band of width ``O(sqrt(n))`` around ``r``); elsewhere ``L`` is 0 or a marginal, and
    ``L - F_A F_B`` within ``1e-15`` of 0.

    ``L`` is evaluated exactly by the Lancaster expansion of the bivariate binomial
    (:func:`rocsim.core.joint_thresholds.lancaster_below`): per pair a polynomial in the
    multinomial correlation of ``(N_A, N_B)`` with Krawtchouk coefficients, summed by Horner's
    rule to the degree where a bound on the terms left out says that they change the FPR's
    weighted sum ``Cov(q1, q2)`` by at most :data:`rocsim.core.joint_thresholds.TOLERANCE` (and
    each ``L``, hence ``E[q12]``, by at most :data:`~rocsim.core.joint_thresholds.PAIR_SLACK`
    times that), in one compiled pass per FPR over its block of pairs (``h`` FPRs, ``w``
    values of ``a`` and ``b`` in the band, ``d`` degrees per pair, more as the two rankings
    agree): ``O(h (n- + w^2 d))``; the thesis's Algorithm 4.4 is ``O(n^4)`` per FPR.

    Parameters
    ----------
    pos1, pos2, neg1, neg2 : array-like
        ``pos1[i]``, ``pos2[i]``: the two classifiers' scores of positive ``i``.
    r : array-like of int
        FPR ranks, ``1 <= r <= n- - 1``.
    algorithm : {"auto", "exact"}, default "auto"
        Both name the exact algorithm.
    side : {"lower", "upper"}, default "lower"
        Which end of each curve's vertical step (:func:`rocsim.core.vertical_distribution`).
        ``upper``: the thresholds are the ``(r + 1)``-th largest resampled negatives and a
        positive counts when it scores strictly above its threshold, so ``a_i`` counts the
        negatives scoring at or above positive ``i``; the rest is unchanged.
    pmf : bool, default False
        Also compute the exact pmf (``O(n^4)`` per FPR).

    Returns
    -------
    VerticalDifference
        ``mean``, ``var`` (and ``pmf`` when requested).

    References
    ----------
    Gadoury (2009), section 4.4.2, eqs. 4.15-4.17, Algorithm 4.4.

    Examples
    --------
    >>> law = vertical_difference([3, 2, 1, 5], [3, 0, 2, 4], [0, 1, 2], [1, 0, 3], [1, 2])
    >>> law.algorithm, law.mean.round(4).tolist()
    ('exact', [0.2407, 0.1852])
    """
    pos1, pos2, neg1, neg2 = check_paired(pos1, pos2, neg1, neg2)
    check_choice(algorithm, VERTICAL_DIFFERENCE_ALGORITHMS, "vertical difference algorithm")
    check_choice(side, SIDES, "side")
    ranks = check_ranks(r, neg1.size)
    n_pos, n_neg = pos1.size, neg1.size
    algorithm = "exact"
    threshold_rank = threshold_ranks(ranks, side)
    first, second = _ranking(pos1, neg1, side), _ranking(pos2, neg2, side)
    # each classifier's own law from the counts of its ranking (one sort per classifier)
    law1 = stratified_vertical_law(first.rates(), ranks, n_pos, side)
    law2 = stratified_vertical_law(second.rates(), ranks, n_pos, side)
    joint, weights, pairs, counts = _joint_law(first, second, threshold_rank)
    centred, joint12 = joint.moments(*weights, pairs)
    mean1, mean2 = law1.mean, law2.mean
    exact_pmf = (
        _exact_pmf(*counts, joint.order1_rank2, threshold_rank, n_pos, n_neg) if pmf else None
    )
    # (1 - 1/m+) E[q1 q2] + E[q12]/m+ - E[q1] E[q2], with E[q1 q2] - E[q1] E[q2] summed
    # centred (it is small where both are near 1; their difference would lose its digits)
    cov = (1 - 1 / n_pos) * centred + (joint12 - mean1 * mean2) / n_pos
    var = np.maximum(law1.var + law2.var - 2 * cov, 0.0)
    discordance = mean1 + mean2 - 2 * joint12
    return VerticalDifference(
        ranks,
        ranks / n_neg,
        law1.tpr - law2.tpr,
        mean1 - mean2,
        var,
        discordance,
        n_pos,
        algorithm,
        side,
        exact_pmf,
    )


def joint_threshold_law(pos1, pos2, neg1, neg2, threshold_rank, side: str):
    """The joint law of the two thresholds (:class:`JointThresholdLaw`) at ``threshold_rank``
    for validated paired scores, with what :func:`vertical_difference` weighs it by:
    ``(weights, pairs, counts)``, the shares of positives at each distinct ``a`` and ``b``, each
    positive's pair of indices into them, and each positive's ``(a_i, b_i)``."""
    return _joint_law(_ranking(pos1, neg1, side), _ranking(pos2, neg2, side), threshold_rank)


class _Ranking(NamedTuple):
    """One classifier's ranking of the negatives and, per positive, how many are above it."""

    #: the negatives, best first. The order within tied scores is immaterial: every count
    #: below is taken at the edge of a tie (``a_i``, ``b_i`` count the scores above a value),
    #: so the overlaps ``|A_a & B_b|`` and the correlations do not depend on it (the exact
    #: pmf splits a tie's mass by it, and sums the tie whole)
    order: np.ndarray
    #: ``a_i``: the negatives scoring strictly above positive ``i`` (lower side; at or above
    #: it, upper side), so that ``{T <= pos[i]} = {N_A <= r - 1}`` with ``|A| = a_i``
    above: np.ndarray
    #: ``np.bincount(above, minlength=n- + 1)``
    histogram: np.ndarray

    def rates(self) -> np.ndarray:
        """The data's :func:`rocsim.core.vertical.rates_at_ranks`: positive ``i`` reaches the
        ``c``-th largest negative iff ``a_i <= c - 1``, so the shares are the cumulated
        histogram (the same integers, so the same floats)."""
        return np.cumsum(self.histogram)[:-1] / self.above.size


def _ranking(pos: np.ndarray, neg: np.ndarray, side: str) -> _Ranking:
    n_neg = neg.size
    order = np.argsort(-neg)
    # counted for the positives in ascending order, which np.searchsorted walks in one sweep
    # (looked up in their own order, each key is a bisection with unpredictable branches)
    ascending = np.argsort(pos)
    not_above = np.searchsorted(
        neg[order[::-1]], pos[ascending], side="right" if side == "lower" else "left"
    )
    above = np.empty(pos.size, dtype=np.int64)
    above[ascending] = n_neg - not_above
    return _Ranking(order, above, np.bincount(above, minlength=n_neg + 1))


def _joint_law(first: _Ranking, second: _Ranking, threshold_rank: np.ndarray):
    """:func:`joint_threshold_law` from the two rankings."""
    n_pos, n_neg = first.above.size, first.order.size
    rank2 = np.empty(n_neg, dtype=np.int64)
    rank2[second.order] = np.arange(n_neg)
    a_values, b_values = np.flatnonzero(first.histogram), np.flatnonzero(second.histogram)
    law = JointThresholdLaw(n_neg, a_values, b_values, rank2[first.order], threshold_rank)
    weights = (first.histogram[a_values] / n_pos, second.histogram[b_values] / n_pos)
    pairs = (
        _positions(a_values, n_neg)[first.above],
        _positions(b_values, n_neg)[second.above],
    )
    return law, weights, pairs, (first.above, second.above)


def _positions(distinct: np.ndarray, most: int) -> np.ndarray:
    """``out[v]`` = the position of ``v`` in the sorted ``distinct`` integers of ``0 .. most``
    (a table: what ``np.searchsorted`` would find, without a search per value)."""
    out = np.full(most + 1, -1, dtype=np.int64)
    out[distinct] = np.arange(distinct.size)
    return out


@dataclass(frozen=True, repr=False)
class VerticalDifferenceCI(Interval):
    """Pointwise intervals for ``dTPR = TPR1 - TPR2`` at the FPRs ``r / m-``: the moments
    ``law`` (a :class:`VerticalDifference`) and the bounds, clipped to [-1, 1].

    ``r``, ``fpr``, ``dtpr`` (the data's difference), ``mean``, ``var``, ``algorithm`` (of
    :func:`vertical_difference`, which gave the moments) and ``side`` are read from the law.
    """

    r = from_law("r", "FPR ranks.")
    fpr = from_law("fpr", "FPRs ``r / m-``.")
    dtpr = from_law("dtpr", "The data's ``TPR1 - TPR2``.")
    mean = from_law("mean", "Exact bootstrap mean of ``dTPR``.")
    var = from_law("var", "Exact bootstrap variance of ``dTPR``.")
    algorithm = from_law("algorithm")
    side = from_law("side")

    _range = (-1.0, 1.0)
    _columns = ("r", "fpr", "dtpr", "mean", "var", "low", "high", "clipped")
    _settings = ("confidence_level", "method", "algorithm", "side")
    _plot_kind = "difference"

    def _summary(self) -> str:
        return (
            f"TPR1 - TPR2 at {self.r.size} FPRs, vertical averaging, {self.side} side, "
            f"{self.algorithm} ({self._level_and_method()})"
        )


def vertical_difference_ci(
    pos1,
    pos2,
    neg1,
    neg2,
    r,
    *,
    confidence_level: float = 0.95,
    method: str | Callable = "score",
    algorithm: str = "auto",
    side: str = "lower",
) -> VerticalDifferenceCI:
    """Confidence intervals for ``TPR1 - TPR2`` at FPR ``r / m-`` from the exact bootstrap moments.

    With ``e``, ``v`` the bootstrap mean and variance of :func:`vertical_difference`:

    - ``wald``: ``e +- z sqrt(v)``;
    - ``score``: the paired score interval (eq. 4.8, nuisance smoothed as in eq. 4.9) with the
      bootstrap variance in place of the multinomial one:
      ``(e +- z sqrt(v + (gamma (1 + z^2/m+) - E[g]) / m+)) / (1 + z^2 / m+)``, where ``E[g]``
      is the expected share of discordant positives and ``gamma = (m+ E[g] + 2)/(m+ + 4)`` its
      smoothed value (``v`` contains ``E[g]/m+``; the smoothing swaps it for ``gamma/m+``).
      This is our reading: the thesis gives eq. 4.8 for fixed thresholds and the Gaussian
      interval of Algorithm 4.4 without a formula; when the thresholds are sure it reduces to
      :func:`rocsim.core.paired_difference_ci` (``method="score"``).

    Parameters
    ----------
    pos1, pos2, neg1, neg2 : array-like
        Paired scores, as in :func:`vertical_difference`.
    r : array-like of int
        FPR ranks, ``1 <= r <= n- - 1``.
    confidence_level : float, default 0.95
    method : {"score", "wald"} or callable, default "score"
        A callable is a vertical method ``f(law, confidence_level) -> (low, high)`` on the
        :class:`VerticalDifference` law (:mod:`rocsim.core.methods`).
    algorithm : {"auto", "exact"}, default "auto"
        Passed to :func:`vertical_difference`.
    side : {"lower", "upper"}, default "lower"
        Passed to :func:`vertical_difference`.

    Returns
    -------
    VerticalDifferenceCI

    Examples
    --------
    >>> ci = vertical_difference_ci(
    ...     [3, 2, 1, 5], [3, 0, 2, 4], [0, 1, 2], [1, 0, 3], [1], confidence_level=0.9
    ... )
    >>> ci.mean.round(4).tolist(), ci.low.round(3).tolist(), ci.high.round(3).tolist()
    ([0.2407], [-0.227], [0.514])
    """
    level, method = _check_interval(confidence_level, method)
    law = vertical_difference(pos1, pos2, neg1, neg2, r, algorithm=algorithm, side=side)
    return law._interval(level, method)


def _check_interval(confidence_level, method) -> tuple[float, str | Callable]:
    """The level and the method of ``dTPR``'s intervals, checked once."""
    level = check_confidence_level(confidence_level)
    method = check_method(
        method,
        VERTICAL_DIFFERENCE_METHODS,
        VERTICAL_DIFFERENCE_PROTOCOL,
        "vertical difference interval method",
    )
    return level, method


#: Method name -> interval ``(law, confidence_level) -> (low, high)`` on the bootstrap moments
#: of ``dTPR`` (:mod:`rocsim.core.registry`, kind ``vertical_difference``); a user's function
#: with this signature works the same.
VERTICAL_DIFFERENCE_METHODS: dict[str, Callable] = formulas("vertical_difference")


def _difference_probe():
    law = vertical_difference([3, 2, 1, 5], [3, 0, 2, 4], [0, 1, 2], [1, 0, 3], [1, 2])
    return (law, PROBE_LEVEL), (2,)


#: How a method for ``TPR1 - TPR2`` at fixed FPRs is called: on the exact moments.
VERTICAL_DIFFERENCE_PROTOCOL = MethodProtocol(
    "vertical_difference", "f(law, confidence_level) -> (low, high)", _difference_probe
)


def _exact_pmf(a_i, b_i, order1_rank2, ranks, n_pos: int, n_neg: int) -> np.ndarray:
    """Eq. 4.17: ``h_r(d) = sum_{k,j} f_r(k, j) g_{k,j}(d)`` over every threshold-rank pair.

    ``f_r`` is the 2-D difference of ``S(k, j) = Pr{K1 >= k, K2 >= j} = L(k - 1, j - 1)``;
    ``g_{k,j}`` is the paired multinomial difference law at the thresholds ``(s1_(k), s2_(j))``.
    With ties, ranks inside a block of equal scores split that block's mass arbitrarily, but
    ``g`` is constant on the block, so the sum is exact.
    """
    grid = np.arange(n_neg + 1)
    joint = JointThresholdLaw(n_neg, grid, grid, order1_rank2, ranks)
    # positives reaching s1_(k) and s2_(j): a_i <= k - 1 and b_i <= j - 1
    reach = np.zeros((n_neg + 1, n_neg + 1))
    np.add.at(reach, (a_i, b_i), 1.0)
    table = np.cumsum(np.cumsum(reach, axis=0), axis=1)
    both = table[:-1, :-1]
    first = table[:-1, -1:] - both  # q1 n+ - q12 n+: reach s1_(k) but not s2_(j)
    second = table[-1:, :-1] - both
    out = np.zeros((ranks.size, 2 * n_pos + 1))
    for idx in range(ranks.size):
        survival = joint.grid(idx)
        survival[n_neg, :] = 0.0  # K1 >= n- + 1 is impossible
        survival[:, n_neg] = 0.0
        f = survival[:-1, :-1] - survival[1:, :-1] - survival[:-1, 1:] + survival[1:, 1:]
        keep = f > 0
        laws = difference_pmf(first[keep], second[keep], n_pos, n_pos)
        out[idx] = f[keep] @ laws
    return out
