"""Compiled loops of :mod:`rocsim.core.joint_thresholds` (built with the package): the
Krawtchouk recurrences, the correlations of a band of blocks, the Lancaster series of each
rank's block by Horner's rule, and the ranks' lanes run side by side (OpenMP).

The arithmetic is that of the formulas as written, term by term and left to right (no
contraction into fused multiply-adds, no reassociation: ``setup.py``), so the same bits on
every machine and on any number of threads. ``min`` and ``max`` of two doubles are Python's
(:func:`_min`, :func:`_max`). The lanes' work is C without the GIL: their arrays are raw
pointers into the caller's arrays and scratch from ``malloc`` (:func:`_room`), kept by the
lane from rank to rank and freed when it ends.
"""

import numpy as np

from cython.parallel cimport prange
from libc.math cimport INFINITY, fabs, isfinite, log, sqrt
from libc.stdint cimport INT64_MAX, int64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

cdef extern from *:
    """
    /* The OpenMP thread count; 1 where the package is built without OpenMP (Apple's clang:
       the lanes run in turn) */
    #ifdef _OPENMP
    #include <omp.h>
    static int rocsim_max_threads(void) { return omp_get_max_threads(); }
    #else
    static int rocsim_max_threads(void) { return 1; }
    #endif
    """
    int rocsim_max_threads() noexcept nogil

cdef extern from *:
    """
    /* The loops over a row's columns (the kernels' time is mostly there), compiled twice where
       the compiler can: for any x86-64 (SSE2: two doubles at a time) and for AVX2 (four),
       picked once by the CPU (a wheel cannot assume AVX2, and without it the columns go at
       half the pace). Each column's operations are the same, in the same order, either way:
       the same bits (no fused multiply-adds: "avx2" does not enable them, and setup.py forbids
       contracting). The body is inlined into both; __restrict: the rows written do not overlap
       those read, so no overlap test either. */
    #if defined(_MSC_VER)
    #define ROCSIM_BODY static __forceinline
    #else
    #define ROCSIM_BODY static inline __attribute__((always_inline))
    #endif
    #if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
    #define ROCSIM_AVX2 __attribute__((target("avx2")))
    static int rocsim_has_avx2(void) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2");
    }
    #else
    #define ROCSIM_AVX2
    static int rocsim_has_avx2(void) { return 0; }
    #endif
    #define ROCSIM_VARIANTS(name, params, args) \
        static void name params { name##_body args; } \
        ROCSIM_AVX2 static void name##_avx2 params { name##_body args; }

    ROCSIM_BODY void rocsim_horner_four_body(
        double *__restrict v, const double *__restrict r, const double *__restrict c0,
        const double *__restrict c1, const double *__restrict c2, const double *__restrict c3,
        double a0, double a1, double a2, double a3, Py_ssize_t lo, Py_ssize_t hi)
    {
        for (Py_ssize_t j = lo; j < hi; j++) {
            double rj = r[j];
            double t = v[j] * rj + a0 * c0[j];
            t = t * rj + a1 * c1[j];
            t = t * rj + a2 * c2[j];
            v[j] = t * rj + a3 * c3[j];
        }
    }
    ROCSIM_VARIANTS(
        rocsim_horner_four,
        (double *__restrict v, const double *__restrict r, const double *__restrict c0,
         const double *__restrict c1, const double *__restrict c2,
         const double *__restrict c3, double a0, double a1, double a2, double a3,
         Py_ssize_t lo, Py_ssize_t hi),
        (v, r, c0, c1, c2, c3, a0, a1, a2, a3, lo, hi))

    ROCSIM_BODY void rocsim_horner_one_body(
        double *__restrict v, const double *__restrict r, const double *__restrict column,
        double coefficient, Py_ssize_t lo, Py_ssize_t hi)
    {
        for (Py_ssize_t j = lo; j < hi; j++)
            v[j] = v[j] * r[j] + coefficient * column[j];
    }
    ROCSIM_VARIANTS(
        rocsim_horner_one,
        (double *__restrict v, const double *__restrict r, const double *__restrict column,
         double coefficient, Py_ssize_t lo, Py_ssize_t hi),
        (v, r, column, coefficient, lo, hi))

    ROCSIM_BODY void rocsim_recurrence_body(
        double *__restrict after, const double *__restrict now,
        const double *__restrict older, const double *__restrict centre,
        const double *__restrict slope, double k, double rk, double inv, Py_ssize_t w)
    {
        for (Py_ssize_t j = 0; j < w; j++)
            after[j] = ((centre[j] - k * slope[j]) * now[j] - rk * older[j]) * inv;
    }
    ROCSIM_VARIANTS(
        rocsim_recurrence,
        (double *__restrict after, const double *__restrict now,
         const double *__restrict older, const double *__restrict centre,
         const double *__restrict slope, double k, double rk, double inv, Py_ssize_t w),
        (after, now, older, centre, slope, k, rk, inv, w))
    """
    int rocsim_has_avx2() noexcept nogil
    void rocsim_horner_four(
        double* v, const double* r, const double* c0, const double* c1, const double* c2,
        const double* c3, double a0, double a1, double a2, double a3, Py_ssize_t lo,
        Py_ssize_t hi,
    ) noexcept nogil
    void rocsim_horner_four_avx2(
        double* v, const double* r, const double* c0, const double* c1, const double* c2,
        const double* c3, double a0, double a1, double a2, double a3, Py_ssize_t lo,
        Py_ssize_t hi,
    ) noexcept nogil
    void rocsim_horner_one(
        double* v, const double* r, const double* column, double coefficient, Py_ssize_t lo,
        Py_ssize_t hi,
    ) noexcept nogil
    void rocsim_horner_one_avx2(
        double* v, const double* r, const double* column, double coefficient, Py_ssize_t lo,
        Py_ssize_t hi,
    ) noexcept nogil
    void rocsim_recurrence(
        double* after, const double* now, const double* older, const double* centre,
        const double* slope, double k, double rk, double inv, Py_ssize_t w,
    ) noexcept nogil
    void rocsim_recurrence_avx2(
        double* after, const double* now, const double* older, const double* centre,
        const double* slope, double k, double rk, double inv, Py_ssize_t w,
    ) noexcept nogil

# the CPU runs the AVX2 variants of the column loops
cdef bint _AVX2 = rocsim_has_avx2()

#: The terms of the Lancaster series left out add at most this much to each value of ``L``,
#: and to each rank's weighted sum (:data:`rocsim.core.joint_thresholds.TOLERANCE`).
TOLERANCE = 1e-17
#: How many times ``TOLERANCE`` a pair of small weight may take
#: (:data:`rocsim.core.joint_thresholds.PAIR_SLACK`).
PAIR_SLACK = 100.0

cdef double _LOG_TOLERANCE = log(TOLERANCE)
cdef double _LOG_PAIR_SLACK = log(PAIR_SLACK)


def max_threads():
    """The number of threads the lanes of :func:`_lancaster_moments` run on: OpenMP's
    ``omp_get_max_threads()`` (``OMP_NUM_THREADS``, or a limit set by threadpoolctl), 1
    without OpenMP."""
    return rocsim_max_threads()


cdef inline double _max(double a, double b) noexcept nogil:
    """Python's ``max(a, b)``: ``a`` unless ``b`` is larger (C's ``fmax`` differs on NaN and
    may on the two zeros)."""
    return b if b > a else a


cdef inline double _min(double a, double b) noexcept nogil:
    """Python's ``min(a, b)``: ``a`` unless ``b`` is smaller."""
    return b if b < a else a


# --- scratch ----------------------------------------------------------------------------------


cdef struct Buffer:
    void* data
    size_t size  # bytes


