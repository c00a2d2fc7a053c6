"""Cost curves with exact bootstrap intervals (thesis chapters 3 and 5).

Cost space. At operating condition ``w`` (eq. 3.1) the normalized expected cost of the ROC
point ``(FPR, TPR)`` is ``w (1 - TPR) + (1 - w) FPR`` (eq. 3.12): a *cost line* in ``w``. The
cost curve of a classifier is the lower envelope of its cost lines, the dual of the ROC convex
hull (Drummond & Holte 2006); :func:`cost_envelope` computes it in ``O(n log n)``.

Exact bootstrap moments at a threshold (one statistic per ``(w, t)`` pair). Write the cost as
``A X + B Y`` with ``X`` a statistic of the positives and ``Y`` one of the negatives:

* one classifier, ``X = 1 - TPR``, ``Y = FPR``;
* two classifiers (``cost2 - cost1``, eq. 5.6), ``X = TPR1 - TPR2 = (b+ - c+)/n+`` and
  ``Y = FPR2 - FPR1 = (c- - b-)/n-`` with ``b``, ``c`` the discordant cells of each class.

Stratified bootstrap (eqs. 5.3-5.8): ``A = w``, ``B = 1 - w``, and ``X``, ``Y`` are independent
with the binomial (multinomial) variances ``p(1 - p)/n`` and ``(g - d^2)/n`` (the thesis drops
the ``/m`` in eq. 5.5; eq. 5.8 has it).

Full bootstrap (eqs. 5.9-5.14): the statistic is ``(C(-|+) FN* + C(+|-) FP*)/(n C_max)`` with
``C(-|+) = w``, ``C(+|-) = 1 - w`` and ``C_max = max(w, 1 - w)``
(:ref:`reading-cost-full-bootstrap`). The class priors are
then those of the resample, so ``w`` sets the costs; it is the operating condition of eq. 3.1
when ``n+ = n-``. In terms of rates ``A = w pi / C_max``, ``B = (1 - w)(1 - pi) / C_max``
(``pi = n+/n``), and the law of total variance adds
``delta^2 = (w X - (1 - w) Y)^2 pi (1 - pi) / (n C_max^2)`` (eqs. 5.11 and 5.14). The statistic
is defined for every resample (an absent class contributes 0), so no resample is redrawn.

Intervals are Gaussian. Each class's statistic gets its interval from the shared dispatch
tables (:data:`~rocsim.core.intervals.PROPORTION_METHODS` for one classifier,
:data:`~rocsim.core.intervals.PAIRED_METHODS` for two); the interval of ``method`` is read as a
Gaussian (centre, half-width / z) and the two classes are combined as above:

* ``wald``: the exact bootstrap moments themselves;
* ``agresti``: the moments after adding ``pseudo_count`` to every cell of each class's table
  (Table 5.1, 2 per cell, for one classifier; Table 5.2, Agresti & Min's 1/2, for two);
* ``score``: each class's Wilson interval (eq. 4.2; paired: eq. 4.8 with eq. 4.9's nuisance),
  whose centre and spread are shrunk toward 1/2 (toward 0) like the score interval's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rocsim.core import _hull
from rocsim.core._validation import (
    SCHEMES,
    as_real_array,
    check_choice,
    check_conditions,
    check_confidence_level,
    check_paired,
    check_thresholds,
    check_two_classes,
    common_class_sizes,
)
from rocsim.core.counting import (
    chain_order,
    count_at_or_above,
    roc_counts,
    sorted_roc_counts,
    stacked_counts,
)
from rocsim.core.formulas import normal_quantile
from rocsim.core.intervals import (
    PAIRED_PROTOCOL,
    PROPORTION_PROTOCOL,
    check_pseudo_count,
    paired_formula,
    proportion_formula,
)
from rocsim.core.methods import check_method, method_name
from rocsim.core.paired_threshold import discordant_counts
from rocsim.core.registry import DEFAULT_METHODS, names
from rocsim.core.results import Result

#: Interval methods of cost curves: the proportion methods whose intervals are symmetric about
#: their centre and therefore read as Gaussians (:mod:`rocsim.core.registry`, kind ``cost``).
COST_METHODS = names("cost")

#: Likewise for the cost difference of two classifiers: the Gaussian paired methods.
COST_DIFFERENCE_METHODS = names("cost_difference")


#: How the threshold at operating condition ``w`` is chosen in studies
#: (:ref:`reading-cost-threshold`).
THRESHOLD_RULES = ("oracle", "empirical")

#: Class share in the target of the full formulas in studies: the test set's or the model's.
COST_PRIORS = ("sample", "population")


# --- cost space --------------------------------------------------------------------------------


def normalized_cost(w, tpr, fpr) -> np.ndarray:
    """Normalized expected cost ``w (1 - TPR) + (1 - w) FPR`` of a ROC point (eq. 3.12).

    Examples
    --------
    >>> float(normalized_cost(0.25, tpr=0.8, fpr=0.1))
    0.125
    """
    w = np.asarray(w, dtype=float)
    return w * (1.0 - np.asarray(tpr, dtype=float)) + (1.0 - w) * np.asarray(fpr, dtype=float)


def cost_weights(w, pi, bootstrap: str) -> tuple[np.ndarray, np.ndarray]:
    """Weights ``(A, B)`` of ``1 - TPR`` and ``FPR`` in the cost statistic of ``bootstrap``.

    ``(w, 1 - w)`` under the stratified bootstrap (eq. 5.3); ``(w pi, (1 - w)(1 - pi)) / C_max``
    under the full bootstrap (eq. 5.9 in rates, ``pi = n+/n``, ``C_max = max(w, 1 - w)``).
    """
    w = np.asarray(w, dtype=float)
    if bootstrap == "stratified":
        return w, 1.0 - w
    c_max = np.maximum(w, 1.0 - w)
    return w * pi / c_max, (1.0 - w) * (1.0 - pi) / c_max


def cost_target(w, tpr, fpr, pi: float, bootstrap: str) -> np.ndarray:
    """The quantity the intervals of ``bootstrap`` estimate, from true rates at a threshold.

    Stratified: the normalized cost of eq. 3.12. Full: the population value of eq. 5.9,
    ``(w pi (1 - TPR) + (1 - w)(1 - pi) FPR) / C_max`` with ``pi`` the share of positives.
    """
    a, b = cost_weights(w, pi, bootstrap)
    return a * (1.0 - np.asarray(tpr, dtype=float)) + b * np.asarray(fpr, dtype=float)


def effective_condition(w, pi: float, bootstrap: str) -> np.ndarray:
    """Operating condition ``w'`` whose eq. 3.12 cost is proportional to the statistic.

    The minimizing threshold of the ``bootstrap`` statistic at ``w`` is that of the normalized
    cost at ``w'``: ``w`` itself (stratified) or ``w pi / (w pi + (1 - w)(1 - pi))`` (full).
    """
    a, b = cost_weights(w, pi, bootstrap)
    return a / (a + b)


@dataclass(frozen=True, repr=False)
class CostEnvelope(Result):
    """Lower envelope of a classifier's cost lines at operating conditions ``w``.

    Attributes
    ----------
    w, cost : ndarray of shape (k,)
        Operating conditions and the envelope's cost there (the empirical cost curve).
    threshold : ndarray of shape (k,)
        The threshold of the minimizing ROC point (``inf``: everything negative); of several
        points with the same cost, the one with the highest threshold.
    tpr, fpr : ndarray of shape (k,)
        That ROC point.
    """

    w: np.ndarray
    cost: np.ndarray
    threshold: np.ndarray
    tpr: np.ndarray
    fpr: np.ndarray

    _columns = ("w", "cost", "threshold", "tpr", "fpr")
    _settings = ()
    _plot_kind = "cost"

    def _summary(self) -> str:
        return f"empirical cost curve at {self.w.size} operating conditions"


def cost_envelope(pos_scores, neg_scores, w) -> CostEnvelope:
    """Empirical cost curve with its minimizing thresholds (thesis 3.2-3.3).

    The cost lines of the points on the ROC convex hull are the only ones that reach the lower
    envelope; along the hull they win in order of increasing ``w``, at the breakpoints
    ``dFPR / (dTPR + dFPR)`` of its edges. One sort (``O(n log n)``), a linear hull scan and a
    binary search per ``w``.

    Parameters
    ----------
    pos_scores, neg_scores : array-like
        Scores of the positive and negative instances.
    w : array-like of shape (k,)
        Operating conditions in [0, 1].

    Returns
    -------
    CostEnvelope

    References
    ----------
    Drummond & Holte (2006), Cost curves: an improved method for visualizing classifier
    performance, Machine Learning 65. Gadoury (2009), eqs. 3.1 and 3.12.

    Examples
    --------
    >>> env = cost_envelope([0.9, 0.8, 0.3], [0.7, 0.2], [0.1, 0.5, 0.9])
    >>> env.cost.round(4).tolist(), env.threshold.tolist()
    ([0.0333, 0.1667, 0.05], [0.8, 0.8, 0.3])
    """
    pos, neg = check_two_classes(pos_scores, neg_scores)
    return _envelope(pos, neg, check_conditions(w))


def cost_curve(pos_scores, neg_scores, w) -> np.ndarray:
    """Empirical cost curve: the lower envelope of the cost lines at each ``w`` (eq. 3.12).

    Parameters
    ----------
    pos_scores, neg_scores : array-like
        Scores of the positive and negative instances.
    w : array-like of shape (k,)
        Operating conditions in [0, 1].

    Returns
    -------
    ndarray of shape (k,)
        ``min`` over the ROC points (including ``(0, 0)`` and ``(1, 1)``) of
        ``w (1 - TPR) + (1 - w) FPR``.

    Examples
    --------
    >>> cost_curve([0.9, 0.8, 0.3], [0.7, 0.2], [0.0, 0.5, 1.0]).round(4).tolist()
    [0.0, 0.1667, 0.0]
    """
    return cost_envelope(pos_scores, neg_scores, w).cost


def operating_range(pos_scores, neg_scores) -> tuple[float, float] | None:
    """Operating conditions where the classifier beats both trivial ones (thesis figure 3.7).

    The trivial classifiers cost ``w`` (all negative) and ``1 - w`` (all positive). A ROC
    point with ``TPR > FPR`` beats both for ``FPR/(TPR + FPR) < w < (1 - FPR)/(2 - TPR - FPR)``,
    an interval around ``w = 1/2``; the range is the union of these intervals.

    Returns
    -------
    (low, high) or None
        The open range of ``w``; ``None`` when no point lies above the diagonal.

    Examples
    --------
    >>> operating_range([0.9, 0.8, 0.3], [0.7, 0.2])
    (0.0, 1.0)
    """
    pos, neg = check_two_classes(pos_scores, neg_scores)
    _, tp, fp = roc_counts(pos, neg)
    tpr, fpr = tp / pos.size, fp / neg.size
    above = tpr > fpr
    if not np.any(above):
        return None
    tpr, fpr = tpr[above], fpr[above]
    return float(np.min(fpr / (tpr + fpr))), float(np.max((1.0 - fpr) / (2.0 - tpr - fpr)))


def _envelope(pos: np.ndarray, neg: np.ndarray, w: np.ndarray) -> CostEnvelope:
    vertex, thresholds, tpr, fpr = _envelope_vertices(pos, neg, w)
    return CostEnvelope(
        w,
        normalized_cost(w, tpr[vertex], fpr[vertex]),
        thresholds[vertex],
        tpr[vertex],
        fpr[vertex],
    )


def _envelope_vertices(pos: np.ndarray, neg: np.ndarray, w: np.ndarray):
    """``(vertex, thresholds, tpr, fpr)``: the empirical ROC points (from ``(0, 0)`` at an
    infinite threshold) and, per ``w``, the index of the one whose cost line is lowest."""
    thresholds, tp, fp = sorted_roc_counts(pos, neg)
    tpr = np.concatenate([[0.0], tp / pos.size])
    fpr = np.concatenate([[0.0], fp / neg.size])
    thresholds = np.concatenate([[np.inf], thresholds])
    hull = _upper_hull(fpr, tpr)
    d_fpr, d_tpr = np.diff(fpr[hull]), np.diff(tpr[hull])
    # edge j improves the cost at w iff w dTPR > (1 - w) dFPR, i.e. w > dFPR / (dTPR + dFPR);
    # on a concave hull these breakpoints increase, so the winners are a prefix of the edges
    breakpoints = d_fpr / (d_tpr + d_fpr)
    return hull[np.searchsorted(breakpoints, w, side="left")], thresholds, tpr, fpr


def _empirical_thresholds(pos: np.ndarray, neg: np.ndarray, w: np.ndarray, bootstrap: str):
    """The threshold minimizing the data's value of the ``bootstrap`` statistic at each ``w``
    (``thresholds="empirical"`` of :func:`cost_ci`)."""
    pi = pos.size / (pos.size + neg.size)
    vertex, thresholds, _, _ = _envelope_vertices(pos, neg, effective_condition(w, pi, bootstrap))
    return thresholds[vertex]


def _upper_hull(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Indices of the upper convex hull of points sorted by ``x`` then ``y`` (both
    non-decreasing, as along a ROC curve), collinear points dropped (Andrew's monotone chain,
    compiled: the same floating-point test as in Python, to the last rounding)."""
    return _hull.monotone_chain(
        np.ascontiguousarray(x, dtype=float), np.ascontiguousarray(y, dtype=float)
    )


