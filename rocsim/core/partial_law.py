"""The exact law of a partial AUC under the stratified bootstrap, without resampling, and the
percentile interval it gives.

The raw partial area over ``FPR in [lo, hi]`` (:func:`rocsim.core.partial_area.partial_area`,
the empirical curve with tied scores joined by diagonals) takes, in a resample ``A*``, one
value per arrangement of the resampled scores. In FPR units (``s = n- FPR``, the cuts
``s_lo = lo n-`` and ``s_hi = hi n-``) a resampled positive with ``c`` resampled negatives
strictly above it and ``t`` tied with it has the share ``g(s_hi) - g(s_lo)`` of ``n+ n- A*``,

    g(s) = 0 if s <= c,   (s - c)^2 / (2 t) if c < s < c + t,   s - c - t / 2 if s >= c + t.

The pooled distinct scores are scanned downwards in cells: a run of scores of one class alone
(no score of the other class between them, so that they share ``c`` and ``t``), or one score
both classes hold. In a resample the cells' counts are multinomial and are drawn one cell at a
time: ``j ~ Bin(n+ - a, p_k / (mass left))`` positives and, independently,
``t ~ Bin(n- - c, q_k / (mass left))`` negatives, ``a`` and ``c`` those drawn above. Between
the cuts a positive adds ``2 s_hi - (2 c + t)`` to ``2 n+ n- A*``; above the low cut every
positive adds ``2 (s_hi - s_lo)``; past the high cut none adds anything. So the state past the
low cut is ``(a, c, J)`` with the integer ``J``, the positives' sum of ``2 c + t``, and the
value ``2 a s_hi - J`` is on a lattice; once ``c`` reaches ``s_hi`` the state is final
(absorbed: its value is known and the scores below do not matter). Before the low cut the
state is ``(a, c)`` alone. Two things leave the lattice, both once in a path, where a tie
block across the classes straddles a cut:

* the high cut, ``c < s_hi < c + t``: the block's positives add ``j (s_hi - c)^2 / t``, and
  the state is final; its value is kept exactly, as an integer part on the lattice and a
  fraction (a rational number) that picks a row of atoms;
* the low cut, ``c < s_lo < c + t``: the block's positives lose ``(s_lo - c)^2 / t`` each; the
  state goes on, in a *layer* that carries the fraction to the end. A low cut that is not a
  whole number of negatives makes layers too: the positives above it add ``2 s_lo`` each, a
  fraction that depends on how many there are.

The cuts are read as fractions ``p / q`` (``q`` at most :data:`DENOMINATOR`), so that every
value is a rational number, each atom's value the correctly rounded quotient of two exact
integers, and equal values merge exactly. The heavy loop, one cell's move of every state, is
compiled (:mod:`rocsim.core._partial_law`).

Work. A cell moves every live state ``(a, c, J)`` by every pair of binomial terms: about
``sum over cells of (states) x (terms of j) x (terms of t)`` operations. The live states are
``a`` within its binomial law (independent of ``c``), ``c`` within its law and below
``s_hi``, and ``J`` between ``2 a s_lo`` and ``2 a c``, so the work grows as about
``n+ (n- f)^3`` times the binomial terms' spread, ``f`` the width of the range, and ties
across the classes multiply the terms (a cell then draws both classes at once) and the atoms
(the blocks straddling a cut). The estimate (:func:`operations`) is made before anything is
allocated, and a law above :data:`OPERATIONS` or :data:`MEMORY` is refused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import stats

from rocsim.core._validation import check_two_classes

#: Binomial terms and states below this probability are left out of the law, as
#: :data:`rocsim.core.partial_area.TINY` is of the exact variance (that module's interval
#: calls on this one, which so does not import it).
TINY = 1e-22

#: The most inner operations (a state moved by a pair of binomial terms) an exact law may
#: take: a few seconds on one core.
OPERATIONS = 5e9

#: The most values the law's arrays may hold at once (8 bytes each).
MEMORY = 4e7

#: The largest denominator a cut ``lo n-`` or ``hi n-`` is read with: the values are rational
#: numbers with these denominators (and the tie blocks' sizes), merged exactly.
DENOMINATOR = 1000

#: How far (relative) a cut may lie from its fraction and be read as it: a rate such as 2/15
#: typed or stored with 9-12 digits is that fraction, not a cut a hair's breadth off it.
READ_AS_FRACTION = 1e-9

#: How far the work or the values held may pass the budget before the pass stops, where the
#: estimate fell short of them (it is meant to be above).
SHORTFALL = 2.0

#: The rounding a sum of the law's probabilities may carry (with the terms left out): a
#: percentile's tail reached within it is reached (:func:`percentile_interval`).
SUMS = 1e-12

#: The suggestion of a refused law.
INSTEAD = "use method='logit_t' (the default) or 'exact_bootstrap' (Wald on the exact variance)"


def exact_partial_area_law(
    pos_scores, neg_scores, lo: float, hi: float
) -> tuple[np.ndarray, np.ndarray]:
    """Exact law of the raw partial area over ``FPR in [lo, hi]`` under the stratified
    bootstrap (each class resampled with replacement at its own size, independently).

    Parameters
    ----------
    pos_scores, neg_scores : array-like
        Scores of the positives and the negatives; higher means more likely positive.
    lo, hi : float
        The range of FPRs, ``0 <= lo < hi <= 1``. The cuts ``lo n-`` and ``hi n-`` are read as
        fractions with a denominator of at most :data:`DENOMINATOR` (any ``lo`` and ``hi``
        with three decimals), a cut within :data:`READ_AS_FRACTION` (relative) of one as it.

    Returns
    -------
    values, probs : ndarray
        The distinct values of the raw area, increasing, and their probabilities. States and
        binomial terms below :data:`TINY` are left out:
        the probabilities sum to 1 within about the number of states times that.

    Raises
    ------
    ValueError
        For a cut that is no such fraction, and for a law whose estimated work is above
        :data:`OPERATIONS` (or whose arrays are above :data:`MEMORY`): both before any
        large allocation. Should the estimate fall short, the pass itself stops at
        :data:`SHORTFALL` times the budget.

    Examples
    --------
    The area up to FPR 1/2 is half the share of resampled positives above the larger
    resampled negative. That negative is 0.6 with probability 3/4, and then the share is 0,
    1/2 or 1 with probabilities 1/4, 1/2 and 1/4; else (both negatives 0.1) it is 1.

    >>> values, probs = exact_partial_area_law([0.9, 0.4], [0.6, 0.1], 0.0, 0.5)
    >>> values.tolist(), np.round(probs * 16, 12).tolist()
    ([0.0, 0.25, 0.5], [3.0, 6.0, 7.0])
    """
    pos, neg = check_two_classes(pos_scores, neg_scores)
    lo, hi = float(lo), float(hi)
    if not 0.0 <= lo < hi <= 1.0:
        raise ValueError(f"a partial AUC's range must satisfy 0 <= lo < hi <= 1, got ({lo}, {hi})")
    return partial_area_law(pos, neg, lo, hi)


def partial_area_law(
    pos: np.ndarray,
    neg: np.ndarray,
    lo: float,
    hi: float,
    names: tuple[str, str, str] = ("lo", "hi", "negatives"),
    what: str | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`exact_partial_area_law` of checked arrays; ``names`` name the range's ends and
    the instances of ``neg``, and ``what`` the law, in the errors (a TPR range is the FPR
    range of the classes exchanged: its caller says so)."""
    what = what or f"at n+={pos.size}, n-={neg.size} over FPR [{lo:g}, {hi:g}]"
    low, high, unit = names
    cuts = Cuts(*_fraction(lo, neg.size, low, unit), *_fraction(hi, neg.size, high, unit))
    cells = Cells.of(pos, neg)
    _within_budget(*operations(cells, cuts), what)
    return _Pass(cells, cuts, what).run()


