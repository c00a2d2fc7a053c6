"""Precision-recall curves: exact stratified-bootstrap laws and pointwise confidence intervals.

The two averagings of the ROC chapter carried over to the precision-recall plane. An instance
is predicted positive when its score is ``>= threshold``; the bootstrap resamples the ``n+``
positives and the ``n-`` negatives separately, with replacement (``m+ = n+``, ``m- = n-``).

Vertical averaging: precision at the fixed recall ``r/m+`` (``r = 1..m+``)
    The threshold ``T_r`` of a resample is its ``r``-th largest resampled positive score, and
    ``precision = r / (r + FP)`` with ``FP`` the number of resampled negatives scoring
    ``>= T_r``. Recall is exactly ``r/m+``: positives tied with ``T_r`` beyond the ``r``-th are
    not counted, as if ties among positives were broken at random; every negative at or above
    ``T_r`` is. This is the construction of eqs. 4.10-4.12 (section 4.4.1) with the classes
    exchanged: with the positives sorted decreasingly, ``p_(1) >= p_(2) >= ...``, the rank ``c``
    of ``T_r`` has the law of eq. 4.11 (:func:`rocsim.core.mixture.rank_weights` on ``n+, m+``)
    and, given ``T_r = p_(c)``, ``FP ~ Bin(m-, f_c)`` with ``f_c`` the share of negatives
    scoring ``>= p_(c)``. So ``FP`` is the binomial mixture of eq. 4.12, and precision, a
    decreasing function of it, has ``Pr{precision <= r/(r+j)} = Pr{FP >= j}``. Summing over the
    rank ``c`` is exact with ties, as in :mod:`rocsim.core.vertical`.

Threshold averaging: fixed score thresholds ``t``
    ``TP ~ Bin(m+, p+)`` and ``FP ~ Bin(m-, p-)``, independent (eqs. 4.3-4.4, ``p+`` and ``p-``
    the shares of positives and negatives scoring ``>= t``); ``recall = TP/m+`` and
    ``precision = TP/(TP + FP)``. Precision is undefined when nothing is predicted positive:
    its law here is the law *conditional on* ``TP + FP > 0``, and ``Pr{TP + FP = 0} =
    (1 - p+)^m+ (1 - p-)^m-`` is reported as ``p_undefined`` (a threshold above every score of
    the data, ``p+ = p- = 0``, has no law and is refused). The law is summed over the product
    of the two binomial pmfs on windows of ``+-(12 sd + 40)`` around each mean: by Bernstein's
    inequality each window leaves out less than ``2e-26`` of its binomial's mass, so the product
    less than ``4e-26``; the windows are renormalised.

Moments are sums of non-negative terms, ``sum pmf (g - mean)^2`` (about a reference point of
the support, so that a law concentrated near 1 keeps its digits), never ``E[X^2] - mean^2``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
from scipy import special, stats

from rocsim.core._validation import (
    check_confidence_level,
    check_probability,
    check_thresholds,
    check_two_classes,
)
from rocsim.core.counting import count_at_or_above
from rocsim.core.methods import PROBE_LEVEL, MethodProtocol, call_method, check_method, method_name
from rocsim.core.mixture import (
    PMF_SIGMAS,
    PMF_SLACK,
    BinomialMixture,
    mixture_pmf,
    rank_weights,
)
from rocsim.core.results import Interval, Result, clip_bounds, from_law
from rocsim.core.threshold import rate_intervals
from rocsim.core.vertical import (
    check_ranks,
    equal_tailed,
    score_on_moments,
    wald_on_moments,
)

#: Values of the FP pmf built at once when summing the moments (32 MB of float64).
_PMF_VALUES = 2**22
#: Cells of the (TP, FP) grid evaluated at once under threshold averaging: 512 kB of float64,
#: which stay in cache (a block of 8 MB runs about 6 times slower).
_GRID_CELLS = 2**16


# --- empirical curve --------------------------------------------------------------------------


def pr_curve(pos_scores, neg_scores) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The empirical precision-recall curve at every distinct score, ties merged.

    Parameters
    ----------
    pos_scores, neg_scores : array-like
        Scores of the positives and the negatives.

    Returns
    -------
    recall, precision, thresholds : ndarray
        At each distinct score ``t``, highest first: ``TP/n+`` and ``TP/(TP + FP)`` with
        ``TP``, ``FP`` the positives and negatives scoring ``>= t`` (never ``0/0``: ``t`` is a
        score of the data).

    Examples
    --------
    >>> recall, precision, _ = pr_curve([0.9, 0.4], [0.6, 0.1])
    >>> recall.tolist(), precision.round(3).tolist()
    ([0.5, 0.5, 1.0, 1.0], [1.0, 0.5, 0.667, 0.5])
    """
    pos, neg = check_two_classes(pos_scores, neg_scores)
    thresholds = np.unique(np.concatenate([pos, neg]))[::-1]
    tp = count_at_or_above(pos, thresholds)
    fp = count_at_or_above(neg, thresholds)
    return tp / pos.size, tp / (tp + fp), thresholds


