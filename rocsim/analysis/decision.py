"""Decision curves of the user's own models: net benefit with exact bootstrap intervals."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rocsim.analysis._input import scored
from rocsim.analysis.results import _Table
from rocsim.core._validation import SCHEMES, check_choice, check_confidence_level
from rocsim.core.intervals import check_pseudo_count
from rocsim.core.methods import check_method, method_name
from rocsim.core.net_benefit import (
    NET_BENEFIT_METHODS,
    NET_BENEFIT_PROTOCOL,
    NetBenefitCI,
    NetBenefitDifference,
    NetBenefitDifferenceCI,
    NetBenefitDistribution,
    check_difference_method,
    check_threshold_probabilities,
    net_benefit_difference_distribution,
    net_benefit_distribution,
)
from rocsim.core.registry import DEFAULT_METHODS

#: dcurves' default threshold probabilities: 0, 0.01, ..., 0.99.
DEFAULT_THRESHOLDS = np.arange(100) / 100


@dataclass(frozen=True, repr=False, eq=False)
class NetBenefitCurve(_Table):
    """Result of :func:`net_benefit_ci`: at each threshold probability the model's net benefit
    and treat-all's, each with its interval; ``law`` is the model's exact bootstrap law
    (``law.mean``, ``law.var``, one per threshold), ``treat_all_law`` treat-all's."""

    threshold: np.ndarray
    net_benefit: np.ndarray
    net_benefit_low: np.ndarray
    net_benefit_high: np.ndarray
    treat_all: np.ndarray
    treat_all_low: np.ndarray
    treat_all_high: np.ndarray
    confidence_level: float
    method: str
    bootstrap: str
    n_pos: int
    n_neg: int
    law: NetBenefitDistribution
    treat_all_law: NetBenefitDistribution

    _columns = (
        "threshold",
        "net_benefit",
        "net_benefit_low",
        "net_benefit_high",
        "treat_all",
        "treat_all_low",
        "treat_all_high",
    )
    _settings = ("confidence_level", "method", "bootstrap")
    _plot_kind = "decision"

    def _summary(self) -> str:
        return (
            f"decision curve at {self._points()} threshold probabilities "
            f"({self._level_and_method()}, {self.bootstrap} bootstrap, "
            f"n+={self.n_pos}, n-={self.n_neg})"
        )


def net_benefit_ci(
    y_true,
    y_proba,
    *,
    thresholds=None,
    confidence_level: float = 0.95,
    method: str | Callable = DEFAULT_METHODS["net_benefit"],
    bootstrap: str = "full",
    pseudo_count: float | None = None,
    pos_label=None,
) -> NetBenefitCurve:
    """The decision curve of a model, net benefit with exact bootstrap intervals, and
    treat-all's with its own.

    Parameters
    ----------
    y_true : array-like of shape (n,)
    y_proba : array-like of shape (n,)
        Predicted probabilities of the positive class, in [0, 1].
    thresholds : array-like, optional
        Threshold probabilities in [0, 1); default 0, 0.01, ..., 0.99 (dcurves'). An instance
        is treated when its probability is ``>= t`` and not 0 (dcurves' rule).
    confidence_level : float, default 0.95
    method : {'agresti', 'percentile', 'wald'} or callable, default 'agresti'
        ``agresti``: Wald on the moments after adding ``pseudo_count`` to every cell (each
        class's table under the stratified bootstrap, the whole table under the full one),
        as the cost curves' default, and the method the ``net_benefit`` study found to hold
        its level (Notes); ``percentile``: the exact quantiles of the bootstrap law;
        ``wald``: ``NB -+ z sd`` on its exact variance (both collapse where a rate nears 0 or
        1); a function ``f(law, confidence_level) -> (low, high)`` on a
        :class:`~rocsim.core.net_benefit.NetBenefitDistribution` is a method of your own.
    bootstrap : {"full", "stratified"}, default "full"
        ``full``: the instances resampled together, so that the prevalence varies as it does
        between samples (net benefit depends on it: a cohort); treat-all then has an interval
        of its own (its exact law's percentile interval). ``stratified``: the class sizes kept
        (a case-control design, or class sizes fixed by design), treat-all fixed. On test sets
        whose prevalence is random the stratified bootstrap's intervals miss the true net
        benefit too often (:doc:`/net_benefit_study`).
    pseudo_count : float, optional
        For ``agresti`` (default 2).
    pos_label : optional

    Returns
    -------
    NetBenefitCurve
        ``to_frame()``: ``threshold``, ``net_benefit``, ``net_benefit_low``,
        ``net_benefit_high``, ``treat_all``, ``treat_all_low``, ``treat_all_high``.

    Notes
    -----
    .. coverage quote: net_benefit_ci

    Measured coverage of the true net benefit at level 0.95 (:doc:`/net_benefit_study`; the
    bootstrap matching how the test sets were drawn, mean over the prevalences, AUCs and threshold
    probabilities per n and sampling, lowest and highest of those means, and the lowest condition
    and threshold): ``agresti`` 0.961-0.971 (lowest 0.946); ``percentile`` 0.865-0.947 (lowest
    0.618); ``wald`` 0.875-0.948 (lowest 0.618).

    .. end of coverage quote

    References
    ----------
    Vickers, A. J. & Elkin, E. B. (2006). Decision curve analysis: a novel method for
    evaluating prediction models. Medical Decision Making 26, 565-574.

    Examples
    --------
    >>> y = [1, 1, 1, 0, 0]
    >>> curve = net_benefit_ci(y, [0.9, 0.6, 0.3, 0.7, 0.2], thresholds=[0.5])
    >>> curve.to_frame()[["threshold", "net_benefit", "treat_all"]].values.round(3).tolist()
    [[0.5, 0.2, 0.2]]
    """
    level = check_confidence_level(confidence_level)
    method = check_method(
        method, NET_BENEFIT_METHODS, NET_BENEFIT_PROTOCOL, "net benefit interval method"
    )
    a = check_pseudo_count(method, pseudo_count, "net_benefit")
    check_choice(bootstrap, SCHEMES, "bootstrap")
    t = DEFAULT_THRESHOLDS if thresholds is None else check_threshold_probabilities(thresholds)
    data = scored(y_true, y_proba, pos_label=pos_label, names=("y_proba",))
    pos, neg = data.classes()
    _check_probabilities(np.concatenate([pos, neg]))
    law = net_benefit_distribution(pos, neg, t, bootstrap=bootstrap)
    model = law._interval(level, method, a)
    # treat-all on its exact law: fixed under the stratified bootstrap, binomial under the full
    everyone = _treat_all(pos.size, neg.size, t, bootstrap)._interval(level, "percentile")
    return _curve(model, everyone, level, method, bootstrap)


