# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled loops of :mod:`rocsim.core.interpolated`: the tables of its components (the
positives' trinomial pairs and the negatives' ``(C, B)`` cells of each tie block), the moments
of ``t = (r - C) / B`` at each FPR, and the distribution function and exact quantiles of each
FPR's law (the FPRs side by side, OpenMP; each FPR's sums are the same bits on any number of
threads).

Every probability is the formula of :func:`rocsim.core.interpolated._binomial_pmf` term by
term, from the same log-factorials and logs of probabilities (computed by scipy and passed in),
so the tables hold what the Python formulas give, but for the last bit of ``exp``.
"""

import numpy as np

from cython.parallel cimport prange, threadid
from libc.math cimport INFINITY, ceil, exp, fabs, floor, sqrt
from libc.stdint cimport INT64_MAX, int32_t, int64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memset

#: The search's distribution function may leave out the look-ups of the pairs of probability
#: below one of these floors (a component's pairs at each floor are a stretch of each run, and
#: the mass they leave out is tabled): as much as the search's step can bear
#: (:func:`_cdf`). The bracket it ends with is then checked exactly (:func:`_settle`).
cdef enum:
    LEVELS = 4
cdef double FLOORS[LEVELS]
FLOORS[0], FLOORS[1], FLOORS[2], FLOORS[3] = 1e-6, 1e-8, 1e-10, 1e-12


cdef extern from *:
    """
    /* The OpenMP thread count (the lanes of prange); 1 without OpenMP */
    #ifdef _OPENMP
    #include <omp.h>
    static int rocsim_interpolated_threads(void) { return omp_get_max_threads(); }
    #else
    static int rocsim_interpolated_threads(void) { return 1; }
    #endif
    """
    int _max_threads "rocsim_interpolated_threads"() noexcept nogil


# --- growable arrays --------------------------------------------------------------------------


cdef struct Grow:
    void* data
    int64_t size  # items
    int64_t room  # items allocated
    int64_t item  # bytes per item


cdef int _grow(Grow* g, int64_t need) noexcept nogil:
    """Room for ``need`` items in ``g`` (keeping its contents); -1 if there is no memory."""
    cdef int64_t room
    cdef void* data
    if need <= g.room:
        return 0
    room = max(need, 2 * g.room, 64)
    data = realloc(g.data, room * g.item)
    if data == NULL:
        return -1
    g.data, g.room = data, room
    return 0


cdef inline int _push_double(Grow* g, double value) noexcept nogil:
    if g.size == g.room and _grow(g, g.size + 1) < 0:
        return -1
    (<double*>g.data)[g.size] = value
    g.size += 1
    return 0


cdef inline int _push_int(Grow* g, int64_t value) noexcept nogil:
    if g.size == g.room and _grow(g, g.size + 1) < 0:
        return -1
    (<int64_t*>g.data)[g.size] = value
    g.size += 1
    return 0


cdef inline Grow _new(int64_t item) noexcept nogil:
    cdef Grow g
    g.data, g.size, g.room, g.item = NULL, 0, 0, item
    return g


cdef void _free_all(Grow* a, Grow* b, Grow* c, Grow* d, Grow* e) noexcept nogil:
    free(a.data)
    free(b.data)
    free(c.data)
    free(d.data)
    free(e.data)


cdef object _take_doubles(Grow* g):
    out = np.empty(g.size)
    cdef double[::1] view = out
    cdef int64_t i
    for i in range(g.size):
        view[i] = (<double*>g.data)[i]
    free(g.data)
    g.data, g.size, g.room = NULL, 0, 0
    return out


cdef object _take_ints(Grow* g):
    out = np.empty(g.size, dtype=np.int64)
    cdef int64_t[::1] view = out
    cdef int64_t i
    for i in range(g.size):
        view[i] = (<int64_t*>g.data)[i]
    free(g.data)
    g.data, g.size, g.room = NULL, 0, 0
    return out


# --- binomial terms ---------------------------------------------------------------------------


cdef inline void _window(
    int64_t n, double p, int64_t first, int64_t last, double sigmas, double slack,
    int64_t* lo, int64_t* hi,
) noexcept nogil:
    """:func:`rocsim.core.interpolated._window`: the counts ``first..last`` within ``sigmas``
    standard deviations plus ``slack`` of ``Bin(n, p)``'s mean."""
    cdef double reach = sigmas * sqrt(n * p * (1 - p)) + slack
    lo[0] = max(first, <int64_t>floor(n * p - reach))
    hi[0] = min(last, <int64_t>ceil(n * p + reach))


cdef inline double _pmf(
    int64_t k, int64_t n, double log_p, double log_q, const double* log_factorial
) noexcept nogil:
    """``Bin(k; n, p)`` as :func:`rocsim.core.interpolated._binomial_pmf` computes it, with
    ``log_p = xlogy(1, p)`` and ``log_q = xlog1py(1, -p)`` (a count of 0 adds 0, as in
    ``xlogy``)."""
    cdef double a = k * log_p if k != 0 else 0.0
    cdef double b = (n - k) * log_q if n - k != 0 else 0.0
    return exp(log_factorial[n] - log_factorial[k] - log_factorial[n - k] + a + b)


cdef inline int64_t _mode(int64_t n, double p, int64_t lo, int64_t hi) noexcept nogil:
    """The most likely count of ``Bin(n, p)``, moved into ``lo..hi``."""
    cdef int64_t k = <int64_t>floor((n + 1) * p)
    return min(max(k, lo), hi)


cdef int _run(
    double outer, int64_t n, double p, double log_p, double log_q,
    const double* log_factorial, int64_t lo, int64_t hi, int64_t mode, double tiny,
    Grow* values, Grow* scratch, int64_t* first,
) noexcept nogil:
    """Appends to ``values`` the run of ``outer * Bin(k; n, p) > tiny`` around ``mode`` within
    ``lo..hi``, ascending in ``k`` (a binomial is log-concave in ``k``: the terms above
    ``tiny`` are one run through the mode, or none); ``first``: its first ``k``. The mode's
    term is :func:`_pmf`'s, the others its neighbours' times ``(n - k) p / ((k + 1) q)`` (a
    rounding a step: far within what the law's sums can show, and no ``exp`` a term).
    Returns the run's length, or -1 if there is no memory."""
    cdef double top = outer * _pmf(mode, n, log_p, log_q, log_factorial), v = top
    cdef double odds = p / (1 - p)
    cdef int64_t k, j, count
    if not v > tiny:
        return 0
    scratch.size = 0
    k = mode - 1
    while k >= lo:
        v = v * (k + 1) / ((n - k) * odds)
        if not v > tiny:
            break
        if _push_double(scratch, v) < 0:
            return -1
        k -= 1
    first[0] = k + 1
    count = scratch.size
    if _grow(values, values.size + count + 1) < 0:
        return -1
    for j in range(count):
        (<double*>values.data)[values.size + j] = (<double*>scratch.data)[count - 1 - j]
    values.size += count
    if _push_double(values, top) < 0:
        return -1
    count += 1
    v = top
    k = mode + 1
    while k <= hi:
        v = v * ((n - k + 1) * odds) / k
        if not v > tiny:
            break
        if _push_double(values, v) < 0:
            return -1
        count += 1
        k += 1
    return count


