"""Pointwise confidence intervals for a user's own classifiers, on ``(y_true, y_score)``.

The scikit-learn-style entry points of rocsim: labels in any two values (``pos_label`` names the
positive one), scores of any scale (probabilities, logits, margins; higher means positive), and
optionally a second classifier scored on the same instances. Each validates its input once and
calls the exact core (:mod:`rocsim.core.threshold`, :mod:`rocsim.core.vertical`,
:mod:`rocsim.core.paired_threshold`, :mod:`rocsim.core.paired_vertical`,
:mod:`rocsim.core.cost`); results are tables with ``.to_frame()`` and ``.plot(ax=None)``, drawn
by :mod:`rocsim.views.plots` (the practitioner layer: the core below it, the views beside).

- :func:`roc_ci`: ROC curve with rectangles (threshold averaging) or a band (vertical);
- :func:`compare_roc`: ``TPR1 - TPR2`` with intervals, and dominance probabilities;
- :func:`cost_curve_ci`, :func:`compare_cost`: normalized expected cost and its difference;
- :func:`auc_ci`, :func:`compare_auc`: the area under the ROC curve, DeLong or exact bootstrap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from rocsim.core._validation import check_choice, check_rates, check_scores, check_thresholds
from rocsim.core.area import AUC_METHODS, auc_difference_interval, auc_interval
from rocsim.core.cost import cost_ci, cost_difference_ci
from rocsim.core.counting import count_at_or_above
from rocsim.core.paired_threshold import dominance_probability, threshold_difference_ci
from rocsim.core.paired_vertical import vertical_difference_ci
from rocsim.core.roc import roc_curve
from rocsim.core.threshold import threshold_ci
from rocsim.core.vertical import fpr_ranks, nearest_ranks, vertical_ci

#: Ways of averaging ROC curves (thesis 4.1): at fixed thresholds, or at fixed FPRs.
AVERAGING = ("threshold", "vertical")
#: Default grid: total positive ratios (threshold), FPRs (vertical) or operating conditions w.
DEFAULT_GRID = np.round(np.linspace(0.01, 0.99, 99), 12)
#: Largest class for the paired vertical difference, whose cost grows with n per FPR.
PAIRED_VERTICAL_LIMIT = 10_000


# --- input ------------------------------------------------------------------------------------


def check_labels_and_scores(y_true, *scores, pos_label=None) -> tuple[np.ndarray, list]:
    """The positive mask and each score array, validated together.

    Labels are any two values; without ``pos_label`` the positive one must be evident
    (``1`` of {0, 1} or {-1, 1}, ``True`` of booleans), as in scikit-learn.
    """
    y = np.asarray(y_true)
    if y.ndim != 1:
        raise ValueError(f"y_true must be 1-D, got shape {y.shape}")
    if pd.isna(y).any():
        raise ValueError(f"y_true has {int(pd.isna(y).sum())} missing label(s)")
    values = np.unique(y)
    if values.size != 2:
        raise ValueError(
            f"y_true must hold exactly two classes, got {values.size}: {values[:5].tolist()}"
        )
    positive = y == _positive_label(values, pos_label)
    arrays = []
    for k, s in enumerate(scores, start=1):
        name = "y_score" if len(scores) == 1 else f"y_score{k}"
        arr = check_scores(s, name)
        if arr.size != y.size:
            raise ValueError(f"y_true and {name} differ in length: {y.size} != {arr.size}")
        arrays.append(arr)
    return positive, arrays


def _positive_label(values: np.ndarray, pos_label):
    if pos_label is not None:
        if pos_label not in values.tolist():
            raise ValueError(
                f"pos_label {pos_label!r} is not a label of y_true: {values.tolist()}"
            )
        return pos_label
    labels = set(values.tolist())
    for known in ({0, 1}, {-1, 1}, {False, True}):
        if labels == known:
            return max(known)
    raise ValueError(
        f"labels {values.tolist()} are not 0/1, -1/1 or booleans: say which is "
        "positive with pos_label"
    )


def _grid(at, name: str) -> np.ndarray:
    """FPRs or total positive ratios strictly inside (0, 1), ``DEFAULT_GRID`` when ``at`` is
    None (the core would silently clip them to a rank or a threshold)."""
    return DEFAULT_GRID if at is None else check_rates(at, name)


def _rates_or_thresholds(averaging: str, at, thresholds) -> None:
    """``at`` (rates) and ``thresholds`` (scores) are two ways to place the points; one at a
    time, and score thresholds only where points are thresholds."""
    if thresholds is None:
        return
    if at is not None:
        raise ValueError("give at (rates) or thresholds (scores), not both")
    if averaging != "threshold":
        raise ValueError(
            "thresholds apply to averaging='threshold'; vertical averaging places its points "
            "at FPRs, given by at"
        )


def _ranks_per_request(at, m_neg: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The requested FPRs, the distinct ranks they round to and, per request, its index into
    those ranks: a row per request, even where two requests share an FPR ``r/m-``. Without
    ``at``, every distinct FPR nearest the default grid, once."""
    if at is None:
        ranks = fpr_ranks(DEFAULT_GRID, m_neg)
        return ranks / m_neg, ranks, np.arange(ranks.size)
    requested = check_rates(at, "at (FPRs)")
    ranks, index = np.unique(nearest_ranks(requested, m_neg), return_inverse=True)
    return requested, ranks, index


