"""Metrics of a classifier at one operating point, with exact bootstrap intervals."""

from __future__ import annotations

from collections.abc import Callable

from rocsim.analysis._input import scored
from rocsim.core._validation import check_confidence_level
from rocsim.core.methods import check_method
from rocsim.core.operating_point import (
    METRICS,
    OPERATING_POINT_METHODS,
    OPERATING_POINT_PROTOCOL,
    OperatingPointCI,
    operating_point_distribution,
)
from rocsim.core.registry import DEFAULT_METHODS


def operating_point_ci(
    y_true,
    y_score,
    *,
    threshold: float | None = None,
    fpr: float | None = None,
    tpr: float | None = None,
    metrics=METRICS,
    confidence_level: float = 0.95,
    method: str | Callable = DEFAULT_METHODS["operating_point"],
    bootstrap: str = "stratified",
    prevalence: float | None = None,
    pos_label=None,
    direction: str = "higher",
) -> OperatingPointCI:
    """Sensitivity, specificity, PPV, NPV, accuracy, the likelihood ratios and Youden's J at
    one operating point, with intervals on their exact bootstrap laws.

    Parameters
    ----------
    y_true, y_score : array-like of shape (n,)
    threshold : float, optional
        The operating point: positive when the score is ``>= threshold``.
    fpr, tpr : float, optional
        Or a fixed FPR (TPR) in (0, 1), read at the nearest rate of the data; the threshold then
        moves with the resample, as in vertical (horizontal) averaging. Give exactly one of
        ``threshold``, ``fpr``, ``tpr``.
    metrics : sequence of str, default all
        Among ``sensitivity``, ``specificity``, ``ppv``, ``npv``, ``accuracy``, ``lr_pos``,
        ``lr_neg``, ``youden``.
    confidence_level : float, default 0.95
    method : {'percentile', 'wald'} or callable, default 'percentile'
        ``percentile``: equal-tailed quantiles of the exact law (bounds inside each metric's
        range); ``wald``: on its exact variance, clipped to the range; a function
        ``f(law, confidence_level) -> (low, high)`` on a
        :class:`~rocsim.core.operating_point.MetricDistribution` is a method of your own.
    bootstrap : {"stratified"}, default "stratified"
    prevalence : float, optional
        PPV and NPV at this share of positives (default: the data's).
    pos_label, direction
        As in :func:`rocsim.roc_ci`.

    Returns
    -------
    OperatingPointCI
        ``to_frame()``: a row per metric with ``metric``, ``value``, ``low``, ``high``,
        ``undefined`` (the share of resamples on which the metric is undefined: its law is
        conditional on it being defined); the laws at ``.law[metric]`` (``.mean``, ``.var``).

    Notes
    -----
    No study has yet measured these intervals' coverage of the true metrics: the
    ``operating_point`` study's kind is in place (``rocsim study=operating_point``), and its
    first runs show the plug-in laws' intervals collapsing where a rate nears 0 or 1 (as the
    net benefit's did, :doc:`/net_benefit_study`). Read intervals there with care.

    Examples
    --------
    >>> y = [1, 1, 1, 1, 0, 0, 0, 0]
    >>> s = [0.9, 0.8, 0.6, 0.4, 0.7, 0.3, 0.2, 0.1]
    >>> r = operating_point_ci(y, s, threshold=0.5, metrics=["sensitivity", "ppv"])
    >>> r.to_frame()[["metric", "value"]].values.tolist()
    [['sensitivity', 0.75], ['ppv', 0.75]]
    """
    level = check_confidence_level(confidence_level)
    method = check_method(
        method, OPERATING_POINT_METHODS, OPERATING_POINT_PROTOCOL, "operating point method"
    )
    data = scored(y_true, y_score, pos_label=pos_label, direction=direction)
    pos, neg = data.classes()
    law = operating_point_distribution(
        pos,
        neg,
        threshold=threshold,
        fpr=fpr,
        tpr=tpr,
        metrics=metrics,
        bootstrap=bootstrap,
        prevalence=prevalence,
    )
    return law._interval(level, method)
