# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled forward passes over the sorted negatives' bootstrap path: the probability that a
bootstrap ROC curve stays inside a band (:mod:`rocsim.core.curve_band`), the products of the
TPRs at two ranks (:mod:`rocsim.core.curve_covariance`) and the moments of the partial area
(:mod:`rocsim.core.partial_area`)."""

import numpy as np

from libc.math cimport exp, floor as c_floor, log, log1p

from libc.stdlib cimport free, malloc, realloc

cdef extern from *:
    """
    /* y += a x over n doubles; restrict lets the compiler use vector registers */
    static inline void rocsim_axpy(long n, double a, const double *restrict x,
                                   double *restrict y) {
        for (long i = 0; i < n; ++i) y[i] += a * x[i];
    }

    /* out[i] = sum over s < count of weight[s * weight_step] row[s * row_step + i], for i < n,
       the terms added in the order of s. Sixteen (then four, then one) columns at a time are
       summed in registers: independent sums keep the adds from waiting on each other. */
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
    /* one build per vector width, picked when the module loads: the same operations in the
       same order on each (no contraction), so the same bits on every machine */
    __attribute__((target_clones("avx2", "default")))
    #endif
    static void rocsim_gather(long n, long count, const double *restrict weight,
                              long weight_step, const double *restrict row, long row_step,
                              double *restrict out) {
        long i = 0, s;
        for (; i + 16 <= n; i += 16) {
            double a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
            double a8 = 0, a9 = 0, a10 = 0, a11 = 0, a12 = 0, a13 = 0, a14 = 0, a15 = 0;
            for (s = 0; s < count; ++s) {
                const double *r = row + s * row_step + i;
                double w = weight[s * weight_step];
                a0 += w * r[0]; a1 += w * r[1];
                a2 += w * r[2]; a3 += w * r[3];
                a4 += w * r[4]; a5 += w * r[5];
                a6 += w * r[6]; a7 += w * r[7];
                a8 += w * r[8]; a9 += w * r[9];
                a10 += w * r[10]; a11 += w * r[11];
                a12 += w * r[12]; a13 += w * r[13];
                a14 += w * r[14]; a15 += w * r[15];
            }
            out[i] = a0; out[i + 1] = a1; out[i + 2] = a2; out[i + 3] = a3;
            out[i + 4] = a4; out[i + 5] = a5; out[i + 6] = a6; out[i + 7] = a7;
            out[i + 8] = a8; out[i + 9] = a9; out[i + 10] = a10; out[i + 11] = a11;
            out[i + 12] = a12; out[i + 13] = a13; out[i + 14] = a14; out[i + 15] = a15;
        }
        for (; i + 4 <= n; i += 4) {
            double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
            for (s = 0; s < count; ++s) {
                const double *r = row + s * row_step + i;
                double w = weight[s * weight_step];
                a0 += w * r[0]; a1 += w * r[1]; a2 += w * r[2]; a3 += w * r[3];
            }
            out[i] = a0; out[i + 1] = a1; out[i + 2] = a2; out[i + 3] = a3;
        }
        for (; i < n; ++i) {
            double a = 0;
            for (s = 0; s < count; ++s) a += weight[s * weight_step] * row[s * row_step + i];
            out[i] = a;
        }
    }
    """
    void _axpy "rocsim_axpy"(long n, double a, const double* x, double* y) noexcept nogil
    void _gather "rocsim_gather"(
        long n,
        long count,
        const double* weight,
        long weight_step,
        const double* row,
        long row_step,
        double* out,
    ) noexcept nogil


cdef inline double _take(double[:, ::1] f, long row, long col, double tiny) noexcept nogil:
    """The state ``f[row, col]``, cleared; 0 if it held less than ``tiny`` (left out)."""
    cdef double v = f[row, col]
    if v == 0.0:
        return 0.0
    f[row, col] = 0.0
    return v if v >= tiny else 0.0


cdef struct _Row:
    # Pr{Bin(trials, p) = j} for j = lo .. hi (the run around the mode down to ``tiny``) in w
    double* w
    const double* log_fact
    double p, log_p, log_q, ratio, tiny
    long trials, lo, hi, since_fresh


#: Rows derived from their neighbour before one is computed afresh: each derivation costs a
#: few ulps of relative error, so a fresh row every 32 keeps them within about 1e-14.
cdef long _REFRESH = 32


def _log_factorials(long n):
    """``log(i!)`` for ``i = 0 .. n``."""
    cdef double[::1] out = np.zeros(n + 1)
    cdef long i
    for i in range(1, n + 1):
        out[i] = out[i - 1] + log(<double>i)
    return np.asarray(out)


cdef void _row_init(
    _Row* row, double[::1] w, const double[::1] log_fact, double tiny
) noexcept nogil:
    """A row writing into ``w`` (``trials + 1`` long at least), for trials up to
    ``len(log_fact) - 1``."""
    row.w = &w[0]
    row.log_fact = &log_fact[0]
    row.tiny = tiny
    row.trials = -1
    row.p = -1.0


cdef inline void _row_set_p(_Row* row, double p) noexcept nogil:
    """The success probability of the next rows."""
    if p == row.p:
        return
    row.p = p
    row.trials = -1
    if 0.0 < p < 1.0:
        row.log_p = log(p)
        row.log_q = log1p(-p)
        row.ratio = p / (1.0 - p)


cdef inline bint _dropped(double value, double tiny) noexcept nogil:
    return value < tiny or value == 0.0


cdef void _row_fresh(_Row* row, long trials) noexcept nogil:
    """The row of ``trials`` from the mode outwards (ratios of consecutive terms)."""
    cdef double* w = row.w
    cdef double p = row.p, value
    cdef long mode, lo, hi
    row.trials = trials
    row.since_fresh = 0
    if p <= 0.0 or trials == 0:
        w[0] = 1.0
        row.lo, row.hi = 0, 0
        return
    if p >= 1.0:
        w[trials] = 1.0
        row.lo, row.hi = trials, trials
        return
    mode = <long>c_floor((trials + 1) * p)
    if mode > trials:
        mode = trials
    value = exp(
        row.log_fact[trials] - row.log_fact[mode] - row.log_fact[trials - mode]
        + mode * row.log_p + (trials - mode) * row.log_q
    )
    w[mode] = value
    lo = mode
    while lo > 0:
        # pmf(j - 1) = pmf(j) j / ((trials - j + 1) ratio)
        value = value * lo / ((trials - lo + 1) * row.ratio)
        if _dropped(value, row.tiny):
            break
        lo -= 1
        w[lo] = value
    value = w[mode]
    hi = mode
    while hi < trials:
        value = value * (trials - hi) / (hi + 1.0) * row.ratio
        if _dropped(value, row.tiny):
            break
        hi += 1
        w[hi] = value
    row.lo, row.hi = lo, hi


cdef void _row_down(_Row* row) noexcept nogil:
    """The row of ``trials - 1`` from the row of ``trials``: ``pmf'(j) = pmf(j) (trials - j) /
    (trials (1 - p))``, term by term; then the run's ends move to where the terms reach
    ``tiny``."""
    cdef double* w = row.w
    cdef long t = row.trials, j, lo = row.lo, hi = row.hi
    cdef double factor = 1.0 / (t * (1.0 - row.p)), value
    for j in range(lo, hi + 1):
        w[j] = w[j] * ((t - j) * factor)
    t -= 1
    while hi > lo and _dropped(w[hi], row.tiny):
        hi -= 1
    while lo < hi and _dropped(w[lo], row.tiny):
        lo += 1
    while lo > 0:
        value = w[lo] * lo / ((t - lo + 1) * row.ratio)
        if _dropped(value, row.tiny):
            break
        lo -= 1
        w[lo] = value
    while hi < t:
        value = w[hi] * (t - hi) / (hi + 1.0) * row.ratio
        if _dropped(value, row.tiny):
            break
        hi += 1
        w[hi] = value
    row.trials, row.lo, row.hi = t, lo, hi
    row.since_fresh += 1


cdef inline long _row_at(_Row* row, long trials) noexcept nogil:
    """Point the row at ``Bin(trials, p)``: derived from the current row when it is a few
    trials more (the passes walk ``trials`` downwards), computed afresh otherwise. Returns the
    run's ``lo``; ``row.hi`` is its end."""
    cdef long gap = row.trials - trials
    if gap == 0:
        return row.lo
    if (
        0 < gap <= 4
        and row.since_fresh + gap <= _REFRESH
        and 0.0 < row.p < 1.0
        and row.hi <= trials  # no term is lost at j > trials
    ):
        while row.trials > trials:
            _row_down(row)
    else:
        _row_fresh(row, trials)
    return row.lo


