"""Vertical averaging with tied scores read along the ROC curve's diagonal segments, as pROC's
``coords``, ``ci.se`` and ``ci.sp`` read them.

A score ``v`` shared by ``B`` negatives and ``Y`` positives joins two points of the empirical
ROC curve by a diagonal segment. Read linearly along it, the TPR at FPR ``r / m-`` is

    m+ TPR = X + t Y,    t = (r - C) / B,

where ``C`` negatives and ``X`` positives score above ``v`` and ``v`` is the score of the
threshold rank's negative (the ``r``-th largest, ``side="lower"``, or the ``(r + 1)``-th,
``side="upper"``): at a vertex ``t`` is 1 (lower) or 0 (upper), the two ends of the vertical
step of the step reading (:func:`rocsim.core.vertical_distribution`), and a score not shared
across the classes (``Y = 0``) is read as there.

Under the stratified bootstrap the negatives' tie block of ``v`` holds the threshold when
``C < rank <= C + B``, with ``C ~ Bin(m-, K / n-)`` (``K`` original negatives above ``v``) and
``B | C ~ Bin(m- - C, b / (n- - K))`` (``b`` tied at ``v``); given those, ``(X, Y)`` is
trinomial, ``Y ~ Bin(m+, p_tied)`` and ``X | Y = y ~ Bin(m+ - y, p_above / (1 - p_tied))``,
independent of ``(C, B)``. So the law of TPR is a mixture, over the blocks, of the laws of
``X + t Y`` with ``t`` drawn from the block's cells ``(c, b)``: a binomial where no positive
ties with the block, and otherwise a law on ``(X + t Y) / m+``, not on the grid ``l / m+``.
Pairs ``(x, y)`` and cells ``(c, b)`` of probability at most :data:`TINY` are left out (each
leaves out less than that), both tabled once per block (:mod:`rocsim.core._interpolated`).

Moments: sums over the components, with ``E[t^k]`` over a block's cells by running sums of its
table, per FPR. Distribution function: per pair, the weight of the ``t <= (a - x) / y`` (a
look-up in the sorted law of ``t``; the pairs wholly below or above ``a`` by running sums).
Quantiles, exact: a secant search on the distribution function from the normal guess keeps a
bracket ``F(lo) < p <= F(hi)`` until it holds about a thousand support points ``x + t y``; those
are enumerated and sorted, and the quantile is the one where ``F`` reaches ``p`` (one value
computed along different pairs, equal to :data:`GROUPING`, is one point). The FPRs run side by
side (OpenMP). Without a score shared across the classes the law is the step law, computed as
such (:func:`shares_scores`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from scipy import special

from rocsim.core import _interpolated
from rocsim.core.counting import count_above, count_at_or_above, sorted_scores
from rocsim.core.mixture import PMF_SIGMAS, PMF_SLACK

#: Probabilities of blocks, of ``(C, B)`` cells and of ``(X, Y)`` pairs below this are left out
#: (each leaves out less than this, far below what a quantile or a moment can show).
TINY = 1e-17
#: Support points closer than this (relative) are one point: the same rational ``x + t y``
#: computed along different pairs (a few units in the last place apart; distinct points are at
#: least ``1 / n-**2`` apart).
GROUPING = 1e-13


def shares_scores(pos: np.ndarray, neg: np.ndarray) -> bool:
    """Whether some score is held by a positive and a negative (if not, the interpolated law is
    the step law)."""
    return bool(np.intersect1d(pos, neg).size)


@dataclass(frozen=True)
class _Blocks:
    """The negatives' tie blocks, scores decreasing: ``before`` negatives above each, ``sizes``
    in it, and the shares of positives ``above`` it and ``tied`` with it."""

    before: np.ndarray
    sizes: np.ndarray
    above: np.ndarray
    tied: np.ndarray

    @staticmethod
    def of(pos: np.ndarray, neg: np.ndarray) -> _Blocks:
        values, sizes = np.unique(-sorted_scores(neg), return_counts=True)
        values = -values
        pos_sorted = sorted_scores(pos)
        above = count_above(pos_sorted, values) / pos.size
        tied = count_at_or_above(pos_sorted, values) / pos.size - above
        return _Blocks(np.cumsum(sizes) - sizes, sizes, above, tied)


@dataclass(frozen=True, eq=False)
class InterpolatedComponents:
    """The components of the law at each FPR row ``i``: ``comp[rows[i]:rows[i + 1]]`` are the
    blocks holding the threshold with probability above :data:`TINY`, in score order, each with
    its weight; a block shared with positives (``cells >= 0``: its table of ``(C, B)`` cells)
    is a law of ``X + t Y``, another a binomial. Their distribution function and quantiles,
    compiled (:mod:`rocsim.core._interpolated`)."""

    m_pos: int
    r: np.ndarray
    rank: np.ndarray
    mean: np.ndarray
    sd: np.ndarray
    skew: np.ndarray
    rows: np.ndarray
    block: np.ndarray
    cells: np.ndarray
    weight: np.ndarray
    blocks: _Blocks
    cell_tables: tuple
    _cache: dict = field(default_factory=dict, repr=False)

    def cdf(self, x: np.ndarray) -> np.ndarray:
        """``Pr{TPR <= x[i]}`` at each row."""
        a = np.ascontiguousarray(_counts(x, self.m_pos), dtype=float)
        return np.minimum(_interpolated.cdf(self._tables, a), 1.0)

    def quantile(self, p: float) -> np.ndarray:
        """Smallest TPR with ``Pr{TPR <= it} >= p`` at each row."""
        return self.quantiles([p])[:, 0]

    def quantiles(self, ps) -> np.ndarray:
        """:meth:`quantile` at each ``p`` of ``ps``, ``(rows, len(ps))``: the rows' laws are
        built once for all of them (and each ``p``'s quantiles kept)."""
        missing = [p for p in dict.fromkeys(float(p) for p in ps) if p not in self._cache]
        if missing:
            p = np.array(missing)
            out = np.zeros((self.r.size, p.size))
            inside = p > 0.0  # p <= 0: the smallest support point, 0
            if np.any(inside):
                guess, slope = self._guesses(p[inside])
                counts = _interpolated.quantiles(self._tables, p[inside], guess, slope, GROUPING)
                out[:, inside] = counts / self.m_pos
            for j, value in enumerate(missing):
                self._cache[value] = out[:, j]
        return np.column_stack([self._cache[float(p)] for p in ps])

    def _guesses(self, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where the search for each row's ``p``-quantile starts (count scale), and the slope
        of the distribution function it assumes there: the Cornish-Fisher quantile from the
        mean, variance and skewness, and the normal density."""
        z = special.ndtri(np.minimum(p, 1 - 1e-16))[None, :]
        sd = self.sd[:, None] * self.m_pos
        guess = self.mean[:, None] * self.m_pos + sd * (z + (z * z - 1) * self.skew[:, None] / 6)
        with np.errstate(divide="ignore"):
            slope = np.where(sd > 0, np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi) / sd, 1.0)
        return np.ascontiguousarray(guess), np.ascontiguousarray(slope)

    @cached_property
    def _tables(self) -> tuple:
        """The compiled kernels' tables: the pairs of every block the rows use (a block no
        positive ties with: the binomial of its share above, one table per share), then the
        cells and the rows."""
        b = self.blocks
        shared = self.cells >= 0
        # a table per tied block, then one per distinct share above of the untied blocks
        tied_blocks, tied_index = np.unique(self.block[shared], return_inverse=True)
        shares, share_index = np.unique(b.above[self.block[~shared]], return_inverse=True)
        pair_of = np.empty(self.block.size, dtype=np.int64)
        pair_of[shared] = tied_index
        pair_of[~shared] = tied_blocks.size + share_index
        tied = np.concatenate([b.tied[tied_blocks], np.zeros(shares.size)])
        above = np.concatenate([b.above[tied_blocks], shares])
        pairs = _pair_tables(self.m_pos, above, tied)
        rows = (self.rows, pair_of, self.cells, self.weight, self.r, self.rank)
        return (*pairs, *self.cell_tables[:5], *rows, self.m_pos)


def _counts(x, m_pos: int):
    """TPR ``x`` on the count scale, nudged up so that a support point at ``x`` counts
    despite rounding."""
    return np.asarray(x, dtype=float) * m_pos * (1 + 1e-15)


def interpolated_law(
    pos: np.ndarray, neg: np.ndarray, ranks: np.ndarray, rank: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, InterpolatedComponents]:
    """The data's TPR, the bootstrap mean and variance and the :class:`InterpolatedComponents`
    of the stratified law at the validated FPR ``ranks``, the threshold being the
    ``rank``-th largest resampled negative (``rank = ranks`` on the lower side, ``ranks + 1``
    on the upper)."""
    n_pos, n_neg = pos.size, neg.size
    b = _Blocks.of(pos, neg)
    row, block, weight = _live_blocks(b, n_neg, rank)
    rows = np.searchsorted(row, np.arange(ranks.size + 1)).astype(np.int64)
    # the cell tables of the tied blocks the rows use
    shared = b.tied[block] > 0
    tables, cells = np.unique(block[shared], return_inverse=True)
    comp_cells = np.full(block.size, -1, dtype=np.int64)
    comp_cells[shared] = cells
    cell_tables = _cell_tables(n_neg, b.before[tables], b.sizes[tables])
    sums = _interpolated.row_moments(
        rows, comp_cells, ranks, rank, *cell_tables[:4], *cell_tables[5:]
    )
    mean, variance = _moments(b, row, block, weight, shared, sums, ranks.size, n_pos)
    # a binomial component: the weight at t = 0 (no positive tied: Y = 0)
    sums[0] = np.where(shared, sums[0], weight)
    skew = _skewness(b, row, block, sums, ranks.size, n_pos)
    components = InterpolatedComponents(
        n_pos,
        ranks,
        rank,
        mean,
        np.sqrt(variance),
        skew,
        rows,
        block,
        comp_cells,
        weight,
        b,
        cell_tables,
    )
    return _data_tpr(ranks, rank, b), mean, variance, components


def _live_blocks(b: _Blocks, n_neg: int, rank: np.ndarray):
    """``(row, block, weight)`` of every block holding the ``rank``-th largest resampled
    negative with probability ``Pr{C_(j-1) < rank <= C_j}`` above :data:`TINY`, by row then
    block. Only the blocks within a binomial window of each rank are looked at (beyond it the
    probability is below 1e-26, :data:`rocsim.core.mixture.PMF_SIGMAS`)."""
    reach = PMF_SIGMAS * np.sqrt(n_neg / 4) + PMF_SLACK
    first = np.searchsorted(b.before + b.sizes, rank - reach, "left")
    last = np.searchsorted(b.before, rank + reach, "right")
    count = np.maximum(last - first, 0)
    row = np.repeat(np.arange(rank.size), count)
    block = first[row] + np.arange(row.size) - np.repeat(np.cumsum(count) - count, count)
    t_rank = rank[row]
    before, sizes = b.before[block], b.sizes[block]
    reach_p = special.bdtrc(t_rank - 1, n_neg, (before + sizes) / n_neg)
    prior = special.bdtrc(t_rank - 1, n_neg, before / n_neg)
    weight = np.where(before == 0, reach_p, reach_p - prior)
    live = weight > TINY
    return row[live], block[live].astype(np.int64), weight[live]


def _log_terms(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``xlogy(1, p)`` and ``xlog1py(1, -p)``: the logs :func:`_binomial_pmf` multiplies by the
    counts (the compiled tables use the same numbers)."""
    return special.xlogy(1.0, p), special.xlog1py(1.0, -p)


def _log_factorials(n: int) -> np.ndarray:
    """``gammaln(k + 1)`` for ``k = 0..n``."""
    return special.gammaln(np.arange(n + 1) + 1.0)


def _pair_tables(m_pos: int, above: np.ndarray, tied: np.ndarray) -> tuple:
    """The positives' trinomial pairs of blocks with shares ``above`` and ``tied``
    (:func:`rocsim.core._interpolated.pair_tables`)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(tied < 1, np.minimum(above / (1 - tied), 1.0), 0.0)
    return _interpolated.pair_tables(
        _log_factorials(m_pos),
        m_pos,
        tied,
        *_log_terms(tied),
        share,
        *_log_terms(share),
        PMF_SIGMAS,
        PMF_SLACK,
        TINY,
    )


def _cell_tables(n_neg: int, before: np.ndarray, sizes: np.ndarray) -> tuple:
    """The negatives' ``(C, B)`` cells of blocks below ``before`` others holding ``sizes``
    (:func:`rocsim.core._interpolated.cell_tables`)."""
    share = sizes / (n_neg - before)
    return _interpolated.cell_tables(
        _log_factorials(n_neg),
        n_neg,
        before.astype(np.int64),
        *_log_terms(before / n_neg),
        share,
        *_log_terms(share),
        PMF_SIGMAS,
        PMF_SLACK,
        TINY,
    )


def _moments(b: _Blocks, row, block, weight, shared, sums, n_rows: int, m_pos: int):
    """Mean and variance of TPR per row from its components: ``w (q, q^2 + q (1 - q) / m+)``
    for a binomial of share ``q``; for a tied block, with ``s_k`` the sum of ``w t^k`` over its
    cells, ``E[X + t Y]`` and ``E[(X + t Y)^2]`` of the trinomial given ``t``."""
    q, y = b.above[block], b.tied[block]
    s0, s1, s2 = sums[:3]
    first = np.where(shared, s0 * q + s1 * y, weight * q)
    second = np.where(
        shared,
        s0 * q * q
        + 2 * s1 * q * y
        + s2 * y * y
        + (s0 * q * (1 - q) + s2 * y * (1 - y) - 2 * s1 * q * y) / m_pos,
        weight * (q * q + q * (1 - q) / m_pos),
    )
    mean = np.bincount(row, first, n_rows)
    return mean, np.maximum(np.bincount(row, second, n_rows) - mean * mean, 0.0)


def _skewness(b: _Blocks, row, block, sums, n_rows: int, m: int) -> np.ndarray:
    """The skewness of ``m+ TPR`` per row (for the quantile search's first guess only): raw
    moments of ``X + t Y`` given ``t`` from the trinomial's factorial moments
    ``E[X^(i) Y^(j)] = m^(i + j) a^i b^j``, weighted by the sums ``s_k`` of ``w t^k``."""
    a, y = b.above[block], b.tied[block]
    s0, s1, s2, s3 = sums
    m2, m3 = m * (m - 1.0), m * (m - 1.0) * (m - 2.0)
    x1, x2 = m * a, m2 * a * a + m * a
    x3 = m3 * a**3 + 3 * m2 * a * a + m * a
    y1, y2 = m * y, m2 * y * y + m * y
    y3 = m3 * y**3 + 3 * m2 * y * y + m * y
    xy, x2y, xy2 = m2 * a * y, m3 * a * a * y + m2 * a * y, m3 * a * y * y + m2 * a * y
    first = np.bincount(row, s0 * x1 + s1 * y1, n_rows)
    second = np.bincount(row, s0 * x2 + 2 * s1 * xy + s2 * y2, n_rows)
    third = np.bincount(row, s0 * x3 + 3 * s1 * x2y + 3 * s2 * xy2 + s3 * y3, n_rows)
    var = np.maximum(second - first * first, 0.0)
    central = third - 3 * first * second + 2 * first**3
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(var > 0, central / var**1.5, 0.0)


def _data_tpr(r: np.ndarray, rank: np.ndarray, b: _Blocks) -> np.ndarray:
    """The data's TPR at FPR ``r / n-`` read along the diagonal: the threshold's block is the
    one holding negative ``rank`` (past the last negative, upper side at FPR 1: every
    positive)."""
    j = np.searchsorted(b.before + b.sizes, rank, "left")
    inside = j < b.before.size
    k = np.minimum(j, b.before.size - 1)
    tpr = b.above[k] + b.tied[k] * (r - b.before[k]) / b.sizes[k]
    return np.where(inside, tpr, 1.0)