# --- exact bootstrap moments and intervals ---------------------------------------------------


@dataclass(frozen=True, repr=False)
class CostCI(Result):
    """Gaussian intervals for the normalized cost of one classifier at ``(w, t)`` pairs.

    Attributes
    ----------
    w, thresholds : ndarray of shape (k,)
    cost : ndarray
        The data's value of the statistic (eq. 5.3 stratified, eq. 5.9 full), which is also
        its exact bootstrap mean (eqs. 5.4, 5.10).
    var : ndarray
        Exact bootstrap variance (eq. 5.5 or 5.11).
    low, high : ndarray
        Interval bounds of ``method``, clipped to [0, 1].
    tpr, fpr : ndarray
        Empirical rates at the thresholds.
    confidence_level : float
    method, bootstrap : str
    pseudo_count : float or None
    clipped : ndarray of bool
    """

    w: np.ndarray
    thresholds: np.ndarray
    cost: np.ndarray
    var: np.ndarray
    low: np.ndarray
    high: np.ndarray
    tpr: np.ndarray
    fpr: np.ndarray
    confidence_level: float
    method: str
    bootstrap: str
    pseudo_count: float | None
    clipped: np.ndarray

    _columns = ("w", "thresholds", "cost", "var", "low", "high", "tpr", "fpr", "clipped")
    _settings = ("confidence_level", "method", "bootstrap", "pseudo_count")
    _plot_kind = "cost"

    def _summary(self) -> str:
        return (
            f"normalized cost at {self.w.size} operating conditions "
            f"({self._level_and_method()}, {self.bootstrap} bootstrap)"
        )


