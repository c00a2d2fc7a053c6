"""Threshold averaging of ROC curves, single design (thesis section 4.3.1, Algorithm 4.1).

At a fixed threshold ``t`` the stratified bootstrap counts are independent binomials,
``M_t+ ~ Bin(m+, n_t+/n+)`` and ``M_t- ~ Bin(m-, n_t-/n-)`` (eqs. 4.3-4.4), so the exact
bootstrap law of ``(FPR, TPR)`` is a product of two scaled binomials and each axis gets a
proportion interval at level ``sqrt(confidence_level)`` (Algorithm 4.1, line 4).

Under the full bootstrap (:ref:`reading-full-bootstrap`) the class counts of a resample are random,
``N+ ~ Bin(n, n+/n)`` conditioned on both classes being present (resamples with an empty class
are redrawn), and ``TPR = M+/N+`` with ``M+ | N+ ~ Bin(N+, p+)``. Its mean is still ``p+`` and
its variance ``p+(1-p+) E[1/N+]``; the intervals use the effective size ``1/E[1/N+]`` in place
of ``m+``. ``TPR`` and ``FPR`` are then uncorrelated but not independent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from rocsim.core import binomial as binom
from rocsim.core._validation import (
    SCHEMES,
    check_choice,
    check_confidence_level,
    check_thresholds,
    check_two_classes,
    common_class_sizes,
)
from rocsim.core.counting import count_at_or_above, stacked_counts
from rocsim.core.intervals import (
    check_proportion_method,
    check_pseudo_count,
    interval_from_counts,
)
from rocsim.core.methods import method_name
from rocsim.core.results import Result, from_law


def binomial_pmf(x, trials: int, p):
    """``scipy.stats.binom.pmf(x, trials, p)`` for counts ``0 <= x <= trials`` and
    ``0 <= p <= 1``, without its argument checks and broadcasting: on valid arguments it
    returns Boost's pmf clipped to [0, 1], so this returns the same values (an exact
    coverage evaluates millions of them, a table per class size and grid point)."""
    return np.clip(binom.boost_binomial_pmf(x, trials, p), 0.0, 1.0)


@lru_cache(maxsize=256)
def class_count_law(n_pos: int, n_neg: int) -> tuple[np.ndarray, np.ndarray]:
    """Law of the positive count ``N+`` of a full-bootstrap resample.

    ``N+ ~ Bin(n, n+/n)`` with ``n = n+ + n-``, conditioned on ``1 <= N+ <= n - 1`` because a
    resample with an empty class is redrawn (thesis section 4.1). Depends on the class sizes
    only, hence cached.

    Returns
    -------
    k : ndarray of int, the support ``1 .. n-1``
    prob : ndarray of float, ``Pr{N+ = k}``
    """
    n = n_pos + n_neg
    k = np.arange(1, n)
    prob = binomial_pmf(k, n, n_pos / n)
    return k, prob / prob.sum()


def effective_sizes(n_pos: int, n_neg: int, bootstrap: str) -> tuple[float, float]:
    """Sizes whose binomial variance equals the bootstrap variance of TPR and FPR.

    ``m+ = n+`` under the stratified bootstrap; ``1 / E[1/N+]`` under the full bootstrap.
    """
    if bootstrap == "stratified":
        return float(n_pos), float(n_neg)
    k, prob = class_count_law(int(n_pos), int(n_neg))
    n = n_pos + n_neg
    return 1.0 / float(prob @ (1.0 / k)), 1.0 / float(prob @ (1.0 / (n - k)))


def rate_intervals(counts, n_class, effective_size, confidence_level, method, pseudo_count):
    """Interval for a rate ``counts / n_class`` whose bootstrap law has ``effective_size``.

    The single place where threshold averaging turns counts into intervals: the public
    :func:`threshold_ci`, the simulation studies and the exact coverage all call it.
    """
    counts = np.asarray(counts, dtype=float)
    # counts == n_class must map to exactly effective_size, so that the rate is exactly 1
    x = np.where(counts == n_class, effective_size, counts * (effective_size / n_class))
    return interval_from_counts(x, effective_size, confidence_level, method, pseudo_count)


@dataclass(frozen=True, repr=False)
class ThresholdDistribution(Result):
    """Exact bootstrap law of ``(FPR, TPR)`` at fixed thresholds.

    Attributes
    ----------
    thresholds : ndarray of shape (h,)
    tp, fp : ndarray of int, shape (h,)
        Positives ``n_t+`` and negatives ``n_t-`` scoring ``>= t`` in the data.
    n_pos, n_neg : int
        Class sizes of the data.
    bootstrap : {"stratified", "full"}
    effective_pos, effective_neg : float
        ``m+``, ``m-`` (stratified) or ``1/E[1/N+]``, ``1/E[1/N-]`` (full).
    """

    thresholds: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    n_pos: int
    n_neg: int
    bootstrap: str
    effective_pos: float
    effective_neg: float

    _columns = ("thresholds", "tp", "fp", "tpr", "fpr", "tpr_var", "fpr_var")
    _settings = ("bootstrap",)

    def _summary(self) -> str:
        return (
            f"exact bootstrap law of (FPR, TPR) at {self.thresholds.size} thresholds, "
            f"{self.bootstrap} bootstrap, n+={self.n_pos}, n-={self.n_neg}"
        )

    def ci(
        self,
        confidence_level: float = 0.95,
        method: str | Callable = "score",
        *,
        pseudo_count: float | None = None,
    ) -> ThresholdCI:
        """Rectangles from this law (:func:`threshold_ci`), each axis at
        ``sqrt(confidence_level)``, without counting again.

        Examples
        --------
        >>> law = threshold_distribution([3, 2, 1, 0.5], [2, 0, -1, -2], [1.5])
        >>> [law.ci(0.9, m).tpr_low.round(3).tolist() for m in ("score", "percentile")]
        [[0.151], [0.0]]
        """
        level, method, a = threshold_ci_options(
            confidence_level, method, pseudo_count, self.bootstrap
        )
        return self._interval(level, method, a)

    def _interval(self, level: float, method: str | Callable, a: float | None) -> ThresholdCI:
        """:meth:`ci` on a checked level, method and pseudo-count."""
        axis_level = float(np.sqrt(level))
        tpr_ci = rate_intervals(self.tp, self.n_pos, self.effective_pos, axis_level, method, a)
        fpr_ci = rate_intervals(self.fp, self.n_neg, self.effective_neg, axis_level, method, a)
        return ThresholdCI(
            law=self,
            fpr_low=fpr_ci.low,
            fpr_high=fpr_ci.high,
            tpr_low=tpr_ci.low,
            tpr_high=tpr_ci.high,
            confidence_level=level,
            axis_level=axis_level,
            method=method_name(method),
            clipped=tpr_ci.clipped | fpr_ci.clipped,
        )

    @property
    def tpr(self) -> np.ndarray:
        """Bootstrap mean of TPR, ``p_t+ = n_t+/n+`` (eq. 4.3)."""
        return self.tp / self.n_pos

    @property
    def fpr(self) -> np.ndarray:
        """Bootstrap mean of FPR, ``p_t- = n_t-/n-`` (eq. 4.4)."""
        return self.fp / self.n_neg

    @property
    def tpr_var(self) -> np.ndarray:
        """Bootstrap variance of TPR, ``p+(1-p+)/m+`` (eq. 4.3)."""
        return self.tpr * (1.0 - self.tpr) / self.effective_pos

    @property
    def fpr_var(self) -> np.ndarray:
        """Bootstrap variance of FPR, ``p-(1-p-)/m-`` (eq. 4.4)."""
        return self.fpr * (1.0 - self.fpr) / self.effective_neg

    def joint_pmf(self, j: int) -> dict[tuple[Fraction, Fraction], float]:
        """Law of ``(FPR, TPR)`` at ``thresholds[j]`` as ``{(fpr, tpr): probability}``.

        Values are exact fractions so that equal rates from different class counts merge.
        Meant for small data (it enumerates the support); raises ``ValueError`` above 200
        instances.
        """
        if self.n_pos + self.n_neg > 200:
            raise ValueError("joint_pmf enumerates the support; use it on n <= 200 only")
        p_pos, p_neg = self.tpr[j], self.fpr[j]
        if self.bootstrap == "stratified":
            sizes = [(self.n_pos, self.n_neg, 1.0)]
        else:
            k, prob = class_count_law(self.n_pos, self.n_neg)
            total = self.n_pos + self.n_neg
            sizes = [(int(kk), int(total - kk), float(pk)) for kk, pk in zip(k, prob)]
        law: dict[tuple[Fraction, Fraction], float] = {}
        for m_pos, m_neg, weight in sizes:
            pmf_pos = binom.binomial_pmf(np.arange(m_pos + 1), m_pos, p_pos)
            pmf_neg = binom.binomial_pmf(np.arange(m_neg + 1), m_neg, p_neg)
            for b, pb in enumerate(pmf_neg):
                for a, pa in enumerate(pmf_pos):
                    key = (Fraction(b, m_neg), Fraction(a, m_pos))
                    law[key] = law.get(key, 0.0) + weight * pb * pa
        return law


@dataclass(frozen=True, repr=False)
class ThresholdCI(Result):
    """Pointwise confidence rectangles of a threshold-averaged ROC curve.

    ``fpr`` and ``tpr`` are the empirical rates at each threshold (the bootstrap means);
    the rectangle ``[fpr_low, fpr_high] x [tpr_low, tpr_high]`` has level
    ``confidence_level`` when the axes are independent: each axis is at
    ``axis_level = sqrt(confidence_level)`` (Algorithm 4.1, line 4). pROC's ``ci.thresholds``
    gives each axis the level itself, so its rectangles are narrower and hold the point less
    often than the level says. The law ``law`` (a :class:`ThresholdDistribution`) gives the
    ``thresholds``, the rates and the ``bootstrap`` scheme.
    """

    law: ThresholdDistribution
    fpr_low: np.ndarray
    fpr_high: np.ndarray
    tpr_low: np.ndarray
    tpr_high: np.ndarray
    confidence_level: float
    axis_level: float
    method: str
    clipped: np.ndarray

    thresholds = from_law("thresholds", "The score thresholds.")
    fpr = from_law("fpr", "The data's FPR at each threshold (the bootstrap mean).")
    tpr = from_law("tpr", "The data's TPR at each threshold (the bootstrap mean).")
    bootstrap = from_law("bootstrap")

    _columns = (
        "thresholds",
        "fpr",
        "tpr",
        "fpr_low",
        "fpr_high",
        "tpr_low",
        "tpr_high",
        "clipped",
    )
    _settings = ("confidence_level", "axis_level", "method", "bootstrap")
    _plot_kind = "threshold"

    def _summary(self) -> str:
        return (
            f"(FPR, TPR) rectangles at {self.thresholds.size} thresholds "
            f"({self._level_and_method()}; each axis at {100 * self.axis_level:.2f}%)"
        )


def threshold_distribution(
    pos_scores, neg_scores, thresholds, *, bootstrap: str = "stratified"
) -> ThresholdDistribution:
    """Exact bootstrap law of ``(FPR, TPR)`` at the given thresholds (eqs. 4.3-4.4).

    Parameters
    ----------
    pos_scores, neg_scores : array-like
        Scores of the positive and negative instances.
    thresholds : array-like of shape (h,)
        An instance is predicted positive when its score is ``>= t``.
    bootstrap : {"stratified", "full"}, default "stratified"
        Resample each class separately, or the whole set (redrawing resamples with an empty
        class).

    Returns
    -------
    ThresholdDistribution

    Examples
    --------
    >>> law = threshold_distribution([3, 2, 1], [2, 0], [2.0])
    >>> law.tpr, law.fpr, law.tpr_var
    (array([0.66666667]), array([0.5]), array([0.07407407]))
    """
    pos, neg = check_two_classes(pos_scores, neg_scores)
    thr = check_thresholds(thresholds)
    check_choice(bootstrap, SCHEMES, "bootstrap scheme")
    eff_pos, eff_neg = effective_sizes(pos.size, neg.size, bootstrap)
    return ThresholdDistribution(
        thresholds=thr,
        tp=count_at_or_above(pos, thr),
        fp=count_at_or_above(neg, thr),
        n_pos=pos.size,
        n_neg=neg.size,
        bootstrap=bootstrap,
        effective_pos=eff_pos,
        effective_neg=eff_neg,
    )


def threshold_ci(
    pos_scores,
    neg_scores,
    thresholds,
    *,
    confidence_level: float = 0.95,
    method: str | Callable = "score",
    bootstrap: str = "stratified",
    pseudo_count: float | None = None,
) -> ThresholdCI:
    """Confidence rectangles for ``(FPR, TPR)`` at fixed thresholds (Algorithm 4.1).

    Parameters
    ----------
    pos_scores, neg_scores : array-like
        Scores of the positive and negative instances.
    thresholds : array-like of shape (h,)
        Thresholds; predicted positive means score ``>= t``.
    confidence_level : float, default 0.95
        Level of the rectangle; each axis gets ``sqrt(confidence_level)`` (pROC's
        ``ci.thresholds`` gives each axis ``confidence_level`` itself).
    method : str or callable, default "score"
        Any name of :data:`rocsim.core.intervals.PROPORTION_METHODS`, or a function
        ``f(x, n, confidence_level) -> (low, high)`` (:mod:`rocsim.core.methods`).
        ``percentile``: the exact bootstrap percentile interval, the equal-tailed quantiles of
        ``Bin(m, p) / m`` on each axis (stratified bootstrap only).
    bootstrap : {"stratified", "full"}, default "stratified"
    pseudo_count : float, optional
        For a method that takes one (``agresti``, default 2).

    Returns
    -------
    ThresholdCI

    References
    ----------
    Gadoury (2009), section 4.3.1, eqs. 4.3-4.4, Algorithm 4.1.

    Examples
    --------
    >>> ci = threshold_ci([3, 2, 1, 0.5], [2, 0, -1, -2], [1.5], confidence_level=0.9)
    >>> float(ci.tpr[0]), float(ci.fpr[0])
    (0.5, 0.25)
    """
    check_choice(bootstrap, SCHEMES, "bootstrap scheme")
    level, method, a = threshold_ci_options(confidence_level, method, pseudo_count, bootstrap)
    law = threshold_distribution(pos_scores, neg_scores, thresholds, bootstrap=bootstrap)
    return law._interval(level, method, a)


def threshold_bounds(samples, thresholds, level: float, method, pseudo_count, bootstrap: str):
    """``(tpr_low, tpr_high, fpr_low, fpr_high)`` of :func:`threshold_ci` for validated
    inputs, one row per test set of ``samples`` (``(pos, neg)`` pairs of finite 1-D scores of
    the same class sizes), the options checked as :func:`threshold_ci` checks them. The
    simulation studies' path: the interval formulas evaluated once on every test set's counts
    (elementwise, so each row as it would be alone; a user's method is given one test set's
    1-D counts when ``samples`` holds one)."""
    n_pos, n_neg = common_class_sizes((pos.size, neg.size) for pos, neg in samples)
    eff_pos, eff_neg = effective_sizes(n_pos, n_neg, bootstrap)
    axis_level = float(np.sqrt(level))
    bounds = []
    for k, n_class, effective in ((0, n_pos, eff_pos), (1, n_neg, eff_neg)):
        counts = stacked_counts([count_at_or_above(sample[k], thresholds) for sample in samples])
        ci = rate_intervals(counts, n_class, effective, axis_level, method, pseudo_count)
        bounds += [np.reshape(ci.low, (len(samples), -1)), np.reshape(ci.high, (len(samples), -1))]
    return tuple(bounds)


def threshold_ci_options(confidence_level, method, pseudo_count, bootstrap: str):
    """``(level, method, pseudo_count)`` of threshold averaging's intervals, checked once."""
    level = check_confidence_level(confidence_level)
    method = check_proportion_method(method)
    a = check_pseudo_count(method, pseudo_count)
    if method == "percentile" and bootstrap != "stratified":
        raise ValueError(
            "method='percentile' needs bootstrap='stratified' (under the full bootstrap "
            "a rate is a mixture over the class counts, not a binomial)"
        )
    return level, method, a