cdef void* _room(Buffer* space, size_t size) noexcept nogil:
    """``space``'s memory if it holds ``size`` bytes, else new memory, at least twice as
    large (NULL if there is none). A lane of :func:`_lancaster_moments` keeps its scratch from
    rank to rank: a block's own tables would be fresh pages from the system for each large
    block (beyond malloc's mmap threshold), zeroed on first touch. The contents are not kept."""
    cdef size_t grown
    if space.data != NULL and space.size >= size:
        return space.data
    grown = max(max(size, 2 * space.size), <size_t>64)
    free(space.data)
    space.data = malloc(grown)
    space.size = grown if space.data != NULL else 0
    return space.data


cdef inline void _release(Buffer* space) noexcept nogil:
    free(space.data)
    space.data = NULL
    space.size = 0


# --- Krawtchouk values ------------------------------------------------------------------------
# v_k(x; p) = e_k(x) sqrt(Bin(x; N, p)), k = 0 .. N = n - 1, with e_k the orthonormal Krawtchouk
# polynomials of Bin(N, p): the three-term recurrence
# x e_k = s_{k+1} e_{k+1} + d_k e_k + s_k e_{k-1}, d_k = k (1 - 2p) + N p,
# s_k = sqrt(k (N - k + 1) p q). For fixed x the vector (v_k) has unit length.


cdef void _krawtchouk_whole_c(
    int64_t n, double p, double x, double first, double* v, double* diag, double* off,
    double* back,
) noexcept nogil:
    """All ``n`` values ``v_k(x; p)`` into ``v``, given ``v_0 = first`` (scratch ``diag``,
    ``off`` of ``n + 1``, ``back`` of ``n``). In ``k`` the sequence grows (or oscillates) and
    then decays; the forward recurrence is stable until the decay, the backward one from
    ``k = N`` after it. So the forward pass runs to the most oscillatory degree ``m`` (the
    largest ``4 s_k s_{k+1} - (x - d_k)^2``), the backward pass (from ``v_N = 1``, rescaled
    whenever it grows past 1e150) down to it, and the backward values are scaled to the forward
    ones at ``m - 1 .. m + 1``."""
    cdef int64_t big_n = n - 1, k, t, split
    cdef double q = 1.0 - p, best, gap, centred, num, den, scale
    for k in range(n):
        diag[k] = k * (1 - 2 * p) + big_n * p
    off[0] = 0.0
    for k in range(1, n):
        # the integer product first (exact), then times p, then q: left to right
        off[k] = sqrt(<double>(k * (big_n - k + 1)) * p * q)
    off[n] = 0.0
    best, split = -INFINITY, big_n
    for k in range(1, big_n):
        centred = x - diag[k]
        gap = 4 * off[k] * off[k + 1] - centred * centred
        if gap > best:
            best, split = gap, k
    v[0] = first
    if big_n == 0:
        return
    v[1] = (x - diag[0]) * v[0] / off[1]
    for k in range(1, min(split + 2, big_n)):
        v[k + 1] = ((x - diag[k]) * v[k] - off[k] * v[k - 1]) / off[k + 1]
    if split + 1 >= big_n:
        return
    memset(back, 0, n * sizeof(double))
    back[big_n] = 1.0
    back[big_n - 1] = (x - diag[big_n]) / off[big_n]
    for k in range(big_n - 1, split - 1, -1):
        back[k - 1] = ((x - diag[k]) * back[k] - off[k + 1] * back[k + 1]) / off[k]
        if fabs(back[k - 1]) > 1e150:
            for t in range(k - 1, n):
                back[t] *= 1e-150
    num, den = 0.0, 0.0
    for k in range(max(split - 1, 0), min(split + 2, n)):
        num += v[k] * back[k]
        den += back[k] * back[k]
    scale = num / den if den > 0 else 0.0
    for k in range(split + 1, n):
        v[k] = back[k] * scale


def _krawtchouk_whole(
    int64_t n, double p, double x, double first, double[::1] v, double[::1] diag,
    double[::1] off,
):
    """:func:`_krawtchouk_whole_c` on arrays: ``v`` of ``n``, ``diag`` and ``off`` of
    ``n + 1``."""
    if n < 1 or v.shape[0] < n or diag.shape[0] < n + 1 or off.shape[0] < n + 1:
        raise ValueError("v needs n values, diag and off n + 1")
    cdef double* back = <double*>malloc(n * sizeof(double))
    if back == NULL:
        raise MemoryError()
    _krawtchouk_whole_c(n, p, x, first, &v[0], &diag[0], &off[0], back)
    free(back)


cdef size_t _prefix_scratch(int64_t n, Py_ssize_t w) noexcept nogil:
    """The bytes of scratch :func:`_krawtchouk_prefixes_c` needs for ``w`` columns."""
    return (3 * w + 4 * n + 2) * sizeof(double) + w


cdef void _krawtchouk_prefixes_c(
    int64_t n, double x, const double* p, const double* first, Py_ssize_t w, int64_t length,
    const double* scale, double* out, const double* root, void* scratch,
) noexcept nogil:
    """``out[k, j] = scale[k] v_k(x; p_j)`` for ``k < length`` (``out``: ``length`` rows of
    ``w``), every ``p_j`` at once (degree by degree, so that the recurrence runs across the
    columns); ``first[j] = v_0(x; p_j)``, ``root[k] = sqrt(k (N - k + 1))``; ``scale`` NULL:
    all 1 (no product). ``scratch``: :func:`_prefix_scratch` bytes.

    The forward recurrence is stable while ``x`` is in the growing or the oscillating range of
    degree ``k``: before the peak of the gap ``4 s_k s_{k+1} - (x - d_k)^2`` or where the gap is
    at least 0. The gap is concave in ``k`` (a geometric mean of two concave functions minus a
    convex square), so a column whose first ``length`` degrees reach past the peak into a
    negative gap (the decaying range) is seen at its last degree; it is computed whole
    (:func:`_krawtchouk_whole_c`).
    """
    cdef int64_t big_n = n - 1, last = length - 1, k
    cdef Py_ssize_t j
    cdef double gap, before, centred, inv, rk
    cdef double* spq = <double*>scratch
    cdef double* slope = spq + w
    cdef double* centre = slope + w
    cdef double* v = centre + w
    cdef double* diag = v + n
    cdef double* off = diag + n + 1
    cdef double* back = off + n + 1
    cdef char* stable = <char*>(back + n)
    cdef double* older
    cdef double* now
    cdef double* after
    # e_{k+1} = ((x - d_k) / s e_k - r_k e_{k-1}) / r_{k+1}, s = sqrt(p q), r_k = root[k]:
    # (x - d_k) / s = centre - k slope
    for j in range(w):
        spq[j] = sqrt(p[j] * (1 - p[j]))
        slope[j] = (1 - 2 * p[j]) / spq[j]
        centre[j] = (x - big_n * p[j]) / spq[j]
    # the gap being concave, a degree below `length` is past its peak with a negative gap iff
    # the last one is: negative and no larger than the one before
    for j in range(w):
        stable[j] = length <= big_n
    if 2 <= last < big_n:
        for j in range(w):
            gap = 4 * spq[j] * spq[j] * root[last] * root[last + 1]
            centred = x - last * (1 - 2 * p[j]) - big_n * p[j]
            gap -= centred * centred
            before = 4 * spq[j] * spq[j] * root[last - 1] * root[last]
            centred = x - (last - 1) * (1 - 2 * p[j]) - big_n * p[j]
            before -= centred * centred
            if gap < 0.0 and gap <= before:
                stable[j] = 0
    for j in range(w):
        out[j] = first[j]
    if length > 1 and big_n > 0:
        inv = 1.0 / root[1]
        for j in range(w):
            out[w + j] = centre[j] * first[j] * inv
        for k in range(1, length - 1):
            # one row from the two before: the loop over the columns vectorizes
            inv, rk = 1.0 / root[k + 1], root[k]
            older, now, after = out + (k - 1) * w, out + k * w, out + (k + 1) * w
            # after[j] = ((centre[j] - k * slope[j]) * now[j] - rk * older[j]) * inv
            if _AVX2:
                rocsim_recurrence_avx2(after, now, older, centre, slope, k, rk, inv, w)
            else:
                rocsim_recurrence(after, now, older, centre, slope, k, rk, inv, w)
    _scale_rows(out, scale, length, w)
    for j in range(w):
        if not stable[j]:
            _krawtchouk_whole_c(n, p[j], x, first[j], v, diag, off, back)
            for k in range(length):
                out[k * w + j] = v[k] if scale == NULL else scale[k] * v[k]


