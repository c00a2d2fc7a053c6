# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled forward passes over the sorted negatives' bootstrap path: the probability that a
bootstrap ROC curve stays inside a band (:mod:`rocsim.core.curve_band`), the products of the
TPRs at two ranks (:mod:`rocsim.core.curve_covariance`) and the moments of the partial area
(:mod:`rocsim.core.partial_area`)."""

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


cdef long _move_positives(
    double[:, ::1] f,
    double[:, ::1] g,
    long n_lo,
    long n_hi,
    long x_lo,
    long x_hi,
    long m_pos,
    double p,
    double[::1] w,
    double tiny,
    long* new_hi,
) noexcept nogil:
    """Every state ``(N, X)`` of ``f`` (cleared) moved to ``(N, X + Bin(m+ - X, p))`` in
    ``g``: the resampled positives between two thresholds; returns the lowest ``X`` reached
    and stores the highest in ``new_hi``."""
    cdef long x, big_n, j, lo, hi, kept, new_lo = m_pos
    cdef double v
    new_hi[0] = 0
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
            if x + hi > new_hi[0]:
                new_hi[0] = x + hi
    return new_lo


def band_containment(
    const double[::1] rates,
    const long[::1] lengths,
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
    leaves out less than ``tiny`` of probability). Consecutive negatives that share their
    rate are one cell (``lengths[c]`` of them: no positive between them, so ``X`` does not
    move inside it), into which ``N`` grows by ``Bin(m- - N, lengths[c] / (negatives
    left))``."""
    cdef long n_cells = rates.shape[0], left = 0
    cdef double[:, ::1] f = np.zeros((m_neg + 1, m_pos + 1))
    cdef double[:, ::1] g = np.zeros((m_neg + 1, m_pos + 1))
    cdef double[:, ::1] swap
    cdef double[::1] w = np.zeros(max(m_neg, m_pos) + 2)
    cdef long k = ranks.shape[0]
    cdef long c, big_n, x, j, lo, hi, first, bad, n_lo = 0, n_hi = 0, x_lo = 0, x_hi = 0
    cdef long new_lo, new_hi, kept
    cdef double v, total, previous = 0.0, step, p
    f[0, 0] = 1.0
    for c in range(n_cells):
        left += lengths[c]
    with nogil:
        for c in range(n_cells):
            step = rates[c] - previous
            if step > 0.0:
                p = step / (1.0 - previous) if previous < 1.0 else 1.0
                new_lo = _move_positives(f, g, n_lo, n_hi, x_lo, x_hi, m_pos, p, w, tiny, &new_hi)
                swap = f
                f = g
                g = swap
                x_lo, x_hi = new_lo, new_hi
                previous = rates[c]
            new_lo, new_hi = m_neg, 0
            p = lengths[c] / <double>left
            left -= lengths[c]
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
    const long[::1] lengths,
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
    cdef long n_cells = rates.shape[0], left = 0
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
    for c in range(n_cells):
        left += lengths[c]
    with nogil:
        for c in range(n_cells):
            q = rates[c]
            prob = lengths[c] / <double>left
            left -= lengths[c]
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


cdef inline double _cut_loss(double s, long before, long size) noexcept nogil:
    """``delta (B - delta) / (2 B)``: the part of a tie block's diagonal triangle beyond the
    cut at ``s`` (``B = size`` negatives after ``before``, ``delta = s - before`` clipped to
    ``[0, B]``), per positive tied with the block."""
    cdef double delta = s - before
    if size == 0 or delta <= 0.0 or delta >= size:
        return 0.0
    return delta * (size - delta) / (2.0 * size)


cdef inline double _capped(double c, double s_lo, double s_hi) noexcept nogil:
    """``min(c, s_hi) - min(c, s_lo)``."""
    return (c if c < s_hi else s_hi) - (c if c < s_lo else s_lo)


