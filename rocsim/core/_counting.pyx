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


def chain_histograms(const int64_t[::1] rank1, const int64_t[::1] rank2, Py_ssize_t size):
    """``reached[k, j]``: the instances of rank ``j`` on the first axis (``k = 0``), the
    second (``k = 1``) and the lower of the two (``k = 2``, both decisions), in one pass."""
    out = np.zeros((3, size + 1), dtype=np.int64)
    cdef int64_t[:, ::1] reached = out
    cdef Py_ssize_t i
    for i in range(rank1.shape[0]):
        reached[0, rank1[i]] += 1
        reached[1, rank2[i]] += 1
        reached[2, min(rank1[i], rank2[i])] += 1
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