# --- interval methods -------------------------------------------------------------------------


def _score(law, level: float):
    """Algorithm 4.3, lines 20-21, on the exact moments ``e``, ``v`` of the law, with ``m`` the
    law's ``score_size`` (for precision, our reading: the number of predicted positives implied
    by the mean, ``expected true positives / e``)."""
    e = law.mean
    low, high = score_on_moments(e, law.var, law.score_size, level)
    # exactly 0 and 1 at e = 0 and e = 1, as the Wilson interval: no rounding noise there
    return np.where(e <= 0.0, 0.0, low), np.where(e >= 1.0, 1.0, high)


#: Method name -> interval ``(law, confidence_level) -> (low, high)`` on an exact bootstrap law
#: of precision (:class:`PRDistribution`, :class:`PRThresholdDistribution`).
PR_METHODS: dict[str, Callable] = {
    "score": _score,
    "wald": wald_on_moments,
    "percentile": equal_tailed,
}


def _pr_probe():
    law = pr_distribution([0.9, 0.8, 0.3, 0.6, 0.75], [0.7, 0.5, 0.2, 0.1, 0.4], [1, 2, 3])
    return (law, PROBE_LEVEL), (3,)


#: How a precision interval method is called: on an exact law of precision.
PR_PROTOCOL = MethodProtocol("precision", "f(law, confidence_level) -> (low, high)", _pr_probe)


def _check_interval(confidence_level, method) -> tuple[float, str | Callable]:
    """The level and the method (a name of :data:`PR_METHODS`, or a function
    ``f(law, confidence_level) -> (low, high)``, :data:`PR_PROTOCOL`), checked once."""
    level = check_confidence_level(confidence_level)
    return level, check_method(method, PR_METHODS, PR_PROTOCOL, "precision interval method")


def _bounds(method, law, level: float):
    """The clipped bounds of ``method`` on ``law`` and where they were clipped."""
    low, high = call_method(method, PR_METHODS, law, level)
    return clip_bounds(low, high, (0.0, 1.0))


# --- vertical averaging: the law at fixed recalls ---------------------------------------------


def nearest_recall_ranks(recall, m_pos: int) -> np.ndarray:
    """Per target recall in ``(0, 1)``, the rank ``r`` in ``1..m+`` whose ``r/m+`` is nearest."""
    return np.clip(np.rint(np.asarray(recall) * m_pos), 1, m_pos).astype(np.int64)


@dataclass(frozen=True, repr=False)
class PRDistribution(Result):
    """Exact bootstrap law of precision at the recalls ``r / m+`` (vertical averaging).

    Attributes
    ----------
    r : ndarray of int
    recall : ndarray, ``r / m+``
    precision : ndarray
        The data's precision at that recall: ``r / (r + FP)`` at its ``r``-th largest positive.
    mean, var : ndarray
        Bootstrap mean and variance of precision.
    fp_mean, fp_var : ndarray
        Bootstrap mean and variance of ``FP`` (the mixture of eq. 4.12).
    m_pos, m_neg : int
        Bootstrap class sizes (``n+``, ``n-``).
    curve : (ndarray, ndarray)
        The empirical curve ``(recall, precision)`` of :func:`pr_curve`, for plots.
    """

    r: np.ndarray
    recall: np.ndarray
    precision: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    fp_mean: np.ndarray
    fp_var: np.ndarray
    m_pos: int
    m_neg: int
    curve: tuple[np.ndarray, np.ndarray] = field(default=(np.empty(0), np.empty(0)))
    _q: np.ndarray | None = None
    _w: np.ndarray | None = None

    _columns = ("recall", "precision", "mean", "var")
    _settings = ("m_pos", "m_neg")

    def _summary(self) -> str:
        return (
            f"exact bootstrap law of precision at {self.r.size} recalls, "
            f"m+={self.m_pos}, m-={self.m_neg}"
        )

    @property
    def score_size(self) -> np.ndarray:
        """``m`` of the score interval: ``r / mean``, the number of predicted positives that
        makes the mean precision a proportion of the ``r`` true positives."""
        return self.r / self.mean

    @cached_property
    def pmf(self) -> np.ndarray:
        """``pmf[i, j] = Pr{FP = j} = Pr{precision = r_i / (r_i + j)}`` for ``j = 0..m-``
        (eq. 4.12); rows sum to 1. Built on first access (the moments are summed block by
        block without keeping it)."""
        return mixture_pmf(self._q, self._w, self.m_neg)

    @property
    def support(self) -> np.ndarray:
        """``support[i, j] = r_i / (r_i + j)``: the precision of each column of :attr:`pmf`."""
        return self.r[:, None] / (self.r[:, None] + np.arange(self.m_neg + 1)[None, :])

    def quantile(self, p: float) -> np.ndarray:
        """Smallest precision ``v`` with ``Pr{precision <= v} >= p``, at every recall.

        ``Pr{precision <= r/(r+j)} = Pr{FP >= j}``, so the quantile is ``r/(r + j)`` with
        ``j`` the smallest count where the mixture CDF of FP exceeds ``1 - p``; found on that
        exact CDF without building the pmf (:meth:`VerticalDistribution.quantile` says how).
        """
        p = check_probability(p)
        target = float(np.nextafter(1.0 - p, 2.0))  # F(j) > 1 - p  <=>  F(j) >= next double
        sd = np.sqrt(self.fp_var)
        z = special.ndtri(min(max(target, 1e-300), 1 - 1e-16))
        j = self._mixture.quantile(
            target, (self.fp_mean + z * sd) / self.m_neg, sd / (4 * self.m_neg)
        )
        return self.r / (self.r + j)

    def ci(self, confidence_level: float = 0.95, method: str | Callable = "score") -> PRCI:
        """Pointwise intervals of precision from this law (see :func:`pr_curve_ci`)."""
        return self._interval(*_check_interval(confidence_level, method))

    def _interval(self, level: float, method: str | Callable) -> PRCI:
        """:meth:`ci` on a checked level and method."""
        low, high = call_method(method, PR_METHODS, self, level)
        return PRCI.from_bounds(self, low, high, level, method_name(method))

    @cached_property
    def _mixture(self) -> BinomialMixture:
        return BinomialMixture(self._q, self._w, self.m_neg)