def _treat_all(n_pos: int, n_neg: int, t: np.ndarray, bootstrap: str) -> NetBenefitDistribution:
    """Treat-all's law: the model that treats everyone (probability 1 for all instances)."""
    return net_benefit_distribution(np.ones(n_pos), np.ones(n_neg), t, bootstrap=bootstrap)


def _check_probabilities(values: np.ndarray, name: str = "y_proba") -> None:
    if np.any(values < 0) or np.any(values > 1):
        raise ValueError(
            f"{name} must hold probabilities in [0, 1] (a decision curve treats by threshold "
            f"probability), got values from {values.min():g} to {values.max():g}"
        )


def _curve(
    model: NetBenefitCI, everyone: NetBenefitCI, level: float, method, bootstrap: str
) -> NetBenefitCurve:
    return NetBenefitCurve(
        model.thresholds,
        model.net_benefit,
        model.low,
        model.high,
        everyone.net_benefit,
        everyone.low,
        everyone.high,
        level,
        method_name(method),
        bootstrap,
        model.law.n_pos,
        model.law.n_neg,
        model.law,
        everyone.law,
    )


@dataclass(frozen=True, repr=False, eq=False)
class NetBenefitComparison(_Table):
    """Result of :func:`compare_net_benefit`: at each threshold probability both models' net
    benefits and ``difference = NB1 - NB2`` with its interval, and each model's net benefit
    over treat-all (``vs_all1 = NB1 - NB_all``, ...) with its own; ``law`` is the exact
    bootstrap law of the difference."""

    threshold: np.ndarray
    net_benefit1: np.ndarray
    net_benefit2: np.ndarray
    difference: np.ndarray
    low: np.ndarray
    high: np.ndarray
    vs_all1: np.ndarray
    vs_all1_low: np.ndarray
    vs_all1_high: np.ndarray
    vs_all2: np.ndarray
    vs_all2_low: np.ndarray
    vs_all2_high: np.ndarray
    confidence_level: float
    method: str
    bootstrap: str
    n_pos: int
    n_neg: int
    law: NetBenefitDifference

    _columns = (
        "threshold",
        "net_benefit1",
        "net_benefit2",
        "difference",
        "low",
        "high",
        "vs_all1",
        "vs_all1_low",
        "vs_all1_high",
        "vs_all2",
        "vs_all2_low",
        "vs_all2_high",
    )
    _settings = ("confidence_level", "method", "bootstrap")

    def _summary(self) -> str:
        return (
            f"NB1 - NB2 at {self._points()} threshold probabilities "
            f"({self._level_and_method()}, {self.bootstrap} bootstrap, "
            f"n+={self.n_pos}, n-={self.n_neg})"
        )


