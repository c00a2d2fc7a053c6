"""Compiled loops of :mod:`rocsim.core.mixture` (built with the package)."""

import numpy as np

from libc.stdint cimport int64_t, uint8_t


def merge_runs(const double[:, ::1] q, const double[:, ::1] w):
    """The components of :class:`rocsim.core.mixture.BinomialMixture`: row by row, the
    entries with ``w > 0``, a component starting at a row's first one and wherever ``q``
    changes, its weight the sum of its run's, left to right. Returns their ``q``, weights and
    the count of each row."""
    cdef Py_ssize_t rows = q.shape[0], width = q.shape[1], i, j, size = 0
    q_array, w_array = np.empty(rows * width), np.empty(rows * width)
    per_row_array = np.zeros(rows, dtype=np.int64)
    cdef double[::1] out_q = q_array, out_w = w_array
    cdef int64_t[::1] per_row = per_row_array
    for i in range(rows):
        for j in range(width):
            if not w[i, j] > 0:
                continue
            if per_row[i] == 0 or q[i, j] != out_q[size - 1]:
                out_q[size] = q[i, j]
                out_w[size] = 0.0
                per_row[i] += 1
                size += 1
            out_w[size - 1] += w[i, j]
    return q_array[:size].copy(), w_array[:size].copy(), per_row_array


def table_sums(
    const double[::1] flat,
    Py_ssize_t width,
    const Py_ssize_t[::1] key,
    const double[::1] weight,
    const int64_t[::1] first,
    const int64_t[::1] count,
    const int64_t[::1] rows,
    const int64_t[:, ::1] points,
    int64_t m,
):
    """``sum_c weight[c] flat[l width + clip(key[c] - l, 0, width - 1)]`` over the components
    ``c`` of row ``rows[k]`` at each ``l = clip(points[k, j], 0, m)``
    (:meth:`rocsim.core.mixture._TableCdf.values`): one pass, no index arrays. Summed left to
    right: within the ``4 eps count`` of the table's error."""
    out_array = np.empty((points.shape[0], points.shape[1]))
    cdef double[:, ::1] out = out_array
    cdef Py_ssize_t k, j, c, lo, hi
    cdef int64_t at
    cdef double total
    for k in range(rows.shape[0]):
        lo = first[rows[k]]
        hi = lo + count[rows[k]]
        for j in range(points.shape[1]):
            at = min(max(points[k, j], 0), m)
            total = 0.0
            for c in range(lo, hi):
                total += flat[at * width + min(max(key[c] - at, 0), width - 1)] * weight[c]
            out[k, j] = total
    return out_array


def segment_tail_sums(
    const double[::1] w, const int64_t[::1] first, const int64_t[::1] count, const uint8_t[::1] anchor
):
    """Row by row, the row's sums from its end (last component first), then each
    component's less the one at the next anchor (or 0 at the row's end), floored at 1e-300.
    One pass per row, no table padded to the longest row."""
    out_array = np.empty(w.shape[0])
    cdef double[::1] out = out_array
    cdef Py_ssize_t rows = count.shape[0], row, p, start, size, end, longest = 0
    for row in range(rows):
        longest = max(longest, count[row])
    suffix_array = np.zeros(longest + 1)
    cdef double[::1] suffix = suffix_array
    cdef double total
    for row in range(rows):
        start, size = first[row], count[row]
        total = 0.0
        suffix[size] = 0.0
        for p in range(size - 1, -1, -1):
            total += w[start + p]
            suffix[p] = total
        end = size  # the next anchor after the components seen so far, or the row's end
        for p in range(size - 1, -1, -1):
            out[start + p] = max(suffix[p] - suffix[end], 1e-300)
            if anchor[start + p]:
                end = p
    return out_array
