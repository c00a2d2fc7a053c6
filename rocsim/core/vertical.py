"""Vertical averaging of ROC curves, single design (thesis section 4.4.1, Algorithm 4.3).

At the false positive rate ``r/m-`` the bootstrap threshold ``T_r`` is the ``r``-th largest
negative score of the resample. With the negatives sorted decreasingly and ``c`` the number of
negatives scoring ``>=`` the ``c``-th largest one,

    Pr{T_r >= s_(c)} = Pr{Bin(m-, c/n-) >= r} = 1 - B(r - 1; m-, c/n-)      (eq. 4.10)

so ``Pr{T_r = s_(c)}`` is a difference of binomial tails (eq. 4.11) that depends on
``n-``, ``m-`` and ``r`` only. Given ``T_r = s_(c)``, the bootstrap count of positives reaching
the threshold is ``Bin(m+, q_c)`` with ``q_c`` the share of positives scoring ``>= s_(c)``, so
TPR is a mixture of scaled binomials (eq. 4.12) with moments (4.13)-(4.14).

Ties: summing over the rank ``c`` (not over distinct values) is exact with ties, because tied
negatives share the same ``q_c`` and their weights add up to the weight of the distinct value.

Speed: the weights ``w_r(c) = G_r(c) - G_r(c-1)`` are computed once per ``(n-, m-, r)`` and
cached; each dropped weight is below 1e-17 and the mass dropped per FPR stays below ~1e-15,
so only a band of a few ``sqrt(m-)`` ranks around ``r n-/m-`` is kept. Per data set the work
is one sort of the negatives and a count of the positives at the band's thresholds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache

import numpy as np
from scipy import special

from rocsim.core._validation import (
    as_real_array,
    check_choice,
    check_confidence_level,
    check_rates,
    check_two_classes,
)
from rocsim.core.counting import count_above, count_at_or_above
from rocsim.core.intervals import QUANTILE_SLACK, check_pseudo_count, normal_quantile
from rocsim.core.methods import call_method, check_method, method_name
from rocsim.core.results import Result, clip_bounds
from rocsim.core.threshold import BOOTSTRAP_SCHEMES, class_count_law

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


@dataclass(frozen=True, repr=False)
class VerticalDistribution(Result):
    """Exact bootstrap law of TPR at the FPRs ``r / m-``.

    Attributes
    ----------
    r : ndarray of int
    fpr : ndarray, ``r / m-``
    tpr : ndarray
        The data's TPR at each FPR, on ``side`` of the vertical step.
    mean, var : ndarray
        Moments of TPR (eqs. 4.13-4.14).
    m_pos : int
        Bootstrap size of the positives (support of TPR is ``{0, 1/m+, ..., 1}``).
    bootstrap : {"stratified", "full"}
    side : {"lower", "upper"}
        Which end of the ROC curve's vertical step at ``r / m-`` (:func:`vertical_distribution`).
    """

    r: np.ndarray
    fpr: np.ndarray
    tpr: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    m_pos: int
    bootstrap: str
    side: str = "lower"
    _q: np.ndarray | None = field(default=None, repr=False)
    _w: np.ndarray | None = field(default=None, repr=False)

    _columns = ("r", "fpr", "tpr", "mean", "var")
    _settings = ("bootstrap", "side")

    def _summary(self) -> str:
        return (
            f"exact bootstrap law of TPR at {self.r.size} FPRs, {self.bootstrap} bootstrap, "
            f"{self.side} side, m+={self.m_pos}"
        )

    def ci(
        self,
        confidence_level: float = 0.95,
        method: str | Callable = "score",
        *,
        pseudo_count: float | None = None,
    ) -> VerticalCI:
        """Pointwise intervals of TPR from this law, without computing it again.

        Parameters
        ----------
        confidence_level : float, default 0.95
        method : {"score", "wald", "agresti", "percentile"} or callable, default "score"
            As in :func:`vertical_ci`.
        pseudo_count : float, optional
            For ``agresti`` (default 2; stratified bootstrap only).

        Examples
        --------
        >>> law = vertical_distribution([0.9, 0.8, 0.3, 0.6], [0.7, 0.5, 0.2, 0.1], [1, 2])
        >>> [law.ci(0.9, m).low.round(3).tolist() for m in ("score", "percentile")]
        [[0.217, 0.325], [0.25, 0.25]]
        """
        level = check_confidence_level(confidence_level)
        method = check_method(method, VERTICAL_METHODS, "vertical", "vertical interval method")
        a = check_pseudo_count(method, pseudo_count)
        law = self
        if method == "agresti":
            self._require_stratified("the agresti interval")
            mean, var = _mixture_moments(self._q, self._w, self.m_pos, a)
            law = replace(self, mean=mean, var=var, m_pos=self.m_pos + 2 * a)
        low, high = call_method(method, VERTICAL_METHODS, law, level)
        # agresti reports the moments its interval is built on, as its Wald interval does
        return VerticalCI.from_bounds(law, low, high, level, method_name(method))

    @cached_property
    def pmf(self) -> np.ndarray:
        """``pmf[i, l] = Pr{TPR = l / m+}`` at ``fpr[i]`` (eq. 4.12); rows sum to 1.

        Stratified bootstrap only: under the full bootstrap ``N+`` is random, so TPR has no
        common support ``{0, 1/m+, ..., 1}``.
        """
        self._require_stratified("the pmf of TPR")
        return _mixture_pmf(self._q, self._w, self.m_pos)

    def quantile(self, p: float) -> np.ndarray:
        """Smallest ``l / m+`` with ``Pr{TPR <= l / m+} >= p`` at every FPR (stratified only).

        Bisection on the exact mixture CDF ``sum_c w_c B(l; m+, q_c)`` (eq. 4.12), so the
        ``(len(r), m+ + 1)`` pmf is never built.
        """
        self._require_stratified("the quantiles of TPR")
        sd = np.sqrt(self.var)
        guess = self.mean + special.ndtri(min(max(p, 1e-300), 1 - 1e-16)) * sd
        return self._mixture.quantile(p, guess, sd / 4) / self.m_pos

    @cached_property
    def _mixture(self) -> _BinomialMixture:
        return _BinomialMixture(self._q, self._w, self.m_pos)

    def _require_stratified(self, what: str) -> None:
        if self.bootstrap != "stratified":
            raise NotImplementedError(
                f"{what} is defined for bootstrap='stratified' only (under the full "
                "bootstrap N+ is random); mean and var are exact for both"
            )


#: Binomial mass farther than ``_PMF_SIGMAS`` standard deviations plus ``_PMF_SLACK`` from
#: ``m q`` is left out of the pmf. By Bernstein's inequality ``Pr{|X - m q| >= t} <=
#: 2 exp(-t^2 / (2 (s^2 + t/3)))`` with ``s^2 = m q (1 - q)``; at ``t = 12 s + 40`` the exponent
#: is at least 60 for every ``s``, so each component (and the mixture) loses below 2e-26.
_PMF_SIGMAS, _PMF_SLACK = 12.0, 40.0
#: Binomial pmf values evaluated per block of components (1 MB of float64).
_PMF_BLOCK = 2**17


def _mixture_pmf(q: np.ndarray, w: np.ndarray, m_pos: int) -> np.ndarray:
    """``pmf[i, l] = sum_c w[i, c] Bin(l; m+, q[i, c])`` for ``l = 0..m+`` (eq. 4.12).

    Each binomial pmf is Boost's (the one behind ``scipy.stats.binom.pmf``), accurate to the
    conditioning of the pmf in ``q`` (a ``gammaln`` difference, ``log C(m+, l)``, would carry an
    absolute rounding error of order ``1e-16 m+ log m+`` into every entry); the accuracy reached
    is checked by ``tests/test_vertical_pmf_accuracy.py``. Equal ``q`` within a row are merged
    (:class:`_BinomialMixture`); since ``q`` increases along a row, blocks of consecutive
    components share nearly the same window ``m+ q -+ (12 s + 40)`` and each block is
    evaluated on the union of its windows only.
    """
    try:  # Boost's binomial pmf: the ufunc behind scipy.stats.binom.pmf, without its checks
        from scipy.special._ufuncs import _binom_pmf as binom_pmf
    except ImportError:  # pragma: no cover - a private name, may move in a later scipy
        from scipy.stats import binom

        binom_pmf = binom.pmf
    out = np.zeros((q.shape[0], m_pos + 1))
    mix = _BinomialMixture(q, w, m_pos)
    if mix.q.size == 0:
        return out
    reach = _PMF_SIGMAS * np.sqrt(m_pos * mix.q * (1 - mix.q)) + _PMF_SLACK
    lo = np.maximum(np.floor(m_pos * mix.q - reach), 0).astype(np.int64)
    hi = np.minimum(np.ceil(m_pos * mix.q + reach), m_pos).astype(np.int64)
    # blocks of `size` consecutive components of one row, `size` x window ~ _PMF_BLOCK values
    widest = 2 * (_PMF_SIGMAS * np.sqrt(m_pos) / 2 + _PMF_SLACK) + 1
    size = max(1, int(_PMF_BLOCK // widest))
    count = mix.row.size
    row_start = np.flatnonzero(np.r_[True, mix.row[1:] != mix.row[:-1]])
    position = np.arange(count) - np.repeat(row_start, np.diff(np.r_[row_start, count]))
    starts = np.flatnonzero(position % size == 0)
    ends = np.r_[starts[1:], count]
    first, last = np.minimum.reduceat(lo, starts), np.maximum.reduceat(hi, starts)
    for s, e, a, b in zip(starts.tolist(), ends.tolist(), first.tolist(), last.tolist()):
        block = binom_pmf(np.arange(a, b + 1), m_pos, mix.q[s:e, None])
        out[mix.row[s], a : b + 1] += mix.w[s:e] @ block
    return out


class _BinomialMixture:
    """Row-wise mixtures ``F_i(l) = sum_c w[i, c] B(l; m, q[i, c])`` (eq. 4.12), with equal
    ``q`` within a row merged: ``q`` only changes where a positive falls between two
    consecutive negatives, so ties and flat stretches of the ROC curve cost nothing."""

    def __init__(self, q: np.ndarray, w: np.ndarray, m: int) -> None:
        self.m, self.rows = m, q.shape[0]
        row, _ = np.nonzero(w > 0)
        qf, wf = q[w > 0], w[w > 0]
        new = np.ones(row.size, dtype=bool)
        new[1:] = (row[1:] != row[:-1]) | (qf[1:] != qf[:-1])
        starts = np.flatnonzero(new)
        self.row, self.q = row[starts], qf[starts]
        self.w = np.add.reduceat(wf, starts)

    def cdf(self, at: np.ndarray, active: np.ndarray) -> np.ndarray:
        """``F_i(at[i])`` for the rows where ``active`` holds (other rows: 0); ``at >= 0``."""
        sel = active[self.row]
        row = self.row[sel]
        terms = self.w[sel] * special.bdtr(at[row], self.m, self.q[sel])
        return np.bincount(row, weights=terms, minlength=self.rows)

    def quantile(self, p: float, guess: np.ndarray, spread: np.ndarray) -> np.ndarray:
        """Per row, the smallest ``l`` in ``0..m`` with ``F_i(l) >= p``.

        The bracket starts at ``m (guess -+ spread)`` (a normal approximation from the exact
        moments) and moves outwards until ``F(low) < p <= F(high)``; bisection then needs a
        handful of CDF evaluations instead of ``log2(m)``.
        """
        m = self.m
        centre = np.floor(np.nan_to_num(guess) * m)
        step = np.ceil(np.nan_to_num(spread) * m).astype(np.int64) + 1
        # invariant sought: F(low) < p <= F(high), where F(-1) = 0 and F(m) = 1; so for
        # 0 < p <= 1 low is in -1..m-1 and high in 0..m (a high of -1 would ask for F(-1),
        # which bdtr answers with NaN, and a NaN comparison never widens the bracket)
        low = np.clip(centre - step, -1, m - 1).astype(np.int64)
        high = np.clip(centre + step, 0, m).astype(np.int64)
        check_low, check_high = low >= 0, high < m
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
        while np.any(high - low > 1):
            active = high - low > 1
            mid = (low + high) // 2
            reached = self.cdf(mid, active) >= p
            high = np.where(active & reached, mid, high)
            low = np.where(active & ~reached, mid, low)
        return high


def _band_rates(
    pos: np.ndarray, neg_desc: np.ndarray, weights: RankWeights, side: str
) -> np.ndarray:
    """``q[i, j]``: share of positives reaching the ``(start[i] + j)``-th largest negative,
    scoring ``>=`` it (lower side) or ``>`` it (upper side)."""
    # the bands cover most ranks once n- is large, so count at every negative in one pass
    # (looked up in ascending order, which searchsorted walks faster)
    count = count_at_or_above if side == "lower" else count_above
    at_rank = count(pos, neg_desc[::-1])[::-1] / pos.size
    return at_rank[weights.index]


def threshold_ranks(r: np.ndarray, side: str) -> np.ndarray:
    """Rank of the bootstrap threshold among the resampled negatives at FPR ``r / m-``: the
    ``r``-th largest (the bottom of the vertical step) or the ``(r + 1)``-th (its top)."""
    return r if side == "lower" else r + 1


def empirical_tpr(pos: np.ndarray, neg_desc: np.ndarray, r: np.ndarray, side: str) -> np.ndarray:
    """The data's TPR at FPR ``r / n-``: positives scoring ``>=`` the ``r``-th largest negative
    (lower side), or ``>`` the ``(r + 1)``-th (upper side; past the last negative, all)."""
    if side == "lower":
        return count_at_or_above(pos, neg_desc[r - 1]) / pos.size
    below = np.append(neg_desc, -np.inf)  # no (n- + 1)-th negative: every positive is above
    return count_above(pos, below[r]) / pos.size


def _moments(pos, neg_desc, r, m_neg, m_pos, pseudo_count=0.0, side="lower"):
    """Mean and variance of TPR at the FPR ranks ``r`` (eqs. 4.13-4.14), and the mixture's
    ``q`` and weights ``w`` (eq. 4.12), each row of ``w`` normalised to sum to 1.

    ``side="upper"``: the threshold is the ``(r + 1)``-th largest resampled negative and a
    positive counts when it scores strictly above it; the law is the same mixture with those
    ranks and counts. ``pseudo_count``: see :func:`_mixture_moments`.
    """
    ranks = tuple(threshold_ranks(np.asarray(r), side).tolist())
    weights = rank_weights(neg_desc.size, m_neg, ranks)
    q = _band_rates(pos, neg_desc, weights, side)
    # the band leaves out weights below WEIGHT_FLOOR (< ~1e-15 per row): renormalised, the
    # mean is a convex combination of the q and the rows of the pmf sum to 1 up to rounding
    w = weights.weights / weights.weights.sum(axis=1, keepdims=True)
    mean, var = _mixture_moments(q, w, m_pos, pseudo_count)
    return mean, var, q, w


def _mixture_moments(q, w, m_pos, pseudo_count=0.0):
    """Mean and variance of the mixture ``sum_c w_c Bin(m+, q_c) / m+`` (eqs. 4.13-4.14).

    The variance is the law of total variance, a sum of non-negative terms,

        Var = sum_c w_c q_c (1 - q_c) / m+ + sum_c w_c (q_c - mean)^2,

    not ``E[TPR^2] - mean^2``, which loses every digit once the variance drops below ~1e-16
    ``mean^2`` (high FPR, where nearly every positive passes every likely threshold).
    ``pseudo_count`` ``a`` (the ``agresti`` method; stratified, ``n+ = m+``):
    ``q -> (m+ q + a) / (m+ + 2a)`` and ``m+ -> m+ + 2a``.
    """
    if pseudo_count:
        q = (q * m_pos + pseudo_count) / (m_pos + 2 * pseudo_count)
        m_pos = m_pos + 2 * pseudo_count
    # about the q of the heaviest weight: q - mean would carry the rounding of mean (1e-16
    # near 1) into every deviation, 1e-10 relative when the q differ by 1/n+ = 1e-6
    ref = np.take_along_axis(q, np.argmax(w, axis=1)[:, None], axis=1)
    deviation = q - ref
    shift = np.einsum("ij,ij->i", w, deviation)
    between = np.einsum("ij,ij->i", w, np.square(deviation - shift[:, None]))
    within = np.einsum("ij,ij->i", w, q * (1 - q)) / m_pos
    # kept within the row's q (a row of equal q has that q as its mean, exactly)
    present = w > 0
    lowest = np.min(q, axis=1, where=present, initial=np.inf)
    highest = np.max(q, axis=1, where=present, initial=-np.inf)
    mean = np.clip(ref[:, 0] + shift, lowest, highest)
    return mean, within + between


def check_ranks(r, n_neg: int, name: str = "r", last: int | None = None) -> np.ndarray:
    """FPR ranks as a 1-D int array with ``1 <= r <= n- - 1`` (``name="k"``: TPR ranks,
    ``1 <= k <= n+ - 1``, with ``n_neg`` then the number of positives; ``last`` another
    largest rank, e.g. ``n+`` for recall ranks).

    Examples
    --------
    >>> check_ranks([1, 3], 4).tolist()
    [1, 3]
    """
    size, rate = ("m-", "FPR") if name == "r" else ("m+", "TPR")
    arr = as_real_array(r, name)  # as floats first: 2**70 or "a" get a message, not numpy's
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of ranks, got shape {arr.shape}")
    if not np.all(np.equal(np.mod(arr, 1), 0)):
        raise ValueError(f"{name} must hold integers ({rate} = {name} / {size})")
    bound = f"{size} - 1 = {n_neg - 1}" if last is None else f"{last}"
    last = n_neg - 1 if last is None else last
    if np.any(arr < 1) or np.any(arr > last):
        raise ValueError(f"{name} must satisfy 1 <= {name} <= {bound}")
    return arr.astype(np.int64)


def nearest_ranks(fpr, m_neg: int) -> np.ndarray:
    """Per target FPR, the rank ``r`` in ``1..m- - 1`` whose ``r/m-`` is nearest (a rank per
    target, in the targets' order; targets closer together than ``1/m-`` share one)."""
    if m_neg < 2:
        raise ValueError(
            f"vertical averaging needs at least 2 negatives (FPR ranks 1..m- - 1), got {m_neg}"
        )
    rates = check_rates(fpr, "fpr")
    return np.clip(np.rint(rates * m_neg), 1, m_neg - 1).astype(np.int64)


def fpr_ranks(fpr, m_neg: int) -> np.ndarray:
    """The distinct ranks of :func:`nearest_ranks`, ascending: the FPR grid of a study.

    With ``m- < 100`` and the thesis grid 0.01..0.99 this is every ``r``.
    """
    return np.unique(nearest_ranks(fpr, m_neg))


#: Ends of the ROC curve's vertical step at an FPR: the thesis's bottom, pROC's top.
SIDES = ("lower", "upper")


def vertical_distribution(
    pos_scores, neg_scores, r, *, bootstrap: str = "stratified", side: str = "lower"
) -> VerticalDistribution:
    """Exact bootstrap law of TPR at FPR ``r / m-`` (eqs. 4.10-4.14).

    Parameters
    ----------
    pos_scores, neg_scores : array-like
        Scores of the positives and the negatives.
    r : array-like of int
        FPR ranks, ``1 <= r <= n- - 1``; the FPR is ``r / n-`` (``m- = n-``).
    bootstrap : {"stratified", "full"}, default "stratified"
        ``full``: class counts of the resample random (``N+ ~ Bin(n, n+/n)``, empty classes
        redrawn); the law is the mixture over them of the stratified laws with
        ``(m+, m-) = (N+, N-)``, at the FPRs ``r / n-`` mapped to ranks ``round(r N-/n-)``.
    side : {"lower", "upper"}, default "lower"
        At FPR ``r / m-`` a resample's ROC curve has a vertical step. ``lower`` (the thesis,
        eq. 4.12): its bottom, the positives scoring at least the ``r``-th largest resampled
        negative. ``upper``: its top, the positives scoring above the ``(r + 1)``-th largest
        resampled negative; this is what pROC's ``coords`` and ``ci.se`` report at a
        specificity. Both laws are exact; without ties between the classes the upper law at
        ``r`` is the lower law at ``r + 1``.

    Returns
    -------
    VerticalDistribution
        ``tpr`` (the data's), ``mean``, ``var``; ``pmf`` of shape ``(len(r), m+ + 1)``
        (computed on first access; stratified only); ``ci(...)`` for intervals.

    References
    ----------
    Gadoury (2009), section 4.4.1, eqs. 4.10-4.14, Algorithm 4.3. Robin et al. (2011), pROC,
    BMC Bioinformatics 12:77 (the upper side).

    Examples
    --------
    >>> law = vertical_distribution([0.9, 0.8, 0.3], [0.7, 0.5, 0.2], [1])
    >>> law.pmf.round(4).tolist()
    [[0.0357, 0.214, 0.428, 0.3224]]
    >>> vertical_distribution([0.9, 0.8, 0.3], [0.7, 0.5, 0.2], [1], side="upper").tpr
    array([0.66666667])
    """
    pos, neg = check_two_classes(pos_scores, neg_scores)
    check_choice(bootstrap, BOOTSTRAP_SCHEMES, "bootstrap scheme")
    check_choice(side, SIDES, "side")
    ranks = check_ranks(r, neg.size)
    neg_desc = np.sort(neg)[::-1]
    tpr = empirical_tpr(pos, neg_desc, ranks, side)
    fpr = ranks / neg.size
    if bootstrap == "full":
        mean, var = _full_moments(pos, neg_desc, ranks, side)
        return VerticalDistribution(ranks, fpr, tpr, mean, var, pos.size, bootstrap, side)
    mean, var, q, w = _moments(pos, neg_desc, ranks, neg.size, pos.size, side=side)
    return VerticalDistribution(ranks, fpr, tpr, mean, var, pos.size, bootstrap, side, q, w)


def _full_moments(pos, neg_desc, ranks, side: str) -> tuple[np.ndarray, np.ndarray]:
    """The full bootstrap's moments: a mixture over the class counts ``N+`` of the stratified
    moments, its variance by the law of total variance (no ``E[X^2] - mean^2`` cancellation,
    as in :func:`_mixture_moments`)."""
    n_pos, n_neg = pos.size, neg_desc.size
    k, prob = class_count_law(n_pos, n_neg)
    keep = prob > WEIGHT_FLOOR
    means, variances = [], []
    for m_pos in k[keep]:
        m_neg = n_pos + n_neg - int(m_pos)
        rr = np.clip(np.rint(ranks * m_neg / n_neg), 1, max(m_neg - 1, 1)).astype(np.int64)
        if m_neg < 2:
            # one negative: the threshold is that negative's score, drawn uniformly (lower
            # side); above the step at FPR 1 every positive counts (upper side)
            q = count_at_or_above(pos, neg_desc) / n_pos if side == "lower" else np.ones(1)
            mu = np.full(ranks.size, q.mean())
            v = np.full(ranks.size, np.mean((q - q.mean()) ** 2 + q * (1 - q) / m_pos))
        else:
            mu, v, _, _ = _moments(pos, neg_desc, rr, m_neg, int(m_pos), side=side)
        means.append(mu)
        variances.append(v)
    weight = prob[keep] / prob[keep].sum()
    means, variances = np.array(means), np.array(variances)
    mean = weight @ means
    return mean, weight @ variances + weight @ np.square(means - mean)


@dataclass(frozen=True, repr=False)
class VerticalCI(Result):
    """Pointwise confidence intervals of TPR at fixed FPRs (vertical averaging).

    Attributes
    ----------
    r, fpr : ndarray
        FPR ranks and FPRs ``r / m-``.
    tpr : ndarray
        The data's TPR at each FPR (on ``side`` of the vertical step).
    mean, var : ndarray
        Exact bootstrap moments of TPR.
    low, high : ndarray
        Bounds, clipped to [0, 1]; ``clipped`` marks where the method's bound was outside.
    confidence_level : float
    method, bootstrap, side : str
    """

    r: np.ndarray
    fpr: np.ndarray
    tpr: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    low: np.ndarray
    high: np.ndarray
    confidence_level: float
    method: str
    clipped: np.ndarray
    bootstrap: str = "stratified"
    side: str = "lower"

    _columns = ("r", "fpr", "tpr", "mean", "var", "low", "high", "clipped")
    _settings = ("confidence_level", "method", "bootstrap", "side")
    _plot_kind = "vertical"

    @classmethod
    def from_bounds(cls, law: VerticalDistribution, low, high, level: float, method: str):
        """The intervals ``[low, high]`` (clipped to [0, 1]) on the law's FPRs."""
        low, high, clipped = clip_bounds(low, high, (0.0, 1.0))
        return cls(
            law.r,
            law.fpr,
            law.tpr,
            law.mean,
            law.var,
            low,
            high,
            level,
            method,
            clipped,
            law.bootstrap,
            law.side,
        )

    def _summary(self) -> str:
        return (
            f"TPR at {self.r.size} FPRs, vertical averaging, {self.side} side "
            f"({self._level_and_method()})"
        )


def vertical_ci(
    pos_scores,
    neg_scores,
    r,
    *,
    confidence_level: float = 0.95,
    method: str | Callable = "score",
    bootstrap: str = "stratified",
    side: str = "lower",
    pseudo_count: float | None = None,
) -> VerticalCI:
    """Confidence intervals for TPR at FPR ``r / m-`` from the exact bootstrap law.

    Parameters
    ----------
    pos_scores, neg_scores : array-like
    r : array-like of int
        FPR ranks (``1 <= r <= n- - 1``).
    confidence_level : float, default 0.95
    method : {"score", "wald", "agresti", "percentile"} or callable, default "score"
        ``score``: the Gaussian score-type interval of Algorithm 4.3 (lines 20-21) with the
        exact bootstrap mean ``e`` and variance ``v``:
        ``(e + z^2/2m+ +- z sqrt(v + z^2/4m+^2)) / (1 + z^2/m+)``;
        ``wald``: ``e +- z sqrt(v)``; ``agresti``: Wald on the moments after adding
        ``pseudo_count`` (default 2) positives above and below every threshold;
        ``percentile``: equal-tailed quantiles of the exact pmf (stratified only); a function
        ``f(law, confidence_level) -> (low, high)`` on the :class:`VerticalDistribution` is a
        method of your own (:mod:`rocsim.core.methods`).
    bootstrap : {"stratified", "full"}
    side : {"lower", "upper"}, default "lower"
        Which end of the vertical step (:func:`vertical_distribution`); ``upper`` is pROC's.
    pseudo_count : float, optional
        For ``agresti``.

    Returns
    -------
    VerticalCI
        Arrays ``fpr, tpr, mean, var, low, high`` (bounds clipped to [0, 1]).

    Examples
    --------
    >>> ci = vertical_ci([0.9, 0.8, 0.3, 0.6], [0.7, 0.5, 0.2, 0.1], [1, 2], confidence_level=0.9)
    >>> ci.fpr.tolist(), ci.mean.round(3).tolist()
    ([0.25, 0.5], [0.595, 0.763])
    """
    level = check_confidence_level(confidence_level)
    method = check_method(method, VERTICAL_METHODS, "vertical", "vertical interval method")
    check_pseudo_count(method, pseudo_count)
    if method == "agresti":
        check_choice(bootstrap, ("stratified",), "bootstrap (with method='agresti')")
    law = vertical_distribution(pos_scores, neg_scores, r, bootstrap=bootstrap, side=side)
    return law.ci(level, method, pseudo_count=pseudo_count)


def score_on_moments(e, v, m, level: float):
    """Algorithm 4.3, lines 20-21: the Gaussian score-type interval of a rate with bootstrap
    mean ``e`` and variance ``v`` and binomial size ``m``,
    ``(e + z^2/2m +- z sqrt(v + z^2/4m^2)) / (1 + z^2/m)``."""
    z = normal_quantile(level)
    centre = e + z * z / (2 * m)
    half = z * np.sqrt(v + z * z / (4 * m * m))
    return (centre - half) / (1 + z * z / m), (centre + half) / (1 + z * z / m)


def _score(law: VerticalDistribution, level: float):
    """Algorithm 4.3, lines 20-21, on the exact bootstrap moments of TPR (size ``m+``)."""
    return score_on_moments(law.mean, law.var, law.m_pos, level)


def wald_on_moments(law, level: float):
    """``e +- z sqrt(v)`` on the bootstrap mean and variance of ``law`` (one classifier, or
    the difference of two; ``agresti``: on moments after adding pseudo-counts)."""
    half = normal_quantile(level) * np.sqrt(law.var)
    return law.mean - half, law.mean + half


def equal_tailed(law, level: float):
    """Equal-tailed quantiles ``law.quantile(p)`` of an exact law; the slack keeps a quantile
    that the CDF hits exactly from moving up by rounding."""
    tail = (1 - level) / 2
    return law.quantile(tail - QUANTILE_SLACK), law.quantile(1 - tail - QUANTILE_SLACK)


def _percentile(law: VerticalDistribution, level: float):
    """Equal-tailed quantiles of the exact pmf (eq. 4.12)."""
    if law.bootstrap != "stratified":
        raise ValueError("the percentile interval needs bootstrap='stratified'")
    return equal_tailed(law, level)


#: Method name -> interval ``(law, confidence_level) -> (low, high)`` on the exact bootstrap
#: law of TPR; a user's function with this signature works the same (:mod:`rocsim.core.methods`).
VERTICAL_METHODS: dict[str, Callable] = {
    "score": _score,
    "wald": wald_on_moments,
    "agresti": wald_on_moments,  # on the moments after adding pseudo-counts (see vertical_ci)
    "percentile": _percentile,
}


# --- horizontal averaging: FPR at fixed TPRs ---------------------------------------------------


@dataclass(frozen=True, repr=False)
class HorizontalCI(Result):
    """Pointwise confidence intervals of FPR at fixed TPRs ``k / m+`` (horizontal averaging;
    specificity ``1 - fpr`` at fixed sensitivity, pROC's ``ci.sp``).

    Attributes
    ----------
    k, tpr : ndarray
        TPR ranks and TPRs ``k / m+``.
    fpr : ndarray
        The data's FPR there: the share of negatives scoring at least the ``k``-th largest
        positive.
    mean, var : ndarray
        Exact bootstrap moments of FPR.
    low, high : ndarray
        Bounds on FPR, clipped to [0, 1].
    confidence_level : float
    method, bootstrap : str
    clipped : ndarray of bool
    """

    k: np.ndarray
    tpr: np.ndarray
    fpr: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    low: np.ndarray
    high: np.ndarray
    confidence_level: float
    method: str
    clipped: np.ndarray
    bootstrap: str = "stratified"

    _columns = ("k", "tpr", "fpr", "mean", "var", "low", "high", "clipped")
    _settings = ("confidence_level", "method", "bootstrap")
    _plot_kind = "horizontal"

    def _summary(self) -> str:
        return f"FPR at {self.k.size} TPRs, horizontal averaging ({self._level_and_method()})"


def horizontal_ci(
    pos_scores,
    neg_scores,
    k,
    *,
    confidence_level: float = 0.95,
    method: str | Callable = "score",
    bootstrap: str = "stratified",
) -> HorizontalCI:
    """Confidence intervals for FPR at TPR ``k / m+`` (horizontal averaging), exact.

    In a resample the threshold is the ``k``-th largest resampled positive and FPR is the share
    of resampled negatives scoring at least that threshold. This is vertical averaging with the
    roles of the classes exchanged: on the negated scores, with the negatives as the positive
    class, FPR at TPR ``k / m+`` is one minus the TPR at FPR ``(m+ - k) / m+`` on the upper
    side of the vertical step (:func:`vertical_distribution`), so the law is the same mixture
    of binomials (eq. 4.12) and every vertical method applies.

    Parameters
    ----------
    pos_scores, neg_scores : array-like
    k : array-like of int
        TPR ranks, ``1 <= k <= n+ - 1``.
    confidence_level : float, default 0.95
    method : {"score", "wald", "agresti", "percentile"} or callable, default "score"
        As in :func:`vertical_ci`, applied to the law of ``1 - FPR``.
    bootstrap : {"stratified", "full"}, default "stratified"

    Returns
    -------
    HorizontalCI

    References
    ----------
    Gadoury (2009), section 4.4.1, eqs. 4.10-4.14 (with the classes exchanged).

    Examples
    --------
    >>> ci = horizontal_ci([0.9, 0.8, 0.3, 0.6], [0.7, 0.5, 0.2, 0.1], [2, 3])
    >>> ci.tpr.tolist(), ci.fpr.tolist()
    ([0.5, 0.75], [0.0, 0.25])
    """
    pos, neg = check_two_classes(pos_scores, neg_scores)
    ranks = check_ranks(k, pos.size, "k")
    swapped = vertical_ci(
        -neg,
        -pos,
        pos.size - ranks,
        confidence_level=confidence_level,
        method=method,
        bootstrap=bootstrap,
        side="upper",
    )
    return HorizontalCI(
        ranks,
        ranks / pos.size,
        1.0 - swapped.tpr,
        1.0 - swapped.mean,
        swapped.var,
        1.0 - swapped.high,
        1.0 - swapped.low,
        swapped.confidence_level,
        swapped.method,
        swapped.clipped,
        bootstrap,
    )
