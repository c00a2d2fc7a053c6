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

import numpy as np
from scipy import special

from rocsim.core import _lancaster
from rocsim.core._lancaster import (
    _lancaster_moments,
    _lancaster_values,
    _series_tables,
    _whole_tables,
    _window_gather,
)
from rocsim.core.binomial import binomial_pmf

# The steps of the kernels that tests/test_lancaster.py checks one by one, under their names here
_krawtchouk_whole = _lancaster._krawtchouk_whole
_krawtchouk_prefixes = _lancaster._krawtchouk_prefixes
_roots = _lancaster._roots
_row_base = _lancaster._row_base
_degrees = _lancaster._degrees
_band_rows = _lancaster._band_rows
_band_correlations = _lancaster._band_correlations

#: The terms of the Lancaster series left out add at most this much to each value of ``L`` of
#: :func:`lancaster_below`, and to each rank's weighted sum ``sum w_a w_b (L - F_A F_B)`` of
#: :meth:`JointThresholdLaw.moments` (a bound, not an estimate; rounding aside). It is compiled
#: into the kernels (1e-17).
TOLERANCE = _lancaster.TOLERANCE

#: In :meth:`JointThresholdLaw.moments` a pair of small weight may take up to this many times
#: ``TOLERANCE`` (its share of the weighted sum's), so each ``L`` there, and the mean over the
#: positives' pairs, is within ``PAIR_SLACK * TOLERANCE`` (100, compiled into the kernels).
PAIR_SLACK = _lancaster.PAIR_SLACK

# marginal probabilities this close to 0 or 1 are treated as 0 or 1 (error <= 1e-15 per pair)
_NEGLIGIBLE = 1e-15


def _sure(below: np.ndarray) -> np.ndarray:
    """Marginals ``Pr{N_A <= u}`` within ``_NEGLIGIBLE`` of 1 (``L`` is the other one)."""
    return below >= 1 - _NEGLIGIBLE


def _open(below: np.ndarray) -> np.ndarray:
    """Marginals neither sure nor within ``_NEGLIGIBLE`` of 0: where ``L`` needs the series."""
    return ~_sure(below) & (below > _NEGLIGIBLE)


# --- Krawtchouk values ------------------------------------------------------------------------
# v_k(x; p) = e_k(x) sqrt(Bin(x; N, p)), k = 0 .. N = n - 1, the orthonormal Krawtchouk values of
# Bin(N, p): their recurrences, the number of terms each series needs and the series themselves
# are compiled (rocsim/core/_lancaster.pyx).


@lru_cache(maxsize=8)
def _tables(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_series_tables`, computed once per ``n`` (a simulation asks for the same ``n``
    again and again)."""
    tables = _series_tables(n)
    for table in tables:
        table.flags.writeable = False
    return tables


#: Up to this many numbers, :func:`_kept_values` keeps every value's Krawtchouk values at the
#: ranks of a call for the next call with the same ``n`` and ranks (a simulation asks for the
#: same ones again and again; at small ``n`` the sums are short and computing the values would
#: dominate).
_KEPT_NUMBERS = 1 << 23


@lru_cache(maxsize=4)
def _kept_tables(n: int, u: tuple[int, ...]) -> np.ndarray:
    u_array, inside = np.asarray(u, dtype=np.int64), np.arange(1, n) / n
    first = np.ascontiguousarray(_first_value(n, u_array[:, None], inside[None, :]))
    out = _whole_tables(n, u_array, first)
    out.flags.writeable = False
    return out


def _kept_values(n: int, u: np.ndarray) -> np.ndarray:
    """:func:`_whole_tables` of ``(n, u)``, kept across calls when it has at most
    ``_KEPT_NUMBERS`` numbers; otherwise empty (the kernel computes what it needs)."""
    if u.size * (n + 1) * n > _KEPT_NUMBERS:
        return np.empty((0, 0, 0))
    return _kept_tables(n, tuple(u.tolist()))


# --- the exact moments: one compiled pass per rank over its block of open pairs --------------


#: Most correlations a lane keeps at once (:func:`_band_rows`): it computes them once for as many
#: of its consecutive ranks as fit, instead of once per rank (each pair is in the blocks of
#: several neighbouring ranks).
_BAND_NUMBERS = 1 << 21


def _first_value(n: int, u: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``v_0 = sqrt(Bin(u; n - 1, p))`` elementwise (``0 < p < 1``): the root of scipy's
    binomial pmf (Boost's, accurate to a few units in the last place at any ``n``), or, where
    the pmf is below the normal doubles and its root is not, the root of the pmf from
    ``log C(n - 1, u)`` by ``gammaln`` (whose relative error grows with ``n``: the log-gammas
    cancel; tests/test_lancaster.py checks both against exact integers)."""
    x, prob = np.broadcast_arrays(np.atleast_1d(u).astype(float), np.atleast_1d(p))
    pmf = binomial_pmf(x, n - 1, prob)
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
    u, a, b, c = (
        v.ravel()
        for v in np.broadcast_arrays(*(np.asarray(v, dtype=np.int64) for v in (u, a, b, c)))
    )
    product = special.bdtr(u, n, a / n) * special.bdtr(u, n, b / n)
    inside_a, inside_b = (a > 0) & (a < n), (b > 0) & (b < n)
    first_a = np.where(inside_a, _first_value(n, u, np.clip(a / n, 1e-300, 1 - 1e-16)), 0.0)
    first_b = np.where(inside_b, _first_value(n, u, np.clip(b / n, 1e-300, 1 - 1e-16)), 0.0)
    return _lancaster_values(n, u, a, b, c.astype(float), first_a, first_b, product)


def _binomial_below(n: int, u: np.ndarray, a: np.ndarray) -> np.ndarray:
    """``out[k, j] = Pr{Bin(n, a_j/n) <= u_k}`` for integer ``a``, from :func:`_rank_rows`
    (outside its window, 1 below ``u`` and 0 above)."""
    windows = _rank_rows(n, tuple(np.asarray(u).tolist()))
    return _window_gather(windows.start, windows.below, np.ascontiguousarray(a, dtype=np.int64))


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
        # the kernels take contiguous int64 grids
        a_values, b_values = (
            np.ascontiguousarray(v, dtype=np.int64) for v in (a_values, b_values)
        )
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
        weight_a, weight_b = (np.ascontiguousarray(w, dtype=float) for w in (weight_a, weight_b))
        pair_a, pair_b = (np.ascontiguousarray(p, dtype=np.int64) for p in pairs)
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
            _lane_bounds(work, _lancaster.max_threads()),
            self.a,
            self.b,
            first_column,
            runs,
            self.windows.start,
            self.windows.below,
            self.windows.first,
            weight_a,
            weight_b,
            pair_a,
            pair_b,
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
