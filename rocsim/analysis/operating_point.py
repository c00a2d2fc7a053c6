"""Metrics of a classifier at one operating point, with exact bootstrap intervals."""

from __future__ import annotations

from collections.abc import Callable

from rocsim.analysis._input import scored
from rocsim.core._validation import check_confidence_level
from rocsim.core.intervals import check_pseudo_count
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
    bootstrap: str = "auto",
    prevalence: float | None = None,
    pseudo_count: float | None = None,
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
    method : str or callable, default 'agresti_hull'
        ``agresti``: Wald on the moments of the law whose binomials draw with each class's
        share after ``pseudo_count`` instances on either side of the threshold (Agresti &
        Coull's adjustment; at a fixed FPR or TPR each share of the moving count's mixture);
        ``agresti_percentile``: the equal-tailed quantiles of that law; ``agresti_hull``: the
        hull of those two (Wald guards where the law is a near point mass at the edge of the
        metric's range, the quantiles where it is skewed, as LR+ is when few negatives pass
        the threshold); ``percentile``: equal-tailed quantiles of the exact bootstrap law;
        ``wald``: on its exact variance. Bounds are clipped to each metric's range. A
        function ``f(law, confidence_level) -> (low, high)`` on a
        :class:`~rocsim.core.operating_point.MetricDistribution` is a method of your own.
        The plug-in laws (``percentile``, ``wald``) collapse to a point where a share is 0 or
        1 (every positive above the threshold, say), and their intervals then miss every
        true value inside (Notes).
    bootstrap : {"auto", "full", "full_approx", "stratified"}, default "auto"
        ``full``: the instances resampled together, the class counts random (the thesis's
        chapter 5), as a cohort's prevalence is itself an estimate; at a threshold only.
        ``stratified``: each class resampled on its own (class sizes kept), as in a
        case-control design. ``full_approx``: at a fixed FPR or TPR, where the threshold is a
        rank within a class and the full bootstrap's exact law is not built, its
        approximation: the stratified law of the rates read at a prevalence drawn as the full
        bootstrap draws it (Bayes' rule for PPV and NPV, the weighted rates for accuracy;
        :class:`~rocsim.core.operating_point.PrevalenceMixtures` says how close it comes).
        ``auto``: for PPV, NPV and accuracy, which move with the prevalence, ``full`` at a
        threshold and ``full_approx`` at a fixed FPR or TPR (on cohort test sets the
        stratified law's intervals miss their true values, and on test sets of fixed class
        sizes these still hold them; PPV and NPV at a given ``prevalence`` read sensitivity
        and specificity only); ``stratified`` for the others (both laws hold their true
        values on either design, the stratified one at a fraction of the cost: Notes). Each
        law's at ``.law[metric].bootstrap``. Under ``full``, Youden's J, the likelihood ratios
        and PPV and NPV at a given ``prevalence`` mix a stratified law over every class size:
        exact, but about as slow as a Monte Carlo bootstrap (``benchmarks/results_decision.md``
        measures it); ``auto`` never reads them.
    prevalence : float, optional
        PPV and NPV at this share of positives (default: the data's).
    pseudo_count : float, optional
        For ``agresti``, ``agresti_percentile`` and ``agresti_hull`` (default 2).
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
    .. coverage quote: operating_point_ci

    Measured coverage of each metric's true value at level 0.95 at fixed score thresholds, on the
    stratified bootstrap's law and test sets of fixed class sizes (:doc:`/operating_point_study`;
    mean over the thresholds per metric and n, lowest and highest of those means, and the lowest
    condition and threshold): ``agresti_hull`` 0.951-0.980 (lowest 0.940); ``agresti`` 0.933-0.979
    (lowest 0.871); ``agresti_percentile`` 0.927-0.962 (lowest 0.786); ``percentile`` 0.750-0.952
    (lowest 0.199); ``wald`` 0.754-0.961 (lowest 0.199).

    .. end of coverage quote

    .. coverage quote: operating_point_ci_full

    Measured on each bootstrap's laws (``auto``, the default: the full bootstrap's for PPV, NPV and
    accuracy, the stratified one's for the others), on test sets of fixed class sizes and on
    cohorts (the prevalence random; :doc:`/operating_point_full_study`; mean over the thresholds
    per metric and n, lowest and highest of those means, and the lowest condition and threshold):
    ``agresti_hull, auto bootstrap, fixed classes`` 0.951-0.995 (lowest 0.942); ``percentile, auto
    bootstrap, fixed classes`` 0.750-0.986 (lowest 0.199); ``agresti_hull, auto bootstrap,
    cohorts`` 0.951-0.985 (lowest 0.941); ``percentile, auto bootstrap, cohorts`` 0.763-0.955
    (lowest 0.190); ``agresti_hull, stratified bootstrap, fixed classes`` 0.951-0.980 (lowest
    0.940); ``percentile, stratified bootstrap, fixed classes`` 0.750-0.952 (lowest 0.199);
    ``agresti_hull, full bootstrap, fixed classes`` 0.951-0.995 (lowest 0.942); ``percentile, full
    bootstrap, fixed classes`` 0.763-0.986 (lowest 0.199); ``agresti_hull, stratified bootstrap,
    cohorts`` 0.738-0.985 (lowest 0.372); ``percentile, stratified bootstrap, cohorts`` 0.679-0.955
    (lowest 0.190); ``agresti_hull, full bootstrap, cohorts`` 0.951-0.983 (lowest 0.941);
    ``percentile, full bootstrap, cohorts`` 0.765-0.955 (lowest 0.190).

    .. end of coverage quote

    .. coverage quote: operating_point_ci_fpr

    Measured at a fixed FPR, the threshold moving with the resample, on the default laws (``auto``)
    and test sets of fixed class sizes (:doc:`/operating_point_fpr_study`; the population's metric
    at that FPR, mean over the FPRs per metric and n, lowest and highest of those means, and the
    lowest condition and FPR): ``agresti_hull`` 0.962-1.000 (lowest 0.958); ``agresti`` 0.959-1.000
    (lowest 0.956); ``agresti_percentile`` 0.957-1.000 (lowest 0.951); ``percentile`` 0.953-0.999
    (lowest 0.932); ``wald`` 0.933-1.000 (lowest 0.909).

    .. end of coverage quote

    .. coverage quote: operating_point_ci_fpr_full

    Measured at a fixed FPR for PPV, NPV and accuracy on each law (``full_approx`` their default),
    on test sets of fixed class sizes and on cohorts (:doc:`/operating_point_fpr_full_study`; mean
    over the FPRs per metric and n, lowest and highest of those means, and the lowest condition and
    FPR): ``agresti_hull, stratified bootstrap, fixed classes`` 0.960-0.994 (lowest 0.954);
    ``percentile, stratified bootstrap, fixed classes`` 0.953-0.960 (lowest 0.932); ``agresti_hull,
    full_approx bootstrap, fixed classes`` 0.979-1.000 (lowest 0.962); ``percentile, full_approx
    bootstrap, fixed classes`` 0.974-0.999 (lowest 0.947); ``agresti_hull, stratified bootstrap,
    cohorts`` 0.589-0.948 (lowest 0.369); ``percentile, stratified bootstrap, cohorts`` 0.576-0.940
    (lowest 0.363); ``agresti_hull, full_approx bootstrap, cohorts`` 0.952-0.980 (lowest 0.949);
    ``percentile, full_approx bootstrap, cohorts`` 0.950-0.970 (lowest 0.942).

    .. end of coverage quote

    .. coverage quote: operating_point_ci_tpr

    Measured at a fixed TPR on the default laws (``auto``), on test sets of fixed class sizes and
    on cohorts (:doc:`/operating_point_tpr_study`; mean over the TPRs per metric and n, lowest and
    highest of those means, and the lowest condition and TPR): ``agresti_hull, fixed classes``
    0.967-1.000 (lowest 0.921); ``percentile, fixed classes`` 0.952-1.000 (lowest 0.912);
    ``agresti_hull, cohorts`` 0.954-0.989 (lowest 0.937); ``percentile, cohorts`` 0.950-0.966
    (lowest 0.923).

    .. end of coverage quote

    References
    ----------
    Agresti, A. & Coull, B. A. (1998). Approximate is better than "exact" for interval
    estimation of binomial proportions. The American Statistician 52, 119-126.

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
    a = check_pseudo_count(method, pseudo_count, "operating_point")
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
        pseudo_count=a or 0.0,
    )
    return law._interval(level, method)