def _within_budget(work: float, held: float, what: str) -> None:
    """``ValueError`` in one line for a law above :data:`OPERATIONS` or :data:`MEMORY`."""
    if work > OPERATIONS or held > MEMORY:
        raise ValueError(
            f"the exact bootstrap law of a partial AUC {what} needs ~{work:.1e} operations "
            f"and ~{held:.1e} values held (at most {OPERATIONS:.0e} and {MEMORY:.0e}); {INSTEAD}"
        )


def percentile_interval(
    values: np.ndarray,
    probs: np.ndarray,
    level: float,
    alternative: str = "two-sided",
    null: float = 0.5,
) -> tuple[tuple[float, float], float]:
    """The percentile interval from the exact law of a bootstrap statistic ``A*`` and the test
    it inverts: ``((low, high), p_value)``.

    ``values`` (non-decreasing) and ``probs`` are the law on the interval's scale (a partial
    AUC's: its raw area's law mapped by McClish's increasing map and clipped to [0, 1],
    :func:`rocsim.core.partial_area.partial_auc_ci`), ``F(v) = P(A* <= v)`` and
    ``S(v) = P(A* >= v)``. With the tail
    ``alpha = (1 - level) / 2`` (one-sided, ``1 - level``) the bounds are the lower quantile
    ``low = inf{v : F(v) >= alpha}`` and the upper one ``high = sup{v : S(v) >= alpha}``
    (one-sided, the other bound the end of [0, 1]). The p-value of ``null`` is
    ``min(1, 2 min(F(null), S(null)))`` (``greater``: ``F(null)``; ``less``: ``S(null)``), so
    that ``p < 1 - level`` exactly when ``null`` lies outside ``[low, high]``. ``F`` and ``S``
    are sums of the law's probabilities, which carry rounding (and the terms left out) of less
    than :data:`SUMS`: one within that of ``alpha`` is read as ``alpha``, so that a tail the
    law reaches exactly (a sum of probabilities such as 1/4 at small n) is reached.

    Examples
    --------
    The law of :func:`exact_partial_area_law`'s example on McClish's scale: 1/3, 2/3 and 1 with
    probabilities 3/16, 6/16 and 7/16. At the level 1/2 each tail holds 1/4: the lower bound
    is 2/3, and the null 1/2 lies below it, with ``F = 3/16``.

    >>> values, probs = np.array([1, 2, 3]) / 3, np.array([3, 6, 7]) / 16
    >>> (low, high), p_value = percentile_interval(values, probs, 0.5)
    >>> round(low, 12), high, p_value
    (0.666666666667, 1.0, 0.375)
    """
    tail = (1.0 - level) / 2 if alternative == "two-sided" else 1.0 - level

    def snapped(sums: np.ndarray) -> np.ndarray:
        return np.where(np.abs(sums - tail) <= SUMS, tail, sums)

    below = snapped(np.r_[0.0, np.cumsum(probs)])  # F before (0) and at each value
    above = snapped(np.r_[np.cumsum(probs[::-1])[::-1], 0.0])  # S at each value and after
    # the first value whose F reaches the tail, the last whose S does
    low = float(values[min(np.searchsorted(below[1:], tail, "left"), values.size - 1)])
    reaching = np.flatnonzero(above[:-1] >= tail)
    high = float(values[reaching[-1] if reaching.size else 0])
    cdf = float(below[np.searchsorted(values, null, "right")])  # the values up to the null
    sf = float(above[np.searchsorted(values, null, "left")])  # ... from it
    if alternative == "greater":
        return (low, 1.0), cdf
    if alternative == "less":
        return (0.0, high), sf
    return (low, high), min(1.0, 2.0 * min(cdf, sf))


