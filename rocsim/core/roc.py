"""Empirical ROC curve and its area, built on :func:`rocsim.core.counting.roc_counts`."""

from __future__ import annotations

import numpy as np

from rocsim.core.counting import roc_counts


def roc_curve(pos_scores, neg_scores) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Empirical ROC curve (Fawcett 2006, thesis Algorithm 2.1), ties merged.

    The curve starts at (0, 0) with threshold ``inf``, like ``sklearn.metrics.roc_curve``
    with ``drop_intermediate=False``.

    Parameters
    ----------
    pos_scores, neg_scores : array-like
        Scores of the positive and the negative instances.

    Returns
    -------
    fpr, tpr, thresholds : ndarray of shape (k + 1,)

    Examples
    --------
    >>> fpr, tpr, thr = roc_curve([0.9, 0.4], [0.6, 0.1])
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    """
    thresholds, tp, fp = roc_counts(pos_scores, neg_scores)
    n_pos, n_neg = np.size(pos_scores), np.size(neg_scores)
    tpr = np.concatenate([[0.0], tp / n_pos])
    fpr = np.concatenate([[0.0], fp / n_neg])
    return fpr, tpr, np.concatenate([[np.inf], thresholds])


def auc(pos_scores, neg_scores) -> float:
    """Area under the empirical ROC curve (trapezoids; ties count one half).

    Equals the Mann-Whitney statistic ``U / (n+ n-)``.

    Examples
    --------
    >>> auc([0.9, 0.4], [0.6, 0.1])
    0.75
    """
    fpr, tpr, _ = roc_curve(pos_scores, neg_scores)
    return float(np.trapezoid(tpr, fpr))