@dataclass(frozen=True, repr=False)
class CostDifferenceCI(Result):
    """Gaussian intervals for ``cost2 - cost1`` at ``(w, t1, t2)`` (eqs. 5.6-5.8, 5.12-5.14).

    Fields as :class:`CostCI`, with ``t1``, ``t2`` the two classifiers' thresholds and bounds
    clipped to [-1, 1]; ``b_pos, c_pos, b_neg, c_neg`` are the discordant cells (judged
    positive by classifier 1 only, by classifier 2 only) of each class.
    """

    w: np.ndarray
    t1: np.ndarray
    t2: np.ndarray
    cost: np.ndarray
    var: np.ndarray
    low: np.ndarray
    high: np.ndarray
    b_pos: np.ndarray
    c_pos: np.ndarray
    b_neg: np.ndarray
    c_neg: np.ndarray
    confidence_level: float
    method: str
    bootstrap: str
    pseudo_count: float | None
    clipped: np.ndarray

    _columns = (
        "w",
        "t1",
        "t2",
        "cost",
        "var",
        "low",
        "high",
        "b_pos",
        "c_pos",
        "b_neg",
        "c_neg",
        "clipped",
    )
    _settings = ("confidence_level", "method", "bootstrap", "pseudo_count")
    _plot_kind = "difference"

    def _summary(self) -> str:
        return (
            f"cost2 - cost1 at {self.w.size} operating conditions "
            f"({self._level_and_method()}, {self.bootstrap} bootstrap)"
        )


