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
    rank ``c`` is exact with ties, as in :mod:`rocsim.core.vertical`. The quantiles are the
    mixture's (:class:`~rocsim.core.mixture.BinomialMixture`); the mean and variance of
    precision are sums over the components of each binomial's, by a series in its central
    moments with a proven remainder (:func:`_fast_moments`): neither builds the pmf of FP.

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

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cache, cached_property, lru_cache

import numpy as np
from scipy import special

from rocsim.core._deprecated import module_getattr
from rocsim.core._validation import (
    check_confidence_level,
    check_probability,
    check_thresholds,
    check_two_classes,
)
from rocsim.core.binomial import binomial_pmf, boost_binomial_pmf
from rocsim.core.counting import count_at_or_above
from rocsim.core.methods import PROBE_LEVEL, MethodProtocol, call_method, check_method, method_name
from rocsim.core.mixture import (
    PMF_SIGMAS,
    PMF_SLACK,
    BinomialMixture,
    mixture_pmf,
    rank_weights,
)
from rocsim.core.registry import formulas
from rocsim.core.results import Interval, Result, clip_bounds, from_law
from rocsim.core.threshold import rate_intervals
from rocsim.core.vertical import check_ranks

#: Values of the FP pmf built at once by :func:`_dense_moments` (32 MB of float64).
_PMF_VALUES = 2**22
#: Bound on the error of :func:`_fast_moments`' variance, relative to it; the least error it
#: aims at.
_TARGET, _TARGET_FLOOR = 2.0**-50, 1e-100
#: Numbers of terms of the series of :func:`_fast_moments` tried, in turn; the first only
#: for components whose sd of FP is below ``_FIRST_ORDER_SPREAD`` times ``r + k`` (the others
#: need more terms: a shortcut, the bounds decide).
_ORDERS, _FIRST_ORDER_SPREAD = (8, 16, 24, 32), 0.01
#: Largest ``m-`` whose tables of central moments and moment bounds at every count are kept
#: (:func:`_binomial_tables`; 5 MB at the largest), as the rank weights are: they depend on
#: ``m-`` only.
_TABLE_LIMIT = 2**14
#: Components of :func:`_fast_moments` taken at once (memory: a few arrays of 12 values each).
_COMPONENTS = 2**15
#: Steps of the binomial pmf's ratio recurrence from each of Boost's values (:func:`_window_pmf`).
_RUN = 32
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


#: Method name -> interval ``(law, confidence_level) -> (low, high)`` on an exact bootstrap law
#: of precision (:class:`PRDistribution`, :class:`PRThresholdDistribution`;
#: :mod:`rocsim.core.registry`, kind ``precision``).
PR_METHODS: dict[str, Callable] = formulas("precision")


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
        Bootstrap mean and variance of precision, computed on first access (the percentile
        interval does not need them; :func:`_fast_moments`).
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
    def mean(self) -> np.ndarray:
        """Bootstrap mean of precision."""
        return self._moments[0]

    @property
    def var(self) -> np.ndarray:
        """Bootstrap variance of precision."""
        return self._moments[1]

    @cached_property
    def _moments(self) -> tuple[np.ndarray, np.ndarray]:
        return _fast_moments(self.r, self._q, self._w, self.m_neg, self.fp_mean, self.fp_var)

    @property
    def score_size(self) -> np.ndarray:
        """``m`` of the score interval: ``r / mean``, the number of predicted positives that
        makes the mean precision a proportion of the ``r`` true positives."""
        return self.r / self.mean

    @cached_property
    def pmf(self) -> np.ndarray:
        """``pmf[i, j] = Pr{FP = j} = Pr{precision = r_i / (r_i + j)}`` for ``j = 0..m-``
        (eq. 4.12); rows sum to 1. Built on first access (the moments and quantiles do not
        need it)."""
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
        """Pointwise intervals of precision from this law (see :func:`pr_ci`)."""
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