def _krawtchouk_prefixes(
    int64_t n, double x, const double[::1] p, const double[::1] first, int64_t length,
    const double[::1] scale, double[:, ::1] out, const double[::1] root,
):
    """:func:`_krawtchouk_prefixes_c` on arrays: ``out`` of ``length`` rows (at least) and
    ``p.size`` columns."""
    cdef Py_ssize_t w = p.shape[0]
    if (
        n < 1 or length < 1 or length > n or first.shape[0] != w or scale.shape[0] < length
        or out.shape[0] < length or out.shape[1] != w or root.shape[0] < n + 1
    ):
        raise ValueError("the arrays do not fit n, length and p")
    cdef void* scratch = malloc(_prefix_scratch(n, w))
    if scratch == NULL:
        raise MemoryError()
    _krawtchouk_prefixes_c(n, x, &p[0], &first[0], w, length, &scale[0], &out[0, 0], &root[0],
                           scratch)
    free(scratch)


cdef void _scale_rows(
    double* out, const double* scale, int64_t length, Py_ssize_t w
) noexcept nogil:
    """``out[k, :] *= scale[k]`` for ``k < length`` (rows of ``w``); nothing if ``scale`` is
    NULL (all 1)."""
    cdef int64_t k
    cdef Py_ssize_t j
    cdef double factor
    if scale == NULL:
        return
    for k in range(length):
        factor = scale[k]
        for j in range(w):
            out[k * w + j] *= factor


cdef void _krawtchouk_block(
    int64_t n, double x, const int64_t* values, const double* first, Py_ssize_t w,
    int64_t length, const double* scale, const double* root, const double* kept, double* out,
    double* p, void* scratch,
) noexcept nogil:
    """:func:`_krawtchouk_prefixes_c` of ``values / n`` into ``out`` (``length`` by ``w``), or
    read from ``kept`` (every value's whole vector at this ``x``, ``n + 1`` rows of ``n``) when
    it is not NULL. ``p``: scratch of ``w``; ``scratch``: :func:`_prefix_scratch` bytes."""
    cdef int64_t k
    cdef Py_ssize_t j
    if kept == NULL:
        for j in range(w):
            p[j] = <double>values[j] / n
        _krawtchouk_prefixes_c(n, x, p, first, w, length, scale, out, root, scratch)
        return
    for k in range(length):
        for j in range(w):
            out[k * w + j] = (
                kept[values[j] * n + k] if scale == NULL else scale[k] * kept[values[j] * n + k]
            )


def _roots(int64_t n):
    """``sqrt(k (N - k + 1))`` for ``k = 0 .. n`` (0 at both ends)."""
    root_array = np.zeros(n + 1)
    cdef double[::1] root = root_array
    cdef int64_t k
    for k in range(1, n):
        root[k] = sqrt(<double>(k * (n - k)))
    return root_array


def _series_tables(int64_t n):
    """``(1/(k + 1), log(k + 1), sqrt(k (N - k + 1)))`` for ``k = 0 .. n - 1`` (the last one
    to ``k = n``, :func:`_roots`): what every series at this ``n`` reads."""
    inverse_array, log_count_array = np.empty(n), np.empty(n)
    cdef double[::1] inverse = inverse_array, log_count = log_count_array
    cdef int64_t k
    for k in range(n):
        inverse[k] = 1.0 / <double>(k + 1)
        # libm's log, one by one (numpy's own vectorized log may differ in the last bit)
        log_count[k] = log(<double>(k + 1))
    return inverse_array, log_count_array, _roots(n)


cdef int _whole_table(int64_t n, double x, const double* first, double* out) noexcept nogil:
    """One rank's table of :func:`_whole_tables`; -1 if there is no memory for the scratch."""
    cdef int64_t a
    cdef double* scratch = <double*>malloc((3 * n + 2) * sizeof(double))
    if scratch == NULL:
        return -1
    for a in range(1, n):
        _krawtchouk_whole_c(
            n, <double>a / n, x, first[a - 1], out + a * n, scratch, scratch + n + 1,
            scratch + 2 * n + 2,
        )
    free(scratch)
    return 0


def _whole_tables(int64_t n, const int64_t[::1] u, const double[:, ::1] first):
    """``out[k, a] = (v_0 .. v_{n-1})(u_k; a / n)`` for ``a = 1 .. n - 1`` (0 at 0 and n),
    given ``first[k, a - 1] = v_0(u_k; a / n)``. The ranks run side by side (OpenMP)."""
    cdef Py_ssize_t ranks = u.shape[0], k
    if first.shape[0] != ranks or first.shape[1] != max(n - 1, 0):
        raise ValueError("first needs a row of n - 1 values per rank")
    out_array = np.zeros((ranks, n + 1, n))
    status_array = np.zeros(ranks, dtype=np.intc)
    cdef double[:, :, ::1] out = out_array
    cdef int[::1] status = status_array
    if ranks == 0 or n < 2:
        return out_array
    cdef const double* first_0 = &first[0, 0]
    cdef double* out_0 = &out[0, 0, 0]
    cdef const int64_t* u_0 = &u[0]
    with nogil:
        for k in prange(ranks, schedule="static"):
            status[k] = _whole_table(n, <double>u_0[k], first_0 + k * (n - 1),
                                     out_0 + k * (n + 1) * n)
    if np.any(status_array):
        raise MemoryError()
    return out_array


# --- the number of terms ----------------------------------------------------------------------
# With head = n s_a s_b v_0(a) v_0(b) (s = sqrt(p q)), the k-th term of the series of L is
# head rho^(k+1) / (k+1) v_k(a) v_k(b), each (v_k) a unit vector. As |rho|^(k+1) / (k+1)
# decreases in k, the terms from degree m on add at most
# head |rho|^(m+1) / (m + 1) sum_{k>=m} |v_k(a) v_k(b)| <= head |rho|^(m+1) / (m + 1)
# (Cauchy-Schwarz: the sum is at most ||v(a)|| ||v(b)|| = 1). Degree m is summed where that is
# at least TOLERANCE: for a row of largest |rho| = r and head factor H_a = n s_a v_0(a), in the
# columns whose H_b = s_b v_0(b) has
# log H_b >= log TOLERANCE - log H_a + log(m + 1) - (m + 1) log r.


cdef inline void _row_base_c(
    double log_head_a, double rho, double log_slack, double* base, double* log_rho
) noexcept nogil:
    """``(base, log r)`` of a row, so that degree ``m`` is needed where
    ``log H_b >= base + log(m + 1) - (m + 1) log r`` (each value within ``TOLERANCE`` times
    ``exp(log_slack)``); ``r <= 0``: no degree (``base = inf``); ``r >= 1``: every degree
    (``base = -inf``)."""
    if rho <= 0.0:
        base[0], log_rho[0] = INFINITY, 0.0
    elif rho >= 1.0:
        base[0], log_rho[0] = -INFINITY, 0.0
    else:
        base[0], log_rho[0] = _LOG_TOLERANCE + log_slack - log_head_a, log(rho)


