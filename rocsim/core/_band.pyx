# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled loop of :mod:`rocsim.core.curve_band`: the probability that a bootstrap ROC curve
stays inside a band, by a forward pass over the sorted negatives on the joint law of the two
classes' resampled counts."""

import numpy as np

from libc.math cimport exp, floor as c_floor, lgamma, log, log1p


cdef inline double _take(double[:, ::1] f, long row, long col, double tiny) noexcept nogil:
    """The state ``f[row, col]``, cleared; 0 if it held less than ``tiny`` (left out)."""
    cdef double v = f[row, col]
    if v == 0.0:
        return 0.0
    f[row, col] = 0.0
    return v if v >= tiny else 0.0


cdef long _pmf(long trials, double p, double[::1] out, double tiny) noexcept nogil:
    """``out[j] = Pr{Bin(trials, p) = j}`` for ``j = lo .. hi``, the run around the mode where
    the terms reach ``tiny``; returns ``lo`` and stores ``hi`` in ``out[trials + 1]``."""
    cdef long mode, j, lo, hi
    cdef double logp, log_mode, ratio, value
    if p <= 0.0 or trials == 0:
        out[0] = 1.0
        out[trials + 1] = 0.0
        return 0
    if p >= 1.0:
        out[trials] = 1.0
        out[trials + 1] = trials
        return trials
    mode = <long>c_floor((trials + 1) * p)
    if mode > trials:
        mode = trials
    log_mode = (
        lgamma(trials + 1.0) - lgamma(mode + 1.0) - lgamma(trials - mode + 1.0)
        + mode * log(p) + (trials - mode) * log1p(-p)
    )
    ratio = p / (1.0 - p)
    value = exp(log_mode)
    out[mode] = value
    lo = mode
    while lo > 0:
        # pmf(j - 1) = pmf(j) j / ((trials - j + 1) ratio)
        value = value * lo / ((trials - lo + 1) * ratio)
        if value < tiny:
            break
        lo -= 1
        out[lo] = value
    value = out[mode]
    hi = mode
    while hi < trials:
        value = value * (trials - hi) / (hi + 1.0) * ratio
        if value < tiny:
            break
        hi += 1
        out[hi] = value
    out[trials + 1] = hi
    return lo


def band_containment(
    const double[::1] rates,
    long m_neg,
    long m_pos,
    const long[::1] ranks,
    const long[:, ::1] next_bad,
    double tiny,
):
    """``Pr{at each rank's crossing, the resampled positives reaching it are within its
    bounds}``.

    ``rates[c]``: share of the positives reaching the ``(c + 1)``-th sorted negative
    (non-decreasing). The state after cell ``c`` is ``(N, X)``: ``N`` resampled negatives in
    cells ``0..c``, ``X`` resampled positives reaching cell ``c``. Per cell, ``X`` grows by
    ``Bin(m+ - X, (q_c - q_{c-1}) / (1 - q_{c-1}))`` (the positives between the two
    negatives), then ``N`` by ``Bin(m- - N, 1 / (n- - c))``; a move of ``N`` to ``N + j``
    crosses the ranks in ``(N, N + j]`` (the threshold rank ``t`` is crossed in the cell of
    the ``t``-th resampled negative) and survives only if none of them excludes ``X``:
    ``next_bad[X, i]`` is the first rank index ``>= i`` whose bounds exclude ``X``
    (``len(ranks)`` if none). Binomial terms and states below ``tiny`` are left out (each
    leaves out less than ``tiny`` of probability)."""
    cdef long n_cells = rates.shape[0]
    cdef double[:, ::1] f = np.zeros((m_neg + 1, m_pos + 1))
    cdef double[:, ::1] g = np.zeros((m_neg + 1, m_pos + 1))
    cdef double[:, ::1] swap
    cdef double[::1] w = np.zeros(max(m_neg, m_pos) + 2)
    cdef long k = ranks.shape[0]
    cdef long c, big_n, x, j, lo, hi, first, bad, n_lo = 0, n_hi = 0, x_lo = 0, x_hi = 0
    cdef long new_lo, new_hi, kept
    cdef double v, total, previous = 0.0, step, p
    f[0, 0] = 1.0
    with nogil:
        for c in range(n_cells):
            step = rates[c] - previous
            if step > 0.0:
                p = step / (1.0 - previous) if previous < 1.0 else 1.0
                new_lo, new_hi = m_pos, 0
                for x in range(x_lo, x_hi + 1):
                    lo = _pmf(m_pos - x, p, w, tiny)
                    hi = <long>w[m_pos - x + 1]
                    kept = 0
                    for big_n in range(n_lo, n_hi + 1):
                        v = _take(f, big_n, x, tiny)
                        if v == 0.0:
                            continue
                        kept = 1
                        for j in range(lo, hi + 1):
                            g[big_n, x + j] += v * w[j]
                    if kept:
                        if x + lo < new_lo:
                            new_lo = x + lo
                        if x + hi > new_hi:
                            new_hi = x + hi
                swap = f
                f = g
                g = swap
                x_lo, x_hi = new_lo, new_hi
                previous = rates[c]
            new_lo, new_hi = m_neg, 0
            p = 1.0 / (n_cells - c)
            for big_n in range(n_lo, n_hi + 1):
                lo = _pmf(m_neg - big_n, p, w, tiny)
                hi = <long>w[m_neg - big_n + 1]
                first = 0  # the first rank above N
                while first < k and ranks[first] <= big_n:
                    first += 1
                kept = 0
                for x in range(x_lo, x_hi + 1):
                    v = _take(f, big_n, x, tiny)
                    if v == 0.0:
                        continue
                    kept = 1
                    bad = next_bad[x, first]
                    bad = ranks[bad] if bad < k else m_neg + 1
                    for j in range(lo, hi + 1):
                        if big_n + j >= bad:
                            break
                        g[big_n + j, x] += v * w[j]
                if kept:
                    if big_n + lo < new_lo:
                        new_lo = big_n + lo
                    if big_n + hi > new_hi:
                        new_hi = big_n + hi
            swap = f
            f = g
            g = swap
            n_lo, n_hi = new_lo, new_hi
    total = 0.0
    for big_n in range(n_lo, n_hi + 1):
        for x in range(x_lo, x_hi + 1):
            total += f[big_n, x]
    return total


