"""Exact quantiles of a law on a lattice: ``S = alpha X - beta V`` with ``X`` and ``V`` counts
(the net benefit's, :mod:`rocsim.core.net_benefit`), read without enumerating resamples.

Each slice ``V = v`` has a support point every ``alpha``: one reading of the slices at a centre
``c`` gives ``Pr{S <= c - alpha}`` and every support point in ``(c - alpha, c + alpha]`` with its
probability. The half of that window holding the level is sorted, and the first point whose
running sum reaches the level is the quantile (no tolerance, no snapping). The first window is
centred on a Cornish-Fisher guess; a miss bounds the quantile on one side, and the next window
walks that way with a doubled step, never past the middle of the bracket left. All thresholds
are searched at once.

:class:`TableLattice`: ``X`` and ``V`` independent, each a table of binomial probabilities
(the stratified bootstrap; the difference of two models). :class:`MultinomialLattice`: the full
bootstrap's multinomial ``(TP*, FP*)``, sliced by the treated count ``U = TP* + FP*``, with
``TP* | U = u ~ Bin(u, tp / (tp + fp))`` and ``S = (1 + k) TP* - k U``: along ``u`` the
conditional pmf and distribution function follow a ratio recurrence from exact (Boost) values
every :data:`_RUN` cells (:func:`_staircase`). :class:`MixtureLattice`: the full bootstrap of
the difference of two models, four cells drawn together: given the draws ``O`` of two of them,
``Z = 2B - O`` (``B`` binomial) and the other two's difference ``V`` are independent, so each
slice ``V = v`` reads a mixture over ``O`` (compiled: :mod:`rocsim.core._lattice`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np
from scipy import special

from rocsim.core import _lattice
from rocsim.core.binomial import boost_binomial_cdf, boost_binomial_pmf
from rocsim.core.scratch import scratch

#: A support point ``x - k y`` computed in floating point may fall a rounding below ``x - k y``:
#: distribution functions are read this much above their argument (:meth:`Lattice._grid`).
_SUPPORT_SLACK = 1e-9
#: A binomial law is kept on a window holding all but at most this much of its mass, both tails
#: together (:func:`_bernstein_reach`). A distribution function summed over such windows moves
#: by less than ``2e-18``, below the rounding of the sums themselves: a quantile could only
#: change where the exact distribution function lies that close to its level ``q``, a level no
#: smaller than ``5e-10`` for any confidence level (:func:`check_confidence_level`).
_CUT = 1e-18
#: Binomial probabilities along a window or a staircase (:func:`_staircase`) follow their
#: ratio recurrence from an exact value every this many cells: a value carries the rounding of
#: at most this many ratios (a few units in the 14th digit).
_RUN = 64
#: Windows a quantile search reads at most: each miss doubles the step of its walk or halves
#: its bracket, so a range of doubles is crossed in far fewer.
_MAX_WINDOWS = 256
#: A window's work arrays of at most this many values are kept from call to call
#: (:func:`_work`): at such sizes the page faults of fresh arrays cost about as much as the
#: arithmetic on them; larger ones are made anew rather than keep tens of MB.
_WORK_LIMIT = 2**18


@dataclass(frozen=True)
class Lattice:
    """The law of ``S = alpha X - beta V`` at each threshold (row): ``V`` on the values ``v``
    with probabilities ``w`` (a window of its support, rows padded with weight 0) and ``X``
    given ``V = v`` on whole numbers, so that each slice ``V = v`` holds a support point every
    ``alpha > 0``. A subclass reads ``X``'s distribution function and pmf in the slices
    (:meth:`_slices`) and gives the range of ``S`` and its first three cumulants.

    Quantiles are read off windows ``(c - alpha, c + alpha]``: each slice has one support point
    in ``(c - alpha, c]`` (its largest ``x`` with ``alpha x - beta v <= c``) and the next one in
    ``(c, c + alpha]``, so one reading of the slices at ``c`` gives ``Pr{S <= c - alpha}`` and
    every support point of the window with its probability. In increasing order, the first
    whose running sum reaches ``q`` is the quantile: the search has no tolerance, and reads no
    distribution function but at ``c``.
    """

    alpha: np.ndarray  # (T,)
    beta: np.ndarray  # (T,)
    v: np.ndarray  # (T, L)
    w: np.ndarray  # (T, L)

    def cdf(self, s: np.ndarray) -> np.ndarray:
        """``Pr{S <= s[i]}`` per row."""
        rows = np.arange(self.alpha.size)
        return np.sum(self.w * self._slices(self._grid(s, rows), rows)[0], axis=1)

    def quantile(self, q: float) -> np.ndarray:
        """The smallest support point ``s`` with ``Pr{S <= s} >= q``, per row (``-inf`` for
        ``q <= 0``; past the windows' total probability, their last support point).

        The first window is centred on the Cornish-Fisher quantile. A window that misses
        bounds the quantile on one side (``Pr{S <= c - alpha} >= q``: it lies at or below
        ``c - alpha``; else above ``c + alpha``): the next one steps that way, twice as far each
        time, but no further than the middle of the bracket the misses leave, which holds the
        quantile once it is narrower than a window.
        """
        return self.quantiles([q])[0]

    def quantiles(self, levels) -> np.ndarray:
        """:meth:`quantile` at several levels, from one search for all of them.

        The windows of a row at several levels are read together: a lattice whose slices are
        costly to read (:class:`MixtureLattice`) reads that row's once for all of them.

        Parameters
        ----------
        levels : sequence of float

        Returns
        -------
        ndarray of shape (len(levels), rows)
            The same values as :meth:`quantile` at each level.
        """
        levels, count = [float(q) for q in levels], self.alpha.size
        level = np.repeat(levels, count)
        if max(levels) > 1 - 1e-9:  # a level past the windows' total (1 less the cut, summed
            # with rounding) is read as that total less 1e-15: the last support point
            total = np.tile(self.cdf(self.most) * (1 - 1e-15), len(levels))
            level = np.where(level > 1 - 1e-9, np.minimum(level, total), level)
        found, searched = np.full(level.size, -np.inf), np.flatnonzero(level > 0)
        laws = np.tile(np.arange(count), len(levels))[searched]
        found[searched] = self._search(level[searched], laws)
        return found.reshape(len(levels), count)

    def _search(self, level: np.ndarray, laws: np.ndarray) -> np.ndarray:
        """The ``level[i]``-quantile of row ``laws[i]``, for every ``i`` (:meth:`quantile`)."""
        below, above = self.least[laws] - self.alpha[laws], self.most[laws]  # Pr{S <= below} = 0
        alpha = self.alpha[laws]
        centre, step = np.clip(self._guess(level, laws), below, above), 2 * alpha
        found, rows = np.full(level.size, np.nan), np.arange(level.size)
        for _ in range(_MAX_WINDOWS):
            found[rows], low = self._window(centre[rows], level[rows], laws[rows])
            missed = np.isnan(found[rows])
            if not np.any(missed):
                return found
            rows = rows[missed]
            over = low[missed] >= level[rows]
            _move(rows, over, centre, step, (below, above), alpha)
        raise RuntimeError("the quantile search of the net benefit's law did not converge")

    def _window(self, centre: np.ndarray, q: np.ndarray, rows: np.ndarray):
        """``(quantile, Pr{S <= centre - alpha})`` per row of ``rows`` (``q`` their levels): the
        quantile where it lies in the window ``(centre - alpha, centre + alpha]``, else NaN."""
        x = self._grid(centre, rows)
        cdf, lower, upper = self._slices(x, rows)  # of X; times w, of the window's points
        w = _rows(self.w, rows)
        cdf *= w
        lower *= w
        upper *= w
        middle = np.sum(cdf, axis=1)  # Pr{S <= centre}
        low = middle - np.sum(lower, axis=1)
        found = np.full(rows.size, np.nan)
        held = np.flatnonzero((low < q) & (middle + np.sum(upper, axis=1) >= q))
        if held.size:  # from here on the window's arrays are overwritten: their last use
            q, high = q[held], middle[held] < q[held]  # the quantile lies in the upper half
            masses, scratch = _rows(lower, held), _rows(upper, held)
            np.copyto(masses, scratch, where=high[:, None])
            x, rows = _rows(x, held), rows[held]
            x += high[:, None]  # a slice's point in the upper half: its x one up
            points = self._points(x, _rows(self.v, rows), rows, scratch)
            edge = centre[held] - np.where(high, 0.0, self.alpha[rows])
            start = np.where(high, middle[held], low[held])
            found[held] = _first_reaching(q, start, masses, points, edge, self.alpha[rows])
        return found, low

    def _grid(self, s: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Per slice, the largest ``x`` with ``alpha x - beta v <= s`` (read
        :data:`_SUPPORT_SLACK` above ``s``)."""
        v = _rows(self.v, rows)
        reach = np.multiply(v, self.beta[rows, None], out=_work(v.shape, "grid"))
        reach += s[:, None]
        reach /= self.alpha[rows, None]
        slack = np.abs(reach, out=_work(v.shape, "slack"))
        slack += 1.0
        slack *= _SUPPORT_SLACK
        reach += slack
        return np.floor(reach, out=reach)

    def _points(self, x, v, rows, scratch) -> np.ndarray:
        """The support points ``alpha x - beta v``, written over ``x`` (``scratch``: an array
        of ``x``'s shape to work in)."""
        np.multiply(v, self.beta[rows, None], out=scratch)
        x *= self.alpha[rows, None]
        x -= scratch
        return x

    def _guess(self, q: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The Cornish-Fisher ``q[i]``-quantile of ``S`` (to the skewness term) of each row
        ``rows[i]``."""
        mean, var, third = (c[rows] for c in self._cumulants)
        sd, z = np.sqrt(np.maximum(var, 0.0)), special.ndtri(np.minimum(q, 1 - 1e-16))
        with np.errstate(divide="ignore", invalid="ignore"):
            skew = np.clip(np.nan_to_num(third / sd**3), -3.0, 3.0)
        return mean + sd * (z + skew * (z * z - 1) / 6)


def _move(rows, over, centre, step, bracket, alpha) -> None:
    """After the windows at ``centre[rows]`` missed (``over``: the quantile lies below one),
    narrow the bracket ``(below, above]`` that holds the quantile and move those windows: twice
    their last step that way, but not past the bracket's middle (``alpha``: the windows'
    half-widths)."""
    below, above = bracket
    here = centre[rows]
    edge = here + np.where(over, -1.0, 1.0) * alpha[rows]
    above[rows] = np.where(over, np.minimum(above[rows], edge), above[rows])
    below[rows] = np.where(over, below[rows], np.maximum(below[rows], edge))
    middle, reach = (below[rows] + above[rows]) / 2, step[rows]
    moved = np.where(over, np.maximum(here - reach, middle), np.minimum(here + reach, middle))
    centre[rows], step[rows] = moved, 2 * reach


@dataclass(frozen=True)
class TableLattice(Lattice):
    """``X`` independent of ``V``, on the values ``x0 + j`` (any sign) with probabilities
    ``px[:, j]``: the stratified bootstrap and a difference of two models' net benefits."""

    px: np.ndarray  # (T, Lx)
    x0: np.ndarray  # (T,)
    cumulants: tuple | None = None  # of S, when known in closed form

    @classmethod
    def of(cls, k, x, px, v, w, cumulants=None) -> TableLattice:
        """The law of ``X - k V``, ``X`` and ``V`` independent with probabilities ``px`` and
        ``w`` on runs of whole numbers starting at ``x[:, 0]`` and ``v[:, 0]`` (``cumulants``:
        theirs, the first three, where known in closed form). Sliced by ``V``
        (``alpha = 1``, ``beta = k``) where ``k <= 1``; where ``k > 1`` by ``X``, the table
        holding ``-V`` (``alpha = k``, ``beta = -1``): a slice's support points then lie
        ``max(1, k)`` apart, the scale of the first guess's error, so its first window mostly
        holds the quantile."""
        width = max(px.shape[1], w.shape[1])
        table, weights = (np.pad(a, ((0, 0), (0, width - a.shape[1]))) for a in (px, w))
        swap = np.flatnonzero(k > 1)
        table[swap], weights[swap] = weights[swap, ::-1], table[swap]
        x0, values = x[:, 0].copy(), v[:, :1] + np.arange(width)
        values[swap] += (x0 - v[:, 0])[swap, None]
        x0[swap] = -(v[swap, 0] + width - 1)
        alpha, beta = np.where(k > 1, k, 1.0), np.where(k > 1, -1.0, k)
        known = None if cumulants is None else _combined(*cumulants, 1.0, k)
        return cls(alpha, beta, values, weights, table, x0, known)

    @cached_property
    def least(self) -> np.ndarray:
        return self.alpha * self.x0 - np.max(self.beta[:, None] * self.v, axis=1)

    @cached_property
    def most(self) -> np.ndarray:
        top = self.x0 + self.px.shape[1] - 1
        return self.alpha * top - np.min(self.beta[:, None] * self.v, axis=1)

    @cached_property
    def _cumulants(self) -> tuple[np.ndarray, ...]:
        if self.cumulants is not None:
            return self.cumulants
        x = self.x0[:, None] + np.arange(self.px.shape[1])
        return _combined(_moments(x, self.px), _moments(self.v, self.w), self.alpha, self.beta)

    @cached_property
    def _tables(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``X``'s distribution function, pmf and pmf one value up, at ``x0 - 2 + j``: two
        cells before its first value and two after its last."""
        pmf = np.pad(self.px, ((0, 0), (2, 2)))
        following = np.zeros(pmf.shape)
        following[:, :-1] = pmf[:, 1:]
        return np.cumsum(pmf, axis=1), pmf, following

    def _slices(self, x: np.ndarray, rows: np.ndarray):
        """``Pr{X <= x}``, ``Pr{X = x}`` and ``Pr{X = x + 1}`` at whole ``x`` (any sign)."""
        tables = [_rows(table, rows) for table in self._tables]
        at = _work(x.shape, "index", np.intp)
        np.copyto(at, x, casting="unsafe")
        at -= (self.x0[rows, None] - 2).astype(np.intp)
        np.clip(at, 0, tables[0].shape[1] - 1, out=at)
        at += tables[0].shape[1] * np.arange(x.shape[0])[:, None]  # into the flat table
        slots = ("cdf", "pmf", "next")
        return tuple(
            np.take(table.ravel(), at, out=_work(x.shape, slot))
            for table, slot in zip(tables, slots)
        )


@dataclass(frozen=True)
class MultinomialLattice(Lattice):
    """The full bootstrap: ``V = U = TP* + FP*`` the treated instances, ``Bin(n, share)``, and
    ``X = TP*`` given ``U = u`` ``Bin(u, theta)``, ``theta = tp / (tp + fp)``; then
    ``S = X - k (U - X) = (1 + k) X - k U`` (``alpha = 1 + k``, ``beta = k``). A slice's
    distribution function is read along the staircase of its ``x`` (:func:`_staircase`), which
    climbs by 0 or 1 from one ``u`` to the next since ``k / (1 + k) < 1``."""

    theta: np.ndarray  # (T, 1)
    share: np.ndarray  # (T,)
    n: int

    @cached_property
    def _trials_odds(self) -> tuple[np.ndarray, np.ndarray]:
        """``u theta`` and ``u (1 - theta)``, the numerators of :func:`_staircase`'s ratios."""
        return self.v * self.theta, self.v * (1 - self.theta)

    @classmethod
    def of(cls, tp: np.ndarray, fp: np.ndarray, n: int, k: np.ndarray) -> MultinomialLattice:
        share = (tp + fp) / n
        u, w = binomial_window(np.full(k.shape, float(n)), share)
        theta = np.where(tp + fp > 0, tp / np.maximum(tp + fp, 1.0), 0.0)
        return cls(1.0 + k, k, u, w, theta[:, None], share, n)

    @cached_property
    def least(self) -> np.ndarray:
        return -self.beta * np.max(self.v, axis=1)

    @cached_property
    def most(self) -> np.ndarray:
        return np.max(self.v, axis=1)

    @cached_property
    def _cumulants(self) -> tuple[np.ndarray, ...]:
        """Of ``n`` independent draws of ``1``, ``-k`` or ``0`` (a treated positive, a treated
        negative, an untreated instance)."""
        k, hit = self.beta, self.share * self.theta[:, 0]
        miss = self.share - hit
        mu = hit - k * miss
        var = hit + k * k * miss - mu * mu
        third = hit * (1 - mu) ** 3 + miss * (-k - mu) ** 3 + (1 - hit - miss) * (-mu) ** 3
        return self.n * mu, self.n * var, self.n * third

    def _slices(self, x: np.ndarray, rows: np.ndarray):
        """``Pr{X <= x | u}``, ``Pr{X = x | u}`` and ``Pr{X = x + 1 | u}`` along each row."""
        u, theta = _rows(self.v, rows), self.theta[rows]
        inside = np.greater_equal(x, 0, out=_work(x.shape, "inside", bool))
        inside &= np.less_equal(x, u, out=_work(x.shape, "outside", bool))
        pmf, cdf = _staircase(x, u, theta, inside, [_rows(a, rows) for a in self._trials_odds])
        outside = np.logical_not(inside, out=_work(x.shape, "outside", bool))
        np.copyto(pmf, 0.0, where=outside)
        np.copyto(cdf, np.greater(x, u, out=inside), where=outside)
        return cdf, pmf, _next_pmf(x, u, theta, pmf)

    def _points(self, x, v, rows, scratch) -> np.ndarray:
        """The support points ``x - k y``, ``y = u - x`` the treated negatives, written over
        ``x``."""
        np.subtract(v, x, out=scratch)
        scratch *= self.beta[rows, None]
        x -= scratch
        return x


class MixtureTables(NamedTuple):
    """What a :class:`MixtureLattice` reads its slices from (the arguments of
    :func:`rocsim.core._lattice.read_slices` after the points, in this order), a row a law."""

    sizes: np.ndarray  # (rows, 6): first O, count of O, B's and V's widths, below, above
    shares: np.ndarray  # (rows, 4): theta, and the slice cells' and the rest's shares
    starts: np.ndarray  # (rows, 3): where each law's weight and lo, bins and start begin
    weight: np.ndarray  # Pr{O = o}
    lo: np.ndarray  # the first B of each outer count's binomial window
    bins: np.ndarray  # B's distribution function, the first row of each block
    start: np.ndarray  # V's law given the last O


@dataclass(frozen=True)
class MixtureLattice(Lattice):
    """``S = alpha Z - beta V`` for four cells of ``n`` instances drawn ``n`` times with
    replacement (the full bootstrap of the difference of two models' net benefits, whose four
    discordant cells share the draws): ``Z`` the draws of the first cell less those of the
    second, ``V`` those of the third less those of the fourth. Given the outer count ``O`` (the
    first two cells' draws, ``Bin(n, g)``), ``Z = 2B - O`` with ``B ~ Bin(O, theta)`` and ``V``,
    independent of ``Z``, the difference of two cells of a multinomial on the other ``n - O``
    draws. Sliced by ``V``: a slice's ``Z`` is a mixture over ``O``, summed from ``O``'s rows
    (:func:`rocsim.core._lattice.read_slices`), whose binomials and laws of ``V`` follow one
    another by a draw more (:func:`mixture_lattice`)."""

    tables: MixtureTables
    cumulants: tuple

    @cached_property
    def _ends(self) -> tuple[np.ndarray, np.ndarray]:
        """The most and least of ``beta V`` over the slices."""
        last = self.v[:, 0] + self.tables.sizes[:, 3] - 1
        reach = self.beta * self.v[:, 0], self.beta * last
        return np.maximum(*reach), np.minimum(*reach)

    @cached_property
    def least(self) -> np.ndarray:
        return self.alpha * (self.tables.sizes[:, 4] + 2) - self._ends[0]

    @cached_property
    def most(self) -> np.ndarray:
        return self.alpha * (self.tables.sizes[:, 5] - 2) - self._ends[1]

    @property
    def _cumulants(self) -> tuple[np.ndarray, ...]:
        return self.cumulants

    def _slices(self, x: np.ndarray, rows: np.ndarray):
        """``Pr{Z <= x, V = v}``, ``Pr{Z = x, V = v}`` and ``Pr{Z = x + 1, V = v}`` per slice:
        sums over ``O`` (:func:`rocsim.core._lattice.read_slices`)."""
        sizes = self.tables.sizes[rows]
        z = np.clip(x, sizes[:, 4:5], sizes[:, 5:6], out=_work(x.shape, "clipped"))
        out = tuple(_work(x.shape, slot) for slot in ("cdf", "pmf", "next"))
        member = np.argsort(rows, kind="stable")  # a row asked for at several levels: read once
        group = np.flatnonzero(np.diff(rows[member], prepend=-1, append=self.alpha.size))
        laws = rows[member[group[:-1]]].astype(np.int64)
        lanes = self._lanes(laws, np.diff(group))
        _lattice.read_slices(laws, group, member.astype(np.int64), z, lanes, *self.tables, *out)
        return out

    def _lanes(self, laws: np.ndarray, points: np.ndarray) -> np.ndarray:
        """A row of work values for each thread of :func:`rocsim.core._lattice.read_slices`,
        kept from call to call (fresh arrays of this size cost a page fault every 4 kB)."""
        widths = self.tables.sizes[laws, 2:4].T
        size = max(_lattice.lane_size(*w, p) for *w, p in zip(*widths, points))
        return scratch((_lattice.max_threads(), size), "mixture lanes", float, 2**21)


def mixture_lattice(
    n: int,
    outer: tuple[np.ndarray, np.ndarray],
    other: tuple[np.ndarray, np.ndarray],
    alpha: np.ndarray,
    beta: np.ndarray,
) -> MixtureLattice:
    """The law of ``S = alpha Z - beta V`` at each row, four cells of ``n`` instances drawn
    ``n`` times with replacement (:class:`MixtureLattice`).

    Parameters
    ----------
    n : int
        The instances, and the draws.
    outer, other : pair of ndarray
        The sizes of the cells (a value per row) whose draws ``Z`` and ``V`` are the
        difference of: ``Z`` the first of ``outer``'s less the second's, ``V`` likewise.
    alpha, beta : ndarray
        ``alpha > 0``; a row's support points lie ``alpha`` apart in each slice ``V = v``.

    Returns
    -------
    MixtureLattice

    Examples
    --------
    Four instances, one in each of three cells: ``S`` is the sum of four draws of ``1``,
    ``-1``, ``-1`` and ``0``.

    >>> one, none = np.ones(1), np.zeros(1)
    >>> law = mixture_lattice(4, (one, one), (one, none), one, one)
    >>> law.quantiles([0.25, 0.5, 0.75]).ravel().tolist(), law.cdf(none).round(8).tolist()
    ([-2.0, -1.0, 0.0], [0.81640625])
    """
    (b1, b2), (e, f) = outer, other
    trials, g = np.full(b1.shape, float(n)), (b1 + b2) / n
    first, last, weight = _trimmed_window(trials, g)
    runs = _Runs.of(last - first + 1)
    theta = np.where(b1 + b2 > 0, b1 / np.maximum(b1 + b2, 1.0), 0.0)
    bins = _BinomialRuns.of(first, runs.count, theta, _lattice.BLOCK_ROWS, cumulative=True)
    rest = n - b1 - b2
    shares = np.stack([e, f, rest - e - f], axis=1) / np.maximum(rest, 1)[:, None]
    shares[rest == 0] = [0.0, 0.0, 1.0]
    slice_first, width = _slice_window(n - last, n - first, shares, runs.count)
    start = _difference_law(n - last, shares, slice_first, width)
    sizes = np.stack([first, runs.count, bins.width, width, *_z_range(runs, first, bins)], axis=1)
    tables = _tables(sizes.astype(np.int64), np.c_[theta, shares], weight, bins, start)
    slices = np.arange(int(np.max(width)))
    v = (slice_first[:, None] + slices).astype(float)
    w = (slices < width[:, None]).astype(float)
    cumulants = _step_cumulants(np.stack([b1, b2, e, f]) / n, alpha, beta, n)
    return MixtureLattice(alpha, beta, v, w, tables, cumulants)


def _tables(
    sizes: np.ndarray, shares: np.ndarray, weight: np.ndarray, bins: _BinomialRuns, start
) -> MixtureTables:
    """:class:`MixtureTables` of the laws, their arrays concatenated."""
    starts = np.stack([bins.runs.start, bins.seeds.start, _Runs.of(sizes[:, 3]).start], axis=1)
    return MixtureTables(
        sizes, shares, starts, weight, bins.lo, bins.seed, _concatenated(start, sizes[:, 3])
    )


@dataclass(frozen=True)
class _Runs:
    """Runs of values, one per row, concatenated: where each row's starts and how long it is."""

    start: np.ndarray
    count: np.ndarray

    @classmethod
    def of(cls, count: np.ndarray) -> _Runs:
        count = count.astype(np.int64)
        return cls(np.cumsum(count) - count, count)

    @cached_property
    def items(self) -> tuple[np.ndarray, np.ndarray]:
        """Each value's row and place in it."""
        row = np.repeat(np.arange(self.count.size), self.count)
        return row, np.arange(row.size) - self.start[row]

    def per_row(self, values: np.ndarray, reduce) -> np.ndarray:
        """``reduce`` (``np.minimum``, ...) of each row's run of ``values``."""
        return reduce.reduceat(values, self.start)


@dataclass(frozen=True)
class _BinomialRuns:
    """``Bin(first + i, p)``, ``i = 0 .. count - 1`` per row: each trial count's window (its
    first value ``lo``, the row's common ``width``), and the pmf (the distribution function,
    where ``cumulative``) on its window of every ``every``-th (the first of each block of the
    recurrence from one trial count to the next), concatenated."""

    runs: _Runs
    lo: np.ndarray
    width: np.ndarray
    seeds: _Runs  # each row's run of seed values
    seed: np.ndarray

    @classmethod
    def of(
        cls, first: np.ndarray, count: np.ndarray, p: np.ndarray, every: int, cumulative: bool
    ) -> _BinomialRuns:
        runs = _Runs.of(count)
        row, i = runs.items
        lo, hi = _window_ends(first[row] + i, p[row])
        width = runs.per_row(hi - lo + 1, np.maximum).astype(np.int64)
        blocks = _Runs.of(-(-count // every))
        row, block = blocks.items
        trials, at = first[row] + block * every, runs.start[row] + block * every
        seed = binomial_rows(trials, p[row], lo[at], width[row], cumulative)
        return cls(runs, lo.astype(np.int64), width, _Runs.of(blocks.count * width), seed)


def binomial_rows(
    trials: np.ndarray, p: np.ndarray, lo: np.ndarray, width: np.ndarray, cumulative: bool = False
) -> np.ndarray:
    """The pmf (or distribution function) of ``Bin(trials, p)`` at ``lo + j``, ``j < width``,
    row after row (:func:`rocsim.core._lattice.binomial_seeds`: Boost's pmf every :data:`_RUN`
    values, the ratio of consecutive values between)."""
    anchors = _Runs.of(-(-width // _RUN))
    row, i = anchors.items
    at = lo[row] + i * _RUN
    exact = np.where(at <= trials[row], boost_binomial_pmf(at, trials[row], p[row]), 0.0)
    out = np.empty(int(np.sum(width)))
    sizes = np.stack([trials, lo, width, anchors.start, _Runs.of(width).start], axis=1)
    _lattice.binomial_seeds(sizes.astype(np.int64), p, exact, _RUN, cumulative, out)
    return out


def _concatenated(rows: np.ndarray, width: np.ndarray) -> np.ndarray:
    """Rows ``rows[i, ..., :width[i]]`` one after another."""
    held = np.arange(rows.shape[-1]) < width.reshape(-1, *(1,) * (rows.ndim - 1))
    return rows[np.broadcast_to(held, rows.shape)]


def _trimmed_window(trials: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, ...]:
    """The first and last value of the shortest run of ``Bin(trials, p)`` that leaves out at
    most :data:`_CUT` of its mass, half on each side (from its pmf: Bernstein's bound, a sum
    of the whole mass past the window, is a few standard deviations wider), and its pmf on
    it, concatenated."""
    y, pmf = binomial_window(trials, p)
    left = np.cumsum(pmf, axis=1) <= _CUT / 2
    right = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1] <= _CUT / 2
    first = y[:, 0] + np.sum(left, axis=1)
    last = y[:, 0] + y.shape[1] - 1 - np.sum(right, axis=1)
    return first, last, pmf[~(left | right)]


def _z_range(runs: _Runs, first: np.ndarray, bins: _BinomialRuns) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the ``Z = 2B - o`` below whose next value no binomial window reaches, and the
    least at or above which every window lies whole (:func:`rocsim.core._lattice._read_law`)."""
    row, i = runs.items
    trials = first[row] + i
    low = runs.per_row(2 * bins.lo - trials, np.minimum) - 2
    high = runs.per_row(2 * (bins.lo + bins.width[row]) - trials, np.maximum)
    return low, high


def _slice_window(
    fewest: np.ndarray, most: np.ndarray, shares: np.ndarray, outer_count: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The first value and width of a window holding ``V``'s law on any number of draws from
    ``fewest`` to ``most``: all but :data:`_CUT` over the count of draws of its mass at each,
    so that the mass the windows lose, one draw after another (the tables' recurrence), is below
    :data:`_CUT` in all."""
    drift = shares[:, 0] - shares[:, 1]
    var = most * (shares[:, 0] + shares[:, 1] - drift * drift)
    reach = _reach(var, 1 + np.abs(drift), _CUT / (outer_count + 1))
    centres = np.stack([fewest * drift, most * drift])
    first = np.maximum(-most, np.floor(np.min(centres, axis=0) - reach))
    last = np.minimum(most, np.ceil(np.max(centres, axis=0) + reach))
    return first.astype(np.int64), (last - first + 1).astype(np.int64)


def _difference_law(
    trials: np.ndarray, shares: np.ndarray, first: np.ndarray, width: np.ndarray
) -> np.ndarray:
    """``Pr{E - F = first + j}``, ``j < width``, per row, in a row each (0 past ``width``), for
    ``(E, F)`` two cells of ``Mult(trials; shares[:, 0], shares[:, 1], ...)``: given
    ``E + F = t ~ Bin(trials, share)``, ``E ~ Bin(t, phi)`` (:func:`rocsim.core._lattice.
    difference_starts`)."""
    both = shares[:, 0] + shares[:, 1]
    phi = np.where(both > 0, shares[:, 0] / np.where(both > 0, both, 1.0), 0.0)
    t_first, t_last, weight = _trimmed_window(trials.astype(float), both)
    t_runs = _Runs.of(t_last - t_first + 1)
    bins = _BinomialRuns.of(t_first, t_runs.count, phi, _lattice.BLOCK_ROWS, cumulative=False)
    out = np.zeros((width.size, int(np.max(width))))
    starts = t_runs.start, bins.seeds.start
    sizes = np.stack([t_runs.count, bins.width, t_first, *starts, first, width], axis=1)
    _lattice.difference_starts(sizes.astype(np.int64), phi, bins.lo, bins.seed, weight, out)
    return out


def _step_cumulants(
    shares: np.ndarray, alpha: np.ndarray, beta: np.ndarray, n: int
) -> tuple[np.ndarray, ...]:
    """The first three cumulants of the sum of ``n`` independent draws of ``alpha``, ``-alpha``,
    ``-beta``, ``beta`` or 0 (``shares``: the first four's probabilities, a row each)."""
    values = np.stack([alpha, -alpha, -beta, beta])
    mean = np.sum(shares * values, axis=0)
    rest = 1 - np.sum(shares, axis=0)
    central = [np.sum(shares * (values - mean) ** j, axis=0) + rest * (-mean) ** j for j in (2, 3)]
    return n * mean, n * central[0], n * central[1]


def _staircase(x, u, theta, inside, trials_odds):
    """``Pr{X = x}`` and ``Pr{X <= x}`` of ``X ~ Bin(u, theta)`` along rows where ``u`` climbs
    by 1 and ``x`` by 0 or 1 from one cell to the next (``inside``: ``0 <= x <= u``, which
    holds from a row's first such cell on; the values elsewhere are left to the caller).
    ``trials_odds`` holds ``u theta`` and ``u (1 - theta)``.

    From exact values (Boost's) at an anchor in each run of :data:`_RUN` cells (its first cell;
    in the run where the support starts, the first inside it), by the recurrences from
    ``(u - 1, x')`` to ``(u, x)``: the pmf is multiplied by ``u theta / (x' + 1)``
    (``x = x' + 1``) or ``u (1 - theta) / (u - x')`` (``x = x'``), and the distribution function
    gains ``Pr{X = x}`` where ``x = x' + 1`` and loses ``theta Pr{X' = x'}`` (a trial more).
    """
    first = np.argmax(inside, axis=1)
    cols = _anchor_columns(first, x.shape[1] // _RUN)
    u_at = _take(u, cols)
    x_at = np.clip(_take(x, cols), 0, u_at)  # runs outside the support: not read
    ratio, up, spare = _ratios(x, u, trials_odds)
    with np.errstate(over="ignore", invalid="ignore"):  # outside the support: not read
        pmf = _from_anchors(boost_binomial_pmf(x_at, u_at, theta), ratio, first, np.multiply)
        change = np.multiply(pmf, up, out=_work(x.shape, "cdf"))
        change[:, 1:] -= np.multiply(pmf[:, :-1], theta, out=spare[:, 1:])
        cdf = boost_binomial_cdf(x_at, u_at, theta)
        return pmf, _from_anchors(cdf, change, first, np.add)


def _ratios(x: np.ndarray, u: np.ndarray, trials_odds):
    """Per cell, ``Pr{X = x} / Pr{X' = x'}`` from the cell before (``(u - 1, x')`` to
    ``(u, x)``, :func:`_staircase`), whether ``x`` climbed, and a spare work array (``x'``)."""
    before = _work(x.shape, "before")
    before[:, 0], before[:, 1:] = x[:, 0], x[:, :-1]
    up = np.greater(x, before, out=_work(x.shape, "up", bool))
    ratio = _work(x.shape, "pmf")
    np.copyto(ratio, trials_odds[1])
    np.copyto(ratio, trials_odds[0], where=up)
    with np.errstate(divide="ignore", invalid="ignore"):  # outside the support: not read
        below = np.subtract(u, before, out=_work(x.shape, "den"))
        ratio /= np.add(before, 1.0, out=below, where=up)
    return ratio, up, before


def _anchor_columns(first: np.ndarray, runs: int) -> np.ndarray:
    """The anchor of each run of :data:`_RUN` cells: its first cell, but in the run where a
    row's support starts, ``first`` (the first cell inside it)."""
    cols = np.broadcast_to(np.arange(runs) * _RUN, (first.size, runs)).copy()
    cols[np.arange(first.size), first // _RUN] = first
    return cols


def _next_pmf(x: np.ndarray, u: np.ndarray, theta: np.ndarray, pmf: np.ndarray) -> np.ndarray:
    """``Pr{X = x + 1}`` of ``X ~ Bin(u, theta)`` from ``pmf = Pr{X = x}`` (0 outside the
    support), at the edges of the support by its formula."""
    after, steps = (
        np.subtract(u, x, out=_work(x.shape, "next")),
        np.add(x, 1.0, out=_work(x.shape, "den")),
    )
    after *= pmf
    after /= np.maximum(steps, 1.0, out=steps)
    after *= np.where(theta < 1, theta / np.where(theta < 1, 1 - theta, 1.0), 0.0)
    start = (x == -1) & (u >= 0)
    after[start] = (1 - np.broadcast_to(theta, x.shape)[start]) ** u[start]
    certain = theta[:, 0] == 1  # Bin(u, 1) is u
    after[certain] = x[certain] + 1 == u[certain]
    return after


def _from_anchors(anchor: np.ndarray, steps: np.ndarray, first: np.ndarray, accumulate):
    """Values along rows cut in runs of :data:`_RUN` cells: each run carries its anchor's value
    (at its first cell; in the run where a row's support starts, at column ``first``) on by
    ``accumulate`` (``np.multiply`` of ratios, ``np.add`` of differences) of ``steps``, which
    it overwrites; cells before the anchor keep its value."""
    rows, runs = anchor.shape
    steps = steps.reshape(rows, runs, _RUN)
    neutral = 1.0 if accumulate is np.multiply else 0.0
    steps[:, :, 0] = neutral
    at, run = np.arange(rows), first // _RUN
    steps[at, run] = np.where(np.arange(_RUN) <= (first % _RUN)[:, None], neutral, steps[at, run])
    accumulate.accumulate(steps, axis=2, out=steps)
    accumulate(steps, anchor[..., None], out=steps)
    return steps.reshape(rows, -1)


def _bernstein_reach(trials: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The ``t`` with ``Pr{|X - trials p| >= t} <= _CUT`` for ``X ~ Bin(trials, p)``
    (:func:`_reach`)."""
    return _reach(trials * p * (1 - p))


def _reach(var: np.ndarray, bound: float | np.ndarray = 1.0, cut=_CUT) -> np.ndarray:
    """The ``t`` with ``Pr{|X - mean| >= t} <= cut`` for a sum ``X`` of independent terms within
    ``bound`` of their means, of variance ``var``: Bernstein's inequality,
    ``Pr{|X - mean| >= t} <= 2 exp(-t^2 / (2 (var + bound t / 3)))``, solved for ``t``; 0 for a
    law on one point."""
    log_bound = np.log(2 / cut)
    reach = bound * log_bound / 3 + np.sqrt((bound * log_bound) ** 2 / 9 + 2 * log_bound * var)
    return np.where(var > 0, reach, 0.0)


def binomial_window(trials: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Values ``y`` (a run of whole numbers per row, any sign) and probabilities of
    ``Bin(trials, p)`` per row on ``mean -+`` :func:`_bernstein_reach` (0 outside it), the
    width a multiple of :data:`_RUN`: read from the mode down and from the mode up
    (:func:`_from_mode`), the mode in the same column of every row."""
    first, last = _window_ends(trials, p)
    mode = np.clip(np.floor((trials + 1) * p), first, last)
    below = int(np.max(mode - first))
    width = _RUN * int(np.ceil((below + np.max(last - mode) + 1) / _RUN))
    pmf = np.empty((p.size, width))
    pmf[:, : below + 1] = _from_mode(mode, trials, p, below, -1)[:, below::-1]
    pmf[:, below:] = _from_mode(mode, trials, p, width - below - 1, 1)[:, : width - below]
    y = (mode - below)[:, None] + np.arange(width)
    np.copyto(pmf, 0.0, where=(y < first[:, None]) | (y > last[:, None]))
    return y, pmf


def _window_ends(trials: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first and last value of :func:`binomial_window`'s window of ``Bin(trials, p)``."""
    mean, reach = trials * p, _bernstein_reach(trials, p)
    return np.maximum(0.0, np.floor(mean - reach)), np.minimum(trials, np.ceil(mean + reach))


def _from_mode(mode, trials, p, steps: int, way: int) -> np.ndarray:
    """``Pr{Bin(trials, p) = mode + way j}`` for ``j = 0 .. steps`` per row: Boost's
    pmf at the start of each run of :data:`_RUN` values, the one nearest the mode, where its
    relative error is least (a run started in a far tail would carry that value's error into
    all of its own), and the ratio of consecutive values within."""
    width = _RUN * int(np.ceil((steps + 1) / _RUN))
    y = mode[:, None] + way * np.arange(width)
    n = trials[:, None]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # past the ends: not read
        odds = (p / (1 - p))[:, None]
        ratio = (n - y + 1) * odds / y if way > 0 else (y + 1) / ((n - y) * odds)
        exact = boost_binomial_pmf(np.clip(y[:, ::_RUN], 0, n), n, p[:, None])
        return _from_anchors(exact, ratio, np.zeros(trials.size, dtype=np.intp), np.multiply)


def binomial_cumulants(trials: int, p: np.ndarray) -> tuple[np.ndarray, ...]:
    """The first three cumulants of ``Bin(trials, p)``."""
    var = trials * p * (1 - p)
    return trials * p, var, var * (1 - 2 * p)


def _combined(of_x, of_v, alpha, beta) -> tuple[np.ndarray, ...]:
    """The first three cumulants of ``alpha X - beta V`` from those of independent ``X``, ``V``."""
    return tuple(alpha**j * a + (-beta) ** j * b for j, (a, b) in enumerate(zip(of_x, of_v), 1))


def _moments(values: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, ...]:
    """Mean, variance and third central moment per row of a law on a window."""
    total = np.sum(weights, axis=1)
    mean = np.sum(weights * values, axis=1) / total
    deviation = values - mean[:, None]
    spread = weights * deviation * deviation
    return mean, np.sum(spread, axis=1) / total, np.sum(spread * deviation, axis=1) / total


def _first_reaching(q: np.ndarray, start, masses, values, edge, width) -> np.ndarray:
    """Per row, the first of ``values``, in increasing order, at which ``start`` plus the
    running sum of ``masses`` reaches ``q`` (where rounding keeps the sum short of ``q``, the
    last of positive mass).

    The values, in ``(edge, edge + width]``, are put in buckets of equal width (a bucket holds
    equal values whole): only the bucket where the sum reaches ``q`` is read cell by cell.
    """
    rows = values.shape[0]
    bucket, buckets = _buckets(values, edge, width)
    hist = np.bincount(bucket.ravel(), masses.ravel(), rows * buckets).reshape(rows, buckets)
    running = np.cumsum(hist, axis=1)
    running += start[:, None]
    chosen = _reaching(running, q)  # where the sum gains mass: a cell of positive mass
    base = _take(running - hist, chosen[:, None])[:, 0]
    chosen += buckets * np.arange(rows)
    row, cell = np.nonzero((bucket == chosen[:, None]) & (masses > 0))
    return _in_bucket(q, base, row, masses[row, cell], values[row, cell])


def _buckets(values: np.ndarray, edge: np.ndarray, width: np.ndarray):
    """Each value's bucket of ``(edge, edge + width]`` cut in a quarter as many as a row's
    values, numbered on from row to row; and the buckets of a row."""
    buckets = max(values.shape[1] // 4, 1)
    share = np.subtract(values, edge[:, None], out=_work(values.shape, "bucket"))
    share *= (buckets / width)[:, None]
    np.clip(share, 0, buckets - 1, out=share)
    bucket = _work(values.shape, "index", np.intp)
    np.copyto(bucket, share, casting="unsafe")
    bucket += buckets * np.arange(values.shape[0])[:, None]
    return bucket, buckets


def _in_bucket(q: np.ndarray, start, row, mass, value) -> np.ndarray:
    """:func:`_first_reaching` in one bucket a row: the cells ``(row, mass, value)`` of
    positive mass, row after row (each row has one at least). Where a bucket holds a single
    value (on a grid of thresholds such as dcurves' the values of a window are few and far
    apart), that one; else the bucket sorted."""
    first = np.flatnonzero(np.diff(row, prepend=-1))
    found = np.minimum.reduceat(value, first)
    mixed = np.flatnonzero(found < np.maximum.reduceat(value, first))
    if mixed.size:
        kept = np.isin(row, mixed)
        rank = np.searchsorted(mixed, row[kept])
        found[mixed] = _sorted_reaching(q[mixed], start[mixed], rank, mass[kept], value[kept])
    return found


def _sorted_reaching(q: np.ndarray, start, row, mass, value) -> np.ndarray:
    """:func:`_first_reaching` on the few cells ``(row, mass, value)`` (rows ``0, 1, ...`` in
    order): packed in a row each and sorted."""
    counts = np.bincount(row)
    slot = np.arange(row.size) - np.repeat(np.cumsum(counts) - counts, counts)
    values, masses = (
        np.full((counts.size, counts.max()), np.inf),
        np.zeros((counts.size, counts.max())),
    )
    values[row, slot], masses[row, slot] = value, mass
    order = np.argsort(values, axis=1)
    running = np.cumsum(_take(masses, order), axis=1)
    running += start[:, None]
    return _take(values, _take(order, _reaching(running, q)[:, None]))[:, 0]


def _reaching(running: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Per row, the first column where ``running`` reaches ``q``, or its largest value."""
    return np.argmax(running >= np.minimum(q[:, None], running[:, -1:]), axis=1)


def _work(shape: tuple[int, ...], slot: str, dtype: type = float) -> np.ndarray:
    """An uninitialised array of ``shape`` for a window's arithmetic, kept in ``slot`` of this
    thread when it holds at most :data:`_WORK_LIMIT` values (:func:`rocsim.core.scratch.scratch`):
    it lives until the next window of the thread asks for that slot."""
    return scratch(shape, "net benefit " + slot, dtype, _WORK_LIMIT)


def _take(a: np.ndarray, at: np.ndarray) -> np.ndarray:
    """``a[i, at[i, j]]``, ``a`` contiguous (``np.take_along_axis`` is several times slower)."""
    return np.take(a.ravel(), _flat(a, at))


def _flat(a: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The positions ``(i, at[i, j])`` of 2-D ``a`` in ``a.ravel()``."""
    return at + a.shape[1] * np.arange(a.shape[0])[:, None]


def _rows(a: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``a[rows]``, without a copy when ``rows`` are all of them in order (a search at several
    levels may ask for a row twice: a count alone does not tell)."""
    every = rows.size == a.shape[0] and (rows.size == 0 or rows[-1] - rows[0] == rows.size - 1)
    return a if every and np.all(rows[1:] > rows[:-1]) else a[rows]