def _row_base(double log_head_a, double rho, double log_slack):
    """:func:`_row_base_c`: returns ``(base, log r)``."""
    cdef double base, log_rho
    _row_base_c(log_head_a, rho, log_slack, &base, &log_rho)
    return base, log_rho


cdef int64_t _degrees_c(
    double base, double log_rho, double log_head_b, const double* log_count, int64_t n
) noexcept nogil:
    """The degrees a column with head ``log_head_b`` needs in a row (``_row_base_c``);
    ``log_count[m] = log(m + 1)``: the first ``m`` where ``base + log(m + 1) - (m + 1) log r``
    exceeds ``log_head_b``. That left side increases with ``m``, computed too (each rounding
    is monotone), so the search may start anywhere: where ``(m + 1) (-log r)`` reaches
    ``log_head_b - base - log m0``, ``m0`` where it reaches ``log_head_b - base`` (a few
    steps above the answer): at most a step or two from it."""
    cdef int64_t m = 0
    if log_rho < 0.0 and isfinite(base) and log_head_b - base > 0.0:
        m = <int64_t>_min((log_head_b - base) / -log_rho, <double>n)
        if m > 1:
            m = <int64_t>_min(
                _max((log_head_b - base - log_count[m - 1]) / -log_rho, 0.0), <double>n
            )
    while m > 0 and base + log_count[m - 1] - m * log_rho > log_head_b:
        m -= 1
    while m < n and base + log_count[m] - (m + 1) * log_rho <= log_head_b:
        m += 1
    return m


def _degrees(double base, double log_rho, double log_head_b, const double[::1] log_count,
             int64_t n):
    """:func:`_degrees_c` (``log_count`` of ``n`` values)."""
    if log_count.shape[0] < n:
        raise ValueError("log_count needs n values")
    return _degrees_c(base, log_rho, log_head_b, &log_count[0] if n else NULL, n)


# --- the exact moments: one compiled pass per rank over its block of open pairs --------------


cdef int64_t _band_rows_c(
    const int64_t* runs, const int64_t* order, int64_t slot, int64_t stop, int64_t budget,
    int64_t* row_lo, int64_t* row_hi, int64_t* r0_out, int64_t* r1_out,
) noexcept nogil:
    """The ranks ``order[slot:end]`` whose blocks (``runs``, four per rank) together cover at
    most ``budget`` pairs (at least one rank): returns ``end``, puts ``r0``, ``r1`` into
    ``r0_out``, ``r1_out``, and each row ``ia`` in ``[r0, r1)`` gets the columns
    ``[row_lo[ia - r0], row_hi[ia - r0])`` of the blocks that have it (empty where none
    has)."""
    cdef int64_t r0 = 0, r1 = 0, size = 0, end = slot, grown, old, ia, ia0, ia1, ib0, ib1
    cdef const int64_t* run
    while end < stop:
        run = runs + 4 * order[end]
        ia0, ia1, ib0, ib1 = run[0], run[1], run[2], run[3]
        if ia1 > ia0 and ib1 > ib0:
            if r1 == r0:
                r0 = r1 = ia0
            grown = 0
            for ia in range(ia0, ia1):
                if r0 <= ia < r1 and row_hi[ia - r0] > row_lo[ia - r0]:
                    old = row_hi[ia - r0] - row_lo[ia - r0]
                    grown += max(row_hi[ia - r0], ib1) - min(row_lo[ia - r0], ib0) - old
                else:
                    grown += ib1 - ib0
            if end > slot and size + grown > budget:
                break
            size += grown
            r0, r1 = _cover_rows(r0, r1, ia0, ia1, row_lo, row_hi)
            for ia in range(ia0, ia1):
                row_lo[ia - r0] = min(row_lo[ia - r0], ib0)
                row_hi[ia - r0] = max(row_hi[ia - r0], ib1)
        end += 1
    r0_out[0], r1_out[0] = r0, r1
    return end


def _band_rows(
    const int64_t[:, ::1] runs, const int64_t[::1] order, int64_t slot, int64_t stop,
    int64_t budget, int64_t[::1] row_lo, int64_t[::1] row_hi,
):
    """:func:`_band_rows_c` on arrays (``row_lo``, ``row_hi``: a value per row of the grid):
    returns ``(end, r0, r1)``."""
    cdef int64_t r0, r1, end
    if runs.shape[1] != 4 or not 0 <= slot <= stop <= order.shape[0]:
        raise ValueError("runs needs four columns, slot and stop to be within order")
    end = _band_rows_c(&runs[0, 0], &order[0] if order.shape[0] else NULL, slot, stop, budget,
                       &row_lo[0], &row_hi[0], &r0, &r1)
    return end, r0, r1


cdef (int64_t, int64_t) _cover_rows(
    int64_t r0, int64_t r1, int64_t ia0, int64_t ia1, int64_t* row_lo, int64_t* row_hi
) noexcept nogil:
    """Rows ``[r0, r1)`` widened to cover ``[ia0, ia1)``: the kept rows moved up if the
    first row moves down, new rows empty."""
    cdef int64_t new0 = min(r0, ia0), new1 = max(r1, ia1), shift, kept, q
    if r1 == r0:
        new0, new1 = ia0, ia1
        shift, kept = 0, 0
    else:
        shift, kept = r0 - new0, r1 - r0
    for q in range(kept - 1, -1, -1):
        row_lo[q + shift], row_hi[q + shift] = row_lo[q], row_hi[q]
    for q in range(new1 - new0):
        if not shift <= q < shift + kept:
            row_lo[q], row_hi[q] = INT64_MAX, 0
    return new0, new1


cdef int _band_correlations_c(
    int64_t n, const int64_t* a_values, Py_ssize_t b_size, const int64_t* b_values,
    const int64_t* first_column, int64_t r0, const int64_t* row_lo, const int64_t* row_hi,
    const int64_t* offsets, Py_ssize_t rows, double* band, Buffer* scratch,
) noexcept nogil:
    """Into ``band[offsets[q] + j - row_lo[q]]``, for row ``ia = r0 + q`` (``q < rows``) and
    column ``j`` in ``[row_lo[q], row_hi[q])``, the correlation of ``(1_A, 1_B)`` in one draw
    at ``(a_values[ia], b_values[j])``: ``(c / n - p_a p_b) / (s_a s_b)``, with the overlaps
    ``c`` counted while walking down the rows (``O(n + rows span)``). Negative ``t`` (ranked
    by classifier 1) is in ``B_{b_j}`` iff ``j >= first_column[t]``: ``cum[j - c0]`` counts
    the negatives above the row with ``first_column <= j``, from a histogram of those above
    the first row, then one (vectorized) suffix per negative between two rows. Returns -1 if
    there is no memory for the ``scratch``."""
    cdef int64_t c0 = b_size, c1 = 0, span, lo, hi, ia, t, j, column, col
    cdef Py_ssize_t q
    cdef double pb, pa, inv_sb, inv_sa, r
    cdef double* per_count
    cdef double* per_share
    cdef double* cum
    cdef double* row
    for q in range(rows):
        if row_hi[q] > row_lo[q]:
            c0, c1 = min(c0, row_lo[q]), max(c1, row_hi[q])
    span = max(c1 - c0, 0)
    per_count = <double*>_room(scratch, 3 * span * sizeof(double))
    if per_count == NULL:
        return -1
    per_share, cum = per_count + span, per_count + 2 * span
    # rho = (c / (n s_b) - p_a p_b / s_b) / s_a, per column factors once
    for j in range(span):
        pb = <double>b_values[c0 + j] / n
        inv_sb = 1.0 / sqrt(pb * (1 - pb))
        per_count[j], per_share[j] = inv_sb / n, pb * inv_sb
    memset(cum, 0, span * sizeof(double))
    for t in range(a_values[r0]):
        column = max(first_column[t] - c0, 0)
        if column < span:
            cum[column] += 1.0
    for j in range(1, span):
        cum[j] += cum[j - 1]
    for q in range(rows):
        ia = r0 + q
        for t in range(a_values[ia - 1] if q else a_values[r0], a_values[ia]):
            for j in range(max(first_column[t] - c0, 0), span):
                cum[j] += 1.0
        lo, hi = row_lo[q], row_hi[q]
        if hi <= lo:
            continue
        pa = <double>a_values[ia] / n
        inv_sa, row = 1.0 / sqrt(pa * (1 - pa)), band + offsets[q]
        for j in range(hi - lo):
            col = lo - c0 + j
            r = (cum[col] * per_count[col] - pa * per_share[col]) * inv_sa
            row[j] = _min(_max(r, -1.0), 1.0)
    return 0