def area_path_moments(
    const double[::1] block_probs,
    const double[::1] steps,
    const double[::1] tied,
    const double[::1] heights,
    long m_neg,
    double s_lo,
    double s_hi,
    double tiny,
):
    """``(E[S], E[S^2])`` of ``S = sum_j D_j psi(C_j) - e_j (L_hi - L_lo)`` over the bootstrap
    path of the negatives' tie blocks (:mod:`rocsim.core.partial_area`).

    Block ``j`` (scores decreasing) holds the share ``block_probs[j]`` of the negatives;
    ``C_j`` resampled negatives lie in blocks ``0..j``; ``steps[j] = D_j``, ``tied[j] = e_j``,
    ``heights[j] = H_j`` (``heights[m] = 0``); ``psi(c) = min(c, s_hi) - min(c, s_lo)``;
    ``L_s`` is :func:`_cut_loss` of the block the cut ``s`` falls in. The state is ``C_j``
    until it reaches ``s_hi``; from there every later term is fixed
    (``D_i (s_hi - s_lo)``, summing to ``H_(j+1) (s_hi - s_lo)``) and the path is absorbed.
    Binomial terms and states below ``tiny`` are left out."""
    cdef long m = block_probs.shape[0]
    cdef long cap = <long>c_floor(s_hi) + 1
    if cap > m_neg + 1:
        cap = m_neg + 1
    cdef double[::1] p = np.zeros(cap)
    cdef double[::1] s1 = np.zeros(cap)
    cdef double[::1] s2 = np.zeros(cap)
    cdef double[::1] p_next = np.zeros(cap)
    cdef double[::1] s1_next = np.zeros(cap)
    cdef double[::1] s2_next = np.zeros(cap)
    cdef double[::1] swap
    cdef double[::1] w = np.zeros(m_neg + 2)
    cdef long j, c, b, lo, hi, target, c_lo = 0, c_hi = 0, new_lo, new_hi
    cdef double v, a1, a2, inc, weight, prob, cum = 0.0, span = s_hi - s_lo
    cdef double mean = 0.0, second = 0.0
    p[0] = 1.0
    with nogil:
        for j in range(m):
            prob = block_probs[j] / (1.0 - cum) if cum < 1.0 else 1.0
            if prob > 1.0 or j == m - 1:
                prob = 1.0
            new_lo, new_hi = cap, -1
            for c in range(c_lo, c_hi + 1):
                v = p[c]
                if v == 0.0:
                    continue
                a1, a2 = s1[c], s2[c]
                p[c] = 0.0
                s1[c] = 0.0
                s2[c] = 0.0
                if v < tiny:
                    continue
                lo = _pmf(m_neg - c, prob, w, tiny)
                hi = <long>w[m_neg - c + 1]
                for b in range(lo, hi + 1):
                    weight = w[b]
                    target = c + b
                    inc = steps[j] * _capped(target, s_lo, s_hi)
                    if tied[j] != 0.0:
                        inc -= tied[j] * (_cut_loss(s_hi, c, b) - _cut_loss(s_lo, c, b))
                    if target >= s_hi:  # absorbed: every later term is fixed
                        inc += heights[j + 1] * span
                        mean += weight * (a1 + v * inc)
                        second += weight * (a2 + 2.0 * inc * a1 + inc * inc * v)
                        continue
                    p_next[target] += weight * v
                    s1_next[target] += weight * (a1 + v * inc)
                    s2_next[target] += weight * (a2 + 2.0 * inc * a1 + inc * inc * v)
                    if target < new_lo:
                        new_lo = target
                    if target > new_hi:
                        new_hi = target
            swap = p
            p = p_next
            p_next = swap
            swap = s1
            s1 = s1_next
            s1_next = swap
            swap = s2
            s2 = s2_next
            s2_next = swap
            c_lo, c_hi = new_lo, new_hi
            cum += block_probs[j]
            if new_hi < 0:
                break
    return mean, second


cdef inline double _share(double s, long g, long b) noexcept nogil:
    """``phi_s(g, g + b)``: ``n-`` times a positive's share of the area from FPR 0 to
    ``s / n-`` with ``g`` resampled negatives above it and ``b`` tied with it."""
    cdef double big = g + b
    return (
        s - 0.5 * (big if big < s else s) - 0.5 * (g if g < s else s) - _cut_loss(s, g, b)
    )


def positive_moments(
    long m_neg,
    const long[::1] above,
    const long[::1] at,
    double s_lo,
    double s_hi,
    double tiny,
):
    """``(E[phi], E[phi^2])`` per positive group, ``phi = phi_hi - phi_lo`` with ``phi_s(g, G)
    = s - min(G, s) / 2 - min(g, s) / 2 - L_s``: ``n-`` times one positive's share of the
    resampled partial area, ``g`` (``G``) the resampled negatives above (at or above) it, out
    of ``above[i]`` (``above[i] + at[i]``) of the ``m_neg`` original negatives."""
    cdef long k = above.shape[0]
    cdef double[::1] mean = np.zeros(k)
    cdef double[::1] second = np.zeros(k)
    cdef double[::1] wg = np.zeros(m_neg + 2)
    cdef double[::1] wb = np.zeros(m_neg + 2)
    cdef long i, g, b, g_lo, g_hi, b_lo, b_hi
    cdef double phi, q, pg, e1, e2
    with nogil:
        for i in range(k):
            g_lo = _pmf(m_neg, above[i] / <double>m_neg, wg, tiny)
            g_hi = <long>wg[m_neg + 1]
            e1 = 0.0
            e2 = 0.0
            for g in range(g_lo, g_hi + 1):
                if g >= s_hi:
                    break
                pg = wg[g]
                if at[i] == 0:
                    phi = _share(s_hi, g, 0) - _share(s_lo, g, 0)
                    e1 += pg * phi
                    e2 += pg * phi * phi
                    continue
                q = at[i] / <double>(m_neg - above[i])
                b_lo = _pmf(m_neg - g, q, wb, tiny)
                b_hi = <long>wb[m_neg - g + 1]
                for b in range(b_lo, b_hi + 1):
                    phi = _share(s_hi, g, b) - _share(s_lo, g, b)
                    e1 += pg * wb[b] * phi
                    e2 += pg * wb[b] * phi * phi
            mean[i] = e1
            second[i] = e2
    return np.asarray(mean), np.asarray(second)