def _fraction(rate: float, count: int, name: str, unit: str) -> tuple[int, int]:
    """``rate * count`` as a fraction ``(p, q)``, ``q <= DENOMINATOR``, or ``ValueError``."""
    s = rate * count
    exact = Fraction(s).limit_denominator(DENOMINATOR)
    if abs(exact.numerator / exact.denominator - s) > READ_AS_FRACTION * max(s, 1.0):
        raise ValueError(
            f"{name}: the exact bootstrap law needs its cut, {rate:g} of {count} {unit} = "
            f"{s:.10g}, to be a fraction with a denominator of at most {DENOMINATOR}; round "
            f"{name} to three decimals, or use method='exact_bootstrap'"
        )
    return exact.numerator, exact.denominator


@dataclass(frozen=True)
class Cuts:
    """The cuts ``s_lo = p_lo / q_lo`` and ``s_hi = p_hi / q_hi`` in negatives."""

    p_lo: int
    q_lo: int
    p_hi: int
    q_hi: int

    @property
    def low(self) -> int:
        """The fewest negatives at or past the low cut."""
        return -(-self.p_lo // self.q_lo)

    @property
    def high(self) -> int:
        """The fewest negatives at or past the high cut: the states absorbed."""
        return -(-self.p_hi // self.q_hi)


@dataclass(frozen=True)
class Cells:
    """The pooled scores in cells, decreasing: ``pos[k]`` and ``neg[k]`` original positives
    and negatives in cell ``k``, and the binomial probabilities ``p[k]``, ``q[k]`` of a
    resampled instance left to draw falling in it."""

    pos: np.ndarray
    neg: np.ndarray
    p: np.ndarray
    q: np.ndarray

    @classmethod
    def of(cls, pos: np.ndarray, neg: np.ndarray) -> Cells:
        values = np.unique(np.concatenate([pos, neg]))
        n_pos = np.bincount(np.searchsorted(values, pos), minlength=values.size)[::-1]
        n_neg = np.bincount(np.searchsorted(values, neg), minlength=values.size)[::-1]
        # a run of one class's scores is one cell (they share c and t); a tie across the
        # classes is a cell of its own
        kind = (n_pos > 0) + 2 * (n_neg > 0)
        starts = np.r_[True, (kind[1:] != kind[:-1]) | (kind[1:] == 3)]
        run = np.cumsum(starts) - 1
        cell_pos, cell_neg = np.bincount(run, n_pos), np.bincount(run, n_neg)
        return cls(cell_pos, cell_neg, _conditional(cell_pos), _conditional(cell_neg))

    @property
    def both(self) -> np.ndarray:
        """The cells holding both classes (ties across them)."""
        return (self.pos > 0) & (self.neg > 0)


def _conditional(counts: np.ndarray) -> np.ndarray:
    """``counts[k]`` over the counts of cells ``k`` and below: the sequential binomials'
    probabilities of the multinomial (1 at a class's last cell)."""
    left = np.cumsum(counts[::-1])[::-1]
    return np.divide(counts, left, out=np.zeros(counts.size), where=left > 0)


def operations(cells: Cells, cuts: Cuts) -> tuple[float, float]:
    """The estimated work (inner operations) and largest arrays (values held at once) of the
    law's pass. Per cell, the live states: ``a`` and ``c`` each within its binomial law's
    terms above ``TINY`` (``c`` past the low cut and before the high one), ``J`` within
    ``SPREAD sqrt(a) (c - s_lo)`` (a sum of ``a`` shares, each within ``2 (c - s_lo)``); times
    the binomial terms of the cell, times the layers; then the atoms, one run of the value's
    integer part for each layer and fraction. Past the budget already without the layers and
    the atoms, those are not counted (their count takes work too)."""
    m, n = int(cells.pos.sum()), int(cells.neg.sum())
    a_lo, a_hi = _window(m, np.cumsum(cells.pos) - cells.pos)
    c_lo, c_hi = _window(n, np.cumsum(cells.neg) - cells.neg)
    s_lo = cuts.p_lo / cuts.q_lo
    first, last = np.maximum(c_lo, cuts.low), np.minimum(c_hi, cuts.high - 1)
    rows_c = np.maximum(last - first + 1, 0)
    a = np.arange(m + 1)
    spread = np.minimum(2.0 * a, SPREAD * np.sqrt(a))  # J's range over (c - s_lo)
    cumulative = np.r_[0.0, np.cumsum(spread)]
    sum_a = cumulative[a_hi + 1] - cumulative[a_lo]
    rows_a = a_hi - a_lo + 1
    states = sum_a * rows_c * ((first + last) / 2 - s_lo) + rows_a * rows_c
    early = rows_a * np.maximum(np.minimum(c_hi, cuts.low - 1) - c_lo + 1, 0)
    above = (np.cumsum(cells.neg) - cells.neg) / n
    reach = _Reach(
        _reach(m - a_lo, cells.p)[1], _reach(n - c_lo, cells.q)[1], c_lo, c_hi, above, cells.q, n
    )
    # the binomial terms at the middle of the windows: the live states mostly are near it
    terms = _terms(m - (a_lo + a_hi) // 2, cells.p) * _terms(n - (c_lo + c_hi) // 2, cells.q)
    work = float(np.sum((states + early) * terms))
    if work > OPERATIONS:
        return work, float(2 * states.max(initial=0.0))
    layers = _layer_count(cells, cuts, reach, int(a_lo.min(initial=0)), int(a_hi.max(initial=0)))
    lattice = 2 * m * cuts.p_hi + 1
    atoms = layers * (1 + _fraction_count(cells, cuts, reach)) * lattice
    work = float(np.sum((states * layers + early) * terms)) + ATOM * atoms
    held = 2 * states.max(initial=0.0) * layers + layers * lattice + 3 * atoms
    return work, float(held + (m + 1) * cuts.low)


#: ``J``'s range at ``a`` positives, over ``(c - s_lo) sqrt(a)``: its standard deviation is at
#: most ``(c - s_lo) sqrt(a)``, and its terms above ``TINY`` reach a few of them each way.
SPREAD = 12.0

#: The work of an atom of the law in inner operations: its exact value, its place in its run
#: and in the sort cost some hundred times a state's move (scattered writes, a comparison sort).
ATOM = 500.0


#: Tie blocks as arrays ``(c, t, j)``: negatives above, negatives and positives in the block.
_Blocks = tuple[np.ndarray, np.ndarray, np.ndarray]

#: A binomial kernel of :func:`_kernel`: ``(w, first, last)``.
_Kernel = tuple[np.ndarray, np.ndarray, np.ndarray]


@dataclass(frozen=True)
class _Reach:
    """Per cell, the most positives and negatives it may take (``j``, ``t``), the least and
    the most negatives above it (``c``), and the laws of those: ``c ~ Bin(n-, above)``,
    ``t ~ Bin(n- - c, q)``."""

    j: np.ndarray
    t: np.ndarray
    c_lo: np.ndarray
    c_hi: np.ndarray
    above: np.ndarray
    q: np.ndarray
    n: int

    def blocks(self, cells: Cells, first: int, last: int, cut: tuple[int, int]) -> _Blocks:
        """Every ``(c, t, j)`` of a tie block across the classes straddling the cut ``p / q``
        (``c < p / q < c + t``, ``j >= 1`` positives) whose ``c`` and ``t`` are within their
        laws' terms above ``TINY``, ``c`` within ``first .. last`` (at most
        :data:`BLOCKS` of them looked at: every ``j`` up to its most for every ``c`` and
        ``t``, a bound)."""
        p, q = cut
        out, count = [], 0
        for k in np.flatnonzero(cells.both):
            lo, hi = max(self.c_lo[k], first, -(-p // q) - self.t[k]), min(self.c_hi[k], last)
            count += max(hi - lo + 1, 0) * self.t[k] * self.j[k]
            if count > BLOCKS:
                raise _TooMany
            if lo <= hi and self.t[k] >= 1 and self.j[k] >= 1:
                grids = np.meshgrid(
                    np.arange(lo, hi + 1),
                    np.arange(1, self.t[k] + 1),
                    np.arange(1, self.j[k] + 1),
                    indexing="ij",
                )
                c, t, j = (x.ravel() for x in grids)
                law = stats.binom.logpmf(c, self.n, self.above[k])
                law += stats.binom.logpmf(t, self.n - c, self.q[k])
                inside = (c * q < p) & ((c + t) * q > p) & (law >= math.log(TINY))
                out.append((c[inside], t[inside], j[inside]))
        if not out:
            return (np.zeros(0, dtype=np.int64),) * 3
        return tuple(np.concatenate(x) for x in zip(*out))


#: The most blocks :meth:`_Reach.blocks` looks at.
BLOCKS = 5_000_000


class _TooMany(Exception):
    """More blocks than :data:`BLOCKS`: the fractions' count falls back to its bound."""


def _fraction_count(cells: Cells, cuts: Cuts, reach: _Reach) -> int:
    """How many fractions the blocks straddling the high cut may add to a value:
    ``j (s_hi - c)^2 / t`` over ``q_hi``'s."""
    p_hi, q_hi = cuts.p_hi, cuts.q_hi
    try:
        c, t, j = reach.blocks(cells, cuts.low, cuts.high - 1, (p_hi, q_hi))
    except _TooMany:  # the fractions with the denominators q_hi t
        return q_hi * int(reach.t.max()) ** 2
    num = _exactly(lambda c, j: j * (p_hi - c * q_hi) ** 2, c, j)
    return len(_fractions(num, _exactly(lambda t: q_hi * t, t))[2])


def _layer_count(cells: Cells, cuts: Cuts, reach: _Reach, a_lo: int, a_hi: int) -> int:
    """How many layers there may be: the fractions of ``J`` at the low cut, those of
    ``2 s_lo a`` plus those of the blocks straddling the cut, ``j (s_lo - c)^2 / t``."""
    p_lo, q_lo = cuts.p_lo, cuts.q_lo
    if p_lo == 0:
        return 1
    a = np.arange(a_lo, min(a_hi, a_lo + q_lo) + 1)
    try:
        c, t, j = reach.blocks(cells, 0, cuts.low - 1, (p_lo, q_lo))
    except _TooMany:  # the fractions with the denominators q_lo^2 t, times a's
        return a.size * (1 + q_lo**2 * int(reach.t.max()) ** 2)
    num = _exactly(lambda c, j: j * (p_lo - c * q_lo) ** 2, c, j)
    straddles = _fractions(num, _exactly(lambda t: q_lo**2 * t, t))[2]
    blocks = np.vstack([[0, 1], straddles])  # no block straddling, or one
    # each count's fraction plus each block's
    num = (2 * p_lo * a[:, None] * blocks[None, :, 1] + blocks[None, :, 0] * q_lo).ravel()
    den = np.broadcast_to(q_lo * blocks[None, :, 1], (a.size, blocks.shape[0])).ravel()
    return len(_fractions(num, den)[2])


def _fractions(num: np.ndarray, den: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``num / den`` as an integer part and a fraction: ``(whole, inverse, fractions)``, the
    distinct fractions in lowest terms (rows ``(r, d)``, ``0 <= r < d``, increasing) and each
    value's row in them."""
    whole, rem = num // den, num % den
    common = _gcd(rem, den)
    pairs = np.stack([rem // common, den // common], axis=-1).astype(np.int64).reshape(-1, 2)
    fractions, inverse = np.unique(pairs, axis=0, return_inverse=True)
    return whole, inverse.ravel(), fractions


def _window(size: int, before: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The counts ``Bin(size, before / size)`` may take with probability above ``TINY``."""
    return _reach(np.full(before.size, size), before / size)


def _terms(trials: np.ndarray, p: np.ndarray) -> np.ndarray:
    """How many terms of ``Bin(trials, p)`` may be above ``TINY``."""
    low, high = _reach(trials, p)
    return (high - low + 1).astype(float)


def _reach(trials, p) -> tuple[np.ndarray, np.ndarray]:
    """The least and the most counts of ``Bin(trials, p)`` whose probability is at least
    ``TINY`` (past the mode the terms fall: a bisection on each side; scipy's quantiles do not
    reach that far into the tails)."""
    trials = np.asarray(trials, dtype=np.int64)
    p = np.broadcast_to(np.asarray(p, dtype=float), trials.shape)
    inner = (p > 0) & (p < 1) & (trials > 0)
    size, share = np.where(inner, trials, 1), np.where(inner, p, 0.5)
    mode = np.minimum(np.floor((size + 1) * share), size).astype(np.int64)
    ends = []
    for end in (np.zeros_like(size), size):
        near, far = mode.copy(), end.copy()  # near is in, far may be
        live = stats.binom.logpmf(far, size, share) >= math.log(TINY)
        near[live] = far[live]
        while np.any(np.abs(far - near) > 1):
            mid = (near + far) // 2
            inside = stats.binom.logpmf(mid, size, share) >= math.log(TINY)
            near, far = np.where(inside, mid, near), np.where(inside, far, mid)
        ends.append(near)
    sure = np.where(p >= 1, trials, 0)
    return np.where(inner, ends[0], sure), np.where(inner, ends[1], sure)


def _kernel(trials: np.ndarray, p: float) -> _Kernel:
    """``w[i, j] = Pr{Bin(trials[i], p) = j}`` (terms below ``TINY`` zero) and each row's
    first and last nonzero ``j``."""
    size = trials.size
    top = int(trials.max(initial=0))
    if p <= 0.0 or top == 0:
        zero = np.zeros(size, dtype=np.int64)
        return np.ones((size, 1)), zero, zero
    if p >= 1.0:  # the class's last cell takes every instance left
        w = np.zeros((size, top + 1))
        w[np.arange(size), trials] = 1.0
        return w, trials.astype(np.int64), trials.astype(np.int64)
    width = int(_reach(np.array([top]), p)[1][0])
    w = stats.binom.pmf(np.arange(width + 1)[None, :], trials[:, None], p)
    w[w < TINY] = 0.0
    nonzero = w > 0
    first = nonzero.argmax(axis=1)
    last = width - nonzero[:, ::-1].argmax(axis=1)
    return np.ascontiguousarray(w), first.astype(np.int64), last.astype(np.int64)


class _Grid:
    """States ``(a, c, J)`` as :func:`~rocsim.core._partial_law.layer_step` stores them."""

    def __init__(
        self,
        a0: int = 0,
        na: int = 0,
        c0: int = 0,
        nc: int = 0,
        start: np.ndarray | None = None,
        first: np.ndarray | None = None,
        length: np.ndarray | None = None,
        data: np.ndarray | None = None,
    ) -> None:
        empty = np.zeros(0, dtype=np.int64)
        self.a0, self.na, self.c0, self.nc = a0, na, c0, nc
        self.start = empty if start is None else start
        self.first = empty if first is None else first
        self.length = empty if length is None else length
        self.data = np.zeros(0) if data is None else data

    @classmethod
    def sure(cls) -> _Grid:
        """The state before the first cell: nothing drawn."""
        one = np.zeros(1, dtype=np.int64)
        return cls(0, 1, 0, 1, one, one.copy(), one + 1, np.ones(1))

    def live(self) -> bool:
        return bool(self.length.any())

    def rows(self) -> tuple[int, int, int, int]:
        """The live rows' ``a`` and ``c`` ranges, ``(a_lo, a_hi, c_lo, c_hi)``."""
        index = np.flatnonzero(self.length)
        a, c = self.a0 + index // self.nc, self.c0 + index % self.nc
        return int(a.min()), int(a.max()), int(c.min()), int(c.max())


class _Layer:
    """The states past the low cut that carry one fraction ``offset = (r, d)`` of ``J``
    (``r / d`` left out of the integer ``J``), and the states absorbed on the lattice:
    ``lattice[N]`` at the value ``N / q_hi - r / d`` of ``2 n+ n- A*``."""

    def __init__(self, offset: tuple[int, int], size: int) -> None:
        self.offset = offset
        self.grid = _Grid()
        self.lattice = np.zeros(size)
        self.entering: list[tuple[np.ndarray, ...]] = []

    def take_entering(self) -> tuple[np.ndarray, ...]:
        """The states entering from before the low cut, ``(a, c, J, probability)``."""
        parts = [np.concatenate(x) for x in zip(*self.entering)] if self.entering else None
        self.entering = []
        if parts is None:
            return _NOTHING
        a, c, total, prob = parts
        return a.astype(np.int64), c.astype(np.int64), total.astype(np.int64), prob.astype(float)


@dataclass(frozen=True)
class _Straddle:
    """A cell's blocks straddling the high cut, for ``c`` from ``first`` to the cut, ``t`` and
    ``j``: their positives' ``j (s_hi - c)^2 / t`` times ``q_hi`` as the integer part
    ``shift`` and the row ``ids`` of its fraction ``pairs[ids]`` (-1: none)."""

    first: int
    ids: np.ndarray
    shift: np.ndarray
    pairs: np.ndarray

    @classmethod
    def of(cls, cuts: Cuts, c_lo: int, t_max: int, j_max: int) -> _Straddle:
        p_hi, q_hi, high = cuts.p_hi, cuts.q_hi, cuts.high
        first = max(c_lo, high - t_max)
        if first >= high:
            return _NO_STRADDLE
        c, t, j = np.meshgrid(
            np.arange(first, high), np.arange(t_max + 1), np.arange(j_max + 1), indexing="ij"
        )
        num = _exactly(lambda c, j: j * (p_hi - c * q_hi) ** 2, c, j)
        shift, inverse, pairs = _fractions(num, _exactly(lambda t: q_hi * np.maximum(t, 1), t))
        # the lattice itself (no fraction) is no row: -1
        lattice = int(pairs[0, 0] == 0)
        ids, pairs = (inverse - lattice).reshape(shift.shape), pairs[lattice:]
        return cls(first, ids, np.ascontiguousarray(shift, dtype=np.int64), pairs)


class _Atoms:
    """Probabilities at consecutive integer parts of a value, ``probs[i]`` at ``start + i``."""

    def __init__(self) -> None:
        self.start, self.probs = 0, np.zeros(0)

    def add(self, start: int, probs: np.ndarray) -> None:
        """Add ``probs`` from ``start``, the run grown to hold the nonzero ones."""
        nonzero = np.flatnonzero(probs)
        if nonzero.size == 0:
            return
        probs, start = probs[nonzero[0] : nonzero[-1] + 1], start + int(nonzero[0])
        if self.probs.size == 0:
            self.start, self.probs = start, probs.copy()
            return
        first = min(self.start, start)
        last = max(self.start + self.probs.size, start + probs.size)
        if (first, last) != (self.start, self.start + self.probs.size):
            grown = np.zeros(last - first)
            grown[self.start - first : self.start - first + self.probs.size] = self.probs
            self.start, self.probs = first, grown
        self.probs[start - first : start - first + probs.size] += probs


#: No block straddles the high cut in the cell.
_NO_STRADDLE = _Straddle(
    0,
    np.full((1, 1, 1), -1, dtype=np.int64),
    np.zeros((1, 1, 1), dtype=np.int64),
    np.zeros((0, 2), dtype=np.int64),
)

#: No state enters a layer.
_NOTHING = (np.zeros(0, dtype=np.int64),) * 3 + (np.zeros(0),)


class _Pass:
    """The forward pass over the cells (module docstring)."""

    def __init__(self, cells: Cells, cuts: Cuts, what: str) -> None:
        self.cells, self.cuts, self.what = cells, cuts, what
        self.work = self.held = 0.0  # so far: the guard behind the estimate
        self.m, self.n = int(cells.pos.sum()), int(cells.neg.sum())
        self.size = 2 * self.m * cuts.p_hi + 1
        self.layers: dict[tuple[int, int], _Layer] = {}
        self.values: list[np.ndarray] = []
        self.probs: list[np.ndarray] = []
        self.rows: dict[tuple[int, int], _Atoms] = {}  # by the values' fraction
        self.early = None
        if cuts.p_lo == 0:
            self._layer((0, 1)).grid = _Grid.sure()
        else:
            self.early = np.zeros((self.m + 1, cuts.low))
            self.early[0, 0] = 1.0

    def run(self) -> tuple[np.ndarray, np.ndarray]:
        for k in range(self.cells.pos.size):
            if not self._live():
                break
            self._cell(k)
        return self._law()

    def _scale(self) -> int:
        """``2 n+ n- q_hi``: the lattice's values over this are the raw areas."""
        return 2 * self.m * self.n * self.cuts.q_hi

    def _atoms(self, values: np.ndarray, probs: np.ndarray) -> None:
        """Atoms final before the low cut (few)."""
        self.values.append(values)
        self.probs.append(probs)

    def _live(self) -> bool:
        early = self.early is not None and self.early.max() >= TINY
        return early or any(layer.grid.live() for layer in self.layers.values())

    def _layer(self, offset: tuple[int, int]) -> _Layer:
        if offset not in self.layers:
            self.layers[offset] = _Layer(offset, self.size)
        return self.layers[offset]

    def _cell(self, k: int) -> None:
        p, q = float(self.cells.p[k]), float(self.cells.q[k])
        a_range, c_range = self._ranges()
        ka, kc = a_range[0], c_range[0]
        pos_kernel = _kernel(self.m - np.arange(ka, a_range[1] + 1), p)
        neg_kernel = _kernel(self.n - np.arange(kc, c_range[1] + 1), q)
        if self.early is not None and self.early.max() >= TINY:
            self._early_step(ka, pos_kernel, neg_kernel)
        straddle = _NO_STRADDLE
        if self.cells.both[k]:  # a block the high cut may fall inside
            t_max, j_max = neg_kernel[0].shape[1] - 1, pos_kernel[0].shape[1] - 1
            straddle = _Straddle.of(self.cuts, kc, t_max, j_max)
        for layer in list(self.layers.values()):
            self._layer_step(layer, ka, pos_kernel, kc, neg_kernel, straddle)

    def _ranges(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """The ``a`` and ``c`` the kernels cover: every live state's."""
        a_lo, a_hi, c_lo, c_hi = self.m, 0, self.n, 0
        if self.early is not None:
            rows = np.flatnonzero(self.early.max(axis=1) >= TINY)
            if rows.size:
                a_lo, a_hi, c_lo, c_hi = rows[0], rows[-1], 0, self.cuts.low - 1
        for layer in self.layers.values():
            if layer.grid.live():
                lo_a, hi_a, lo_c, hi_c = layer.grid.rows()
                a_lo, a_hi = min(a_lo, lo_a), max(a_hi, hi_a)
                c_lo, c_hi = min(c_lo, lo_c), max(c_hi, hi_c)
        return (int(a_lo), int(max(a_hi, a_lo))), (int(c_lo), int(max(c_hi, c_lo)))

    def _early_step(self, ka: int, pos_kernel: _Kernel, neg_kernel: _Kernel) -> None:
        """Move the states before the low cut; those that reach it enter a layer, or are
        final at once (past the high cut too)."""
        from rocsim.core._partial_law import early_step

        neg_w, neg_lo, neg_hi = (x[: self.cuts.low] for x in neg_kernel)
        self.early, a, c, t, j, prob = early_step(
            self.early, ka, *pos_kernel, neg_w, neg_lo, neg_hi, TINY
        )
        final = (c + t) * self.cuts.q_hi >= self.cuts.p_hi
        self._early_atoms(a[final], c[final], t[final], j[final], prob[final])
        self._enter(*(x[~final] for x in (a, c, t, j, prob)))

    def _enter(self, a, c, t, j, prob: np.ndarray) -> None:
        """States reaching the low cut: ``J = 2 s_lo a + j (2 c + t + (s_lo - c)^2 / t)`` (the
        block's positives straddling it; ``t >= 1``), its integer part in the state and its
        fraction the layer's."""
        p_lo, q_lo = self.cuts.p_lo, self.cuts.q_lo

        def scaled(a, c, t, j):  # J q_lo^2 t
            block = (2 * c + t) * q_lo**2 * t + (p_lo - c * q_lo) ** 2
            return 2 * p_lo * a * q_lo * t + j * block

        num, den = _exactly(scaled, a, c, t, j), _exactly(lambda t: q_lo**2 * t, t)
        whole, inverse, keys = _fractions(num, den)
        for i, key in enumerate(keys.tolist()):
            mine = inverse == i
            entering = (a + j)[mine], (c + t)[mine], whole[mine], prob[mine]
            self._layer(tuple(key)).entering.append(entering)

    def _early_atoms(self, a, c, t, j, prob: np.ndarray) -> None:
        """Final at once: ``2 a (s_hi - s_lo) + j ((s_hi - c)^2 - (s_lo - c)^2) / t``."""
        p_lo, q_lo, p_hi, q_hi = self.cuts.p_lo, self.cuts.q_lo, self.cuts.p_hi, self.cuts.q_hi
        scale = 2 * self.m * self.n * q_hi**2 * q_lo**2

        def scaled(a, c, t, j):  # the value times q_hi^2 q_lo^2 t
            return 2 * a * (p_hi * q_lo - p_lo * q_hi) * q_hi * q_lo * t + j * (
                (p_hi - c * q_hi) ** 2 * q_lo**2 - (p_lo - c * q_lo) ** 2 * q_hi**2
            )

        num = _exactly(scaled, a, c, t, j)
        self._atoms(_quotient(num, _exactly(lambda t: scale * t, t)), prob)

    def _layer_step(
        self,
        layer: _Layer,
        ka: int,
        pos_kernel: _Kernel,
        kc: int,
        neg_kernel: _Kernel,
        straddle: _Straddle,
    ) -> None:
        """Move ``layer``'s states across the cell (the kernels' rows from ``ka`` and ``kc``),
        and fold the atoms of the blocks straddling the high cut into the rows of atoms."""
        from rocsim.core._partial_law import layer_step

        g = layer.grid
        in_a, in_c, in_sum, in_p = layer.take_entering()
        if not g.live() and in_a.size == 0:
            return
        grid, atoms = layer_step(
            g.a0, g.na, g.c0, g.nc, g.start, g.first, g.length, g.data,
            ka, *pos_kernel, kc, *neg_kernel, in_a, in_c, in_sum, in_p,
            self.cuts.high, self.cuts.p_hi, self.cuts.q_hi, layer.lattice,
            straddle.first, straddle.ids, straddle.shift, straddle.pairs.shape[0], TINY,
        )  # fmt: skip
        self._guard(g, pos_kernel[1:], ka, neg_kernel[1:], kc, grid[-1].size - g.data.size)
        layer.grid = _Grid(*grid)
        (r, d), q_hi = layer.offset, self.cuts.q_hi
        first, start, length, probs = atoms
        for i in np.flatnonzero(length):
            r2, d2 = straddle.pairs[i].tolist()
            run = probs[start[i] : start[i] + length[i]]
            # at N / q_hi - r / d plus the fraction r2 / d2 over q_hi
            self._fold(r2 * d - r * q_hi * d2, d2 * d, int(first[i]), run)

    def _guard(self, g: _Grid, pos_reach, ka: int, neg_reach, kc: int, grown: int) -> None:
        """Count the step's work (the states times their binomial terms) and the values held,
        and stop past the budget, should the estimate have fallen short (by more than
        :data:`SHORTFALL`)."""
        index = np.flatnonzero(g.length)
        a, c = g.a0 + index // g.nc - ka, g.c0 + index % g.nc - kc
        terms = (pos_reach[1][a] - pos_reach[0][a] + 1) * (neg_reach[1][c] - neg_reach[0][c] + 1)
        self.work += float(np.sum(g.length[index] * terms))
        self.held += grown
        if self.work > SHORTFALL * OPERATIONS or self.held > SHORTFALL * MEMORY:
            _within_budget(self.work, self.held, self.what + " (counted)")

    def _fold(self, num: int, den: int, origin: int, row: np.ndarray) -> None:
        """Add ``row[i]`` at ``2 n+ n- q_hi A* = origin + i + num / den``: every value is an
        integer and a fraction, one row of atoms a fraction."""
        carry, rem = divmod(num, den)
        common = math.gcd(rem, den)
        atoms = self.rows.setdefault((rem // common, den // common), _Atoms())
        self.held -= atoms.probs.size
        atoms.add(origin + carry, row)
        self.held += atoms.probs.size

    def _law(self) -> tuple[np.ndarray, np.ndarray]:
        """The atoms: each value the correctly rounded quotient of two exact integers."""
        for (r, d), layer in self.layers.items():
            self._fold(-r * self.cuts.q_hi, d, 0, layer.lattice)
        values, probs = list(self.values), list(self.probs)
        for (r, d), atoms in self.rows.items():
            index = np.flatnonzero(atoms.probs)
            row, index = atoms.probs[index], index + atoms.start
            num = _exactly(lambda i, d=d, r=r: i * d + r, index)
            values.append(_quotient(num, d * self._scale()))
            probs.append(row)
        return _merged(values, probs)


def _merged(values: list[np.ndarray], probs: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values, increasing, and their summed probabilities."""
    values, probs = np.concatenate(values), np.concatenate(probs)
    order = np.argsort(values, kind="stable")
    values, probs = values[order], probs[order]
    starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    return values[starts], np.add.reduceat(probs, starts) if starts.size else probs


def _exactly(formula, *arrays) -> np.ndarray:
    """``formula`` of integer arrays, exactly: in 64-bit integers, or in Python's where those
    would overflow (their result strays from the floating-point one)."""
    fast = formula(*(np.asarray(x, dtype=np.int64) for x in arrays))
    rough = formula(*(np.asarray(x, dtype=float) for x in arrays))
    if np.all(np.abs(fast - rough) <= 1e-9 * np.abs(rough) + 1.0):
        return np.asarray(fast, dtype=np.int64)
    return np.asarray(formula(*(np.asarray(x).astype(object) for x in arrays)), dtype=object)


def _gcd(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    if x.dtype == object or y.dtype == object:
        return np.frompyfunc(math.gcd, 2, 1)(x, y)
    return np.gcd(x, y)


def _quotient(num: np.ndarray, den) -> np.ndarray:
    """``num / den`` of exact integers, correctly rounded: equal fractions, equal floats
    (a float quotient of integers below ``2^53``, held exactly, is correctly rounded)."""
    num, den = np.broadcast_arrays(np.asarray(num), np.asarray(den))
    if num.dtype != object and den.dtype != object:
        if np.all(np.abs(num) < 2**53) and np.all(np.abs(den) < 2**53):
            return num.astype(float) / den.astype(float)
    return np.array([int(x) / int(y) for x, y in zip(num.tolist(), den.tolist())], dtype=float)