cdef tuple _nested_runs(
    const double* lf, int64_t n, const double[::1] outer, const double[::1] log_outer,
    const double[::1] log_unouter, const double[::1] share, const double[::1] log_share,
    const double[::1] log_unshare, int64_t inner_first, double sigmas, double slack,
    double tiny,
):
    """The tables of two nested binomials of each block ``j`` above ``tiny``: ``U ~ Bin(n,
    outer[j])`` and ``V | U = u ~ Bin(n - u, share[j])``, ``v >= inner_first``, each within
    its window (``sigmas``, ``slack``), as runs of ``v`` per ``u``: ``(blocks, u, v0,
    offsets, terms)``; block ``j``'s runs are ``blocks[j]:blocks[j + 1]``, run ``s`` holds
    ``v = v0[s] ...`` at ``u[s]`` with terms ``terms[offsets[s]:offsets[s + 1]]``."""
    cdef int64_t nb = outer.shape[0], j, u, u_lo, u_hi, v_lo, v_hi, trials, first, count
    cdef double p_u
    cdef Grow blocks = _new(sizeof(int64_t))
    cdef Grow us = _new(sizeof(int64_t))
    cdef Grow v0s = _new(sizeof(int64_t))
    cdef Grow offsets = _new(sizeof(int64_t))
    cdef Grow terms = _new(sizeof(double))
    cdef Grow scratch = _new(sizeof(double))
    cdef int status = 0
    with nogil:
        status |= _push_int(&blocks, 0) | _push_int(&offsets, 0)
        for j in range(nb):
            _window(n, outer[j], 0, n, sigmas, slack, &u_lo, &u_hi)
            for u in range(u_lo, u_hi + 1):
                p_u = _pmf(u, n, log_outer[j], log_unouter[j], lf)
                trials = n - u
                _window(trials, share[j], inner_first, trials, sigmas, slack, &v_lo, &v_hi)
                if v_lo > v_hi:
                    continue
                count = _run(
                    p_u, trials, share[j], log_share[j], log_unshare[j], lf, v_lo, v_hi,
                    _mode(trials, share[j], v_lo, v_hi), tiny, &terms, &scratch, &first,
                )
                if count < 0:
                    status = -1
                    break
                if count > 0:
                    status |= _push_int(&us, u) | _push_int(&v0s, first)
                    status |= _push_int(&offsets, terms.size)
            status |= _push_int(&blocks, us.size)
            if status < 0:
                break
    free(scratch.data)
    if status < 0:
        _free_all(&blocks, &us, &v0s, &offsets, &terms)
        raise MemoryError()
    return (
        _take_ints(&blocks), _take_ints(&us), _take_ints(&v0s), _take_ints(&offsets),
        _take_doubles(&terms),
    )


def pair_tables(
    const double[::1] log_factorial,
    int64_t m,
    const double[::1] tied,
    const double[::1] log_tied,
    const double[::1] log_untied,
    const double[::1] share,
    const double[::1] log_share,
    const double[::1] log_unshare,
    double sigmas,
    double slack,
    double tiny,
):
    """The positives' trinomial ``Pr{X = x, Y = y}`` of each tie block above ``tiny``: ``Y ~
    Bin(m, tied)`` and ``X | Y = y ~ Bin(m - y, share)``, each within its window (``sigmas``,
    ``slack``), as runs of ``x`` per ``y``.

    Returns ``(blocks, y, x0, offsets, joint, sums, first, last, dropped)``: block ``j``'s
    runs are ``blocks[j]:blocks[j + 1]``; run ``s`` holds ``x = x0[s] ...`` at ``y[s]``, its
    terms ``joint[offsets[s]:offsets[s + 1]]``, their running sums, and at each of the
    :data:`FLOORS` the first and last ``x`` of its terms above it and each block's mass below
    it (the search's pairs, :func:`_comp_cdf`; :func:`_run_sums`).
    """
    blocks, ys, x0, offsets, joint = _nested_runs(
        &log_factorial[0], m, tied, log_tied, log_untied, share, log_share, log_unshare, 0,
        sigmas, slack, tiny,
    )
    return (blocks, ys, x0, offsets, joint, *_run_sums(joint, offsets, x0, blocks))


cdef tuple _run_sums(
    const double[::1] values, const int64_t[::1] offsets, const int64_t[::1] x0,
    const int64_t[::1] blocks,
):
    """The running sums of ``values`` within each run; at each of the :data:`FLOORS`, each
    run's first and last ``x`` of a term above it (one stretch: the terms are log-concave in
    ``x``), ``(LEVELS, runs)``, and each block's mass of the terms left out, ``(blocks,
    LEVELS)``."""
    runs, nb = offsets.shape[0] - 1, blocks.shape[0] - 1
    sums_array = np.empty(values.shape[0])
    first_array = np.empty((LEVELS, runs), dtype=np.int64)
    last_array = np.empty((LEVELS, runs), dtype=np.int64)
    dropped_array = np.zeros((nb, LEVELS))
    cdef double[::1] sums = sums_array
    cdef int64_t[:, ::1] first = first_array, last = last_array
    cdef double[:, ::1] dropped = dropped_array
    cdef int64_t s, i, j, level
    cdef double total
    with nogil:
        for s in range(runs):
            total = 0.0
            for level in range(LEVELS):
                first[level, s], last[level, s] = x0[s] + 1, x0[s]
            for i in range(offsets[s], offsets[s + 1]):
                total = total + values[i]
                sums[i] = total
                for level in range(LEVELS):
                    if values[i] > FLOORS[level]:
                        last[level, s] = x0[s] + i - offsets[s]
                        if first[level, s] > last[level, s]:
                            first[level, s] = last[level, s]
        for j in range(nb):
            for s in range(blocks[j], blocks[j + 1]):
                for i in range(offsets[s], offsets[s + 1]):
                    for level in range(LEVELS):
                        if not values[i] > FLOORS[level]:
                            dropped[j, level] += values[i]
    return sums_array, first_array.ravel(), last_array.ravel(), dropped_array.ravel()


