"""The joint bootstrap law of two classifiers' thresholds at one FPR rank (Algorithm 4.4).

Under the stratified bootstrap of the negatives, the thresholds ``T1``, ``T2`` of two classifiers
at FPR ``r/n-`` are the ``r``-th largest resampled negative scores under each classifier (the same
resampled negatives). Their joint law enters the variance of ``TPR1 - TPR2`` only through
``L(a, b) = Pr{N_A <= r - 1, N_B <= r - 1}``, where ``N_A``, ``N_B`` count the resampled
negatives in the top ``a`` of classifier 1 and the top ``b`` of classifier 2; it depends on
``|A|, |B|, |A & B|`` only (:ref:`reading-paired-vertical`).

:class:`JointThresholdLaw` evaluates ``L`` on a grid of ``(a, b)`` for every rank at once:
exact small-count tables (:func:`small_count_table`, matrix products over coefficients cached
per ``n-``) where a count or its complement is small, and a Gaussian copula of the exact
binomial marginals (one bivariate normal CDF per pair, :func:`_copula_moments`) in between;
or exactly, by the Lancaster expansion (:func:`lancaster_below`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache

import numba
import numpy as np
from scipy import special

#: Counts of at most ``SMALL_COUNT - 1`` draws (in a set or in its complement) are summed
#: exactly by :func:`small_count_table`; in between, ``algorithm="hybrid"`` uses a Gaussian
#: copula. With ``n- <= 2 * SMALL_COUNT`` every rank is covered, so the result is exact.
SMALL_COUNT = 30

# marginal probabilities this close to 0 or 1 are treated as 0 or 1 (error <= 1e-15 per pair)
_NEGLIGIBLE = 1e-15


def _floored_logs(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``log p`` and ``log(1 - p)`` floored at ``-1e300``, so that ``0 * log 0 = 0`` (a sure
    outcome keeps probability 1) and sums of a few such terms stay finite."""
    with np.errstate(divide="ignore"):
        return np.maximum(np.log(p), -1e300), np.maximum(np.log1p(-p), -1e300)


def _log_comb(m: np.ndarray, size: int) -> np.ndarray:
    """``out[..., k] = log C(m, k)`` for ``k < size`` (``-inf`` for ``k > m``), as sums of
    ``log((m - t)/(t + 1))``: ``gammaln(m + 1) - ...`` would lose ``m * eps`` to cancellation."""
    t = np.arange(size - 1)
    with np.errstate(divide="ignore"):
        steps = np.log(np.maximum(np.asarray(m, dtype=float)[..., None] - t, 0)) - np.log1p(t)
    return np.concatenate([np.zeros((*np.shape(m), 1)), np.cumsum(steps, axis=-1)], axis=-1)


@dataclass(frozen=True)
class _CountTableCoefficients:
    """What :func:`small_count_table` needs that depends on ``(n, size)`` only: the
    polynomial coefficients ``poly[branch][x, i * size + j]`` (odds-ratio powers ``x``, cells
    ``(i, j)``), ``log C(n, i)`` and ``below[(i, j), u] = 1{max(i, j) <= u}``, which sums the
    joint pmf into the table."""

    poly: tuple[np.ndarray, np.ndarray]
    log_comb: np.ndarray
    below: np.ndarray


@lru_cache(maxsize=16)
def _count_table_coefficients(n: int, size: int) -> _CountTableCoefficients:
    i, j, x = np.ogrid[:size, :size, :size]
    low = np.minimum(i, j)
    # K[i, j, x] = C(i, x) C(n - i, j - x): x of the i draws in A also in B, j - x of the
    # n - i others in B (Fisher's noncentral hypergeometric weights); at most C(n, size) 2^size
    inside = _log_comb(np.arange(size), size)[i, x]
    outside = _log_comb(n - np.arange(size), size)[i, np.clip(j - x, 0, None)]
    poly_up = np.where(x <= low, np.exp(inside + outside), 0.0)
    # odds ratio > 1: the same polynomial in 1/odds, read from the top power min(i, j) down
    top = np.clip(low - x, 0, None).astype(int)
    poly_down = np.where(x <= low, np.take_along_axis(poly_up, top, axis=-1), 0.0)
    flat = (size * size, size)
    cells = np.arange(size)
    return _CountTableCoefficients(
        poly=(poly_up.reshape(flat).T.copy(), poly_down.reshape(flat).T.copy()),
        log_comb=_log_comb(n, size),
        below=(np.maximum(cells[:, None], cells[None, :]).ravel()[:, None] <= cells).astype(float),
    )


def _toeplitz(v: np.ndarray, size: int) -> np.ndarray:
    """View ``out[p, i, j] = v[p, i - j + size - 1]`` of ``v`` with ``2 size - 1`` columns."""
    return np.lib.stride_tricks.sliding_window_view(v, size, axis=1)[:, :, ::-1]


#: Pairs per block in :func:`small_count_table` (bounds its memory to ~size^2 * 24 bytes each).
_TABLE_BLOCK = 2048