def _precision_moments(r: np.ndarray, pmf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of ``r / (r + FP)`` from the pmf of FP, one row per rank.

    Deviations are taken from the precision at the heaviest count ``k``, written as
    ``r (k - j) / ((r + j)(r + k))`` (no difference of two numbers near 1), and the variance
    is ``sum pmf (deviation - shift)^2``: non-negative terms only.
    """
    j = np.arange(pmf.shape[1])[None, :]
    ref = np.argmax(pmf, axis=1)[:, None]
    rr = r[:, None].astype(float)
    deviation = rr * (ref - j) / ((rr + j) * (rr + ref))
    total = pmf.sum(axis=1)
    shift = np.einsum("ij,ij->i", pmf, deviation) / total
    var = np.einsum("ij,ij->i", pmf, np.square(deviation - shift[:, None])) / total
    mean = np.clip(r / (r + ref[:, 0]) + shift, r / (r + pmf.shape[1] - 1), 1.0)
    return mean, var


def _vertical_law(pos: np.ndarray, neg: np.ndarray, ranks: np.ndarray) -> PRDistribution:
    """The law at distinct ranks (validated data)."""
    n_pos, n_neg = pos.size, neg.size
    pos_desc = np.sort(pos)[::-1]
    weights = rank_weights(n_pos, n_pos, tuple(ranks.tolist()))  # eq. 4.11, classes exchanged
    # f[i, j]: share of negatives scoring >= the (start[i] + j)-th largest positive (counted
    # at every positive in one pass: the bands cover most ranks once n+ is large)
    f = (count_at_or_above(neg, pos_desc[::-1])[::-1] / n_neg)[weights.index]
    # the band drops weights below 1e-17 (< ~1e-15 a row): renormalised, as in vertical.py
    w = weights.weights / weights.weights.sum(axis=1, keepdims=True)
    fp_mean = n_neg * np.einsum("ij,ij->i", w, f)
    centred = f - (fp_mean / n_neg)[:, None]
    fp_var = n_neg * np.einsum("ij,ij->i", w, f * (1 - f)) + n_neg**2 * np.einsum(
        "ij,ij->i", w, np.square(centred)
    )
    mean, var = np.empty(ranks.size), np.empty(ranks.size)
    rows = max(1, _PMF_VALUES // (n_neg + 1))
    for start in range(0, ranks.size, rows):  # the pmf a block of rows at a time: memory
        block = slice(start, start + rows)
        pmf = mixture_pmf(f[block], w[block], n_neg)
        mean[block], var[block] = _precision_moments(ranks[block], pmf)
    fp_data = count_at_or_above(neg, pos_desc[ranks - 1])  # negatives >= r-th positive
    recall, precision, _ = pr_curve(pos, neg)
    return PRDistribution(
        r=ranks,
        recall=ranks / n_pos,
        precision=ranks / (ranks + fp_data),
        mean=mean,
        var=var,
        fp_mean=fp_mean,
        fp_var=fp_var,
        m_pos=n_pos,
        m_neg=n_neg,
        curve=(recall, precision),
        _q=f,
        _w=w,
    )


def _take(law: PRDistribution, index: np.ndarray) -> PRDistribution:
    """``law`` at the rows ``index`` (repeats allowed)."""
    rows = ("r", "recall", "precision", "mean", "var", "fp_mean", "fp_var", "_q", "_w")
    return replace(law, **{name: getattr(law, name)[index] for name in rows})


def pr_distribution(pos_scores, neg_scores, r) -> PRDistribution:
    """Exact bootstrap law of precision at the recalls ``r / m+`` (vertical averaging).

    At recall ``r/m+`` the threshold is the ``r``-th largest resampled positive and
    ``precision = r / (r + FP)``, ``FP`` the resampled negatives scoring at or above it
    (ties among positives count exactly ``r`` positives, as if broken at random).

    Parameters
    ----------
    pos_scores, neg_scores : array-like
        Scores of the positives and the negatives.
    r : array-like of int
        Recall ranks, ``1 <= r <= n+``; the recall is ``r / n+`` (``m+ = n+``). Rows follow
        ``r``, repeats included.

    Returns
    -------
    PRDistribution
        ``mean``, ``var``, ``quantile(p)``, ``pmf`` (built on first access) and ``ci(...)``.

    References
    ----------
    Gadoury (2009), section 4.4.1, eqs. 4.10-4.12 (here with the classes exchanged).

    Examples
    --------
    >>> law = pr_distribution([0.9, 0.8, 0.3], [0.7, 0.5, 0.2], [2])
    >>> law.precision.tolist(), law.mean.round(4).tolist()
    ([1.0], [0.8771])
    """
    pos, neg = check_two_classes(pos_scores, neg_scores)
    ranks = check_ranks(r, pos.size, last=pos.size)  # recall r / m+, up to 1
    distinct, index = np.unique(ranks, return_inverse=True)
    law = _vertical_law(pos, neg, distinct)
    return law if distinct.size == ranks.size and np.all(distinct == ranks) else _take(law, index)


@dataclass(frozen=True, repr=False)
class PRCI(Interval):
    """Pointwise confidence intervals of precision at fixed recalls (vertical averaging): the
    exact law ``law`` (a :class:`PRDistribution`) and the bounds, clipped to [0, 1]
    (``clipped`` marks where). ``r``, ``recall``, ``precision`` (the data's), ``mean`` and
    ``var`` (the bootstrap law's) are read from the law.
    """

    r = from_law("r", "Recall ranks.")
    recall = from_law("recall", "Recalls ``r / m+``.")
    precision = from_law("precision", "The data's precision at each recall.")
    mean = from_law("mean", "Exact bootstrap mean of precision.")
    var = from_law("var", "Exact bootstrap variance of precision.")

    _columns = ("recall", "precision", "low", "high", "mean", "var", "r", "clipped")
    _plot_kind = "pr"

    def _summary(self) -> str:
        return (
            f"precision at {self.r.size} recalls, vertical averaging, n+={self.law.m_pos}, "
            f"n-={self.law.m_neg} ({self._level_and_method()})"
        )


def pr_curve_ci(
    pos_scores,
    neg_scores,
    r,
    *,
    confidence_level: float = 0.95,
    method: str | Callable = "score",
) -> PRCI:
    """Confidence intervals for precision at the recalls ``r / m+``, from the exact bootstrap.

    Parameters
    ----------
    pos_scores, neg_scores : array-like
    r : array-like of int
        Recall ranks, ``1 <= r <= n+``.
    confidence_level : float, default 0.95
    method : {"score", "wald", "percentile"} or callable, default "score"
        ``score``: the score-type interval of Algorithm 4.3 (lines 20-21) on the exact mean
        ``e`` and variance ``v``, ``(e + z^2/2m +- z sqrt(v + z^2/4m^2)) / (1 + z^2/m)``, with
        ``m = r / e``. Our reading: precision is the share of true positives among the
        predicted positives; the ``r`` true positives are fixed, so ``m`` is the number of
        predicted positives that makes ``e`` that share (``r/e <= r + E[FP]`` by Jensen);
        the interval always contains ``e``. ``wald``: ``e +- z sqrt(v)``. ``percentile``:
        equal-tailed quantiles of the exact law. A function ``f(law, confidence_level) ->
        (low, high)`` on the :class:`PRDistribution` (``mean``, ``var``, ``quantile``) is a
        method of your own.

    Returns
    -------
    PRCI
        ``recall, precision, low, high, mean, var``; the law as ``.law``.

    References
    ----------
    Gadoury (2009), section 4.4.1, eqs. 4.10-4.12 and Algorithm 4.3.

    Examples
    --------
    >>> ci = pr_curve_ci([0.9, 0.8, 0.3, 0.6], [0.7, 0.5, 0.2, 0.1], [1, 2, 4])
    >>> ci.recall.tolist(), ci.precision.round(3).tolist()
    ([0.25, 0.5, 1.0], [1.0, 1.0, 0.667])
    >>> bool(ci.low[2] <= ci.mean[2] <= ci.high[2])
    True
    """
    level, method = _check_interval(confidence_level, method)
    return pr_distribution(pos_scores, neg_scores, r)._interval(level, method)


# --- threshold averaging ----------------------------------------------------------------------


def _binomial_windows(counts: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``Bin(n, counts/n)`` on ``start + 0..width-1`` (``+-(12 sd + 40)`` around the mean):
    ``(start, pmf)``, the pmf zero-padded to a common width (and past ``n``)."""
    p = counts / n
    reach = PMF_SIGMAS * np.sqrt(n * p * (1 - p)) + PMF_SLACK
    lo = np.clip(np.floor(n * p - reach), 0, n).astype(np.int64)
    hi = np.clip(np.ceil(n * p + reach), 0, n).astype(np.int64)
    k = lo[:, None] + np.arange(int(np.max(hi - lo)) + 1)[None, :]
    pmf = np.where(k <= hi[:, None], stats.binom.pmf(np.minimum(k, n), n, p[:, None]), 0.0)
    return lo, pmf


def _trimmed(start: int, pmf: np.ndarray) -> tuple[int, np.ndarray]:
    """A window without its zero ends (the padding to a common width, underflow)."""
    nonzero = np.flatnonzero(pmf)
    return start + int(nonzero[0]), pmf[nonzero[0] : nonzero[-1] + 1]


def _grid_moments(a0: int, pa: np.ndarray, b0: int, pb: np.ndarray):
    """Mass, mean and variance of ``TP/(TP+FP)`` given ``TP + FP > 0``, ``TP = a0 + i`` with
    probability ``pa[i]`` and ``FP = b0 + j`` with ``pb[j]``, independent.

    By rows (fixed ``TP = a``): the row's conditional mean and variance over FP (cells of the
    row minus the row mean), then the law of total variance about the heaviest row; every term
    is non-negative.
    """
    (a0, pa), (b0, pb) = _trimmed(a0, pa), _trimmed(b0, pb)
    b = b0 + np.arange(pb.size)
    total_b = pb.sum()
    a = a0 + np.arange(pa.size)
    row_mass = pa * total_b
    row_mean, row_var = np.zeros(pa.size), np.zeros(pa.size)
    if a0 == 0:  # TP = 0: precision 0 wherever it is defined, FP > 0
        row_mass[0] = pa[0] * (total_b - (pb[0] if b0 == 0 else 0.0))
    first = 1 if a0 == 0 else 0
    rows = max(1, _GRID_CELLS // pb.size)
    for start in range(first, pa.size, rows):
        block = slice(start, min(start + rows, pa.size))
        ab = a[block, None].astype(float)
        g = ab / (ab + b[None, :])
        mu = g @ pb / total_b
        row_mean[block] = mu
        row_var[block] = np.square(g - mu[:, None]) @ pb / total_b
    mass = row_mass.sum()
    if not mass > 0:
        return 0.0, np.nan, np.nan
    ref = row_mean[np.argmax(row_mass)]
    mean = ref + row_mass @ (row_mean - ref) / mass
    present = row_mass > 0
    mean = float(np.clip(mean, row_mean[present].min(), row_mean[present].max()))
    var = float(row_mass @ (row_var + np.square(row_mean - mean)) / mass)
    return float(mass), mean, var


def _grid_quantile(a0: int, pa: np.ndarray, b0: int, pb: np.ndarray, p: float) -> float:
    """Smallest precision ``v`` with ``Pr{precision <= v | TP + FP > 0} >= p``, exactly.

    Bisection over the dyadic grid ``v = k / 2^L`` with the count of each row cut in integer
    arithmetic (``a/(a+b) <= k/2^L  <=>  b >= a (2^L - k) / k``), then the atoms
    ``a/(a+b)`` left in the last step ``(lo, hi]`` are sorted and accumulated.
    """
    (a0, pa), (b0, pb) = _trimmed(a0, pa), _trimmed(b0, pb)
    a = a0 + np.arange(pa.size)
    keep = (a >= 1) & (pa > 0)
    a_pos, pa_pos = a[keep], pa[keep]
    tail_b = np.concatenate([np.cumsum(pb[::-1])[::-1], [0.0]])  # tail_b[j] = Pr{FP >= b0+j}
    zero_row = pa[0] * (tail_b[0] - (pb[0] if b0 == 0 else 0.0)) if a0 == 0 else 0.0
    bits = 62 - int(a_pos.max(initial=1)).bit_length()
    scale = 2 ** min(53, bits)  # a (2^L - k) stays below 2^62

    def first_b(k: int) -> np.ndarray:
        """Per row, the smallest FP with ``a/(a+b) <= k/2^L`` (past the window: none)."""
        if k <= 0:
            return np.full(a_pos.size, b0 + pb.size)
        return -((-a_pos * (scale - k)) // k)

    def mass_at_or_below(k: int) -> float:
        if k < 0:
            return 0.0
        cut = np.clip(first_b(k) - b0, 0, pb.size)
        return zero_row + float(pa_pos @ tail_b[cut])

    # F(-1) = 0 < target <= F(1) = total, whatever the rounding of p or of the sums
    target = max(min(p, 1.0) * mass_at_or_below(scale), float(np.nextafter(0.0, 1.0)))
    lo, hi = -1, scale
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if mass_at_or_below(mid) >= target else (mid, hi)
    # atoms in (lo/2^L, hi/2^L]: rows' FP counts from first_b(hi) to first_b(lo) - 1
    start = np.clip(first_b(hi) - b0, 0, pb.size)
    stop = np.clip(first_b(lo) - b0, 0, pb.size)
    count = np.maximum(stop - start, 0)
    row = np.repeat(np.arange(a_pos.size), count)
    j = start[row] + np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count)
    values = a_pos[row] / (a_pos[row] + b0 + j)
    masses = pa_pos[row] * pb[j]
    if lo < 0 < zero_row:
        values, masses = np.append(values, 0.0), np.append(masses, zero_row)
    order = np.argsort(values, kind="stable")
    cum = mass_at_or_below(lo) + np.cumsum(masses[order])
    reached = np.flatnonzero(cum >= target)
    return float(values[order][reached[0] if reached.size else -1])


@dataclass(frozen=True, repr=False)
class PRThresholdDistribution(Result):
    """Exact bootstrap law of ``(recall, precision)`` at fixed thresholds.

    Attributes
    ----------
    thresholds : ndarray
    tp, fp : ndarray of int
        Positives and negatives of the data scoring ``>= t``.
    recall, precision : ndarray
        The data's ``tp/n+`` and ``tp/(tp+fp)`` (``tp + fp > 0``); the bootstrap mean
        of recall is ``recall``.
    recall_var : ndarray
        ``p+(1-p+)/m+`` (eq. 4.3).
    mean, var : ndarray
        Bootstrap mean and variance of precision given ``TP + FP > 0``.
    p_undefined : ndarray
        ``Pr{TP + FP = 0} = (1-p+)^m+ (1-p-)^m-``.
    m_pos, m_neg : int
    curve : (ndarray, ndarray)
        The empirical curve of :func:`pr_curve`, for plots.
    """

    thresholds: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    recall: np.ndarray
    precision: np.ndarray
    recall_var: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    p_undefined: np.ndarray
    m_pos: int
    m_neg: int
    curve: tuple[np.ndarray, np.ndarray] = field(default=(np.empty(0), np.empty(0)))
    _a0: np.ndarray | None = None
    _pa: np.ndarray | None = None
    _b0: np.ndarray | None = None
    _pb: np.ndarray | None = None

    _columns = ("thresholds", "recall", "precision", "mean", "var", "p_undefined")
    _settings = ("m_pos", "m_neg")

    def _summary(self) -> str:
        return (
            f"exact bootstrap law of (recall, precision) at {self.thresholds.size} thresholds, "
            f"m+={self.m_pos}, m-={self.m_neg}"
        )

    @property
    def score_size(self) -> np.ndarray:
        """``m`` of the score interval: ``E[TP | TP + FP > 0] / mean``, the number of predicted
        positives that makes the mean precision a proportion of the expected true positives
        (infinite where precision is 0 surely: the interval is then ``[0, 0]``)."""
        out = np.where(np.isnan(self.mean), np.nan, np.inf)
        # E[TP | TP + FP > 0] = m+ p+ / (1 - p_undefined), and m+ p+ is the data's tp
        scaled = (1.0 - self.p_undefined) * self.mean
        return np.divide(self.tp, scaled, out=out, where=self.mean > 0)

    def quantile(self, p: float) -> np.ndarray:
        """Smallest precision ``v`` with ``Pr{precision <= v | TP + FP > 0} >= p`` at every
        threshold; exact, see :func:`_grid_quantile`."""
        p = check_probability(p)
        out = np.full(self.thresholds.size, np.nan)
        for i in np.flatnonzero(np.isfinite(self.mean)):
            out[i] = _grid_quantile(
                int(self._a0[i]), self._pa[i], int(self._b0[i]), self._pb[i], p
            )
        return out

    def precision_pmf(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Law of precision at ``thresholds[i]`` given ``TP + FP > 0``: its distinct values,
        ascending, and their probabilities (a grid of ``(12 sd + 40)^2``-ish cells: meant for
        moderate ``n``)."""
        a = self._a0[i] + np.arange(self._pa.shape[1])
        b = self._b0[i] + np.arange(self._pb.shape[1])
        mass = np.outer(self._pa[i], self._pb[i])
        defined = ((a[:, None] + b[None, :]) > 0) & (mass > 0)
        value = np.divide(
            a[:, None], a[:, None] + b[None, :], out=np.zeros(mass.shape), where=defined
        )
        values, inverse = np.unique(value[defined], return_inverse=True)
        probs = np.bincount(inverse, weights=mass[defined], minlength=values.size)
        return values, probs / probs.sum()

    def ci(
        self, confidence_level: float = 0.95, method: str | Callable = "score"
    ) -> PRThresholdCI:
        """Confidence rectangles from this law (see :func:`pr_threshold_ci`)."""
        return self._interval(*_check_interval(confidence_level, method))

    def _interval(self, level: float, method: str | Callable) -> PRThresholdCI:
        """:meth:`ci` on a checked level and method."""
        axis_level = float(np.sqrt(level))
        low, high, clipped = _bounds(method, self, axis_level)
        if isinstance(method, str) and method in ("score", "wald"):
            # the recall axis exactly as the TPR axis of ROC threshold averaging
            recall_ci = rate_intervals(self.tp, self.m_pos, self.m_pos, axis_level, method, None)
            recall_bounds = (recall_ci.low, recall_ci.high, recall_ci.clipped)
        else:  # percentile, or the user's function: on the binomial law of recall
            recall_bounds = _bounds(method, _RecallLaw(self), axis_level)
        recall_low, recall_high, recall_clipped = recall_bounds
        return PRThresholdCI(
            low=low,
            high=high,
            recall_low=recall_low,
            recall_high=recall_high,
            confidence_level=level,
            axis_level=axis_level,
            method=method_name(method),
            clipped=clipped | recall_clipped,
            law=self,
        )


@dataclass(frozen=True)
class _RecallLaw:
    """Recall ``TP/m+``, ``TP ~ Bin(m+, p+)``, as the precision methods see a law."""

    law: PRThresholdDistribution

    @property
    def mean(self) -> np.ndarray:
        return self.law.recall

    @property
    def var(self) -> np.ndarray:
        return self.law.recall_var

    @property
    def score_size(self) -> float:
        return float(self.law.m_pos)

    @property
    def m_pos(self) -> int:
        return self.law.m_pos

    def quantile(self, p: float) -> np.ndarray:
        """Smallest ``a/m+`` with ``Pr{TP <= a} >= p``, from the window's pmf."""
        pa = self.law._pa
        cdf = np.cumsum(pa, axis=1) / pa.sum(axis=1, keepdims=True)
        reached = cdf >= np.minimum(p, cdf[:, -1:])  # p = 1 reaches the last count
        return (self.law._a0 + np.argmax(reached, axis=1)) / self.law.m_pos


@dataclass(frozen=True, repr=False)
class PRThresholdCI(Result):
    """Pointwise confidence rectangles ``[recall_low, recall_high] x [low, high]`` of a
    threshold-averaged precision-recall curve, each axis at ``axis_level = sqrt(level)``.

    The two axes are dependent (both use ``TP``), so the rectangle's joint level is not
    exactly ``axis_level^2``; ``clipped`` marks rows where a bound of either axis was clipped
    to [0, 1]. ``precision`` is the data's,
    ``mean``, ``var`` the bootstrap law's given ``TP + FP > 0``; ``law`` is the
    :class:`PRThresholdDistribution`.
    """

    low: np.ndarray
    high: np.ndarray
    recall_low: np.ndarray
    recall_high: np.ndarray
    confidence_level: float
    axis_level: float
    method: str
    clipped: np.ndarray
    law: PRThresholdDistribution

    threshold = from_law("thresholds", "The score thresholds.")
    recall = from_law("recall", "The data's recall at each threshold.")
    precision = from_law("precision", "The data's precision at each threshold.")
    mean = from_law("mean", "Exact bootstrap mean of precision, given ``TP + FP > 0``.")
    var = from_law("var", "Exact bootstrap variance of precision, given ``TP + FP > 0``.")
    p_undefined = from_law("p_undefined", "``Pr{TP + FP = 0}``: precision undefined.")

    _columns = (
        "recall",
        "precision",
        "low",
        "high",
        "recall_low",
        "recall_high",
        "threshold",
        "mean",
        "var",
        "p_undefined",
        "clipped",
    )
    _settings = ("confidence_level", "axis_level", "method")
    _plot_kind = "pr"

    def _summary(self) -> str:
        return (
            f"(recall, precision) at {self.threshold.size} thresholds, threshold averaging, "
            f"n+={self.law.m_pos}, n-={self.law.m_neg} ({self._level_and_method()})"
        )


def pr_threshold_distribution(pos_scores, neg_scores, thresholds) -> PRThresholdDistribution:
    """Exact bootstrap law of ``(recall, precision)`` at fixed thresholds.

    ``TP ~ Bin(m+, p+)`` and ``FP ~ Bin(m-, p-)`` independent; precision ``TP/(TP+FP)`` is
    taken given ``TP + FP > 0`` (``Pr{TP + FP = 0}`` is ``p_undefined``).

    Parameters
    ----------
    pos_scores, neg_scores : array-like
    thresholds : array-like of shape (h,)
        Predicted positive means score ``>= t``; rows follow ``thresholds``.

    Returns
    -------
    PRThresholdDistribution

    References
    ----------
    Gadoury (2009), section 4.3.1, eqs. 4.3-4.4.

    Examples
    --------
    >>> law = pr_threshold_distribution([0.9, 0.8, 0.3], [0.7, 0.5, 0.2], [0.6])
    >>> law.recall.tolist(), law.precision.tolist(), law.mean.round(4).tolist()
    ([0.6666666666666666], [0.6666666666666666], [0.6922])
    """
    pos, neg = check_two_classes(pos_scores, neg_scores)
    thr = check_thresholds(thresholds)
    if thr.size == 0:
        raise ValueError("thresholds must hold at least one threshold")
    distinct, index = np.unique(thr, return_inverse=True)
    tp, fp = count_at_or_above(pos, distinct), count_at_or_above(neg, distinct)
    if np.any(tp + fp == 0):
        # nothing of the data is predicted positive, nor of any resample: no precision at all
        raise ValueError(
            f"thresholds {distinct[tp + fp == 0].tolist()} are above every score: precision is "
            "undefined where nothing is predicted positive"
        )
    a0, pa = _binomial_windows(tp, pos.size)
    b0, pb = _binomial_windows(fp, neg.size)
    moments = np.array(
        [_grid_moments(int(a0[i]), pa[i], int(b0[i]), pb[i]) for i in range(distinct.size)]
    )
    p_pos, p_neg = tp / pos.size, fp / neg.size
    precision = np.where(tp + fp > 0, tp / np.maximum(tp + fp, 1), np.nan)
    recall_curve, precision_curve, _ = pr_curve(pos, neg)
    return PRThresholdDistribution(
        thresholds=thr,
        tp=tp[index],
        fp=fp[index],
        recall=p_pos[index],
        precision=precision[index],
        recall_var=(p_pos * (1 - p_pos) / pos.size)[index],
        mean=moments[index, 1],
        var=moments[index, 2],
        p_undefined=((1 - p_pos) ** pos.size * (1 - p_neg) ** neg.size)[index],
        m_pos=pos.size,
        m_neg=neg.size,
        curve=(recall_curve, precision_curve),
        _a0=a0[index],
        _pa=pa[index],
        _b0=b0[index],
        _pb=pb[index],
    )


def pr_threshold_ci(
    pos_scores,
    neg_scores,
    thresholds,
    *,
    confidence_level: float = 0.95,
    method: str | Callable = "score",
) -> PRThresholdCI:
    """Confidence rectangles for ``(recall, precision)`` at fixed thresholds.

    Each axis gets ``sqrt(confidence_level)``, as in Algorithm 4.1; the axes are dependent
    (both use ``TP``), so the rectangle's joint level is not exactly ``confidence_level``.

    Parameters
    ----------
    pos_scores, neg_scores : array-like
    thresholds : array-like of shape (h,)
    confidence_level : float, default 0.95
    method : {"score", "wald", "percentile"} or callable, default "score"
        Precision: as in :func:`pr_curve_ci` on the law given ``TP + FP > 0``, with the score
        interval's ``m = E[TP | TP + FP > 0] / e``. Recall: ``score`` and ``wald`` are the
        proportion intervals of ROC threshold averaging
        (:func:`rocsim.core.threshold.rate_intervals`); ``percentile`` the equal-tailed
        quantiles of ``Bin(m+, p+)/m+``; a function is called on the recall's law too.

    Returns
    -------
    PRThresholdCI
        ``recall, precision, low, high, recall_low, recall_high, threshold, mean, var``.

    References
    ----------
    Gadoury (2009), section 4.3.1, eqs. 4.3-4.4 and Algorithm 4.1.

    Examples
    --------
    >>> ci = pr_threshold_ci([3, 2, 1, 0.5], [2, 0, -1, -2], [1.5], confidence_level=0.9)
    >>> float(ci.recall[0]), float(ci.precision[0])
    (0.5, 0.6666666666666666)
    """
    level, method = _check_interval(confidence_level, method)
    return pr_threshold_distribution(pos_scores, neg_scores, thresholds)._interval(level, method)