def cell_tables(
    const double[::1] log_factorial,
    int64_t n,
    const int64_t[::1] before,
    const double[::1] log_above,
    const double[::1] log_below,
    const double[::1] share,
    const double[::1] log_share,
    const double[::1] log_unshare,
    double sigmas,
    double slack,
    double tiny,
):
    """The negatives' ``Pr{C = c, B = b}`` of each tie block above ``tiny``: ``C ~ Bin(n,
    before / n)`` and ``B | C = c ~ Bin(n - c, share)`` with ``b >= 1``, each within its
    window, as runs of ``b`` per ``c``.

    Returns ``(blocks, c, b0, offsets, cells, s0, s1, s2, s3)``: block ``j``'s runs are
    ``blocks[j]:blocks[j + 1]``; run ``s`` holds ``b = b0[s] ...`` at ``c[s]``, its terms
    ``cells[offsets[s]:offsets[s + 1]]`` and, within the run, the running sums of the terms
    ``w`` and of ``w / b**k``, ``k = 1, 2, 3``.
    """
    cdef int64_t s, i, b
    cdef double w, t0, t1, t2, t3
    blocks, cs, b0_array, offsets_array, cells_array = _nested_runs(
        &log_factorial[0], n, np.asarray(before, dtype=float) / n, log_above, log_below, share,
        log_share, log_unshare, 1, sigmas, slack, tiny,
    )
    sums = np.empty((4, cells_array.shape[0]))
    cdef double[:, ::1] sv = sums
    cdef const double[::1] cv = cells_array
    cdef const int64_t[::1] ov = offsets_array
    cdef const int64_t[::1] bv = b0_array
    with nogil:
        for s in range(ov.shape[0] - 1):
            t0 = t1 = t2 = t3 = 0.0
            for i in range(ov[s], ov[s + 1]):
                b = bv[s] + i - ov[s]
                w = cv[i]
                t0 = t0 + w
                t1 = t1 + w / b
                t2 = t2 + w / b / b
                t3 = t3 + w / b / b / b
                sv[0, i], sv[1, i], sv[2, i], sv[3, i] = t0, t1, t2, t3
    return (
        blocks,
        cs,
        b0_array,
        offsets_array,
        cells_array,
        sums[0],
        sums[1],
        sums[2],
        sums[3],
    )


# --- the tables, as the rows' workers read them ------------------------------------------------


cdef struct Tables:
    # the pair blocks (pair_tables)
    const int64_t* pair_blocks
    const int64_t* seg_y
    const int64_t* seg_x0
    const int64_t* seg_offsets
    const double* joint
    const double* joint_sums
    const int64_t* keep_first
    const int64_t* keep_last
    const double* dropped
    int64_t runs
    # the cell blocks (cell_tables)
    const int64_t* cell_blocks
    const int64_t* run_c
    const int64_t* run_b0
    const int64_t* run_offsets
    const double* cells
    # the rows: components rows[i]:rows[i + 1], each a pair block, a cell block (-1: none, a
    # block no positive ties with) and, without cells, its weight
    const int64_t* rows
    const int64_t* comp_pairs
    const int64_t* comp_cells
    const double* comp_weight
    const int64_t* r
    const int64_t* rank
    int64_t nrows
    double m


cdef Tables _tables(tuple tables):
    """The kernels' view of ``tables``: the arrays of :func:`pair_tables` and of
    :func:`cell_tables` the rows read, then the rows (``rows``, ``comp_pairs``,
    ``comp_cells``, ``comp_weight``, ``r``, ``rank``) and ``m``; the tuple keeps them."""
    cdef Tables t
    t.pair_blocks, t.seg_y, t.seg_x0 = _ip(tables[0]), _ip(tables[1]), _ip(tables[2])
    t.seg_offsets, t.joint, t.joint_sums = _ip(tables[3]), _dp(tables[4]), _dp(tables[5])
    t.keep_first, t.keep_last = _ip(tables[6]), _ip(tables[7])
    t.dropped, t.runs = _dp(tables[8]), tables[1].shape[0]
    t.cell_blocks, t.run_c, t.run_b0 = _ip(tables[9]), _ip(tables[10]), _ip(tables[11])
    t.run_offsets, t.cells = _ip(tables[12]), _dp(tables[13])
    t.rows, t.comp_pairs, t.comp_cells = _ip(tables[14]), _ip(tables[15]), _ip(tables[16])
    t.comp_weight, t.r, t.rank = _dp(tables[17]), _ip(tables[18]), _ip(tables[19])
    t.nrows, t.m = tables[14].shape[0] - 1, <double>tables[20]
    return t


cdef inline const int64_t* _ip(const int64_t[::1] a):
    return &a[0] if a.shape[0] else NULL


cdef inline const double* _dp(const double[::1] a):
    return &a[0] if a.shape[0] else NULL


def row_moments(
    const int64_t[::1] rows,
    const int64_t[::1] comp_cells,
    const int64_t[::1] r,
    const int64_t[::1] rank,
    const int64_t[::1] cell_blocks,
    const int64_t[::1] run_c,
    const int64_t[::1] run_b0,
    const int64_t[::1] run_offsets,
    const double[::1] s0,
    const double[::1] s1,
    const double[::1] s2,
    const double[::1] s3,
):
    """Per component with cells, the sums over its cells with ``c < rank <= c + b`` of ``w
    t**k``, ``t = (r - c) / b``, ``k = 0..3`` (zeros for the others): ``(4, components)``."""
    out = np.zeros((4, comp_cells.shape[0]))
    cdef double[:, ::1] o = out
    cdef int64_t i, k, blk, s, c, lo, hi, start
    cdef double d, a0, a1, a2, a3
    with nogil:
        for i in range(rows.shape[0] - 1):
            for k in range(rows[i], rows[i + 1]):
                blk = comp_cells[k]
                if blk < 0:
                    continue
                a0 = a1 = a2 = a3 = 0.0
                for s in range(cell_blocks[blk], cell_blocks[blk + 1]):
                    c = run_c[s]
                    if c > rank[i] - 1:
                        break
                    start = run_offsets[s]
                    lo = start + max(rank[i] - c - run_b0[s], 0)
                    hi = run_offsets[s + 1] - 1
                    if lo > hi:
                        continue
                    d = <double>(r[i] - c)
                    a0 = a0 + (s0[hi] - (s0[lo - 1] if lo > start else 0.0))
                    a1 = a1 + d * (s1[hi] - (s1[lo - 1] if lo > start else 0.0))
                    a2 = a2 + d * d * (s2[hi] - (s2[lo - 1] if lo > start else 0.0))
                    a3 = a3 + d * d * d * (s3[hi] - (s3[lo - 1] if lo > start else 0.0))
                o[0, k], o[1, k], o[2, k], o[3, k] = a0, a1, a2, a3
    return out


# --- a row's law: its components and their distribution function ------------------------------

#: Buckets per cell (most buckets then hold at most one value: a look-up reads one bucket).
cdef int64_t BUCKETS = 2


cdef struct Bucket:
    # a bucket of the values of t: the weight of the values in the buckets before, and its
    # first (smallest) value (inf if empty); its values are values[first[k]:first[k + 1]]
    double cum
    double t


cdef struct Comp:
    # the pairs: runs seg[0:nseg] of the pair block
    const int64_t* seg_y
    const int64_t* seg_x0
    const int64_t* seg_offsets
    const int64_t* keep_first  # at floor l: keep_first[l * stride + s]
    const int64_t* keep_last
    int64_t stride
    double dropped[LEVELS]  # the pairs' mass below each floor
    int64_t nseg
    const double* joint
    const double* joint_sums
    # the law of t (tied blocks): n distinct values, ascending, as (t, w) pairs in values, and
    # g buckets of [tmin, tmax] (g + 1 entries: the last one's cum is the total), the index of
    # each one's first value, and a bit for each holding more than one
    double* values
    Bucket* buckets
    int32_t* first
    unsigned char* several
    int64_t n
    int64_t g
    double tmin
    double tmax
    double inv_h
    double total  # the component's weight: the sum of w, or the block's weight (untied)
    bint tied


