"""The area under a user's classifier's ROC curve with a confidence interval
(:func:`auc_ci`), and the paired difference of two classifiers' areas (:func:`compare_auc`)."""

from __future__ import annotations

from dataclasses import asdict

from rocsim.analysis._input import scored
from rocsim.analysis.results import AUCComparison, AUCResult
from rocsim.core._validation import check_choice
from rocsim.core.area import AUC_METHODS, auc_difference_interval, auc_interval
from rocsim.core.roc import roc_curve


def auc_ci(
    y_true,
    y_score,
    *,
    method: str = "delong",
    confidence_level: float = 0.95,
    pos_label=None,
    direction: str = "higher",
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
    direction : {"higher", "lower", "auto"}, default "higher"
        Which way the scores point (:func:`rocsim.roc_ci`); ``"auto"`` gives pROC's AUC of a
        classifier scored "controls > cases".

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
    data = scored(y_true, y_score, pos_label=pos_label, direction=direction)
    pos, neg = data.classes()
    ci = auc_interval(pos, neg, confidence_level=confidence_level, method=method)
    curves = (roc_curve(pos, neg)[:2],)
    return AUCResult(**asdict(ci), curves=curves, direction=data.direction)


def compare_auc(
    y_true,
    y_score1,
    y_score2,
    *,
    method: str = "delong",
    confidence_level: float = 0.95,
    pos_label=None,
    direction: str | tuple[str, str] = "higher",
) -> AUCComparison:
    """The paired difference ``AUC1 - AUC2`` of two classifiers scored on the same instances,
    with a confidence interval and a two-sided p-value (DeLong or exact bootstrap variance).

    Parameters
    ----------
    y_true, y_score1, y_score2 : array-like of shape (n,)
    method : {"delong", "exact_bootstrap"}, default "delong"
    confidence_level : float, default 0.95
    pos_label : optional
    direction : {"higher", "lower", "auto"} or a pair of them, default "higher"
        Which way each classifier's scores point; two classifiers that seem scored in opposite
        directions are reported with a :class:`~rocsim.analysis.DirectionWarning` (pROC's
        ``roc.test`` warns likewise).

    Returns
    -------
    AUCComparison

    Examples
    --------
    >>> y = [1, 1, 1, 0, 0, 0]
    >>> cmp = compare_auc(y, [0.9, 0.8, 0.4, 0.5, 0.3, 0.2], [0.9, 0.3, 0.4, 0.5, 0.8, 0.2])
    >>> round(cmp.difference, 4)
    0.3333
    """
    check_choice(method, AUC_METHODS, "AUC method")
    data = scored(y_true, y_score1, y_score2, pos_label=pos_label, direction=direction)
    (pos1, neg1), (pos2, neg2) = data.classes(0), data.classes(1)
    ci = auc_difference_interval(
        pos1, pos2, neg1, neg2, confidence_level=confidence_level, method=method
    )
    curves = (roc_curve(pos1, neg1)[:2], roc_curve(pos2, neg2)[:2])
    return AUCComparison(**asdict(ci), curves=curves, direction=data.direction)