def _band_correlations(
    int64_t n, const int64_t[::1] a_values, const int64_t[::1] b_values,
    const int64_t[::1] first_column, int64_t r0, const int64_t[::1] row_lo,
    const int64_t[::1] row_hi, const int64_t[::1] offsets, double[::1] band,
):
    """:func:`_band_correlations_c` on arrays: ``offsets`` of one more than the rows."""
    cdef Py_ssize_t rows = offsets.shape[0] - 1
    cdef Buffer scratch = Buffer(NULL, 0)
    if rows < 0 or row_lo.shape[0] < rows or row_hi.shape[0] < rows:
        raise ValueError("row_lo and row_hi need a value per row, offsets one more")
    cdef int status = _band_correlations_c(
        n, &a_values[0], b_values.shape[0], &b_values[0], &first_column[0], r0,
        &row_lo[0] if rows else NULL, &row_hi[0] if rows else NULL, &offsets[0], rows,
        &band[0] if band.shape[0] else NULL, &scratch,
    )
    _release(&scratch)
    if status:
        raise MemoryError()


cdef inline double _largest_magnitude(const double* x, Py_ssize_t size) noexcept nogil:
    """``max |x|`` (0 if empty), in four lanes: independent chains the CPU runs side by side
    (the same result in any order)."""
    cdef double m0 = 0.0, m1 = 0.0, m2 = 0.0, m3 = 0.0
    cdef Py_ssize_t stop = size - size % 4, j
    for j in range(0, stop, 4):
        m0, m1 = _max(m0, fabs(x[j])), _max(m1, fabs(x[j + 1]))
        m2, m3 = _max(m2, fabs(x[j + 2])), _max(m3, fabs(x[j + 3]))
    for j in range(stop, size):
        m0 = _max(m0, fabs(x[j]))
    return _max(_max(m0, m1), _max(m2, m3))


cdef inline double _dot(const double* x, const double* y, Py_ssize_t size) noexcept nogil:
    """``sum x * y`` in four lanes (lane ``l`` sums the terms ``j = l mod 4``, then the lanes
    are added): four independent chains where one running sum waits on each addition; the
    same order, so the same bits, on every machine."""
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef Py_ssize_t stop = size - size % 4, j
    for j in range(0, stop, 4):
        s0 += x[j] * y[j]
        s1 += x[j + 1] * y[j + 1]
        s2 += x[j + 2] * y[j + 2]
        s3 += x[j + 3] * y[j + 3]
    for j in range(stop, size):
        s0 += x[j] * y[j]
    return (s0 + s1) + (s2 + s3)


cdef Py_ssize_t _unimodal_envelope(
    const double* values, Py_ssize_t size, double* out
) noexcept nogil:
    """Into ``out`` the smallest sequence above ``values`` that rises to its peak and then
    falls; returns the peak: the columns' heads are unimodal in exact arithmetic, so rounding
    cannot make a degree skip a column between two that need it."""
    cdef Py_ssize_t peak = 0, j
    cdef double run = -INFINITY
    for j in range(size):
        if values[j] > values[peak]:
            peak = j
    for j in range(peak + 1):
        run = _max(run, values[j])
        out[j] = run
    run = -INFINITY
    for j in range(size - 1, peak, -1):
        run = _max(run, values[j])
        out[j] = run
    return peak


cdef void _horner_row(
    double* v, const double* r, Py_ssize_t i, Py_ssize_t h, const double* rows,
    const double* columns, Py_ssize_t w, int64_t degrees, double base, double log_rho,
    const double* envelope, Py_ssize_t peak, const double* log_count,
) noexcept nogil:
    """``v[j] = sum_k r_j^k rows[k, i] columns[k, j]`` (``r``: row ``i``'s ``rho``; ``rows``
    of ``h`` and ``columns`` of ``w`` per degree) over the degrees pair ``(i, j)`` needs
    (``degrees``: row ``i``'s most, :func:`_degrees_c` at the envelope's peak), by Horner's
    rule from the top degree down; at each degree the columns that need it are an interval
    around the envelope's peak (``v = 0`` until a column joins). The degrees go four at a time
    (one pass over ``v`` instead of four): a column joining within a group takes the group's
    higher degrees too, terms beyond those it needs."""
    cdef Py_ssize_t lo = peak, hi = peak + 1
    cdef int64_t m = degrees - 1, low, k
    cdef double limit
    memset(v, 0, w * sizeof(double))
    while m >= 0:
        low = max(m - 3, 0)
        limit = base + log_count[low] - (low + 1) * log_rho
        while lo > 0 and envelope[lo - 1] >= limit:
            lo -= 1
        while hi < w and envelope[hi] >= limit:
            hi += 1
        if m - low == 3:
            _horner_four(
                v, r,
                columns + m * w, columns + (m - 1) * w, columns + (m - 2) * w,
                columns + (m - 3) * w,
                rows[m * h + i], rows[(m - 1) * h + i], rows[(m - 2) * h + i],
                rows[(m - 3) * h + i],
                lo, hi,
            )
        else:
            for k in range(m, low - 1, -1):
                _horner_one(v, r, columns + k * w, rows[k * h + i], lo, hi)
        m = low - 1


# The two steps of _horner_row run on the tables' rows as raw pointers; their loops are C
# (above), the AVX2 variant where the CPU has it.


cdef inline void _horner_four(
    double* v, const double* r, const double* c0, const double* c1, const double* c2,
    const double* c3, double a0, double a1, double a2, double a3, Py_ssize_t lo, Py_ssize_t hi,
) noexcept nogil:
    """Four steps of Horner's rule on ``v[lo:hi]``: ``v = v r + a_q c_q`` for the four
    ``(a_q, c_q)``, highest degree first (``t = v r + a0 c0``, ``t = t r + a1 c1``,
    ``t = t r + a2 c2``, ``v = t r + a3 c3``)."""
    if _AVX2:
        rocsim_horner_four_avx2(v, r, c0, c1, c2, c3, a0, a1, a2, a3, lo, hi)
    else:
        rocsim_horner_four(v, r, c0, c1, c2, c3, a0, a1, a2, a3, lo, hi)


cdef inline void _horner_one(
    double* v, const double* r, const double* column, double coefficient, Py_ssize_t lo,
    Py_ssize_t hi,
) noexcept nogil:
    """One step of Horner's rule on ``v[lo:hi]``: ``v = v r + a c``."""
    if _AVX2:
        rocsim_horner_one_avx2(v, r, column, coefficient, lo, hi)
    else:
        rocsim_horner_one(v, r, column, coefficient, lo, hi)


cdef struct Lane:
    # a lane's scratch, kept from rank to rank (_room) and freed when the lane ends
    Buffer tables  # a block's Krawtchouk values of its rows and columns
    Buffer block  # a block's per-row and per-column numbers
    Buffer prefixes  # _krawtchouk_prefixes_c
    Buffer band  # the band's correlations
    Buffer band_offsets
    Buffer correlations  # _band_correlations_c


