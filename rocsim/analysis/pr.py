"""Precision-recall curves of a user's classifier: pointwise intervals from the exact
stratified bootstrap (:func:`pr_ci`)."""

from __future__ import annotations

import numpy as np

from rocsim.analysis._input import (
    DEFAULT_GRID,
    check_placement,
    placed_thresholds,
    scored,
)
from rocsim.analysis.results import PRBands
from rocsim.core import precision_recall
from rocsim.core._validation import check_rates
from rocsim.core.precision_recall import nearest_recall_ranks, pr_threshold_ci

#: Ways of averaging precision-recall curves: at fixed recalls, or at fixed thresholds.
PR_AVERAGING = ("vertical", "threshold")


def pr_ci(
    y_true,
    y_score,
    *,
    at=None,
    averaging: str = "vertical",
    thresholds=None,
    confidence_level: float = 0.95,
    method: str = "score",
    pos_label=None,
    direction: str = "higher",
) -> PRBands:
    """Pointwise confidence intervals of a classifier's precision-recall curve, from the exact
    stratified bootstrap (:mod:`rocsim.core.precision_recall`).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, any two values.
    y_score : array-like of shape (n,)
        Scores, higher meaning positive.
    at : array-like, optional
        Where to place the points, as rates in (0, 1): recalls (vertical averaging; each moved
        to the nearest ``r/n+``, ``r = 1..n+``, reported in ``recall``, the request in ``at``)
        or total positive ratios ``q`` (threshold averaging; the threshold puts a share ``q``
        of the instances at or above it, as in :func:`rocsim.roc_ci`). One row per requested
        rate, in the given order. Default: 0.01, ..., 0.99, each distinct recall or threshold
        once.
    averaging : {"vertical", "threshold"}, default "vertical"
        ``vertical``: intervals for precision at fixed recalls (the threshold of a resample is
        its ``r``-th largest positive); ``threshold``: rectangles for (recall, precision) at
        fixed score thresholds, each axis at ``sqrt(confidence_level)``.
    thresholds : array-like, optional
        Score thresholds instead of ``at`` (threshold averaging only); one row each.
    confidence_level : float, default 0.95
    method : {"score", "wald", "percentile"}, default "score"
        See :func:`rocsim.core.pr_ci`.
    pos_label : optional
        The positive label (needed unless the labels are 0/1, -1/1 or booleans).
    direction : {"higher", "lower", "auto"}, default "higher"
        Which way the scores point (:func:`rocsim.roc_ci`).

    Returns
    -------
    PRBands
        ``.to_frame()`` has the columns ``recall, precision, low, high`` first (``precision``
        the data's, ``low``, ``high`` its bounds); the exact bootstrap law is ``.law``
        (``law.mean``, ``law.var``, ``law.quantile(p)``); ``.plot(ax=None)`` draws the
        empirical curve with the band or the rectangles.

    See Also
    --------
    rocsim.PrecisionRecallBandDisplay : the same intervals drawn.

    References
    ----------
    Gadoury (2009), sections 4.3.1 and 4.4.1 (eqs. 4.3-4.4 and 4.10-4.12), carried over to
    precision and recall.

    Examples
    --------
    >>> y, s = [1, 1, 0, 1, 0, 0], [0.9, 0.8, 0.7, 0.6, 0.3, 0.2]
    >>> result = pr_ci(y, s, at=[0.5])
    >>> result.to_frame()[["at", "recall", "precision"]].round(3).values.tolist()
    [[0.5, 0.667, 1.0]]
    """
    data = scored(y_true, y_score, pos_label=pos_label, direction=direction)
    check_placement(averaging, at, thresholds, valid=PR_AVERAGING)
    pos, neg = data.classes()
    common = {"n_pos": pos.size, "n_neg": neg.size, "direction": data.direction}
    if averaging == "vertical":
        requested = None if at is None else check_rates(at, "at (recalls)")
        ranks = nearest_recall_ranks(DEFAULT_GRID if at is None else requested, pos.size)
        if at is None:  # the default grid: each distinct recall once
            ranks = np.unique(ranks)
        ci = precision_recall.pr_ci(
            pos, neg, ranks, confidence_level=confidence_level, method=method
        )
        return PRBands(ci, "vertical", at=requested, **common)
    sign = data.signs[0]
    t, requested = placed_thresholds(data.scores[0], at, thresholds, sign)
    ci = pr_threshold_ci(pos, neg, t, confidence_level=confidence_level, method=method)
    return PRBands(ci, "threshold", q=requested, **common)