cdef struct Row:
    # a lane's row: its memory is kept from row to row (fresh pages from the system for each
    # row's tables would cost more than building them)
    Comp* comps
    int64_t ncomp
    double m
    Grow comp_room  # the comps
    Grow memory  # the comps' values and buckets, and the sort's scratch (bytes)
    Grow points  # (value, mass) pairs of the last enumeration
    Grow order  # its sorting scratch


cdef inline int64_t _bucket(const Comp* c, double u) noexcept nogil:
    """The bucket of ``u`` in ``[tmin, tmax]`` (non-decreasing in ``u``)."""
    cdef int64_t k = <int64_t>((u - c.tmin) * c.inv_h)
    return k if k < c.g else c.g - 1


cdef inline double _below(const Comp* c, double u) noexcept nogil:
    """The weight of the values ``t <= u``: the buckets before ``u``'s, then its values. Below
    ``tmin`` that is bucket 0's sum before it, 0; from ``tmax`` on, every value of the last
    bucket counts: the total (the same sums, in the same order). A bucket of one value or
    none, most of them: its sum before it, or the next one's (an index, not a branch: which
    one is a coin toss to the processor)."""
    cdef int64_t k = _bucket(c, min(max(u, c.tmin), c.tmax))
    cdef double s
    cdef int32_t j
    if (c.several[k >> 3] >> (k & 7)) & 1:
        s = c.buckets[k].cum
        for j in range(c.first[k], c.first[k + 1]):
            if c.values[2 * j] > u:
                break
            s = s + c.values[2 * j + 1]
        return s
    return c.buckets[k + (c.buckets[k].t <= u)].cum


cdef inline double _run_sum(const Comp* c, int64_t s, int64_t k) noexcept nogil:
    """The sum of run ``s``'s first ``k + 1`` terms (0 if ``k < 0``; all past its end)."""
    cdef int64_t length = c.seg_offsets[s + 1] - c.seg_offsets[s]
    if k < 0:
        return 0.0
    if k >= length:
        k = length - 1
    return c.joint_sums[c.seg_offsets[s] + k]


cdef double _comp_cdf(const Comp* c, double a, int level, double* density) noexcept nogil:
    """``Pr{X + t Y <= a}`` times the component's weight: a pair counts the weight of the ``t
    <= (a - x) / y``, all of it below ``x <= a - tmax y`` and none above ``x >= a - tmin y``
    (the runs' running sums), a look-up between; at ``level >= 0``, only the pairs above that
    level's floor are looked up. ``density``: adds the number of support points per unit of
    ``a`` near ``a`` (a rough count, for the search's last step)."""
    cdef double total = 0.0, inv, part
    cdef int64_t s, y, x0, length, off, x, full, last
    for s in range(c.nseg):
        y, x0 = c.seg_y[s], c.seg_x0[s]
        off = c.seg_offsets[s]
        length = c.seg_offsets[s + 1] - off
        if y == 0:
            total = total + _run_sum(c, s, <int64_t>floor(a) - x0) * c.total
            continue
        full = <int64_t>floor(a - c.tmax * y) - 1
        total = total + _run_sum(c, s, full - x0) * c.total
        x = max(full + 1, x0)
        last = min(<int64_t>ceil(a - c.tmin * y), x0 + length - 1)
        if last >= x and c.total > LIGHT:
            density[0] += (last - x + 1) * c.n / max((c.tmax - c.tmin) * y, 1.0)
        if level >= 0:
            x = max(x, c.keep_first[level * c.stride + s])
            last = min(last, c.keep_last[level * c.stride + s])
        inv = 1.0 / y
        part = 0.0
        while x <= last:
            part = part + c.joint[off + x - x0] * _below(c, (a - x) * inv)
            x += 1
        total = total + part
    return total


cdef void _comp_density(const Comp* c, double a, double* density) noexcept nogil:
    """The ``density`` that :func:`_comp_cdf` adds, alone."""
    cdef int64_t s, y, x0, length, x, last
    for s in range(c.nseg):
        y, x0 = c.seg_y[s], c.seg_x0[s]
        if y == 0:
            continue
        length = c.seg_offsets[s + 1] - c.seg_offsets[s]
        x = max(<int64_t>floor(a - c.tmax * y), x0)
        last = min(<int64_t>ceil(a - c.tmin * y), x0 + length - 1)
        if last >= x:
            density[0] += (last - x + 1) * c.n / max((c.tmax - c.tmin) * y, 1.0)


cdef double _cdf(Row* row, double a, double error, double* density) noexcept nogil:
    """The row's distribution function at ``a`` (count scale; see :func:`_comp_cdf`), within
    ``error`` (0: exact): each component may leave out up to its share of ``error``, all of
    it (a light component) or the look-ups of its pairs below the coarsest floor whose mass
    times its weight is within that share."""
    cdef double total = 0.0, share = error / max(row.ncomp, 1)
    cdef int64_t k
    cdef int level
    cdef const Comp* c
    density[0] = 1.0
    for k in range(row.ncomp):
        c = &row.comps[k]
        if c.total <= share:
            if c.total > LIGHT:
                _comp_density(c, a, density)
            continue
        level = 0
        while level < LEVELS and c.total * c.dropped[level] > share:
            level += 1
        total = total + _comp_cdf(c, a, level if level < LEVELS else -1, density)
    return total


cdef inline int _emit(Grow* points, double value, double mass) noexcept nogil:
    if points.size + 2 > points.room and _grow(points, points.size + 2) < 0:
        return -1
    (<double*>points.data)[points.size] = value
    (<double*>points.data)[points.size + 1] = mass
    points.size += 2
    return 0


