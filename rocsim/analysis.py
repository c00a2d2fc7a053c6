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
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from rocsim.core._validation import check_choice, check_rates, check_scores, check_thresholds
from rocsim.core.area import AUC_METHODS, auc_difference_interval, auc_interval
from rocsim.core.cost import cost_ci, cost_difference_ci
from rocsim.core.paired_threshold import dominance_probability, threshold_difference_ci
from rocsim.core.paired_vertical import vertical_difference_ci
from rocsim.core.precision_recall import (
    PRCI,
    PRThresholdCI,
    nearest_recall_ranks,
    pr_curve_ci,
    pr_threshold_ci,
)
from rocsim.core.results import Result, as_float
from rocsim.core.roc import roc_curve
from rocsim.core.threshold import threshold_ci
from rocsim.core.vertical import SIDES, fpr_ranks, horizontal_ci, nearest_ranks, vertical_ci

#: Ways of averaging ROC curves (thesis 4.1): at fixed thresholds, at fixed FPRs (vertical), or
#: at fixed TPRs (horizontal: the vertical law with the classes exchanged).
AVERAGING = ("threshold", "vertical", "horizontal")
#: Default grid: total positive ratios (threshold), FPRs (vertical) or operating conditions w.
DEFAULT_GRID = np.round(np.linspace(0.01, 0.99, 99), 12)
#: Largest class for the paired vertical difference, whose cost grows with n per FPR.
PAIRED_VERTICAL_LIMIT = 100_000


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


def _check_placement(
    averaging: str, at, thresholds, side: str = "lower", valid: tuple[str, ...] = AVERAGING
) -> None:
    """``at`` (rates) and ``thresholds`` (scores) are two ways to place the points; one at a
    time, and score thresholds only where points are thresholds; ``side`` only where the
    points sit on vertical steps."""
    check_choice(averaging, valid, "averaging")
    check_choice(side, SIDES, "side")
    if side != "lower" and averaging != "vertical":
        raise ValueError(
            f"side applies to averaging='vertical' (the ends of the ROC curve's vertical "
            f"step at an FPR), not to averaging={averaging!r}"
        )
    if thresholds is None:
        return
    if at is not None:
        raise ValueError("give at (rates) or thresholds (scores), not both")
    if averaging != "threshold":
        raise ValueError(
            f"thresholds apply to averaging='threshold'; {averaging} averaging places its "
            "points at rates, given by at"
        )


