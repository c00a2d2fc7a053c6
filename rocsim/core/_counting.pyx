"""Compiled loops of :mod:`rocsim.core.counting` (built with the package)."""

import numpy as np

from libc.stdint cimport int64_t, uint64_t

cdef enum:
    # bits per pass of radix_sort (six passes cover the 64 bits of a float)
    RADIX_BITS = 11


def radix_sort(const double[::1] x):
    """Least-significant-digit radix sort of float64 ``x`` (no NaN) by their bits, mapped to
    unsigned integers that order as the floats do (negatives: every bit flipped; others: the
    sign bit set). A pass whose digit all keys share is skipped."""
    cdef Py_ssize_t n = x.shape[0], i, b
    cdef int d, passes = (64 + RADIX_BITS - 1) // RADIX_BITS
    cdef uint64_t top = (<uint64_t>1) << 63, key, shift
    cdef uint64_t size = (<uint64_t>1) << RADIX_BITS, mask = size - 1
    cdef const uint64_t[::1] bits = np.asarray(x).view(np.uint64)
    keys_array, spare_array = np.empty(n, dtype=np.uint64), np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] source = keys_array, target = spare_array, swap
    counts_array = np.zeros((passes, size), dtype=np.int64)
    cdef int64_t[:, ::1] counts = counts_array
    cdef int64_t total, held
    for i in range(n):
        key = bits[i]
        source[i] = ~key if key & top else key | top
    for i in range(n):
        for d in range(passes):
            counts[d, (source[i] >> (RADIX_BITS * d)) & mask] += 1
    for d in range(passes):
        shift = RADIX_BITS * d
        if counts[d, (source[0] >> shift) & mask] == n:
            continue  # every key has this digit: the order stays
        total = 0
        for b in range(<Py_ssize_t>size):
            held = counts[d, b]
            counts[d, b] = total
            total += held
        for i in range(n):
            b = (source[i] >> shift) & mask
            target[counts[d, b]] = source[i]
            counts[d, b] += 1
        swap = source
        source = target
        target = swap
    out = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] result = out
    for i in range(n):
        key = source[i]
        result[i] = key & ~top if key & top else ~key
    return out.view(np.float64)


def merge_below(const double[::1] ordered, const double[::1] ascending):
    """For sorted ``ordered`` and ascending ``ascending`` (no NaN): ``below[j]``, the count
    of ``ordered`` strictly below ``ascending[j]``, by one merge of the two."""
    out = np.empty(ascending.shape[0], dtype=np.int64)
    cdef int64_t[::1] below = out
    cdef Py_ssize_t i = 0, j
    for j in range(ascending.shape[0]):
        while i < ordered.shape[0] and ordered[i] < ascending[j]:
            i += 1
        below[j] = i
    return out


cdef inline Py_ssize_t _at_or_below(const double[::1] ascending, double key) noexcept nogil:
    """How many of ``ascending`` are ``<= key`` (``np.searchsorted(..., side="right")``), by a
    bisection without branches on the comparisons (a conditional move each step): random
    keys would mispredict half of the branches of a plain bisection."""
    cdef Py_ssize_t base = 0, size = ascending.shape[0], half
    if size == 0:
        return 0
    while size > 1:
        half = size >> 1
        base = base + half if ascending[base + half] <= key else base
        size -= half
    return base + (ascending[base] <= key)


def chain_counts(
    const double[::1] scores1,
    const double[::1] scores2,
    const double[::1] ascending1,
    const double[::1] ascending2,
):
    """``counts[k, j]``: the instances with ``scores1 >= ascending1[j]`` (``k = 0``), with
    ``scores2 >= ascending2[j]`` (``k = 1``) and with both (``k = 2``), for threshold pairs
    ascending on both axes (a chain). Instance ``i`` passes the pairs below its rank on each
    axis, the number of thresholds at or below its score: one bisection per instance and
    axis, a histogram of the ranks (both: of the lower rank) and its sums from the top."""
    cdef Py_ssize_t h = ascending1.shape[0], i, j, r1, r2
    reached_array = np.zeros((3, h + 1), dtype=np.int64)
    out = np.empty((3, h), dtype=np.int64)
    cdef int64_t[:, ::1] reached = reached_array, counts = out
    cdef int64_t total
    cdef int k
    with nogil:
        for i in range(scores1.shape[0]):
            r1 = _at_or_below(ascending1, scores1[i])
            r2 = _at_or_below(ascending2, scores2[i])
            reached[0, r1] += 1
            reached[1, r2] += 1
            reached[2, min(r1, r2)] += 1
        for k in range(3):
            total = 0
            for j in range(h - 1, -1, -1):
                total += reached[k, j + 1]
                counts[k, j] = total
    return out


def merged_counts(const double[::1] ordered_pos, const double[::1] ordered_neg):
    """``(thresholds, tp, fp)`` of :func:`rocsim.core.counting.roc_counts` from the ascending
    scores of each class: the distinct scores from the top, each with the positives and
    negatives at or above it."""
    cdef Py_ssize_t n_pos = ordered_pos.shape[0], n_neg = ordered_neg.shape[0]
    cdef Py_ssize_t size = n_pos + n_neg, i = n_pos, j = n_neg, k = 0
    thresholds_array = np.empty(size, dtype=np.float64)
    tp_array, fp_array = np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64)
    cdef double[::1] thresholds = thresholds_array
    cdef int64_t[::1] tp = tp_array, fp = fp_array
    cdef double value
    while i > 0 or j > 0:
        if j == 0 or (i > 0 and ordered_pos[i - 1] >= ordered_neg[j - 1]):
            value = ordered_pos[i - 1]
        else:
            value = ordered_neg[j - 1]
        while i > 0 and ordered_pos[i - 1] == value:
            i -= 1
        while j > 0 and ordered_neg[j - 1] == value:
            j -= 1
        thresholds[k] = value
        tp[k] = n_pos - i
        fp[k] = n_neg - j
        k += 1
    return thresholds_array[:k].copy(), tp_array[:k].copy(), fp_array[:k].copy()
