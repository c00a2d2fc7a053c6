"""The area under a user's classifier's ROC curve with a confidence interval
(:func:`auc_ci`), and the paired difference of two classifiers' areas (:func:`compare_auc`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict

import numpy as np

from rocsim.analysis._input import scored
from rocsim.analysis.results import (
    AUCComparison,
    AUCResult,
    PartialAUCComparison,
    PartialAUCResult,
)
from rocsim.core import area
from rocsim.core.labels import split_by_class
from rocsim.core.many_aucs import AUCsComparison, aucs_comparison, multiclass_aucs_comparison
from rocsim.core.multiclass import (
    MulticlassAUCCI,
    MulticlassAUCDifferenceCI,
    multiclass_auc_ci,
    multiclass_auc_difference_ci,
)
from rocsim.core.partial_area import (
    partial_auc_ci,
    partial_auc_difference_ci,
)
from rocsim.core.roc import roc_curve

#: The default method of each kind of AUC interval (``method=None``): the one the coverage
#: studies found to hold its level, or to come closest where none does
#: (docs/interval_methods.md); DeLong's stays ``method="delong"``.
DEFAULT_METHODS = {
    ("auc", "binary"): "newcombe",
    ("auc", "partial"): "logit_t",
    ("auc", "multiclass"): "mover",
    ("difference", "binary"): "mover",
    ("difference", "partial"): "delong_t",
    ("difference", "multiclass"): "delong_t",
}


def _method(method: str | None, what: str, partial, multiclass: bool) -> str:
    """``method``, or the default of the interval asked for (:data:`DEFAULT_METHODS`)."""
    if method is not None:
        return method
    kind = "multiclass" if multiclass else "binary" if partial is None else "partial"
    return DEFAULT_METHODS[what, kind]


def auc_ci(
    y_true,
    y_score,
    *,
    method: str | Callable | None = None,
    confidence_level: float = 0.95,
    pos_label=None,
    direction: str = "higher",
    max_fpr: float | None = None,
    fpr_range: tuple[float, float] | None = None,
    tpr_range: tuple[float, float] | None = None,
    multi_class: str | None = None,
    average: str = "macro",
    labels=None,
    alternative: str = "two-sided",
    null: float = 0.5,
) -> AUCResult | PartialAUCResult | MulticlassAUCCI:
    """The AUC with a confidence interval (Newcombe's score interval by default; DeLong's or
    the exact stratified bootstrap's Wald interval a keyword away); or the partial AUC over a
    range of FPRs.

    Parameters
    ----------
    y_true, y_score : array-like of shape (n,)
    method : {"newcombe", "delong", "exact_bootstrap", "hanley_mcneil", "logit"} or callable, \
optional
        Default (None): the interval the coverage studies found to hold its level
        (:data:`DEFAULT_METHODS`; Notes quote what they measured): ``newcombe`` for the AUC
        of two classes, ``logit_t`` for a partial AUC, ``mover`` for a multiclass AUC.
        ``newcombe``: Newcombe's (2006) score-type interval, which stays informative at an
        AUC of 1; ``delong``: the Wald interval on the placement-value variance of DeLong et
        al. (1988), pROC's ``ci.auc``; ``exact_bootstrap``: on the variance of the
        stratified bootstrap in closed form (the limit of a Monte Carlo bootstrap with
        infinitely many resamples); ``hanley_mcneil`` (Hanley & McNeil's 1982 variance) and
        ``logit`` (DeLong's on the logit scale) for the whole AUC of two classes
        (:mod:`rocsim.core.auc_methods`). A partial AUC takes ``logit_t`` (DeLong's variance
        on the logit scale of the area's share of its range, with a t quantile:
        :func:`rocsim.core.partial_area.logit_t_interval`), ``delong`` or
        ``exact_bootstrap``; a multiclass AUC ``delong``, ``exact_bootstrap`` or ``mover``
        (Zou & Donner's 2008 interval of the weighted average recovered from each pair's or
        class's score interval, at Student's t critical value:
        :func:`rocsim.core.multiclass.weighted_mover_bounds`). Every
        method's coverage, condition by condition: the ``auc_methods`` study (``rocsim
        study=auc_methods``; docs page "Which interval holds its level?").
        A function ``f(data) -> var`` or ``-> Pivot(var, z)`` is a method of your own for the
        AUC of two classes (:data:`rocsim.core.area.AUC_PROTOCOL`).
    confidence_level : float, default 0.95
    pos_label : optional
    direction : {"higher", "lower", "auto"}, default "higher"
        Which way the scores point (:func:`rocsim.roc_ci`); ``"auto"`` gives pROC's AUC of a
        classifier scored "controls > cases".
    max_fpr : float, optional
        The partial AUC over FPR 0 to ``max_fpr`` (in (0, 1]), McClish-standardised: the value
        of scikit-learn's ``roc_auc_score(max_fpr=)`` (``max_fpr=1``: the whole AUC, as
        there).
    fpr_range : (float, float), optional
        The partial AUC over ``FPR in [lo, hi]`` (pROC's ``partial.auc`` with
        ``partial.auc.focus="specificity"`` and ``partial.auc.correct=TRUE``, on
        specificities ``1 - hi .. 1 - lo``).
    tpr_range : (float, float), optional
        The partial AUC over ``TPR in [lo, hi]``: the area between the curve and ``FPR = 1``
        there (pROC's ``partial.auc.focus="sensitivity"``, ``partial.auc.correct=TRUE``).
        At most one of ``max_fpr``, ``fpr_range``, ``tpr_range``
        (:mod:`rocsim.core.partial_area`).
    multi_class : {"ovo", "ovr"}, optional
        More than two classes: ``y_true`` holds any labels and ``y_score`` has shape
        ``(n_samples, n_classes)``, a column per class in the order of the sorted labels (or
        of ``labels``), as scikit-learn's ``roc_auc_score(multi_class=)``: ``ovo`` averages
        over pairs of classes the mean of both directions' AUCs (Hand & Till 2001), ``ovr``
        each class against the rest on its own column. Required for such a ``y_score``. The
        ``exact_bootstrap`` variance is that of the bootstrap resampling each class
        separately; ``delong`` the placement-value variance (:mod:`rocsim.core.multiclass`).
        Rows need not sum to 1 (scikit-learn requires it; the AUCs do not).
    average : {"macro", "weighted"}, default "macro"
        Multiclass: equal weights, or by prevalence (scikit-learn's).
    labels : array-like, optional
        Multiclass: the classes, sorted, one per score column (default: the sorted labels of
        ``y_true``); every class needs an instance.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        ``greater``: is the AUC above ``null``? The interval is one-sided, ``[low, 1]``
        (``low`` the two-sided bound at twice the alpha) and ``p_value`` tests ``AUC <=
        null`` against ``AUC > null``; ``less`` the other way round.
    null : float, default 0.5
        The AUC of the null hypothesis: 0.5 is a classifier no better than chance, 0.8 a
        benchmark to beat. ``p_value`` and the interval rest on the same variance, so that
        ``p_value < 1 - confidence_level`` exactly when ``null`` is outside ``[low, high]``.

    Returns
    -------
    AUCResult, PartialAUCResult or MulticlassAUCCI
        ``auc``, ``var``, ``low``, ``high`` (normal interval, clipped to [0, 1]); a partial AUC
        also has the raw ``partial_area``, its ``focus`` (``"fpr"`` or ``"tpr"``) and range
        ``range_low``, ``range_high``; a multiclass AUC the AUCs it averages
        (``to_frame()``: a row per pair or class, then the average). Each has ``p_value``.

    Notes
    -----
    .. coverage quote: auc_ci

    Measured coverage of the true AUC at level 0.95 (mean over the models and AUCs per n, lowest
    and highest of those means, and the lowest condition): binary, :doc:`/auc_study`: ``delong``
    0.720-0.942 (lowest 0.251); ``exact_bootstrap`` 0.717-0.942 (lowest 0.251); ``hanley_mcneil``
    0.741-0.951 (lowest 0.250); ``logit`` 0.772-0.948 (lowest 0.213); ``newcombe`` 0.953-0.957
    (lowest 0.927); multiclass: ``delong`` 0.907-0.945 (lowest 0.879); ``exact_bootstrap``
    0.895-0.945 (lowest 0.868); ``mover`` 0.946-0.947 (lowest 0.922); partial, :doc:`/bands_study`:
    ``delong`` 0.902-0.947 (lowest 0.795); ``exact_bootstrap`` 0.901-0.947 (lowest 0.817);
    ``logit_t`` 0.950-0.958 (lowest 0.926); partial, the exact law's percentile
    (partial_auc_percentile, FPR [0, f], f up to 0.3): ``percentile`` 0.902-0.932 (lowest 0.796).
    Measured size of the test at 0.05 (the rejection rate of a true null AUC, lowest and highest
    over the nulls 0.5, 0.75, both alternatives and n; :doc:`/auc_tests_study`): ``delong``
    0.043-0.082; ``exact_bootstrap`` 0.043-0.083; ``hanley_mcneil`` 0.044-0.080; ``logit``
    0.041-0.054; ``newcombe`` 0.039-0.059.

    .. end of coverage quote

    References
    ----------
    DeLong, DeLong & Clarke-Pearson (1988), Biometrics 44, 837-845. McClish (1989), Medical
    Decision Making 9, 190-195.

    Examples
    --------
    >>> auc_ci([1, 1, 0, 0], [0.9, 0.4, 0.5, 0.1]).auc
    0.75
    >>> y, s = [1, 1, 1, 0, 0, 0, 0], [0.9, 0.7, 0.4, 0.8, 0.5, 0.3, 0.1]
    >>> round(auc_ci(y, s, max_fpr=0.5).auc, 4)
    0.6667
    >>> round(auc_ci(y, s, max_fpr=0.5, method="exact_bootstrap").var, 4)
    0.0395
    """
    partial = _partial_range(max_fpr, fpr_range, tpr_range)
    test = {"alternative": alternative, "null": null}
    method = _method(method, "auc", partial, _is_multiclass(multi_class, y_score))
    if _is_multiclass(multi_class, y_score):
        classes, (by_class,) = _multiclass(
            y_true, [y_score], multi_class, partial, pos_label, direction, labels
        )
        return multiclass_auc_ci(
            by_class,
            multi_class=multi_class,
            average=average,
            confidence_level=confidence_level,
            method=method,
            labels=classes,
            **test,
        )
    data = scored(y_true, y_score, pos_label=pos_label, direction=direction)
    pos, neg = data.classes()
    if partial is not None:
        focus, rates = partial
        ci = partial_auc_ci(
            pos, neg, rates, focus=focus, confidence_level=confidence_level, method=method, **test
        )
        curves = (roc_curve(pos, neg)[:2],)
        return PartialAUCResult(**asdict(ci), curves=curves, direction=data.direction)
    ci = area.auc_ci(pos, neg, confidence_level=confidence_level, method=method, **test)
    curves = (roc_curve(pos, neg)[:2],)
    return AUCResult(**asdict(ci), curves=curves, direction=data.direction)


def compare_auc(
    y_true,
    y_score1,
    y_score2,
    *,
    method: str | None = None,
    confidence_level: float = 0.95,
    pos_label=None,
    direction: str | tuple[str, str] = "higher",
    max_fpr: float | None = None,
    fpr_range: tuple[float, float] | None = None,
    tpr_range: tuple[float, float] | None = None,
    multi_class: str | None = None,
    average: str = "macro",
    labels=None,
    alternative: str = "two-sided",
    null: float = 0.0,
) -> AUCComparison | PartialAUCComparison | MulticlassAUCDifferenceCI:
    """The paired difference ``AUC1 - AUC2`` of two classifiers scored on the same instances,
    with a confidence interval and a p-value (the MOVER on score-type intervals by default,
    DeLong's or the exact bootstrap variance's Wald interval); or of their partial AUCs.

    Parameters
    ----------
    y_true, y_score1, y_score2 : array-like of shape (n,)
    method : {"mover", "delong", "exact_bootstrap", "delong_t"} or callable, optional
        Default (None): ``mover`` for the whole AUCs of two classes, ``delong_t`` for partial
        and multiclass AUCs (:data:`DEFAULT_METHODS`). ``mover``: Zou &
        Donner's (2008) method of variance estimates recovery on each AUC's score-type
        interval (DeLong's variance carried to the candidate AUC by the shape of Newcombe's)
        and DeLong's correlation of the two (:func:`rocsim.core.auc_methods.mover_interval`); its
        ``p_value`` inverts the interval. ``delong``: the Wald interval on ``var1 + var2 - 2
        cov`` of the placement values (DeLong et al. 1988, pROC's ``roc.test``);
        ``exact_bootstrap``: on the exact paired stratified-bootstrap variance;
        ``delong_t`` (partial and multiclass AUCs): DeLong's variance with Student's t
        quantile on its Welch-Satterthwaite degrees of freedom (for a few negatives in a
        partial AUC's range, or a few instances in a class). Their coverage of the true
        difference: the ``auc_paired``, ``auc_paired_partial`` and ``auc_multiclass_paired``
        studies (Notes). A function ``f(data) -> var`` or ``-> Pivot(var, z)`` on an
        :class:`~rocsim.core.AUCDifferenceData` is a method of your own for the whole AUCs
        (:data:`rocsim.core.area.AUC_DIFFERENCE_PROTOCOL`).
    confidence_level : float, default 0.95
    pos_label : optional
    direction : {"higher", "lower", "auto"} or a pair of them, default "higher"
        Which way each classifier's scores point; two classifiers that seem scored in opposite
        directions are reported with a :class:`~rocsim.analysis.DirectionWarning` (pROC's
        ``roc.test`` warns likewise).
    max_fpr, fpr_range, tpr_range : optional
        The difference of the partial AUCs over that range, as in :func:`auc_ci` (McClish-
        standardised; ``method="delong_t"`` or ``"delong"``, the paired placement values'
        variance: the paired exact bootstrap law of two partial areas is not built).
    multi_class, average, labels : optional
        Two models' multiclass AUCs on the same instances, as in :func:`auc_ci`: each
        ``y_score`` of shape ``(n_samples, n_classes)``; the variance of the paired
        difference under the bootstrap resampling each class separately (``exact_bootstrap``)
        or the placement-value one (``delong``, ``delong_t``).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        ``greater``: is the first classifier's AUC above the second's by more than ``null``?
        The interval is ``[low, 1]`` and ``p_value`` one-sided, as in :func:`auc_ci`.
    null : float, default 0.0
        The difference of the null hypothesis (e.g. ``-0.02`` for a non-inferiority margin
        with ``alternative="greater"``).

    Returns
    -------
    AUCComparison, PartialAUCComparison or MulticlassAUCDifferenceCI

    Notes
    -----
    .. coverage quote: compare_auc

    Measured coverage of the true difference of the AUCs at level 0.95 (:doc:`/auc_study`; mean
    over the pairs of classifiers and correlations per n, lowest and highest of those means, and
    the lowest condition): binary (auc_paired): ``delong`` 0.935-0.951 (lowest 0.888);
    ``exact_bootstrap`` 0.939-0.951 (lowest 0.905); ``mover`` 0.950-0.961 (lowest 0.929); partial
    (auc_paired_partial): ``delong`` 0.933-0.951 (lowest 0.906); ``delong_t`` 0.948-0.957 (lowest
    0.926); multiclass (auc_multiclass_paired): ``delong`` 0.937-0.950 (lowest 0.928);
    ``exact_bootstrap`` 0.924-0.948 (lowest 0.902); ``delong_t`` 0.947-0.954 (lowest 0.932).

    .. end of coverage quote

    References
    ----------
    DeLong, DeLong & Clarke-Pearson (1988), Biometrics 44, 837-845. Zou, G. Y. & Donner, A.
    (2008). Construction of confidence limits about effect measures: a general approach.
    Statistics in Medicine 27, 1693-1702. Newcombe, R. G. (2006). Statistics in Medicine 25,
    559-573.

    Examples
    --------
    >>> y = [1, 1, 1, 0, 0, 0]
    >>> cmp = compare_auc(y, [0.9, 0.8, 0.4, 0.5, 0.3, 0.2], [0.9, 0.3, 0.4, 0.5, 0.8, 0.2])
    >>> round(cmp.difference, 4)
    0.3333
    """
    partial = _partial_range(max_fpr, fpr_range, tpr_range)
    test = {"alternative": alternative, "null": null}
    method = _method(method, "difference", partial, _is_multiclass(multi_class, y_score1))
    if _is_multiclass(multi_class, y_score1):
        classes, (first, second) = _multiclass(
            y_true, [y_score1, y_score2], multi_class, partial, pos_label, direction, labels
        )
        return multiclass_auc_difference_ci(
            first,
            second,
            multi_class=multi_class,
            average=average,
            confidence_level=confidence_level,
            method=method,
            labels=classes,
            **test,
        )
    data = scored(y_true, y_score1, y_score2, pos_label=pos_label, direction=direction)
    (pos1, neg1), (pos2, neg2) = data.classes(0), data.classes(1)
    curves = (roc_curve(pos1, neg1)[:2], roc_curve(pos2, neg2)[:2])
    if partial is not None:
        focus, rates = partial
        ci = partial_auc_difference_ci(
            pos1,
            pos2,
            neg1,
            neg2,
            rates,
            focus=focus,
            confidence_level=confidence_level,
            method=method,
            **test,
        )
        return PartialAUCComparison(**asdict(ci), curves=curves, direction=data.direction)
    ci = area.auc_difference_ci(
        pos1, pos2, neg1, neg2, confidence_level=confidence_level, method=method, **test
    )
    return AUCComparison(**asdict(ci), curves=curves, direction=data.direction)


def _is_multiclass(multi_class, y_score) -> bool:
    """Whether the AUC asked for is multiclass: ``multi_class`` given, or a score matrix."""
    return multi_class is not None or np.ndim(y_score) == 2


def _multiclass(y_true, scores, multi_class, partial, pos_label, direction, labels, names=None):
    """The classes and each model's scores split by class, after the checks of a multiclass
    AUC's arguments (:func:`rocsim.core.labels.split_by_class`); ``names``: the score
    arguments' in the errors (default ``y_score``, or ``y_score1`` and ``y_score2``)."""
    if multi_class is None:
        raise ValueError(
            f"y_score has shape {np.shape(scores[0])}, a column per class: give "
            "multi_class='ovo' or 'ovr' (as scikit-learn's roc_auc_score asks)"
        )
    if np.ndim(scores[0]) != 2:
        raise ValueError(
            f"multi_class={multi_class!r} needs y_score of shape (n_samples, n_classes), got "
            f"shape {np.shape(scores[0])}"
        )
    if partial is not None:
        raise ValueError("a partial AUC (max_fpr, fpr_range, tpr_range) is binary only")
    if pos_label is not None:
        raise ValueError("pos_label is for binary labels; a multiclass AUC uses every class")
    if direction != "higher":
        raise ValueError(
            f"direction={direction!r} is for binary scores; each column of a multiclass "
            "y_score is higher for the class it scores"
        )
    names = names or (("y_score",) if len(scores) == 1 else ("y_score1", "y_score2"))
    return split_by_class(y_true, *scores, labels=labels, names=names)


def _partial_range(
    max_fpr: float | None,
    fpr_range: tuple[float, float] | None,
    tpr_range: tuple[float, float] | None,
) -> tuple[str, tuple[float, float]] | None:
    """The focus and range of a partial AUC (None: the whole AUC) from at most one of
    ``max_fpr``, ``fpr_range`` and ``tpr_range``; ``max_fpr=1`` is the whole AUC, as in
    scikit-learn."""
    given = {
        name: value
        for name, value in (
            ("max_fpr", max_fpr),
            ("fpr_range", fpr_range),
            ("tpr_range", tpr_range),
        )
        if value is not None
    }
    if len(given) > 1:
        raise ValueError(
            f"give at most one of max_fpr, fpr_range, tpr_range; got {', '.join(given)}"
        )
    if max_fpr is not None:
        f = float(max_fpr)
        if not 0.0 < f <= 1.0:
            raise ValueError(f"max_fpr must be in (0, 1], got {max_fpr!r}")
        return None if f == 1.0 else ("fpr", (0.0, f))
    for focus, name, value in (("fpr", "fpr_range", fpr_range), ("tpr", "tpr_range", tpr_range)):
        if value is not None:
            if np.ndim(value) != 1 or len(value) != 2:
                raise ValueError(f"{name} must be a pair (lo, hi), got {value!r}")
            return focus, (float(value[0]), float(value[1]))
    return None


def compare_aucs(
    y_true,
    scores,
    *,
    method: str = "delong",
    reference=None,
    adjust: str = "max-t",
    confidence_level: float = 0.95,
    pos_label=None,
    max_fpr: float | None = None,
    fpr_range: tuple[float, float] | None = None,
    tpr_range: tuple[float, float] | None = None,
    multi_class: str | None = None,
    average: str = "macro",
    labels=None,
    random_state=0,
) -> AUCsComparison:
    """Several models' AUCs on the same instances compared at once: every pair, or each model
    against a reference, with simultaneous intervals and adjusted p-values; or their partial
    or multiclass AUCs.

    Parameters
    ----------
    y_true : array-like of shape (n,)
    scores : dict of name -> array-like of shape (n,), DataFrame, or array-like of shape (n, K)
        The models' scores of the same instances (higher means positive); an array's models
        are named ``"model 1"``, ... in the order of its columns. Multiclass: a dict of name
        -> array-like of shape ``(n, n_classes)``, or an array of shape ``(n, n_classes, K)``.
    method : {"delong", "exact_bootstrap"}, default "delong"
        The joint covariance of the AUCs: DeLong et al.'s (1988), or the exact stratified
        bootstrap's (the variance of each difference is :func:`compare_auc`'s with the same
        method). Partial AUCs take ``delong`` only (the paired exact bootstrap law of two
        partial areas is not built); multiclass AUCs either (the bootstrap resampling each
        class separately).
    reference : name or int, optional
        Compare each model with this one (a name of ``scores``, or a column index); default:
        every pair.
    adjust : {"max-t", "holm", "bonferroni", "none"}, default "max-t"
        ``max-t``: the simultaneous intervals and adjusted p-values of the maximum of the
        standardized differences on their joint normal law (computed by Monte Carlo:
        approximate, see :mod:`rocsim.core.many_aucs`); ``holm``: Holm's adjusted p-values
        and Bonferroni's intervals; ``bonferroni``; ``none``: marginal.
    confidence_level : float, default 0.95
        The family's.
    pos_label : optional
    max_fpr, fpr_range, tpr_range : optional
        The partial AUCs over that range, McClish-standardised, as in :func:`auc_ci` (at most
        one of them): their covariance is DeLong's, of the placement values of the partial
        areas (:func:`rocsim.core.partial_area.partial_auc_covariance`), so that each
        ``difference`` and its variance are :func:`compare_auc`'s with ``method="delong"``.
    multi_class : {"ovo", "ovr"}, optional
        Multiclass AUCs, as in :func:`auc_ci`; required for scores of shape
        ``(n, n_classes)``. Their covariance is read from the variances of each averaged AUC
        and of each pair's difference, :func:`compare_auc`'s with the same ``method``
        (:func:`rocsim.core.multiclass.multiclass_auc_covariance`).
    average : {"macro", "weighted"}, default "macro"
        Multiclass: as in :func:`auc_ci`.
    labels : array-like, optional
        Multiclass: the classes, sorted, one per score column, as in :func:`auc_ci`.
    random_state : int or numpy.random.Generator, default 0
        Seeds the Monte Carlo draws of ``max-t``.

    Returns
    -------
    AUCsComparison
        ``cov`` (K x K, in the order of ``scores``), ``auc``, ``kind`` (which AUCs), and
        ``to_frame()`` a row per pair: ``model1``, ``model2``, ``difference`` (AUC of
        ``model1`` minus ``model2``'s), ``se``, ``low``, ``high``, ``p_value``,
        ``p_adjusted``.

    Notes
    -----
    .. coverage quote: compare_aucs

    Measured coverage of every pair's true difference at once at level 0.95
    (:doc:`/auc_family_study`; each ``adjust``, mean over the covariances, numbers of models and
    AUC gaps per n, lowest and highest of those means, and the lowest condition): ``max-t``
    0.948-0.953 (lowest 0.945); ``holm`` 0.958-0.960 (lowest 0.954); ``bonferroni`` 0.958-0.960
    (lowest 0.954); ``none`` 0.808-0.817 (lowest 0.721).

    .. end of coverage quote

    The study compares whole AUCs of two classes; for partial and multiclass AUCs the
    family's coverage is not measured.

    Examples
    --------
    >>> y = [1, 1, 1, 1, 0, 0, 0, 0]
    >>> scores = {"a": [0.9, 0.8, 0.4, 0.7, 0.7, 0.4, 0.1, 0.2],
    ...           "b": [0.6, 0.8, 0.5, 0.3, 0.7, 0.2, 0.1, 0.6],
    ...           "c": [0.5, 0.9, 0.6, 0.4, 0.3, 0.5, 0.2, 0.1]}
    >>> r = compare_aucs(y, scores, reference="a", adjust="holm")
    >>> r.to_frame()[["model1", "model2"]].values.tolist()
    [['b', 'a'], ['c', 'a']]

    The partial AUCs over FPR 0 to 0.5, each difference :func:`compare_auc`'s:

    >>> r = compare_aucs(y, scores, max_fpr=0.5, adjust="none")
    >>> r.kind, r.difference.round(4).tolist()
    ('partial AUCs (FPR 0-0.5, McClish)', [0.2917, -0.0417, -0.3333])
    """
    partial = _partial_range(max_fpr, fpr_range, tpr_range)
    names, arrays = _models(scores)
    settings = {
        "names": names,
        "method": method,
        "reference": _reference(reference, names),
        "adjust": adjust,
        "confidence_level": confidence_level,
        "random_state": random_state,
    }
    if _is_multiclass(multi_class, arrays[0]):
        given = tuple(f"scores[{name!r}]" for name in names)
        classes, models = _multiclass(
            y_true, arrays, multi_class, partial, pos_label, "higher", labels, given
        )
        return multiclass_aucs_comparison(
            models, multi_class=multi_class, average=average, labels=classes, **settings
        )
    data = scored(y_true, *arrays, pos_label=pos_label, names=tuple(names))
    by_class = [data.classes(k) for k in range(len(names))]
    focus, rates = partial or ("fpr", None)
    pos, neg = [p for p, _ in by_class], [q for _, q in by_class]
    return aucs_comparison(pos, neg, rate_range=rates, focus=focus, **settings)


def _reference(reference, names: list[str]) -> int | None:
    """``reference`` as a model's index (a name of ``names``, or an index as given)."""
    if reference is None or isinstance(reference, int | np.integer):
        return reference
    if reference not in names:
        raise ValueError(f"reference {reference!r} is not a model of scores: {names}")
    return names.index(reference)


def _models(scores) -> tuple[list[str], list]:
    """The models' names and score arrays of ``scores`` (mapping, DataFrame or 2-D array)."""
    if hasattr(scores, "columns"):  # a DataFrame
        return [str(c) for c in scores.columns], [scores[c].to_numpy() for c in scores.columns]
    if isinstance(scores, Mapping):
        return [str(k) for k in scores], [np.asarray(v) for v in scores.values()]
    table = np.asarray(scores)
    if table.ndim not in (2, 3) or table.shape[-1] < 2:
        raise ValueError(
            "scores must be a dict of name -> scores, a DataFrame, or an array of shape "
            f"(n, K) (multiclass: (n, n_classes, K)) with K >= 2 models, got shape {table.shape}"
        )
    return [f"model {k + 1}" for k in range(table.shape[-1])], list(np.moveaxis(table, -1, 0))