def _ranks_per_request(
    at, m: int, name: str = "at (FPRs)"
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The requested rates (FPRs, or TPRs for horizontal averaging), the distinct ranks they
    round to among ``m`` and, per request, its index into those ranks: a row per request, even
    where two requests share a rate ``r/m``. Without ``at``, every distinct rate nearest the
    default grid, once."""
    if at is None:
        ranks = fpr_ranks(DEFAULT_GRID, m)
        return ranks / m, ranks, np.arange(ranks.size)
    requested = check_rates(at, name)
    ranks, index = np.unique(nearest_ranks(requested, m), return_inverse=True)
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


@dataclass(frozen=True, repr=False)
class _Table(Result):
    """Columns of equal length (one row per point) and how they were computed; the result
    protocol of :mod:`rocsim.core.results` (``to_frame``, one-line ``repr``, ``plot``)."""

    columns: dict[str, Any]
    confidence_level: float
    method: str
    info: dict[str, Any] = field(default_factory=dict)

    def __getattr__(self, name: str):
        columns = self.__dict__.get("columns", {})
        if name in columns:
            return columns[name]
        raise AttributeError(f"{type(self).__name__} has no column or attribute {name!r}")

    def _column_values(self) -> dict[str, Any]:
        return self.columns

    def to_frame(self) -> pd.DataFrame:
        """The table as a pandas DataFrame, one row per point; the settings (level, method,
        averaging, class sizes, ...) in ``.attrs``."""
        frame = super().to_frame()
        scalars = (str, int, float, bool, np.generic)
        frame.attrs.update({k: v for k, v in self.info.items() if isinstance(v, scalars)})
        return frame

    def _sizes(self) -> str:
        return f"n+={self.info['n_pos']}, n-={self.info['n_neg']}"

    def _points(self) -> int:
        return int(np.size(next(iter(self.columns.values()))))


class ROCBands(_Table):
    """Result of :func:`roc_ci`: columns ``fpr, fpr_low, fpr_high, tpr, tpr_low, tpr_high``
    (and ``threshold`` for threshold averaging, ``mean`` for vertical and horizontal
    averaging); ``.plot()`` draws the empirical ROC curve with the rectangles or the band."""

    _plot_kind = "roc"

    def _summary(self) -> str:
        averaging = self.info["averaging"]
        side = f", {self.info['side']} side" if averaging == "vertical" else ""
        axis = ""
        if averaging == "threshold":
            axis = f"; each axis at {100 * self.info['axis_level']:.2f}%"
        return (
            f"ROC bands at {self._points()} points, {averaging} averaging{side} "
            f"({self._level_and_method()}{axis}, {self._sizes()})"
        )


class ROCComparison(_Table):
    """Result of :func:`compare_roc`: ``dtpr = TPR1 - TPR2`` with ``dtpr_low, dtpr_high`` at
    each point (horizontal averaging: ``dfpr = FPR1 - FPR2``), and ``verdict`` (``first
    better``, ``second better``, ``no difference``); ``.plot()`` draws the difference."""

    _plot_kind = "difference"

    def _summary(self) -> str:
        averaging = self.info["averaging"]
        what = "FPR1 - FPR2" if averaging == "horizontal" else "TPR1 - TPR2"
        return (
            f"{what} at {self._points()} points, {averaging} averaging "
            f"({self._level_and_method()}, {self._sizes()})"
        )


class CostBands(_Table):
    """Result of :func:`cost_curve_ci`: ``w, threshold, cost, low, high``; ``.plot()`` draws
    the cost curve with its band."""

    _plot_kind = "cost"

    def _summary(self) -> str:
        return (
            f"cost curve at {self._points()} operating conditions "
            f"({self._level_and_method()}, {self.info['bootstrap']} bootstrap)"
        )


class CostComparison(_Table):
    """Result of :func:`compare_cost`: ``cost_difference = cost2 - cost1`` (positive where
    the first classifier is cheaper) with ``low, high`` and ``verdict``."""

    _plot_kind = "difference"

    def _summary(self) -> str:
        return (
            f"cost2 - cost1 at {self._points()} operating conditions "
            f"({self._level_and_method()}, {self.info['bootstrap']} bootstrap)"
        )


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
    side: str = "lower",
    pos_label=None,
) -> ROCBands:
    """Pointwise confidence intervals of a classifier's ROC curve, from the exact bootstrap.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, any two values.
    y_score : array-like of shape (n,)
        Scores, higher meaning positive (probabilities, logits, ...).
    averaging : {"threshold", "vertical", "horizontal"}, default "threshold"
        ``threshold``: rectangles for (FPR, TPR) at fixed thresholds (Algorithm 4.1, each axis
        at ``sqrt(confidence_level)``; pROC's ``ci.thresholds`` uses the level per axis);
        ``vertical``: intervals for TPR at fixed FPRs (Algorithm 4.3; sensitivity at fixed
        specificity, pROC's ``ci.se``); ``horizontal``: intervals for FPR at fixed TPRs
        (specificity ``1 - FPR`` at fixed sensitivity, pROC's ``ci.sp``;
        :func:`rocsim.horizontal_ci`).
    at : array-like, optional
        Where to place the points, as rates in (0, 1) on the averaging's axis: total positive
        ratios ``q`` (threshold averaging; the threshold is the score putting a share ``q`` of
        the instances at or above it), FPRs (vertical; each moved to the nearest ``r/n-``,
        reported in the ``fpr`` column) or TPRs (horizontal; each moved to the nearest
        ``k/n+``, reported in ``tpr``). One row per requested rate, in the given order,
        even where two rates share a threshold or a rank. Default: 0.01, ..., 0.99, each
        distinct threshold or rank once.
    thresholds : array-like, optional
        Score thresholds instead of ``at`` (threshold averaging only); one row each.
    confidence_level : float, default 0.95
    method : str, default "score"
        Interval method: ``score``, ``wald``, ``agresti`` or ``percentile`` (the exact
        bootstrap quantiles); threshold averaging also takes every other proportion method
        (``jeffreys``, ``clopper_pearson``).
    bootstrap : {"stratified", "full"}, default "stratified"
    side : {"lower", "upper"}, default "lower"
        Vertical averaging: which end of the ROC curve's vertical step at FPR ``r/n-``. ``lower``
        (the thesis): positives scoring at least the ``r``-th largest negative; ``upper``
        (pROC's ``coords`` and ``ci.se``): positives scoring above the ``(r + 1)``-th largest
        negative. Both exact; see :func:`rocsim.vertical_distribution`.
    pos_label : optional
        The positive label (needed unless the labels are 0/1, -1/1 or booleans).

    Returns
    -------
    ROCBands
        Columns ``fpr, fpr_low, fpr_high, tpr, tpr_low, tpr_high``; threshold averaging adds
        ``q`` (the requested ratio; absent when ``thresholds`` are given) and ``threshold``;
        vertical adds ``at`` (the requested FPR; ``fpr`` is the one used) and ``mean`` (the
        bootstrap mean of TPR); horizontal adds ``at`` (the requested TPR; ``tpr`` is the one
        used) and ``mean`` (the bootstrap mean of FPR).

    References
    ----------
    Gadoury (2009), sections 4.1-4.2, Algorithms 4.1 and 4.3. Robin et al. (2011), pROC,
    BMC Bioinformatics 12:77 (the upper side, ``ci.se`` and ``ci.sp``).

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
    _check_placement(averaging, at, thresholds, side)
    pos, neg = scores[positive], scores[~positive]
    info = {
        "averaging": averaging,
        "bootstrap": bootstrap,
        "n_pos": pos.size,
        "n_neg": neg.size,
        "curve": roc_curve(pos, neg)[:2],
    }
    options = {"confidence_level": confidence_level, "method": method, "bootstrap": bootstrap}
    if averaging == "threshold":
        return _threshold_bands(scores, pos, neg, at, thresholds, options, info)
    if averaging == "horizontal":
        requested, ranks, index = _ranks_per_request(at, pos.size, "at (TPRs)")
        ci = horizontal_ci(pos, neg, ranks, **options)
        columns = {
            "at": requested,
            "fpr": ci.fpr[index],
            "fpr_low": ci.low[index],
            "fpr_high": ci.high[index],
            "mean": ci.mean[index],
            "tpr": ci.tpr[index],
            "tpr_low": ci.tpr[index],
            "tpr_high": ci.tpr[index],
        }
        return ROCBands(columns, ci.confidence_level, ci.method, info)
    requested, ranks, index = _ranks_per_request(at, neg.size)
    ci = vertical_ci(pos, neg, ranks, side=side, **options)
    columns = {
        "at": requested,
        "fpr": ci.fpr[index],
        "fpr_low": ci.fpr[index],
        "fpr_high": ci.fpr[index],
        "tpr": ci.tpr[index],
        "mean": ci.mean[index],
        "tpr_low": ci.low[index],
        "tpr_high": ci.high[index],
    }
    return ROCBands(columns, ci.confidence_level, ci.method, info | {"side": side})


def _placed_thresholds(scores, at, thresholds) -> tuple[np.ndarray, np.ndarray | None]:
    """Threshold averaging's thresholds and the total positive ratios they answer (``None``
    when the thresholds are given): a row per requested ratio or threshold, and without either
    each distinct threshold of the default grid once."""
    if thresholds is not None:
        return check_thresholds(np.atleast_1d(thresholds)), None
    requested = _grid(at, "at (total positive ratios)")
    t = thresholds_at_ratio(scores, requested)
    if at is None:
        t, first = np.unique(t[::-1], return_index=True)
        t, requested = t[::-1], requested[::-1][first][::-1]
    return t, requested


def _threshold_bands(scores, pos, neg, at, thresholds, options, info) -> ROCBands:
    """:func:`roc_ci` under threshold averaging: a row per requested ratio or threshold."""
    t, requested = _placed_thresholds(scores, at, thresholds)
    columns = {} if requested is None else {"q": requested}
    ci = threshold_ci(pos, neg, t, **options)
    columns |= {
        "threshold": ci.thresholds,
        "fpr": ci.fpr,
        "fpr_low": ci.fpr_low,
        "fpr_high": ci.fpr_high,
        "tpr": ci.tpr,
        "tpr_low": ci.tpr_low,
        "tpr_high": ci.tpr_high,
    }
    info = info | {"axis_level": ci.axis_level}
    return ROCBands(columns, ci.confidence_level, ci.method, info)


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
        confidence_level=confidence_level,
        method=method,
        pseudo_count=None,
        bootstrap=bootstrap,
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
    side: str = "lower",
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
        classifier dominates (eq. 4.5). ``vertical``: at fixed FPRs (Algorithm 4.4, exact, limited
        to ``PAIRED_VERTICAL_LIMIT`` per class);
        ``p_first_higher`` is then the Gaussian ``Pr{dTPR > 0}`` with the exact moments.
        ``horizontal``: ``dFPR = FPR1 - FPR2`` at fixed TPRs (the vertical algorithm with the
        classes exchanged; columns ``dfpr, dfpr_low, dfpr_high``, ``p_first_lower``; the first
        is better where its FPR is lower).
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
        ``agresti`` or ``bonett_price``; vertical and horizontal: ``score`` (default) or
        ``wald``.
    side : {"lower", "upper"}, default "lower"
        Vertical averaging: which end of each curve's vertical step (:func:`roc_ci`).
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
    _check_placement(averaging, at, thresholds, side)
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
        ci = threshold_difference_ci(
            pos1, pos2, neg1, neg2, t1, t2, confidence_level=confidence_level, method=method
        )
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
            f"{averaging} averaging of two classifiers is limited to "
            f"{PAIRED_VERTICAL_LIMIT} instances per class (its cost grows with n "
            f"at every point); use averaging='threshold'"
        )
    method = method or "score"
    options = {"confidence_level": confidence_level, "method": method}
    if averaging == "horizontal":
        # FPR at TPR k/n+ is 1 - (upper-side TPR at FPR (n+ - k)/n+) with the classes
        # exchanged and the scores negated (horizontal_ci), so dFPR = -(that difference)
        requested, ranks, index = _ranks_per_request(at, pos1.size, "at (TPRs)")
        ci = vertical_difference_ci(
            -neg1, -neg2, -pos1, -pos2, pos1.size - ranks, side="upper", **options
        )
        sd = np.sqrt(ci.var)
        columns = {
            "at": requested,
            "tpr": ranks / pos1.size,
            "dfpr": -ci.mean,
            "dfpr_low": -ci.high,
            "dfpr_high": -ci.low,
            "sd": sd,
            "p_first_lower": _gaussian_above_zero(ci.mean, sd),
            "verdict": _verdict(ci.low, ci.high),
        }
    else:
        requested, ranks, index = _ranks_per_request(at, neg1.size)
        ci = vertical_difference_ci(pos1, pos2, neg1, neg2, ranks, side=side, **options)
        sd = np.sqrt(ci.var)
        columns = {
            "at": requested,
            "fpr": ci.fpr,
            "dtpr": ci.mean,
            "dtpr_low": ci.low,
            "dtpr_high": ci.high,
            "sd": sd,
            "p_first_higher": _gaussian_above_zero(ci.mean, sd),
            "verdict": _verdict(ci.low, ci.high),
        }
        info["side"] = side
    columns = {k: v if k == "at" else v[index] for k, v in columns.items()}
    info["algorithm"] = ci.algorithm
    return ROCComparison(columns, ci.confidence_level, ci.method, info)


def _gaussian_above_zero(mean: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """``Pr{X > 0}`` for ``X ~ N(mean, sd^2)``; a point mass where ``sd = 0``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sd > 0, special.ndtr(mean / sd), (mean > 0).astype(float))


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
        confidence_level=confidence_level,
        method=method,
        pseudo_count=None,
        bootstrap=bootstrap,
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
    """Result of :func:`auc_ci` (``auc, var, low, high``) or :func:`compare_auc`
    (``auc1, auc2, difference, var, low, high, p_value``): Python floats, a one-row
    ``to_frame()``; ``.plot()`` draws the empirical ROC curve(s) with the AUC in the legend."""

    _plot_kind = "auc"

    def _summary(self) -> str:
        settings = f"({self._level_and_method()}, {self._sizes()})"
        if "auc" in self.columns:
            return f"AUC {self.auc:.3f} [{self.low:.3f}, {self.high:.3f}] {settings}"
        return (
            f"AUC1 - AUC2 {self.difference:+.3f} [{self.low:+.3f}, {self.high:+.3f}], "
            f"p = {self.p_value:.3g} {settings}"
        )


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
    >>> auc_ci([1, 1, 0, 0], [0.9, 0.4, 0.5, 0.1]).auc
    0.75
    """
    check_choice(method, AUC_METHODS, "AUC method")
    positive, (scores,) = check_labels_and_scores(y_true, y_score, pos_label=pos_label)
    pos, neg = scores[positive], scores[~positive]
    ci = auc_interval(pos, neg, confidence_level=confidence_level, method=method)
    columns = {k: as_float(getattr(ci, k)) for k in ("auc", "var", "low", "high")}
    info = {"n_pos": pos.size, "n_neg": neg.size, "curves": [roc_curve(pos, neg)[:2]]}
    return AUCResult(columns, ci.confidence_level, method, info)


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
    >>> round(cmp.difference, 4)
    0.3333
    """
    check_choice(method, AUC_METHODS, "AUC method")
    positive, (s1, s2) = check_labels_and_scores(y_true, y_score1, y_score2, pos_label=pos_label)
    pos1, pos2, neg1, neg2 = s1[positive], s2[positive], s1[~positive], s2[~positive]
    ci = auc_difference_interval(
        pos1, pos2, neg1, neg2, confidence_level=confidence_level, method=method
    )
    keys = ("auc1", "auc2", "difference", "var", "low", "high", "p_value")
    columns = {k: as_float(getattr(ci, k)) for k in keys}
    curves = [roc_curve(pos1, neg1)[:2], roc_curve(pos2, neg2)[:2]]
    info = {"n_pos": pos1.size, "n_neg": neg1.size, "curves": curves}
    return AUCResult(columns, ci.confidence_level, method, info)


# --- precision-recall -------------------------------------------------------------------------

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
) -> PRCI | PRThresholdCI:
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
        of the instances at or above it, as in :func:`roc_ci`). One row per requested rate, in
        the given order. Default: 0.01, ..., 0.99, each distinct recall or threshold once.
    averaging : {"vertical", "threshold"}, default "vertical"
        ``vertical``: intervals for precision at fixed recalls (the threshold of a resample is
        its ``r``-th largest positive); ``threshold``: rectangles for (recall, precision) at
        fixed score thresholds, each axis at ``sqrt(confidence_level)``.
    thresholds : array-like, optional
        Score thresholds instead of ``at`` (threshold averaging only); one row each.
    confidence_level : float, default 0.95
    method : {"score", "wald", "percentile"}, default "score"
        See :func:`rocsim.core.precision_recall.pr_curve_ci`.
    pos_label : optional
        The positive label (needed unless the labels are 0/1, -1/1 or booleans).

    Returns
    -------
    PRCI or PRThresholdCI
        ``.to_frame()`` has the columns ``recall, precision, low, high`` first (``precision``
        the data's, ``low``, ``high`` its bounds); the exact bootstrap law is ``.law``
        (``law.mean``, ``law.var``, ``law.quantile(p)``); ``.plot(ax=None)`` draws the
        empirical curve with the band or the rectangles.

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
    positive, (scores,) = check_labels_and_scores(y_true, y_score, pos_label=pos_label)
    _check_placement(averaging, at, thresholds, valid=PR_AVERAGING)
    pos, neg = scores[positive], scores[~positive]
    options = {"confidence_level": confidence_level, "method": method}
    if averaging == "vertical":
        requested = None if at is None else check_rates(at, "at (recalls)")
        ranks = nearest_recall_ranks(DEFAULT_GRID if at is None else requested, pos.size)
        if at is None:  # the default grid: each distinct recall once
            ranks = np.unique(ranks)
        return replace(pr_curve_ci(pos, neg, ranks, **options), at=requested)
    t, requested = _placed_thresholds(scores, at, thresholds)
    return replace(pr_threshold_ci(pos, neg, t, **options), q=requested)