cdef long _move_positives(
    double[:, ::1] f,
    double[:, ::1] g,
    long n_lo,
    long n_hi,
    long x_lo,
    long x_hi,
    long m_pos,
    double p,
    _Row* row,
    double tiny,
    long* new_hi,
) noexcept nogil:
    """Every state ``(N, X)`` of ``f`` (cleared) moved to ``(N, X + Bin(m+ - X, p))`` in
    ``g``: the resampled positives between two thresholds; returns the lowest ``X`` reached
    and stores the highest in ``new_hi``."""
    cdef long x, big_n, j, lo, hi, kept, new_lo = m_pos
    cdef double v
    cdef double* w = row.w
    new_hi[0] = 0
    _row_set_p(row, p)
    for x in range(x_lo, x_hi + 1):
        lo = _row_at(row, m_pos - x)
        hi = row.hi
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
    cdef double[::1] w = np.zeros(m_neg + 2)
    cdef double[::1] w_pos = np.zeros(m_pos + 2)
    cdef double[::1] log_fact = _log_factorials(max(m_neg, m_pos))
    cdef _Row neg_row, pos_row
    cdef long k = ranks.shape[0]
    cdef long c, big_n, x, j, lo, hi, first, bad, n_lo = 0, n_hi = 0, x_lo = 0, x_hi = 0
    cdef long new_lo, new_hi, kept
    cdef double v, total, previous = 0.0, step, p
    _row_init(&neg_row, w, log_fact, tiny)
    _row_init(&pos_row, w_pos, log_fact, tiny)
    f[0, 0] = 1.0
    for c in range(n_cells):
        left += lengths[c]
    with nogil:
        for c in range(n_cells):
            step = rates[c] - previous
            if step > 0.0:
                p = step / (1.0 - previous) if previous < 1.0 else 1.0
                new_lo = _move_positives(
                    f, g, n_lo, n_hi, x_lo, x_hi, m_pos, p, &pos_row, tiny, &new_hi
                )
                swap = f
                f = g
                g = swap
                x_lo, x_hi = new_lo, new_hi
                previous = rates[c]
            new_lo, new_hi = m_neg, 0
            _row_set_p(&neg_row, lengths[c] / <double>left)
            left -= lengths[c]
            for big_n in range(n_lo, n_hi + 1):
                lo = _row_at(&neg_row, m_neg - big_n)
                hi = neg_row.hi
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
    long stop,
):
    """Over the first ``stop`` cells: ``out[j, i] = E[(q_(C_i) - reference_i) (q_(C_j) -
    reference_j) 1{C_j < stop}]`` for ``i < j`` (lower triangle; the rest 0), with ``C_i`` the
    cell of the ``ranks[i]``-th resampled negative (``ranks`` ascending) and ``q = rates``;
    also the state after cell ``stop - 1``: ``p[N] = Pr{N_stop = N}`` and ``h[N, i] =
    E[(q_(C_i) - reference_i) 1{C_i < stop, N_stop = N}]``.

    A forward pass over the cells on the law of ``N`` (resampled negatives so far) alone, as in
    :func:`band_containment` without the positives. In cell ``c`` a state ``N`` moves to ``N +
    j`` with the binomial term ``w_N(j)``; its row is ``p[N]``, then ``h[N, i]`` for the ranks
    crossed before (``ranks[i] <= N``) and ``p[N] (q_c - reference_i)`` for those its moves
    can cross. Each new state ``T`` gathers ``sum_j w_(T-j)(j) row[T - j]`` over the columns of
    the ranks ``<= T`` (summed once, in registers), and a rank ``j`` crossed from ``N``
    (probability ``Pr{N + move >= ranks[j]}``) adds that times ``(q_c - reference_j)`` times
    its row to ``out[j, :j]``. States and binomial terms below ``tiny`` are left out."""
    cdef long n_cells = rates.shape[0], left = 0
    cdef long k = ranks.shape[0], width = k + 1
    # f[N, 0] = p[N], f[N, 1 + i] = h[N, i]
    cdef double[:, ::1] f = np.zeros((m_neg + 1, width))
    cdef double[:, ::1] f_next = np.zeros((m_neg + 1, width))
    cdef double[:, ::1] out = np.zeros((k, k))
    cdef double[::1] w = np.zeros(m_neg + 2)
    cdef double[::1] log_fact = _log_factorials(m_neg)
    # the ranks <= N, for every N
    cdef long[::1] below = np.searchsorted(ranks, np.arange(m_neg + 1), side="right")
    cdef long[::1] row_lo = np.zeros(m_neg + 1, dtype=np.int64)
    cdef long[::1] row_hi = np.zeros(m_neg + 1, dtype=np.int64)
    cdef long[::1] start = np.zeros(m_neg + 1, dtype=np.int64)
    # the cell's binomial terms, by state: terms[start[N] + j - lo] for j = lo .. hi; then the
    # same in a band, table[(N - n_lo) band + j] for j < band (zeros outside lo .. hi)
    cdef long capacity = 64 * (m_neg + 1), table_capacity = 64 * (m_neg + 1)
    cdef double* terms = <double*> malloc(capacity * sizeof(double))
    cdef double* table = <double*> malloc(table_capacity * sizeof(double))
    cdef double* grown
    cdef double* band_row
    cdef _Row row
    cdef double[:, ::1] swap
    cdef long c, big_n, target, j, a, lo, hi, used, first_source, n_lo = 0, n_hi = 0
    cdef long new_lo, new_hi, reach, band, bad_alloc = 0
    cdef double v, q, tail
    if terms == NULL or table == NULL:
        free(terms)
        free(table)
        raise MemoryError()
    _row_init(&row, w, log_fact, tiny)
    f[0, 0] = 1.0
    for c in range(n_cells):
        left += lengths[c]
    with nogil:
        for c in range(stop):
            q = rates[c]
            _row_set_p(&row, lengths[c] / <double>left)
            left -= lengths[c]
            new_lo, new_hi = m_neg, 0
            reach = 0
            used = 0
            for big_n in range(n_lo, n_hi + 1):
                v = f[big_n, 0]
                if _dropped(v, tiny):
                    row_lo[big_n], row_hi[big_n] = 1, 0
                    continue
                lo = _row_at(&row, m_neg - big_n)
                hi = row.hi
                if used + hi - lo + 1 > capacity:
                    capacity = 2 * (used + hi - lo + 1)
                    grown = <double*> realloc(terms, capacity * sizeof(double))
                    if grown == NULL:
                        bad_alloc = 1
                        break
                    terms = grown
                start[big_n] = used
                for j in range(lo, hi + 1):
                    terms[used + j - lo] = w[j]
                used += hi - lo + 1
                row_lo[big_n], row_hi[big_n] = lo, hi
                if big_n + lo < new_lo:
                    new_lo = big_n + lo
                if big_n + hi > new_hi:
                    new_hi = big_n + hi
                if hi > reach:
                    reach = hi
                # the ranks its moves can cross start from p[N] (q_c - reference)
                for a in range(below[big_n], below[big_n + hi]):
                    f[big_n, 1 + a] = v * (q - reference[a])
            band = reach + 1
            if not bad_alloc and (n_hi - n_lo + 1) * band > table_capacity:
                table_capacity = 2 * (n_hi - n_lo + 1) * band
                grown = <double*> realloc(table, table_capacity * sizeof(double))
                if grown == NULL:
                    bad_alloc = 1
                else:
                    table = grown
            if bad_alloc:
                break
            for big_n in range(n_lo, n_hi + 1):
                band_row = table + (big_n - n_lo) * band
                for j in range(band):
                    band_row[j] = 0.0
                for j in range(row_lo[big_n], row_hi[big_n] + 1):
                    band_row[j] = terms[start[big_n] + j - row_lo[big_n]]
            # products with each rank crossed in this cell, from each state below it
            for a in range(below[n_lo], below[new_hi]):
                big_n = ranks[a] - 1
                while big_n >= n_lo and big_n + reach >= ranks[a]:
                    if big_n <= n_hi:
                        band_row = table + (big_n - n_lo) * band
                        tail = 0.0
                        for j in range(ranks[a] - big_n, band):
                            tail = tail + band_row[j]
                        if tail != 0.0:
                            _axpy(a, tail * (q - reference[a]), &f[big_n, 1], &out[a, 0])
                    big_n -= 1
            # each new state gathers its sources, N = T - reach .. T (zero terms outside a run)
            for target in range(new_lo, new_hi + 1):
                first_source = target - reach if target - reach > n_lo else n_lo
                _gather(
                    1 + below[target],
                    (target if target < n_hi else n_hi) - first_source + 1,
                    table + (first_source - n_lo) * band + target - first_source,
                    band - 1,
                    &f[first_source, 0],
                    width,
                    &f_next[target, 0],
                )
            swap = f
            f = f_next
            f_next = swap
            n_lo, n_hi = new_lo, new_hi
    free(terms)
    free(table)
    if bad_alloc:
        raise MemoryError()
    # the state after the last cell, without the rows and columns the pass left stale
    p_out = np.zeros(m_neg + 1)
    h_out = np.zeros((m_neg + 1, k))
    for big_n in range(n_lo, n_hi + 1):
        p_out[big_n] = f[big_n, 0]
        h_out[big_n, : below[big_n]] = f[big_n, 1 : 1 + below[big_n]]
    return np.asarray(out), p_out, h_out


