"""Cost curves of a user's classifiers: the normalized expected cost with pointwise
intervals (:func:`cost_curve_ci`) and where one classifier is cheaper (:func:`compare_cost`)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rocsim.analysis._input import DEFAULT_GRID, orient, scored, threshold_pair, verdict
from rocsim.analysis.results import CostBands, CostComparison
from rocsim.core._validation import check_choice, check_thresholds
from rocsim.core.cost import cost_ci, cost_difference_ci
from rocsim.core.cost_band import simultaneous_cost_ci
from rocsim.core.registry import DEFAULT_METHODS


def cost_curve_ci(
    y_true,
    y_score,
    *,
    w=None,
    thresholds="empirical",
    confidence_level: float = 0.95,
    method: str | Callable = DEFAULT_METHODS["cost"],
    bootstrap: str = "stratified",
    pos_label=None,
    direction: str = "higher",
    band: str = "pointwise",
) -> CostBands:
    """Pointwise confidence intervals of a classifier's normalized expected cost
    ``w (1 - TPR) + (1 - w) FPR`` (eq. 3.12) at operating conditions ``w``.

    Parameters
    ----------
    y_true, y_score : array-like of shape (n,)
    w : array-like, optional
        Operating conditions in (0, 1) (default 0.01, ..., 0.99): the cost of a false negative
        times the positive class share, normalized (thesis section 3.3).
    thresholds : "empirical" or array-like, default "empirical"
        The threshold used at each ``w``: the data's cost-minimizing one, or given (one per
        ``w``).
    confidence_level : float, default 0.95
    method : {'agresti', 'score', 'wald'} or callable, default 'agresti'
    bootstrap : {"stratified", "full"}, default "stratified"
    pos_label : optional
    direction : {"higher", "lower", "auto"}, default "higher"
        Which way the scores point (:func:`rocsim.roc_ci`).
    band : {"pointwise", "bonferroni", "simultaneous"}, default "pointwise"
        ``bonferroni``: each interval at ``1 - (1 - confidence_level) / k`` over the ``k``
        operating conditions; ``simultaneous`` (stratified bootstrap): each at the smallest
        common level at which the whole bootstrap cost curve (at these thresholds) lies
        inside with probability at least ``confidence_level`` (:mod:`rocsim.core.cost_band`;
        the result's ``containment``, computed exactly up to about 100 instances per class
        and by a Gaussian copula on the exact marginal laws beyond: ``calibration``). At
        fixed thresholds the bootstrap law of the costs is the binomial one, so the band
        holds the true costs at those thresholds as it holds the bootstrap's.

    Returns
    -------
    CostBands

    See Also
    --------
    rocsim.CostCurveDisplay : the same intervals drawn, from predictions or an estimator.

    References
    ----------
    Gadoury (2009), chapter 5, eqs. 5.3-5.5 (stratified), 5.9-5.11 (full).

    Examples
    --------
    >>> bands = cost_curve_ci([1, 1, 0, 1, 0, 0], [0.9, 0.8, 0.7, 0.6, 0.3, 0.2], w=[0.5])
    >>> bands.to_frame()[["w", "cost"]].round(3).values.tolist()
    [[0.5, 0.167]]
    """
    data = scored(y_true, y_score, pos_label=pos_label, direction=direction)
    check_choice(band, COST_BANDS, "band")
    pos, neg = data.classes()
    sign = data.signs[0]
    ci = cost_ci(
        pos,
        neg,
        DEFAULT_GRID if w is None else w,  # validated by the cost core
        _oriented_thresholds(thresholds, sign, "thresholds"),
        confidence_level=confidence_level,
        method=method,
        pseudo_count=None,
        bootstrap=bootstrap,
    )
    containment = calibration = None
    if band == "bonferroni":
        level = 1.0 - (1.0 - ci.confidence_level) / ci.w.size
        ci = _at_level(ci, pos, neg, level, method, bootstrap)
    elif band == "simultaneous":
        if bootstrap != "stratified":
            raise ValueError("band='simultaneous' needs bootstrap='stratified'")
        ci, calibrated = simultaneous_cost_ci(
            pos, neg, ci.w, ci.thresholds, ci.confidence_level, method, None
        )
        containment, calibration = calibrated.containment, calibrated.how
    return CostBands(
        w=ci.w,
        threshold=orient(ci.thresholds, sign),
        cost=ci.cost,
        low=ci.low,
        high=ci.high,
        confidence_level=float(confidence_level),
        method=method,
        bootstrap=bootstrap,
        n_pos=pos.size,
        n_neg=neg.size,
        direction=data.direction,
        band=band,
        pointwise_level=ci.confidence_level,
        containment=containment,
        calibration=calibration,
    )


#: Bands of :func:`cost_curve_ci`.
COST_BANDS = ("pointwise", "bonferroni", "simultaneous")


def _at_level(ci, pos, neg, level: float, method: str, bootstrap: str):
    """The cost intervals of ``ci`` (its pairs) at another level."""
    return cost_ci(
        pos,
        neg,
        ci.w,
        ci.thresholds,
        confidence_level=level,
        method=method,
        pseudo_count=None,
        bootstrap=bootstrap,
    )


def compare_cost(
    y_true,
    y_score1,
    y_score2,
    *,
    w=None,
    thresholds="empirical",
    confidence_level: float = 0.95,
    method: str | Callable = DEFAULT_METHODS["cost"],
    bootstrap: str = "stratified",
    pos_label=None,
    direction: str | tuple[str, str] = "higher",
) -> CostComparison:
    """Where is one classifier cheaper than the other? Intervals for ``cost2 - cost1``.

    Parameters
    ----------
    y_true, y_score1, y_score2 : array-like of shape (n,)
    w : array-like, optional
        Operating conditions in (0, 1), default 0.01..0.99.
    thresholds : "empirical" or (array-like, array-like), default "empirical"
        Each classifier's threshold at each ``w``: its own cost-minimizing one on the data, or
        a pair ``(t1, t2)`` of arrays (or an array of two rows), one threshold per ``w`` each.
    confidence_level : float, default 0.95
    method : {'agresti', 'score', 'wald'} or callable, default 'agresti'
    bootstrap : {"stratified", "full"}, default "stratified"
    pos_label : optional
    direction : {"higher", "lower", "auto"} or a pair of them, default "higher"
        Which way each classifier's scores point (:func:`rocsim.compare_roc`).

    Returns
    -------
    CostComparison

    References
    ----------
    Gadoury (2009), chapter 5, eqs. 5.6-5.8 (stratified), 5.12-5.14 (full).

    Examples
    --------
    >>> y = [1, 1, 1, 0, 0, 0]
    >>> cmp = compare_cost(y, [0.9, 0.8, 0.4, 0.5, 0.3, 0.2], [0.9, 0.3, 0.4, 0.5, 0.8, 0.2],
    ...                    w=[0.5])
    >>> cmp.t1.tolist(), cmp.t2.tolist(), cmp.cost_difference.round(4).tolist()
    ([0.4], [0.3], [0.1667])
    """
    data = scored(y_true, y_score1, y_score2, pos_label=pos_label, direction=direction)
    (pos1, neg1), (pos2, neg2) = data.classes(0), data.classes(1)
    if isinstance(thresholds, str):
        t1 = t2 = thresholds
    else:
        t1, t2 = threshold_pair(thresholds, data.signs)
    ci = cost_difference_ci(
        pos1,
        pos2,
        neg1,
        neg2,
        DEFAULT_GRID if w is None else w,
        t1,
        t2,
        confidence_level=confidence_level,
        method=method,
        pseudo_count=None,
        bootstrap=bootstrap,
    )
    return CostComparison(
        w=ci.w,
        t1=orient(ci.t1, data.signs[0]),
        t2=orient(ci.t2, data.signs[1]),
        cost_difference=ci.cost,
        low=ci.low,
        high=ci.high,
        verdict=verdict(ci.low, ci.high),
        confidence_level=ci.confidence_level,
        method=method,
        bootstrap=bootstrap,
        n_pos=pos1.size,
        n_neg=neg1.size,
        direction=data.direction,
    )


def _oriented_thresholds(thresholds, sign: float, name: str):
    """``"empirical"`` as it is; given thresholds validated and oriented."""
    if isinstance(thresholds, str):
        return thresholds
    return orient(check_thresholds(np.atleast_1d(thresholds), name), sign)