def _dense_moments(
    r: np.ndarray, q: np.ndarray, w: np.ndarray, m: int
) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of precision from the dense pmf of FP (:func:`mixture_pmf`, ``m + 1``
    values a row), a block of rows at a time: the reference :func:`_fast_moments` is tested
    against, and its fallback."""
    mean, var = np.empty(r.size), np.empty(r.size)
    rows = max(1, _PMF_VALUES // (m + 1))
    for start in range(0, r.size, rows):  # the pmf a block of rows at a time: memory
        block = slice(start, start + rows)
        pmf = mixture_pmf(q[block], w[block], m)
        mean[block], var[block] = _precision_moments(r[block], pmf)
    return mean, var


def _fast_moments(
    r: np.ndarray, q: np.ndarray, w: np.ndarray, m: int, fp_mean: np.ndarray, fp_var: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of precision ``g(FP) = r / (r + FP)``, ``FP ~ sum_c w_c Bin(m, q_c)``
    (one row of ``q``, ``w`` a rank ``r``): the dense pmf's (:func:`_dense_moments`), to a
    proven bound, without the pmf.

    By components: with ``h_c = E[g(X)] - g0`` and ``v_c = Var[g(X)]`` under ``X ~ Bin(m,
    q_c)`` (``g0`` the precision at the rounded mean of FP), ``E[g] = g0 + shift``, ``shift =
    sum_c w_c h_c``, and ``Var[g] = sum_c w_c v_c + sum_c w_c (h_c - shift)^2``: sums of
    non-negative terms, as :func:`_precision_moments`. ``q = 0`` and ``q = 1`` are the points
    ``FP = 0`` and ``FP = m``; equal ``q`` of a row are merged.

    A component ``q = k / m`` (``k`` an integer: a share of the negatives) has mean ``k``;
    with ``D = r + k``, ``c = r / D`` and ``d = X - k``, ``g(X) - g0 = c ((k0 - k) / (r + k0)
    - d / (D + d))``, so ``h = c ((k0 - k) / (r + k0) + S1)`` and ``v = c^2 (S2 - S1^2)``
    with ``S1 = E[-d / (D + d)]`` and ``S2 = E[d^2 / (D + d)^2]``. In ``y = d / D``
    (``1 + y = (r + X) / D >= r / D``), exactly

        -y / (1 + y) = sum_{p=1}^{P} (-y)^p + (-y)^(P+1) / (1 + y),
        y^2 / (1 + y)^2 = sum_{p=2}^{P+1} (p - 1) (-y)^p + y^2 (-y)^P ((P + 1) + P y) / (1 + y)^2,

    so ``S1`` and ``S2`` are sums of the central moments ``mu_p = E[d^p]`` of ``Bin(m, q)``
    (:func:`_central_moments`) over ``D^p``, with remainders at most ``(D / r) E|d|^(P+1) /
    D^(P+1)`` and ``(D / r)^2 ((P + 1) E|d|^(P+2) / D^(P+2) + P E|d|^(P+3) / D^(P+3))``. The
    absolute moments are bounded through the moment generating function: for every ``t > 0``,
    ``E|d|^n <= n! t^-n E[e^(t |d|)] <= 2 n! t^-n exp(s^2 (e^t - 1 - t))``, ``s^2 = m q (1 -
    q)`` (Bennett's lemma; :func:`_log_moment_bound`). ``P`` is the first of
    :data:`_ORDERS` whose remainders are below the row's targets; a component none reaches
    (``d`` not small beside ``D``: a small rank and few false positives) is summed directly
    on the window ``k -+ t`` of ``Bin(m, q)`` with ``t^2 / (2 (s^2 + t / 3)) = L``: by
    Bernstein's inequality it leaves out less than ``2 e^-L`` of the mass, and ``|g - g(k)|
    <= 1``, so ``h`` errs by less than ``2 e^-L`` and ``v`` by less than ``7 e^-L``
    (:func:`_direct_values`).

    With ``e1`` the largest error of a row's ``h`` and ``ev = sum_c w_c |error of v_c|``, the
    mean errs by at most ``e1`` and the variance by ``ev + 2 e1 sqrt(between) + e1^2``,
    ``between`` the second sum (exact arithmetic; rounding comes on top). The targets are
    :data:`_TARGET` times a guess of each row's variance (:func:`_moment_guess`); rows whose
    bound then exceeds :data:`_TARGET` times the variance found are computed again with
    targets from it, and once more, densely.
    """
    r = r.astype(float)
    k0 = np.clip(np.rint(fp_mean), 0, m)
    guess = _moment_guess(r, fp_mean, fp_var)
    mean, var, bound = _moments_to(r, q, w, m, k0, guess)
    again = np.flatnonzero(~(bound <= _TARGET * var))
    if again.size:
        floor = np.maximum(var[again] - bound[again], 0) / 4
        sub = (r[again], q[again], w[again], m, k0[again], floor)
        mean[again], var[again], bound[again] = _moments_to(*sub)
        dense = again[~(bound[again] <= _TARGET * var[again])]
        if dense.size:
            mean[dense], var[dense] = _dense_moments(r[dense], q[dense], w[dense], m)
    return mean, var


