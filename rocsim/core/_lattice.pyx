# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled loops of :mod:`rocsim.core.lattice`'s :class:`~rocsim.core.lattice.MixtureLattice`:
the binomial laws it starts from (:func:`binomial_seeds`), the law of the difference of two
multinomial cells (:func:`difference_starts`), and the reading of its slices at a window
(:func:`read_slices`). The laws (rows of the lattice) run side by side (OpenMP); each law's
sums run in one order, the same bits on any number of threads.

A law's outer counts ``o`` (the rows of its mixture) come in blocks of :data:`BLOCK`. A reading
makes each row's binomial (one trial more than the row before: :func:`_binomial_step`) from the
exact first row of its block, and each row's law of the slices (one draw more than the row
after: :func:`_difference_step`) from the last row's, block after block from the last: every
row in a few hundred kB a thread, none read from tables in memory. Every array of a law starts
at the offset the caller passes (``*_start``).
"""

import numpy as np

from cython.parallel cimport prange, threadid
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

#: Rows of a law's mixture a block: each block's first binomial is exact (Boost), the others
#: follow it by a trial more each.
cdef enum:
    BLOCK = 64

BLOCK_ROWS = BLOCK


cdef extern from *:
    """
    /* The OpenMP thread count; 1 where the package is built without OpenMP */
    #ifdef _OPENMP
    #include <omp.h>
    static int rocsim_lattice_threads(void) { return omp_get_max_threads(); }
    #else
    static int rocsim_lattice_threads(void) { return 1; }
    #endif
    """
    int rocsim_lattice_threads() noexcept nogil


def max_threads():
    """The number of threads :func:`read_slices` runs on, each with a lane of its work array:
    OpenMP's ``omp_get_max_threads()``, 1 without OpenMP."""
    return rocsim_lattice_threads()


def lane_size(int64_t bin_width, int64_t slice_width, int64_t points):
    """The values of a lane of :func:`read_slices`'s work array for a law of these widths read
    at ``points`` rows: its binomial rows (two distribution functions, padded), a block of
    slice rows, and each point's slices (:func:`_read_law`)."""
    return 2 * (bin_width + 3) + BLOCK * slice_width + points * (slice_width + 2)


cdef inline double _at(const double* row, int64_t i, int64_t width, double past) noexcept nogil:
    """``row[i]``: 0 before the row, ``past`` after it (1 for a distribution function)."""
    if i < 0:
        return 0.0
    if i >= width:
        return past
    return row[i]


cdef void _binomial_step(
    const double* prev, double* out, int64_t width, int64_t shift, double p, double past
) noexcept nogil:
    """One trial more: ``out[j] = p prev(j + shift - 1) + (1 - p) prev(j + shift)``, the pmf
    (``past = 0``) or the distribution function (``past = 1``) of ``Bin(m + 1, p)`` on a window
    starting ``shift`` values above ``prev``'s (that of ``Bin(m, p)``)."""
    cdef double q = 1.0 - p
    cdef int64_t j
    cdef int64_t start = min(max(1 - shift, 0), width)
    cdef int64_t stop = min(max(width - shift, start), width)
    for j in range(start):
        out[j] = p * _at(prev, j + shift - 1, width, past) + q * _at(prev, j + shift, width, past)
    for j in range(start, stop):  # inside the row: no tests, so that it vectorises
        out[j] = p * prev[j + shift - 1] + q * prev[j + shift]
    for j in range(stop, width):
        out[j] = p * _at(prev, j + shift - 1, width, past) + q * _at(prev, j + shift, width, past)


cdef void _difference_step(
    const double* prev, double* out, int64_t width, double up, double down, double stay
) noexcept nogil:
    """One trial more of the difference ``E - F`` of two multinomial cells (``up``, ``down``
    their probabilities, ``stay`` the rest's): ``out[j] = stay prev[j] + up prev[j - 1] +
    down prev[j + 1]`` on one window (0 outside it: the mass that leaves it is below the cut the
    caller's window allows)."""
    cdef int64_t j
    if width == 1:
        out[0] = stay * prev[0]
        return
    out[0] = stay * prev[0] + down * prev[1]
    for j in range(1, width - 1):
        out[j] = stay * prev[j] + up * prev[j - 1] + down * prev[j + 1]
    out[width - 1] = stay * prev[width - 1] + up * prev[width - 2]