cdef int _comp_points(
    const Comp* c, double lo, double hi, Grow* points, double* below
) noexcept nogil:
    """Adds to ``below`` the component's ``Pr{X + t Y <= lo}`` and appends to ``points`` each
    support point in ``(lo, hi]`` as ``(x + t y, mass)``; -1 if there is no memory."""
    cdef double inv, jv, u_lo, u_hi, tv
    cdef int64_t s, y, x0, length, off, x, full, last, k, k_end
    cdef int32_t j
    for s in range(c.nseg):
        y, x0 = c.seg_y[s], c.seg_x0[s]
        off = c.seg_offsets[s]
        length = c.seg_offsets[s + 1] - off
        if y == 0:
            below[0] += _run_sum(c, s, <int64_t>floor(lo) - x0) * c.total
            x = max(<int64_t>floor(lo) + 1, x0)
            last = min(<int64_t>floor(hi), x0 + length - 1)
            while x <= last:
                if _emit(points, <double>x, c.joint[off + x - x0] * c.total) < 0:
                    return -1
                x += 1
            continue
        full = <int64_t>floor(lo - c.tmax * y) - 1
        below[0] += _run_sum(c, s, full - x0) * c.total
        last = min(<int64_t>ceil(hi - c.tmin * y), x0 + length - 1)
        inv = 1.0 / y
        for x in range(max(full + 1, x0), last + 1):
            jv = c.joint[off + x - x0]
            u_lo, u_hi = (lo - x) * inv, (hi - x) * inv
            below[0] += jv * _below(c, u_lo)
            if u_hi < c.tmin or u_lo >= c.tmax:
                continue
            k = _bucket(c, u_lo) if u_lo >= c.tmin else 0
            k_end = _bucket(c, u_hi) if u_hi < c.tmax else c.g - 1
            while k <= k_end:
                if c.buckets[k].t <= u_hi:
                    for j in range(c.first[k], c.first[k + 1]):
                        tv = c.values[2 * j]
                        if tv > u_hi:
                            break
                        if tv > u_lo and _emit(points, x + tv * y, jv * c.values[2 * j + 1]) < 0:
                            return -1
                k += 1
    return 0


cdef int64_t _last_at_or_below(const Comp* c, double u) noexcept nogil:
    """The index of the largest value ``t <= u`` (-1 if none), by bisection."""
    cdef int64_t lo = 0, hi = c.n, mid  # values[:lo] <= u < values[hi:]
    while lo < hi:
        mid = (lo + hi) // 2
        if c.values[2 * mid] <= u:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


cdef double _support_below(Row* row, double a) noexcept nogil:
    """The largest support point ``<= a`` (-1 if none)."""
    cdef double best = -1.0
    cdef const Comp* c
    cdef int64_t k, s, y, x0, length, x, i
    for k in range(row.ncomp):
        c = &row.comps[k]
        for s in range(c.nseg):
            y, x0 = c.seg_y[s], c.seg_x0[s]
            length = c.seg_offsets[s + 1] - c.seg_offsets[s]
            for x in range(x0, x0 + length):
                if y == 0:
                    if x <= a and x > best:
                        best = <double>x
                    continue
                i = _last_at_or_below(c, (a - x) * (1.0 / y))
                if i >= 0 and x + c.values[2 * i] * y > best:
                    best = x + c.values[2 * i] * y
    return best


# --- building a row ---------------------------------------------------------------------------


cdef int64_t _atom_count(const Tables* tb, int64_t blk, int64_t rank) noexcept nogil:
    """The number of cells of block ``blk`` with ``c < rank <= c + b``."""
    cdef int64_t s, c, count = 0, lo
    for s in range(tb.cell_blocks[blk], tb.cell_blocks[blk + 1]):
        c = tb.run_c[s]
        if c > rank - 1:
            break
        lo = max(rank - c - tb.run_b0[s], 0)
        count += max(tb.run_offsets[s + 1] - tb.run_offsets[s] - lo, 0)
    return count


cdef void _insertion_sort(double* t, double* w, int64_t lo, int64_t hi) noexcept nogil:
    """Sorts ``t[lo:hi]`` ascending, carrying ``w``."""
    cdef int64_t i, j
    cdef double tv, wv
    for i in range(lo + 1, hi):
        tv, wv = t[i], w[i]
        j = i - 1
        while j >= lo and t[j] > tv:
            t[j + 1], w[j + 1] = t[j], w[j]
            j -= 1
        t[j + 1], w[j + 1] = tv, wv


cdef void _build_law(
    const Tables* tb, int64_t blk, int64_t r, int64_t rank, int64_t n, Comp* c, double* raw,
    int64_t* slot,
) noexcept nogil:
    """The law of ``t = (r - C) / B`` over the ``n`` cells with ``c < rank <= c + b`` into
    ``c``: a counting sort of the cells into :data:`BUCKETS` ``n`` buckets of ``[tmin, tmax]``
    (``raw``: 4 ``n`` doubles, ``slot``: ``n``), each bucket sorted, equal values merged, the
    weights summed in the order of the values."""
    cdef int64_t s, cc, lo, hi, i, b, k, m = 0, j, start, end, g = BUCKETS * n
    cdef double run = 0.0
    cdef double* raw_t = raw
    cdef double* raw_w = raw + n
    cdef double* t = raw + 2 * n
    cdef double* w = raw + 3 * n
    cdef int32_t* count = c.first  # the buckets' counts, then where each starts
    c.tmin, c.tmax = INFINITY, -INFINITY
    for s in range(tb.cell_blocks[blk], tb.cell_blocks[blk + 1]):
        cc = tb.run_c[s]
        if cc > rank - 1:
            break
        lo = tb.run_offsets[s] + max(rank - cc - tb.run_b0[s], 0)
        hi = tb.run_offsets[s + 1]
        if lo >= hi:
            continue
        for i in range(lo, hi):
            b = tb.run_b0[s] + i - tb.run_offsets[s]
            raw_t[m] = <double>(r - cc) / <double>b
            raw_w[m] = tb.cells[i]
            m += 1
        # t falls as b rises: the run's first and last cells are its largest and smallest
        c.tmax = max(c.tmax, raw_t[m - (hi - lo)])
        c.tmin = min(c.tmin, raw_t[m - 1])
    c.g = g
    c.inv_h = g / (c.tmax - c.tmin) if c.tmax > c.tmin else 0.0
    for k in range(g + 1):
        count[k] = 0
    for i in range(n):
        k = _bucket(c, raw_t[i])
        slot[i] = k
        count[k + 1] += 1
    for k in range(g):
        count[k + 1] += count[k]
    for i in range(n):  # count[k] runs to the end of bucket k
        k = slot[i]
        j = count[k]
        t[j], w[j] = raw_t[i], raw_w[i]
        count[k] = <int32_t>(j + 1)
    # bucket k holds t[count[k - 1]:count[k]]: sort it, merge equal values into values
    m = 0
    start = 0
    for k in range(g):
        end = count[k]
        c.first[k] = <int32_t>m
        c.buckets[k].cum = run
        if end - start <= 1:  # most buckets: none or one
            if end > start:
                c.buckets[k].t = t[start]
                c.values[2 * m], c.values[2 * m + 1] = t[start], w[start]
                run = run + w[start]
                m += 1
            else:
                c.buckets[k].t = INFINITY
            start = end
            continue
        _insertion_sort(t, w, start, end)
        c.buckets[k].t = t[start]
        for i in range(start, end):
            if i > start and t[i] == t[i - 1]:
                c.values[2 * m - 1] = c.values[2 * m - 1] + w[i]
            else:
                c.values[2 * m], c.values[2 * m + 1] = t[i], w[i]
                m += 1
        for j in range(c.first[k], m):
            run = run + c.values[2 * j + 1]
        if m - c.first[k] > 1:
            c.several[k >> 3] |= <unsigned char>(1 << (k & 7))
        start = end
    c.first[g] = <int32_t>m
    c.buckets[g].cum = run
    c.buckets[g].t = INFINITY
    c.n = m
    c.total = run


