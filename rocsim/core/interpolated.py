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
trinomial, ``Bin(m+, p_above)`` and ``Bin(m+, p_tied)`` jointly. So the law of TPR is a mixture,
over the blocks and the values of ``t``, of affine functions of trinomial counts: a binomial
where no positive ties with the block, and otherwise a law on ``(X + t Y) / m+``, not on the
grid ``l / m+``. Its moments are sums over the components; its distribution function sums,
per value ``y`` of ``Y``, binomial distribution functions of ``X | Y = y`` over the ``t``
grouped by ``floor(m+ x - t y)``, and its quantiles are found by bisection on it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from rocsim.core.counting import count_above, count_at_or_above, sorted_scores
from rocsim.core.mixture import PMF_SIGMAS, PMF_SLACK

#: Probabilities of blocks and of ``(C, B)`` pairs below this are left out (each leaves out
#: less than this, far below what a quantile or a moment can show).
TINY = 1e-17
#: Quantiles are searched to this width on the TPR scale (then put on the support point the
#: distribution function jumps at); each round of the search evaluates it at
#: :data:`SEARCH_POINTS` points of the bracket.
QUANTILE_WIDTH = 1e-13
SEARCH_POINTS = 32


@dataclass(frozen=True)
class _Block:
    """One row's component for a negative tie block shared with positives: the ``t`` values
    (ascending) and their cumulative weights ``cum``, and the trinomial law of the positives
    above (``x``) and tied (``y``) as the pairs of probability ``joint`` above :data:`TINY`."""

    t: np.ndarray
    cum: np.ndarray
    x: np.ndarray
    y: np.ndarray
    joint: np.ndarray
    above: float
    tied: float

    @staticmethod
    def trinomial(above: float, tied: float, m_pos: int):
        """``(x, y, Pr{X = x, Y = y})`` over the pairs above :data:`TINY`: ``Y ~ Bin(m+,
        tied)`` and ``X | Y = y ~ Bin(m+ - y, above / (1 - tied))``."""
        y = _window(m_pos, tied, 0, m_pos)
        p_x = min(above / (1 - tied), 1.0) if tied < 1 else 0.0
        x = _window(m_pos, p_x, 0, m_pos)
        yy, xx = np.meshgrid(y, x, indexing="ij")
        inside = xx + yy <= m_pos
        joint = np.where(
            inside,
            _binomial_pmf(yy, m_pos, tied) * _binomial_pmf(xx, np.maximum(m_pos - yy, xx), p_x),
            0.0,
        )
        keep = joint > TINY
        return xx[keep], yy[keep], joint[keep]

    def cdf(self, a: np.ndarray) -> np.ndarray:
        """``sum_t W(t) Pr{X + t Y <= a}`` at every ``a`` (on the count scale): for each pair
        ``(x, y)``, the weight of the ``t <= (a - x) / y``."""
        room = a[None, :] - self.x[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            bound = np.where(
                self.y[:, None] > 0, room / self.y[:, None], np.where(room >= 0, np.inf, -np.inf)
            )
        cum = np.concatenate([[0.0], self.cum])
        return self.joint @ cum[np.searchsorted(self.t, bound, "right")]

    def support_below(self, a: float) -> float:
        """The largest ``x + t y <= a`` over the pairs and the ``t`` (-1 if none)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            bound = np.where(self.y > 0, (a - self.x) / self.y, np.where(self.x <= a, 2, -1))
        index = np.searchsorted(self.t, bound, "right") - 1
        ok = index >= 0
        return float(np.max(self.x[ok] + self.t[index[ok]] * self.y[ok], initial=-1.0))


@dataclass(frozen=True)
class InterpolatedComponents:
    """The components of the law at each FPR: per row, the binomial part ``(q, w)`` (blocks no
    positive ties with) and the :class:`_Block` of every block shared with positives; its
    distribution function and quantiles per row."""

    m_pos: int
    binomial: tuple
    tied: tuple

    def cdf(self, i: int, x: np.ndarray) -> np.ndarray:
        """``Pr{TPR <= x}`` at FPR row ``i``, at every ``x``."""
        a = _counts(x, self.m_pos)
        q, w = self.binomial[i]
        total = w @ _binomial_cdf(np.floor(a)[None, :], self.m_pos, q[:, None])
        for block in self.tied[i]:
            total = total + block.cdf(a)
        return np.minimum(total, 1.0)

    def quantile(self, i: int, p: float) -> float:
        """Smallest TPR with ``Pr{TPR <= it} >= p`` at row ``i``: a search on :meth:`cdf` down
        to :data:`QUANTILE_WIDTH`, then the support point in that bracket."""
        if p <= 0.0 or self.cdf(i, np.zeros(1))[0] >= p:
            return 0.0
        lo, hi = 0.0, 1.0
        while hi - lo > QUANTILE_WIDTH:
            grid = np.linspace(lo, hi, SEARCH_POINTS + 1)[1:]
            first = int(np.argmax(self.cdf(i, grid) >= p))  # F(1) >= p: one exists
            lo, hi = (lo if first == 0 else grid[first - 1]), grid[first]
        # the distribution function jumps past p in (lo, hi]: at its largest support point
        a = _counts(hi, self.m_pos)
        best = np.floor(a) if self.binomial[i][0].size else -1.0
        for block in self.tied[i]:
            best = max(best, block.support_below(a))
        return float(best / self.m_pos)


def _counts(x, m_pos: int):
    """TPR ``x`` on the count scale, nudged up so that a support point at ``x`` counts
    despite rounding."""
    return np.asarray(x, dtype=float) * m_pos * (1 + 1e-15)


def _binomial_cdf(k: np.ndarray, n, p) -> np.ndarray:
    """``Pr{Bin(n, p) <= k}``, 0 below 0 and 1 from ``n`` on (``bdtr`` is NaN there)."""
    inside = np.clip(k, 0, n)
    return np.where(k < 0, 0.0, np.where(k >= n, 1.0, special.bdtr(inside, n, p)))


def interpolated_law(
    pos: np.ndarray, neg: np.ndarray, ranks: np.ndarray, rank: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, InterpolatedComponents]:
    """The data's TPR, the bootstrap mean and variance and the :class:`InterpolatedComponents`
    of the stratified law at the validated FPR ``ranks``, the threshold being the
    ``rank``-th largest resampled negative (``rank = ranks`` on the lower side, ``ranks + 1``
    on the upper)."""
    n_pos, n_neg = pos.size, neg.size
    values, sizes = np.unique(-sorted_scores(neg), return_counts=True)
    values = -values  # the negatives' tie blocks, scores decreasing
    before = np.cumsum(sizes) - sizes  # original negatives above each block
    pos_sorted = sorted_scores(pos)
    above = count_above(pos_sorted, values) / n_pos
    tied = count_at_or_above(pos_sorted, values) / n_pos - above
    binomial, blocks, means, variances, tprs = [], [], [], [], []
    trinomials = {}  # per tie block: the positives' law does not depend on the FPR
    for r, t_rank in zip(ranks.tolist(), rank.tolist()):
        # Pr{the threshold rank's negative is in block j} = Pr{C_(j-1) < rank <= C_j}
        reach = special.bdtrc(t_rank - 1, n_neg, (before + sizes) / n_neg)
        prior = special.bdtrc(t_rank - 1, n_neg, before / n_neg)
        weight = np.where(before == 0, reach, reach - prior)
        live = weight > TINY
        untied = live & (tied == 0)
        q, w = above[untied], weight[untied]
        row_blocks = []
        for j in np.flatnonzero(live & (tied > 0)).tolist():
            t, w_t = _threshold_in_block(r, t_rank, n_neg, before[j], sizes[j])
            if t.size == 0:
                continue
            if j not in trinomials:
                trinomials[j] = _Block.trinomial(above[j], tied[j], n_pos)
            row_blocks.append(_Block(t, np.cumsum(w_t), *trinomials[j], above[j], tied[j]))
        binomial.append((q, w))
        blocks.append(tuple(row_blocks))
        mean, second = _row_moments(q, w, row_blocks, n_pos)
        means.append(mean)
        variances.append(max(second - mean * mean, 0.0))
        tprs.append(_data_tpr(r, t_rank, before, sizes, above, tied))
    components = InterpolatedComponents(n_pos, tuple(binomial), tuple(blocks))
    return np.array(tprs), np.array(means), np.array(variances), components


def _threshold_in_block(
    r: int, t_rank: int, n_neg: int, before: int, size: int
) -> tuple[np.ndarray, np.ndarray]:
    """The values of ``t = (r - C) / B`` (ascending) for a tie block of ``size`` negatives
    below ``before`` others, and their weights ``Pr{C = c, B = b}`` summed over the ``c <
    rank <= c + b`` (module docstring)."""
    c = _window(n_neg, before / n_neg, 0, t_rank - 1)
    pc = _binomial_pmf(c, n_neg, before / n_neg)
    share = size / (n_neg - before)
    # B | C = c ~ Bin(n- - c, share): the union of the windows of the c kept
    if c.size == 0:
        return np.zeros(0), np.zeros(0)
    b = np.union1d(_window(n_neg - c[-1], share, 1, n_neg), _window(n_neg - c[0], share, 1, n_neg))
    b = np.arange(b[0], b[-1] + 1)
    cc, bb = np.meshgrid(c, b, indexing="ij")
    trials = n_neg - cc
    ok = (bb <= trials) & (cc + bb >= t_rank)
    pb = np.where(ok, _binomial_pmf(bb, np.maximum(trials, bb), share), 0.0)
    weight = pc[:, None] * pb
    sel = weight > TINY
    t = (r - cc[sel]) / bb[sel]
    values, inverse = np.unique(t, return_inverse=True)
    return values, np.bincount(inverse, weight[sel])


def _window(n: int, p: float, first: int, last: int) -> np.ndarray:
    """The counts ``first..last`` within ``12 sd + 40`` of ``Bin(n, p)``'s mean (Bernstein: the
    mass outside is below 1e-26, :data:`rocsim.core.mixture.PMF_SIGMAS`)."""
    reach = PMF_SIGMAS * np.sqrt(n * p * (1 - p)) + PMF_SLACK
    lo = max(first, int(np.floor(n * p - reach)))
    hi = min(last, int(np.ceil(n * p + reach)))
    return np.arange(lo, hi + 1)


def _binomial_pmf(k, n, p: float) -> np.ndarray:
    """``Bin(k; n, p)`` in logs (``0^0 = 1``)."""
    log = (
        special.gammaln(n + 1.0)
        - special.gammaln(k + 1.0)
        - special.gammaln(n - k + 1.0)
        + special.xlogy(k, p)
        + special.xlog1py(n - k, -p)
    )
    return np.exp(log)


def _row_moments(q, w, blocks, m_pos: int) -> tuple[float, float]:
    """Mean and second moment of TPR from a row's components."""
    mean = float(w @ q)
    second = float(w @ (q * q + q * (1 - q) / m_pos))
    for block in blocks:
        t, weight = block.t, np.diff(block.cum, prepend=0.0)
        mu = block.above + t * block.tied
        var = (
            block.above * (1 - block.above)
            + t * t * block.tied * (1 - block.tied)
            - 2 * t * block.above * block.tied
        ) / m_pos
        mean += float(weight @ mu)
        second += float(weight @ (mu * mu + var))
    return mean, second


def _data_tpr(r, t_rank, before, sizes, above, tied) -> float:
    """The data's TPR at FPR ``r / n-`` read along the diagonal: the threshold's block is the
    one holding negative ``t_rank``."""
    j = int(np.searchsorted(before + sizes, t_rank, "left"))
    if j == before.size:  # past the last negative (upper side at FPR 1): every positive
        return 1.0
    return float(above[j] + tied[j] * (r - before[j]) / sizes[j])