def cost_ci(
    pos_scores,
    neg_scores,
    w,
    thresholds,
    *,
    confidence_level: float = 0.95,
    method: str | Callable = DEFAULT_METHODS["cost"],
    pseudo_count: float | None = None,
    bootstrap: str = "stratified",
) -> CostCI:
    """Confidence intervals for a classifier's normalized cost, exact bootstrap moments.

    Parameters
    ----------
    pos_scores, neg_scores : array-like
        Scores of the positive and negative instances.
    w : array-like of shape (k,)
        Operating conditions in [0, 1].
    thresholds : array-like of shape (k,) or "empirical"
        Threshold at each ``w`` (broadcast against ``w``); ``"empirical"`` takes the one that
        minimizes the data's value of the statistic at ``w`` (:func:`cost_envelope`).
    confidence_level : float, default 0.95
    method : {'agresti', 'score', 'wald'} or callable, default 'agresti'
        How each class's rate enters the Gaussian (module docstring); chapter 5 uses
        ``agresti``. A function ``f(x, n, confidence_level) -> (low, high)`` gives each
        class's interval instead (:mod:`rocsim.core.methods`).
    pseudo_count : float, optional
        For ``agresti``: added to each of the four cells of the confusion matrix (default 2,
        Table 5.1).
    bootstrap : {"stratified", "full"}, default "stratified"
        Resample the classes separately (eqs. 5.3-5.5) or the whole set (eqs. 5.9-5.11,
        normalized by ``n C_max`` with ``C(-|+) = w``, ``C(+|-) = 1 - w``).

    Returns
    -------
    CostCI
        ``cost, var, low, high`` per ``(w, threshold)`` pair.

    References
    ----------
    Gadoury (2009), eqs. 5.3-5.5, 5.9-5.11 and Table 5.1; Agresti & Coull (1998).

    Examples
    --------
    >>> ci = cost_ci([3, 2, 1, 0.5], [2, 0, -1, -2], w=[0.5], thresholds=[1.5],
    ...              method="wald", confidence_level=0.9)
    >>> float(ci.cost[0]), float(ci.var[0])
    (0.375, 0.02734375)
    """
    level, method, a = cost_ci_options(confidence_level, method, pseudo_count, bootstrap)
    pos, neg = check_two_classes(pos_scores, neg_scores)
    w_arr, thr = _conditions_and_thresholds(w, thresholds, pos, neg, bootstrap)
    tp, fp = count_at_or_above(pos, thr), count_at_or_above(neg, thr)
    mean, var, low, high = cost_interval_from_counts(
        tp, fp, pos.size, neg.size, w_arr, level, method, a, bootstrap
    )
    clipped = (low < 0.0) | (high > 1.0)
    return CostCI(
        w_arr,
        thr,
        mean,
        var,
        np.clip(low, 0.0, 1.0),
        np.clip(high, 0.0, 1.0),
        tp / pos.size,
        fp / neg.size,
        level,
        method_name(method),
        bootstrap,
        a,
        clipped,
    )