def crossing_products(
    const double[::1] rates,
    long m_neg,
    const long[::1] ranks,
    const double[::1] reference,
    double tiny,
):
    """``out[i, j] = E[(q_(C_i) - reference_i) (q_(C_j) - reference_j)]`` for ``i < j`` (upper
    triangle; the rest 0), with ``C_i`` the cell of the ``ranks[i]``-th resampled negative
    (``ranks`` ascending) and ``q = rates``.

    A forward pass over the cells on the law of ``N`` (resampled negatives so far) alone, as in
    :func:`band_containment` without the positives: ``h[N, i] = E[(q_(C_i) - reference_i)
    1{C_i <= c, N_c = N}]`` for the ranks crossed so far moves with ``N``; a move of ``N``
    across rank ``j`` in cell ``c`` adds ``(q_c - reference_j)`` times each ``h[., i]`` (and,
    for ranks crossed in the same move, ``(q_c - reference_i) (q_c - reference_j)`` times the
    probability) to ``out[i, j]``. States and binomial terms below ``tiny`` are left out."""
    cdef long n_cells = rates.shape[0]
    cdef long k = ranks.shape[0]
    cdef double[::1] p = np.zeros(m_neg + 1)
    cdef double[::1] p_next = np.zeros(m_neg + 1)
    cdef double[:, ::1] h = np.zeros((m_neg + 1, k))
    cdef double[:, ::1] h_next = np.zeros((m_neg + 1, k))
    cdef double[:, ::1] out = np.zeros((k, k))
    cdef double[::1] w = np.zeros(m_neg + 2)
    cdef double[::1] dswap
    cdef double[:, ::1] hswap
    cdef long c, big_n, target, j, i, a, lo, hi, first, last, n_lo = 0, n_hi = 0
    cdef long new_lo, new_hi
    cdef double v, weight, q, prob
    p[0] = 1.0
    with nogil:
        for c in range(n_cells):
            q = rates[c]
            prob = 1.0 / (n_cells - c)
            new_lo, new_hi = m_neg, 0
            first = 0
            for big_n in range(n_lo, n_hi + 1):
                v = p[big_n]
                while first < k and ranks[first] <= big_n:
                    first += 1
                if v == 0.0:
                    continue
                p[big_n] = 0.0
                if v < tiny:
                    for i in range(first):
                        h[big_n, i] = 0.0
                    continue
                lo = _pmf(m_neg - big_n, prob, w, tiny)
                hi = <long>w[m_neg - big_n + 1]
                if big_n + lo < new_lo:
                    new_lo = big_n + lo
                if big_n + hi > new_hi:
                    new_hi = big_n + hi
                last = first
                for j in range(lo, hi + 1):
                    target = big_n + j
                    weight = w[j]
                    p_next[target] += v * weight
                    for i in range(first):
                        h_next[target, i] += h[big_n, i] * weight
                    # the ranks in (N, N + j] are crossed in this cell
                    while last < k and ranks[last] <= target:
                        last += 1
                    for a in range(first, last):
                        # crossed now: products with every rank crossed before or with it
                        for i in range(first):
                            out[i, a] += h[big_n, i] * weight * (q - reference[a])
                        for i in range(first, a):
                            out[i, a] += v * weight * (q - reference[i]) * (q - reference[a])
                        h_next[target, a] += v * weight * (q - reference[a])
                for i in range(first):
                    h[big_n, i] = 0.0
            dswap = p
            p = p_next
            p_next = dswap
            hswap = h
            h = h_next
            h_next = hswap
            n_lo, n_hi = new_lo, new_hi
    return np.asarray(out)