def cost_containment(
    const double[::1] pos_share,
    const double[::1] neg_share,
    long m_pos,
    long m_neg,
    const long[::1] step_of,
    const double[::1] w,
    const double[::1] lo,
    const double[::1] hi,
    double tiny,
):
    """``Pr{at every constraint k, lo[k] <= w[k] (1 - X / m+) + (1 - w[k]) N / m- <= hi[k]}``
    under the stratified bootstrap, ``X`` (``N``) the resampled positives (negatives) scoring
    at least the threshold of step ``step_of[k]`` (:mod:`rocsim.core.cost_band`).

    The thresholds are walked from the highest down: at step ``s`` the shares of the data's
    positives and negatives at or above the threshold are ``pos_share[s]`` and
    ``neg_share[s]`` (non-decreasing); ``X`` grows by ``Bin(m+ - X, (p_s - p_(s-1)) /
    (1 - p_(s-1)))`` and ``N`` alike, independently, and the constraints of the step (``k``
    in order, ``step_of`` non-decreasing) then remove the states whose cost leaves its
    bounds. Binomial terms and states below ``tiny`` are left out."""
    cdef long steps = pos_share.shape[0]
    cdef long k_total = step_of.shape[0]
    cdef double[:, ::1] f = np.zeros((m_neg + 1, m_pos + 1))
    cdef double[:, ::1] g = np.zeros((m_neg + 1, m_pos + 1))
    cdef double[:, ::1] swap
    cdef double[::1] wb = np.zeros(max(m_neg, m_pos) + 2)
    cdef long s, big_n, x, j, lo_j, hi_j, kept, k = 0
    cdef long n_lo = 0, n_hi = 0, x_lo = 0, x_hi = 0, new_lo, new_hi
    cdef double v, p, step, prev_pos = 0.0, prev_neg = 0.0, cost, total = 0.0
    f[0, 0] = 1.0
    with nogil:
        for s in range(steps):
            step = pos_share[s] - prev_pos
            if step > 0.0:
                p = step / (1.0 - prev_pos) if prev_pos < 1.0 else 1.0
                new_lo = _move_positives(f, g, n_lo, n_hi, x_lo, x_hi, m_pos, p, wb, tiny, &new_hi)
                swap = f
                f = g
                g = swap
                x_lo, x_hi = new_lo, new_hi
                prev_pos = pos_share[s]
            step = neg_share[s] - prev_neg
            if step > 0.0:
                p = step / (1.0 - prev_neg) if prev_neg < 1.0 else 1.0
                new_lo, new_hi = m_neg, 0
                for big_n in range(n_lo, n_hi + 1):
                    lo_j = _pmf(m_neg - big_n, p, wb, tiny)
                    hi_j = <long>wb[m_neg - big_n + 1]
                    kept = 0
                    for x in range(x_lo, x_hi + 1):
                        v = _take(f, big_n, x, tiny)
                        if v == 0.0:
                            continue
                        kept = 1
                        for j in range(lo_j, hi_j + 1):
                            g[big_n + j, x] += v * wb[j]
                    if kept:
                        if big_n + lo_j < new_lo:
                            new_lo = big_n + lo_j
                        if big_n + hi_j > new_hi:
                            new_hi = big_n + hi_j
                swap = f
                f = g
                g = swap
                n_lo, n_hi = new_lo, new_hi
                prev_neg = neg_share[s]
            while k < k_total and step_of[k] == s:
                for big_n in range(n_lo, n_hi + 1):
                    for x in range(x_lo, x_hi + 1):
                        if f[big_n, x] == 0.0:
                            continue
                        cost = w[k] * (1.0 - x / <double>m_pos) + (1.0 - w[k]) * big_n / <double>m_neg
                        if cost < lo[k] - 1e-12 or cost > hi[k] + 1e-12:
                            f[big_n, x] = 0.0
                k += 1
    for big_n in range(n_lo, n_hi + 1):
        for x in range(x_lo, x_hi + 1):
            total += f[big_n, x]
    return total