cdef int _rank_block(
    int64_t n, double u, const int64_t* a, Py_ssize_t h, const int64_t* b, Py_ssize_t w,
    int64_t start, const double* below, const double* first, const double* weight_a,
    const double* log_weight_a, const double* weight_b, const double* band,
    const int64_t* band_offsets, const int64_t* row_lo, int64_t ib0, const double* inverse,
    const double* log_count, const double* root, const double* kept, const int64_t* offsets,
    const int64_t* pair_b, double* values_at, Lane* lane, double* result,
) noexcept nogil:
    """One rank's block of open pairs, rows ``a`` (``h``), columns ``b`` (``w``): ``L`` is
    ``F_A F_B + H_a H_b rho v`` with ``v`` of :func:`_horner_row`, clipped to [0, 1]. Puts the
    block's ``sum w_a w_b (L - F_A F_B)`` (compensated) into ``result``, and ``L`` at each
    positive's pair in the block into ``values_at``; returns -1 if there is no memory for the
    lane's scratch (grown as needed, :func:`_room`). Row ``i``'s ``rho`` at the block's columns
    is ``band[band_offsets[i] + ib0 - row_lo[i]:][:w]`` (:func:`_band_correlations_c`, its
    rows from the block's first); ``weight_a``, ``log_weight_a``, ``weight_b``: ``w_a``,
    ``log w_a`` (from the block's first row), ``w_b`` (from its first column).

    ``below[a - start]``, ``first[a - start]``: the marginal and ``v_0`` of value ``a`` at
    this rank (:func:`rocsim.core.joint_thresholds._rank_rows`); ``inverse``, ``log_count``,
    ``root``: ``1/(k + 1)``, ``log(k + 1)`` and :func:`_roots`; ``kept``: every value's
    Krawtchouk values at this rank (``rocsim.core.joint_thresholds._kept_values``), or NULL;
    ``offsets``, ``pair_b``: :func:`_positives_by_row`, ``offsets`` from the block's first row
    on; ``values_at`` in the same order. Pair ``(i, j)`` is summed to within
    ``TOLERANCE / (h w w_a[i] max(w_b))`` (at most ``PAIR_SLACK`` times ``TOLERANCE``), so the
    block's weighted sum is within ``TOLERANCE``."""
    cdef Py_ssize_t i, j, q, peak, widest = max(h, w)
    cdef int64_t longest, column
    cdef double pa, pb, most, log_share, slack, fa, ha, product, total, carry
    cdef const double* row
    # the block's numbers: 7 per row and 7 per column, the values / n of the larger side, and
    # the degrees of each row
    cdef double* head_a = <double*>_room(
        &lane.block, (7 * h + 7 * w + widest) * sizeof(double) + h * sizeof(int64_t)
    )
    cdef void* prefix_scratch = _room(&lane.prefixes, _prefix_scratch(n, widest))
    if head_a == NULL or prefix_scratch == NULL:
        return -1
    cdef double* log_head_a = head_a + h
    cdef double* below_a = log_head_a + h
    cdef double* first_a = below_a + h
    cdef double* largest = first_a + h
    cdef double* base = largest + h
    cdef double* log_rho = base + h
    cdef double* head_b = log_rho + h
    cdef double* log_head_b = head_b + w
    cdef double* below_b = log_head_b + w
    cdef double* first_b = below_b + w
    cdef double* envelope = first_b + w
    cdef double* v = envelope + w
    cdef double* excess = v + w
    cdef double* p = excess + w
    cdef int64_t* degrees = <int64_t*>(p + widest)
    for i in range(h):
        pa = <double>a[i] / n
        below_a[i], first_a[i] = below[a[i] - start], first[a[i] - start]
        head_a[i] = n * sqrt(pa * (1 - pa)) * first_a[i]
        log_head_a[i] = log(head_a[i]) if head_a[i] > 0 else -INFINITY
    for j in range(w):
        pb = <double>b[j] / n
        below_b[j], first_b[j] = below[b[j] - start], first[b[j] - start]
        head_b[j] = sqrt(pb * (1 - pb)) * first_b[j]
        log_head_b[j] = log(head_b[j]) if head_b[j] > 0 else -INFINITY
    for i in range(h):
        largest[i] = _largest_magnitude(band + band_offsets[i] + ib0 - row_lo[i], w)
    peak = _unimodal_envelope(log_head_b, w, envelope)
    most = weight_b[0]  # numpy's max (no NaN here): the first of the largest
    for j in range(1, w):
        if weight_b[j] > most:
            most = weight_b[j]
    log_share = log(h * w * most)
    longest = 1
    for i in range(h):
        slack = _min(-log_share - log_weight_a[i], _LOG_PAIR_SLACK)
        _row_base_c(log_head_a[i], largest[i], slack, &base[i], &log_rho[i])
        degrees[i] = _degrees_c(base[i], log_rho[i], envelope[peak], log_count, n)
        longest = max(longest, degrees[i])
    cdef double* rows = <double*>_room(&lane.tables, longest * (h + w) * sizeof(double))
    if rows == NULL:
        return -1
    cdef double* columns = rows + longest * h
    _krawtchouk_block(n, u, a, first_a, h, longest, NULL, root, kept, rows, p, prefix_scratch)
    _krawtchouk_block(
        n, u, b, first_b, w, longest, inverse, root, kept, columns, p, prefix_scratch
    )
    total, carry = 0.0, 0.0
    for i in range(h):
        row = band + band_offsets[i] + ib0 - row_lo[i]
        _horner_row(
            v, row, i, h, rows, columns, w, degrees[i], base[i], log_rho[i], envelope, peak,
            log_count,
        )
        fa, ha = below_a[i], head_a[i]
        for j in range(w):
            # L - F_A F_B straight from the series (clipped so that 0 <= L <= 1): no
            # cancellation against F_A F_B, which may be near 1 while L - F_A F_B is tiny
            product = fa * below_b[j]
            excess[j] = _min(_max(ha * head_b[j] * row[j] * v[j], -product), 1.0 - product)
        _add(&total, &carry, weight_a[i] * _dot(weight_b, excess, w))
        for q in range(offsets[i], offsets[i + 1]):
            column = pair_b[q] - ib0
            if 0 <= column < w:
                values_at[q] = fa * below_b[column] + excess[column]
    result[0] = total + carry
    return 0


cdef inline void _add(double* total, double* carry, double value) noexcept nogil:
    """One step of Neumaier's compensated sum: ``(total, carry)`` with ``value`` added."""
    cdef double new = total[0] + value
    if fabs(total[0]) >= fabs(value):
        carry[0] += (total[0] - new) + value
    else:
        carry[0] += (value - new) + total[0]
    total[0] = new


cdef _positives_by_row(const int64_t[::1] pair_a, const int64_t[::1] pair_b, Py_ssize_t rows):
    """The positives' pairs grouped by row, in a stable counting sort: ``(offsets, rows,
    columns)``, row ``ia``'s pairs at ``offsets[ia]:offsets[ia + 1]`` of ``rows``,
    ``columns``."""
    offsets_array = np.zeros(rows + 1, dtype=np.int64)
    out_a_array = np.empty(pair_a.shape[0], dtype=np.int64)
    out_b_array = np.empty(pair_b.shape[0], dtype=np.int64)
    cdef int64_t[::1] offsets = offsets_array, out_a = out_a_array, out_b = out_b_array
    cdef Py_ssize_t i
    for i in range(pair_a.shape[0]):
        offsets[pair_a[i] + 1] += 1
    for i in range(rows):
        offsets[i + 1] += offsets[i]
    place_array = offsets_array[:rows].copy()
    cdef int64_t[::1] place = place_array
    for i in range(pair_a.shape[0]):
        out_a[place[pair_a[i]]], out_b[place[pair_a[i]]] = pair_a[i], pair_b[i]
        place[pair_a[i]] += 1
    return offsets_array, out_a_array, out_b_array