def cost_difference_ci(
    pos1,
    pos2,
    neg1,
    neg2,
    w,
    t1,
    t2,
    *,
    confidence_level: float = 0.95,
    method: str | Callable = DEFAULT_METHODS["cost_difference"],
    pseudo_count: float | None = None,
    bootstrap: str = "stratified",
) -> CostDifferenceCI:
    """Confidence intervals for the cost difference ``cost2 - cost1`` of two classifiers
    scored on the same instances (eq. 5.6), from exact bootstrap moments.

    Parameters
    ----------
    pos1, pos2, neg1, neg2 : array-like
        The two classifiers' scores of the same positives and negatives.
    w : array-like of shape (k,)
        Operating conditions in [0, 1].
    t1, t2 : array-like of shape (k,) or "empirical"
        Each classifier's threshold at each ``w``; ``"empirical"`` takes the one minimizing
        that classifier's own cost at ``w`` in the data.
    confidence_level : float, default 0.95
    method : {'agresti', 'score', 'wald'} or callable, default 'agresti'
        Per-class paired-difference interval read as a Gaussian (module docstring; the
        symmetric ones of :data:`COST_DIFFERENCE_METHODS`); a
        function ``f(b, c, n, confidence_level) -> (low, high)`` is one of your own.
    pseudo_count : float, optional
        For ``agresti``: added to each of the four cells of each class's 2x2 table of the two
        classifiers' decisions (default 1/2, Agresti & Min 2005; Table 5.2).
    bootstrap : {"stratified", "full"}, default "stratified"
        Eqs. 5.7-5.8, or eqs. 5.13-5.14 normalized by ``n C_max``.

    Returns
    -------
    CostDifferenceCI
        ``cost, mean, var, low, high`` per ``w``; positive values favour classifier 1.

    References
    ----------
    Gadoury (2009), eqs. 5.6-5.8, 5.12-5.14 and Table 5.2; Agresti & Min (2005).

    Examples
    --------
    >>> ci = cost_difference_ci([3, 2, 1], [3, 0, 2], [0, 1, 2], [1, 0, 3], w=[0.5],
    ...                         t1=[1.5], t2=[2.5], method="wald")
    >>> round(float(ci.cost[0]), 4), round(float(ci.var[0]), 4)
    (0.1667, 0.0185)
    """
    level, method, a = cost_ci_options(
        confidence_level, method, pseudo_count, bootstrap, paired=True
    )
    pos1, pos2, neg1, neg2 = check_paired(pos1, pos2, neg1, neg2)
    w_arr, thr1 = _conditions_and_thresholds(w, t1, pos1, neg1, bootstrap, "t1")
    w_arr, thr2 = _conditions_and_thresholds(w_arr, t2, pos2, neg2, bootstrap, "t2")
    # t2 can widen w (a single condition for several thresholds): t1 follows
    thr1 = np.broadcast_to(thr1, w_arr.shape).copy()
    b_pos, c_pos = discordant_counts(pos1, pos2, thr1, thr2)
    b_neg, c_neg = discordant_counts(neg1, neg2, thr1, thr2)
    counts, sizes = (b_pos, c_pos, b_neg, c_neg), (pos1.size, neg1.size)
    mean, var = _difference_moments(*counts, *sizes, w_arr, bootstrap)
    low, high = cost_difference_bounds_from_counts(
        *counts, *sizes, w_arr, level, method, a, bootstrap
    )
    clipped = (low < -1.0) | (high > 1.0)
    return CostDifferenceCI(
        w_arr,
        thr1,
        thr2,
        mean,
        var,
        np.clip(low, -1.0, 1.0),
        np.clip(high, -1.0, 1.0),
        b_pos,
        c_pos,
        b_neg,
        c_neg,
        level,
        method_name(method),
        bootstrap,
        a,
        clipped,
    )


