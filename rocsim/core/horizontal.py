"""Horizontal averaging of ROC curves: FPR at fixed TPRs (specificity at fixed sensitivity,
pROC's ``ci.sp``), the vertical law (:mod:`rocsim.core.vertical`) with the classes exchanged."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rocsim.core._validation import check_two_classes
from rocsim.core.results import Interval, from_law
from rocsim.core.vertical import check_ranks, vertical_ci


@dataclass(frozen=True, repr=False)
class HorizontalCI(Interval):
    """Pointwise confidence intervals of FPR at fixed TPRs ``k / m+`` (horizontal averaging;
    specificity ``1 - fpr`` at fixed sensitivity, pROC's ``ci.sp``).

    Attributes
    ----------
    law : VerticalDistribution
        The exact law of the classes exchanged (scores negated): TPR there at FPR
        ``(m+ - k) / m+`` on the upper side is ``1 - FPR`` here, so ``fpr``, ``mean`` and
        ``var`` are read from it.
    low, high : ndarray
        Bounds on FPR, clipped to [0, 1].
    confidence_level : float
    method : str
    clipped : ndarray of bool
    k, tpr : ndarray
        TPR ranks and TPRs ``k / m+``.
    """

    k: np.ndarray
    tpr: np.ndarray

    _columns = ("k", "tpr", "fpr", "mean", "var", "low", "high", "clipped")
    _settings = ("confidence_level", "method", "bootstrap", "ties")
    _plot_kind = "horizontal"

    @property
    def fpr(self) -> np.ndarray:
        """The data's FPR: the share of negatives scoring at least the ``k``-th largest
        positive."""
        return 1.0 - self.law.tpr

    @property
    def mean(self) -> np.ndarray:
        """Exact bootstrap mean of FPR."""
        return 1.0 - self.law.mean

    var = from_law("var", "Exact bootstrap variance of FPR.")
    cov = from_law("cov", "Exact bootstrap covariance of FPR across the TPRs (stratified).")
    bootstrap = from_law("bootstrap")
    ties = from_law("ties")

    def _summary(self) -> str:
        return f"FPR at {self.k.size} TPRs, horizontal averaging ({self._level_and_method()})"


def horizontal_ci(
    pos_scores,
    neg_scores,
    k,
    *,
    confidence_level: float = 0.95,
    method: str | Callable = "score",
    bootstrap: str = "stratified",
    ties: str = "step",
) -> HorizontalCI:
    """Confidence intervals for FPR at TPR ``k / m+`` (horizontal averaging), exact.

    In a resample the threshold is the ``k``-th largest resampled positive and FPR is the share
    of resampled negatives scoring at least that threshold. This is vertical averaging with the
    roles of the classes exchanged: on the negated scores, with the negatives as the positive
    class, FPR at TPR ``k / m+`` is one minus the TPR at FPR ``(m+ - k) / m+`` on the upper
    side of the vertical step (:func:`vertical_distribution`), so the law is the same mixture
    of binomials (eq. 4.12) and every vertical method applies.

    Parameters
    ----------
    pos_scores, neg_scores : array-like
    k : array-like of int
        TPR ranks, ``1 <= k <= n+ - 1``.
    confidence_level : float, default 0.95
    method : {'score', 'wald', 'agresti', 'percentile'} or callable, default 'score'
        As in :func:`vertical_ci`, applied to the law of ``1 - FPR``.
    bootstrap : {"stratified", "full"}, default "stratified"
    ties : {"step", "interpolate"}, default "step"
        ``interpolate``: scores shared across the classes read linearly along the diagonal
        segment they draw, as pROC's ``ci.sp`` reads them (:mod:`rocsim.core.interpolated`).

    Returns
    -------
    HorizontalCI

    References
    ----------
    Gadoury (2009), section 4.4.1, eqs. 4.10-4.14 (with the classes exchanged).

    Examples
    --------
    >>> ci = horizontal_ci([0.9, 0.8, 0.3, 0.6], [0.7, 0.5, 0.2, 0.1], [2, 3])
    >>> ci.tpr.tolist(), ci.fpr.tolist()
    ([0.5, 0.75], [0.0, 0.25])
    """
    pos, neg = check_two_classes(pos_scores, neg_scores)
    ranks = check_ranks(k, pos.size, "k")
    swapped = vertical_ci(
        -neg,
        -pos,
        pos.size - ranks,
        confidence_level=confidence_level,
        method=method,
        bootstrap=bootstrap,
        side="upper",
        ties=ties,
    )
    return from_swapped(swapped, ranks, pos.size)


def from_swapped(swapped, ranks: np.ndarray, n_pos: int) -> HorizontalCI:
    """The :class:`HorizontalCI` at TPR ranks ``ranks`` from the vertical intervals
    ``swapped`` of the classes exchanged (at FPR ranks ``n+ - ranks``, upper side)."""
    return HorizontalCI(
        swapped.law,
        1.0 - swapped.high,
        1.0 - swapped.low,
        swapped.confidence_level,
        swapped.method,
        swapped.clipped,
        ranks,
        ranks / n_pos,
    )