cdef inline double _marginal(
    int64_t start, const double* row, int64_t width, int64_t value
) noexcept nogil:
    """``Pr{N_A <= u}`` at ``|A| = value`` from one rank's window (``width`` values):
    ``row[value - start]`` inside it; 1 before it (``value`` below the window is below ``u``)
    and 0 after it."""
    cdef int64_t t = value - start
    return 1.0 if t < 0 else (row[t] if t < width else 0.0)


cdef double _diagonal_mean(
    const int64_t* run, const int64_t* a_values, const int64_t* b_values, int64_t start,
    const double* below, int64_t width, const int64_t* offsets, const int64_t* pair_a,
    const int64_t* pair_b, Py_ssize_t pairs, const double* values_at,
) noexcept nogil:
    """``mean_i L(a_i, b_i)`` at one rank over the positives grouped by row
    (:func:`_positives_by_row`): ``L = F_B`` where ``a`` is sure, ``F_A`` where ``a`` is open
    and ``b`` sure, the block's value (``values_at``) where both are open, 0 elsewhere (every
    row past the open run). Compensated (Neumaier): ``O(n)`` terms lose ``O(eps)``. One loop
    over the positives of the rows before the open run, one over those in it (a loop per row
    would mostly run once or twice)."""
    cdef int64_t ia0 = run[0], ia1 = run[1], ib0 = run[2], ib1 = run[3], q, ib
    cdef double total = 0.0, carry = 0.0, value
    for q in range(offsets[ia0]):
        _add(&total, &carry, _marginal(start, below, width, b_values[pair_b[q]]))
    for q in range(offsets[ia0], offsets[ia1]):
        ib = pair_b[q]
        if ib < ib0:
            value = _marginal(start, below, width, a_values[pair_a[q]])
        elif ib < ib1:
            value = values_at[q]
        else:
            continue
        _add(&total, &carry, value)
    return (total + carry) / pairs


cdef int _lane(
    int64_t n, const int64_t* u, const int64_t* order, int64_t slot, int64_t stop,
    const int64_t* a_values, Py_ssize_t a_size, const int64_t* b_values, Py_ssize_t b_size,
    const int64_t* first_column, const int64_t* runs, const int64_t* start,
    const double* below, const double* first, int64_t width, const double* weight_a,
    const double* log_weight_a, const double* weight_b, const int64_t* offsets,
    const int64_t* sorted_a, const int64_t* sorted_b, Py_ssize_t pairs, const double* kept,
    const double* inverse, const double* log_count, const double* root, int64_t band_numbers,
    double* total, double* diagonal,
) noexcept nogil:
    """The ranks ``order[slot:stop]`` of :func:`_lancaster_moments` (one lane), their bands in
    turn (:func:`_band_rows_c`); -1 if memory ran out."""
    cdef Lane lane
    memset(&lane, 0, sizeof(Lane))
    cdef double* values_at = <double*>malloc(max(pairs, 1) * sizeof(double))
    cdef int64_t* row_lo = <int64_t*>malloc(max(a_size, 1) * sizeof(int64_t))
    cdef int64_t* row_hi = <int64_t*>malloc(max(a_size, 1) * sizeof(int64_t))
    cdef int64_t end, r0, r1, q, k, ia0, ia1, ib0, ib1, rank_slot
    cdef int64_t* band_offsets
    cdef double* band
    cdef const int64_t* run
    cdef const double* rank_kept
    cdef int status = 0 if values_at != NULL and row_lo != NULL and row_hi != NULL else -1
    while status == 0 and slot < stop:
        end = _band_rows_c(runs, order, slot, stop, band_numbers, row_lo, row_hi, &r0, &r1)
        band_offsets = <int64_t*>_room(&lane.band_offsets, (r1 - r0 + 1) * sizeof(int64_t))
        if band_offsets == NULL:
            status = -1
            break
        band_offsets[0] = 0
        for q in range(r1 - r0):
            band_offsets[q + 1] = band_offsets[q] + max(row_hi[q] - row_lo[q], 0)
        band = <double*>_room(&lane.band, band_offsets[r1 - r0] * sizeof(double))
        if band == NULL:
            status = -1
            break
        if r1 > r0:
            status = _band_correlations_c(
                n, a_values, b_size, b_values, first_column, r0, row_lo, row_hi, band_offsets,
                r1 - r0, band, &lane.correlations,
            )
        for rank_slot in range(slot, end):
            if status:
                break
            k = order[rank_slot]
            run = runs + 4 * k
            ia0, ia1, ib0, ib1 = run[0], run[1], run[2], run[3]
            if ia1 > ia0 and ib1 > ib0:
                rank_kept = kept
                if kept != NULL:
                    rank_kept += k * (n + 1) * n
                status = _rank_block(
                    n, <double>u[k], a_values + ia0, ia1 - ia0, b_values + ib0, ib1 - ib0,
                    start[k],
                    below + k * width, first + k * width, weight_a + ia0, log_weight_a + ia0,
                    weight_b + ib0, band, band_offsets + ia0 - r0, row_lo + ia0 - r0, ib0,
                    inverse, log_count, root, rank_kept,
                    offsets + ia0, sorted_b, values_at, &lane, &total[k],
                )
            diagonal[k] = _diagonal_mean(
                run, a_values, b_values, start[k], below + k * width, width, offsets, sorted_a,
                sorted_b, pairs, values_at,
            )
        slot = end
    free(values_at)
    free(row_lo)
    free(row_hi)
    _release(&lane.tables)
    _release(&lane.block)
    _release(&lane.prefixes)
    _release(&lane.band)
    _release(&lane.band_offsets)
    _release(&lane.correlations)
    return status