def cost_interval_from_counts(
    tp, fp, n_pos: int, n_neg: int, w, level: float, method: str, pseudo_count, bootstrap: str
):
    """``(mean, var, low, high)`` of one classifier's cost from validated counts, unclipped.

    ``tp``, ``fp`` and ``w`` broadcast together. The fast path of :func:`cost_ci`, of the
    simulation studies and of :func:`rocsim.core.coverage.cost_exact_coverage`.
    """
    tpr, fpr = tp / n_pos, fp / n_neg
    mean, var = _combine(
        1.0 - tpr,
        tpr * (1.0 - tpr) / n_pos,
        fpr,
        fpr * (1.0 - fpr) / n_neg,
        w,
        n_pos,
        n_neg,
        bootstrap,
    )
    low, high = cost_bounds_from_counts(
        tp, fp, n_pos, n_neg, w, level, method, pseudo_count, bootstrap
    )
    return mean, var, low, high


def cost_bounds_from_counts(
    tp, fp, n_pos: int, n_neg: int, w, level: float, method: str, pseudo_count, bootstrap: str
):
    """``(low, high)`` of :func:`cost_interval_from_counts` alone, unclipped (the exact
    coverage needs no moments)."""
    z = normal_quantile(level)
    formula = proportion_formula(method)
    tpr_centre, tpr_var = _as_gaussian(formula(tp, n_pos, level, pseudo_count), z)
    fpr_centre, fpr_var = _as_gaussian(formula(fp, n_neg, level, pseudo_count), z)
    classes = (1.0 - tpr_centre, tpr_var, fpr_centre, fpr_var)
    return _normal_bounds(classes, w, n_pos, n_neg, bootstrap, z)


