"""The one counting function of rocsim: how many scores reach each threshold.

Every curve (empirical ROC, threshold averaging, the thresholds of simulation studies) is
built on :func:`count_at_or_above`; an instance is predicted positive at threshold ``t`` when
its score is ``>= t`` (:ref:`reading-ties`), so ties go to the positive side.
"""

from __future__ import annotations

import numpy as np

from rocsim.core._validation import check_labels, check_thresholds, check_two_classes


def count_at_or_above(scores: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """Number of ``scores`` that are ``>= t`` for every ``t`` in ``thresholds``.

    Runs in ``O(n log h)`` for ``n`` scores and ``h`` thresholds: each score is placed among
    the sorted thresholds once, so the scores never need sorting. With many thresholds
    (``h > n/4``) the scores are sorted instead and the thresholds looked up in them.

    Parameters
    ----------
    scores : ndarray of shape (n,)
        Finite scores (validated by the caller).
    thresholds : ndarray of shape (h,)
        Thresholds in any order; ``-inf`` and ``inf`` are allowed.

    Returns
    -------
    counts : ndarray of shape (h,), int64
        ``counts[j] = #{i : scores[i] >= thresholds[j]}``.

    Examples
    --------
    >>> count_at_or_above(np.array([0.1, 0.5, 0.5, 0.9]), np.array([0.5, 1.0, 0.0]))
    array([3, 0, 4])
    """
    if 4 * thresholds.size > scores.size:
        # many thresholds (an ROC curve, vertical averaging): sorting the scores is cheaper
        ordered = np.sort(scores)
        return scores.size - np.searchsorted(ordered, thresholds, side="left")
    order = np.argsort(thresholds, kind="stable")
    ascending = thresholds[order]
    # rank[i] = number of thresholds <= scores[i]; score i reaches thresholds ascending[:rank[i]]
    rank = np.searchsorted(ascending, scores, side="right")
    reached = np.bincount(rank, minlength=ascending.size + 1)
    # thresholds ascending[j] is reached by every score whose rank exceeds j
    at_or_above = np.cumsum(reached[::-1])[::-1][1:]
    counts = np.empty(ascending.size, dtype=np.int64)
    counts[order] = at_or_above
    return counts


def count_above(scores: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """Number of ``scores`` strictly above every ``t``: :func:`count_at_or_above` on the
    negated scores, ``#{s > t} = n - #{-s >= -t}`` (the top of an ROC curve's vertical step).

    Examples
    --------
    >>> count_above(np.array([0.1, 0.5, 0.5, 0.9]), np.array([0.5, 1.0, 0.0]))
    array([1, 0, 4])
    """
    return scores.size - count_at_or_above(-scores, -thresholds)


def count_jointly_at_or_above(
    scores1: np.ndarray, scores2: np.ndarray, thresholds1: np.ndarray, thresholds2: np.ndarray
) -> np.ndarray:
    """Number of instances ``i`` with ``scores1[i] >= t1`` and ``scores2[i] >= t2`` for every
    threshold pair ``(t1, t2)`` of ``zip(thresholds1, thresholds2)``.

    The paired designs' one extra count: with :func:`count_at_or_above` for each classifier it
    fills the 2x2 table of the two decisions. ``O(n h)`` in blocks of instances.

    Examples
    --------
    >>> count_jointly_at_or_above(np.array([1., 2., 3.]), np.array([3., 2., 1.]),
    ...                           np.array([2., 0.]), np.array([2., 0.]))
    array([1, 3])
    """
    counts = np.zeros(thresholds1.size, dtype=np.int64)
    block = max(1, 2**22 // max(thresholds1.size, 1))
    for start in range(0, scores1.size, block):
        above1 = scores1[start : start + block, None] >= thresholds1[None, :]
        above2 = scores2[start : start + block, None] >= thresholds2[None, :]
        counts += np.count_nonzero(above1 & above2, axis=0)
    return counts


def split_scores(y_true, y_score, *, pos_label=1) -> tuple[np.ndarray, np.ndarray]:
    """Scores of the positives and of the negatives, from labels and scores.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels (any two values).
    y_score : array-like of shape (n,)
        Finite scores; higher means more likely positive.
    pos_label : default 1
        The label of the positive class.

    Returns
    -------
    pos_scores, neg_scores : ndarray

    Examples
    --------
    >>> split_scores(["a", "b", "a"], [0.9, 0.2, 0.4], pos_label="a")
    (array([0.9, 0.4]), array([0.2]))
    """
    return check_labels(y_true, y_score, pos_label)


def roc_counts(pos_scores, neg_scores) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Counts of the empirical ROC curve at every distinct score, ties merged.

    Parameters
    ----------
    pos_scores, neg_scores : array-like of shape (n+,) and (n-,)
        Scores of the positive and the negative instances.

    Returns
    -------
    thresholds : ndarray of shape (k,)
        Distinct scores in decreasing order.
    tp : ndarray of shape (k,)
        Positives scoring ``>= thresholds[j]``.
    fp : ndarray of shape (k,)
        Negatives scoring ``>= thresholds[j]``.

    Examples
    --------
    >>> roc_counts([3.0, 2.0], [2.0, 1.0])
    (array([3., 2., 1.]), array([1, 2, 2]), array([0, 1, 2]))
    """
    pos, neg = check_two_classes(pos_scores, neg_scores)
    thresholds = np.unique(np.concatenate([pos, neg]))[::-1]
    return _counts(pos, neg, thresholds)


def counts_at(pos_scores, neg_scores, thresholds) -> tuple[np.ndarray, np.ndarray]:
    """Positives and negatives scoring ``>= t`` at the given thresholds.

    Examples
    --------
    >>> counts_at([3.0, 2.0], [2.0, 1.0], [2.5, 2.0])
    (array([1, 2]), array([0, 1]))
    """
    pos, neg = check_two_classes(pos_scores, neg_scores)
    _, tp, fp = _counts(pos, neg, check_thresholds(thresholds))
    return tp, fp


def _counts(pos: np.ndarray, neg: np.ndarray, thresholds: np.ndarray):
    return thresholds, count_at_or_above(pos, thresholds), count_at_or_above(neg, thresholds)
