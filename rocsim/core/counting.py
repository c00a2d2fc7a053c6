"""The one counting function of rocsim: how many scores reach each threshold.

Every curve (empirical ROC, threshold averaging, the thresholds of simulation studies) is
built on :func:`count_at_or_above`; an instance is predicted positive at threshold ``t`` when
its score is ``>= t`` (:ref:`reading-ties`), so ties go to the positive side.
"""

from __future__ import annotations

import numpy as np

from rocsim.core import _counting
from rocsim.core._validation import check_thresholds, check_two_classes


def count_at_or_above(scores: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """Number of ``scores`` that are ``>= t`` for every ``t`` in ``thresholds``.

    The scores are sorted (a compiled radix sort from :data:`_RADIX_MIN` scores on,
    :func:`sorted_scores`) and each threshold is looked up in them. Only for very many scores
    and few thresholds (:data:`_PLACE_MIN`) is each score placed among the sorted thresholds
    instead (``O(n log h)``, no sort): below that, the bisection per score costs more than the
    sort (``benchmarks/bench_counting.py`` times both). Both give the same integers.

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
    if scores.size < _PLACE_MIN[0] or thresholds.size >= _PLACE_MIN[1]:
        return scores.size - _count_below(sorted_scores(scores), thresholds)
    return _count_by_placing(scores, thresholds)


def _count_by_placing(scores: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """:func:`count_at_or_above` by placing each score among the sorted thresholds."""
    order = np.argsort(thresholds, kind="stable")
    ascending = thresholds[order]
    # rank[i] = number of thresholds <= scores[i]; score i reaches thresholds ascending[:rank[i]]
    rank = _ranks(ascending, scores)
    reached = np.bincount(rank, minlength=ascending.size + 1)
    # thresholds ascending[j] is reached by every score whose rank exceeds j
    counts = np.empty(ascending.size, dtype=np.int64)
    counts[order] = np.cumsum(reached[::-1])[::-1][1:]
    return counts


#: ``(scores, thresholds)``: :func:`count_at_or_above` places the scores among the thresholds
#: from this many scores on, for fewer thresholds than this (benchmarks/bench_counting.py).
_PLACE_MIN = (2**19, 2**8)

#: Fewest scores that :func:`sorted_scores` sorts by radix rather than by ``np.sort``.
_RADIX_MIN = 2048


def sorted_scores(scores: np.ndarray) -> np.ndarray:
    """``np.sort(scores)`` of scores without NaN, but for the order of ``-0.0`` and ``0.0``
    (here ``-0.0`` first, on every numpy; ``np.sort`` leaves them in an order of its own):
    for arrays that are only compared with thresholds (``-0.0 == 0.0``), the same counts.

    Large arrays are sorted by a compiled radix sort on the bits of the floats
    (:mod:`rocsim.core._counting`; linear in the size, and a simulation sorts each class of
    every test set), small ones by ``np.sort``.

    Examples
    --------
    >>> sorted_scores(np.array([0.5, -1.0, 2.0])).tolist()
    [-1.0, 0.5, 2.0]
    """
    if scores.size < _RADIX_MIN:
        return _negative_zeros_first(np.sort(scores))
    return _counting.radix_sort(np.ascontiguousarray(scores, dtype=np.float64))


def _negative_zeros_first(ordered: np.ndarray) -> np.ndarray:
    """``ordered`` with its zeros (one run) as the radix sort leaves them, ``-0.0`` first:
    ``np.sort``'s order of equal values changed between numpy releases (SIMD sorts), and a
    curve reports the first of tied scores as its threshold."""
    zeros = np.flatnonzero(ordered == 0)
    if zeros.size:
        negative = np.count_nonzero(np.signbit(ordered[zeros]))
        ordered[zeros[:negative]] = -0.0
        ordered[zeros[negative:]] = 0.0
    return ordered


def _count_below(ordered: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """``np.searchsorted(ordered, thresholds, side="left")``: how many of the sorted scores
    are below each threshold. Many ascending thresholds (every negative of a large sample,
    vertical averaging) are merged with the scores in one pass instead of bisected one by
    one: the same integers."""
    if thresholds.size < _RADIX_MIN or not np.all(thresholds[:-1] <= thresholds[1:]):
        return np.searchsorted(ordered, thresholds, side="left")
    as_float = (np.ascontiguousarray(a, dtype=np.float64) for a in (ordered, thresholds))
    return _counting.merge_below(*as_float)


#: Fewest scores for which :func:`_ranks` looks them up by buckets rather than by bisection,
#: and most buckets it uses.
_BUCKET_MIN, _BUCKET_MAX = 2048, 2**16


def _ranks(ascending: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """``np.searchsorted(ascending, keys, side="right")``: how many of the sorted ``ascending``
    (``-inf``/``inf`` allowed, no NaN) are ``<= key``, for every key (finite or infinite).

    With many keys, by buckets instead of a bisection per key: ``b(v)``, the bucket of ``v`` in
    an equal split of the finite thresholds' range, never decreases as ``v`` grows (each step
    of it rounds monotonically), so every threshold of a lower bucket than a key's is below the
    key and every one of a higher bucket is above it. The buckets are narrower than the gaps
    between distinct thresholds, and checked to hold one value each (however often repeated),
    so the key is compared with that value only. The same integers, faster on large samples.
    """
    finite = ascending[np.isfinite(ascending)]
    if keys.size < _BUCKET_MIN or finite.size < 2 or finite[0] == finite[-1]:
        return np.searchsorted(ascending, keys, side="right")
    with np.errstate(over="ignore", invalid="ignore"):  # spans past the float range: bisect
        gaps = np.diff(finite)
        span = finite[-1] - finite[0]
        count = np.ceil(2.0 * span / gaps[gaps > 0].min())
    if not count <= _BUCKET_MAX:
        return np.searchsorted(ascending, keys, side="right")
    low, count = finite[0], int(count)
    scale = count / span

    def bucket(values: np.ndarray) -> np.ndarray:  # 0 below the range .. count + 1 above it
        with np.errstate(invalid="ignore", over="ignore"):
            position = np.floor((values - low) * scale)
        return np.clip(position, -1, count).astype(np.int64) + 1

    own = bucket(ascending)
    if np.any((own[1:] == own[:-1]) & (ascending[1:] != ascending[:-1])):
        return np.searchsorted(ascending, keys, side="right")  # two values share a bucket
    # thresholds of bucket j: ascending[first[j] : first[j + 1]], all equal
    first = np.concatenate([[0], np.cumsum(np.bincount(own, minlength=count + 2))])
    key_bucket = bucket(keys)
    start = first[key_bucket]
    value = ascending[np.minimum(start, ascending.size - 1)]
    return start + (value <= keys) * (first[key_bucket + 1] - start)


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
    fills the 2x2 table of the two decisions (:func:`decision_counts` gives the three).

    Examples
    --------
    >>> count_jointly_at_or_above(np.array([1., 2., 3.]), np.array([3., 2., 1.]),
    ...                           np.array([2., 0.]), np.array([2., 0.]))
    array([1, 3])
    """
    return decision_counts(scores1, scores2, thresholds1, thresholds2)[2]