def _difference_moments(b_pos, c_pos, b_neg, c_neg, n_pos: int, n_neg: int, w, bootstrap: str):
    """Exact bootstrap mean and variance of ``cost2 - cost1`` from the discordant counts of
    each class (``b`` the first classifier alone above its threshold, ``c`` the second)."""
    d_pos, g_pos = (b_pos - c_pos) / n_pos, (b_pos + c_pos) / n_pos
    d_neg, g_neg = (c_neg - b_neg) / n_neg, (b_neg + c_neg) / n_neg
    pos_var, neg_var = (g_pos - d_pos**2) / n_pos, (g_neg - d_neg**2) / n_neg
    return _combine(d_pos, pos_var, d_neg, neg_var, w, n_pos, n_neg, bootstrap)


def cost_difference_bounds_from_counts(
    b_pos,
    c_pos,
    b_neg,
    c_neg,
    n_pos: int,
    n_neg: int,
    w,
    level: float,
    method: str,
    pseudo_count,
    bootstrap: str,
):
    """``(low, high)`` of ``cost2 - cost1`` from validated discordant counts, unclipped (the
    bounds of :func:`cost_difference_ci` alone)."""
    z = normal_quantile(level)
    formula = paired_formula(method)
    x_centre, x_var = _as_gaussian(formula(b_pos, c_pos, n_pos, level, pseudo_count), z)
    y_centre, y_var = _as_gaussian(formula(c_neg, b_neg, n_neg, level, pseudo_count), z)
    return _normal_bounds((x_centre, x_var, y_centre, y_var), w, n_pos, n_neg, bootstrap, z)


def _normal_bounds(classes, w, n_pos: int, n_neg: int, bootstrap: str, z: float):
    """``centre -+ z sd`` of the cost from each class's ``(centre, variance)``, ``classes``
    being ``(pos_centre, pos_var, neg_centre, neg_var)`` (:func:`_combine`)."""
    centre, spread = _combine(*classes, w, n_pos, n_neg, bootstrap)
    half = z * np.sqrt(spread)
    return centre - half, centre + half


def cost_ci_options(
    confidence_level, method, pseudo_count, bootstrap: str, *, paired: bool = False
) -> tuple[float, str, float | None]:
    """``(level, method, pseudo_count)`` checked and resolved (the method's default
    pseudo-count) as :func:`cost_ci` does, or :func:`cost_difference_ci` with ``paired``."""
    level = check_confidence_level(confidence_level)
    if paired:
        methods, protocol, kind = COST_DIFFERENCE_METHODS, PAIRED_PROTOCOL, "paired"
    else:
        methods, protocol, kind = COST_METHODS, PROPORTION_PROTOCOL, "proportion"
    method = check_method(method, methods, protocol, "cost interval method")
    a = check_pseudo_count(method, pseudo_count, kind)
    check_choice(bootstrap, SCHEMES, "bootstrap scheme")
    return level, method, a


def cost_bounds(samples, w, thresholds, level, method, pseudo_count, bootstrap: str):
    """``(low, high, thresholds)`` of :func:`cost_ci` for validated inputs, one row per test
    set of ``samples`` (``(pos, neg)`` pairs of finite 1-D scores, all of the same class
    sizes): a 1-D array ``w`` of conditions, thresholds of its shape or ``"empirical"``, and
    the :func:`cost_ci_options` options. The simulation studies' path: the same values
    without the checks and the moments, the formulas evaluated on all the test sets' counts
    at once (elementwise: each row as it would be alone)."""
    thr = [_thresholds(pos, neg, w, thresholds, bootstrap) for pos, neg in samples]
    tp = stacked_counts([count_at_or_above(pos, t) for (pos, _), t in zip(samples, thr)])
    fp = stacked_counts([count_at_or_above(neg, t) for (_, neg), t in zip(samples, thr)])
    n_pos, n_neg = common_class_sizes((pos.size, neg.size) for pos, neg in samples)
    low, high = cost_bounds_from_counts(
        tp, fp, n_pos, n_neg, w, level, method, pseudo_count, bootstrap
    )
    low, high = (np.reshape(v, (len(samples), -1)) for v in (low, high))
    return np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0), np.stack(thr)


