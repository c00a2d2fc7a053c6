"""The binomial mixture engine of the exact core: laws of the form
``X = sum_c w_c Bin(m, q_c)``, a binomial count whose success probability is itself drawn.

Vertical averaging's TPR at a fixed FPR is such a mixture (eq. 4.12): the bootstrap threshold
is the ``r``-th largest resampled negative, at rank ``c`` with probability ``w_c`` (eq. 4.11,
:func:`rank_weights`), and given it the resampled positives above it are ``Bin(m+, q_c)``.
Precision at a fixed recall is one too, with the classes exchanged
(:mod:`rocsim.core.precision_recall`). This module computes, for many rows (FPRs, recalls) at
once: the weights (:func:`rank_weights`), the pmf (:func:`mixture_pmf`), the moments
(:func:`mixture_moments`, eqs. 4.13-4.14, as sums of non-negative terms) and the exact quantiles
(:class:`BinomialMixture`, without building the pmf). The laws built on it
(:mod:`rocsim.core.vertical`, :mod:`rocsim.core.precision_recall`) use only these names.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
from scipy import special

from rocsim.core import _mixture
from rocsim.core.lattice import binomial_rows
from rocsim.core.scratch import scratch as _scratch

#: Weights below this are dropped from the band (their total stays below ~1e-15 per FPR).
WEIGHT_FLOOR = 1e-17


@dataclass(frozen=True)
class RankWeights:
    """Banded law of the threshold rank: ``weights[i, j] = Pr{T_r_i = s_(start[i] + j)}``.

    Ranks are 1-based (``c = 1`` is the highest negative score); entries past a row's band are
    zero.
    """

    start: np.ndarray
    weights: np.ndarray
    n_neg: int

    @cached_property
    def index(self) -> np.ndarray:
        """0-based rank of every band entry (clipped to the last negative past a band's end)."""
        width = self.weights.shape[1]
        return np.minimum(self.start[:, None] + np.arange(width)[None, :], self.n_neg) - 1

    @cached_property
    def normalised(self) -> np.ndarray:
        """The weights with each row scaled to sum to 1 (the mixture weights ``w`` of
        :func:`_moments`), computed once for every data set sharing the band (read-only:
        every law of those data sets holds this array)."""
        w = self.weights / self.weights.sum(axis=1, keepdims=True)
        w.flags.writeable = False
        return w

    @cached_property
    def layout(self) -> RowLayout:
        """The :class:`RowLayout` of :attr:`normalised`, shared like it."""
        return RowLayout.of(self.normalised)


@dataclass(frozen=True)
class RowLayout:
    """Where each row of mixture weights ``w`` has its heaviest entry and its first and last
    positive ones, as positions in ``w.ravel()``: what :func:`mixture_moments` reads of ``w``
    besides the values, the same for every data set of a simulation (the weights depend on the
    class sizes only)."""

    heaviest: np.ndarray
    first: np.ndarray
    last: np.ndarray

    @classmethod
    def of(cls, w: np.ndarray) -> RowLayout:
        """The layout of ``w`` (rows with at least one positive weight)."""
        present = w > 0
        width = w.shape[1]
        first = np.argmax(present, axis=1)
        last = width - 1 - np.argmax(present[:, ::-1], axis=1)
        row = width * np.arange(w.shape[0])
        return cls(row + np.argmax(w, axis=1), row + first, row + last)


@lru_cache(maxsize=64)
def rank_weights(n_neg: int, m_neg: int, r: tuple[int, ...]) -> RankWeights:
    """Law of the rank of ``T_r`` among the sorted negatives, for every ``r`` (eq. 4.11).

    Depends on ``n-``, ``m-`` and the FPR grid only, so it is cached and shared by every data
    set of a simulation.
    """
    r_arr = np.asarray(r, dtype=np.int64)
    p = r_arr / m_neg
    spread = n_neg * np.sqrt(p * (1 - p) / m_neg)
    half = np.ceil(12 * spread + 12 * n_neg / m_neg + 20).astype(np.int64)
    centre = np.rint(r_arr * n_neg / m_neg).astype(np.int64)
    lo = np.clip(centre - half, 1, n_neg)
    hi = np.clip(centre + half, 1, n_neg)
    width = int(np.max(hi - lo)) + 1
    c = lo[:, None] + np.arange(width)[None, :]
    inside = c <= hi[:, None]
    c = np.minimum(c, n_neg)
    # G_r(c) = Pr{Bin(m-, c/n-) >= r}; G_r(lo - 1) is the mass below the band
    tail = special.bdtrc(r_arr[:, None] - 1, m_neg, c / n_neg)
    below = special.bdtrc(r_arr - 1, m_neg, (lo - 1) / n_neg)
    previous = np.concatenate([below[:, None], tail[:, :-1]], axis=1)
    weights = np.where(inside, tail - previous, 0.0)
    weights[weights < WEIGHT_FLOOR] = 0.0
    # trim columns that are zero in every row
    used = np.flatnonzero(weights.any(axis=0))
    first = np.argmax(weights > 0, axis=1)
    last = weights.shape[1] - np.argmax(weights[:, ::-1] > 0, axis=1)
    width = int(np.max(last - first)) if used.size else 1
    rows = np.arange(len(r_arr))[:, None]
    cols = np.minimum(first[:, None] + np.arange(width)[None, :], weights.shape[1] - 1)
    banded = np.where(np.arange(width)[None, :] < (last - first)[:, None], weights[rows, cols], 0)
    return RankWeights(lo + first, np.ascontiguousarray(banded), n_neg)


#: Binomial mass farther than ``PMF_SIGMAS`` standard deviations plus ``PMF_SLACK`` from
#: ``m q`` is left out of the pmf. By Bernstein's inequality ``Pr{|X - m q| >= t} <=
#: 2 exp(-t^2 / (2 (s^2 + t/3)))`` with ``s^2 = m q (1 - q)``; at ``t = 12 s + 40`` the exponent
#: is at least 60 for every ``s``, so each component (and the mixture) loses below 2e-26.
PMF_SIGMAS, PMF_SLACK = 12.0, 40.0


def mixture_pmf(q: np.ndarray, w: np.ndarray, m_pos: int) -> np.ndarray:
    """``pmf[i, l] = sum_c w[i, c] Bin(l; m+, q[i, c])`` for ``l = 0..m+`` (eq. 4.12).

    Each component's binomial pmf is evaluated on its window ``m+ q -+ (12 s + 40)`` only, as
    Boost's (the one behind ``scipy.stats.binom.pmf``) every 64 values and the ratio of
    consecutive values between (:func:`rocsim.core.lattice.binomial_rows`, compiled): Boost's
    accuracy up to a few rounding errors, at a fraction of a call per value; the accuracy
    reached is checked by ``tests/test_vertical_pmf_accuracy.py``. Equal ``q`` within a row are
    merged (:class:`BinomialMixture`). The components are summed into the rows in their order
    (``np.bincount``), the same bits on every machine.
    """
    rows, size = q.shape[0], m_pos + 1
    mix = BinomialMixture(q, w, m_pos)
    if mix.q.size == 0:
        return np.zeros((rows, size))
    reach = PMF_SIGMAS * np.sqrt(m_pos * mix.q * (1 - mix.q)) + PMF_SLACK
    reach[(mix.q == 0) | (mix.q == 1)] = 0.0  # a point law: its window one value
    lo = np.maximum(np.floor(m_pos * mix.q - reach), 0).astype(np.int64)
    hi = np.minimum(np.ceil(m_pos * mix.q + reach), m_pos).astype(np.int64)
    width = hi - lo + 1
    pmf = binomial_rows(np.full(mix.q.size, m_pos, dtype=np.int64), mix.q, lo, width)
    component = np.repeat(np.arange(mix.q.size), width)
    column = np.arange(pmf.size) - np.repeat(np.cumsum(width) - width, width) + lo[component]
    cell = mix.row[component] * size + column
    out = np.bincount(cell, weights=mix.w[component] * pmf, minlength=rows * size)
    return np.clip(out, 0.0, None).reshape(rows, size)


#: The chain's integrals (:class:`_CdfChain`): 5-point Gauss-Legendre on [-1, 1].
_GAUSS_X, _GAUSS_W = np.polynomial.legendre.leggauss(5)
#: A gap between consecutive ``q`` of a row is integrated on pieces at most ``_PIECE_SDS``
#: binomial standard deviations wide; a gap needing more than ``_MAX_PIECES`` pieces (next to
#: ``q = 0`` or ``1``), or with a piece whose error bound exceeds ``_PIECE_ERROR``, starts a
#: new segment (one ``bdtr``) instead.
_PIECE_SDS, _MAX_PIECES, _PIECE_ERROR = 0.3, 16, 1e-11
#: The error bound of a piece ``t -+ h`` uses the disc ``|z - t| <= _KAPPA h``.
_KAPPA = 21.0
_RHO = _KAPPA + np.sqrt(_KAPPA**2 - 1)
#: The walk from the first guess ``l0`` (:meth:`BinomialMixture._walk`) evaluates ``F`` at
#: ``l0 - _AROUND .. l0 + _AROUND``, then in windows of ``_WINDOWS`` points further on; rows
#: not found by then go to the bisection.
_AROUND, _WINDOWS = 1, (8, 64)
#: Largest table of :func:`_binomial_table` (values; 8 MB, m up to about 1700).
_TABLE_LIMIT = 2**20
_EPS = float(np.finfo(float).eps)
_GAUSS_ONES = np.ones(_GAUSS_X.size)


class BinomialMixture:
    """Row-wise mixtures ``F_i(l) = sum_c w[i, c] B(l; m, q[i, c])`` (eq. 4.12), with equal
    ``q`` within a row merged: ``q`` only changes where a positive falls between two
    consecutive negatives, so ties and flat stretches of the ROC curve cost nothing.
    Components are stored row after row (``row`` ascending), ``q`` ascending within a row
    when the input's rows are."""

    def __init__(self, q: np.ndarray, w: np.ndarray, m: int) -> None:
        self.m, self.rows = m, q.shape[0]
        self.q, self.w, per_row = _mixture.merge_runs(
            *(np.ascontiguousarray(a, dtype=float) for a in (q, w))
        )
        nonempty = per_row > 0
        self.count = per_row[nonempty]
        self.full = bool(np.all(nonempty)) and self.q.size > 0
        self.row = np.repeat(np.flatnonzero(nonempty), self.count)
        # index of every row's first component (for np.add.reduceat, when no row is empty)
        self.first = np.cumsum(self.count) - self.count

    def cdf(self, at: np.ndarray, active: np.ndarray) -> np.ndarray:
        """``F_i(at[i])`` for the rows where ``active`` holds (other rows: 0); ``at >= 0``."""
        sel = active[self.row]
        row = self.row[sel]
        terms = self.w[sel] * special.bdtr(at[row], self.m, self.q[sel])
        return np.bincount(row, weights=terms, minlength=self.rows)

    def quantile(
        self, p: float, guess: np.ndarray | None = None, spread: np.ndarray | None = None
    ) -> np.ndarray:
        """Per row, the smallest ``l`` in ``0..m`` with ``F_i(l) >= p`` (``F_i(m) = 1``).

        Parameters
        ----------
        p : float
            Probability; ``p <= 0`` gives 0 and ``p > 1`` gives ``m`` in every row.
        guess, spread : ndarray, optional
            Start ``m (guess -+ spread)`` of the bisection that decides the rows the fast
            path leaves open (default: the Cornish-Fisher guess -+ a quarter sd).

        Returns
        -------
        ndarray of int

        Notes
        -----
        Exact: a row's ``l`` is returned only where ``F_i(l - 1) < p <= F_i(l)`` holds with a
        margin that bounds every error of the fast evaluation of ``F`` (the ``error`` of
        :class:`_TableCdf` or :class:`_CdfChain`: quadrature, truncation and rounding), so it
        is the ``l`` any evaluation of the exact ``F`` accurate to that margin (the dense pmf,
        ``bdtr``) gives. The walk starts at a Cornish-Fisher guess from the mixture's first
        four moments (:meth:`_walk`); rows where some ``F`` is within the margin of ``p``, or
        that the walk does not reach, are decided by bisection on the ``bdtr`` CDF
        (:meth:`cdf`), as before.
        """
        m = self.m
        if not p > 0 or p > 1:
            return np.full(self.rows, 0 if not p > 0 else m, dtype=np.int64)
        if not self.full:  # a row without components: no fast path
            return self._bisect(p, *self._bracket(p, guess, spread), np.ones(self.rows, bool))
        start = np.clip(np.floor(self._start(p)), 0, m - 1).astype(np.int64)
        found, done = self._walk(p, start)
        if not done.all():
            rest = self._bisect(p, *self._bracket(p, guess, spread), ~done)
            found[~done] = rest[~done]
        return found

    def _bracket(self, p: float, guess, spread) -> tuple[np.ndarray, np.ndarray]:
        """Start of :meth:`_bisect`: ``guess``, ``spread``, else from the Cornish-Fisher guess."""
        if guess is not None and spread is not None:
            return guess, spread
        if not self.full:
            return np.full(self.rows, 0.5), np.full(self.rows, 0.5)
        return self._start(p) / self.m, self._moments[1] / (4 * self.m)

    def _start(self, p: float) -> np.ndarray:
        """Cornish-Fisher quantile of every row's count, to the kurtosis term."""
        mean, sd, skew, kurt = self._moments
        z = special.ndtri(min(p, 1.0 - 1e-16))
        shift = z + (z * z - 1) * skew / 6 + (z**3 - 3 * z) * kurt / 24
        return np.nan_to_num(mean + sd * (shift - (2 * z**3 - 5 * z) * skew * skew / 36))

    @cached_property
    def _moments(self) -> tuple[np.ndarray, ...]:
        """Mean, sd, skewness and excess kurtosis of each row's count, from the factorial
        moments ``m (m - 1) ... (m - j + 1) sum_c w_c q_c^j`` (the rounding of the raw moments'
        differences only blurs the first guess)."""
        m, q = float(self.m), self.q
        powers = np.empty((4, q.size))
        np.multiply(self.w, q, out=powers[0])
        for j in (1, 2, 3):
            np.multiply(powers[j - 1], q, out=powers[j])
        f1, f2, f3, f4 = np.add.reduceat(powers, self.first, axis=1)
        f2, f3, f4 = (
            f2 * m * (m - 1),
            f3 * m * (m - 1) * (m - 2),
            f4 * m * (m - 1) * (m - 2) * (m - 3),
        )
        mu = m * f1
        r2, r3 = f2 + mu, f3 + 3 * f2 + mu  # E[X^2], E[X^3]
        r4 = f4 + 6 * f3 + 7 * f2 + mu
        var = np.maximum(r2 - mu * mu, 0.0)
        third = r3 - 3 * mu * r2 + 2 * mu**3
        fourth = r4 - 4 * mu * r3 + 6 * mu * mu * r2 - 3 * mu**4
        with np.errstate(divide="ignore", invalid="ignore"):
            skew = np.clip(np.nan_to_num(third / var**1.5), -3, 3)
            kurt = np.clip(np.nan_to_num(fourth / var**2 - 3), -2, 12)
        return mu, np.sqrt(var), skew, kurt

    def _walk(self, p: float, l0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """From ``l0``, step towards ``p`` until ``F(l - 1) < p <= F(l)`` with the margin.

        ``F`` is evaluated at ``l0 - _AROUND .. l0 + _AROUND`` first, then in windows of
        ``_WINDOWS`` points beyond. In a window ``start .. start + width - 1`` the points
        certainly below ``p`` come first and those certainly at or above it last (``F``
        increases), so the quantile is ``start`` plus the number below, unless a point is
        within the margin.
        Returns ``(l, done)``; rows not ``done`` were within the margin or not reached.
        """
        source, rows, m = self._source, np.arange(self.rows), self.m
        found, done = l0.copy(), np.zeros(self.rows, dtype=bool)
        start, way, values = l0 - _AROUND, np.zeros(self.rows, dtype=np.int64), source.around(l0)
        for width in (*_WINDOWS, 0):  # the width of the next window; 0: the walk ends
            points = start[:, None] + np.arange(values.shape[1])
            margin = source.error[rows, None]
            below = ((values + margin < p) & (points < m)) | (points < 0)  # F(-1) = 0
            above = ((values - margin >= p) & (points >= 0)) | (points >= m)  # F(m) = 1
            low, high, size = below.sum(axis=1), above.sum(axis=1), values.shape[1]
            # all below after a step up: further up; all above after a step down: further down
            up = (low == size) & (way >= 0)
            down = (high == size) & (way <= 0)
            hit = (low + high == size) & ~up & ~down
            found[rows[hit]], done[rows[hit]] = start[hit] + low[hit], True
            go_on = up | down
            if not width or not go_on.any():
                break
            level = np.where(up, values[:, -1], values[:, 0])[go_on]
            start = np.where(up, start + size, start - width)[go_on]
            rows, way = rows[go_on], np.where(up, 1, -1)[go_on]
            values = source.steps(rows, start[:, None] + np.arange(width), level, way)
        return found, done

    @cached_property
    def _source(self) -> _TableCdf | _CdfChain:
        """Lookups in the cached table of ``B(l; m, k/m)`` when every ``q`` is ``k / m`` and
        the table is small, else :class:`_CdfChain`."""
        keys = _shares(self.q, self.m)
        if keys is not None and (self.m + 1) * (2 * _table_half(self.m) + 3) <= _TABLE_LIMIT:
            return _TableCdf(self, keys)
        return _CdfChain(self, keys)

    def _bisect(
        self, p: float, guess: np.ndarray, spread: np.ndarray, rows: np.ndarray
    ) -> np.ndarray:
        """The quantile of the ``rows`` by bracketing and bisection on the ``bdtr`` CDF.

        The bracket starts at ``m (guess -+ spread)`` and moves outwards until
        ``F(low) < p <= F(high)``; bisection then needs a handful of CDF evaluations instead of
        ``log2(m)``.
        """
        m = self.m
        centre = np.floor(np.nan_to_num(guess) * m)
        step = np.ceil(np.nan_to_num(spread) * m).astype(np.int64) + 1
        # invariant sought: F(low) < p <= F(high), where F(-1) = 0 and F(m) = 1; so for
        # 0 < p <= 1 low is in -1..m-1 and high in 0..m (a high of -1 would ask for F(-1),
        # which bdtr answers with NaN, and a NaN comparison never widens the bracket)
        low = np.clip(centre - step, -1, m - 1).astype(np.int64)
        high = np.clip(centre + step, 0, m).astype(np.int64)
        check_low, check_high = rows & (low >= 0), rows & (high < m)
        while check_low.any() or check_high.any():
            too_high = check_low & (self.cdf(np.maximum(low, 0), check_low) >= p)
            too_low = check_high & (self.cdf(np.minimum(high, m), check_high) < p)
            # a failed end is a valid end on the other side
            high = np.where(too_high, low, high)
            low = np.where(too_low, high, low)
            step = 4 * step
            low = np.where(too_high, np.maximum(low - step, -1), low)
            high = np.where(too_low, np.minimum(high + step, m), high)
            check_low, check_high = too_high & (low >= 0), too_low & (high < m)
        while np.any(rows & (high - low > 1)):
            active = rows & (high - low > 1)
            mid = (low + high) // 2
            reached = self.cdf(mid, active) >= p
            high = np.where(active & reached, mid, high)
            low = np.where(active & ~reached, mid, low)
        return high


class _PmfTerms:
    """The mixture pmf ``P_i(l) = sum_c w_c b(l; m, q_c)`` as sums of
    ``exp(l D_c + E_c + log C(m, l))``, ``D = log q - log(1 - q)``, ``E = m log(1 - q) +
    log w`` (a ``q`` of 0 or 1 has a log of -1e30: exact zeros and ones). ``error`` bounds the
    absolute error of a sum of such values below 1 (the rounding of the sums of logs)."""

    def __init__(self, mix: BinomialMixture, values: np.ndarray, index: np.ndarray) -> None:
        # the logs of the distinct q (values[index] = q), taken once
        inner = (values > 0) & (values < 1)
        with np.errstate(divide="ignore"):
            lq = np.where(values > 0, np.log(values), -1e30)
            l1q = np.where(values < 1, np.log1p(-values), -1e30)
        log_w = np.log(mix.w)
        self.d, self.e, self.mix = (lq - l1q)[index], mix.m * l1q[index] + log_w, mix
        size = mix.m * np.max(np.abs(lq) + 2 * np.abs(l1q), where=inner, initial=0.0)
        self.error = _log_rounding(size + np.max(np.abs(log_w)), mix.m)

    def window(self, at: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """``P_i(at[k, j])`` for ``i = rows[k]`` (``at`` outside ``0..m``: 0)."""
        m, count = self.mix.m, self.mix.count[rows]
        sel, _ = _row_components(self.mix, rows, count)
        a = at.astype(float)
        log_c = special.gammaln(m + 1.0) - special.gammaln(a + 1) - special.gammaln(m - a + 1)
        x = np.repeat(a.T, count, axis=1)
        x *= self.d[sel]
        x += self.e[sel]
        x += np.repeat(log_c.T, count, axis=1)
        np.exp(x, out=x)
        return np.add.reduceat(x, np.cumsum(count) - count, axis=1).T


class _TableCdf:
    """``F_i(l) = sum_c w_c B(l; m, k_c / m)`` by lookups in :func:`_binomial_table`; ``error``
    adds the table's error and the rounding of the sums."""

    def __init__(self, mix: BinomialMixture, keys: np.ndarray) -> None:
        table, half, error = _binomial_table(mix.m)
        self.mix, self.flat, self.width = mix, table.ravel(), table.shape[1]
        self.key = (keys + half + 1).astype(np.intp)  # column k - l + half + 1 of row l
        self.error = error + 4 * _EPS * mix.count
        self.every = np.arange(mix.rows)

    def around(self, at: np.ndarray) -> np.ndarray:
        """``F_i(at[i] + k)``, ``|k| <= _AROUND``, of every row."""
        return self.values(at[:, None] + np.arange(-_AROUND, _AROUND + 1), self.every)

    def steps(self, rows: np.ndarray, points: np.ndarray, level, way) -> np.ndarray:
        """``F`` at ``points`` (rows ``rows``), looked up (``level``, ``way``: unused)."""
        return self.values(points, rows)

    def values(self, points: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """``F_i(points[k, j])`` for ``i = rows[k]`` (``points`` clipped to ``0..m``): the
        entry of ``(l, k)`` is ``l width + k - l + half + 1``, clipped to the row's sentinels
        where a row's ``k`` reach beyond the band around ``l``."""
        mix = self.mix
        return _mixture.table_sums(
            self.flat,
            self.width,
            self.key,
            mix.w,
            mix.first,
            mix.count,
            np.ascontiguousarray(rows, dtype=np.int64),
            np.ascontiguousarray(points, dtype=np.int64),
            mix.m,
        )


def _row_components(mix: BinomialMixture, rows: np.ndarray, count: np.ndarray):
    """The components of ``rows``, row after row (a slice for all rows), and the position of
    their row in ``rows``."""
    if rows.size == mix.rows:
        return slice(None), mix.row
    sel = np.repeat(mix.first[rows] - np.cumsum(count) + count, count)
    sel += np.arange(sel.size)
    return sel, np.repeat(np.arange(rows.size), count)


def _table_half(m: int) -> int:
    """Half-width of the band of :func:`_binomial_table`: ``B(l; m, k/m)`` is 0 or 1 within
    2e-26 beyond it (Bernstein, as for :data:`PMF_SIGMAS`)."""
    return int(np.ceil(PMF_SIGMAS * np.sqrt(m) / 2 + PMF_SLACK))


@lru_cache(maxsize=4)
def _binomial_table(m: int) -> tuple[np.ndarray, int, float]:
    """``T[l, k - l + half + 1] = B(l; m, k/m)`` for ``|k - l| <= half``, with a first column
    of 1 and a last of 0 for the ``k`` beyond the band; ``half`` and the error bound.

    Depends on ``m`` only, so it is cached like :func:`rank_weights`. Built from the pmf
    ``exp(log C(m, j) + j log q + (m - j) log(1 - q))``, ``q = k/m``, cumulated over ``j`` in
    rows of ``k`` (``j = k - half .. k + half``; ``log j!`` and ``log (m - j)!`` are sliding
    windows of one padded array), then sheared (a strided view) so that a row's components,
    ``k`` increasing at one ``l``, are contiguous.
    """
    half, k = _table_half(m), np.arange(m + 1)
    width, inner = 2 * half + 1, (k > 0) & (k < m)
    log_q = np.log(np.where(inner, k / m, 0.5))  # q = 0 and 1: rows set below
    log_1q = np.log1p(-np.where(inner, k / m, 0.5))
    # log j! for j = k - half + d in row k, +inf outside 0..m; log (m - j)! the same, reversed
    padded = np.full(m + 1 + 2 * half, np.inf)
    padded[half : half + m + 1] = special.gammaln(k + 1.0)
    windows = np.lib.stride_tricks.sliding_window_view
    log_fact = windows(padded, width) + windows(padded[::-1], width)
    start = padded[half + m] + (k - half) * log_q + (m - k + half) * log_1q
    x = np.outer(log_q - log_1q, np.arange(width))
    x += start[:, None]
    x -= log_fact
    cdf = np.zeros((m + 1 + 2 * half, width))  # rows of k beyond 0..m: never looked up
    np.cumsum(np.exp(x, out=x), axis=1, out=cdf[half : half + m + 1])
    cdf[[half, half + m]] = np.arange(width) >= half  # Bin(m, 0) = 0 and Bin(m, 1) = m
    # row l of the table, column d: k = l - half + d, found in row k at j - (k - half) = 2 half - d
    sheared = np.lib.stride_tricks.as_strided(
        cdf.ravel()[2 * half :],
        (m + 1, width),
        (width * 8, (width - 1) * 8),
        writeable=False,
    )
    table = np.ones((m + 1, width + 2))
    table[:, 1:-1] = sheared
    table[:, -1] = 0.0
    table.setflags(write=False)  # shared by every later call (cached)
    size = (m + 2 * half) * (np.max(-log_q, initial=0) + np.max(-log_1q, initial=0))
    return table, half, _log_rounding(size, m) + (width + 1) * _EPS + 1e-20


def _log_rounding(size: float, m: int) -> float:
    """Bound on the relative error of ``exp(x)``, ``x`` a sum of logs of magnitude at most
    ``size`` plus log-gamma functions of arguments up to ``m + 1``."""
    return 16 * _EPS * (size + 4 * float(special.gammaln(m + 2.0)) + 64)


class _CdfChain:
    """``F_i(l_i) = sum_c w_c B(l_i; m, q_c)`` at one ``l_i`` per row, with few ``bdtr``.

    Along a row ``q`` increases and ``dB(l; m, q)/dq = -f(q) = -m b(l; m - 1, q)``. A row is
    cut into segments, each starting at an anchor component ``a`` (the row's first, or one
    after a gap the rule below cannot take), so that

        sum_{c in segment} w_c B(l; m, q_c) = W_a B(l; m, q_a) - int f(t) S(t) dt,

    ``W_a`` the segment's weight and ``S(t)`` the weight of its components with ``q_c > t``.
    ``B(l; m, q_a)`` is ``bdtr``; the integral is a 5-point Gauss-Legendre sum on pieces
    ``t -+ h`` of the gaps between consecutive ``q``, at most ``_PIECE_SDS`` binomial sds
    wide. Nodes, weights (times ``S``) and their logs do not depend on ``l``: they are
    computed once, and once for all the rows that share a gap (the bands of neighbouring
    FPRs overlap).

    Error bound, for every ``l``: ``f`` is a polynomial with ``|f(z)| <= m (|z| + |1 -
    z|)^(m - 1)``, so on the disc ``|z - t| <= R = _KAPPA h`` it is at most ``M = m exp((m -
    1) R^2 (1/(t - R) + 1/(1 - t - R)) / 2)``; the disc holds the Bernstein ellipse ``rho =
    _KAPPA + sqrt(_KAPPA^2 - 1)`` of the piece, where the Chebyshev coefficients of ``f`` are
    at most ``2 M rho^-k``. The rule is exact up to degree 9 and its weights are positive, so
    it errs by at most ``4 h`` times the tail ``2 M rho^-10 / (1 - 1/rho)``, i.e. ``8 h M
    rho^-9 / (rho - 1)``. ``error`` adds these bounds (times ``S``) per row, the rounding of
    the sums of logs (:func:`_log_rounding`) and ``1e-13 (m + components)`` for the other
    roundings and ``bdtr`` (Cephes ``incbet``, documented peak relative error below
    ``1e-14 m``).
    """

    def __init__(self, mix: BinomialMixture, keys: np.ndarray | None) -> None:
        m = mix.m
        values, index = _distinct(mix, keys)
        gap, t, h, bound = _pieces(values[:-1], values[1:], m)
        # a gap without pieces, or with a piece over the limit, starts a segment
        lone = np.bincount(gap, minlength=values.size) == 0
        lone[gap[bound > _PIECE_ERROR]] = True
        keep = ~lone[gap]
        gap, t, h, bound = gap[keep], t[keep], h[keep], bound[keep]
        anchor, take, owner = _row_pieces(mix, index, lone, gap)
        tail = _segment_tails(mix, anchor)
        self.mix, self.anchors, self.take = mix, np.flatnonzero(anchor), take
        self.anchor_weight, self.log_tail = tail[self.anchors], np.log(tail[owner])
        self.count = np.bincount(mix.row[owner], minlength=mix.rows)
        self.start, self.some = np.cumsum(self.count) - self.count, self.count > 0
        self.d, self.e, size = _node_logs(t, h, m)
        self.terms, self.every = _PmfTerms(mix, values, index), np.arange(mix.rows)
        self.error = (
            self._row_sum(tail[owner] * bound[take])
            + _log_rounding(size - np.min(self.log_tail, initial=0), m)
            + 1e-13 * (m + mix.count)
            + self.terms.error
        )

    def around(self, at: np.ndarray) -> np.ndarray:
        """``F_i(at[i] + k)``, ``|k| <= _AROUND``, of every row: ``F(at)`` and the pmf around
        it."""
        level = self.cdf(at)
        mass = self.terms.window(at[:, None] + np.arange(1 - _AROUND, _AROUND + 1), self.every)
        below = level[:, None] - np.cumsum(mass[:, _AROUND - 1 :: -1], axis=1)[:, ::-1]
        above = level[:, None] + np.cumsum(mass[:, _AROUND:], axis=1)
        return np.concatenate([below, level[:, None], above], axis=1)

    def steps(
        self, rows: np.ndarray, points: np.ndarray, level: np.ndarray, way: np.ndarray
    ) -> np.ndarray:
        """``F`` at ``points`` (rows ``rows``, consecutive, increasing) from ``F = level`` just
        below them (``way`` 1) or just above (``way`` -1), by adding or subtracting the pmf."""
        up = (way > 0)[:, None]
        mass = self.terms.window(np.where(up, points, points + 1), rows)
        rising = np.cumsum(mass, axis=1)
        falling = np.cumsum(mass[:, ::-1], axis=1)[:, ::-1]
        return level[:, None] + np.where(up, rising, -falling)

    def _row_sum(self, x: np.ndarray) -> np.ndarray:
        """Sums of ``x`` (one value a piece of a row) over the pieces of each row."""
        out = np.zeros(self.mix.rows)
        if x.size:
            out[self.some] = np.add.reduceat(x, self.start[self.some])
        return out

    def cdf(self, at: np.ndarray) -> np.ndarray:
        """``F_i(at[i])`` of every row, ``0 <= at <= m - 1``, within ``error``."""
        mix, m, anchors = self.mix, self.mix.m, self.anchors
        a = at.astype(float)
        shape = (_GAUSS_X.size, self.take.size)
        x = np.take(self.d, self.take, axis=1, out=_scratch(shape, "nodes"))
        x *= np.repeat(a, self.count)
        x += np.take(self.e, self.take, axis=1, out=_scratch(shape, "node logs"))
        x += self.log_tail - np.repeat(special.betaln(a + 1, m - a), self.count)
        lost = self._row_sum(_GAUSS_ONES @ np.exp(x, out=x))
        row = mix.row[anchors]
        kept = self.anchor_weight * special.bdtr(at[row], m, mix.q[anchors])
        return np.bincount(row, kept, mix.rows) - lost


def _row_pieces(mix: BinomialMixture, index: np.ndarray, lone: np.ndarray, gap: np.ndarray):
    """Anchors, and each row's pieces: the global piece and the component it leads to.

    Component ``c`` is reached from the one before over the gaps ``index[c - 1] ..
    index[c] - 1``; it is an anchor if it is a row's first or one of these gaps is ``lone``.
    """
    before = np.r_[0, index[:-1]]
    lone_before = np.r_[0, np.cumsum(lone)]
    anchor = (lone_before[index] > lone_before[before]) | (index <= before)
    anchor[mix.first] = True
    piece_start = np.r_[0, np.cumsum(np.bincount(gap, minlength=lone.size))]
    pieces = np.where(anchor, 0, piece_start[index] - piece_start[before])
    take = np.repeat(piece_start[before] - np.cumsum(pieces) + pieces, pieces)
    take += np.arange(take.size)
    return anchor, take, np.repeat(np.arange(index.size), pieces)


def _node_logs(t: np.ndarray, h: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray, float]:
    """At the Gauss-Legendre nodes of the pieces ``t -+ h``: ``log t - log(1 - t)`` and
    ``(m - 1) log(1 - t) + log(node weight)``, and the size of the logs (for
    :func:`_log_rounding`)."""
    nodes = t + h * _GAUSS_X[:, None]
    log_t = np.log(nodes)
    log_1t = np.log1p(np.negative(nodes, out=nodes), out=nodes)
    d = log_t - log_1t
    log_1t *= m - 1
    log_1t += np.log(h * _GAUSS_W[:, None])
    size = m * (2 - np.log(np.min(t - h, initial=1)) - 2 * np.log1p(-np.max(t + h, initial=0)))
    return d, log_1t, size + np.max(np.abs(np.log(h)), initial=0) + 2


def _shares(q: np.ndarray, m: int) -> np.ndarray | None:
    """``k`` with ``q = k / m`` exactly (the shares of the laws of vertical averaging and
    precision-recall), or None."""
    key = np.rint(q * m)
    return key.astype(np.int64) if np.array_equal(key / m, q) else None


def _distinct(mix: BinomialMixture, keys: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``q`` of all rows, ascending, and every component's index among them
    when every ``q`` is ``k / m`` (``keys``); else ``q`` itself and ``0, 1, 2, ...``."""
    if keys is None:
        return mix.q, np.arange(mix.q.size)
    present = np.zeros(mix.m + 1, dtype=bool)
    present[keys] = True
    return np.flatnonzero(present) / mix.m, (np.cumsum(present) - 1)[keys]


def _segment_tails(mix: BinomialMixture, anchor: np.ndarray) -> np.ndarray:
    """``S_c``: the weight of the components from ``c`` to the end of its segment (segments
    start where ``anchor`` holds), from each row's tail sums (within a few eps of each row's
    weight, at most 1: kept above 0 for the logs)."""
    return _mixture.segment_tail_sums(
        mix.w, mix.first, mix.count, np.ascontiguousarray(anchor, dtype=bool).view(np.uint8)
    )


def _pieces(a: np.ndarray, b: np.ndarray, m: int):
    """Gauss-Legendre pieces ``t -+ h`` of the gaps ``(a[g], b[g])``: gap, ``t``, ``h``, error
    bound (see :class:`_CdfChain`), ordered by gap; gaps next to 0 or 1 or needing more than
    ``_MAX_PIECES`` pieces get none."""
    sd = np.sqrt(np.minimum(a * (1 - a), b * (1 - b)) / m)
    with np.errstate(divide="ignore", invalid="ignore"):
        count = np.ceil((b - a) / (_PIECE_SDS * sd))
    count = np.where((count >= 1) & (count <= _MAX_PIECES), count, 0).astype(np.int64)
    gap = np.repeat(np.arange(a.size), count)
    k = np.arange(gap.size) - np.repeat(np.cumsum(count) - count, count)
    size = ((b - a) / np.maximum(count, 1))[gap]
    low = a[gap] + k * size
    high = np.where(k + 1 == count[gap], b[gap], low + size)
    t, h = (low + high) / 2, (high - low) / 2
    return gap, t, h, _piece_bound(t, h, m)


def _piece_bound(t: np.ndarray, h: np.ndarray, m: int) -> np.ndarray:
    """Error bound of the 5-point Gauss-Legendre rule on ``t -+ h`` (see :class:`_CdfChain`);
    infinite where the disc ``|z - t| <= _KAPPA h`` reaches 0 or 1."""
    reach = _KAPPA * h
    below, above = t - reach, 1 - t - reach
    with np.errstate(divide="ignore", over="ignore"):
        spread = (m - 1) * reach * reach / 2 * (1 / below + 1 / above)
        bound = (8 * m / (_RHO**9 * (_RHO - 1))) * h * np.exp(spread)
    return np.where((below > 0) & (above > 0), bound, np.inf)


def mixture_moments(q, w, m_pos, pseudo_count=0.0, layout: RowLayout | None = None):
    """Mean and variance of the mixture ``sum_c w_c Bin(m+, q_c) / m+`` (eqs. 4.13-4.14).

    The variance is the law of total variance, a sum of non-negative terms,

        Var = sum_c w_c q_c (1 - q_c) / m+ + sum_c w_c (q_c - mean)^2,

    not ``E[TPR^2] - mean^2``, which loses every digit once the variance drops below ~1e-16
    ``mean^2`` (high FPR, where nearly every positive passes every likely threshold).
    ``pseudo_count`` ``a`` (the ``agresti`` method; stratified, ``n+ = m+``):
    ``q -> (m+ q + a) / (m+ + 2a)`` and ``m+ -> m+ + 2a``. Each row of ``q`` is
    non-decreasing (:func:`rates_at_ranks` on ascending ranks), so its least and largest
    ``q`` where ``w > 0`` are those at its first and last positive weight. ``layout``: the
    :class:`RowLayout` of ``w`` (of cached weights, :attr:`RankWeights.layout`).
    """
    if pseudo_count:
        q = (q * m_pos + pseudo_count) / (m_pos + 2 * pseudo_count)
        m_pos = m_pos + 2 * pseudo_count
    layout = RowLayout.of(w) if layout is None else layout
    # about the q of the heaviest weight: q - mean would carry the rounding of mean (1e-16
    # near 1) into every deviation, 1e-10 relative when the q differ by 1/n+ = 1e-6
    flat = q.ravel()
    ref = flat[layout.heaviest][:, None]
    deviation = q - ref
    shift = np.einsum("ij,ij->i", w, deviation)
    # the squares and q (1 - q) in place: the same numbers without two more tables
    np.square(np.subtract(deviation, shift[:, None], out=deviation), out=deviation)
    between = np.einsum("ij,ij->i", w, deviation)
    spread = np.subtract(1, q)
    within = np.einsum("ij,ij->i", w, np.multiply(q, spread, out=spread)) / m_pos
    # kept within the row's q (a row of equal q has that q as its mean, exactly)
    lowest, highest = flat[layout.first], flat[layout.last]
    mean = np.clip(ref[:, 0] + shift, lowest, highest)
    return mean, within + between