def decision_counts(
    scores1: np.ndarray,
    scores2: np.ndarray,
    thresholds1: np.ndarray,
    thresholds2: np.ndarray,
    order: np.ndarray | slice | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(first, second, both)``: instances with ``scores1 >= t1``, with ``scores2 >= t2``, and
    with both, at every threshold pair ``(t1, t2)`` of ``zip(thresholds1, thresholds2)``.

    When the pairs are ordered alike on both axes (sorted by ``t1``, ``t2`` never decreases:
    the thresholds of a grid of operating conditions or total positive ratios), an instance
    that passes a pair passes every pair below it, so each instance is placed among the pairs
    once per axis and the counts are cumulative histograms: ``O((n + h) log h)``. Otherwise
    every instance is compared with every pair, ``O(n h)`` in blocks of instances. Both give
    the same integers. ``order``: the thresholds' :func:`chain_order` if known already (the
    simulation studies count many test sets at the same thresholds).

    Examples
    --------
    >>> decision_counts(np.array([1., 2., 3.]), np.array([3., 2., 1.]),
    ...                 np.array([2., 0.]), np.array([2., 0.]))
    (array([2, 3]), array([2, 3]), array([1, 3]))
    """
    if order is None:
        order = chain_order(thresholds1, thresholds2)
    if order is not False:
        # the pairs form a chain: instance i passes pairs 0 .. rank - 1 of it on each axis
        counts = np.empty((3, thresholds1.size), dtype=np.int64)
        scores = (np.ascontiguousarray(a, dtype=np.float64) for a in (scores1, scores2))
        thresholds = (thresholds1, thresholds2)
        pairs = (np.ascontiguousarray(t[order], dtype=np.float64) for t in thresholds)
        counts[:, order] = _counting.chain_counts(*scores, *pairs)
        return counts[0], counts[1], counts[2]
    both = np.zeros(thresholds1.size, dtype=np.int64)
    block = max(1, 2**22 // max(thresholds1.size, 1))
    for start in range(0, scores1.size, block):
        above1 = scores1[start : start + block, None] >= thresholds1[None, :]
        above2 = scores2[start : start + block, None] >= thresholds2[None, :]
        both += np.count_nonzero(above1 & above2, axis=0)
    return count_at_or_above(scores1, thresholds1), count_at_or_above(scores2, thresholds2), both


def chain_order(thresholds1: np.ndarray, thresholds2: np.ndarray) -> np.ndarray | slice | bool:
    """The order that sorts the threshold pairs ascending on both axes at once, or ``False``
    if none does (not a chain, :func:`decision_counts`). Pairs given in ascending or
    descending order on both axes (a grid of operating conditions) are taken as they come or
    reversed, without a sort."""
    if thresholds1.size == 0:
        return False
    # compared, not subtracted: infinite thresholds (w = 0 or 1) have no difference
    if (thresholds1[1:] >= thresholds1[:-1]).all() and (thresholds2[1:] >= thresholds2[:-1]).all():
        return slice(None)
    if (thresholds1[1:] <= thresholds1[:-1]).all() and (thresholds2[1:] <= thresholds2[:-1]).all():
        return slice(None, None, -1)
    order = np.lexsort((thresholds2, thresholds1))  # by t1, ties by t2
    ascending2 = thresholds2[order]
    return order if (ascending2[1:] >= ascending2[:-1]).all() else False


def stacked_counts(rows: list[np.ndarray]) -> np.ndarray:
    """The counts of several test sets stacked, one row each, or the one test set's counts as
    they are: the simulation studies evaluate the interval formulas on many test sets at once
    (elementwise, so each row as it would be alone), and a user's interval method is given
    one test set's 1-D counts, as its protocol says."""
    return rows[0] if len(rows) == 1 else np.stack(rows)