def _moment_guess(r: np.ndarray, fp_mean: np.ndarray, fp_var: np.ndarray) -> np.ndarray:
    """A guess at each row's variance of precision, meant to be low: the variance of FP times
    the squared slope of ``r / (r + j)`` three sds of FP above its mean."""
    return fp_var * np.square(r / np.square(r + fp_mean + 3 * np.sqrt(fp_var) + 1))


def _moments_to(r, q, w, m, k0, guess):
    """Mean, variance and error bound (:func:`_fast_moments`), every component's errors chosen
    for a variance of at least ``guess``: below ``_TARGET guess / 2`` on ``v`` and ``_TARGET
    sqrt(guess) / 5`` on ``h``, which keep the bound below ``_TARGET`` times the variance
    wherever it is at least ``guess``."""
    ends = (q == 0, q == 1)  # FP = 0 and FP = m exactly
    end_mass = [np.einsum("ij,ij->i", w, at) for at in ends]
    end_h = [k0 / (r + k0), r * (k0 - m) / ((r + m) * (r + k0))]  # g(0) - g0, g(m) - g0
    row, k, weight = _components(q, w, ~(ends[0] | ends[1]) & (w > 0), m)
    h, v, eh, ev = (np.zeros(k.size) for _ in range(4))
    targets = np.maximum(_TARGET * guess, _TARGET_FLOOR)
    need = (targets / 2, np.sqrt(targets) * np.sqrt(_TARGET) / 5)
    for block in range(0, k.size, _COMPONENTS):  # memory: a few arrays of 12 values each
        at = slice(block, block + _COMPONENTS)
        rows = row[at]
        h[at], v[at], eh[at], ev[at] = _component_moments(
            r[rows], k[at], k0[rows], m, need[0][rows], need[1][rows]
        )

    def per_row(values: np.ndarray) -> np.ndarray:  # sum of w * values over each row
        return np.bincount(row, weight * values, r.size).astype(float, copy=False)

    shift = per_row(h) + end_mass[0] * end_h[0] + end_mass[1] * end_h[1]
    between = per_row(np.square(h - shift[row]))
    for mass, value in zip(end_mass, end_h):
        between += mass * np.square(value - shift)
    e1 = np.zeros(r.size)
    if k.size:
        first = np.flatnonzero(np.r_[True, row[1:] != row[:-1]])  # rows ascending
        e1[row[first]] = np.maximum.reduceat(eh, first)
    var = per_row(v) + between
    bound = per_row(ev) + 2 * e1 * np.sqrt(between) + e1**2
    return np.clip(r / (r + k0) + shift, r / (r + m), 1.0), var, bound


def _components(q, w, inner, m: int):
    """The components with ``0 < q < 1`` (``inner``), equal ``q`` of a row merged: their row,
    count ``k = m q`` and weight."""
    rows, cols = np.nonzero(inner)  # row by row, q ascending
    qv = q[rows, cols]
    first = np.flatnonzero(np.r_[True, (rows[1:] != rows[:-1]) | (qv[1:] != qv[:-1])])
    first = first[first < rows.size]  # none at all: no component
    weight = np.add.reduceat(w[rows, cols], first) if first.size else np.empty(0)
    return rows[first], np.rint(qv[first] * m), weight


def _component_moments(r, k, k0, m: int, need_v, need_h):
    """``h``, ``v`` and bounds on their errors (below ``need_h``, ``need_v``) of components
    ``k / m`` of rows ``r``, ``k0``: the series of :func:`_fast_moments` to the first order of
    :data:`_ORDERS` that gets there, else directly (:func:`_direct_values`)."""
    terms, eh, ev = _orders(r, k, m, need_v, need_h)
    h, v = np.empty(k.size), np.empty(k.size)
    series = np.flatnonzero(terms)
    if series.size:
        moments, index = _moment_rows(k[series].astype(np.int64), m, terms[series])
        for size in np.unique(terms[series]).tolist():
            pick = terms[series] == size
            at = series[pick]
            columns = moments[:, : size + 2][index[pick]]  # mu_0 .. mu_(size + 1)
            h[at], v[at] = _series(r[at], k[at], k0[at], columns, size)
    direct = np.flatnonzero(terms == 0)
    if direct.size:
        # a hair above the least L, so that the rounding of the logarithm cannot cross it
        log_tail = np.log(np.maximum(2 / need_h[direct], 7 / need_v[direct])) + 1e-9
        h[direct], v[direct] = _direct_values(r[direct], k[direct], k0[direct], m, log_tail)
        eh[direct], ev[direct] = 2 * np.exp(-log_tail), 7 * np.exp(-log_tail)
    return h, v, eh, ev