def _lancaster_moments(
    int64_t n,
    const int64_t[::1] u,
    const int64_t[::1] order,
    const int64_t[::1] bounds,
    const int64_t[::1] a_values,
    const int64_t[::1] b_values,
    const int64_t[::1] first_column,
    const int64_t[:, ::1] runs,
    const int64_t[::1] start,
    const double[:, ::1] below,
    const double[:, ::1] first,
    const double[::1] weight_a,
    const double[::1] weight_b,
    const int64_t[::1] pair_a,
    const int64_t[::1] pair_b,
    const double[:, :, ::1] kept,
    tuple tables,
    int64_t band_numbers,
):
    """Per rank ``k``, ``sum w_a w_b (L_k(a, b) - F_A F_B)`` over the pairs with both
    marginals open, and ``mean_i L_k(a_i, b_i)`` over the positives' pairs
    ``(pair_a[i], pair_b[i])``. ``runs``: per rank, the ends of the sure and the open runs of
    each grid (:attr:`rocsim.core.joint_thresholds.JointThresholdLaw.runs`): where a marginal
    is not open, ``L`` is the other marginal (one sure) or 0. ``start``, ``below``, ``first``:
    the windows of ``_rank_rows``; ``kept``: ``_kept_values`` per rank, or empty; ``tables``:
    :func:`_series_tables`. The ranks are independent: lanes run side by side (OpenMP, without
    the GIL), lane ``l`` taking the ranks ``order[bounds[l]:bounds[l + 1]]``. ``order`` lists
    the ranks in increasing order, so that a lane's neighbouring blocks share their
    correlations (at most ``band_numbers`` at once, :func:`_band_rows_c`); ``bounds`` give the
    lanes about equal work (``_lane_bounds``). Each rank's sums are the same bits on any
    thread."""
    cdef Py_ssize_t ranks = u.shape[0], lanes = bounds.shape[0] - 1, lane, ia
    cdef const double[::1] inverse = tables[0], log_count = tables[1], root = tables[2]
    if (
        runs.shape[0] != ranks or runs.shape[1] != 4 or start.shape[0] != ranks
        or below.shape[0] != ranks or first.shape[0] != ranks
        or first.shape[1] != below.shape[1] or weight_a.shape[0] != a_values.shape[0]
        or weight_b.shape[0] != b_values.shape[0] or pair_a.shape[0] != pair_b.shape[0]
        or lanes < 0 or (kept.shape[0] and (kept.shape[0] != ranks or kept.shape[1] != n + 1
                                             or kept.shape[2] != n))
        or inverse.shape[0] < n or log_count.shape[0] < n or root.shape[0] < n + 1
    ):
        raise ValueError("the arrays do not fit the ranks and the grids")
    total_array, diagonal_array = np.zeros(ranks), np.zeros(ranks)
    cdef double[::1] total = total_array, diagonal = diagonal_array
    log_weight_array = np.empty(weight_a.shape[0])  # each row is in the blocks of several ranks
    cdef double[::1] log_weight_a = log_weight_array
    for ia in range(weight_a.shape[0]):
        log_weight_a[ia] = log(weight_a[ia])
    offsets_array, sorted_a_array, sorted_b_array = _positives_by_row(
        pair_a, pair_b, a_values.shape[0]
    )
    cdef const int64_t[::1] offsets = offsets_array, sorted_a = sorted_a_array
    cdef const int64_t[::1] sorted_b = sorted_b_array
    status_array = np.zeros(max(lanes, 1), dtype=np.intc)
    cdef int[::1] status = status_array
    if ranks == 0 or lanes == 0:
        return total_array, diagonal_array
    # raw pointers for the lanes (an empty array's pointer is never read)
    cdef const int64_t* u_0 = &u[0]
    cdef const int64_t* order_0 = &order[0]
    cdef const int64_t* bounds_0 = &bounds[0]
    cdef const int64_t* a_0 = &a_values[0]
    cdef const int64_t* b_0 = &b_values[0]
    cdef const int64_t* first_column_0 = &first_column[0]
    cdef const int64_t* runs_0 = &runs[0, 0]
    cdef const int64_t* start_0 = &start[0]
    cdef const double* below_0 = &below[0, 0]
    cdef const double* first_0 = &first[0, 0]
    cdef const double* weight_a_0 = &weight_a[0]
    cdef const double* log_weight_a_0 = &log_weight_a[0]
    cdef const double* weight_b_0 = &weight_b[0]
    cdef const int64_t* offsets_0 = &offsets[0]
    cdef const int64_t* sorted_a_0 = &sorted_a[0]
    cdef const int64_t* sorted_b_0 = &sorted_b[0]
    cdef const double* kept_0 = &kept[0, 0, 0] if kept.shape[0] else NULL
    cdef const double* inverse_0 = &inverse[0]
    cdef const double* log_count_0 = &log_count[0]
    cdef const double* root_0 = &root[0]
    cdef double* total_0 = &total[0]
    cdef double* diagonal_0 = &diagonal[0]
    cdef Py_ssize_t a_size = a_values.shape[0], b_size = b_values.shape[0]
    cdef Py_ssize_t pairs = pair_b.shape[0]
    cdef int64_t width = below.shape[1]
    # one iteration per lane (a static schedule: each thread takes one when there are as many
    # lanes as threads); the lanes' work is balanced by the bounds
    with nogil:
        for lane in prange(lanes, schedule="static"):
            status[lane] = _lane(
                n, u_0, order_0, bounds_0[lane], bounds_0[lane + 1], a_0, a_size, b_0, b_size,
                first_column_0, runs_0, start_0, below_0, first_0, width, weight_a_0,
                log_weight_a_0, weight_b_0, offsets_0, sorted_a_0, sorted_b_0, pairs, kept_0,
                inverse_0, log_count_0, root_0, band_numbers, total_0, diagonal_0,
            )
    if np.any(status_array):
        raise MemoryError()
    return total_array, diagonal_array


def _lancaster_values(
    int64_t n, const int64_t[::1] u, const int64_t[::1] a, const int64_t[::1] b,
    const double[::1] c, const double[::1] first_a, const double[::1] first_b,
    const double[::1] product,
):
    """``rocsim.core.joint_thresholds.lancaster_below`` pair by pair: the series of each pair
    to the degrees its own ``|rho|`` and heads need, by Horner's rule."""
    cdef Py_ssize_t size = u.shape[0], q
    if (
        a.shape[0] != size or b.shape[0] != size or c.shape[0] != size
        or first_a.shape[0] != size or first_b.shape[0] != size or product.shape[0] != size
    ):
        raise ValueError("u, a, b, c, first_a, first_b and product need the same size")
    inverse_array, log_count_array, root_array = _series_tables(n)
    cdef const double[::1] inverse = inverse_array, log_count = log_count_array
    cdef const double[::1] root = root_array
    out_array = np.empty(size)
    cdef double[::1] out = out_array
    cdef double pa, pb, spread, rho, head_a, head_b, base, log_rho, v
    cdef int64_t degrees, m
    cdef Buffer columns = Buffer(NULL, 0), scratch = Buffer(NULL, 0)
    cdef double* column_a
    cdef double* column_b
    for q in range(size):
        pa, pb = <double>a[q] / n, <double>b[q] / n
        spread = sqrt(pa * (1 - pa)) * sqrt(pb * (1 - pb))
        if spread == 0.0:
            out[q] = product[q]
            continue
        rho = _min(_max((c[q] / n - pa * pb) / spread, -1.0), 1.0)
        head_a = n * sqrt(pa * (1 - pa)) * first_a[q]
        head_b = sqrt(pb * (1 - pb)) * first_b[q]
        if head_a == 0.0 or head_b == 0.0:
            out[q] = product[q]
            continue
        _row_base_c(log(head_a), fabs(rho), 0.0, &base, &log_rho)
        degrees = max(_degrees_c(base, log_rho, log(head_b), &log_count[0], n), 1)
        column_a = <double*>_room(&columns, 2 * degrees * sizeof(double))
        if column_a == NULL or _room(&scratch, _prefix_scratch(n, 1)) == NULL:
            _release(&columns)
            _release(&scratch)
            raise MemoryError()
        column_b = column_a + degrees
        _krawtchouk_prefixes_c(
            n, <double>u[q], &pa, &first_a[q], 1, degrees, NULL, column_a, &root[0], scratch.data
        )
        _krawtchouk_prefixes_c(
            n, <double>u[q], &pb, &first_b[q], 1, degrees, &inverse[0], column_b, &root[0],
            scratch.data,
        )
        v = 0.0
        for m in range(degrees - 1, -1, -1):
            v = v * rho + column_a[m] * column_b[m]
        out[q] = _min(_max(product[q] + head_a * head_b * rho * v, 0.0), 1.0)
    _release(&columns)
    _release(&scratch)
    return out_array


def _window_gather(const int64_t[::1] start, const double[:, ::1] rows, const int64_t[::1] a):
    """``out[k, j]``: :func:`_marginal` of ``a_j`` at rank ``k``."""
    if rows.shape[0] != start.shape[0]:
        raise ValueError("rows needs a window per rank")
    out_array = np.empty((start.shape[0], a.shape[0]))
    cdef double[:, ::1] out = out_array
    cdef Py_ssize_t k, j
    for k in range(start.shape[0]):
        for j in range(a.shape[0]):
            out[k, j] = _marginal(start[k], &rows[k, 0], rows.shape[1], a[j])
    return out_array
