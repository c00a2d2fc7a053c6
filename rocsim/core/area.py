"""Area under the ROC curve with a confidence interval, for one classifier or for the paired
difference of two classifiers scored on the same instances.

Notation. ``x_i`` are the scores of the ``n+`` positives, ``y_j`` those of the ``n-`` negatives
and ``psi_ij = psi(x_i, y_j)`` is 1 when ``x_i > y_j``, 1/2 on a tie and 0 otherwise, so that
``AUC = sum_ij psi_ij / (n+ n-)`` (the Mann-Whitney statistic; the area under the empirical ROC
curve of :func:`rocsim.core.roc.auc`). Row and column sums ``R_i = sum_j psi_ij`` and
``C_j = sum_i psi_ij`` are ``n-`` and ``n+`` times DeLong's placement values. For the difference
of two classifiers every formula holds with ``psi = psi1 - psi2``.

Two variances of the AUC, both from these sums:

``delong``
    ``S10 / n+ + S01 / n-`` with ``S10``, ``S01`` the sample variances of the placement values
    (DeLong, DeLong & Clarke-Pearson 1988).
``exact_bootstrap``
    the variance of the AUC over the stratified bootstrap (each class resampled with
    replacement, keeping its size), in closed form: what a Monte Carlo bootstrap converges to
    as the number of resamples grows without bound. With multinomial weights ``W_i``, ``U_j``
    of a resample, ``E[W_i W_k] = a + delta_ik`` with ``a = 1 - 1/n+`` (likewise ``b`` for
    ``U``), so ``E[AUC*] = AUC`` and ::

        E[AUC*^2] = [a b T^2 + a sum_j C_j^2 + b sum_i R_i^2 + Q] / (n+ n-)^2,

    ``T = sum_ij psi_ij``, ``Q = sum_ij psi_ij^2``. Centred, the variance is a sum of
    non-negative terms (no cancellation): ::

        Var = [a SS(C) + b SS(R) + Q - T^2 / (n+ n-)] / (n+ n-)^2
            = a b (S10 / n+ + S01 / n-) + sigma_psi^2 / (n+ n-),

    ``SS`` a sum of squared deviations from the mean and ``sigma_psi^2`` the variance of
    ``psi`` over the ``n+ n-`` pairs: ``a b`` times DeLong's variance plus a term of relative
    order ``1/n``.

Everything is computed in ``O(n log n)`` from counts of
:func:`rocsim.core.counting.count_at_or_above`, in units of ``2 psi`` so that the sums are
exact integers. The paired ``Q`` needs ``sum_ij psi1_ij psi2_ij``, a count of pairs over two
orderings at once, which :func:`_discordant_across` finds with a vectorised merge-sort count.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from scipy import special

from rocsim.core._deprecated import module_getattr
from rocsim.core._validation import (
    check_choice,
    check_confidence_level,
    check_paired,
    check_two_classes,
)
from rocsim.core.auc_methods import (
    AUCData,
    AUCDifferenceData,
    PairedAUCs,
    Pivot,
    mover_interval,
    mover_p_value,
    pivot_interval,
    pivot_p_value,
)
from rocsim.core.counting import count_at_or_above
from rocsim.core.methods import MethodProtocol, check_method, method_name
from rocsim.core.registry import formulas, method_info, names
from rocsim.core.results import Result, format_p

#: Method name -> pivot of :class:`~rocsim.core.auc_methods.AUCData`: the methods of
#: :func:`auc_ci` (:mod:`rocsim.core.registry`, kind ``auc``).
AUC_INTERVAL_METHODS: dict[str, Callable[[AUCData], Pivot]] = formulas("auc")
#: Names of the variance methods of :func:`auc_ci` and :func:`auc_difference_ci`.
AUC_METHODS = names("auc_variance")
#: Methods of :func:`auc_difference_ci`: the variances, and the MOVER on score-type
#: intervals of each AUC (:func:`rocsim.core.auc_methods.mover_interval`).
AUC_DIFFERENCE_METHODS = names("auc_difference")


def _auc_probe():
    return (AUCData(0.75, 10, 12, lambda name: 0.01),), ()


def _check_pivot(output, name: str) -> Pivot:
    """A method's output as a :class:`Pivot`: itself, or the Wald pivot of a variance; a
    ``ValueError`` naming the method otherwise."""
    if isinstance(output, Pivot):
        var, z = output.var, output.z
    else:
        var, z = output, None
    try:
        var = float(var)
    except (TypeError, ValueError):
        raise ValueError(
            f"AUC method {name!r} must return a variance or a Pivot(var, z); it returned "
            f"{type(output).__name__}"
        ) from None
    if not (np.isfinite(var) and var >= 0.0):
        raise ValueError(f"AUC method {name!r} returned the variance {var}; it must be >= 0")
    if z is not None and not callable(z):
        raise ValueError(f"AUC method {name!r} returned a Pivot whose z is not callable")
    return Pivot(var, z)


#: How a method of the user's own for one AUC is called (:mod:`rocsim.core.methods`).
AUC_PROTOCOL = MethodProtocol(
    "auc", "f(data) -> var or Pivot(var, z)", _auc_probe, check=_check_pivot
)


def _difference_probe():
    return (AUCDifferenceData(0.1, 0.8, 0.7, 10, 12, lambda name: 0.01),), ()


#: How a method of the user's own for the difference of two paired AUCs is called.
AUC_DIFFERENCE_PROTOCOL = MethodProtocol(
    "auc_difference", "f(data) -> var or Pivot(var, z)", _difference_probe, check=_check_pivot
)


def pivot_test(
    pivot: Pivot, estimate: float, hypothesis: Hypothesis, level: float
) -> tuple[float, float, float]:
    """``(low, high, p_value)`` of a pivot: Wald in closed form (``z`` None), else the values
    its test does not reject (:func:`~rocsim.core.auc_methods.pivot_interval`) and its
    p-value at the null."""
    if pivot.z is None:
        low, high = hypothesis.interval(estimate, pivot.var, level)
        return low, high, hypothesis.p_value(estimate, pivot.var)
    low, high = pivot_interval(
        pivot, estimate, level, hypothesis.alternative, hypothesis.lower, hypothesis.upper
    )
    return low, high, pivot_p_value(pivot, hypothesis.null, hypothesis.alternative)


def _own_difference(pos1, pos2, neg1, neg2, method, hypothesis, level) -> AUCDifferenceCI:
    """:func:`auc_difference_ci` with a method of the user's own: its pivot on the difference,
    each variance computed when the method asks (the exact bootstrap's needs a count over the
    pairs that DeLong's does not)."""
    kernels = {}

    def variance(name: str) -> float:
        check_choice(name, AUC_METHODS, "variance")
        if name not in kernels:
            kernels[name] = _difference_kernel(pos1, pos2, neg1, neg2, name)
        return kernels[name][2].var(name)

    k1, k2, _ = kernels.setdefault("delong", _difference_kernel(pos1, pos2, neg1, neg2, "delong"))
    auc1, auc2 = k1.estimate(), k2.estimate()
    data = AUCDifferenceData(auc1 - auc2, auc1, auc2, pos1.size, neg1.size, variance)
    pivot = _check_pivot(method(data), method_name(method))
    low, high, p_value = pivot_test(pivot, auc1 - auc2, hypothesis, level)
    return AUCDifferenceCI(
        *(float(v) for v in (auc1, auc2, auc1 - auc2, pivot.var, low, high, p_value)),
        level,
        method_name(method),
        pos1.size,
        neg1.size,
        hypothesis.alternative,
        hypothesis.null,
    )


def auc_pivot(method: str | Callable, data: AUCData) -> Pivot:
    """The pivot of a checked method on ``data``: a row of :data:`AUC_INTERVAL_METHODS`, or
    the user's function (its output checked at every call, :func:`_check_pivot`)."""
    if isinstance(method, str):
        return AUC_INTERVAL_METHODS[method](data)
    return _check_pivot(method(data), method_name(method))


@dataclass(frozen=True, repr=False)
class AUCCI(Result):
    """AUC of one classifier with its variance and normal confidence interval.

    Attributes
    ----------
    auc : float
        Area under the empirical ROC curve.
    var : float
        Variance of the AUC by ``method``.
    low, high : float
        ``auc -+ z sqrt(var)``, clipped to [0, 1].
    confidence_level : float
    method : str
    n_pos, n_neg : int
        Numbers of positives and negatives.
    """

    auc: float
    var: float
    low: float
    high: float
    confidence_level: float
    method: str
    n_pos: int
    n_neg: int
    p_value: float = float("nan")
    alternative: str = "two-sided"
    null: float = 0.5

    _columns = ("auc", "var", "low", "high", "p_value")
    _settings = ("confidence_level", "method", "n_pos", "n_neg", "alternative", "null")
    _plot_kind = None

    def _summary(self) -> str:
        return (
            f"AUC {self.auc:.3f} [{self.low:.3f}, {self.high:.3f}]{hypothesis_summary(self)} "
            f"({self._level_and_method()}, n+={self.n_pos}, n-={self.n_neg})"
        )


def hypothesis_summary(result) -> str:
    """``", p = 0.003 (H1: > 0.5)"``: a result's test, for its summary (the p-value by
    :func:`~rocsim.core.results.format_p`, so every result writes it the same way)."""
    sign = {"two-sided": "!=", "greater": ">", "less": "<"}[result.alternative]
    return f", {format_p(result.p_value)} (H1: {sign} {result.null:g})"


@dataclass(frozen=True, repr=False)
class AUCDifferenceCI(Result):
    """Difference of two classifiers' AUCs on the same instances, with a normal interval.

    Attributes
    ----------
    auc1, auc2 : float
        The two AUCs.
    difference : float
        ``auc1 - auc2``.
    var : float
        Variance of the difference by ``method``.
    low, high : float
        ``difference -+ z sqrt(var)``, clipped to [-1, 1].
    p_value : float
        Normal test of ``difference = null`` against ``alternative``; with ``var = 0``, 0 when
        the difference lies in the alternative and 1 otherwise.
    confidence_level : float
    method : str
    n_pos, n_neg : int
    alternative : {"two-sided", "greater", "less"}
    null : float
    """

    auc1: float
    auc2: float
    difference: float
    var: float
    low: float
    high: float
    p_value: float
    confidence_level: float
    method: str
    n_pos: int
    n_neg: int
    alternative: str = "two-sided"
    null: float = 0.0

    _columns = ("auc1", "auc2", "difference", "var", "low", "high", "p_value")
    _settings = ("confidence_level", "method", "n_pos", "n_neg", "alternative", "null")

    def _summary(self) -> str:
        return (
            f"AUC1 - AUC2 {self.difference:+.3f} [{self.low:+.3f}, {self.high:+.3f}]"
            f"{hypothesis_summary(self)} ({self._level_and_method()}, n+={self.n_pos}, "
            f"n-={self.n_neg})"
        )


@dataclass(frozen=True)
class _Kernel:
    """Sums of a kernel ``psi`` (one classifier's, or a difference of two) in units of
    ``2 psi``, exact integers: ``rows[i] = 2 R_i``, ``cols[j] = 2 C_j``,
    ``quad = sum_ij (2 psi_ij)^2``."""

    rows: np.ndarray
    cols: np.ndarray
    quad: int

    @property
    def total(self) -> int:
        """``2 T = sum_ij 2 psi_ij``."""
        return int(self.rows.sum())

    def estimate(self) -> float:
        """``T / (n+ n-)``, rounded once (Python's int division is correctly rounded)."""
        return self.total / (2 * self.rows.size * self.cols.size)

    def var(self, method: str) -> float:
        n, m = self.rows.size, self.cols.size
        ss_rows, ss_cols = _sum_sq_dev(self.rows) / 4.0, _sum_sq_dev(self.cols) / 4.0
        if method == "delong":
            return ss_rows / (m * m * n * (n - 1)) + ss_cols / (n * n * m * (m - 1))
        # Q - T^2/(n+ n-) in exact integers: 4 (n+ n-) times it is quad n+ n- - (2T)^2
        ss_pairs = (self.quad * n * m - self.total**2) / (4 * n * m)
        a, b = 1.0 - 1.0 / n, 1.0 - 1.0 / m
        return (a * ss_cols + b * ss_rows + ss_pairs) / (n * n * m * m)


def _sum_sq_dev(values: np.ndarray) -> float:
    """Sum of squared deviations from the mean (centred first: no cancellation)."""
    dev = values - values.mean()
    return float(np.dot(dev, dev))


def _counts_above(scores: np.ndarray, thresholds: np.ndarray):
    """``(#{scores >= t}, #{scores > t})`` for every ``t`` of ``thresholds``, in its order."""
    # count_at_or_above looks the thresholds up in the sorted scores; in ascending order the
    # look-ups walk memory forwards, several times faster than random order at n = 10^6
    order = np.argsort(thresholds)
    ascending = thresholds[order]
    at_or_above, above = np.empty((2, thresholds.size), dtype=np.int64)
    at_or_above[order] = count_at_or_above(scores, ascending)
    # no float lies strictly between t and the next float up, so ">= next" is exactly "> t"
    above[order] = count_at_or_above(scores, np.nextafter(ascending, np.inf))
    return at_or_above, above


def _kernel(pos: np.ndarray, neg: np.ndarray) -> _Kernel:
    """Sums of ``psi`` for one classifier, ``O(n log n)``."""
    neg_ge, neg_gt = _counts_above(neg, pos)
    pos_ge, pos_gt = _counts_above(pos, neg)
    # 2 psi = [x > y] + [x >= y]; its square is 4 above and 1 on a tie: 3 [x > y] + [x >= y]
    return _Kernel(
        rows=2 * neg.size - neg_ge - neg_gt,
        cols=pos_ge + pos_gt,
        quad=int(3 * pos_gt.sum() + pos_ge.sum()),
    )


def _difference_kernel(pos1, pos2, neg1, neg2, method: str):
    """Kernels of both classifiers and of ``psi1 - psi2``."""
    k1, k2 = _kernel(pos1, neg1), _kernel(pos2, neg2)
    # DeLong needs no Q; skip the cross count
    cross = _cross_sum(pos1, pos2, neg1, neg2, k1, k2) if method == "exact_bootstrap" else 0
    diff = _Kernel(k1.rows - k2.rows, k1.cols - k2.cols, k1.quad + k2.quad - 2 * cross)
    return k1, k2, diff


def polarized_covariance(
    variances, difference_variance: Callable[[int, int], float]
) -> np.ndarray:
    """The ``K x K`` covariance of ``K`` statistics on the same data from their ``variances``
    and each pair's ``difference_variance(i, j)``, the variance of statistic ``i`` minus
    statistic ``j``: ``cov[i, j] = (var_i + var_j - var(i - j)) / 2``, exact for a variance
    that is a quadratic form (DeLong's, the exact bootstrap's), and the variance of every
    difference read from the matrix is the one given.

    Examples
    --------
    >>> polarized_covariance([4.0, 1.0], lambda i, j: 3.0)
    array([[4., 1.],
           [1., 1.]])
    """
    cov = np.diag(np.asarray(variances, dtype=float))
    for i, j in combinations(range(cov.shape[0]), 2):
        cov[i, j] = cov[j, i] = (cov[i, i] + cov[j, j] - difference_variance(i, j)) / 2
    return cov


#: Up to this many (positive, negative) pairs, :func:`_cross_sum` sums over them all at once:
#: there the ``n log n`` count's per-level overhead costs more than the ``n+ n-`` sum.
DENSE_PAIRS = 2**14


def _cross_sum(pos1, pos2, neg1, neg2, k1: _Kernel, k2: _Kernel, dense: bool | None = None) -> int:
    """``sum_ij (2 psi1_ij)(2 psi2_ij)``.

    With ``d = sign(x - y)``, ``2 psi = 1 + d``, so the sum is
    ``n+ n- + sum d1 + sum d2 + sum d1 d2`` and ``sum d = 2T - n+ n-``. ``dense`` (default:
    up to :data:`DENSE_PAIRS` pairs) sums ``(1 + d1)(1 + d2)`` over every pair instead
    (integers, held exactly in floats below ``2^53``).
    """
    pairs = pos1.size * neg1.size
    if pairs <= DENSE_PAIRS if dense is None else dense:
        d1 = np.sign(pos1[:, None] - neg1[None, :])
        d2 = np.sign(pos2[:, None] - neg2[None, :])
        return int(((1.0 + d1) * (1.0 + d2)).sum())
    return k1.total + k2.total - pairs + _sign_concordance(pos1, pos2, neg1, neg2, k1, k2)


def _sign_concordance(pos1, pos2, neg1, neg2, k1: _Kernel, k2: _Kernel) -> int:
    """``sum_ij sign(x1_i - y1_j) sign(x2_i - y2_j)``: Knight's (1966) algorithm for Kendall's
    tau with ties, over the pairs of one positive and one negative only."""
    n = pos1.size + neg1.size
    rank1 = np.unique(np.concatenate([pos1, neg1]), return_inverse=True)[1]
    rank2 = np.unique(np.concatenate([pos2, neg2]), return_inverse=True)[1]
    key = rank1.astype(np.int64) * n + rank2
    order = np.argsort(key)
    is_pos = order < pos1.size
    # Sorted by (rank1, rank2), a pair with different rank1 adds +1, 0 or -1 as rank2 rises,
    # stays or falls; pairs tied under classifier 1 add 0.
    # tied pairs: 2 sum 2 psi - sum (2 psi)^2 = (4 #above + 2 #ties) - (4 #above + #ties)
    ties1, ties2 = 2 * k1.total - k1.quad, 2 * k2.total - k2.quad
    split = pos1.size * neg1.size - ties1  # pairs ordered by classifier 1
    tied2_only = ties2 - _tied_across(key[order], is_pos)
    return split - tied2_only - 2 * _discordant_across(rank2[order], is_pos)


def _tied_across(sorted_keys: np.ndarray, is_pos: np.ndarray) -> int:
    """Pairs (positive, negative) with equal keys, for keys in sorted order."""
    starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
    sizes = np.diff(np.r_[starts, sorted_keys.size])
    pos = np.add.reduceat(is_pos.astype(np.int64), starts)
    return int(np.dot(pos, sizes - pos))


def _discordant_across(values: np.ndarray, is_pos: np.ndarray) -> int:
    """``#{i < j : values_i > values_j, is_pos_i != is_pos_j}`` in ``O(n log n)``.

    A vectorised merge-sort count. Every pair ``i < j`` is split at exactly one level ``k``:
    ``i`` and ``j`` share ``position >> (k + 1)`` (a *block*), ``i`` is in its left half and
    ``j`` in its right half. The instances are kept grouped by block and, inside a block,
    ordered by decreasing value (ties: decreasing position, so equal values never count);
    then the left-half instances of the other class before ``j`` are the ones to count. Going
    down a level is a stable partition of every block into its halves.
    """
    n = values.size
    dtype = np.int32 if 2 * n < 2**31 else np.int64  # half the memory traffic of int64
    # decreasing (value, position): sort the packed keys (np.sort is faster than argsort)
    packed = np.sort(values.astype(np.int64) * n + np.arange(n))[::-1]
    position = packed % n
    state = (2 * position + is_pos[position]).astype(dtype)  # position, class in the low bit
    index = np.arange(n, dtype=dtype)
    total = 0
    for k in reversed(range(max(n - 1, 1).bit_length())):
        count, state = _split_level(state, index, k)
        total += count
    return total


def _split_level(state: np.ndarray, index: np.ndarray, k: int):
    """Count the pairs split at level ``k`` and partition every block into its halves."""
    n, step = state.size, 1 << (k + 1)
    half_id = state >> (k + 1)  # position >> k
    right = half_id & 1
    cls = state & 1
    left = right ^ 1
    left_before = np.cumsum(left, dtype=state.dtype)  # left-half instances up to here
    left_pos_before = np.cumsum(left & cls, dtype=state.dtype)
    # every earlier block is full, so it holds 2^k left instances; positives vary: look up
    block_left = (half_id >> 1) << k
    firsts = np.concatenate(([0], left_pos_before[step - 1 : n - 1 : step])).astype(state.dtype)
    block_left_pos = np.repeat(firsts, step)[:n]  # blocks are contiguous and in order
    pos_here = left_pos_before - block_left_pos
    neg_here = left_before - block_left - pos_here
    # a right-half positive pairs with the negatives before it, a negative with the positives
    count = int((right * (pos_here + cls * (neg_here - pos_here))).sum(dtype=np.int64))
    if k == 0:
        return count, state
    # stable partition: left instances keep their order at the block start, right ones follow
    rank_left = left_before - 1 - block_left
    rank_right = index - left_before - block_left
    dest = (half_id << k) + rank_left + right * (rank_right - rank_left)
    out = np.empty_like(state)
    out[dest] = state
    return count, out


#: The alternatives of an AUC's interval and test (scipy's names): ``greater`` asks whether
#: the AUC (difference) exceeds the null, with the interval ``[low, upper end]``.
ALTERNATIVES = ("two-sided", "greater", "less")


def normal_interval(
    estimate: float,
    var: float,
    level: float,
    lower: float,
    upper: float,
    alternative: str = "two-sided",
    df: float = np.inf,
) -> tuple[float, float]:
    """``estimate -+ z sqrt(var)`` clipped to ``[lower, upper]``; one-sided, one bound at
    ``z_level`` and the other the end of the range (the two-sided bound at twice the alpha).
    ``z`` is the normal quantile, or Student's t on ``df`` degrees of freedom where finite."""
    sd = float(np.sqrt(var))
    if alternative == "two-sided":
        half = _quantile(0.5 + level / 2, df) * sd
        return max(estimate - half, lower), min(estimate + half, upper)
    half = _quantile(level, df) * sd
    if alternative == "greater":
        return max(estimate - half, lower), upper
    return lower, min(estimate + half, upper)


def _quantile(p: float, df: float) -> float:
    """The normal quantile, or Student's t on ``df`` degrees of freedom where finite."""
    return float(special.ndtri(p) if np.isinf(df) else special.stdtrit(df, p))


def normal_p_value(
    difference: float, var: float, alternative: str = "two-sided", df: float = np.inf
) -> float:
    """Normal p-value (Student's t on ``df`` degrees of freedom where finite) of
    ``difference = 0`` (an estimate less its null) with variance ``var`` against
    ``alternative``; with ``var = 0`` the estimate is sure: 0 where it lies in the
    alternative, 1 elsewhere (:meth:`Hypothesis.p_value` reads a sure estimate at the null)."""
    if var > 0:
        t = difference / float(np.sqrt(var))

        def below(x: float) -> float:
            return float(special.ndtr(x) if np.isinf(df) else special.stdtr(df, x))

        tails = {"two-sided": 2.0 * below(-abs(t)), "greater": below(-t)}
        return float(tails.get(alternative, below(t)))
    away = {"two-sided": difference != 0, "greater": difference > 0, "less": difference < 0}
    return 0.0 if away[alternative] else 1.0


@dataclass(frozen=True)
class Hypothesis:
    """An AUC's alternative and null value, checked once: its interval and its p-value agree
    (``p < alpha`` exactly when the null lies outside the interval at level ``1 - alpha``, both
    on the same variance)."""

    alternative: str
    null: float
    lower: float
    upper: float

    def interval(
        self, estimate: float, var: float, level: float, df: float = np.inf
    ) -> tuple[float, float]:
        return normal_interval(estimate, var, level, self.lower, self.upper, self.alternative, df)

    def p_value(self, estimate: float, var: float, df: float = np.inf) -> float:
        """The normal p-value (:func:`normal_p_value`); a sure estimate at the null against a
        one-sided alternative the parameter can take has its statistic on the boundary:
        1/2, as pROC's ``roc.test`` reports two identical classifiers (an alternative beyond
        the range, such as an AUC above 1, keeps 1)."""
        if var == 0 and estimate == self.null and self.alternative != "two-sided":
            room = (
                self.null < self.upper if self.alternative == "greater" else self.null > self.lower
            )
            return 0.5 if room else 1.0
        return normal_p_value(estimate - self.null, var, self.alternative, df)


def check_hypothesis(alternative: str, null, lower: float, upper: float) -> Hypothesis:
    """``alternative`` one of :data:`ALTERNATIVES`, ``null`` a number in ``[lower, upper]``
    (the range of the AUC, or of a difference)."""
    check_choice(alternative, ALTERNATIVES, "alternative")
    if isinstance(null, bool) or not isinstance(null, (int, float, np.integer, np.floating)):
        raise ValueError(f"null must be a number in [{lower:g}, {upper:g}], got {null!r}")
    if not lower <= float(null) <= upper:
        raise ValueError(f"null must be in [{lower:g}, {upper:g}], got {null!r}")
    return Hypothesis(alternative, float(null), lower, upper)


def _check_method(method: str | Callable, n_pos: int, n_neg: int, kind: str) -> str | Callable:
    """``method`` one of ``kind``'s (:mod:`rocsim.core.registry`), or a function of its
    protocol (:data:`AUC_PROTOCOL`, :data:`AUC_DIFFERENCE_PROTOCOL`), with the instances per
    class it needs."""
    protocol = AUC_PROTOCOL if kind == "auc" else AUC_DIFFERENCE_PROTOCOL
    method = check_method(method, names(kind), protocol, "AUC method")
    needs = getattr(method_info(kind, method), "min_per_class", 1)
    if min(n_pos, n_neg) < needs:
        raise ValueError(
            f"method={method!r} needs at least {needs} positives and {needs} negatives "
            f"(sample variances of placements), got {n_pos} and {n_neg}"
        )
    return method


def auc_ci(
    pos_scores,
    neg_scores,
    *,
    confidence_level: float = 0.95,
    method: str = "delong",
    alternative: str = "two-sided",
    null: float = 0.5,
) -> AUCCI:
    """AUC of a classifier on a test set with a normal confidence interval.

    Parameters
    ----------
    pos_scores, neg_scores : array-like of shape (n+,) and (n-,)
        Finite scores of the positive and the negative instances; higher means more likely
        positive, ties count one half.
    confidence_level : float, default 0.95
        Coverage the interval aims at, in (0, 1).
    method : {"delong", "exact_bootstrap", "hanley_mcneil", "logit", "newcombe"} or callable, \
default "delong"
        ``delong``: the Wald interval on the variance of DeLong et al. (1988), ``S10/n+ +
        S01/n-`` (needs two instances per class). ``exact_bootstrap``: on the exact variance of
        the AUC over stratified bootstrap resamples, i.e. the limit of a Monte Carlo bootstrap
        with infinitely many resamples, computed in closed form without resampling.
        ``hanley_mcneil``, ``logit``, ``newcombe``: the intervals of
        :mod:`rocsim.core.auc_methods`, for small samples and AUCs near 1. A function
        ``f(data) -> var`` or ``-> Pivot(var, z)`` on an
        :class:`~rocsim.core.auc_methods.AUCData` is a method of your own
        (:data:`AUC_PROTOCOL`).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        ``greater``: the one-sided interval ``[low, 1]`` (``low`` the two-sided bound at twice
        the alpha) and the test of ``AUC <= null`` against ``AUC > null`` (``less`` the other
        way round).
    null : float, default 0.5
        The AUC under the null hypothesis (0.5: no better than chance).

    Returns
    -------
    AUCCI
        ``auc``, ``var`` (the method's) and the interval: Wald, ``low, high = auc -+ z
        sqrt(var)`` clipped to [0, 1], with ``z`` the two-sided standard normal quantile at
        ``confidence_level`` (one-sided: one bound at ``z_level``, the other 0 or 1); ``p_value``
        of the method's test, so that ``p < 1 - confidence_level`` exactly when ``null`` is
        outside ``[low, high]``.

    References
    ----------
    DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). Comparing the areas under two
    or more correlated receiver operating characteristic curves: a nonparametric approach.
    Biometrics 44(3), 837-845.

    Examples
    --------
    >>> r = auc_ci([0.9, 0.8, 0.4], [0.7, 0.4, 0.1], method="exact_bootstrap")
    >>> r.auc, round(r.var, 6)
    (0.8333333333333334, 0.028807)
    """
    pos, neg = check_two_classes(pos_scores, neg_scores)
    level = check_confidence_level(confidence_level)
    method = _check_method(method, pos.size, neg.size, "auc")
    hypothesis = check_hypothesis(alternative, null, 0.0, 1.0)
    # the AUC and both variances are symmetric in the instances of a class: sorting first
    # makes the threshold sorts inside _kernel near-free
    kernel = _kernel(np.sort(pos), np.sort(neg))
    auc = kernel.estimate()
    data = AUCData(auc, pos.size, neg.size, kernel.var)
    pivot = auc_pivot(method, data)
    low, high, p_value = pivot_test(pivot, auc, hypothesis, level)
    return AUCCI(
        float(auc),
        float(pivot.var),
        float(low),
        float(high),
        level,
        method_name(method),
        pos.size,
        neg.size,
        p_value,
        hypothesis.alternative,
        hypothesis.null,
    )


def auc_difference_ci(
    pos1,
    pos2,
    neg1,
    neg2,
    *,
    confidence_level: float = 0.95,
    method: str = "delong",
    alternative: str = "two-sided",
    null: float = 0.0,
) -> AUCDifferenceCI:
    """Difference of the AUCs of two classifiers scored on the same instances.

    Parameters
    ----------
    pos1, pos2 : array-like of shape (n+,)
        ``pos1[i]`` and ``pos2[i]`` are the two classifiers' scores of positive ``i``.
    neg1, neg2 : array-like of shape (n-,)
        Likewise for the negatives.
    confidence_level : float, default 0.95
        Coverage the interval aims at, in (0, 1).
    method : {"delong", "exact_bootstrap", "mover"} or callable, default "delong"
        ``delong``: ``var1 + var2 - 2 cov`` from the covariance matrices of the placement
        values (DeLong et al. 1988). ``mover``: Zou & Donner's (2008) interval recovered
        from each AUC's score interval, with DeLong's correlation
        (:func:`rocsim.core.auc_methods.mover_interval`; ``var`` is DeLong's, ``p_value``
        inverts the interval); :func:`rocsim.compare_auc`'s default, the one the
        ``auc_paired`` study found to hold its level. ``exact_bootstrap``: the exact variance of
        ``AUC1* - AUC2*`` over stratified bootstrap resamples of the instances (both scores of
        an instance travel together), the limit of a Monte Carlo bootstrap with infinitely
        many resamples; ``O(n log n)``. A function ``f(data) -> var`` or ``-> Pivot(var,
        z)`` on an :class:`~rocsim.core.auc_methods.AUCDifferenceData` is a method of your own
        (:data:`AUC_DIFFERENCE_PROTOCOL`; ``z`` on candidate differences in [-1, 1]).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        ``greater``: the interval ``[low, 1]`` and the test of ``AUC1 - AUC2 > null``.
    null : float, default 0.0
        The difference under the null hypothesis.

    Returns
    -------
    AUCDifferenceCI
        ``difference = auc1 - auc2``, its ``var``, ``low, high`` clipped to [-1, 1] and the
        ``p_value`` of ``(difference - null) / sqrt(var)`` under the standard normal.

    References
    ----------
    DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). Comparing the areas under two
    or more correlated receiver operating characteristic curves: a nonparametric approach.
    Biometrics 44(3), 837-845.
    Knight, W. R. (1966). A computer method for calculating Kendall's tau with ungrouped data.
    JASA 61(314), 436-439 (the count of the paired exact bootstrap).

    Examples
    --------
    >>> r = auc_difference_ci([0.9, 0.8, 0.4], [0.6, 0.8, 0.5], [0.7, 0.4, 0.1],
    ...                             [0.7, 0.2, 0.1], method="exact_bootstrap")
    >>> round(r.difference, 6), round(r.var, 6), round(r.p_value, 4)
    (0.055556, 0.034294, 0.7642)
    """
    pos1, pos2, neg1, neg2 = check_paired(pos1, pos2, neg1, neg2)
    level = check_confidence_level(confidence_level)
    method = _check_method(method, pos1.size, neg1.size, "auc_difference")
    hypothesis = check_hypothesis(alternative, null, -1.0, 1.0)
    if callable(method):
        return _own_difference(pos1, pos2, neg1, neg2, method, hypothesis, level)
    variance = "delong" if method == "mover" else method
    k1, k2, diff = _difference_kernel(pos1, pos2, neg1, neg2, variance)
    auc1, auc2, var = k1.estimate(), k2.estimate(), diff.var(variance)
    difference = auc1 - auc2
    if method == "mover":
        var1, var2 = k1.var("delong"), k2.var("delong")
        cov = (var1 + var2 - var) / 2
        paired = PairedAUCs(auc1, auc2, var1, var2, cov, pos1.size, neg1.size)
        low, high = mover_interval(paired, level, hypothesis.alternative)
        p_value = mover_p_value(paired, hypothesis.null, hypothesis.alternative)
    else:
        low, high = hypothesis.interval(difference, var, level)
        p_value = hypothesis.p_value(difference, var)
    return AUCDifferenceCI(
        *(float(v) for v in (auc1, auc2, difference, var, low, high, p_value)),
        level,
        method,
        pos1.size,
        neg1.size,
        hypothesis.alternative,
        hypothesis.null,
    )


# the names these had before rocsim.core spoke one vocabulary (rocsim.core._deprecated)
__getattr__ = module_getattr(__name__)