cdef int _build_row(const Tables* tb, int64_t i, Row* row) noexcept nogil:
    """Row ``i``'s components (a tied block without cells at this row is left out: it holds
    no mass); -1 if there is no memory."""
    cdef int64_t k, first = tb.rows[i], count = tb.rows[i + 1] - tb.rows[i], pb, s0
    cdef int64_t atoms = 0, most = 0, n, nc = 0, g, size = 0, level
    cdef Comp* c
    cdef char* memory
    cdef double* raw
    cdef int64_t* slot
    row.m = tb.m
    row.ncomp = 0
    if _grow(&row.comp_room, max(count, 1)) < 0:
        return -1
    row.comps = <Comp*>row.comp_room.data
    for k in range(first, first + count):
        if tb.comp_cells[k] >= 0:
            n = _atom_count(tb, tb.comp_cells[k], tb.rank[i])
            g = BUCKETS * n
            # values, buckets (g + 1), first (g + 1), several (g / 8 + 1), each 8-aligned
            size += 16 * n + 16 * (g + 1) + 8 * ((4 * (g + 1) + 7) // 8 + (g // 8 + 8) // 8)
            most = max(most, n)
    # the sort's scratch: 4 doubles and an int a cell of the largest component
    if _grow(&row.memory, size + 40 * most + 64) < 0:
        return -1
    memory = <char*>row.memory.data
    raw = <double*>memory
    slot = <int64_t*>(raw + 4 * most)
    memory = <char*>(slot + most)
    for k in range(first, first + count):
        c = &row.comps[nc]
        pb = tb.comp_pairs[k]
        s0 = tb.pair_blocks[pb]
        c.seg_y, c.seg_x0, c.seg_offsets = tb.seg_y + s0, tb.seg_x0 + s0, tb.seg_offsets + s0
        c.keep_first, c.keep_last, c.stride = tb.keep_first + s0, tb.keep_last + s0, tb.runs
        for level in range(LEVELS):
            c.dropped[level] = tb.dropped[pb * LEVELS + level]
        c.nseg = tb.pair_blocks[pb + 1] - s0
        c.joint, c.joint_sums = tb.joint, tb.joint_sums
        c.tied = tb.comp_cells[k] >= 0
        if not c.tied:
            c.n, c.g, c.total = 0, 0, tb.comp_weight[k]
            c.tmin, c.tmax, c.inv_h = 0.0, 0.0, 0.0
            nc += 1
            continue
        n = _atom_count(tb, tb.comp_cells[k], tb.rank[i])
        if n == 0:
            continue
        g = BUCKETS * n
        c.values = <double*>memory
        c.buckets = <Bucket*>(c.values + 2 * n)
        c.first = <int32_t*>(c.buckets + g + 1)
        c.several = <unsigned char*>(<double*>c.first + (4 * (g + 1) + 7) // 8)
        memory = <char*>(<double*>c.several + (g // 8 + 8) // 8)
        memset(c.several, 0, g // 8 + 1)
        _build_law(tb, tb.comp_cells[k], tb.r[i], tb.rank[i], n, c, raw, slot)
        nc += 1
    row.ncomp = nc
    return 0


cdef Row* _lanes(int64_t count) noexcept nogil:
    """A row's memory for each of ``count`` lanes (threads), empty; NULL if there is no
    memory."""
    cdef Row* lanes = <Row*>malloc(max(count, 1) * sizeof(Row))
    cdef int64_t k
    if lanes != NULL:
        for k in range(max(count, 1)):
            lanes[k].comp_room = _new(sizeof(Comp))
            lanes[k].memory = _new(1)
            lanes[k].points = _new(sizeof(double))
            lanes[k].order = _new(sizeof(int64_t))
    return lanes


cdef void _free_lanes(Row* lanes, int64_t count) noexcept nogil:
    cdef int64_t k
    if lanes == NULL:
        return
    for k in range(max(count, 1)):
        free(lanes[k].comp_room.data)
        free(lanes[k].memory.data)
        free(lanes[k].points.data)
        free(lanes[k].order.data)
    free(lanes)


# --- quantiles --------------------------------------------------------------------------------

#: The search stops when its bracket holds about this many support points (then sorted).
cdef double POINTS = 1024.0
#: Each step aims this share of its last move past the secant's estimate (to the far side of
#: the root, so that the bracket closes on both sides).
cdef double OVERSHOOT = 0.05
#: Past this many steps, every other step halves the bracket.
cdef int64_t BISECT_AFTER = 8
#: A bracket still wide after this many steps (degenerate data) goes to :func:`_settle`.
cdef int64_t MAX_STEPS = 200
#: :func:`_settle` halves a bracket holding more support points than this.
cdef int64_t CAP = 16384
#: The search's distribution function is within FIRST_ERROR of F at its first step, and at
#: the next within STEP_ERROR times how far the last step's was from p (and BRACKET_ERROR
#: times F's rise over the bracket it aims at), never within less than SEARCH_ERROR.
cdef double FIRST_ERROR = 1e-5
cdef double STEP_ERROR = 1e-2
cdef double BRACKET_ERROR = 1e-1
cdef double SEARCH_ERROR = 1e-12
#: :func:`_settle` first leaves out the components lighter than this (and the search counts
#: the support points of the others only).
cdef double LIGHT = 1e-10


cdef void _insertion_sort_pairs(double* p, int64_t lo, int64_t hi) noexcept nogil:
    """Sorts the pairs ``p[2 lo:2 hi]`` by their first element."""
    cdef int64_t i, j
    cdef double v, m
    for i in range(lo + 1, hi):
        v, m = p[2 * i], p[2 * i + 1]
        j = i - 1
        while j >= lo and p[2 * j] > v:
            p[2 * j + 2], p[2 * j + 3] = p[2 * j], p[2 * j + 1]
            j -= 1
        p[2 * j + 2], p[2 * j + 3] = v, m


cdef void _sort_points(double* p, int64_t n, double lo, double hi, int64_t* slot,
                       int64_t* start, double* ordered) noexcept nogil:
    """Sorts the ``n`` points ``p`` (value, mass) by value: a counting sort into as many
    buckets of ``(lo, hi]``, then each bucket in turn (scratch: ``n`` slots, ``n + 1``
    starts, ``2 n`` doubles)."""
    cdef int64_t i, k, j, prev
    cdef double scale = n / (hi - lo) if hi > lo else 0.0
    for k in range(n + 1):
        start[k] = 0
    for i in range(n):
        k = min(max(<int64_t>((p[2 * i] - lo) * scale), 0), n - 1)
        slot[i] = k
        start[k + 1] += 1
    for k in range(n):
        start[k + 1] += start[k]
    for i in range(n):
        k = slot[i]
        j = start[k]
        ordered[2 * j], ordered[2 * j + 1] = p[2 * i], p[2 * i + 1]
        start[k] = j + 1
    prev = 0
    for k in range(n):
        _insertion_sort_pairs(ordered, prev, start[k])
        prev = start[k]
    for i in range(2 * n):
        p[i] = ordered[i]


cdef int _enumerate(
    Row* row, double lo, double hi, int64_t cap, double light, double* below
) noexcept nogil:
    """Every support point in ``(lo, hi]`` of the components heavier than ``light`` into
    ``row.points`` and their ``F(lo)`` (exact) into ``below``; -1 if there is no memory,
    1 (and no ``below``) past ``cap`` points."""
    cdef int64_t k
    below[0] = 0.0
    row.points.size = 0
    for k in range(row.ncomp):
        if row.comps[k].total <= light:
            continue
        if _comp_points(&row.comps[k], lo, hi, &row.points, below) < 0:
            return -1
        if row.points.size > 2 * cap:
            return 1
    return 0


cdef int _scan(
    const double* v, int64_t n, double cum, double p, double tolerance, double* out,
    double* before,
) noexcept nogil:
    """The first of the sorted points ``v`` (value, mass) where ``cum`` plus their masses
    reaches ``p``, points closer than ``tolerance`` (relative) taken as one and the largest
    of them put in ``out``, the sum before them in ``before``; 0 if none reaches ``p``."""
    cdef int64_t i = 0, j
    cdef double group
    while i < n:
        j = i
        group = v[2 * i + 1]
        while j + 1 < n and v[2 * j + 2] - v[2 * j] <= tolerance * max(1.0, fabs(v[2 * j + 2])):
            j += 1
            group = group + v[2 * j + 1]
        if cum + group >= p:
            out[0], before[0] = v[2 * j], cum
            return 1
        cum = cum + group
        i = j + 1
    before[0] = cum
    return 0


cdef int _crossing(
    Row* row, double lo, double hi, double below, double p, double tolerance, double* out,
    double* before,
) noexcept nogil:
    """The support point in ``(lo, hi]`` (of ``row.points``) where ``F`` reaches ``p`` from
    ``F(lo) = below`` into ``out`` (``before``: ``F`` just below it): the points' masses
    added up by value bucket (as many buckets as points), then the points of the bucket
    where ``p`` is reached and of its two neighbours (one value's copies can fall on either
    side of a bucket's edge) sorted and scanned (:func:`_scan`). Returns 1 if found, 0 if
    ``F(hi) < p`` (``before``: ``F(hi)``), -1 if there is no memory."""
    cdef int64_t n = row.points.size // 2, g = max(n, 1), i, k, hit = -1, kept = 0
    cdef double* v = <double*>row.points.data
    cdef double scale = g / (hi - lo), start_cum
    cdef double* mass
    cdef double* near
    cdef int64_t* slot
    before[0] = below
    if n == 0:
        return 0
    if _grow(&row.order, 4 * n + 2 * g + 2) < 0:
        return -1
    slot = <int64_t*>row.order.data
    if (hi - lo) / g <= 4 * tolerance * max(1.0, fabs(hi)):  # buckets too narrow: sort all
        _sort_points(v, n, lo, hi, slot, slot + n, <double*>(slot + 2 * n + 1))
        return _scan(v, n, below, p, tolerance, out, before)
    mass = <double*>(slot + n)  # mass[k]: bucket k's; then the sum before bucket k
    near = mass + g + 1
    for k in range(g + 1):
        mass[k] = 0.0
    for i in range(n):
        k = min(max(<int64_t>((v[2 * i] - lo) * scale), 0), g - 1)
        slot[i] = k
        mass[k] = mass[k] + v[2 * i + 1]
    start_cum = below
    for k in range(g):
        mass[k], start_cum = start_cum, start_cum + mass[k]
        if start_cum >= p:
            hit = k
            break
    if hit < 0:
        before[0] = start_cum
        return 0
    start_cum = mass[hit - 1] if hit > 0 else below
    for i in range(n):
        if hit - 1 <= slot[i] <= hit + 1:
            near[2 * kept], near[2 * kept + 1] = v[2 * i], v[2 * i + 1]
            kept += 1
    _insertion_sort_pairs(near, 0, kept)
    if _scan(near, kept, start_cum, p, tolerance, out, before):
        return 1
    # rounding put p between the sums by bucket and by point: sort them all
    _sort_points(v, n, lo, hi, slot, slot + n, <double*>(slot + 2 * n + 1))
    return _scan(v, n, below, p, tolerance, out, before)


cdef double _settle(
    Row* row, double lo, double hi, double p, double tolerance, int* status
) noexcept nogil:
    """The smallest support point where ``F`` reaches ``p``, from the search's bracket
    ``(lo, hi]``: ``F(lo)`` and the masses of its points added up exactly
    (:func:`_crossing`). The components lighter than :data:`LIGHT` are first left out: the
    point found is the quantile if it stays one with their whole weight added below it, else
    they are counted too. A bracket past :data:`CAP` points is split (the search's ``F``) while
    it can be; one that does not hold the quantile (the search's ``F`` leaves out tiny terms)
    moves down or up, twice as wide, until one does."""
    cdef double below, width, value, before, top = row.m + 0.5, light = 0.0, cut = LIGHT
    cdef int found
    cdef int64_t k
    for k in range(row.ncomp):
        if row.comps[k].total <= cut:
            light = light + row.comps[k].total
    if light == 0.0:
        cut = -1.0
    while True:
        # a bracket too narrow to split holds copies of one value: every one is needed
        found = _enumerate(
            row, lo, hi, CAP if hi - lo > 1e-9 * max(1.0, hi) else INT64_MAX // 4, cut,
            &below,
        )
        if found < 0:
            status[0] = -1
            return 0.0
        width = hi - lo
        if found > 0:
            _split(row, &lo, &hi, p)
            continue
        if below >= p:  # the quantile is at or below lo (F(0) < p: lo > 0)
            if lo <= 0.0:
                return _support_below(row, 0.0)
            hi, lo = lo, max(lo - 2 * width, 0.0)
            continue
        if below + light >= p and cut >= 0.0:  # the light ones may decide: count them
            cut, light = -1.0, 0.0
            continue
        found = _crossing(row, lo, hi, below, p, tolerance, &value, &before)
        if found < 0:
            status[0] = -1
            return 0.0
        if found and before + light < p:
            return _largest_copy(row, value, cut, tolerance, status)
        if found or (before + light >= p and cut >= 0.0):  # the light ones may decide
            cut, light = -1.0, 0.0
            continue
        if hi >= top:  # F never reaches p (p within rounding of 1): the largest point
            return _support_below(row, hi)
        lo, hi = hi, min(hi + 2 * width, top)


cdef double _largest_copy(
    Row* row, double value, double cut, double tolerance, int* status
) noexcept nogil:
    """The largest of the copies of the support point ``value`` (one value computed along
    different pairs, within ``tolerance``) in the components lighter than ``cut`` too, as the
    quantile is the largest support point up to it."""
    cdef double reach = tolerance * max(1.0, fabs(value)), below = 0.0, best = value
    cdef double* v
    cdef int64_t k, i
    row.points.size = 0
    for k in range(row.ncomp):
        if row.comps[k].total <= cut and _comp_points(
            &row.comps[k], value - reach, value + reach, &row.points, &below
        ) < 0:
            status[0] = -1
            return value
    v = <double*>row.points.data
    for i in range(row.points.size // 2):
        best = max(best, v[2 * i])
    return best


cdef void _split(Row* row, double* lo, double* hi, double p) noexcept nogil:
    """Narrows a bracket with too many points for :func:`_settle` by the search's ``F``: at
    the middle of the points enumerated so far, or, if they are copies of one value, to that
    value (from just below it, or from it)."""
    cdef double* v = <double*>row.points.data
    cdef double least = INFINITY, most = -INFINITY, split, density
    cdef int64_t i
    for i in range(row.points.size // 2):
        least, most = min(least, v[2 * i]), max(most, v[2 * i])
    if most - least > 1e-9 * max(1.0, most):
        split = 0.5 * (least + most)
        if _cdf(row, split, SEARCH_ERROR, &density) < p:
            lo[0] = split
        else:
            hi[0] = split
    elif _cdf(row, most, SEARCH_ERROR, &density) < p:
        lo[0] = most
    else:
        hi[0] = most
        lo[0] = max(lo[0], most - 1e-10 * max(1.0, most))


cdef double _quantile(
    Row* row, double p, double guess, double slope, double tolerance, int* status
) noexcept nogil:
    """Smallest support point (count scale) with ``F >= p``: a secant search from ``guess``
    (``slope``: ``F``'s guessed slope there) keeps a bracket ``F(lo) < p <= F(hi)`` (of the
    search's ``F``, :func:`_cdf` not exact) and stops when it holds about :data:`POINTS`
    support points (by the density of points at its ends), or when a secant step is shorter
    than that; :func:`_settle` finds the point in the bracket."""
    cdef double density, lo, hi, a, fa, previous_a = 0.0, previous_f = 0.0, estimate, move
    cdef double width, candidate, density_lo, density_hi, error
    cdef int64_t steps = 0
    cdef bint have_previous = False
    if _cdf(row, 0.0, 0.0, &density_lo) >= p:
        return 0.0
    lo, hi = 0.0, row.m + 0.5
    _cdf(row, hi, SEARCH_ERROR, &density_hi)
    a = guess
    if not (lo < a < hi):
        a = 0.5 * (lo + hi)
    error = FIRST_ERROR
    while True:
        fa = _cdf(row, a, error, &density)
        steps += 1
        if fa < p:
            lo, density_lo = a, density
        else:
            hi, density_hi = a, density
        width = POINTS / max(density_lo, density_hi)
        if hi - lo <= width or steps >= MAX_STEPS:
            break
        if have_previous and fa != previous_f:
            slope = fabs((fa - previous_f) / (a - previous_a))
            estimate = a + (p - fa) * (a - previous_a) / (fa - previous_f)
            if fabs(estimate - a) <= width:
                # a secant step this short lands within a bracket's width of the root: the
                # settling checks the bracket of twice that around it (and moves it if need be)
                lo, hi = max(lo, estimate - 2 * width), min(hi, estimate + 2 * width)
                break
        else:
            estimate = a + (p - fa) / slope
        move = max(OVERSHOOT * fabs(estimate - a), 0.25 * width)
        candidate = estimate + move if fa < p else estimate - move
        previous_a, previous_f, have_previous = a, fa, True
        if not (lo < candidate < hi) or (steps > BISECT_AFTER and steps % 2 == 1):
            candidate = 0.5 * (lo + hi)
        a = candidate
        # the next step lands about where F is p: its F within a small share of how far this
        # one's was, and of F's rise over the bracket the search ends with
        error = max(min(STEP_ERROR * fabs(fa - p), BRACKET_ERROR * slope * width), SEARCH_ERROR)
    return _settle(row, lo, hi, p, tolerance, status)


cdef int _row_quantiles(
    const Tables* tb, int64_t i, Row* row, const double* p, int64_t nps,
    const double* guess, const double* slope, double tolerance, double* out,
) noexcept nogil:
    cdef int status = _build_row(tb, i, row)
    cdef int64_t j
    if status == 0:
        for j in range(nps):
            out[j] = _quantile(row, p[j], guess[j], slope[j], tolerance, &status)
    return status


cdef int _row_cdf(const Tables* tb, int64_t i, Row* row, double a, double* out) noexcept nogil:
    cdef double density
    cdef int status = _build_row(tb, i, row)
    if status == 0:
        out[0] = _cdf(row, a, 0.0, &density)
    return status


def quantiles(
    tables, const double[::1] p, const double[:, ::1] guess, const double[:, ::1] slope,
    double tolerance,
):
    """``out[i, j]``: the smallest support point with ``F_i >= p[j]`` (count scale) at row
    ``i`` of ``tables`` (:func:`_tables`), searched from ``guess[i, j]`` where ``F_i``'s slope
    is about ``slope[i, j]``. The rows run side by side (OpenMP)."""
    cdef Tables tb = _tables(tables)
    cdef int64_t nrows = tb.nrows, nps = p.shape[0], i
    out_array = np.zeros((nrows, nps))
    status_array = np.zeros(nrows, dtype=np.intc)
    cdef double[:, ::1] out = out_array
    cdef int[::1] status = status_array
    if nrows == 0 or nps == 0:
        return out_array
    if guess.shape[0] != nrows or guess.shape[1] != nps or slope.shape[0] != nrows:
        raise ValueError("guess and slope need a row per row of tables and a column per p")
    cdef int64_t lanes_count = _max_threads()
    cdef Row* lanes = _lanes(lanes_count)
    if lanes == NULL:
        raise MemoryError()
    with nogil:
        for i in prange(nrows, schedule="dynamic"):
            status[i] = _row_quantiles(
                &tb, i, &lanes[threadid()], &p[0], nps, &guess[i, 0], &slope[i, 0],
                tolerance, &out[i, 0],
            )
        _free_lanes(lanes, lanes_count)
    if np.any(status_array):
        raise MemoryError()
    return out_array


def cdf(tables, const double[::1] a):
    """``out[i] = F_i(a[i])`` (count scale) at each row of ``tables`` (OpenMP over the
    rows)."""
    cdef Tables tb = _tables(tables)
    cdef int64_t nrows = tb.nrows, i
    out_array = np.zeros(nrows)
    status_array = np.zeros(nrows, dtype=np.intc)
    cdef double[::1] out = out_array
    cdef int[::1] status = status_array
    cdef int64_t lanes_count = _max_threads()
    cdef Row* lanes = _lanes(lanes_count)
    if lanes == NULL:
        raise MemoryError()
    with nogil:
        for i in prange(nrows, schedule="dynamic"):
            status[i] = _row_cdf(&tb, i, &lanes[threadid()], a[i], &out[i])
        _free_lanes(lanes, lanes_count)
    if np.any(status_array):
        raise MemoryError()
    return out_array
