"""Compiled loop of :mod:`rocsim.core.cost`: the ROC curve's upper convex hull."""

import numpy as np

from libc.stdint cimport int64_t


def monotone_chain(const double[::1] x, const double[::1] y):
    """Indices of the upper convex hull of points sorted by ``x`` then ``y`` (Andrew's
    monotone chain), collinear points dropped: the same floating-point test as in Python, to
    the last rounding."""
    hull_array = np.empty(x.shape[0], dtype=np.int64)
    cdef int64_t[::1] hull = hull_array
    cdef Py_ssize_t top = 0, k
    cdef int64_t i, j
    for k in range(x.shape[0]):
        while top >= 2:
            i, j = hull[top - 2], hull[top - 1]
            # drop j unless it lies strictly above the segment from i to k
            if (x[j] - x[i]) * (y[k] - y[i]) - (y[j] - y[i]) * (x[k] - x[i]) >= 0:
                top -= 1
            else:
                break
        hull[top] = k
        top += 1
    return hull_array[:top].copy()
