"""The joint bootstrap law of two classifiers' thresholds at one FPR rank (Algorithm 4.4).

Under the stratified bootstrap of the negatives, the thresholds ``T1``, ``T2`` of two classifiers
at FPR ``r/n-`` are the ``r``-th largest resampled negative scores under each classifier (the same
resampled negatives). Their joint law enters the variance of ``TPR1 - TPR2`` only through
``L(a, b) = Pr{N_A <= r - 1, N_B <= r - 1}``, where ``N_A``, ``N_B`` count the resampled
negatives in the top ``a`` of classifier 1 and the top ``b`` of classifier 2; it depends on
``|A|, |B|, |A & B|`` only (:ref:`reading-paired-vertical`).

:class:`JointThresholdLaw` evaluates ``L`` exactly on a grid of ``(a, b)`` for every rank at once,
by the Lancaster expansion of the bivariate binomial (:func:`lancaster_below`): per pair, a
polynomial in the multinomial correlation of ``(N_A, N_B)`` whose coefficients are products of
Krawtchouk values of the two marginals, summed by Horner's rule in one compiled pass over each
rank's block of pairs.
"""

from __future__ import annotations

import math
from functools import cached_property, lru_cache
from typing import NamedTuple

import numba
import numpy as np
from scipy import special, stats

#: The terms of the Lancaster series left out add at most this much to each value of ``L`` of
#: :func:`lancaster_below`, and to each rank's weighted sum ``sum w_a w_b (L - F_A F_B)`` of
#: :meth:`JointThresholdLaw.moments` (a bound, not an estimate; rounding aside).
TOLERANCE = 1e-17
_LOG_TOLERANCE = math.log(TOLERANCE)

#: In :meth:`JointThresholdLaw.moments` a pair of small weight may take up to this many times
#: ``TOLERANCE`` (its share of the weighted sum's), so each ``L`` there, and the mean over the
#: positives' pairs, is within ``PAIR_SLACK * TOLERANCE``.
PAIR_SLACK = 100.0

# marginal probabilities this close to 0 or 1 are treated as 0 or 1 (error <= 1e-15 per pair)
_NEGLIGIBLE = 1e-15


def _sure(below: np.ndarray) -> np.ndarray:
    """Marginals ``Pr{N_A <= u}`` within ``_NEGLIGIBLE`` of 1 (``L`` is the other one)."""
    return below >= 1 - _NEGLIGIBLE


def _open(below: np.ndarray) -> np.ndarray:
    """Marginals neither sure nor within ``_NEGLIGIBLE`` of 0: where ``L`` needs the series."""
    return ~_sure(below) & (below > _NEGLIGIBLE)


# --- Krawtchouk values ------------------------------------------------------------------------
# v_k(x; p) = e_k(x) sqrt(Bin(x; N, p)), k = 0 .. N = n - 1, with e_k the orthonormal Krawtchouk
# polynomials of Bin(N, p): the three-term recurrence
# x e_k = s_{k+1} e_{k+1} + d_k e_k + s_k e_{k-1}, d_k = k (1 - 2p) + N p,
# s_k = sqrt(k (N - k + 1) p q). For fixed x the vector (v_k) has unit length.


@numba.njit(cache=True)
def _krawtchouk_whole(n, p, x, first, v, diag, off):  # pragma: no cover - compiled
    """All ``n`` values ``v_k(x; p)`` into ``v``, given ``v_0 = first`` (scratch ``diag``,
    ``off`` of ``n + 1``). In ``k`` the sequence grows (or oscillates) and then decays; the
    forward recurrence is stable until the decay, the backward one from ``k = N`` after it. So
    the forward pass runs to the most oscillatory degree ``m`` (the largest
    ``4 s_k s_{k+1} - (x - d_k)^2``), the backward pass (from ``v_N = 1``, rescaled whenever it
    grows past 1e150) down to it, and the backward values are scaled to the forward ones at
    ``m - 1 .. m + 1``."""
    big_n, q = n - 1, 1.0 - p
    for k in range(n):
        diag[k] = k * (1 - 2 * p) + big_n * p
    off[0] = 0.0
    for k in range(1, n):
        off[k] = math.sqrt(k * (big_n - k + 1) * p * q)
    off[n] = 0.0
    best, split = -np.inf, big_n
    for k in range(1, big_n):
        gap = 4 * off[k] * off[k + 1] - (x - diag[k]) ** 2
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
    back = np.zeros(n)
    back[big_n] = 1.0
    back[big_n - 1] = (x - diag[big_n]) / off[big_n]
    for k in range(big_n - 1, split - 1, -1):
        back[k - 1] = ((x - diag[k]) * back[k] - off[k + 1] * back[k + 1]) / off[k]
        if abs(back[k - 1]) > 1e150:
            back[k - 1 :] *= 1e-150
    num, den = 0.0, 0.0
    for k in range(max(split - 1, 0), min(split + 2, n)):
        num += v[k] * back[k]
        den += back[k] * back[k]
    scale = num / den if den > 0 else 0.0
    for k in range(split + 1, n):
        v[k] = back[k] * scale


@numba.njit(cache=True)
def _krawtchouk_prefixes(n, x, p, first, length, scale, out, root):  # pragma: no cover
    """``out[k, j] = scale[k] v_k(x; p_j)`` for ``k < length``, every ``p_j`` at once (degree by
    degree, so that the recurrence runs across the columns); ``first[j] = v_0(x; p_j)``,
    ``root[k] = sqrt(k (N - k + 1))``.

    The forward recurrence is stable while ``x`` is in the growing or the oscillating range of
    degree ``k``: before the peak of the gap ``4 s_k s_{k+1} - (x - d_k)^2`` or where the gap is
    at least 0. The gap is concave in ``k`` (a geometric mean of two concave functions minus a
    convex square), so a column whose first ``length`` degrees reach past the peak into a
    negative gap (the decaying range) is seen at its last degree; it is computed whole
    (:func:`_krawtchouk_whole`).
    """
    w, big_n = p.size, n - 1
    # e_{k+1} = ((x - d_k) / s e_k - r_k e_{k-1}) / r_{k+1}, s = sqrt(p q), r_k = root[k]:
    # (x - d_k) / s = centre - k slope
    spq, slope, centre = np.empty(w), np.empty(w), np.empty(w)
    for j in range(w):
        spq[j] = math.sqrt(p[j] * (1 - p[j]))
        slope[j] = (1 - 2 * p[j]) / spq[j]
        centre[j] = (x - big_n * p[j]) / spq[j]
    # the gap being concave, a degree below `length` is past its peak with a negative gap iff
    # the last one is: negative and no larger than the one before
    stable = np.full(w, length <= big_n)
    last = length - 1
    if 2 <= last < big_n:
        for j in range(w):
            gap = 4 * spq[j] * spq[j] * root[last] * root[last + 1]
            gap -= (x - last * (1 - 2 * p[j]) - big_n * p[j]) ** 2
            before = 4 * spq[j] * spq[j] * root[last - 1] * root[last]
            before -= (x - (last - 1) * (1 - 2 * p[j]) - big_n * p[j]) ** 2
            if gap < 0.0 and gap <= before:
                stable[j] = False
    out[0, :] = first
    if length > 1 and big_n > 0:
        inv = 1.0 / root[1]
        for j in range(w):
            out[1, j] = centre[j] * first[j] * inv
        for k in range(1, length - 1):
            # one row from the two before: the loop over the columns vectorizes
            inv, rk, older, now, after = 1.0 / root[k + 1], root[k], out[k - 1], out[k], out[k + 1]
            for j in range(w):
                after[j] = ((centre[j] - k * slope[j]) * now[j] - rk * older[j]) * inv
    _scale_rows(out, scale, length)
    if not stable.all():
        v, diag, off = np.empty(n), np.empty(n + 1), np.empty(n + 1)
        for j in np.flatnonzero(~stable):
            _krawtchouk_whole(n, p[j], x, first[j], v, diag, off)
            for k in range(length):
                out[k, j] = scale[k] * v[k]