def compare_net_benefit(
    y_true,
    y_proba1,
    y_proba2,
    *,
    thresholds=None,
    confidence_level: float = 0.95,
    method: str | Callable = DEFAULT_METHODS["net_benefit_difference"],
    bootstrap: str = "stratified",
    pseudo_count: float | None = None,
    pos_label=None,
) -> NetBenefitComparison:
    """The difference of two models' net benefits on the same instances, with intervals on
    its exact bootstrap law, and each model against treat-all.

    Parameters
    ----------
    y_true : array-like of shape (n,)
    y_proba1, y_proba2 : array-like of shape (n,)
        The two models' predicted probabilities of the positive class for the same instances.
    thresholds, confidence_level, pos_label
        As in :func:`net_benefit_ci`.
    method : {'agresti', 'percentile', 'wald'} or callable, default 'agresti'
        ``agresti``: Wald on the law's moments after ``pseudo_count`` instances in every cell
        of each class's paired table (treated by both, by one only, by the other only, by
        neither), so that few discordant instances do not make the law a point mass at 0
        (where the plug-in intervals then miss the true difference, Notes);
        ``percentile``: the exact quantiles of the law of ``NB1* - NB2*``; ``wald``: on its
        exact variance. Each under either bootstrap.
    bootstrap : {"stratified", "full"}, default "stratified"
        Both models' decisions on an instance travel together in every resample.
        ``stratified``: the class sizes kept; ``full``: the instances resampled together, the
        class counts random as between samples (the instances treated by one model only, of
        both classes, then share the draws: the law is computed for that too).
    pseudo_count : float, optional
        For ``agresti`` (default 2).

    Returns
    -------
    NetBenefitComparison

    Notes
    -----
    .. coverage quote: compare_net_benefit

    Measured coverage of the true difference of net benefits at level 0.95
    (:doc:`/net_benefit_difference_study`; the bootstrap matching how the test sets were drawn,
    mean over the AUC gaps and threshold probabilities per n and bootstrap, lowest and highest of
    those means, and the lowest condition and threshold): ``agresti`` 0.967-0.989 (lowest 0.950);
    ``percentile`` 0.933-0.940 (lowest 0.750); ``wald`` 0.944-0.949 (lowest 0.821).

    .. end of coverage quote

    Examples
    --------
    >>> y = [1, 1, 1, 0, 0]
    >>> cmp = compare_net_benefit(y, [0.9, 0.6, 0.3, 0.7, 0.2], [0.8, 0.4, 0.6, 0.3, 0.1],
    ...                           thresholds=[0.5])
    >>> cmp.to_frame()[["net_benefit1", "net_benefit2", "difference"]].values.round(3).tolist()
    [[0.2, 0.4, -0.2]]
    """
    level = check_confidence_level(confidence_level)
    check_choice(bootstrap, SCHEMES, "bootstrap")
    method = check_difference_method(method)
    a = check_pseudo_count(method, pseudo_count, "net_benefit_difference")
    t = DEFAULT_THRESHOLDS if thresholds is None else check_threshold_probabilities(thresholds)
    data = scored(y_true, y_proba1, y_proba2, pos_label=pos_label, names=("y_proba1", "y_proba2"))
    (pos1, neg1), (pos2, neg2) = data.classes(0), data.classes(1)
    for pos, neg, name in ((pos1, neg1, "y_proba1"), (pos2, neg2, "y_proba2")):
        _check_probabilities(np.concatenate([pos, neg]), name)

    def versus(p1, p2, q1, q2) -> NetBenefitDifferenceCI:
        law = net_benefit_difference_distribution(p1, p2, q1, q2, t, bootstrap=bootstrap)
        return law._interval(level, method, a)

    everyone = np.ones(pos1.size), np.ones(neg1.size)
    both = versus(pos1, pos2, neg1, neg2)
    first = versus(pos1, everyone[0], neg1, everyone[1])
    second = versus(pos2, everyone[0], neg2, everyone[1])
    return NetBenefitComparison(
        t,
        both.net_benefit1,
        both.net_benefit2,
        both.difference,
        both.low,
        both.high,
        first.difference,
        first.low,
        first.high,
        second.difference,
        second.low,
        second.high,
        level,
        method_name(method),
        bootstrap,
        pos1.size,
        neg1.size,
        both.law,
    )