cdef void _binomial_seed(
    int64_t trials, double p, int64_t lo, int64_t width, int64_t run, const double* anchors,
    bint cumulative, double* out,
) noexcept nogil:
    """``out[j] = Pr{Bin(trials, p) = lo + j}``, or its running sum where ``cumulative``: the
    exact value (``anchors``, Boost's) at every ``run``-th ``j``, the ratio of consecutive
    values between (``p`` is 0 or 1 only where the window holds one value)."""
    cdef int64_t j, b
    cdef double odds = p / (1.0 - p) if p < 1.0 else 0.0
    for j in range(1, width):  # the ratios first, apart from the products: they vectorise
        b = lo + j - 1
        out[j] = <double> max(trials - b, 0) / <double> (b + 1) * odds
    for j in range(width):
        out[j] = anchors[j // run] if j % run == 0 else out[j - 1] * out[j]
    if cumulative:
        for j in range(1, width):
            out[j] += out[j - 1]


def binomial_seeds(
    const int64_t[:, ::1] sizes,
    const double[::1] p,
    const double[::1] anchors,
    int64_t run,
    bint cumulative,
    double[::1] out,
):
    """:func:`_binomial_seed` of each row ``k``: ``sizes[k]`` its trials, ``lo``, width, and
    where its anchors and its values (in ``out``) start."""
    cdef Py_ssize_t k
    with nogil:
        for k in prange(sizes.shape[0], schedule="static"):
            _binomial_seed(
                sizes[k, 0], p[k], sizes[k, 1], sizes[k, 2], run, &anchors[sizes[k, 3]],
                cumulative, &out[sizes[k, 4]],
            )


cdef int _difference_start(
    int64_t rows, int64_t width, const int64_t* lo, int64_t first, double p,
    const double* seed, const double* weight, int64_t out_first, int64_t out_width, double* out,
) noexcept nogil:
    """``out[d - out_first] = sum_t weight[t] Pr{Bin(first + t, p) = (first + t + d) / 2}``
    over the rows ``t`` (the law of ``2B - T`` mixed over ``T``): each row's binomial from the
    one before (:func:`_binomial_step`), the first of each block of :data:`BLOCK` rows from
    ``seed`` (one after another); -1 without memory."""
    cdef double* row = <double*> malloc(2 * width * sizeof(double))
    cdef double* spare
    cdef double w
    cdef int64_t t, j, at
    if row == NULL:
        return -1
    spare = row + width
    for t in range(rows):
        if t % BLOCK == 0:
            memcpy(row, seed + (t // BLOCK) * width, width * sizeof(double))
        else:
            _binomial_step(row, spare, width, lo[t] - lo[t - 1], p, 0.0)
            row, spare = spare, row
        w = weight[t]
        for j in range(width):
            at = 2 * (lo[t] + j) - (first + t) - out_first
            if 0 <= at < out_width:
                out[at] += w * row[j]
    free(row if row < spare else spare)
    return 0


def difference_starts(
    const int64_t[:, ::1] sizes,
    const double[::1] p,
    const int64_t[::1] lo,
    const double[::1] seed,
    const double[::1] weight,
    double[:, ::1] out,
):
    """Row ``k`` of ``out``: :func:`_difference_start` of ``sizes[k]``'s binomial rows (their
    count, width and first trial count; where their ``lo`` and weights, and their seeds,
    start) mixed by ``weight``, at the values ``sizes[k, 5] + j``, ``j < sizes[k, 6]``."""
    status_array = np.zeros(sizes.shape[0], dtype=np.intc)
    cdef int[::1] status = status_array
    cdef Py_ssize_t k
    with nogil:
        for k in prange(sizes.shape[0], schedule="dynamic"):
            status[k] = _difference_start(
                sizes[k, 0], sizes[k, 1], &lo[sizes[k, 3]], sizes[k, 2], p[k],
                &seed[sizes[k, 4]], &weight[sizes[k, 3]], sizes[k, 5], sizes[k, 6], &out[k, 0],
            )
    if np.any(status_array):
        raise MemoryError()


cdef struct Law:
    int64_t first  # the first outer count
    int64_t rows  # outer counts
    int64_t bin_width
    int64_t slice_width
    int64_t below  # no mass at or below this Z
    double theta  # Pr{B = 1} a draw of the outer cells
    double up  # the slice's cells' probabilities, and the rest's, of the other draws
    double down
    double stay
    const double* weight  # Pr{O = o}, a row each
    const int64_t* lo  # the first B of each row's binomial window
    const double* bins  # the distribution function of B, the first row of each block
    const double* start  # V's law given the last o


cdef Law _law(
    Py_ssize_t k, const int64_t[:, ::1] sizes, const double[:, ::1] shares,
    const int64_t[:, ::1] starts, const double* weight, const int64_t* lo, const double* bins,
    const double* start,
) noexcept nogil:
    """Law ``k`` from the columns of ``sizes`` (first, rows, bin width, slice width, below),
    ``shares`` (theta, up, down, stay) and ``starts`` (of weight and lo, bins, start)."""
    cdef Law law
    law.first, law.rows = sizes[k, 0], sizes[k, 1]
    law.bin_width, law.slice_width, law.below = sizes[k, 2], sizes[k, 3], sizes[k, 4]
    law.theta, law.up, law.down, law.stay = shares[k, 0], shares[k, 1], shares[k, 2], shares[k, 3]
    law.weight, law.lo = weight + starts[k, 0], lo + starts[k, 0]
    law.bins, law.start = bins + starts[k, 1], start + starts[k, 2]
    return law


cdef int64_t _first(
    const int64_t* z, int64_t a, int64_t b, int64_t bound, bint rising
) noexcept nogil:
    """The first ``s`` in ``[a, b)`` with ``z[s] >= bound`` (``z`` rising) or ``z[s] <= bound``
    (falling); ``b`` if none."""
    cdef int64_t middle
    while a < b:
        middle = (a + b) // 2
        if (z[middle] >= bound) if rising else (z[middle] <= bound):
            b = middle
        else:
            a = middle + 1
    return a


cdef void _add_row(
    Law* law, int64_t o, const double* cdf, const double* slice_row, const int64_t* z,
    int64_t first, int64_t last, bint rising, double* out_cdf, double* out_pmf,
    double* out_next,
) noexcept nogil:
    """Row ``o``'s terms of the slices ``first .. last``: ``Pr{O = o, V = v}`` times
    ``Pr{Z <= z | o}``, ``Pr{Z = z | o}`` and ``Pr{Z = z + 1 | o}``, ``Z = 2B - o``, where
    ``z`` (monotone in the slice) lies within the binomial's window; where it lies above it,
    the first only, whole. ``cdf``: the binomial's distribution function on its window, two 0
    before and a 1 after, so that a look-up at the window's edges needs no test; a point's mass
    is the difference of two of its values (within the rounding of the sums it is added to)."""
    cdef int64_t s, t, j, odd, trials = law.first + o, lo = law.lo[o], bw = law.bin_width
    # the first z that reaches into the window (at z + 1), and the first past it
    cdef int64_t reach_z = 2 * lo - 2 - trials, past_z = 2 * (lo + bw) - trials
    cdef int64_t inside = _first(z, first, last + 1, reach_z if rising else past_z - 1, rising)
    cdef int64_t past = _first(z, inside, last + 1, past_z if rising else reach_z - 1, rising)
    cdef double weight = law.weight[o], w, mass
    if rising:  # past .. last: all of Z's mass at or below z
        for s in range(past, last + 1):
            out_cdf[s] += weight * slice_row[s]
    else:
        for s in range(first, inside):
            out_cdf[s] += weight * slice_row[s]
    for s in range(inside, past):
        t = z[s] + trials  # 2B = z + trials: B = t / 2 rounded down, at z + 1 if t is odd
        odd = t & 1
        j = (t - odd) // 2 - lo
        w = weight * slice_row[s]
        out_cdf[s] += w * cdf[j]
        mass = w * (cdf[j + odd] - cdf[j + odd - 1])  # no branch: odd is 0 or 1 at random
        out_pmf[s] += mass * (1 - odd)
        out_next[s] += mass * odd


cdef void _read_law(
    Law* law, int64_t points, const int64_t* member, const double* x, int64_t slices,
    double* work, double* out_cdf, double* out_pmf, double* out_next,
) noexcept nogil:
    """For each slice ``s`` of each of the ``points`` rows ``member[i]`` of ``x`` (and of the
    outputs): ``sum_o Pr{O = o, V = v_s} Pr{Z <= x[s] | o}``, and the same with ``Z = x[s]``
    and ``Z = x[s] + 1``, block after block of rows (:data:`BLOCK`) from the last: a block's
    laws of ``V`` one draw more each from the one above it (from ``start`` at the last row),
    its binomials one trial more each from its first, made once for all the points, in
    ``work`` (:func:`lane_size`). A slice whose ``x`` is at most ``below`` has none of its mass
    there."""
    cdef int64_t bw = law.bin_width, sw = law.slice_width, s, o, i, block, top, base, at
    cdef double* cdf = work + 2  # this row and the next, each padded (:func:`_add_row`)
    cdef double* spare = work + bw + 5
    cdef double* rows = work + 2 * (bw + 3)
    cdef int64_t* z = <int64_t*> (rows + BLOCK * sw)
    cdef int64_t* first = z + points * sw
    cdef int64_t* last = first + points
    for i in range(points):
        at = member[i] * slices
        first[i], last[i] = sw, -1
        for s in range(slices):
            out_cdf[at + s] = out_pmf[at + s] = out_next[at + s] = 0.0
        for s in range(sw):
            if x[at + s] > law.below:
                first[i], last[i] = min(first[i], s), max(last[i], s)
                z[i * sw + s] = <int64_t> x[at + s]
    for s in range(2):
        cdf[s * (bw + 3) - 2] = cdf[s * (bw + 3) - 1] = 0.0
        cdf[s * (bw + 3) + bw] = 1.0
    for block in range((law.rows - 1) // BLOCK, -1, -1):
        base = block * BLOCK
        top = min(BLOCK, law.rows - base) - 1
        if base + top == law.rows - 1:
            memcpy(rows + top * sw, law.start, sw * sizeof(double))
        else:  # a draw more than the first row of the block above (still in rows[0])
            _difference_step(rows, rows + top * sw, sw, law.up, law.down, law.stay)
        for o in range(top - 1, -1, -1):
            _difference_step(rows + (o + 1) * sw, rows + o * sw, sw, law.up, law.down, law.stay)
        memcpy(cdf, law.bins + block * bw, bw * sizeof(double))
        for o in range(top + 1):
            if o > 0:
                _binomial_step(
                    cdf, spare, bw, law.lo[base + o] - law.lo[base + o - 1], law.theta, 1.0
                )
                cdf, spare = spare, cdf
            for i in range(points):
                if last[i] >= first[i]:
                    at = member[i] * slices
                    _add_row(
                        law, base + o, cdf, rows + o * sw, z + i * sw, first[i], last[i],
                        z[i * sw + last[i]] >= z[i * sw + first[i]],
                        out_cdf + at, out_pmf + at, out_next + at,
                    )


def read_slices(
    const int64_t[::1] laws,
    const int64_t[::1] group,
    const int64_t[::1] member,
    const double[:, ::1] x,
    double[:, ::1] lanes,
    const int64_t[:, ::1] sizes,
    const double[:, ::1] shares,
    const int64_t[:, ::1] starts,
    const double[::1] weight,
    const int64_t[::1] lo,
    const double[::1] bins,
    const double[::1] start,
    double[:, ::1] out_cdf,
    double[:, ::1] out_pmf,
    double[:, ::1] out_next,
):
    """:func:`_read_law` of each law ``laws[g]`` (:func:`_law`) at the rows
    ``member[group[g] .. group[g + 1]]`` of ``x`` (whole numbers, ``below`` at the least), into
    the same rows of the outputs; ``lanes``: a row of work values for each thread
    (:func:`max_threads`), :func:`lane_size` at the least."""
    cdef Py_ssize_t g
    cdef Law law
    if x.shape[0] == 0:
        return
    if lanes.shape[0] < rocsim_lattice_threads():
        raise ValueError("read_slices needs a lane of work values for each thread")
    with nogil:
        for g in prange(laws.shape[0], schedule="dynamic"):
            law = _law(laws[g], sizes, shares, starts, &weight[0], &lo[0], &bins[0], &start[0])
            _read_law(
                &law, group[g + 1] - group[g], &member[group[g]], &x[0, 0], x.shape[1],
                &lanes[threadid(), 0], &out_cdf[0, 0], &out_pmf[0, 0], &out_next[0, 0],
            )