@numba.njit(cache=True)
def _scale_rows(out, scale, length):  # pragma: no cover - compiled
    """``out[k, :] *= scale[k]`` for ``k < length``, in plain loops (a slice's in-place
    product costs more to set up than to run on a row this short)."""
    for k in range(length):
        factor, row = scale[k], out[k]
        for j in range(row.size):
            row[j] *= factor


@numba.njit(cache=True)
def _krawtchouk_block(n, x, values, first, length, scale, root, kept, out):  # pragma: no cover
    """:func:`_krawtchouk_prefixes` of ``values / n`` into ``out`` (``length`` by
    ``values.size``), or read from ``kept`` (every value's whole vector at this ``x``) when it
    is not empty."""
    if kept.size == 0:
        _krawtchouk_prefixes(n, x, values / n, first, length, scale, out, root)
        return
    for k in range(length):
        for j in range(values.size):
            out[k, j] = scale[k] * kept[values[j], k]


@numba.njit(cache=True)
def _roots(n):  # pragma: no cover - compiled
    """``sqrt(k (N - k + 1))`` for ``k = 0 .. n`` (0 at both ends)."""
    root = np.zeros(n + 1)
    for k in range(1, n):
        root[k] = math.sqrt(k * (n - k))
    return root


@numba.njit(cache=True)
def _series_tables(n):  # pragma: no cover - compiled
    """``(1/(k + 1), log(k + 1), sqrt(k (N - k + 1)))`` for ``k = 0 .. n - 1`` (the last one
    to ``k = n``, :func:`_roots`): what every series at this ``n`` reads."""
    count = np.arange(1, n + 1)
    return 1.0 / count, np.log(count), _roots(n)