def meeting_products(const double[::1] p, const double[:, ::1] before, const double[:, ::1] after):
    """``out[i, j] = sum_N before[N, i] after[m - N, j] / p[N]`` (``m = len(p) - 1``, states
    with ``p[N] = 0`` left out): the products of a forward pass's ``h`` and a backward pass's,
    met at one cell (:func:`rocsim.core.curve_covariance.tpr_covariance`)."""
    cdef long m = p.shape[0] - 1, k = before.shape[1], n, i, j
    cdef double[:, ::1] out = np.zeros((k, after.shape[1]))
    cdef double scale
    with nogil:
        for n in range(m + 1):
            if p[n] == 0.0:
                continue
            for i in range(k):
                scale = before[n, i] / p[n]
                if scale != 0.0:
                    _axpy(after.shape[1], scale, &after[m - n, 0], &out[i, 0])
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
    cdef double[::1] log_fact = _log_factorials(m_neg)
    cdef _Row row
    cdef long j, c, b, lo, hi, target, c_lo = 0, c_hi = 0, new_lo, new_hi
    cdef double v, a1, a2, inc, weight, prob, cum = 0.0, span = s_hi - s_lo
    cdef double mean = 0.0, second = 0.0
    _row_init(&row, w, log_fact, tiny)
    p[0] = 1.0
    with nogil:
        for j in range(m):
            prob = block_probs[j] / (1.0 - cum) if cum < 1.0 else 1.0
            if prob > 1.0 or j == m - 1:
                prob = 1.0
            _row_set_p(&row, prob)
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
                lo = _row_at(&row, m_neg - c)
                hi = row.hi
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
    cdef double[::1] log_fact = _log_factorials(m_neg)
    cdef _Row g_row, b_row
    cdef long i, g, b, g_lo, g_hi, b_lo, b_hi
    cdef double phi, q, pg, e1, e2
    _row_init(&g_row, wg, log_fact, tiny)
    _row_init(&b_row, wb, log_fact, tiny)
    with nogil:
        for i in range(k):
            _row_set_p(&g_row, above[i] / <double>m_neg)
            g_lo = _row_at(&g_row, m_neg)
            g_hi = g_row.hi
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
                _row_set_p(&b_row, q)
                b_lo = _row_at(&b_row, m_neg - g)
                b_hi = b_row.hi
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
    cdef double[::1] wb = np.zeros(m_neg + 2)
    cdef double[::1] w_pos = np.zeros(m_pos + 2)
    cdef double[::1] log_fact = _log_factorials(max(m_neg, m_pos))
    cdef _Row neg_row, pos_row
    cdef long s, big_n, x, j, lo_j, hi_j, kept, k = 0
    cdef long n_lo = 0, n_hi = 0, x_lo = 0, x_hi = 0, new_lo, new_hi
    cdef double v, p, step, prev_pos = 0.0, prev_neg = 0.0, cost, total = 0.0
    _row_init(&neg_row, wb, log_fact, tiny)
    _row_init(&pos_row, w_pos, log_fact, tiny)
    f[0, 0] = 1.0
    with nogil:
        for s in range(steps):
            step = pos_share[s] - prev_pos
            if step > 0.0:
                p = step / (1.0 - prev_pos) if prev_pos < 1.0 else 1.0
                new_lo = _move_positives(
                    f, g, n_lo, n_hi, x_lo, x_hi, m_pos, p, &pos_row, tiny, &new_hi
                )
                swap = f
                f = g
                g = swap
                x_lo, x_hi = new_lo, new_hi
                prev_pos = pos_share[s]
            step = neg_share[s] - prev_neg
            if step > 0.0:
                p = step / (1.0 - prev_neg) if prev_neg < 1.0 else 1.0
                new_lo, new_hi = m_neg, 0
                _row_set_p(&neg_row, p)
                for big_n in range(n_lo, n_hi + 1):
                    lo_j = _row_at(&neg_row, m_neg - big_n)
                    hi_j = neg_row.hi
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