def _threshold_pair(thresholds) -> tuple[np.ndarray, np.ndarray]:
    """``(t1, t2)``: each classifier's score thresholds, of equal length."""
    if isinstance(thresholds, str) or len(thresholds) != 2:
        raise ValueError("thresholds must be a pair (t1, t2): each classifier's thresholds")
    t1, t2 = (
        check_thresholds(np.atleast_1d(t), f"thresholds[{k}]") for k, t in enumerate(thresholds)
    )
    if t1.size != t2.size:
        raise ValueError(f"thresholds t1 and t2 differ in length: {t1.size} != {t2.size}")
    return t1, t2


def thresholds_at_ratio(scores: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Thresholds putting a share ``q`` of ``scores`` at or above them: the ``ceil(q n)``-th
    largest score (ties can add more)."""
    ordered = np.sort(scores)[::-1]
    return ordered[np.clip(np.ceil(q * scores.size).astype(int) - 1, 0, scores.size - 1)]


# --- results ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Table:
    """Columns of equal length (one row per point) and how they were computed."""

    columns: dict[str, np.ndarray]
    confidence_level: float
    method: str
    info: dict[str, Any] = field(default_factory=dict)

    def __getattr__(self, name: str) -> np.ndarray:
        columns = self.__dict__.get("columns", {})
        if name in columns:
            return columns[name]
        raise AttributeError(f"{type(self).__name__} has no column or attribute {name!r}")

    def to_frame(self) -> pd.DataFrame:
        """The table as a pandas DataFrame, one row per point."""
        return pd.DataFrame(self.columns)


class ROCBands(_Table):
    """Result of :func:`roc_ci`: columns ``fpr, fpr_low, fpr_high, tpr, tpr_low, tpr_high``
    (and ``threshold`` for threshold averaging, ``mean`` for vertical averaging)."""

    def plot(self, ax=None):
        """The empirical ROC curve with the rectangles or the band."""
        from rocsim.views.plots import plot_roc_bands

        return plot_roc_bands(self, ax)


class ROCComparison(_Table):
    """Result of :func:`compare_roc`: ``dtpr = TPR1 - TPR2`` with ``dtpr_low, dtpr_high`` at
    each point, and ``verdict`` (``first better``, ``second better``, ``no difference``)."""

    def plot(self, ax=None):
        """The difference with its band and the zero line."""
        from rocsim.views.plots import plot_difference

        return plot_difference(self, ax)


class CostBands(_Table):
    """Result of :func:`cost_curve_ci`: ``w, threshold, cost, low, high``."""

    def plot(self, ax=None):
        """The cost curve with its band."""
        from rocsim.views.plots import plot_cost_bands

        return plot_cost_bands(self, ax)


class CostComparison(_Table):
    """Result of :func:`compare_cost`: ``cost_difference = cost2 - cost1`` (positive where
    the first classifier is cheaper) with ``low, high`` and ``verdict``."""

    def plot(self, ax=None):
        """The difference with its band and the zero line."""
        from rocsim.views.plots import plot_difference

        return plot_difference(self, ax)


def _verdict(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    return np.where(low > 0, "first better", np.where(high < 0, "second better", "no difference"))


# --- one classifier ---------------------------------------------------------------------------


def roc_ci(
    y_true,
    y_score,
    *,
    averaging: str = "threshold",
    at=None,
    thresholds=None,
    confidence_level: float = 0.95,
    method: str = "score",
    bootstrap: str = "stratified",
    pos_label=None,
) -> ROCBands:
    """Pointwise confidence intervals of a classifier's ROC curve, from the exact bootstrap.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, any two values.
    y_score : array-like of shape (n,)
        Scores, higher meaning positive (probabilities, logits, ...).
    averaging : {"threshold", "vertical"}, default "threshold"
        ``threshold``: rectangles for (FPR, TPR) at fixed thresholds (Algorithm 4.1, each axis
        at ``sqrt(confidence_level)``); ``vertical``: intervals for TPR at fixed FPRs
        (Algorithm 4.3).
    at : array-like, optional
        Where to place the points, as rates in (0, 1) on the averaging's axis: total positive
        ratios ``q`` (threshold averaging; the threshold is the score putting a share ``q`` of
        the instances at or above it) or FPRs (vertical; each moved to the nearest ``r/n-``,
        reported in the ``fpr`` column). One row per requested rate, in the given order,
        even where two rates share a threshold or an FPR. Default: 0.01, ..., 0.99, each
        distinct threshold or FPR once.
    thresholds : array-like, optional
        Score thresholds instead of ``at`` (threshold averaging only); one row each.
    confidence_level : float, default 0.95
    method : str, default "score"
        Interval method: ``score``, ``wald`` or ``agresti`` (and ``percentile`` for vertical).
    bootstrap : {"stratified", "full"}, default "stratified"
    pos_label : optional
        The positive label (needed unless the labels are 0/1, -1/1 or booleans).

    Returns
    -------
    ROCBands
        Columns ``fpr, fpr_low, fpr_high, tpr, tpr_low, tpr_high``; threshold averaging adds
        ``q`` (the requested ratio; absent when ``thresholds`` are given) and ``threshold``;
        vertical adds ``at`` (the requested FPR; ``fpr`` is the one used) and ``mean`` (the
        bootstrap mean of TPR).

    References
    ----------
    Gadoury (2009), sections 4.1-4.2, Algorithms 4.1 and 4.3.

    Examples
    --------
    >>> y, s = [1, 1, 0, 1, 0, 0], [0.9, 0.8, 0.7, 0.6, 0.3, 0.2]
    >>> bands = roc_ci(y, s, thresholds=[0.65])
    >>> bands.to_frame()[["threshold", "fpr", "tpr"]].round(3).values.tolist()
    [[0.65, 0.333, 0.667]]
    >>> bands = roc_ci(y, s, at=[0.5])  # half the instances at or above the threshold
    >>> bands.to_frame()[["q", "threshold", "fpr", "tpr"]].round(3).values.tolist()
    [[0.5, 0.7, 0.333, 0.667]]
    """
    positive, (scores,) = check_labels_and_scores(y_true, y_score, pos_label=pos_label)
    check_choice(averaging, AVERAGING, "averaging")
    _rates_or_thresholds(averaging, at, thresholds)
    pos, neg = scores[positive], scores[~positive]
    info = {
        "averaging": averaging,
        "bootstrap": bootstrap,
        "n_pos": pos.size,
        "n_neg": neg.size,
        "curve": roc_curve(pos, neg)[:2],
    }
    if averaging == "threshold":
        return _threshold_bands(scores, pos, neg, at, thresholds, confidence_level, method, info)
    requested, ranks, index = _ranks_per_request(at, neg.size)
    ci = vertical_ci(pos, neg, ranks, confidence_level, method, bootstrap)
    tpr = count_at_or_above(pos, np.sort(neg)[::-1][ranks - 1]) / pos.size  # r-th largest
    columns = {
        "at": requested,
        "fpr": ci.fpr[index],
        "fpr_low": ci.fpr[index],
        "fpr_high": ci.fpr[index],
        "tpr": tpr[index],
        "mean": ci.mean[index],
        "tpr_low": ci.low[index],
        "tpr_high": ci.high[index],
    }
    return ROCBands(columns, ci.confidence_level, method, info)


def _threshold_bands(scores, pos, neg, at, thresholds, level, method, info) -> ROCBands:
    """:func:`roc_ci` under threshold averaging: a row per requested ratio or threshold."""
    columns = {}
    if thresholds is None:
        requested = _grid(at, "at (total positive ratios)")
        t = thresholds_at_ratio(scores, requested)
        if at is None:  # the default grid: each distinct threshold once
            t, first = np.unique(t[::-1], return_index=True)
            t, requested = t[::-1], requested[::-1][first][::-1]
        columns["q"] = requested
    else:
        t = check_thresholds(np.atleast_1d(thresholds))
    ci = threshold_ci(pos, neg, t, level, method, info["bootstrap"])
    columns |= {
        "threshold": ci.thresholds,
        "fpr": ci.fpr,
        "fpr_low": ci.fpr_low,
        "fpr_high": ci.fpr_high,
        "tpr": ci.tpr,
        "tpr_low": ci.tpr_low,
        "tpr_high": ci.tpr_high,
    }
    return ROCBands(columns, ci.confidence_level, method, info)


def cost_curve_ci(
    y_true,
    y_score,
    *,
    w=None,
    threshold="empirical",
    confidence_level: float = 0.95,
    method: str = "agresti",
    bootstrap: str = "stratified",
    pos_label=None,
) -> CostBands:
    """Pointwise confidence intervals of a classifier's normalized expected cost
    ``w (1 - TPR) + (1 - w) FPR`` (eq. 3.12) at operating conditions ``w``.

    Parameters
    ----------
    y_true, y_score : array-like of shape (n,)
    w : array-like, optional
        Operating conditions in (0, 1) (default 0.01, ..., 0.99): the cost of a false negative
        times the positive class share, normalized (thesis section 3.3).
    threshold : "empirical" or array-like, default "empirical"
        The threshold used at each ``w``: the data's cost-minimizing one, or given.
    confidence_level : float, default 0.95
    method : {"agresti", "score", "wald"}, default "agresti"
    bootstrap : {"stratified", "full"}, default "stratified"
    pos_label : optional

    Returns
    -------
    CostBands

    References
    ----------
    Gadoury (2009), chapter 5, eqs. 5.3-5.5 (stratified), 5.9-5.11 (full).

    Examples
    --------
    >>> bands = cost_curve_ci([1, 1, 0, 1, 0, 0], [0.9, 0.8, 0.7, 0.6, 0.3, 0.2], w=[0.5])
    >>> bands.to_frame()[["w", "cost"]].round(3).values.tolist()
    [[0.5, 0.167]]
    """
    positive, (scores,) = check_labels_and_scores(y_true, y_score, pos_label=pos_label)
    w = DEFAULT_GRID if w is None else w  # validated by the cost core
    ci = cost_ci(
        scores[positive],
        scores[~positive],
        w,
        threshold,
        confidence_level,
        method,
        None,
        bootstrap,
    )
    columns = {
        "w": ci.w,
        "threshold": ci.thresholds,
        "cost": ci.cost,
        "low": ci.low,
        "high": ci.high,
    }
    return CostBands(columns, ci.confidence_level, method, {"bootstrap": bootstrap})


# --- two classifiers --------------------------------------------------------------------------


def compare_roc(
    y_true,
    y_score1,
    y_score2,
    *,
    averaging: str = "threshold",
    at=None,
    thresholds=None,
    confidence_level: float = 0.95,
    method: str | None = None,
    pos_label=None,
) -> ROCComparison:
    """Where does one classifier's ROC curve beat the other's? Exact paired bootstrap.

    Both classifiers score the same instances, so the bootstrap resamples instances with both
    scores (stratified); the interval is on ``dTPR = TPR1 - TPR2``.

    Parameters
    ----------
    y_true, y_score1, y_score2 : array-like of shape (n,)
    averaging : {"threshold", "vertical"}, default "threshold"
        ``threshold``: at each total positive ratio ``q`` (share of instances predicted
        positive) each classifier uses its own threshold (the score putting a share ``q`` at or
        above it); then a higher TPR also means a lower FPR. Columns add the ``dfpr``
        interval (eqs. 4.8-4.9, each axis at ``sqrt(level)``) and the probabilities that each
        classifier dominates (eq. 4.5). ``vertical``: at fixed FPRs (Algorithm 4.4; exact for
        ``n- <= 60``, a hybrid beyond, limited to ``PAIRED_VERTICAL_LIMIT`` per class);
        ``p_first_higher`` is then the Gaussian ``Pr{dTPR > 0}`` with the exact moments.
    at : array-like, optional
        Rates in (0, 1) on the averaging's axis: total positive ratios (threshold) or FPRs
        (vertical, each moved to the nearest ``r/n-``, reported in ``fpr``); one row per
        requested rate, in order. Default 0.01..0.99 (vertical: each distinct FPR once).
    thresholds : (array-like, array-like), optional
        Score thresholds instead of ``at`` (threshold averaging only): a pair ``(t1, t2)``
        of equal-length arrays, the first classifier's and the second's.
    confidence_level : float, default 0.95
    method : str, optional
        Threshold averaging: ``tango`` (default; Tango's score interval, which always
        contains the observed difference), ``score`` (the thesis's eq. 4.8), ``wald``,
        ``agresti`` or ``bonett_price``; vertical: ``score`` (default) or ``wald``.
    pos_label : optional

    Returns
    -------
    ROCComparison

    References
    ----------
    Gadoury (2009), sections 4.3.2 and 4.4.2.

    Examples
    --------
    >>> y = [1, 1, 1, 0, 0, 0]
    >>> cmp = compare_roc(y, [0.9, 0.8, 0.4, 0.5, 0.3, 0.2], [0.9, 0.3, 0.4, 0.5, 0.8, 0.2],
    ...                   at=[0.5])
    >>> cmp.t1.tolist(), cmp.t2.tolist(), cmp.dtpr.round(4).tolist()
    ([0.5], [0.5], [0.3333])
    """
    positive, (s1, s2) = check_labels_and_scores(y_true, y_score1, y_score2, pos_label=pos_label)
    check_choice(averaging, AVERAGING, "averaging")
    _rates_or_thresholds(averaging, at, thresholds)
    pos1, pos2, neg1, neg2 = s1[positive], s2[positive], s1[~positive], s2[~positive]
    info = {"averaging": averaging, "n_pos": pos1.size, "n_neg": neg1.size}
    if averaging == "threshold":
        method = method or "tango"
        columns = {}
        if thresholds is None:
            q = _grid(at, "at (total positive ratios)")
            t1, t2 = thresholds_at_ratio(s1, q), thresholds_at_ratio(s2, q)
            columns["q"] = q
        else:
            t1, t2 = _threshold_pair(thresholds)
        ci = threshold_difference_ci(pos1, pos2, neg1, neg2, t1, t2, confidence_level, method)
        first, second = dominance_probability(pos1, pos2, neg1, neg2, t1, t2)
        columns |= {
            "t1": t1,
            "t2": t2,
            "dtpr": ci.dtpr,
            "dtpr_low": ci.dtpr_low,
            "dtpr_high": ci.dtpr_high,
            "dfpr": ci.dfpr,
            "dfpr_low": ci.dfpr_low,
            "dfpr_high": ci.dfpr_high,
            "p_first_dominates": first,
            "p_second_dominates": second,
            "verdict": _verdict(ci.dtpr_low, ci.dtpr_high),
        }
        return ROCComparison(columns, ci.confidence_level, method, info)
    if max(pos1.size, neg1.size) > PAIRED_VERTICAL_LIMIT:
        raise ValueError(
            f"vertical averaging of two classifiers is limited to "
            f"{PAIRED_VERTICAL_LIMIT} instances per class (its cost grows with n "
            f"at every FPR); use averaging='threshold'"
        )
    method = method or "score"
    requested, ranks, index = _ranks_per_request(at, neg1.size)
    ci = vertical_difference_ci(pos1, pos2, neg1, neg2, ranks, confidence_level, method)
    sd = np.sqrt(ci.var)
    with np.errstate(divide="ignore", invalid="ignore"):
        higher = np.where(sd > 0, special.ndtr(ci.mean / sd), (ci.mean > 0).astype(float))
    columns = {
        "at": requested,
        "fpr": ci.fpr,
        "dtpr": ci.mean,
        "dtpr_low": ci.low,
        "dtpr_high": ci.high,
        "sd": sd,
        "p_first_higher": higher,
        "verdict": _verdict(ci.low, ci.high),
    }
    columns = {k: v if k == "at" else v[index] for k, v in columns.items()}
    info["algorithm"] = ci.algorithm
    return ROCComparison(columns, ci.confidence_level, method, info)


def compare_cost(
    y_true,
    y_score1,
    y_score2,
    *,
    w=None,
    threshold="empirical",
    confidence_level: float = 0.95,
    method: str = "agresti",
    bootstrap: str = "stratified",
    pos_label=None,
) -> CostComparison:
    """Where is one classifier cheaper than the other? Intervals for ``cost2 - cost1``.

    Parameters
    ----------
    y_true, y_score1, y_score2 : array-like of shape (n,)
    w : array-like, optional
        Operating conditions in (0, 1), default 0.01..0.99.
    threshold : "empirical" or (array-like, array-like), default "empirical"
        Each classifier's threshold at each ``w``: its own cost-minimizing one on the data, or
        a pair of arrays.
    confidence_level : float, default 0.95
    method : {"agresti", "score", "wald"}, default "agresti"
    bootstrap : {"stratified", "full"}, default "stratified"
    pos_label : optional

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
    positive, (s1, s2) = check_labels_and_scores(y_true, y_score1, y_score2, pos_label=pos_label)
    w = DEFAULT_GRID if w is None else w  # validated by the cost core
    if isinstance(threshold, str):
        t1 = t2 = threshold
    elif isinstance(threshold, Sequence) and len(threshold) == 2:
        t1, t2 = threshold
    else:
        raise ValueError("threshold must be 'empirical' or a pair (t1, t2) of arrays")
    ci = cost_difference_ci(
        s1[positive],
        s2[positive],
        s1[~positive],
        s2[~positive],
        w,
        t1,
        t2,
        confidence_level,
        method,
        None,
        bootstrap,
    )
    columns = {
        "w": ci.w,
        "t1": ci.t1,
        "t2": ci.t2,
        "cost_difference": ci.cost,
        "low": ci.low,
        "high": ci.high,
        "verdict": _verdict(ci.low, ci.high),
    }
    return CostComparison(columns, ci.confidence_level, method, {"bootstrap": bootstrap})


# --- area under the curve ---------------------------------------------------------------------


class AUCResult(_Table):
    """Result of :func:`auc_ci` (columns ``auc, var, low, high``) or :func:`compare_auc`
    (``auc1, auc2, difference, var, low, high, p_value``), one row."""

    def plot(self, ax=None):
        """The empirical ROC curve(s) with the AUC interval in the legend."""
        from rocsim.views.plots import plot_auc

        return plot_auc(self, ax)


def auc_ci(
    y_true, y_score, *, method: str = "delong", confidence_level: float = 0.95, pos_label=None
) -> AUCResult:
    """The AUC with a confidence interval: DeLong's, or the exact stratified bootstrap's.

    Parameters
    ----------
    y_true, y_score : array-like of shape (n,)
    method : {"delong", "exact_bootstrap"}, default "delong"
        ``delong``: the placement-value variance of DeLong et al. (1988);
        ``exact_bootstrap``: the variance of the stratified bootstrap in closed form (the
        limit of a Monte Carlo bootstrap with infinitely many resamples).
    confidence_level : float, default 0.95
    pos_label : optional

    Returns
    -------
    AUCResult
        ``auc``, ``var``, ``low``, ``high`` (normal interval, clipped to [0, 1]).

    References
    ----------
    DeLong, DeLong & Clarke-Pearson (1988), Biometrics 44, 837-845.

    Examples
    --------
    >>> round(float(auc_ci([1, 1, 0, 0], [0.9, 0.4, 0.5, 0.1]).auc[0]), 3)
    0.75
    """
    check_choice(method, AUC_METHODS, "AUC method")
    positive, (scores,) = check_labels_and_scores(y_true, y_score, pos_label=pos_label)
    pos, neg = scores[positive], scores[~positive]
    ci = auc_interval(pos, neg, confidence_level, method)
    columns = {k: np.atleast_1d(getattr(ci, k)) for k in ("auc", "var", "low", "high")}
    return AUCResult(columns, ci.confidence_level, method, {"curves": [roc_curve(pos, neg)[:2]]})


def compare_auc(
    y_true,
    y_score1,
    y_score2,
    *,
    method: str = "delong",
    confidence_level: float = 0.95,
    pos_label=None,
) -> AUCResult:
    """The paired difference ``AUC1 - AUC2`` of two classifiers scored on the same instances,
    with a confidence interval and a two-sided p-value (DeLong or exact bootstrap variance).

    Examples
    --------
    >>> y = [1, 1, 1, 0, 0, 0]
    >>> cmp = compare_auc(y, [0.9, 0.8, 0.4, 0.5, 0.3, 0.2], [0.9, 0.3, 0.4, 0.5, 0.8, 0.2])
    >>> round(float(cmp.difference[0]), 4)
    0.3333
    """
    check_choice(method, AUC_METHODS, "AUC method")
    positive, (s1, s2) = check_labels_and_scores(y_true, y_score1, y_score2, pos_label=pos_label)
    pos1, pos2, neg1, neg2 = s1[positive], s2[positive], s1[~positive], s2[~positive]
    ci = auc_difference_interval(pos1, pos2, neg1, neg2, confidence_level, method)
    keys = ("auc1", "auc2", "difference", "var", "low", "high", "p_value")
    columns = {k: np.atleast_1d(getattr(ci, k)) for k in keys}
    curves = [roc_curve(pos1, neg1)[:2], roc_curve(pos2, neg2)[:2]]
    return AUCResult(columns, ci.confidence_level, method, {"curves": curves})