def roc_counts(pos_scores, neg_scores) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Counts of the empirical ROC curve at every distinct score, ties merged.

    Parameters
    ----------
    pos_scores, neg_scores : array-like of shape (n+,) and (n-,)
        Scores of the positive and the negative instances.

    Returns
    -------
    thresholds : ndarray of shape (k,)
        Distinct scores in decreasing order; a zero is ``0.0``, whatever the signs of the
        zero scores.
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
    return _counts(pos, neg, _distinct_descending(np.concatenate([pos, neg])))


def _distinct_descending(scores: np.ndarray) -> np.ndarray:
    """``np.unique(scores)[::-1]``, a zero named ``0.0`` (:func:`_positive_zero`)."""
    ordered = np.sort(scores)
    first = np.r_[True, ordered[1:] != ordered[:-1]]
    return _positive_zero(ordered[first][::-1])


def sorted_roc_counts(pos: np.ndarray, neg: np.ndarray):
    """:func:`roc_counts` of validated scores (finite 1-D float arrays), from a sort of each
    class and one merge of the two, from the top: the same arrays."""
    thresholds, tp, fp = _counting.merged_counts(sorted_scores(pos), sorted_scores(neg))
    return _positive_zero(thresholds), tp, fp


def _positive_zero(thresholds: np.ndarray) -> np.ndarray:
    """``thresholds`` with ``-0.0`` made ``0.0`` (``-0.0 + 0.0`` is ``0.0``), in place.

    Tied zeros are one threshold (``-0.0 == 0.0``); which of them named it followed the signs
    of the zero scores, and the same computation upstream (the data's rounding, a sort's
    order of ties) need not give those alike on every CPU: ``0.0`` is the same on every
    machine, and the counts are the same either way.
    """
    return np.add(thresholds, 0.0, out=thresholds)


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