def small_count_table(n: int, a, b, c, size: int) -> np.ndarray:
    """``out[..., u] = Pr{N_A <= u, N_B <= u}`` for ``u = 0 .. size - 1``, exactly.

    ``N_A``, ``N_B`` count the ``n`` uniform draws among ``n`` negatives that fall in sets of
    sizes ``a``, ``b`` with ``|A & B| = c`` (``size <= ceil(n / 2)``). Condition on
    ``N_A = i ~ Bin(n, a/n)`` (pmf ``b(i)``): ``N_B = X + Z`` with independent
    ``X ~ Bin(i, rho)``, ``rho = c/a``, and ``Z ~ Bin(n - i, tau)``, ``tau = (b - c)/(n - a)``,
    so with ``K[i, j, x] = C(i, x) C(n - i, j - x)`` and the odds ratio
    ``omega = rho (1 - tau) / ((1 - rho) tau)``

    ``Pr{N_A = i, N_B = j} = b(i) (1-rho)^i (1-tau)^(n-i) (tau/(1-tau))^j sum_x K[i,j,x] omega^x``.

    For ``omega > 1`` the sum is taken in ``1/omega`` from its top power ``min(i, j)``, and the
    prefactor becomes ``b(i) rho^i (1-tau)^(n-i) E(i - j)`` with ``E(d) = ((1-rho)/rho)^d``
    for ``d >= 0`` and ``(tau/(1-tau))^-d`` below. ``K`` depends on ``(n, size)`` only, so the
    sums for every pair are one matrix product; the prefactor is a product of per-pair vectors
    (``O(size)`` exponentials per pair); a third matrix product sums the cells
    ``max(i, j) <= u``. Every term is positive (no cancellation), powers of the odds ratio are
    at most 1, ratios at most ``n`` (so nothing overflows for ``n^size < 1e300``). ``O(size^3)``
    per pair, in BLAS.
    """
    a, b, c = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (a, b, c)))
    shape = a.shape
    a, b, c = a.ravel(), b.ravel(), c.ravel()
    coef = _count_table_coefficients(int(n), int(size))
    rho = np.where(a > 0, c / np.maximum(a, 1), 0.0)
    tau = np.where(a < n, (b - c) / np.maximum(n - a, 1), 0.0)
    rise, fall = rho * (1 - tau), (1 - rho) * tau
    down = rise > fall  # omega > 1, hence rho > 0 and tau < 1
    ratio = np.where(down, fall, rise) / np.where(down, rise, np.where(fall > 0, fall, 1.0))
    (la, l1a), (lr, l1r), (lt, l1t) = (_floored_logs(v) for v in (a / n, rho, tau))
    k = np.arange(size)
    shift = np.arange(2 * size - 1) - (size - 1)  # d = i - j
    out = np.zeros((a.size, size))
    # tau = 1 puts all n - i draws outside A in B: N_B >= n - size + 1 >= size, so out = 0
    for branch, rows in enumerate((np.flatnonzero(~down & (tau < 1)), np.flatnonzero(down))):
        for block in np.array_split(rows, -(-rows.size // _TABLE_BLOCK)) if rows.size else ():
            joint = ((ratio[block, None] ** k) @ coef.poly[branch]).reshape(-1, size, size)
            log_row = (
                coef.log_comb
                + la[block, None] * k
                + l1a[block, None] * (n - k)
                + (lr, l1r)[branch == 0][block, None] * k
                + l1t[block, None] * (n - k)
            )
            joint *= np.exp(log_row)[:, :, None]
            odds_tau = (lt - l1t)[block, None]
            if branch == 0:
                joint *= np.exp(odds_tau * k)[:, None, :]
            else:
                steps = np.where(shift >= 0, (l1r - lr)[block, None] * shift, -odds_tau * shift)
                joint *= _toeplitz(np.exp(steps), size)
            out[block] = joint.reshape(block.size, -1) @ coef.below
    return np.minimum(out, 1.0).reshape(*shape, size)


# --- exact joint law for any n: the Lancaster expansion of the bivariate binomial -----------


@lru_cache(maxsize=8)
def _open_ranges(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Per value ``a = 0 .. n``, the counts ``lo[a] <= u <= hi[a]`` at which
    ``Pr{Bin(n, a/n) <= u}`` is neither negligibly small nor negligibly close to 1 (the test of
    an open marginal, a little looser, so that rounding never leaves an open pair out).
    Computed once per ``n`` (``(n + 1) n`` binomial CDFs), read-only."""
    below = special.bdtr(np.arange(n)[None, :], n, np.arange(n + 1)[:, None] / n)
    keep = (below > _NEGLIGIBLE * 1e-3) & (below < 1 - _NEGLIGIBLE * 1e-3)
    lo = np.where(keep.any(axis=1), np.argmax(keep, axis=1), n)
    hi = np.where(keep.any(axis=1), n - 1 - np.argmax(keep[:, ::-1], axis=1), -1)
    lo.flags.writeable = hi.flags.writeable = False
    return lo, hi


class _KrawtchoukStore:
    """The Krawtchouk columns (:func:`_krawtchouk_block`) of the values ``0 .. n`` at
    ``counts``, where their marginals are open, as the rows of one matrix, each value's computed
    the first time it is asked for; ``where[a, j]`` is the row of ``(a, counts[j])`` (-1 where
    that marginal is not open)."""

    def __init__(self, n: int, counts: np.ndarray) -> None:
        lo, hi = _open_ranges(n)
        is_open = (counts[None, :] >= lo[:, None]) & (counts[None, :] <= hi[:, None])
        self.n, self.counts, self.is_open = n, counts, is_open
        numbering = np.cumsum(is_open.ravel()).reshape(is_open.shape) - 1
        self.where = np.where(is_open, numbering, -1)
        self.rows = np.zeros((int(is_open.sum()), n))
        self.done = np.zeros(n + 1, dtype=bool)

    def fill(self, values: np.ndarray) -> None:
        todo = np.unique(values[~self.done[values]])
        if todo.size:
            _fill_rows(self.n, todo, self.counts, self.is_open, self.where, self.rows)
            self.done[todo] = True


#: A store of at most this many numbers is kept for the next call with the same ``n`` and
#: counts (a simulation asks for the same values at the same ranks again and again); larger
#: ones (large ``n``) are built per call.
_STORE_KEPT = 1 << 23


@lru_cache(maxsize=4)
def _kept_store(n: int, counts: tuple[int, ...]) -> _KrawtchoukStore:
    return _KrawtchoukStore(n, np.asarray(counts, dtype=np.int64))


def _krawtchouk_store(n: int, counts: np.ndarray) -> _KrawtchoukStore:
    """The store for ``(n, counts)``: the kept one when it is small, else a fresh one."""
    if (n + 1) * counts.size * n <= 4 * _STORE_KEPT:
        store = _kept_store(n, tuple(counts.tolist()))
        if store.rows.size <= _STORE_KEPT:
            return store
    return _KrawtchoukStore(n, counts)


@numba.njit(cache=True)
def _krawtchouk_block(n, p, counts):  # pragma: no cover - compiled
    """Rows ``x`` in ``counts``: ``v_k = e_k(x) sqrt(Bin(x; N, p))``, ``k = 0 .. N = n - 1``, by
    the three-term recurrence ``x e_k = s_{k+1} e_{k+1} + a_k e_k + s_k e_{k-1}`` with
    ``a_k = k (1 - 2p) + N p``, ``s_k = sqrt(k (N - k + 1) p q)``.

    At a support point the sequence grows (or oscillates) and then decays in ``k``; the forward
    recurrence is stable until the decay, the backward one from ``k = N`` after it. So the
    forward pass (from ``v_0 = sqrt(Bin(x))``) runs to the most oscillatory degree ``m`` (the
    largest ``4 s_k s_{k+1} - (x - a_k)^2``), the backward pass (from ``v_N = 1``, rescaled
    whenever it grows past 1e150) down to it, and the backward values are scaled to the forward
    ones at ``m - 1 .. m + 1``."""
    big_n, q = n - 1, 1.0 - p
    out = np.zeros((counts.size, n))
    diag, off = np.empty(n), np.zeros(n + 1)
    for k in range(n):
        diag[k] = k * (1 - 2 * p) + big_n * p
    for k in range(1, n):
        off[k] = math.sqrt(k * (big_n - k + 1) * p * q)
    back = np.zeros(n)
    for row in range(counts.size):
        x, v = counts[row], out[row]
        best, split = -np.inf, big_n  # forward only when n - 1 <= 1
        for k in range(1, big_n):
            gap = 4 * off[k] * off[k + 1] - (x - diag[k]) ** 2
            if gap > best:
                best, split = gap, k
        log_weight = (
            math.lgamma(big_n + 1)
            - math.lgamma(x + 1)
            - math.lgamma(big_n - x + 1)
            + x * math.log(p)
            + (big_n - x) * math.log(q)
        )
        v[0] = math.exp(0.5 * log_weight)
        if big_n == 0:
            continue
        v[1] = (x - diag[0]) * v[0] / off[1]
        for k in range(1, min(split + 2, big_n)):
            v[k + 1] = ((x - diag[k]) * v[k] - off[k] * v[k - 1]) / off[k + 1]
        if split + 1 >= big_n:
            continue
        back[:] = 0.0
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
    return out


@numba.njit(cache=True, parallel=True)
def _fill_rows(n, values, counts, is_open, where, rows):  # pragma: no cover - compiled
    """:func:`_krawtchouk_block` of each value at its open counts, into its rows of ``rows``
    (``where``): the values are independent, so they run on every core, the same numbers."""
    for t in numba.prange(values.size):
        value = values[t]
        open_counts = np.flatnonzero(is_open[value])
        block = _krawtchouk_block(n, value / n, counts[open_counts])
        for s in range(open_counts.size):
            rows[where[value, open_counts[s]]] = block[s]


def lancaster_below(n: int, u, a, b, c) -> np.ndarray:
    """``Pr{N_A <= u, N_B <= u}`` exactly, elementwise, for pairs whose marginals are open.

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
    ``x`` are a binomial CDF in ``p - q t``). With ``Q`` of :func:`_krawtchouk_block`,

    ``Pr{N_A <= u, N_B <= u} = F_A F_B + n s_a s_b Q_a[0, u] Q_b[0, u]
    sum_{k=0}^{n-1} rho^(k+1) / (k + 1) Q_a[k, u] Q_b[k, u]``,

    ``s = sqrt(p q)``. The columns are unit vectors, so the ``k``-th term is at most
    ``|rho|^(k+1)``: the sum stops once the rest is below ``1e-17`` (all ``n`` terms when
    ``|rho| = 1``), and carries no cancellation beyond its roundings. ``O(n)`` per pair, compiled,
    once the columns are known (``O(n)`` each, kept across calls by :class:`_KrawtchoukStore`).
    Each pair's value depends on that pair only, whatever else is evaluated with it.
    """
    u, a, b, c = (np.asarray(v).ravel() for v in (u, a, b, c))
    counts, count_index = np.unique(u, return_inverse=True)
    store = _krawtchouk_store(n, counts)
    store.fill(np.concatenate([a, b]))
    product = special.bdtr(u, n, a / n) * special.bdtr(u, n, b / n)
    row_a, row_b = store.where[a, count_index], store.where[b, count_index]
    return _lancaster_values(n, a, b, c.astype(float), product, store.rows, row_a, row_b)


@numba.njit(cache=True)
def _lancaster_pair(n, a, b, c, product, rows, row_a, row_b, inverse):  # pragma: no cover
    """One pair of :func:`lancaster_below`, given ``F_A F_B`` (``product``) and the rows of its
    two Krawtchouk columns; the sum stops once what the rest adds to ``L`` is below ``1e-17``
    (bounded by ``|rho|^(k+1) / ((k + 1) (1 - |rho|))`` times the factor in front of it)."""
    pa, pb = a / n, b / n
    spread = math.sqrt(pa * (1 - pa) * pb * (1 - pb))
    if spread == 0.0:
        return product
    r = min(max((c / n - pa * pb) / spread, -1.0), 1.0)
    head = n * spread * rows[row_a, 0] * rows[row_b, 0]
    # the terms from k on add at most head |rho|^(k+1) / ((k + 1) (1 - |rho|)) to L
    stop = 1e-17 * (1.0 - abs(r)) / max(head, 1e-300)
    # four interleaved partial sums (powers stepping by rho^4), so that the additions do not
    # wait on each other; the test for the rest runs once per four terms
    step = r * r * r * r
    p0, p1, p2, p3 = r, r * r, r * r * r, step
    s0 = s1 = s2 = s3 = 0.0
    k = 0
    while k + 4 <= n:
        s0 += p0 * rows[row_a, k] * rows[row_b, k] * inverse[k]
        s1 += p1 * rows[row_a, k + 1] * rows[row_b, k + 1] * inverse[k + 1]
        s2 += p2 * rows[row_a, k + 2] * rows[row_b, k + 2] * inverse[k + 2]
        s3 += p3 * rows[row_a, k + 3] * rows[row_b, k + 3] * inverse[k + 3]
        p0 *= step
        p1 *= step
        p2 *= step
        p3 *= step
        k += 4
        if abs(p0) < stop * (k + 1):
            break
    if abs(p0) >= stop * (k + 1):
        while k < n:
            s0 += p0 * rows[row_a, k] * rows[row_b, k] * inverse[k]
            p0 *= r
            k += 1
    total = (s0 + s1) + (s2 + s3)
    return min(max(product + head * total, 0.0), 1.0)


@numba.njit(cache=True)
def _lancaster_values(n, a, b, c, product, rows, row_a, row_b):  # pragma: no cover - compiled
    """:func:`_lancaster_pair` elementwise."""
    out, inverse = np.empty(product.size), 1.0 / np.arange(1, n + 1)
    for p in range(product.size):
        out[p] = _lancaster_pair(
            n, a[p], b[p], c[p], product[p], rows, row_a[p], row_b[p], inverse
        )
    return out


# --- the exact moments: four pairs of a row side by side --------------------------------------
# A pair's sum (:func:`_lancaster_pair`) is a chain of dependent additions, so one pair at a time
# leaves the CPU waiting; four pairs of a row run side by side as the lanes of 4-tuples, which
# LLVM's SLP vectorizer packs into vector instructions (:func:`_slp_vectorized`). Each lane
# performs its pair's operations in the same order, so every value is the same to the last bit.

_LANES = 4


@numba.njit(inline="always")
def _times(x, y):  # pragma: no cover - compiled
    return (x[0] * y[0], x[1] * y[1], x[2] * y[2], x[3] * y[3])


@numba.njit(inline="always")
def _plus(x, y):  # pragma: no cover - compiled
    return (x[0] + y[0], x[1] + y[1], x[2] + y[2], x[3] + y[3])


@numba.njit(inline="always")
def _each(v):  # pragma: no cover - compiled
    return (v, v, v, v)


@numba.njit(inline="always")
def _lanes(row, first):  # pragma: no cover - compiled
    # unsigned offsets: no negative-index test between the four loads, so they stay adjacent
    return (row[first], row[first + _ONE], row[first + _TWO], row[first + _THREE])


_ONE, _TWO, _THREE = np.uint64(1), np.uint64(2), np.uint64(3)


@numba.njit(inline="always")
def _blocks(r, step, stop, n):  # pragma: no cover - compiled
    """The loop of :func:`_lancaster_pair` run on the powers only: ``(blocks, last, tail)``,
    the blocks of four terms the pair sums, the last one if its rest then became negligible
    (else -1), and whether it goes on term by term to ``n``."""
    power, k = r, 0
    while k + 4 <= n:
        power *= step
        k += 4
        if abs(power) < stop * (k + 1):
            return k // 4, k // 4, False
    return k // 4, -1, abs(power) >= stop * (k + 1)


@numba.njit(inline="always")
def _lane_sums(r, stop, ra, columns, first, inverse, n):  # pragma: no cover - compiled
    """The sums ``(s0 + s1) + (s2 + s3)`` of :func:`_lancaster_pair` for four pairs sharing
    the row ``ra``, whose other rows are lanes ``first .. first + 3`` of ``columns`` (term by
    term). A lane whose rest is negligible gets powers of 0 from its last block on: it adds
    zeros (a sum is never -0.0, so that changes nothing) while the others go on."""
    step = _times(_times(_times(r, r), r), r)
    b0, last0, tail0 = _blocks(r[0], step[0], stop[0], n)
    b1, last1, tail1 = _blocks(r[1], step[1], stop[1], n)
    b2, last2, tail2 = _blocks(r[2], step[2], stop[2], n)
    b3, last3, tail3 = _blocks(r[3], step[3], stop[3], n)
    p0 = r
    p1 = _times(r, r)
    p2 = _times(p1, r)
    p3 = step
    s0 = s1 = s2 = s3 = _each(0.0)
    for block in range(max(max(b0, b1), max(b2, b3))):
        k = 4 * block
        s0 = _plus(
            s0,
            _times(_times(_times(p0, _each(ra[k])), _lanes(columns[k], first)), _each(inverse[k])),
        )
        s1 = _plus(
            s1,
            _times(
                _times(_times(p1, _each(ra[k + 1])), _lanes(columns[k + 1], first)),
                _each(inverse[k + 1]),
            ),
        )
        s2 = _plus(
            s2,
            _times(
                _times(_times(p2, _each(ra[k + 2])), _lanes(columns[k + 2], first)),
                _each(inverse[k + 2]),
            ),
        )
        s3 = _plus(
            s3,
            _times(
                _times(_times(p3, _each(ra[k + 3])), _lanes(columns[k + 3], first)),
                _each(inverse[k + 3]),
            ),
        )
        done = block + 1
        if done == last0 or done == last1 or done == last2 or done == last3:
            step = _times(
                step,
                (
                    0.0 if done == last0 else 1.0,
                    0.0 if done == last1 else 1.0,
                    0.0 if done == last2 else 1.0,
                    0.0 if done == last3 else 1.0,
                ),
            )
        p0 = _times(p0, step)
        p1 = _times(p1, step)
        p2 = _times(p2, step)
        p3 = _times(p3, step)
    k = 4 * max(max(b0, b1), max(b2, b3))
    if tail0 or tail1 or tail2 or tail3:
        p0 = _times(p0, (1.0 * tail0, 1.0 * tail1, 1.0 * tail2, 1.0 * tail3))
        while k < n:
            term = _times(_times(p0, _each(ra[k])), _lanes(columns[k], first))
            s0 = _plus(s0, _times(term, _each(inverse[k])))
            p0 = _times(p0, r)
            k += 1
    return _plus(_plus(s0, s1), _plus(s2, s3))


@numba.njit(inline="always")
def _pair_start(pa, pb, c, ra0, rb0, n):  # pragma: no cover - compiled
    """``(rho, head, stop)`` of :func:`_lancaster_pair` for one pair; where the spread is 0
    (also a padding lane, ``pb = 0``) no terms: rho 0, head 0, stop 1. Without branches, so
    that the four lanes' starts vectorize too (the kernel's error model gives inf/NaN on a
    division by 0 instead of raising; those lanes' values are then replaced)."""
    spread = math.sqrt(pa * (1 - pa) * pb * (1 - pb))
    rho = min(max((c / n - pa * pb) / spread, -1.0), 1.0)
    head = n * spread * ra0 * rb0
    stop = 1e-17 * (1.0 - abs(rho)) / max(head, 1e-300)
    none = spread == 0.0
    return 0.0 if none else rho, 0.0 if none else head, 1.0 if none else stop


@numba.njit(cache=True, parallel=True, error_model="numpy")
def _lancaster_moments(
    n,
    counts,
    a_values,
    b_values,
    overlap,
    open_a,
    open_b,
    below_a,
    below_b,
    weight_a,
    weight_b,
    rows,
    where,
    pair_a,
    pair_b,
):  # pragma: no cover - compiled
    """Per rank ``k``, ``sum w_a w_b L_k(a, b)`` over the pairs with both marginals open, and
    ``L_k(a_i, b_i)`` for each positive's pair ``(pair_a[i], pair_b[i])`` that is open (NaN
    where it is not); ``counts[k]`` is the column index of rank ``k`` in ``where``. The ranks
    are independent, so they run on every core with the same sums in the same order; within a
    row, four pairs at a time (:func:`_lane_sums`), each the value of :func:`_lancaster_pair`."""
    ranks = open_a.shape[0]
    total = np.zeros(ranks)
    diagonal = np.full((ranks, pair_a.size), np.nan)
    inverse = 1.0 / np.arange(1, n + 1)
    for k in numba.prange(ranks):
        j = counts[k]
        # the open marginals of a rank are a run of each grid: its block, kept for the diagonal
        open_rows, open_cols = np.flatnonzero(open_a[k]), np.flatnonzero(open_b[k])
        if open_rows.size == 0 or open_cols.size == 0:
            continue
        ia0, ib0 = open_rows[0], open_cols[0]
        block = np.empty((open_rows[-1] + 1 - ia0, open_cols[-1] + 1 - ib0))
        # the open columns' Krawtchouk rows, term by term (padded to whole sets of lanes)
        width = -(-open_cols.size // _LANES) * _LANES
        columns = np.zeros((n, width))
        pb = np.zeros(width)
        for s in range(open_cols.size):
            row_b = where[b_values[open_cols[s]], j]
            for t in range(n):
                columns[t, s] = rows[row_b, t]
            pb[s] = b_values[open_cols[s]] / n
        overlap_row = np.zeros(width)
        sum_k = 0.0
        for ia in open_rows:
            ra = rows[where[a_values[ia], j]]
            pa = a_values[ia] / n
            for s in range(open_cols.size):
                overlap_row[s] = overlap[ia, open_cols[s]]
            for first in range(0, width, _LANES):
                r0, h0, t0 = _pair_start(
                    pa, pb[first], overlap_row[first], ra[0], columns[0, first], n
                )
                r1, h1, t1 = _pair_start(
                    pa, pb[first + 1], overlap_row[first + 1], ra[0], columns[0, first + 1], n
                )
                r2, h2, t2 = _pair_start(
                    pa, pb[first + 2], overlap_row[first + 2], ra[0], columns[0, first + 2], n
                )
                r3, h3, t3 = _pair_start(
                    pa, pb[first + 3], overlap_row[first + 3], ra[0], columns[0, first + 3], n
                )
                head = (h0, h1, h2, h3)
                sums = _lane_sums(
                    (r0, r1, r2, r3), (t0, t1, t2, t3), ra, columns, np.uint64(first), inverse, n
                )
                for lane in range(min(_LANES, open_cols.size - first)):
                    ib = open_cols[first + lane]
                    product = below_a[k, ia] * below_b[k, ib]
                    value = min(max(product + head[lane] * sums[lane], 0.0), 1.0)
                    block[ia - ia0, ib - ib0] = value
                    sum_k += weight_a[ia] * weight_b[ib] * value
        total[k] = sum_k
        for i in range(pair_a.size):
            if open_a[k, pair_a[i]] and open_b[k, pair_b[i]]:
                diagonal[k, i] = block[pair_a[i] - ia0, pair_b[i] - ib0]
    return total, diagonal


@contextmanager
def _slp_vectorized() -> Iterator[None]:
    """LLVM's SLP vectorizer on while a kernel compiles (numba leaves it off by default): it
    packs the lanes of :func:`_lane_sums` into vector instructions. It changes no result:
    without fast-math flags each lane keeps its IEEE operations and their order."""
    before = numba.core.config.SLP_VECTORIZE
    numba.core.config.SLP_VECTORIZE = 1
    try:
        yield
    finally:
        numba.core.config.SLP_VECTORIZE = before


#: Up to this many negatives the marginals of :func:`_binomial_below` are cached as whole rows.
_CACHED_ROWS = 5000


@lru_cache(maxsize=64)
def _binomial_rows(n: int, u: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    below = special.bdtr(np.asarray(u)[:, None], n, np.arange(n + 1) / n)
    return below, special.ndtri(below)


def _binomial_below(n: int, u: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``out[k, j] = Pr{Bin(n, a_j/n) <= u_k}`` and its standard normal quantile, for integer
    ``a``. They depend on ``(n, u, a)`` only, so up to ``_CACHED_ROWS`` negatives the rows over
    every ``a`` are computed once per grid of ranks and shared by every data set of a
    simulation."""
    u = np.asarray(u, dtype=np.int64)
    if n <= _CACHED_ROWS:
        below, probit = _binomial_rows(n, tuple(u.tolist()))
        return below[:, a], probit[:, a]
    a = np.asarray(a)
    below = (a[None, :] < u[:, None]).astype(float)  # beyond the window: 1 below u, 0 above
    # Each row is computed within _WINDOW_SPREADS spreads (plus _WINDOW_SLACK) of u only: a
    # binomial count is that far from its mean with probability below 1e-25 (Chernoff), far
    # below the 1e-15 at which a marginal is open.
    spread = np.sqrt(np.minimum(u, n - 1 - u) + 1.0)
    half = _WINDOW_SPREADS * spread + _WINDOW_SLACK
    start = np.searchsorted(a, u - half, side="left")
    stop = np.searchsorted(a, u + half, side="right")
    for k in range(u.size):
        inside = slice(start[k], stop[k])
        below[k, inside] = special.bdtr(u[k], n, a[inside] / n)
    return below, special.ndtri(below)


# Half-width of the window of :func:`_binomial_below` at large n, in binomial spreads plus a
# slack for the Poisson-like ends (u near 0 or n)
_WINDOW_SPREADS, _WINDOW_SLACK = 12.0, 40.0


# --- the hybrid's Gaussian copula, compiled: one pass per rank over its open block ----------

# Gauss-Legendre nodes in (-1, 0) and weights of 6, 12 and 20 points (Genz 2004, Table 1), by
# the three correlation ranges of his algorithm; rows padded to 10 nodes.
_GL_COUNTS = np.array([3, 6, 10])
_GL_NODES = np.zeros((3, 10))
_GL_WEIGHTS = np.zeros((3, 10))
for _row, _points in enumerate((6, 12, 20)):
    _x, _w = np.polynomial.legendre.leggauss(_points)
    _GL_NODES[_row, : _points // 2], _GL_WEIGHTS[_row, : _points // 2] = (
        _x[: _points // 2],
        _w[: _points // 2],
    )


@numba.njit(cache=True)
def _normal_sf(x):  # pragma: no cover - compiled
    return 0.5 * math.erfc(x / math.sqrt(2.0))


@numba.njit(cache=True)
def _sin_small(x):  # pragma: no cover - compiled
    """``sin x`` for ``|x| <= 1.2`` (the angles of :func:`_bivariate_normal_cdf`): its Taylor
    series to ``x^19`` (coefficients ``(-1)^j / (2j + 1)!``), whose remainder is below
    ``1.2^21 / 21! < 1e-17``; multiplications the compiler can interleave, not a libm call."""
    y = x * x
    return x * (
        1
        + y
        * (
            -1 / 6
            + y
            * (
                1 / 120
                + y
                * (
                    -1 / 5040
                    + y
                    * (
                        1 / 362880
                        + y
                        * (
                            -1 / 39916800
                            + y
                            * (
                                1 / 6227020800
                                + y
                                * (
                                    -1 / 1307674368000
                                    + y * (1 / 355687428096000 + y * (-1 / 121645100408832000))
                                )
                            )
                        )
                    )
                )
            )
        )
    )


@numba.njit(cache=True)
def _bivariate_normal_cdf(h, k, r, nodes, weights, counts, sines):  # pragma: no cover
    """``Pr{X <= h, Y <= k}`` for standard normals of correlation ``r`` (``|r| <= 1``), to
    about 1e-15: Genz's (2004) method for ``Pr{X > -h, Y > -k}``. For ``|r| < 0.925`` the
    Drezner-Wesolowsky (1990) integral over ``asin r`` by Gauss-Legendre with 6, 12 or 20
    nodes; beyond, the integral in ``sqrt(1 - r^2)`` after subtracting its singular part.
    ``sines``: scratch for 20 numbers (the sines at the nodes, all computed before the
    exponentials, so that neither loop waits on the other)."""
    h, k = -h, -k
    g = 0 if abs(r) < 0.3 else (1 if abs(r) < 0.75 else 2)
    hk, bvn = h * k, 0.0
    if abs(r) < 0.925:
        hs, asr = (h * h + k * k) / 2, math.asin(r)
        for i in range(counts[g]):
            sines[2 * i] = _sin_small(asr * (1 - nodes[g, i]) / 2)
            sines[2 * i + 1] = _sin_small(asr * (1 + nodes[g, i]) / 2)
        for i in range(counts[g]):
            low, high = sines[2 * i], sines[2 * i + 1]
            bvn += weights[g, i] * (
                math.exp((low * hk - hs) / (1 - low * low))
                + math.exp((high * hk - hs) / (1 - high * high))
            )
        return min(max(bvn * asr / (4 * math.pi) + _normal_sf(h) * _normal_sf(k), 0.0), 1.0)
    if r < 0:
        k, hk = -k, -hk
    if abs(r) < 1:
        squared = (1 - r) * (1 + r)
        a, bs = math.sqrt(squared), (h - k) ** 2
        c, d = (4 - hk) / 8, (12 - hk) / 16
        asr = -(bs / squared + hk) / 2
        if asr > -100:
            bvn = (
                a
                * math.exp(asr)
                * (1 - c * (bs - squared) * (1 - d * bs / 5) / 3 + c * d * squared * squared / 5)
            )
        if hk > -100:
            b = math.sqrt(bs)
            singular = math.exp(-hk / 2) * math.sqrt(2 * math.pi) * _normal_sf(b / a)
            bvn -= singular * b * (1 - c * bs * (1 - d * bs / 5) / 3)
        a /= 2
        for i in range(counts[g]):
            for sign in (-1.0, 1.0):
                xs = (a + a * sign * nodes[g, i]) ** 2
                rs = math.sqrt(1 - xs)
                asr = -(bs / xs + hk) / 2
                if asr > -100:
                    inner = math.exp(-hk * (1 - rs) / (2 * (1 + rs))) / rs
                    bvn += (
                        a * weights[g, i] * math.exp(asr) * (inner - (1 + c * xs * (1 + d * xs)))
                    )
        bvn = -bvn / (2 * math.pi)
    if r > 0:
        bvn += _normal_sf(max(h, k))
    elif h >= k:
        bvn = -bvn
    else:
        gap = _normal_sf(-k) - _normal_sf(-h) if h < 0 else _normal_sf(h) - _normal_sf(k)
        bvn = gap - bvn
    return min(max(bvn, 0.0), 1.0)


@numba.njit(cache=True, parallel=True)
def _copula_moments(
    n,
    ranks,
    a_values,
    b_values,
    first_column,
    open_a,
    open_b,
    sure_a,
    sure_b,
    below_a,
    below_b,
    probit_a,
    probit_b,
    weight_a,
    weight_b,
    pair_a,
    pair_b,
    nodes,
    weights,
    counts,
):  # pragma: no cover - compiled
    """At each rank ``k`` of ``ranks``, ``sum w_a w_b L_k(a, b)`` over its open block and
    ``sum_i L_k(a_i, b_i)`` over the positives, ``L`` the Gaussian copula of the two exact
    marginals (normal quantiles ``probit``) with the multinomial correlation
    ``(c/n - p_a p_b) / sqrt(p_a q_a p_b q_b)``.

    The overlaps ``c = |A_a & B_b|`` are counted on the way, never stored for the whole grid:
    negative ``t`` (classifier-1 order) is in ``A_a`` iff ``t < a`` and in ``B_{b_j}`` iff
    ``j >= first_column[t]``, so walking down the block's rows adds each negative once to a
    histogram over the block's columns, and a row's overlaps are its running sum. ``O(n)`` per
    rank plus one bivariate normal CDF per open pair."""
    totals, diagonals = np.zeros(ranks.size), np.zeros(ranks.size)
    for slot in numba.prange(ranks.size):  # ranks are independent: the same sums on any thread
        k = ranks[slot]
        open_rows, open_cols = np.flatnonzero(open_a[k]), np.flatnonzero(open_b[k])
        if open_rows.size and open_cols.size:
            ia0, ib0 = open_rows[0], open_cols[0]
            rows, width = open_rows[-1] + 1 - ia0, open_cols[-1] + 1 - ib0
        else:
            ia0 = ib0 = rows = width = 0
        block, sines = np.empty((rows, width)), np.empty(20)
        spread_b = np.empty(width)
        for j in range(width):
            pb = b_values[ib0 + j] / n
            spread_b[j] = math.sqrt(pb * (1 - pb))
        histogram = np.zeros(width, dtype=np.int64)
        common, t, total = 0, 0, 0.0
        for i in range(rows):
            a = a_values[ia0 + i]
            while t < a:
                column = first_column[t] - ib0
                if column <= 0:
                    common += 1  # in B_b for every column of the block
                elif column < width:
                    histogram[column] += 1
                t += 1
            pa = a / n
            spread_a, h = math.sqrt(pa * (1 - pa)), probit_a[k, ia0 + i]
            overlap, row_sum = common, 0.0
            for j in range(width):
                overlap += histogram[j]
                pb = b_values[ib0 + j] / n
                rho = (overlap / n - pa * pb) / (spread_a * spread_b[j])
                rho = min(max(rho, -1.0), 1.0)
                value = _bivariate_normal_cdf(
                    h, probit_b[k, ib0 + j], rho, nodes, weights, counts, sines
                )
                block[i, j] = value
                row_sum += weight_b[ib0 + j] * value
            total += weight_a[ia0 + i] * row_sum
        totals[slot] = total
        diagonal = 0.0
        for p in range(pair_a.size):
            ia, ib = pair_a[p], pair_b[p]
            if open_a[k, ia] and open_b[k, ib]:
                diagonal += block[ia - ia0, ib - ib0]
            elif sure_a[k, ia]:
                diagonal += below_b[k, ib]
            elif sure_b[k, ib]:
                diagonal += below_a[k, ia]
        diagonals[slot] = diagonal
    return totals, diagonals


#: Pairs of threshold values evaluated at once by :meth:`JointThresholdLaw.moments`.
_PAIR_BLOCK = 1 << 21


class JointThresholdLaw:
    """``L_k(a, b) = Pr{N_A <= u_k, N_B <= u_k}`` at the ranks ``u_k = r_k - 1`` for the value
    grid ``a_values x b_values`` (sorted integers); ``order1_rank2[t]`` is the classifier-2 rank
    (0-based) of the ``t``-th best negative of classifier 1, which gives the overlaps
    ``|A_a & B_b|`` (:func:`overlaps`).

    ``exact=True``: :func:`lancaster_below` for every pair. Otherwise (the hybrid): exact
    tables where ``u`` or ``n - 1 - u`` is below ``small`` (complement sets turn the upper end
    into small counts), built once for the part of the grid where the marginals are not
    negligible; in between, the Gaussian copula of :func:`_copula_moments`, which counts the
    overlaps of each rank's block as it goes (the whole grid of overlaps has ``O(n^2)``
    entries at large ``n``).

    Where a marginal is negligible (within ``1e-15`` of 0 or 1) no joint law is needed:
    ``L = 0`` if either is ~0, the other marginal if one is ~1; the pairs with both marginals
    *open* form, at each rank, a block of the grid.
    """

    def __init__(
        self, n: int, a_values, b_values, order1_rank2, ranks, *, exact: bool, small: int = 0
    ):
        # with small = ceil(n/2) the two tables already cover every rank
        self.n, self.small, self.exact = n, min(small, -(-n // 2)), exact
        self.a, self.b, self.order1_rank2 = a_values, b_values, order1_rank2
        self.u = np.asarray(ranks, dtype=np.int64) - 1
        self._marginals(n, a_values, b_values)
        if exact:
            self.c = overlaps(order1_rank2, a_values, b_values)
            # one matrix of rows for both classifiers, so that the kernel reads rows by index
            counts, self.count_index = np.unique(self.u, return_inverse=True)
            self.store = _krawtchouk_store(n, counts)
            self.store.fill(np.concatenate([a_values, b_values]))
        else:
            self._tables(n, a_values, b_values)

    def _tables(self, n: int, a_values, b_values) -> None:
        # looser than the test for an open marginal, so that every pair found open has a
        # table entry despite rounding
        u_low, keep = [self.small - 1], _NEGLIGIBLE * 1e-3
        keep_a = _binomial_below(n, u_low, a_values)[0][0] > keep
        keep_b = _binomial_below(n, u_low, b_values)[0][0] > keep
        self.low = self._table(keep_a, keep_b, complement=False)
        # Pr{N_A > u, N_B > u} = Pr{N_A' <= n - 1 - u, N_B' <= n - 1 - u} for the complements
        keep_a = _binomial_below(n, u_low, n - a_values)[0][0] > keep
        keep_b = _binomial_below(n, u_low, n - b_values)[0][0] > keep
        self.high = self._table(keep_a, keep_b, complement=True)

    def _marginals(self, n: int, a_values, b_values) -> None:
        self.below_a, self.probit_a = _binomial_below(n, self.u, a_values)
        self.below_b, self.probit_b = _binomial_below(n, self.u, b_values)
        self.sure_a = self.below_a >= 1 - _NEGLIGIBLE
        self.sure_b = self.below_b >= 1 - _NEGLIGIBLE
        self.open_a = ~self.sure_a & (self.below_a > _NEGLIGIBLE)
        self.open_b = ~self.sure_b & (self.below_b > _NEGLIGIBLE)

    def _table(self, keep_a, keep_b, *, complement: bool):
        rows, cols = np.flatnonzero(keep_a), np.flatnonzero(keep_b)
        index_a = np.full(keep_a.size, -1)
        index_b = np.full(keep_b.size, -1)
        index_a[rows], index_b[cols] = np.arange(rows.size), np.arange(cols.size)
        a, b = self.a[rows][:, None], self.b[cols][None, :]
        c = overlaps(self.order1_rank2, self.a[rows], self.b[cols])
        if complement:
            a, b, c = self.n - a, self.n - b, self.n - a - b + c
        return index_a, index_b, small_count_table(self.n, a, b, c, self.small)

    def values(self, k: np.ndarray, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
        """``L_k(a_ia, b_ib)`` elementwise, for pairs with both marginals open (the hybrid:
        at the ranks of its tables only, :meth:`_table_ranks`)."""
        n, u = self.n, self.u[k]
        if self.exact:
            return self._lancaster(k, ia, ib)
        out = np.empty(k.shape)
        low, high = u < self.small, n - 1 - u < self.small
        index_a, index_b, grid = self.low
        out[low] = grid[index_a[ia[low]], index_b[ib[low]], u[low]]
        high &= ~low
        index_a, index_b, grid = self.high
        both_above = grid[index_a[ia[high]], index_b[ib[high]], n - 1 - u[high]]
        kh, ah, bh = k[high], ia[high], ib[high]
        out[high] = np.clip(self.below_a[kh, ah] + self.below_b[kh, bh] - 1 + both_above, 0, 1)
        return out

    def _table_ranks(self) -> np.ndarray:
        """The hybrid's ranks read from its exact tables (the others use the copula)."""
        return np.flatnonzero((self.u < self.small) | (self.n - 1 - self.u < self.small))

    def _lancaster(self, k: np.ndarray, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
        a, b, j = self.a[ia], self.b[ib], self.count_index[k]
        return _lancaster_values(
            self.n,
            a,
            b,
            self.c[ia, ib].astype(float),
            self.below_a[k, ia] * self.below_b[k, ib],
            self.store.rows,
            self.store.where[a, j],
            self.store.where[b, j],
        )

    def _open_blocks(self, ranks: np.ndarray):
        """Every open pair at the ranks ``ranks`` (indices into ``u``): ``(k, ia, ib)`` flat,
        rank by rank, row-major within a rank, and each rank's offset into them."""
        count_a = self.open_a[ranks].sum(axis=1)
        count_b = self.open_b[ranks].sum(axis=1)
        list_a = np.nonzero(self.open_a[ranks])[1]
        list_b = np.nonzero(self.open_b[ranks])[1]
        start_a, start_b = np.cumsum(count_a) - count_a, np.cumsum(count_b) - count_b
        sizes = count_a * count_b
        offset = np.cumsum(sizes) - sizes
        which = np.repeat(np.arange(ranks.size), sizes)
        local = np.arange(sizes.sum()) - offset[which]
        ia = list_a[start_a[which] + local // np.maximum(count_b[which], 1)]
        ib = list_b[start_b[which] + local % np.maximum(count_b[which], 1)]
        return ranks[which], ia, ib, offset, count_b

    def _rank_groups(self, ranks: np.ndarray) -> list[np.ndarray]:
        sizes = self.open_a[ranks].sum(axis=1) * self.open_b[ranks].sum(axis=1)
        group = np.cumsum(sizes) // _PAIR_BLOCK
        return [ranks[group == g] for g in np.unique(group)]

    def moments(self, weight_a, weight_b, pairs) -> tuple[np.ndarray, np.ndarray]:
        """Per rank, ``sum_{a,b} w_a w_b L(a, b)`` and ``mean_i L(a_i, b_i)``."""
        below_a, below_b, sure_a, sure_b = self.below_a, self.below_b, self.sure_a, self.sure_b
        weight_a, weight_b = (np.asarray(w, dtype=float) for w in (weight_a, weight_b))
        product = (sure_a @ weight_a) * (below_b @ weight_b) + (
            (below_a * self.open_a) @ weight_a
        ) * (sure_b @ weight_b)
        pa, pb = pairs
        if self.exact:
            with _slp_vectorized():  # in effect if this call compiles the kernel
                open_sum, open_diagonal = _lancaster_moments(
                    self.n,
                    self.count_index,
                    self.a,
                    self.b,
                    self.c.astype(float),
                    self.open_a,
                    self.open_b,
                    below_a,
                    below_b,
                    weight_a,
                    weight_b,
                    self.store.rows,
                    self.store.where,
                    pa,
                    pb,
                )
            diagonal = np.where(
                np.isnan(open_diagonal), self._diagonal(slice(None), pa, pb), open_diagonal
            )
            return product + open_sum, diagonal.mean(axis=1)
        means = np.empty(self.u.size)
        tables = self._table_ranks()
        copula = np.setdiff1d(np.arange(self.u.size), tables)
        if copula.size:
            first_column = np.searchsorted(self.b, self.order1_rank2, side="right")
            totals, diagonal_sums = _copula_moments(
                self.n,
                copula,
                self.a,
                self.b,
                first_column,
                self.open_a,
                self.open_b,
                sure_a,
                sure_b,
                below_a,
                below_b,
                self.probit_a,
                self.probit_b,
                weight_a,
                weight_b,
                pa,
                pb,
                _GL_NODES,
                _GL_WEIGHTS,
                _GL_COUNTS,
            )
            product[copula] += totals
            means[copula] = diagonal_sums / pa.size
        diagonal = self._diagonal(tables, pa, pb)
        # a pair open in both is a cell of its rank's block: row = rank among the open a's
        row = np.cumsum(self.open_a, axis=1) - 1
        col = np.cumsum(self.open_b, axis=1) - 1
        for ranks in self._rank_groups(tables):
            k, ia, ib, offset, width = self._open_blocks(ranks)
            value = self.values(k, ia, ib)
            product[ranks] += np.bincount(
                np.searchsorted(ranks, k),
                weight_a[ia] * weight_b[ib] * value,
                minlength=ranks.size,
            )
            kk, ii = np.nonzero(self.open_a[ranks][:, pa] & self.open_b[ranks][:, pb])
            flat = offset[kk] + row[ranks[kk], pa[ii]] * width[kk] + col[ranks[kk], pb[ii]]
            diagonal[np.searchsorted(tables, ranks[kk]), ii] = value[flat]
        means[tables] = diagonal.mean(axis=1)
        return product, means

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
        _, ia, ib, _, _ = self._open_blocks(np.array([k]))
        out[ia, ib] = self.values(np.full(ia.shape, k), ia, ib)
        return out


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