@lru_cache(maxsize=8)
def _tables(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_series_tables`, computed once per ``n`` (a simulation asks for the same ``n``
    again and again)."""
    tables = _series_tables(n)
    for table in tables:
        table.flags.writeable = False
    return tables


@numba.njit(cache=True, parallel=True)
def _whole_tables(n, u, first):  # pragma: no cover - compiled
    """``out[k, a] = (v_0 .. v_{n-1})(u_k; a / n)`` for ``a = 1 .. n - 1`` (0 at 0 and n),
    given ``first[k, a - 1] = v_0(u_k; a / n)``."""
    out = np.zeros((u.size, n + 1, n))
    for k in numba.prange(u.size):
        diag, off = np.empty(n + 1), np.empty(n + 1)
        for a in range(1, n):
            _krawtchouk_whole(n, a / n, u[k], first[k, a - 1], out[k, a], diag, off)
    return out


#: Up to this many numbers, :func:`_kept_values` keeps every value's Krawtchouk values at the
#: ranks of a call for the next call with the same ``n`` and ranks (a simulation asks for the
#: same ones again and again; at small ``n`` the sums are short and computing the values would
#: dominate).
_KEPT_NUMBERS = 1 << 23


@lru_cache(maxsize=4)
def _kept_tables(n: int, u: tuple[int, ...]) -> np.ndarray:
    u_array, inside = np.asarray(u, dtype=np.int64), np.arange(1, n) / n
    out = _whole_tables(n, u_array, _first_value(n, u_array[:, None], inside[None, :]))
    out.flags.writeable = False
    return out


def _kept_values(n: int, u: np.ndarray) -> np.ndarray:
    """:func:`_whole_tables` of ``(n, u)``, kept across calls when it has at most
    ``_KEPT_NUMBERS`` numbers; otherwise empty (the kernel computes what it needs)."""
    if u.size * (n + 1) * n > _KEPT_NUMBERS:
        return np.empty((0, 0, 0))
    return _kept_tables(n, tuple(u.tolist()))


# --- the number of terms ----------------------------------------------------------------------
# With head = n s_a s_b v_0(a) v_0(b) (s = sqrt(p q)), the k-th term of the series of L is
# head rho^(k+1) / (k+1) v_k(a) v_k(b), each (v_k) a unit vector. As |rho|^(k+1) / (k+1)
# decreases in k, the terms from degree m on add at most
# head |rho|^(m+1) / (m + 1) sum_{k>=m} |v_k(a) v_k(b)| <= head |rho|^(m+1) / (m + 1)
# (Cauchy-Schwarz: the sum is at most ||v(a)|| ||v(b)|| = 1). Degree m is summed where that is
# at least TOLERANCE: for a row of largest |rho| = r and head factor H_a = n s_a v_0(a), in the
# columns whose H_b = s_b v_0(b) has
# log H_b >= log TOLERANCE - log H_a + log(m + 1) - (m + 1) log r.


@numba.njit(cache=True)
def _row_base(log_head_a, rho, log_slack):  # pragma: no cover - compiled
    """``(base, log r)`` of a row, so that degree ``m`` is needed where
    ``log H_b >= base + log(m + 1) - (m + 1) log r`` (each value within ``TOLERANCE`` times
    ``exp(log_slack)``); ``r <= 0``: no degree (``base = inf``); ``r >= 1``: every degree
    (``base = -inf``)."""
    if rho <= 0.0:
        return np.inf, 0.0
    if rho >= 1.0:
        return -np.inf, 0.0
    return _LOG_TOLERANCE + log_slack - log_head_a, math.log(rho)


@numba.njit(cache=True)
def _degrees(base, log_rho, log_head_b, log_count, n):  # pragma: no cover - compiled
    """The degrees a column with head ``log_head_b`` needs in a row (``_row_base``);
    ``log_count[m] = log(m + 1)``: the first ``m`` where ``base + log(m + 1) - (m + 1) log r``
    exceeds ``log_head_b``. That left side increases with ``m``, computed too (each rounding
    is monotone), so the search may start anywhere: where ``(m + 1) (-log r)`` reaches
    ``log_head_b - base - log m0``, ``m0`` where it reaches ``log_head_b - base`` (a few
    steps above the answer): at most a step or two from it."""
    m = 0
    if log_rho < 0.0 and math.isfinite(base) and log_head_b - base > 0.0:
        m = int(min((log_head_b - base) / -log_rho, float(n)))
        if m > 1:
            m = int(min(max((log_head_b - base - log_count[m - 1]) / -log_rho, 0.0), float(n)))
    while m > 0 and base + log_count[m - 1] - m * log_rho > log_head_b:
        m -= 1
    while m < n and base + log_count[m] - (m + 1) * log_rho <= log_head_b:
        m += 1
    return m


# --- the exact moments: one compiled pass per rank over its block of open pairs --------------


#: Most correlations a lane keeps at once (:func:`_band_rows`): it computes them once for as many
#: of its consecutive ranks as fit, instead of once per rank (each pair is in the blocks of
#: several neighbouring ranks).
_BAND_NUMBERS = 1 << 21


@numba.njit(cache=True)
def _band_rows(runs, order, slot, stop, budget, row_lo, row_hi):  # pragma: no cover - compiled
    """The ranks ``order[slot:end]`` whose blocks (``runs``) together cover at most
    ``budget`` pairs (at least one rank): returns ``(end, r0, r1)``, and each row
    ``ia`` in ``[r0, r1)`` gets the columns ``[row_lo[ia - r0], row_hi[ia - r0])`` of the
    blocks that have it (empty where none has)."""
    r0, r1, size, end = 0, 0, 0, slot
    while end < stop:
        ia0, ia1, ib0, ib1 = runs[order[end]]
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
    return end, r0, r1


@numba.njit(cache=True)
def _cover_rows(r0, r1, ia0, ia1, row_lo, row_hi):  # pragma: no cover - compiled
    """Rows ``[r0, r1)`` widened to cover ``[ia0, ia1)``: the kept rows moved up if the
    first row moves down, new rows empty."""
    new0, new1 = min(r0, ia0), max(r1, ia1)
    if r1 == r0:
        new0, new1 = ia0, ia1
        shift, kept = 0, 0
    else:
        shift, kept = r0 - new0, r1 - r0
    for q in range(kept - 1, -1, -1):
        row_lo[q + shift], row_hi[q + shift] = row_lo[q], row_hi[q]
    for q in range(new1 - new0):
        if not shift <= q < shift + kept:
            row_lo[q], row_hi[q] = np.iinfo(np.int64).max, 0
    return new0, new1


@numba.njit(cache=True)
def _band_correlations(
    n, a_values, b_values, first_column, r0, row_lo, row_hi, offsets, band
):  # pragma: no cover - compiled
    """Into ``band[offsets[q] + j - row_lo[q]]``, for row ``ia = r0 + q`` and column ``j`` in
    ``[row_lo[q], row_hi[q])``, the correlation of ``(1_A, 1_B)`` in one draw at
    ``(a_values[ia], b_values[j])``: ``(c / n - p_a p_b) / (s_a s_b)``, with the overlaps
    ``c`` counted while walking down the rows (``O(n + rows span)``). Negative ``t`` (ranked by
    classifier 1) is in ``B_{b_j}`` iff ``j >= first_column[t]``: ``cum[j - c0]`` counts the
    negatives above the row with ``first_column <= j``, from a histogram of those above the
    first row, then one (vectorized) suffix per negative between two rows."""
    rows = offsets.size - 1
    c0, c1 = b_values.size, 0
    for q in range(rows):
        if row_hi[q] > row_lo[q]:
            c0, c1 = min(c0, row_lo[q]), max(c1, row_hi[q])
    span = max(c1 - c0, 0)
    # rho = (c / (n s_b) - p_a p_b / s_b) / s_a, per column factors once
    per_count, per_share = np.empty(span), np.empty(span)
    for j in range(span):
        pb = b_values[c0 + j] / n
        inv_sb = 1.0 / math.sqrt(pb * (1 - pb))
        per_count[j], per_share[j] = inv_sb / n, pb * inv_sb
    cum = np.zeros(span)
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
        pa = a_values[ia] / n
        inv_sa, row = 1.0 / math.sqrt(pa * (1 - pa)), band[offsets[q] : offsets[q] + hi - lo]
        for j in range(hi - lo):
            col = lo - c0 + j
            r = (cum[col] * per_count[col] - pa * per_share[col]) * inv_sa
            row[j] = min(max(r, -1.0), 1.0)


@numba.njit(cache=True)
def _largest_magnitude(x):  # pragma: no cover - compiled
    """``max |x|`` (0 if empty), in four lanes: independent chains the CPU runs side by side
    (the same result in any order)."""
    m0 = m1 = m2 = m3 = 0.0
    stop = x.size - x.size % 4
    for j in range(0, stop, 4):
        m0, m1 = max(m0, abs(x[j])), max(m1, abs(x[j + 1]))
        m2, m3 = max(m2, abs(x[j + 2])), max(m3, abs(x[j + 3]))
    for j in range(stop, x.size):
        m0 = max(m0, abs(x[j]))
    return max(max(m0, m1), max(m2, m3))


@numba.njit(cache=True)
def _dot(x, y):  # pragma: no cover - compiled
    """``sum x * y`` in four lanes (lane ``l`` sums the terms ``j = l mod 4``, then the lanes
    are added): four independent chains where one running sum waits on each addition; the
    same order, so the same bits, on every machine."""
    s0 = s1 = s2 = s3 = 0.0
    stop = x.size - x.size % 4
    for j in range(0, stop, 4):
        s0 += x[j] * y[j]
        s1 += x[j + 1] * y[j + 1]
        s2 += x[j + 2] * y[j + 2]
        s3 += x[j + 3] * y[j + 3]
    for j in range(stop, x.size):
        s0 += x[j] * y[j]
    return (s0 + s1) + (s2 + s3)


@numba.njit(cache=True)
def _unimodal_envelope(values):  # pragma: no cover - compiled
    """The smallest sequence above ``values`` that rises to its peak and then falls, and the
    peak: the columns' heads are unimodal in exact arithmetic, so rounding cannot make a degree
    skip a column between two that need it."""
    peak = 0
    for j in range(values.size):
        if values[j] > values[peak]:
            peak = j
    out, run = np.empty(values.size), -np.inf
    for j in range(peak + 1):
        run = max(run, values[j])
        out[j] = run
    run = -np.inf
    for j in range(values.size - 1, peak, -1):
        run = max(run, values[j])
        out[j] = run
    return out, peak


@numba.njit(cache=True)
def _horner_row(  # pragma: no cover - compiled
    v, r, i, rows, columns, degrees, base, log_rho, envelope, peak, log_count
):
    """``v[j] = sum_k r_j^k rows[k, i] columns[k, j]`` (``r``: row ``i``'s ``rho``) over the
    degrees pair ``(i, j)`` needs (``degrees``: row ``i``'s most, :func:`_degrees` at the
    envelope's peak), by Horner's rule from the top degree down; at each degree the columns
    that need it are an interval around the envelope's peak (``v = 0`` until a column joins).
    The degrees go four at a time (one pass over ``v`` instead of four): a column joining
    within a group takes the group's higher degrees too, terms beyond those it needs."""
    w = v.size
    v[:] = 0.0
    lo, hi = peak, peak + 1
    m = degrees - 1
    while m >= 0:
        low = max(m - 3, 0)
        limit = base + log_count[low] - (low + 1) * log_rho
        while lo > 0 and envelope[lo - 1] >= limit:
            lo -= 1
        while hi < w and envelope[hi] >= limit:
            hi += 1
        if m - low == 3:
            _horner_four(
                v,
                r,
                (columns[m], columns[m - 1], columns[m - 2], columns[m - 3]),
                (rows[m, i], rows[m - 1, i], rows[m - 2, i], rows[m - 3, i]),
                lo,
                hi,
            )
        else:
            for k in range(m, low - 1, -1):
                _horner_one(v, r, columns[k], rows[k, i], lo, hi)
        m = low - 1


# The two steps of _horner_row take rows of the tables as 1-d arrays: on those the compiler
# vectorizes the loop over the columns with one cheap overlap test per call (on 2-d tables it
# often fell back to the scalar loop). Unsigned indices: no negative-index test either.


@numba.njit(cache=True)
def _horner_four(v, r, columns, coefficients, lo, hi):  # pragma: no cover - compiled
    """Four steps of Horner's rule on ``v[lo:hi]``: ``v = v r + a_q c_q`` for the four
    ``(a_q, c_q)`` of ``coefficients`` and ``columns``, highest degree first."""
    c0, c1, c2, c3 = columns
    a0, a1, a2, a3 = coefficients
    for j in range(np.uint64(lo), np.uint64(hi)):
        rj = r[j]
        t = v[j] * rj + a0 * c0[j]
        t = t * rj + a1 * c1[j]
        t = t * rj + a2 * c2[j]
        v[j] = t * rj + a3 * c3[j]


@numba.njit(cache=True)
def _horner_one(v, r, column, coefficient, lo, hi):  # pragma: no cover - compiled
    """One step of Horner's rule on ``v[lo:hi]``: ``v = v r + a c``."""
    for j in range(np.uint64(lo), np.uint64(hi)):
        v[j] = v[j] * r[j] + coefficient * column[j]


@numba.njit(cache=True)
def _room(space, size):  # pragma: no cover - compiled
    """``space`` if it holds ``size`` numbers, else a new one, at least twice as large. A lane
    of :func:`_lancaster_moments` keeps its tables from rank to rank: a block's own tables
    would be fresh pages from the system for each large block (beyond malloc's mmap
    threshold), zeroed on first touch."""
    if space.size >= size:
        return space
    return np.empty(max(size, 2 * space.size))


@numba.njit(cache=True)
def _rank_block(
    n,
    u,
    a,
    b,
    start,
    below,
    first,
    weights,
    correlations,
    ib0,
    tables,
    kept,
    positives,
    values_at,
    space,
):  # pragma: no cover - compiled
    """One rank's block of open pairs, rows ``a``, columns ``b``: ``L`` is
    ``F_A F_B + H_a H_b rho v`` with ``v`` of :func:`_horner_row`, clipped to [0, 1]. Returns
    the block's ``sum w_a w_b (L - F_A F_B)`` (compensated) and ``space``, grown as needed
    (:func:`_room`); puts ``L`` at each positive's pair in the block into ``values_at``.
    ``correlations``: ``(band, at)``, row ``i``'s ``rho`` at the block's columns is
    ``band[at[i]:at[i] + w]`` (:func:`_band_correlations`); ``weights``: ``(w_a, log w_a,
    w_b)``.

    ``below[a - start]``, ``first[a - start]``: the marginal and ``v_0`` of value ``a`` at
    this rank (:func:`_rank_rows`); ``tables``: ``1/(k + 1)``, ``log(k + 1)`` and
    :func:`_roots`; ``kept``: every value's Krawtchouk values at this rank
    (:func:`_kept_values`), or empty; ``positives``: ``(offsets, pair_b)`` of
    :func:`_positives_by_row`, from the block's first row on; ``values_at`` in the same
    order. Pair ``(i, j)`` is summed to within ``TOLERANCE / (h w w_a[i] max(w_b))`` (at most
    ``PAIR_SLACK`` times ``TOLERANCE``), so the block's weighted sum is within
    ``TOLERANCE``."""
    h, w = a.size, b.size
    weight_a, log_weight_a, weight_b = weights
    pa, pb = a / n, b / n
    below_a, below_b = below[a - start], below[b - start]
    first_a, first_b = first[a - start], first[b - start]
    head_a, head_b = np.empty(h), np.empty(w)
    log_head_a, log_head_b = np.empty(h), np.empty(w)
    for i in range(h):
        head_a[i] = n * math.sqrt(pa[i] * (1 - pa[i])) * first_a[i]
        log_head_a[i] = math.log(head_a[i]) if head_a[i] > 0 else -np.inf
    for j in range(w):
        head_b[j] = math.sqrt(pb[j] * (1 - pb[j])) * first_b[j]
        log_head_b[j] = math.log(head_b[j]) if head_b[j] > 0 else -np.inf
    band, at = correlations
    largest = np.empty(h)
    for i in range(h):
        largest[i] = _largest_magnitude(band[at[i] : at[i] + w])
    envelope, peak = _unimodal_envelope(log_head_b)
    inverse, log_count, root = tables
    base, log_rho, degrees = np.empty(h), np.empty(h), np.empty(h, dtype=np.int64)
    log_share = math.log(h * w * weight_b.max())
    for i in range(h):
        slack = min(-log_share - log_weight_a[i], math.log(PAIR_SLACK))
        base[i], log_rho[i] = _row_base(log_head_a[i], largest[i], slack)
        degrees[i] = _degrees(base[i], log_rho[i], envelope[peak], log_count, n)
    longest = max(degrees.max(), 1)
    table_space = _room(space, longest * (h + w))
    rows = table_space[: longest * h].reshape((longest, h))
    columns = table_space[longest * h : longest * (h + w)].reshape((longest, w))
    _krawtchouk_block(n, u, a, first_a, longest, np.ones(longest), root, kept, rows)
    _krawtchouk_block(n, u, b, first_b, longest, inverse[:longest], root, kept, columns)
    offsets, pair_b = positives
    v, excess = np.empty(w), np.empty(w)
    total, carry = 0.0, 0.0
    for i in range(h):
        row = band[at[i] : at[i] + w]
        _horner_row(
            v, row, i, rows, columns, degrees[i], base[i], log_rho[i], envelope, peak, log_count
        )
        fa, ha = below_a[i], head_a[i]
        for j in range(w):
            # L - F_A F_B straight from the series (clipped so that 0 <= L <= 1): no
            # cancellation against F_A F_B, which may be near 1 while L - F_A F_B is tiny
            product = fa * below_b[j]
            excess[j] = min(max(ha * head_b[j] * row[j] * v[j], -product), 1.0 - product)
        total, carry = _add(total, carry, weight_a[i] * _dot(weight_b, excess))
        for q in range(offsets[i], offsets[i + 1]):
            if ib0 <= pair_b[q] < ib0 + w:
                values_at[q] = fa * below_b[pair_b[q] - ib0] + excess[pair_b[q] - ib0]
    return total + carry, table_space


@numba.njit(cache=True)
def _add(total, carry, value):  # pragma: no cover - compiled
    """One step of Neumaier's compensated sum: ``(total, carry)`` with ``value`` added."""
    new = total + value
    if abs(total) >= abs(value):
        carry += (total - new) + value
    else:
        carry += (value - new) + total
    return new, carry


@numba.njit(cache=True)
def _positives_by_row(pair_a, pair_b, rows):  # pragma: no cover - compiled
    """The positives' pairs grouped by row, in a stable counting sort: ``(offsets, rows,
    columns)``, row ``ia``'s pairs at ``offsets[ia]:offsets[ia + 1]`` of ``rows``, ``columns``."""
    offsets = np.zeros(rows + 1, dtype=np.int64)
    for ia in pair_a:
        offsets[ia + 1] += 1
    for ia in range(rows):
        offsets[ia + 1] += offsets[ia]
    place = offsets[:-1].copy()
    out_a, out_b = np.empty(pair_a.size, dtype=np.int64), np.empty(pair_b.size, dtype=np.int64)
    for i in range(pair_a.size):
        out_a[place[pair_a[i]]], out_b[place[pair_a[i]]] = pair_a[i], pair_b[i]
        place[pair_a[i]] += 1
    return offsets, out_a, out_b


@numba.njit(cache=True, parallel=True)
def _lancaster_moments(
    n,
    u,
    order,
    bounds,
    a_values,
    b_values,
    first_column,
    runs,
    start,
    below,
    first,
    weight_a,
    weight_b,
    pair_a,
    pair_b,
    kept,
    tables,
    band_numbers,
):  # pragma: no cover - compiled
    """Per rank ``k``, ``sum w_a w_b (L_k(a, b) - F_A F_B)`` over the pairs with both
    marginals open, and ``mean_i L_k(a_i, b_i)`` over the positives' pairs
    ``(pair_a[i], pair_b[i])``. ``runs``: per rank, the ends of the sure and the open runs of
    each grid (:attr:`JointThresholdLaw.runs`): where a marginal is not open, ``L`` is the
    other marginal (one sure) or 0. ``start``, ``below``, ``first``: the windows of
    :func:`_rank_rows`; ``kept``: :func:`_kept_values` per rank, or empty; ``tables``:
    :func:`_tables`. The ranks are independent: lanes run side by side, lane ``l`` taking the
    ranks ``order[bounds[l]:bounds[l + 1]]``. ``order`` lists the ranks in increasing order,
    so that a lane's neighbouring blocks share their correlations (at most ``band_numbers``
    at once, :func:`_band_rows`); ``bounds`` give the lanes about equal work
    (:func:`_lane_bounds`). Each rank's sums are the same bits on any thread."""
    ranks = u.size
    total, diagonal = np.zeros(ranks), np.zeros(ranks)
    log_weight_a = np.empty(weight_a.size)  # each row is in the blocks of several ranks
    for ia in range(weight_a.size):
        log_weight_a[ia] = math.log(weight_a[ia])
    offsets, sorted_a, sorted_b = _positives_by_row(pair_a, pair_b, a_values.size)
    # one iteration per lane: numba's OpenMP schedule is static, and the lanes' work is
    # balanced by the bounds
    for lane in numba.prange(bounds.size - 1):
        space, band, values_at = np.empty(0), np.empty(0), np.empty(pair_b.size)
        row_lo = np.empty(a_values.size, dtype=np.int64)
        row_hi = np.empty(a_values.size, dtype=np.int64)
        slot = bounds[lane]
        while slot < bounds[lane + 1]:
            end, r0, r1 = _band_rows(
                runs, order, slot, bounds[lane + 1], band_numbers, row_lo, row_hi
            )
            band_offsets = np.zeros(r1 - r0 + 1, dtype=np.int64)
            for q in range(r1 - r0):
                band_offsets[q + 1] = band_offsets[q] + max(row_hi[q] - row_lo[q], 0)
            band = _room(band, band_offsets[-1])
            if r1 > r0:
                _band_correlations(
                    n, a_values, b_values, first_column, r0, row_lo, row_hi, band_offsets, band
                )
            for k in order[slot:end]:
                ia0, ia1, ib0, ib1 = runs[k, 0], runs[k, 1], runs[k, 2], runs[k, 3]
                if ia1 > ia0 and ib1 > ib0:
                    rows = slice(ia0 - r0, ia1 - r0)
                    total[k], space = _rank_block(
                        n,
                        u[k],
                        a_values[ia0:ia1],
                        b_values[ib0:ib1],
                        start[k],
                        below[k],
                        first[k],
                        (weight_a[ia0:ia1], log_weight_a[ia0:ia1], weight_b[ib0:ib1]),
                        (band, band_offsets[rows] + ib0 - row_lo[rows]),
                        ib0,
                        tables,
                        kept[k] if kept.shape[0] else np.empty((0, 0)),
                        (offsets[ia0:], sorted_b),
                        values_at,
                        space,
                    )
                diagonal[k] = _diagonal_mean(
                    runs[k],
                    a_values,
                    b_values,
                    start[k],
                    below[k],
                    offsets,
                    sorted_a,
                    sorted_b,
                    values_at,
                )
            slot = end
    return total, diagonal


@numba.njit(cache=True)
def _diagonal_mean(
    run, a_values, b_values, start, below, offsets, pair_a, pair_b, values_at
):  # pragma: no cover - compiled
    """``mean_i L(a_i, b_i)`` at one rank over the positives grouped by row
    (:func:`_positives_by_row`): ``L = F_B`` where ``a`` is sure, ``F_A`` where ``a`` is open
    and ``b`` sure, the block's value (``values_at``) where both are open, 0 elsewhere (every
    row past the open run). Compensated (Neumaier): ``O(n)`` terms lose ``O(eps)``. One loop
    over the positives of the rows before the open run, one over those in it (a loop per row
    would mostly run once or twice)."""
    ia0, ia1, ib0, ib1 = run
    total, carry = 0.0, 0.0
    for q in range(offsets[ia0]):
        total, carry = _add(total, carry, _marginal(start, below, b_values[pair_b[q]]))
    for q in range(offsets[ia0], offsets[ia1]):
        ib = pair_b[q]
        if ib < ib0:
            value = _marginal(start, below, a_values[pair_a[q]])
        elif ib < ib1:
            value = values_at[q]
        else:
            continue
        total, carry = _add(total, carry, value)
    return (total + carry) / pair_b.size


@numba.njit(cache=True)
def _lancaster_values(n, u, a, b, c, first_a, first_b, product):  # pragma: no cover
    """:func:`lancaster_below` pair by pair: the series of each pair to the degrees its own
    ``|rho|`` and heads need, by Horner's rule."""
    inverse, log_count, root = _series_tables(n)
    out = np.empty(u.size)
    for q in range(u.size):
        pa, pb = a[q] / n, b[q] / n
        spread = math.sqrt(pa * (1 - pa)) * math.sqrt(pb * (1 - pb))
        if spread == 0.0:
            out[q] = product[q]
            continue
        rho = min(max((c[q] / n - pa * pb) / spread, -1.0), 1.0)
        head_a = n * math.sqrt(pa * (1 - pa)) * first_a[q]
        head_b = math.sqrt(pb * (1 - pb)) * first_b[q]
        if head_a == 0.0 or head_b == 0.0:
            out[q] = product[q]
            continue
        base, log_rho = _row_base(math.log(head_a), abs(rho), 0.0)
        degrees = max(_degrees(base, log_rho, math.log(head_b), log_count, n), 1)
        column_a, column_b = np.empty((degrees, 1)), np.empty((degrees, 1))
        _krawtchouk_prefixes(
            n, u[q], np.array([pa]), first_a[q : q + 1], degrees, np.ones(degrees), column_a, root
        )
        _krawtchouk_prefixes(
            n, u[q], np.array([pb]), first_b[q : q + 1], degrees, inverse, column_b, root
        )
        v = 0.0
        for m in range(degrees - 1, -1, -1):
            v = v * rho + column_a[m, 0] * column_b[m, 0]
        out[q] = min(max(product[q] + head_a * head_b * rho * v, 0.0), 1.0)
    return out


def _first_value(n: int, u: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``v_0 = sqrt(Bin(u; n - 1, p))`` elementwise (``0 < p < 1``): the root of scipy's
    binomial pmf (Boost's, accurate to a few units in the last place at any ``n``), or, where
    the pmf is below the normal doubles and its root is not, the root of the pmf from
    ``log C(n - 1, u)`` by ``gammaln`` (whose relative error grows with ``n``: the log-gammas
    cancel; tests/test_lancaster.py checks both against exact integers)."""
    x, prob = np.broadcast_arrays(np.atleast_1d(u).astype(float), np.atleast_1d(p))
    pmf = stats.binom.pmf(x, n - 1, prob)
    tiny = pmf < np.finfo(float).tiny
    if not tiny.any():
        return np.sqrt(pmf)
    x_tiny, p_tiny = x[tiny], prob[tiny]
    log_comb = special.gammaln(n) - special.gammaln(x_tiny + 1) - special.gammaln(n - x_tiny)
    with np.errstate(divide="ignore"):
        log_pmf = log_comb + x_tiny * np.log(p_tiny) + (n - 1 - x_tiny) * np.log1p(-p_tiny)
    out = np.sqrt(pmf)
    out[tiny] = np.exp(0.5 * log_pmf)
    return out


def lancaster_below(n: int, u, a, b, c) -> np.ndarray:
    """``Pr{N_A <= u, N_B <= u}`` exactly (within :data:`TOLERANCE`), elementwise.

    ``N_A``, ``N_B`` count the ``n`` uniform draws among ``n`` negatives falling in sets of sizes
    ``a``, ``b`` with ``|A & B| = c``: the sums of ``n`` independent draws of the pair of
    indicators ``(1_A, 1_B)``, whose correlation is
    ``rho = (c/n - p_a p_b) / sqrt(p_a q_a p_b q_b)``. Such a bivariate binomial has the
    Lancaster expansion ``Pr{N_A = i, N_B = j} = Bin(i) Bin(j) sum_l rho^l e_l(i) f_l(j)`` in the
    orthonormal Krawtchouk polynomials ``e_l``, ``f_l`` of the two marginals (Lancaster 1958;
    Eagleson 1964). Summed over ``i, j <= u``: ``Pr{N_A <= u} Pr{N_B <= u}`` plus
    ``sum_{l >= 1} rho^l alpha_l beta_l``, with
    ``alpha_l = sum_{i <= u} Bin(i; n, p) e_l(i) = sqrt(n p q / l) Bin(u; n - 1, p)
    e'_{l-1}(u)``, ``e'`` the Krawtchouk polynomials of ``Bin(n - 1, p)`` (from the generating
    function ``sum_l C(n, l) K_l(x) t^l = (1 - t q/p)^x (1 + t)^(n - x)``, whose partial sums in
    ``x`` are a binomial CDF in ``p - q t``). With ``v_k`` the orthonormal values of
    :func:`_krawtchouk_whole` (``v_0 = sqrt(Bin(u; n - 1, p))``),

    ``Pr{N_A <= u, N_B <= u} = F_A F_B + n s_a s_b v_0(a) v_0(b)
    sum_{k=0}^{n-1} rho^(k+1) / (k + 1) v_k(a) v_k(b)``,

    ``s = sqrt(p q)``. Each ``(v_k)`` is a unit vector, so (Cauchy-Schwarz) the terms from
    degree ``m`` on add at most ``n s_a s_b v_0(a) v_0(b) |rho|^(m+1) / (m + 1)``: the series is
    summed (Horner's rule) to the degree where that falls below :data:`TOLERANCE` (all ``n``
    terms when ``|rho| = 1``), and carries no cancellation beyond its roundings. ``O(n)`` per
    pair at most, compiled.
    """
    u, a, b, c = (np.asarray(v, dtype=np.int64).ravel() for v in (u, a, b, c))
    product = special.bdtr(u, n, a / n) * special.bdtr(u, n, b / n)
    inside_a, inside_b = (a > 0) & (a < n), (b > 0) & (b < n)
    first_a = np.where(inside_a, _first_value(n, u, np.clip(a / n, 1e-300, 1 - 1e-16)), 0.0)
    first_b = np.where(inside_b, _first_value(n, u, np.clip(b / n, 1e-300, 1 - 1e-16)), 0.0)
    return _lancaster_values(n, u, a, b, c.astype(float), first_a, first_b, product)


def _binomial_below(n: int, u: np.ndarray, a: np.ndarray) -> np.ndarray:
    """``out[k, j] = Pr{Bin(n, a_j/n) <= u_k}`` for integer ``a``, from :func:`_rank_rows`
    (outside its window, 1 below ``u`` and 0 above)."""
    windows = _rank_rows(n, tuple(np.asarray(u).tolist()))
    return _window_gather(windows.start, windows.below, np.asarray(a, dtype=np.int64))


@numba.njit(cache=True)
def _marginal(start, row, value):  # pragma: no cover - compiled
    """``Pr{N_A <= u}`` at ``|A| = value`` from one rank's window: ``row[value - start]``
    inside it; 1 before it (``value`` below the window is below ``u``) and 0 after it."""
    t = value - start
    return 1.0 if t < 0 else (row[t] if t < row.size else 0.0)


@numba.njit(cache=True)
def _window_gather(start, rows, a):  # pragma: no cover - compiled
    """``out[k, j]``: :func:`_marginal` of ``a_j`` at rank ``k``."""
    out = np.empty((start.size, a.size))
    for k in range(start.size):
        for j in range(a.size):
            out[k, j] = _marginal(start[k], rows[k], a[j])
    return out


def _leading(mask: np.ndarray) -> int:
    """How many of ``mask``'s first values are true."""
    return int(mask.size if mask.all() else np.argmin(mask))


class _Windows(NamedTuple):
    """Each rank's marginals on its window of values ``a = start[k] + t`` (:func:`_rank_rows`)."""

    start: np.ndarray
    #: ``below[k, t] = Pr{Bin(n, a/n) <= u_k}`` (0 past the rank's window)
    below: np.ndarray
    #: ``first[k, t] = v_0 = sqrt(Bin(u_k; n - 1, a/n))`` where the marginal is open, else 0
    first: np.ndarray
    #: the marginal is sure for ``a < sure_end[k]``, open for ``sure_end[k] <= a < open_end[k]``
    #: and ~0 beyond (``F`` decreases in ``a``)
    sure_end: np.ndarray
    open_end: np.ndarray


@lru_cache(maxsize=8)
def _rank_rows(n: int, u: tuple[int, ...]) -> _Windows:
    """The :class:`_Windows` of the ranks ``u`` over each one's window of :func:`_window` in
    ``a``. They depend on ``(n, u)`` only: computed once per grid of ranks, shared by every
    data set of a simulation."""
    u_array = np.asarray(u, dtype=np.int64)
    half = np.ceil(_window(n, u_array)).astype(np.int64)
    start = np.maximum(u_array - half, 0)
    stop = np.minimum(u_array + half + 1, n + 1)
    below, first = np.zeros((2, u_array.size, int((stop - start).max())))
    sure_end, open_end = start.copy(), start.copy()
    for k in range(u_array.size):
        a = np.arange(start[k], stop[k])
        below[k, : a.size] = special.bdtr(u_array[k], n, a / n)
        is_open = _open(below[k, : a.size])
        first[k, : a.size][is_open] = _first_value(n, u_array[k], a[is_open] / n)
        # the leading sure values, then the open ones (before the window: sure)
        sure_end[k] += _leading(_sure(below[k, : a.size]))
        open_end[k] = sure_end[k] + _leading(is_open[sure_end[k] - start[k] :])
    windows = _Windows(start, below, first, sure_end, open_end)
    for table in windows:
        table.flags.writeable = False
    return windows


# Beyond the window a marginal is within exp(-_WINDOW_LOG) of 0 or 1 (far below the 1e-15 at
# which it is open), and is taken to be 0 or 1.
_WINDOW_LOG = 45.0


def _window(n: int, u: np.ndarray) -> np.ndarray:
    """Half-widths ``t`` in ``a`` around each ``u`` outside which ``Pr{Bin(n, a/n) <= u}`` is
    within ``exp(-_WINDOW_LOG)`` of 0 or 1: Bernstein's inequality
    ``Pr{|X - a| >= t} <= 2 exp(-t^2 / (2 (s^2 + t / 3)))`` with ``s^2 = a (n - a) / n`` at
    most ``v``, the largest variance on the widest window in question (``|a - u| <= n / 2``
    bounds it by ``n / 4``, or less away from the middle): ``t = L/3 + sqrt(L^2/9 + 2 L v)``,
    ``L = _WINDOW_LOG + log 2``."""
    log_bound = _WINDOW_LOG + math.log(2.0)
    u = np.asarray(u, dtype=float)
    widest = log_bound / 3 + np.sqrt(log_bound**2 / 9 + 2 * log_bound * n / 4)
    nearest = np.clip(n / 2, u - widest, u + widest)  # the a nearest n/2 in the widest window
    variance = nearest * (n - nearest) / n
    return log_bound / 3 + np.sqrt(log_bound**2 / 9 + 2 * log_bound * variance)


class JointThresholdLaw:
    """``L_k(a, b) = Pr{N_A <= u_k, N_B <= u_k}`` at the ranks ``u_k = r_k - 1`` for the value
    grid ``a_values x b_values`` (sorted integers); ``order1_rank2[t]`` is the classifier-2 rank
    (0-based) of the ``t``-th best negative of classifier 1, which gives the overlaps
    ``|A_a & B_b|``.

    Where a marginal is negligible (within ``1e-15`` of 0 or 1) no joint law is needed:
    ``L = 0`` if either is ~0, the other marginal if one is ~1. The pairs with both marginals
    *open* form, at each rank, a block of the grid, whose ``L`` are the Lancaster series of
    :func:`lancaster_below` (each within :data:`TOLERANCE`), summed by :meth:`moments` in one
    compiled pass per rank: the Krawtchouk values of every row and column to the largest degree
    the block needs (a recurrence across the columns), and each pair's series by Horner's rule
    to the degree its row's largest ``|rho|`` and its heads need. The correlations do not
    depend on the rank: they are computed once for the band of blocks of neighbouring ranks,
    the overlaps counted while walking down its rows.
    """

    def __init__(self, n: int, a_values, b_values, order1_rank2, ranks):
        self.n, self.a, self.b, self.order1_rank2 = n, a_values, b_values, order1_rank2
        self.u = np.asarray(ranks, dtype=np.int64) - 1
        self.windows = _rank_rows(n, tuple(self.u.tolist()))
        # per rank, the open run [a0, a1) of a and [b0, b1) of b; the sure runs are [0, a0)
        # and [0, b0), F decreasing along each grid
        ends = (self.windows.sure_end, self.windows.open_end)
        self.runs = np.column_stack(
            [np.searchsorted(grid, end) for grid in (a_values, b_values) for end in ends]
        ).astype(np.int64)

    # the marginals on the whole grid (for the elementwise checks and the exact pmf; the
    # moments read them from the windows)
    @cached_property
    def below_a(self) -> np.ndarray:
        return _window_gather(self.windows.start, self.windows.below, self.a)

    @cached_property
    def below_b(self) -> np.ndarray:
        return _window_gather(self.windows.start, self.windows.below, self.b)

    @cached_property
    def sure_a(self) -> np.ndarray:
        return self.a[None, :] < self.windows.sure_end[:, None]

    @cached_property
    def sure_b(self) -> np.ndarray:
        return self.b[None, :] < self.windows.sure_end[:, None]

    @cached_property
    def open_a(self) -> np.ndarray:
        return ~self.sure_a & (self.a[None, :] < self.windows.open_end[:, None])

    @cached_property
    def open_b(self) -> np.ndarray:
        return ~self.sure_b & (self.b[None, :] < self.windows.open_end[:, None])

    def moments(self, weight_a, weight_b, pairs) -> tuple[np.ndarray, np.ndarray]:
        """Per rank, ``sum_{a,b} w_a w_b (L(a, b) - F_A(a) F_B(b))`` and
        ``mean_i L(a_i, b_i)``; the terms of the Lancaster series left out change the first by
        at most ``TOLERANCE``. The first is the covariance of ``sum_a w_a 1{N_A <= u}`` and
        ``sum_b w_b 1{N_B <= u}``, summed as such: no cancellation between
        ``E[XY]`` and ``E[X] E[Y]`` where both are near 1. Where a marginal is not open,
        ``L - F_A F_B`` is within ``1e-15`` of 0 (at most the other marginal's distance to 0
        or 1) and taken as 0."""
        weight_a, weight_b = (np.asarray(w, dtype=float) for w in (weight_a, weight_b))
        runs = self.runs
        # the ranks in increasing order, split into consecutive runs of about equal work
        order = np.argsort(self.u, kind="stable")
        per_row = np.bincount(pairs[0], minlength=self.a.size)
        work = _rank_work(runs, np.concatenate([[0], np.cumsum(per_row)]))[order]
        # first_column[t]: the b values at most negative t's classifier-2 rank (np.searchsorted
        # of it, side "right", by counting)
        first_column = np.cumsum(np.bincount(self.b, minlength=self.n + 1))[self.order1_rank2]
        return _lancaster_moments(
            self.n,
            self.u,
            order,
            _lane_bounds(work, numba.get_num_threads()),
            self.a,
            self.b,
            first_column,
            runs,
            self.windows.start,
            self.windows.below,
            self.windows.first,
            weight_a,
            weight_b,
            *pairs,
            _kept_values(self.n, self.u),
            _tables(self.n),
            _BAND_NUMBERS,
        )

    def values(self, k: np.ndarray, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
        """``L_k(a_ia, b_ib)`` elementwise, for pairs with both marginals open
        (:func:`lancaster_below`)."""
        a, b = self.a[ia], self.b[ib]
        rows, row = np.unique(a, return_inverse=True)
        cols, col = np.unique(b, return_inverse=True)
        c = overlaps(self.order1_rank2, rows, cols)[row, col]
        return lancaster_below(self.n, self.u[k], a, b, c)

    def _diagonal(self, ranks, pa: np.ndarray, pb: np.ndarray) -> np.ndarray:
        """``L_k(a_i, b_i)`` at ``ranks`` for each positive's pair where a marginal is not
        open: the other marginal if one is sure (~1), else 0 (the open pairs are filled in)."""
        sure_a, sure_b = self.sure_a[ranks][:, pa], self.sure_b[ranks][:, pb]
        return np.where(
            sure_a, self.below_b[ranks][:, pb], np.where(sure_b, self.below_a[ranks][:, pa], 0.0)
        )

    def grid(self, k: int) -> np.ndarray:
        """``L_k`` on the whole value grid."""
        out = np.where(
            self.sure_a[k][:, None],
            self.below_b[k][None, :],
            np.where(self.sure_b[k][None, :], self.below_a[k][:, None], 0.0),
        )
        ia, ib = np.nonzero(self.open_a[k][:, None] & self.open_b[k][None, :])
        out[ia, ib] = self.values(np.full(ia.shape, k), ia, ib)
        return out


#: What the mean over the positives' pairs costs per positive visited, against one pair of a
#: block (:func:`_rank_work`; a rough ratio: it only balances the lanes).
_POSITIVE_COST = 1.5


def _rank_work(runs: np.ndarray, positives_before: np.ndarray) -> np.ndarray:
    """Each rank's work in :func:`_lancaster_moments`, in pairs: its block's pairs and the
    positives :func:`_diagonal_mean` visits (those in rows before the open run's end;
    ``positives_before[ia]`` counts the positives in rows before ``ia``)."""
    pairs = (runs[:, 1] - runs[:, 0]) * (runs[:, 3] - runs[:, 2])
    return pairs + _POSITIVE_COST * positives_before[runs[:, 1]]


def _lane_bounds(work: np.ndarray, lanes: int) -> np.ndarray:
    """Where ``lanes`` lanes split the ranks (``work``: each one's, in the lanes' order) into
    consecutive runs of about equal work."""
    total = np.cumsum(work)
    shares = total[-1] * np.arange(1, lanes) / lanes if total.size else np.zeros(lanes - 1)
    inner = np.searchsorted(total, shares, side="right")
    return np.concatenate([[0], inner, [work.size]]).astype(np.int64)


def overlaps(order1_rank2: np.ndarray, a_values: np.ndarray, b_values: np.ndarray) -> np.ndarray:
    """``c[i, j] = |A_{a_i} & B_{b_j}|`` where ``A_a`` is the top ``a`` negatives of classifier 1
    and ``B_b`` of classifier 2, for increasing ``a_values`` and ``b_values`` (the grids of
    :class:`JointThresholdLaw`); ``order1_rank2[t]`` is the classifier-2 rank (0-based) of the
    ``t``-th best negative of classifier 1. ``O(n + |a| |b|)`` by a 2-D histogram."""
    n = order1_rank2.size
    # negative t is in A_a iff t < a; in B_b iff rank2 < b
    row = np.searchsorted(a_values, np.arange(n), side="right")
    col = np.searchsorted(b_values, order1_rank2, side="right")
    width = b_values.size + 1
    cells = np.bincount(row * width + col, minlength=(a_values.size + 1) * width)
    hist = cells.reshape(a_values.size + 1, width).astype(float)
    return np.cumsum(np.cumsum(hist, axis=0), axis=1)[:-1, :-1]