def _distinct(values: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``values`` (integers in ``0..m``), ascending, and the index of each value
    among them (``np.unique`` without its sort)."""
    present = np.zeros(m + 1, dtype=bool)
    present[values] = True
    return np.flatnonzero(present), (np.cumsum(present) - 1)[values]


def _orders(r, k, m: int, need_v, need_h):
    """Per component, the first number of terms ``P`` of :data:`_ORDERS` whose remainders keep
    the errors of ``h`` and ``v`` below ``need_h`` and ``need_v`` (0: none does), and those
    errors.

    With ``c = r / D`` the remainders of :func:`_fast_moments` give ``h`` an error of at most
    ``e_h = B(P + 1)`` and ``c^2 S2`` one of at most ``(P + 1) B(P + 2) + P B(P + 3)``,
    ``B(n)`` the bound of :func:`_log_moment_bound` on ``E|X - k|^n / D^n``; as ``v = c^2 (S2 -
    S1^2)`` and ``|c S1| <= E|d| / D <= sd / D``, ``v`` errs by at most that plus ``2 (sd /
    D) e_h + e_h^2``. An order is taken when each of the three parts is below ``need_v / 3``
    (compared in logarithms); each order is tried on the components the ones before missed,
    the first only where ``sd / D <= _FIRST_ORDER_SPREAD``.
    """
    log_bound, index = _bound_rows(k.astype(np.int64), m)
    powers = _powers(_ORDERS)
    log_d = np.log(r + k)
    log_spread = np.log(2 * np.sqrt(k * (1 - k / m)) / (r + k))
    log_third, log_need_h = np.log(need_v / 3), np.log(need_h)
    terms, err_h, err_v = np.zeros(k.size, dtype=np.int64), np.ones(k.size), np.ones(k.size)
    # components whose sd is not small beside D need more terms than the first order's
    wide = log_spread > np.log(2 * _FIRST_ORDER_SPREAD)
    pending = np.flatnonzero(~wide)
    for tried, size in enumerate(_ORDERS):
        if tried == 1:
            pending = np.concatenate([pending, np.flatnonzero(wide)])
        if not pending.size:
            continue
        n = size + np.arange(1, 4)
        # the logs of the bounds on E|X - k|^n / D^n
        log_b = log_bound[:, np.searchsorted(powers, n)][index[pending]]
        log_b -= n * log_d[pending, None]
        log_h = log_b[:, 0]
        # log(a + b) <= log 2 + max(log a, log b)
        log_s2 = np.log(2) + np.maximum(np.log(size + 1) + log_b[:, 1], np.log(size) + log_b[:, 2])
        third = log_third[pending]
        done = (log_h <= log_need_h[pending]) & (log_s2 <= third) & (2 * log_h <= third)
        done &= log_spread[pending] + log_h <= third
        taken = pending[done]
        terms[taken], err_h[taken] = size, np.exp(log_h[done])
        err_v[taken] = np.exp(log_s2[done]) + np.exp(log_spread[taken]) * err_h[taken]
        err_v[taken] += err_h[taken] ** 2
        pending = pending[~done]
    return terms, err_h, err_v  # where no order does, the caller sets the direct sums' errors


@cache
def _powers(orders: tuple[int, ...]) -> np.ndarray:
    """The exponents ``P + 1``, ``P + 2``, ``P + 3`` of the orders ``P``."""
    return np.unique(np.array(orders)[:, None] + np.arange(1, 4))


def _bound_rows(k: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """The logs of :func:`_log_moment_bound` at the :func:`_powers` of :data:`_ORDERS` for the
    counts ``k``: ``table[index[i]]`` is the row of ``k[i]``."""
    if m <= _TABLE_LIMIT:
        return _binomial_tables(m, _ORDERS)[1], k
    sizes, index = _distinct(np.minimum(k, m - k), m)  # the same for k and m - k
    return _log_moment_bound(_powers(_ORDERS), (sizes * (m - sizes) / m)[:, None]), index


def _moment_rows(k: np.ndarray, m: int, terms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The central moments of ``Bin(m, k / m)`` to ``terms + 1`` at least, for the counts ``k``
    (series of ``terms`` terms): ``table[index[i]]`` is the row of ``k[i]``."""
    if m <= _TABLE_LIMIT:
        return _binomial_tables(m, _ORDERS)[0], k
    counts, index = _distinct(k, m)
    top = np.zeros(counts.size, dtype=np.int64)
    for size in _ORDERS:  # ascending: the last write at a count is its largest order
        top[index[terms == size]] = size + 1
    return _central_moments(counts, m, top), index


@lru_cache(maxsize=4)
def _binomial_tables(m: int, orders: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """For every count ``k = 0..m``: the central moments of ``Bin(m, k / m)`` to the largest
    of ``orders`` plus 1 (:func:`_central_moments`) and the logs of the moment bounds at their
    :func:`_powers` (:func:`_log_moment_bound`); rows ``0`` and ``m`` unused. Cached,
    read-only, as the rank weights: every data set of a simulation shares them."""
    k = np.arange(1, m)
    moments = np.zeros((m + 1, orders[-1] + 2))
    moments[1:m] = _central_moments(k, m, np.full(k.size, orders[-1] + 1))
    bounds = np.zeros((m + 1, _powers(orders).size))
    bounds[1:m] = _log_moment_bound(_powers(orders), (k * (m - k) / m)[:, None])
    moments.setflags(write=False)
    bounds.setflags(write=False)
    return moments, bounds


def _log_moment_bound(n: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """``log(2 n! t^-n exp(lam (e^t - 1 - t)))`` >= ``log E|X - m q|^n``, ``X ~ Bin(m, q)``,
    ``lam = m q (1 - q)``, at the ``t`` where ``t (e^t - 1) = n / lam`` (the least bound;
    Newton's steps: any ``t > 0`` gives a bound). ``E|d|^n <= n! t^-n E[e^(t |d|)]`` and, by
    Bennett's lemma (each centred Bernoulli term is at most 1 in modulus), ``E[e^(+-t d)] <=
    exp(lam (e^t - 1 - t))``."""
    ratio = n / lam
    # both starts are above the root (t (e^t - 1) >= t^2), where Newton's steps on this convex
    # increasing function go down to it monotonically
    t = np.where(ratio < 2, np.sqrt(ratio), np.log1p(ratio))
    for _ in range(3):
        grow = np.expm1(t)
        t = t - (t * grow - ratio) / (grow + t * (grow + 1))
    return np.log(2) + special.gammaln(n + 1.0) - n * np.log(t) + lam * (np.expm1(t) - t)


def _central_moments(k: np.ndarray, m: int, top: np.ndarray) -> np.ndarray:
    """``mu[i, p] = E[(X - k_i)^p]``, ``p = 0..top_i`` (0 past it), ``X ~ Bin(m, k_i / m)``.

    The cumulants of ``X`` are ``m`` times those of ``Y = B - q`` (``B`` Bernoulli), found
    from ``E[Y^j] = q (1 - q)^j + (1 - q) (-q)^j``; then the moments from the cumulants
    (``E[Y^n] = sum_i C(n - 1, i - 1) kappa_i E[Y^(n - i)]``, the same for ``X``). Rows are
    taken by decreasing ``top``, so that each step runs on a leading slice.
    """
    order = np.argsort(-top, kind="stable")
    q = k[order] / m
    most = int(top.max())
    rows = np.searchsorted(-top[order], -np.arange(most + 1), side="right")  # top >= n
    j = np.arange(most + 1)
    raw = q[:, None] * (1 - q[:, None]) ** j + (1 - q[:, None]) * (-q[:, None]) ** j  # E[Y^j]
    cumulant = np.zeros_like(raw)
    for n in range(2, most + 1):
        at = slice(0, rows[n])
        cumulant[at, n] = raw[at, n] - np.einsum(
            "ki,ki,i->k", cumulant[at, 2:n], raw[at, n - 2 : 0 : -1], _binomials(n)[1 : n - 1]
        )
    cumulant *= m
    moment = raw  # E[Y^j] is not needed any more
    moment[:, 1:] = 0.0
    for n in range(2, most + 1):
        at = slice(0, rows[n])
        moment[at, n] = np.einsum(
            "ki,ki,i->k", cumulant[at, 2 : n + 1], moment[at, n - 2 :: -1], _binomials(n)[1:]
        )
    out = np.empty_like(moment)
    out[order] = moment
    return out


@cache
def _binomials(n: int) -> np.ndarray:
    """``C(n - 1, i)``, ``i = 0..n - 1``, as floats (exact: ``n`` stays small)."""
    return np.array([math.comb(n - 1, i) for i in range(n)], dtype=float)


def _series(r, k, k0, moments, terms: int) -> tuple[np.ndarray, np.ndarray]:
    """``h`` and ``v`` (:func:`_fast_moments`) from the central moments, ``terms`` terms."""
    inverse = 1 / (r + k)
    s1, s2 = np.zeros(k.size), np.zeros(k.size)
    power = inverse * inverse
    for p in range(2, terms + 2):  # S1 to p = terms, S2 to p = terms + 1
        term = moments[:, p] * power if p % 2 == 0 else -moments[:, p] * power
        if p <= terms:
            s1 += term
        s2 += (p - 1) * term
        power *= inverse
    c = r * inverse
    return c * ((k0 - k) / (r + k0) + s1), c * c * (s2 - s1 * s1)


def _direct_values(r, k, k0, m: int, log_tail) -> tuple[np.ndarray, np.ndarray]:
    """``h`` and ``v`` (:func:`_fast_moments`) summed on the windows ``k -+ t``, ``t^2 / (2
    (s^2 + t / 3)) = L`` (``log_tail``), of ``Bin(m, k / m)``."""
    x = k / m
    t = log_tail / 3 + np.sqrt(np.square(log_tail / 3) + 2 * log_tail * k * (1 - x))
    lo = np.maximum(np.ceil(k - t), 0).astype(np.int64)
    width = np.minimum(np.floor(k + t), m).astype(np.int64) - lo + 1
    pmf = _window_pmf(x, lo, width, m)
    j = lo[:, None] + np.arange(pmf.shape[1], dtype=float)[None, :]
    gap = k[:, None] - j  # exact in floats
    ratio = gap / (r[:, None] + j)
    s1 = np.einsum("kj,kj->k", pmf, ratio)
    s2 = np.einsum("kj,kj,kj->k", pmf, ratio, ratio)
    c = r / (r + k)
    return c * ((k0 - k) / (r + k0) + s1), c * c * (s2 - s1 * s1)


def _window_pmf(x, lo, width, m):
    """``pmf[k, i] = Bin(lo_k + i; m, x_k)`` for ``i < width_k`` (0 past it), in runs of
    :data:`_RUN` values: each run starts from Boost's pmf and steps by ``b(j + 1) = b(j) (m -
    j) x / ((j + 1) (1 - x))`` (a few roundings a step, at most :data:`_RUN` steps). A run's
    first value is its least left of the mode and its largest right of it, so that an
    underflow there could only zero values below the next run's first."""
    runs = -(-int(width.max()) // _RUN)
    start = (lo[:, None] + _RUN * np.arange(runs)).ravel().astype(float)
    node = np.repeat(np.arange(x.size), runs)
    j = start[None, :] + np.arange(_RUN - 1.0)[:, None]
    ratio = np.subtract(m, j)
    ratio *= (x / (1 - x))[node]
    j += 1
    ratio /= j
    pmf = np.empty((_RUN, start.size))
    pmf[0] = np.where(start <= m, boost_binomial_pmf(np.minimum(start, m), m, x[node]), 0.0)
    for step in range(1, _RUN):  # the row-wise product: fast where cumprod is not
        np.multiply(pmf[step - 1], ratio[step - 1], out=pmf[step])
    pmf = pmf.reshape(_RUN, x.size, runs).transpose(1, 2, 0).reshape(x.size, runs * _RUN)
    pmf[np.arange(runs * _RUN)[None, :] >= width[:, None]] = 0.0
    return pmf


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
    fp_data = count_at_or_above(neg, pos_desc[ranks - 1])  # negatives >= r-th positive
    recall, precision, _ = pr_curve(pos, neg)
    return PRDistribution(
        r=ranks,
        recall=ranks / n_pos,
        precision=ranks / (ranks + fp_data),
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
    rows = ("r", "recall", "precision", "fp_mean", "fp_var", "_q", "_w")
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


def pr_ci(
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
    >>> ci = pr_ci([0.9, 0.8, 0.3, 0.6], [0.7, 0.5, 0.2, 0.1], [1, 2, 4])
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
    pmf = np.where(k <= hi[:, None], binomial_pmf(np.minimum(k, n), n, p[:, None]), 0.0)
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
        Precision: as in :func:`pr_ci` on the law given ``TP + FP > 0``, with the score
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


# the names these had before rocsim.core spoke one vocabulary (rocsim.core._deprecated)
__getattr__ = module_getattr(__name__)