def cost_difference_bounds(samples, w, t1, t2, level, method, pseudo_count, bootstrap: str):
    """``(low, high, t1, t2)`` of :func:`cost_difference_ci` for validated inputs, one row per
    paired test set of ``samples`` (``(pos1, pos2, neg1, neg2)``), as :func:`cost_bounds`
    (each classifier's thresholds an array of ``w``'s shape or ``"empirical"``)."""
    thr1 = [_thresholds(p1, n1, w, t1, bootstrap) for p1, _, n1, _ in samples]
    thr2 = [_thresholds(p2, n2, w, t2, bootstrap) for _, p2, _, n2 in samples]
    # the same thresholds for every test set (oracle): their order found once
    fixed = not isinstance(t1, str) and not isinstance(t2, str)
    order = chain_order(thr1[0], thr2[0]) if fixed else None
    counts = [
        (*discordant_counts(p1, p2, a, b, order), *discordant_counts(n1, n2, a, b, order))
        for (p1, p2, n1, n2), a, b in zip(samples, thr1, thr2)
    ]
    b_pos, c_pos, b_neg, c_neg = (stacked_counts(column) for column in zip(*counts))
    n_pos, n_neg = common_class_sizes((p1.size, n1.size) for p1, _, n1, _ in samples)
    low, high = cost_difference_bounds_from_counts(
        b_pos, c_pos, b_neg, c_neg, n_pos, n_neg, w, level, method, pseudo_count, bootstrap
    )
    low, high = (np.reshape(v, (len(samples), -1)) for v in (low, high))
    return np.clip(low, -1.0, 1.0), np.clip(high, -1.0, 1.0), np.stack(thr1), np.stack(thr2)


def _thresholds(pos, neg, w, thresholds, bootstrap: str) -> np.ndarray:
    """The given thresholds, or the test set's own (``"empirical"``)."""
    if isinstance(thresholds, str):
        return _empirical_thresholds(pos, neg, w, bootstrap)
    return thresholds


def _combine(x_mean, x_var, y_mean, y_var, w, n_pos: int, n_neg: int, bootstrap: str):
    """Mean and variance of ``A X + B Y`` from the classes' own (conditional) moments.

    Under the full bootstrap the class sizes are random, ``N+ ~ Bin(n, pi)``; by iterated
    expectations the variance gains ``Var(E[. | N+]) = (w X - (1 - w) Y)^2 Var(N+)/(n C_max)^2``
    with ``Var(N+) = n pi (1 - pi)`` (the ``delta^2`` of eqs. 5.11 and 5.14).
    """
    pi = n_pos / (n_pos + n_neg)
    a, b = cost_weights(w, pi, bootstrap)
    mean = a * x_mean + b * y_mean
    var = a * a * x_var + b * b * y_var
    if bootstrap == "full":
        c_max = np.maximum(w, 1.0 - w)
        between = (w * x_mean - (1.0 - w) * y_mean) ** 2
        var = var + between * pi * (1.0 - pi) / ((n_pos + n_neg) * c_max**2)
    return mean, var


def _as_gaussian(bounds, z: float) -> tuple[np.ndarray, np.ndarray]:
    """Centre and variance of the Gaussian whose ``z``-interval is ``bounds`` (symmetric)."""
    low, high = (np.asarray(v, dtype=float) for v in bounds)
    return (low + high) / 2.0, ((high - low) / (2.0 * z)) ** 2


def _conditions_and_thresholds(
    w, thresholds, pos: np.ndarray, neg: np.ndarray, bootstrap: str, name: str = "thresholds"
):
    w_arr = check_conditions(w)
    if isinstance(thresholds, str):
        if thresholds != "empirical":
            raise ValueError(f"{name} must be an array or 'empirical', got {thresholds!r}")
        return w_arr, _empirical_thresholds(pos, neg, w_arr, bootstrap)
    thr = check_thresholds(np.atleast_1d(as_real_array(thresholds, name)), name)
    try:
        w_arr, thr = np.broadcast_arrays(w_arr, thr)
    except ValueError:
        raise ValueError(f"w and {name} must broadcast: {w_arr.size} != {thr.size}") from None
    return w_arr.copy(), thr.copy()
