# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled reading of a metric's exact law at an operating point
(:mod:`rocsim.core.operating_point`), without making its cells.

The law is a mixture of blocks (one under the stratified bootstrap; one a class count under the
full bootstrap), each the product of two count windows ``x`` and ``y`` with their
probabilities. Every metric is read as a function ``m(x, y)`` nondecreasing in ``x`` and
nonincreasing in ``y`` (NPV and LR- on the counts that make them so, the false negatives and
the true negatives), computed as a composition of correctly rounded monotone operations, so
that its floating-point values are monotone too. The cells at most ``v`` then fill, in each
column ``y``, the rows below a limit that only rises from one column to the next: the
distribution function is one walk along that staircase per block (``O(nx + ny)``, not
``O(nx ny)``), and a quantile is a bracket on the value shrunk by such walks until few cells
lie inside it, among which the point is selected. A metric undefined on a cell is not finite
there; the undefined cells of a column are its first rows, or all of them.

Under the full bootstrap a count over its own binomial size (PPV, NPV, sensitivity,
specificity, accuracy) is read faster still (:class:`RatioMixture`): its limit moves by at
most one count from one size to the next, along which the binomials' distribution functions
step in ``O(1)``, so a walk is ``O(blocks)``.
"""

import numpy as np

from libc.math cimport isfinite
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc, qsort

#: The metric's formula (``Grid.kind``): ``x / sx``; ``x / (x + y)`` (as ``1 / (1 + y / x)``,
#: monotone in floating point); Bayes' rule at a prevalence on the rates ``x / sx`` and
#: ``y / sy``; the ratio of the rates; their difference; the share of correct decisions; the
#: share of correct decisions at a prevalence (``prevalence x / sx + (1 - prevalence)
#: (1 - y / sy)``).
cdef enum:
    RATIO = 0
    PPV = 1
    PREDICTIVE = 2
    LR = 3
    YOUDEN = 4
    ACCURACY = 5
    WEIGHTED = 6

KINDS = {
    "ratio": RATIO,
    "ppv": PPV,
    "predictive": PREDICTIVE,
    "lr": LR,
    "youden": YOUDEN,
    "accuracy": ACCURACY,
    "weighted": WEIGHTED,
}

#: A bracket holding at most this many cells is read whole.
cdef enum:
    FEW = 256

#: A quantile's running sum reaches its level this close below it (relative to the defined
#: mass): the sums of a block's staircase and of the sorted cells round differently, and a
#: level the distribution function reaches exactly (a median of a symmetric law) must not
#: fall to the next point on a rounding.
cdef double SLACK = 1e-12


cdef inline double value_at(
    int kind, double x, double y, double sx, double sy, double prevalence
) noexcept nogil:
    """The metric at counts ``x``, ``y`` of a block of sizes ``sx``, ``sy`` (not finite where
    undefined); :func:`rocsim.core.operating_point.metric_values` computes the same bits."""
    if kind == RATIO:
        return x / sx
    if kind == PPV:
        return 1.0 / (1.0 + y / x)
    if kind == PREDICTIVE:
        return 1.0 / (1.0 + (y / sy) * (1.0 - prevalence) / ((x / sx) * prevalence))
    if kind == LR:
        return (x / sx) / (y / sy)
    if kind == YOUDEN:
        return x / sx - y / sy
    if kind == ACCURACY:
        return (x + (sy - y)) / (sx + sy)
    return prevalence * (x / sx) + (1.0 - prevalence) * (1.0 - y / sy)


def values(int kind, x, y, sx, sy, double prevalence):
    """:func:`value_at` on arrays ``x``, ``y``, ``sx``, ``sy`` broadcast together (the data's
    value; an enumeration's resamples)."""
    shape = np.broadcast_shapes(np.shape(x), np.shape(y), np.shape(sx), np.shape(sy))
    cdef const double[::1] xs = _flat(x, shape), ys = _flat(y, shape)
    cdef const double[::1] sxs = _flat(sx, shape), sys = _flat(sy, shape)
    out = np.empty(xs.shape[0])
    cdef double[::1] o = out
    cdef Py_ssize_t i
    for i in range(xs.shape[0]):
        o[i] = value_at(kind, xs[i], ys[i], sxs[i], sys[i], prevalence)
    return out.reshape(shape)


def _flat(a, shape):
    return np.array(np.broadcast_to(np.asarray(a, dtype=float), shape)).ravel()


def cut_tails(
    const int64_t[::1] start, const int64_t[::1] offsets, const double[::1] pmf, double cut
):
    """Each block's window (values from ``start[k]``, probabilities
    ``pmf[offsets[k]:offsets[k + 1]]``) without the values of either tail holding at most
    ``cut`` of its mass: ``(start, offsets, pmf)`` of the windows kept (never empty)."""
    cdef int64_t blocks = start.shape[0], k, i, j, a, b, n = 0
    cdef double run
    kept_start = np.empty(blocks, dtype=np.int64)
    kept_offsets = np.empty(blocks + 1, dtype=np.int64)
    kept = np.empty(pmf.shape[0])
    cdef int64_t[::1] ks = kept_start, ko = kept_offsets
    cdef double[::1] out = kept
    with nogil:
        for k in range(blocks):
            a, b = offsets[k], offsets[k + 1]
            i, run = a, 0.0
            while i < b - 1:
                run = run + pmf[i]
                if run > cut:
                    break
                i += 1
            j, run = b - 1, 0.0
            while j > i:
                run = run + pmf[j]
                if run > cut:
                    break
                j -= 1
            ks[k], ko[k] = start[k] + i - a, n
            for a in range(i, j + 1):
                out[n] = pmf[a]
                n += 1
        ko[blocks] = n
    return kept_start, kept_offsets, kept[:n]


cdef struct Cell:
    double value
    double weight


cdef int _by_value(const void* a, const void* b) noexcept nogil:
    cdef double u = (<const Cell*>a).value
    cdef double v = (<const Cell*>b).value
    return (u > v) - (u < v)


cdef class Law:
    """A metric's exact law read without making its cells: the distribution function
    (:meth:`_below`, a walk) and the cells between two values (:meth:`_between`) are a kind's
    own; a quantile is searched on them alike for every kind (:meth:`quantile`)."""

    # the mass of the defined cells, of all cells (summed alike: equal where all are defined)
    cdef readonly double defined, total
    cdef readonly int64_t cells
    # the values one walk (one call of ``_below``) reads
    cdef readonly int64_t walk

    cdef double _below(self, double v, int64_t* count) noexcept nogil:
        """The mass of the defined cells at most ``v`` (their number in ``count``)."""
        count[0] = 0
        return 0.0

    cdef int64_t _between(self, double lo_v, double hi_v, Cell* out) noexcept nogil:
        """The defined cells in ``(lo_v, hi_v]`` with their probabilities, into ``out``."""
        return 0

    def cdf(self, double v):
        """``(mass, number)`` of the defined cells at most ``v``."""
        cdef int64_t n
        cdef double mass = self._below(v, &n)
        return mass, n

    def between(self, double lo_v, double hi_v):
        """``(values, probabilities)`` of the defined cells in ``(lo_v, hi_v]``, sorted."""
        cdef int64_t below_lo, below_hi, n, i
        self._below(lo_v, &below_lo)
        self._below(hi_v, &below_hi)
        n = max(below_hi - below_lo, 0)
        cdef Cell* cells = <Cell*>malloc(max(n, 1) * sizeof(Cell))
        if cells == NULL:
            raise MemoryError()
        values, probs = np.empty(n), np.empty(n)
        cdef double[::1] v = values, p = probs
        try:
            n = self._between(lo_v, hi_v, cells)
            qsort(cells, n, sizeof(Cell), _by_value)
            for i in range(n):
                v[i], p[i] = cells[i].value, cells[i].weight
        finally:
            free(cells)
        return values, probs

    def quantile(self, double p, double guess, double step):
        """The smallest support value whose distribution function (conditional on the metric
        being defined) reaches ``p``: a bracket about ``guess`` (``step`` on either side,
        doubled outwards until it holds the level), narrowed about secant points
        (:meth:`_bracket`); among the cells inside, the one where their running sum in order
        of value reaches the level (:func:`_running_point`)."""
        if self.cells == 0:
            return float("nan")
        cdef double target = p * self.defined - SLACK * self.defined
        cdef double lo, hi, found
        cdef double f_lo
        cdef int64_t c_lo, c_hi, n
        cdef Cell* cells
        with nogil:
            self._bracket(target, guess, max(step, 1e-300), &lo, &hi, &f_lo, &c_lo, &c_hi)
        cells = <Cell*>malloc(max(c_hi - c_lo, 1) * sizeof(Cell))
        if cells == NULL:
            raise MemoryError()
        with nogil:
            n = self._between(lo, hi, cells)
            found = _running_point(cells, n, f_lo, target, hi)
        free(cells)
        return found

    cdef void _bracket(
        self, double target, double guess, double step, double* lo_out, double* hi_out,
        double* f_lo_out, int64_t* c_lo_out, int64_t* c_hi_out,
    ) noexcept nogil:
        """A bracket ``(lo, hi]`` of the quantile holding at most :data:`FEW` cells, or a
        quarter of a walk's length (selecting among them then costs less than another
        walk), or as few as the doubles between two support points allow."""
        cdef double lo = guess - step, hi = guess + step, mid, half, a, b, f_lo, f_hi, f_a, f_b
        cdef int64_t c_lo, c_hi, c_a, c_b
        f_lo = self._below(lo, &c_lo)
        f_hi = self._below(hi, &c_hi)
        while f_lo >= target and c_lo > 0:  # the level lies at or below lo
            hi, f_hi, c_hi = lo, f_lo, c_lo
            step *= 2.0
            lo = hi - step
            f_lo = self._below(lo, &c_lo)
        while f_hi < target and c_hi < self.cells:  # the level lies above hi
            lo, f_lo, c_lo = hi, f_hi, c_hi
            step *= 2.0
            hi = lo + step
            f_hi = self._below(hi, &c_hi)
        while c_hi - c_lo > max(<int64_t>FEW, self.walk // 4):
            # a window about the secant's point (the distribution function is nearly straight
            # across a bracket of many cells): a 64th of the bracket wide, it holds the level
            # unless the secant is that far off, and then it still bounds one side
            if f_hi > f_lo:
                mid = lo + (hi - lo) * (target - f_lo) / (f_hi - f_lo)
            else:
                mid = lo + 0.5 * (hi - lo)
            half = (hi - lo) / 128.0
            a, b = max(mid - half, lo), min(mid + half, hi)
            if not (lo < a or b < hi) or not a < b:
                break
            if lo < a:
                f_a = self._below(a, &c_a)
                if f_a >= target or c_a == self.cells:
                    hi, f_hi, c_hi = a, f_a, c_a
                    continue
                lo, f_lo, c_lo = a, f_a, c_a
            if b < hi:
                f_b = self._below(b, &c_b)
                if f_b >= target or c_b == self.cells:
                    hi, f_hi, c_hi = b, f_b, c_b
                else:
                    lo, f_lo, c_lo = b, f_b, c_b
        lo_out[0], hi_out[0], f_lo_out[0], c_lo_out[0], c_hi_out[0] = lo, hi, f_lo, c_lo, c_hi


cdef class Grid(Law):
    """A metric's law on blocks of two count windows: block ``k`` has weight ``weight[k]``,
    sizes ``sx[k]``, ``sy[k]``, ``x`` values ``x0[k], x0[k] + 1, ...`` with probabilities
    ``px[xoff[k]:xoff[k + 1]]``, and ``y`` likewise."""

    cdef readonly int kind
    cdef readonly double prevalence
    cdef readonly int64_t blocks
    cdef const double[::1] weight, sx, sy, px, py
    cdef const int64_t[::1] x0, y0, xoff, yoff
    # each block's cumulative x probabilities (a leading 0 a block: index xoff[k] + k + i)
    cdef double[::1] cpx
    # the first defined row of each column (nx where none is)
    cdef int64_t[::1] first

    def __init__(self, int kind, double prevalence, weight, sx, sy, x0, xoff, px, y0, yoff, py):
        self.kind, self.prevalence = kind, prevalence
        self.weight, self.sx, self.sy = weight, sx, sy
        self.x0, self.xoff, self.px = x0, xoff, px
        self.y0, self.yoff, self.py = y0, yoff, py
        self.blocks = self.weight.shape[0]
        self.cpx = np.empty(self.px.shape[0] + self.blocks)
        self.first = np.empty(self.py.shape[0], dtype=np.int64)
        self._prepare()

    cdef void _prepare(self) noexcept nogil:
        cdef int64_t k, i, j, nx, ny, base
        cdef double run, column, mass = 0.0, total = 0.0
        cdef int64_t count = 0
        for k in range(self.blocks):
            nx = self.xoff[k + 1] - self.xoff[k]
            ny = self.yoff[k + 1] - self.yoff[k]
            base = self.xoff[k] + k
            run = 0.0
            self.cpx[base] = 0.0
            for i in range(nx):
                run = run + self.px[self.xoff[k] + i]
                self.cpx[base + i + 1] = run
            for j in range(ny):
                i = 0
                while i < nx and not isfinite(self._value(k, i, j)):
                    i += 1
                self.first[self.yoff[k] + j] = i
                column = self.weight[k] * self.py[self.yoff[k] + j]
                mass += column * (self.cpx[base + nx] - self.cpx[base + i])
                total += column * (self.cpx[base + nx] - self.cpx[base])
                count += nx - i
        self.defined, self.total, self.cells = mass, total, count
        self.walk = self.px.shape[0] + self.py.shape[0]

    cdef inline double _value(self, int64_t k, int64_t i, int64_t j) noexcept nogil:
        return value_at(
            self.kind,
            <double>(self.x0[k] + i),
            <double>(self.y0[k] + j),
            self.sx[k],
            self.sy[k],
            self.prevalence,
        )

    cdef inline int64_t _limit(
        self, int64_t k, int64_t j, int64_t lo, int64_t c, int64_t last, int64_t nx, double v
    ) noexcept nogil:
        """The end of the rows at most ``v`` in column ``j`` of block ``k`` (its first defined
        row ``lo``), from the end ``c`` in the column before (whose first defined row was
        ``last``): the rows below ``c`` are at most ``v`` here too (the metric falls with
        ``y``), unless that column had none (its first defined row may lie above this
        column's)."""
        c = lo if c <= last else max(c, lo)
        while c < nx and self._value(k, c, j) <= v:
            c += 1
        return c

    cdef double _below(self, double v, int64_t* count) noexcept nogil:
        """The mass of the defined cells at most ``v`` (their number in ``count``): a walk
        along each block's staircase."""
        cdef int64_t k, j, nx, ny, lo, last, c, base, n = 0
        cdef double mass = 0.0, block
        for k in range(self.blocks):
            nx = self.xoff[k + 1] - self.xoff[k]
            ny = self.yoff[k + 1] - self.yoff[k]
            base = self.xoff[k] + k
            c, last, block = 0, 0, 0.0
            for j in range(ny):
                lo = self.first[self.yoff[k] + j]
                if lo == nx:
                    continue
                c = self._limit(k, j, lo, c, last, nx, v)
                block += self.py[self.yoff[k] + j] * (self.cpx[base + c] - self.cpx[base + lo])
                n += c - lo
                last = lo
            mass += self.weight[k] * block
        count[0] = n
        return mass

    cdef int64_t _between(self, double lo_v, double hi_v, Cell* out) noexcept nogil:
        cdef int64_t k, j, i, nx, ny, lo, a, b, last, n = 0
        cdef double w
        for k in range(self.blocks):
            nx = self.xoff[k + 1] - self.xoff[k]
            ny = self.yoff[k + 1] - self.yoff[k]
            a, b, last = 0, 0, 0
            for j in range(ny):
                lo = self.first[self.yoff[k] + j]
                if lo == nx:
                    continue
                a = self._limit(k, j, lo, a, last, nx, lo_v)
                b = self._limit(k, j, lo, b, last, nx, hi_v)
                last = lo
                w = self.weight[k] * self.py[self.yoff[k] + j]
                for i in range(a, b):
                    out[n].value = self._value(k, i, j)
                    out[n].weight = w * self.px[self.xoff[k] + i]
                    n += 1
        return n

    def moments(self):
        """``(mean, variance)`` of the law conditional on the metric being defined: each
        block's from its windows' moments where the metric is a sum or a product of a
        function of ``x`` and one of ``y`` (Youden's J, accuracy, the likelihood ratios), else
        from its cells (about a value near the block's mean, against cancellation); the
        blocks' then combined."""
        cdef int64_t k
        cdef double mass = 0.0, first = 0.0, second = 0.0
        cdef double* stats = <double*>malloc(3 * max(self.blocks, 1) * sizeof(double))
        if stats == NULL:
            raise MemoryError()
        try:
            for k in range(self.blocks):
                if self.kind == YOUDEN or self.kind == ACCURACY or self.kind == LR:
                    self._separable(k, stats + 3 * k)
                else:
                    self._cellwise(k, stats + 3 * k)
                stats[3 * k] *= self.weight[k]
                if stats[3 * k] > 0.0:
                    mass += stats[3 * k]
                    first += stats[3 * k] * stats[3 * k + 1]
            if mass <= 0.0:
                return float("nan"), float("nan")
            first /= mass
            for k in range(self.blocks):
                if stats[3 * k] > 0.0:
                    second += stats[3 * k] * (
                        stats[3 * k + 2] + (stats[3 * k + 1] - first) ** 2
                    )
        finally:
            free(stats)
        return first, max(second / mass, 0.0)

    cdef void _cellwise(self, int64_t k, double* out) noexcept nogil:
        """``(mass, mean, variance)`` of block ``k``'s defined cells, summed about the value
        at its windows' modes."""
        cdef int64_t i, j, nx, ny, mode_x = 0, mode_y = 0
        cdef double centre, d, w, s0 = 0.0, s1 = 0.0, s2 = 0.0, u
        nx = self.xoff[k + 1] - self.xoff[k]
        ny = self.yoff[k + 1] - self.yoff[k]
        for i in range(nx):
            if self.px[self.xoff[k] + i] > self.px[self.xoff[k] + mode_x]:
                mode_x = i
        for j in range(ny):
            if self.py[self.yoff[k] + j] > self.py[self.yoff[k] + mode_y]:
                mode_y = j
        centre = self._value(k, mode_x, mode_y)
        if not isfinite(centre):
            centre = 0.0
        for j in range(ny):
            w = self.py[self.yoff[k] + j]
            for i in range(self.first[self.yoff[k] + j], nx):
                u = self._value(k, i, j)
                if isfinite(u):
                    d = u - centre
                    s0 += w * self.px[self.xoff[k] + i]
                    s1 += w * self.px[self.xoff[k] + i] * d
                    s2 += w * self.px[self.xoff[k] + i] * d * d
        out[0] = s0
        if s0 > 0.0:
            out[1] = centre + s1 / s0
            out[2] = max(s2 / s0 - (s1 / s0) * (s1 / s0), 0.0)

    cdef void _separable(self, int64_t k, double* out) noexcept nogil:
        """``(mass, mean, variance)`` of block ``k`` where the metric is ``a(x) + b(y)``
        (Youden's J, accuracy) or ``a(x) b(y)`` (a likelihood ratio), ``x`` and ``y``
        independent: from the moments of ``a`` and of ``b`` on their windows."""
        cdef double a[3]
        cdef double b[3]
        self._factor(k, 0, a)
        self._factor(k, 1, b)
        out[0] = a[0] * b[0]
        if out[0] <= 0.0:
            return
        if self.kind == LR:
            out[1] = a[1] * b[1]
            out[2] = a[2] * b[2] + a[2] * b[1] * b[1] + b[2] * a[1] * a[1]
        else:
            out[1] = a[1] + b[1]
            out[2] = a[2] + b[2]

    cdef void _factor(self, int64_t k, int side, double* out) noexcept nogil:
        """``(mass, mean, variance)`` of ``a(x)`` (side 0) or ``b(y)`` (side 1) where finite:
        two passes over the window (the mean, then the deviations from it)."""
        cdef int64_t i, n, off
        cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, f, w, mean
        if side == 0:
            n, off = self.xoff[k + 1] - self.xoff[k], self.xoff[k]
        else:
            n, off = self.yoff[k + 1] - self.yoff[k], self.yoff[k]
        for i in range(n):
            f = self._factor_at(k, side, i)
            if isfinite(f):
                w = self.px[off + i] if side == 0 else self.py[off + i]
                s0 += w
                s1 += w * f
        out[0] = s0
        if s0 <= 0.0:
            return
        mean = s1 / s0
        for i in range(n):
            f = self._factor_at(k, side, i)
            if isfinite(f):
                w = self.px[off + i] if side == 0 else self.py[off + i]
                s2 += w * (f - mean) * (f - mean)
        out[1], out[2] = mean, s2 / s0

    cdef inline double _factor_at(self, int64_t k, int side, int64_t i) noexcept nogil:
        cdef double sx = self.sx[k], sy = self.sy[k]
        if side == 0:
            if self.kind == ACCURACY:
                return (self.x0[k] + i) / (sx + sy)
            return (self.x0[k] + i) / sx
        if self.kind == ACCURACY:
            return (sy - (self.y0[k] + i)) / (sx + sy)
        if self.kind == YOUDEN:
            return -(self.y0[k] + i) / sy
        return sy / (self.y0[k] + i)

cdef class RatioMixture(Law):
    """The law of ``H / M``, a count over its binomial size under the full bootstrap (PPV, NPV,
    sensitivity, specificity, accuracy): ``M`` on blocks ``m0, m0 + 1, ...`` with weights
    ``weight[b]`` (``M = 0`` undefined), ``H | M ~ Bin(M, share)``.

    Its cells are not stored. Along the limit ``k(M)``, the largest count with
    ``k / M <= v``, which rises by at most one from ``M`` to ``M + 1``, the binomial's
    distribution function and pmf step in ``O(1)`` (``F_{M+1}(k) = F_M(k) - share f_M(k)``,
    ``f_{M+1}(k) = f_M(k) (1 - share) (M + 1) / (M + 1 - k)``, then the ratio of
    consecutive pmf values up the count), from Boost's window at the first block (``anchor``
    on values ``a0, a0 + 1, ...``): a walk is ``O(blocks)``, not ``O(cells)``. Far from the
    centre the path only moves further out (its distance in standard deviations grows as
    ``sqrt(M)``), so a pmf that underflows there stays negligible. The cells read (between two
    values, and counted) are each block's window ``lo[b] .. hi[b]``, which holds all but a
    negligible share of its binomial; their pmf steps out of the block's mode, whose pmf
    steps along the modes from block to block."""

    cdef readonly double share
    cdef readonly int64_t m0, blocks
    cdef const double[::1] weight, anchor
    cdef const int64_t[::1] lo, hi
    # the first block with M >= 1, the anchor's first value and its cumulative sums
    cdef int64_t start, a0
    cdef double[::1] canchor
    # a law of one value (share 0 or 1): H / M = share on every block
    cdef bint point

    def __init__(self, double share, int64_t m0, weight, lo, hi, int64_t a0, anchor):
        cdef int64_t b, i
        cdef double run = 0.0, mass = 0.0, total = 0.0
        self.share, self.m0, self.weight, self.lo, self.hi = share, m0, weight, lo, hi
        self.a0, self.anchor = a0, anchor
        self.blocks = self.weight.shape[0]
        self.point = not 0.0 < share < 1.0
        self.start = max(1 - m0, 0)
        self.canchor = np.empty(self.anchor.shape[0] + 1)
        self.canchor[0] = 0.0
        for i in range(self.anchor.shape[0]):
            run = run + self.anchor[i]
            self.canchor[i + 1] = run
        self.cells = 0
        for b in range(self.blocks):
            total += self.weight[b]
            if b >= self.start:
                mass += self.weight[b]
                self.cells += self.hi[b] - self.lo[b] + 1
        self.defined, self.total, self.walk = mass, total, self.blocks

    cdef inline int64_t _limit(self, double v, int64_t m, int64_t k) noexcept nogil:
        """The largest count ``k`` in ``-1 .. m`` with ``k / m <= v``, searched from ``k``."""
        if not v >= 0.0:
            return -1
        if v >= 1.0:
            return m
        k = min(max(k, 0), m - 1)
        while k + 1 < m and (k + 1) / <double>m <= v:
            k += 1
        while k > 0 and k / <double>m > v:
            k -= 1
        return k

    cdef inline int64_t _window_count(self, int64_t b, int64_t k) noexcept nogil:
        """The cells of block ``b``'s window at most count ``k``."""
        return min(max(k - self.lo[b] + 1, 0), self.hi[b] - self.lo[b] + 1)

    cdef double _below(self, double v, int64_t* count) noexcept nogil:
        cdef int64_t b, m, k, n = 0
        cdef double f, big_f, mass = 0.0, odds = self.share / (1.0 - self.share)
        if self.point or not 0.0 <= v < 1.0 or self.start >= self.blocks:
            count[0] = self.cells if v >= (self.share if self.point else 1.0) else 0
            return self.defined if count[0] else 0.0
        b, m = self.start, self.m0 + self.start
        k = self._limit(v, m, <int64_t>(v * m))
        if k < self.a0:
            f, big_f = 0.0, 0.0
        elif k - self.a0 >= self.anchor.shape[0]:
            f, big_f = 0.0, self.canchor[self.anchor.shape[0]]
        else:
            f, big_f = self.anchor[k - self.a0], self.canchor[k - self.a0 + 1]
        while True:
            mass += self.weight[b] * min(max(big_f, 0.0), 1.0)
            n += self._window_count(b, k)
            b += 1
            if b == self.blocks:
                break
            m += 1
            big_f -= self.share * f
            f *= (1.0 - self.share) * m / <double>(m - k)
            while k + 1 < m and (k + 1) / <double>m <= v:
                k += 1
                f *= (m - k + 1) / <double>k * odds
                big_f += f
        count[0] = n
        return mass

    cdef int64_t _between(self, double lo_v, double hi_v, Cell* out) noexcept nogil:
        cdef int64_t b, m, k_lo = -1, k_hi = -1, mode, n = 0
        cdef double f_mode
        if self.point:
            if lo_v < self.share <= hi_v:
                for b in range(self.start, self.blocks):
                    out[n].value, out[n].weight = self.share, self.weight[b]
                    n += 1
            return n
        if self.start >= self.blocks:
            return 0
        m = self.m0 + self.start
        mode = min(<int64_t>((m + 1) * self.share), m)
        f_mode = self.anchor[mode - self.a0]
        for b in range(self.start, self.blocks):
            if b > self.start:
                m += 1
                f_mode *= (1.0 - self.share) * m / <double>(m - mode)
                while mode < m and mode + 1 <= (m + 1) * self.share:
                    mode += 1
                    f_mode *= (m - mode + 1) / <double>mode * (self.share / (1.0 - self.share))
            k_lo = self._limit(lo_v, m, k_lo)
            k_hi = self._limit(hi_v, m, k_hi)
            n += self._atoms(
                m, mode, f_mode, max(k_lo + 1, self.lo[b]), min(k_hi, self.hi[b]),
                self.weight[b], out + n,
            )
        return n

    cdef int64_t _atoms(
        self, int64_t m, int64_t mode, double f_mode, int64_t first, int64_t last, double w,
        Cell* out,
    ) noexcept nogil:
        """Block ``m``'s cells with counts ``first .. last``: their pmf stepped up from the
        mode, and down from it."""
        cdef int64_t k, n = 0
        cdef double f, odds = self.share / (1.0 - self.share)
        k, f = mode, f_mode
        while k <= last:
            if k >= first:
                out[n].value, out[n].weight = k / <double>m, w * f
                n += 1
            f *= (m - k) / (k + 1.0) * odds
            k += 1
        k, f = mode, f_mode
        while k > first:
            f *= k / (m - k + 1.0) / odds
            k -= 1
            if k <= last:
                out[n].value, out[n].weight = k / <double>m, w * f
                n += 1
        return n

    def moments(self):
        """``(mean, variance)`` of the law conditional on ``M >= 1``: ``share`` and
        ``share (1 - share) E[1 / M]`` (each block's binomial share has that mean and
        variance)."""
        cdef int64_t b
        cdef double inverse = 0.0
        if self.defined <= 0.0:
            return float("nan"), float("nan")
        for b in range(self.start, self.blocks):
            inverse += self.weight[b] / (self.m0 + b)
        return self.share, self.share * (1.0 - self.share) * inverse / self.defined


cdef class PrevalenceMixture(Law):
    """A metric read on one count's law (the other count fixed) at a prevalence drawn anew on
    each block: block ``b`` has weight ``weight[b]`` and prevalence ``shares[b]``; its cells
    are those of the count, ``i = 0, 1, ...`` with counts ``xs[i]``, ``ys[i]`` (one of the
    two fixed) and probability ``pmf[i]``, ordered so that the metric rises with ``i``
    (ascending ``x`` or descending ``y``). A walk finds each block's limit by bisection
    (``O(blocks log cells)``). A block's first or last cells may be undefined (not finite:
    a count of 0 where the prevalence is 0 or 1)."""

    cdef readonly int kind
    cdef readonly int64_t blocks, width
    cdef const double[::1] xs, ys, pmf, shares, weight
    cdef readonly double sx, sy
    # the count's cumulative probabilities (a leading 0); each block's first defined cell and
    # the end of its defined cells
    cdef double[::1] cum
    cdef int64_t[::1] first, stop

    def __init__(self, int kind, xs, ys, pmf, double sx, double sy, shares, weight):
        cdef int64_t b, i, j
        cdef double run = 0.0, mass = 0.0, total = 0.0
        self.kind, self.xs, self.ys, self.pmf, self.sx, self.sy = kind, xs, ys, pmf, sx, sy
        self.shares, self.weight = shares, weight
        self.blocks, self.width = self.weight.shape[0], self.pmf.shape[0]
        self.cum = np.empty(self.width + 1)
        self.first = np.empty(self.blocks, dtype=np.int64)
        self.stop = np.empty(self.blocks, dtype=np.int64)
        self.cum[0] = 0.0
        for i in range(self.width):
            run = run + self.pmf[i]
            self.cum[i + 1] = run
        self.cells = 0
        for b in range(self.blocks):
            i = 0
            while i < self.width and not isfinite(self._value(i, b)):
                i += 1
            self.first[b] = i
            j = self.width
            while j > i and not isfinite(self._value(j - 1, b)):
                j -= 1
            self.stop[b] = j
            self.cells += j - i
            mass += self.weight[b] * (self.cum[j] - self.cum[i])
            total += self.weight[b] * self.cum[self.width]
        self.defined, self.total = mass, total
        self.walk = self.blocks * (1 + <int64_t>np.log2(max(self.width, 1)))

    cdef inline double _value(self, int64_t i, int64_t b) noexcept nogil:
        return value_at(self.kind, self.xs[i], self.ys[i], self.sx, self.sy, self.shares[b])

    cdef inline int64_t _end(self, int64_t b, double v) noexcept nogil:
        """The first cell of block ``b`` past its defined cells at most ``v``."""
        cdef int64_t lo = self.first[b], hi = self.stop[b], mid
        while lo < hi:
            mid = (lo + hi) // 2
            if self._value(mid, b) <= v:
                lo = mid + 1
            else:
                hi = mid
        return lo

    cdef double _below(self, double v, int64_t* count) noexcept nogil:
        cdef int64_t b, end, n = 0
        cdef double mass = 0.0
        for b in range(self.blocks):
            end = self._end(b, v)
            mass += self.weight[b] * (self.cum[end] - self.cum[self.first[b]])
            n += end - self.first[b]
        count[0] = n
        return mass

    cdef int64_t _between(self, double lo_v, double hi_v, Cell* out) noexcept nogil:
        cdef int64_t b, i, n = 0
        for b in range(self.blocks):
            for i in range(self._end(b, lo_v), self._end(b, hi_v)):
                out[n].value, out[n].weight = self._value(i, b), self.weight[b] * self.pmf[i]
                n += 1
        return n

    def moments(self):
        """``(mean, variance)`` of the law conditional on the metric being defined: each
        block's about its value at the count's mode (against cancellation), then combined."""
        cdef int64_t b, i, mode = 0
        cdef double mass = 0.0, first = 0.0, second = 0.0, centre, d, w, s0, s1, s2
        stats = np.zeros((self.blocks, 3))
        cdef double[:, ::1] st = stats
        for i in range(self.width):
            if self.pmf[i] > self.pmf[mode]:
                mode = i
        for b in range(self.blocks):
            if self.first[b] == self.stop[b]:
                continue
            centre = self._value(min(max(mode, self.first[b]), self.stop[b] - 1), b)
            s0, s1, s2 = 0.0, 0.0, 0.0
            for i in range(self.first[b], self.stop[b]):
                d, w = self._value(i, b) - centre, self.pmf[i]
                s0 += w
                s1 += w * d
                s2 += w * d * d
            if s0 > 0.0:
                st[b, 0] = self.weight[b] * s0
                st[b, 1] = centre + s1 / s0
                st[b, 2] = max(s2 / s0 - (s1 / s0) * (s1 / s0), 0.0)
                mass += st[b, 0]
                first += st[b, 0] * st[b, 1]
        if mass <= 0.0:
            return float("nan"), float("nan")
        first /= mass
        for b in range(self.blocks):
            if st[b, 0] > 0.0:
                second += st[b, 0] * (st[b, 2] + (st[b, 1] - first) ** 2)
        return first, max(second / mass, 0.0)


cdef double _running_point(
    Cell* cells, int64_t n, double below, double target, double fallback
) noexcept nogil:
    """The smallest value among the ``n`` cells at which their running sum in order of value
    (after ``below``) reaches ``target`` (the largest where rounding keeps it short): a
    selection by three-way partitions about a median of three (linear time), not a sort."""
    cdef int64_t lo = 0, hi = n, less, more, i
    cdef double need = target - below, pivot, weight_less, weight_equal, largest
    cdef Cell swap
    if n == 0:
        return fallback
    largest = cells[0].value
    for i in range(1, n):
        largest = max(largest, cells[i].value)
    while hi - lo > 16:
        pivot = _median_of_three(cells[lo].value, cells[(lo + hi) // 2].value, cells[hi - 1].value)
        # cells[lo:less] < pivot, cells[less:i] == pivot, cells[more:hi] > pivot
        less, i, more = lo, lo, hi
        weight_less, weight_equal = 0.0, 0.0
        while i < more:
            if cells[i].value < pivot:
                weight_less += cells[i].weight
                swap, cells[i], cells[less] = cells[i], cells[less], cells[i]
                less += 1
                i += 1
            elif cells[i].value > pivot:
                more -= 1
                swap, cells[i], cells[more] = cells[i], cells[more], cells[i]
            else:
                weight_equal += cells[i].weight
                i += 1
        if weight_less >= need:
            hi = less
        elif weight_less + weight_equal >= need:
            return pivot
        else:
            need -= weight_less + weight_equal
            lo = more
    qsort(cells + lo, hi - lo, sizeof(Cell), _by_value)
    for i in range(lo, hi):
        need -= cells[i].weight
        if need <= 0.0:
            return cells[i].value
    return largest


cdef inline double _median_of_three(double a, double b, double c) noexcept nogil:
    return max(min(a, b), min(max(a, b), c))
