"""Exact coverage of intervals built on binomial counts (:ref:`reading-coverage`).

When the sampling law of the counts is known, the coverage probability of an interval
procedure is a finite sum: ``sum_x Pr{X = x} 1[low(x) <= p <= high(x)]``. For threshold
averaging with a stratified test set, ``X+ ~ Bin(n+, S+(t))`` and ``X- ~ Bin(n-, S-(t))`` are
independent, so the coverage of the rectangle is the product of the two axes' coverages
(thesis section 4.5.1: ``0.8390 x 0.9487 = 0.7960``).

Sums run over the counts whose probability exceeds ``1e-17`` (the rest of the mass is below
``2e-17`` per axis), so results are exact to about 1e-15.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from rocsim.core._validation import (
    SCHEMES,
    as_real_array,
    check_choice,
    check_conditions,
    check_confidence_level,
)
from rocsim.core.binomial import binomial_ppf
from rocsim.core.cost import (
    COST_METHODS,
    cost_bounds_from_counts,
    cost_target,
)
from rocsim.core.intervals import (
    PROPORTION_PROTOCOL,
    check_proportion_method,
    check_pseudo_count,
)
from rocsim.core.methods import check_method
from rocsim.core.registry import DEFAULT_METHODS
from rocsim.core.results import Result
from rocsim.core.threshold import (
    binomial_pmf,
    effective_sizes,
    rate_intervals,
)

#: Probability mass left out at each tail of a binomial sum.
TAIL_MASS = 1e-17

IntervalOfCounts = Callable[[np.ndarray, int], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True, repr=False)
class AxisCoverage(Result):
    """Exact operating characteristics of an interval procedure at each grid point.

    ``cover`` = Pr{low <= p <= high}; ``below`` = Pr{p < low}; ``above`` = Pr{p > high};
    ``width`` = E[high - low].
    """

    cover: np.ndarray
    below: np.ndarray
    above: np.ndarray
    width: np.ndarray

    _columns = ("cover", "below", "above", "width")
    _settings = ()

    def _summary(self) -> str:
        cover = np.asarray(self.cover)
        return (
            f"exact coverage at {cover.size} points: {cover.min():.4f} to {cover.max():.4f}, "
            f"mean width {np.mean(self.width):.4f}"
        )


def binomial_coverage(trials: int, p_true, interval: IntervalOfCounts) -> AxisCoverage:
    """Exact coverage of ``interval`` for ``X ~ Bin(trials, p)`` at each ``p`` in ``p_true``.

    Parameters
    ----------
    trials : int
        Number of binomial trials.
    p_true : array-like of shape (g,)
        True proportions; each is also the target the interval should contain.
    interval : callable
        ``interval(x, trials) -> (low, high)`` for an integer array ``x`` of shape (g, w).

    Returns
    -------
    AxisCoverage

    Examples
    --------
    >>> from rocsim.core.intervals import interval_from_counts
    >>> score = lambda x, n: tuple(interval_from_counts(x, n, 0.9 ** 0.5, "score", None))
    >>> round(float(binomial_coverage(10000, [1.7549e-5], score).cover[0]), 4)
    0.839
    """
    integral = isinstance(trials, numbers.Real) and float(trials).is_integer()
    if isinstance(trials, bool) or not integral or trials < 1:
        raise ValueError(f"trials must be a positive integer, got {trials!r}")
    p = np.atleast_1d(as_real_array(p_true, "p_true"))
    if p.ndim != 1 or not np.all((p >= 0) & (p <= 1)):  # also rejects NaN
        raise ValueError("p_true must be a 1-D array of proportions in [0, 1]")
    if not callable(interval):
        raise TypeError(f"interval must be callable as interval(x, trials), got {interval!r}")
    x, pmf = binomial_support(trials, p)
    low, high = interval(x, trials)
    target = p[:, None]
    return AxisCoverage(
        cover=np.sum(pmf * ((low <= target) & (target <= high)), axis=1),
        below=np.sum(pmf * (target < low), axis=1),
        above=np.sum(pmf * (target > high), axis=1),
        width=np.sum(pmf * (high - low), axis=1),
    )


def binomial_support(trials: int, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Counts ``x`` of shape (g, width) covering all but ``TAIL_MASS`` of each tail of
    ``Bin(trials, p[g])``, and their probabilities (0 on the padding beyond a row's range)."""
    lo = binomial_ppf(TAIL_MASS, trials, p)
    # the upper end as the lower end of trials - X ~ Bin(trials, 1 - p): scipy's isf of so
    # small a mass computes ppf(1 - mass) = ppf(1), which is trials whatever p
    hi = trials - binomial_ppf(TAIL_MASS, trials, 1 - p)
    lo = np.nan_to_num(lo, nan=0.0).astype(np.int64)
    hi = np.nan_to_num(hi, nan=trials).astype(np.int64)
    width = int(np.max(hi - lo)) + 1
    x = lo[:, None] + np.arange(width)[None, :]
    inside = x <= hi[:, None]
    x = np.minimum(x, trials)
    # the pmf where it is used only (the same values: it is computed entry by entry)
    pmf = np.zeros(x.shape)
    pmf[inside] = binomial_pmf(x[inside], trials, np.broadcast_to(p[:, None], x.shape)[inside])
    return x, pmf


def _extent(pmf: np.ndarray) -> int:
    """Length of the shortest prefix of ``pmf`` holding all its non-zero entries."""
    nonzero = np.flatnonzero(pmf)
    return int(nonzero[-1]) + 1 if nonzero.size else 0


@dataclass(frozen=True, repr=False)
class RectangleCoverage(Result):
    """Exact coverage of threshold-averaging rectangles, per grid point.

    ``below``/``above``: the target lies below/above the rectangle on at least one axis.
    """

    cover: np.ndarray
    below: np.ndarray
    above: np.ndarray
    tpr: AxisCoverage
    fpr: AxisCoverage

    _settings = ()

    def _column_values(self) -> dict:
        axes = {
            f"{axis}_{k}": getattr(getattr(self, axis), k)
            for axis in ("tpr", "fpr")
            for k in AxisCoverage._columns
        }
        return {"cover": self.cover, "below": self.below, "above": self.above} | axes

    def _summary(self) -> str:
        cover = np.asarray(self.cover)
        return (
            f"exact rectangle coverage at {cover.size} points: {cover.min():.4f} to "
            f"{cover.max():.4f}"
        )


def threshold_exact_coverage(
    tpr_true,
    fpr_true,
    n_pos: int,
    n_neg: int,
    *,
    confidence_level: float,
    method: str,
    pseudo_count: float | None = None,
    bootstrap: str = "stratified",
    sampling: str = "stratified",
) -> RectangleCoverage:
    """Exact coverage of the rectangles of :func:`rocsim.core.threshold_ci` at true thresholds.

    Parameters
    ----------
    tpr_true, fpr_true : array-like of shape (g,)
        True ``S+(t)`` and ``S-(t)`` at the thresholds of the grid.
    n_pos, n_neg : int
        Class sizes of the test set (``sampling="full"``: their sum is the test set size and
        ``n_pos / (n_pos + n_neg)`` the probability of a positive).
    confidence_level : float
        Level of the rectangle; each axis at its square root.
    method, pseudo_count : interval method and its pseudo-count.
    bootstrap : {"stratified", "full"}
        Bootstrap law the intervals are built from.
    sampling : {"stratified", "full"}
        How the test set is drawn. ``full``: ``N+ ~ Bin(n, pi)`` redrawn while a class is
        empty; the coverage is then averaged over ``N+``.

    Returns
    -------
    RectangleCoverage
    """
    parts = threshold_exact_parts(
        tpr_true,
        fpr_true,
        n_pos,
        n_neg,
        confidence_level=confidence_level,
        method=method,
        pseudo_count=pseudo_count,
        bootstrap=bootstrap,
        sampling=sampling,
    )
    return mix_rectangles(parts, sampling_class_sizes(n_pos, n_neg, sampling)[1])


def sampling_class_sizes(n_pos: int, n_neg: int, sampling: str):
    """Class sizes ``[(n+, n-), ...]`` a test set drawn by ``sampling`` may have, and their
    probabilities: the one pair under stratified sampling; under full sampling every ``N+`` of
    probability above :data:`TAIL_MASS` (:func:`threshold_exact_coverage`)."""
    _check_sizes(n_pos, n_neg)
    check_choice(sampling, SCHEMES, "sampling scheme")
    if sampling == "stratified":
        return [(n_pos, n_neg)], np.ones(1)
    return _full_sampling_class_sizes(n_pos, n_neg)


def threshold_exact_parts(
    tpr_true,
    fpr_true,
    n_pos: int,
    n_neg: int,
    *,
    confidence_level: float,
    method: str,
    pseudo_count: float | None = None,
    bootstrap: str = "stratified",
    sampling: str = "stratified",
    sizes: slice = slice(None),
) -> list[tuple[AxisCoverage, AxisCoverage]]:
    """The exact coverage of each axis, ``(tpr, fpr)``, for a test set of each class size
    ``sampling_class_sizes(n_pos, n_neg, sampling)[0][sizes]``: the parts that
    :func:`threshold_exact_coverage` averages (:func:`mix_rectangles`). Arguments as there;
    the parts of different class sizes do not depend on each other, so a simulation study
    computes them side by side."""
    confidence_level = check_confidence_level(confidence_level)
    method = check_proportion_method(method)
    pseudo_count = check_pseudo_count(method, pseudo_count)
    check_choice(bootstrap, SCHEMES, "bootstrap scheme")
    check_choice(sampling, SCHEMES, "sampling scheme")
    tpr_true = _check_rates(tpr_true, "tpr_true")
    fpr_true = _check_rates(fpr_true, "fpr_true")
    if tpr_true.shape != fpr_true.shape:
        raise ValueError(
            f"tpr_true and fpr_true differ in shape: {tpr_true.shape} != {fpr_true.shape}"
        )
    class_sizes = sampling_class_sizes(n_pos, n_neg, sampling)[0][sizes]
    axis_level = float(np.sqrt(confidence_level))

    def axis(trials, other, truth, positive):
        eff = effective_sizes(*((trials, other) if positive else (other, trials)), bootstrap)
        size = eff[0] if positive else eff[1]

        def interval(x, n):
            if isinstance(method, str) and x.size and x.min() >= 0 and x.max() <= n:
                # a built-in method's interval is a function of the count alone: computed
                # once per count 0..n and looked up (the same values as on x itself)
                ci = rate_intervals(np.arange(n + 1), n, size, axis_level, method, pseudo_count)
                return ci.low[x], ci.high[x]
            ci = rate_intervals(x, n, size, axis_level, method, pseudo_count)
            return ci.low, ci.high

        return binomial_coverage(trials, truth, interval)

    parts = []
    for k_pos, k_neg in class_sizes:
        tpr_cov = axis(k_pos, k_neg, tpr_true, positive=True)
        fpr_cov = axis(k_neg, k_pos, fpr_true, positive=False)
        parts.append((tpr_cov, fpr_cov))
    return parts


def _check_rates(values, name: str) -> np.ndarray:
    rates = np.atleast_1d(np.asarray(values, dtype=float))
    if rates.ndim != 1 or not np.all((rates >= 0) & (rates <= 1)):
        raise ValueError(f"{name} must be a 1-D array of rates in [0, 1]")
    return rates


def _check_sizes(n_pos, n_neg) -> None:
    for name, size in (("n_pos", n_pos), ("n_neg", n_neg)):
        if isinstance(size, bool) or int(size) != size or size < 1:
            raise ValueError(f"{name} must be a positive integer, got {size!r}")


def _full_sampling_class_sizes(n_pos: int, n_neg: int):
    n = n_pos + n_neg
    k = np.arange(1, n)
    prob = binomial_pmf(k, n, n_pos / n)
    prob /= prob.sum()
    keep = prob > TAIL_MASS
    return [(int(kk), int(n - kk)) for kk in k[keep]], prob[keep]


def mix_rectangles(parts, weights) -> RectangleCoverage:
    """The rectangles' exact coverage: the :func:`threshold_exact_parts` of every class size
    (in the order of :func:`sampling_class_sizes`) averaged with their ``weights``."""

    def mix(values):
        return np.tensordot(weights, np.stack(values), axes=1)

    def mix_axis(axes):
        fields = AxisCoverage.__annotations__
        return AxisCoverage(*(mix([getattr(a, f) for a in axes]) for f in fields))

    tprs, fprs = [p[0] for p in parts], [p[1] for p in parts]
    return RectangleCoverage(
        cover=mix([t.cover * f.cover for t, f in parts]),
        below=mix([1 - (1 - t.below) * (1 - f.below) for t, f in parts]),
        above=mix([1 - (1 - t.above) * (1 - f.above) for t, f in parts]),
        tpr=mix_axis(tprs),
        fpr=mix_axis(fprs),
    )


def cost_exact_coverage(
    tpr_true,
    fpr_true,
    w,
    n_pos: int,
    n_neg: int,
    *,
    confidence_level: float,
    method: str | Callable = DEFAULT_METHODS["cost"],
    pseudo_count: float | None = None,
    bootstrap: str = "stratified",
) -> AxisCoverage:
    """Exact coverage of :func:`rocsim.core.cost_ci` at fixed thresholds, stratified test sets.

    With ``TP ~ Bin(n+, S+(t))`` and ``FP ~ Bin(n-, S-(t))`` independent, the coverage at each
    grid point is ``sum_{x, y} Pr{TP = x} Pr{FP = y} 1[low(x, y) <= c <= high(x, y)]``, where
    ``c`` is the true value of the statistic (:func:`rocsim.core.cost.cost_target`).

    Parameters
    ----------
    tpr_true, fpr_true : array-like of shape (g,)
        True ``S+(t)``, ``S-(t)`` at the threshold of each grid point.
    w : array-like of shape (g,)
        Operating condition of each grid point.
    n_pos, n_neg : int
        Class sizes of the (stratified) test set.
    confidence_level, method, pseudo_count, bootstrap
        As in :func:`rocsim.core.cost_ci`.

    Returns
    -------
    AxisCoverage
        ``cover``, ``below``, ``above`` and the expected width per grid point.
    """
    level = check_confidence_level(confidence_level)
    method = check_method(method, COST_METHODS, PROPORTION_PROTOCOL, "cost interval method")
    a = check_pseudo_count(method, pseudo_count)
    check_choice(bootstrap, SCHEMES, "bootstrap scheme")
    tpr_true, fpr_true = _check_rates(tpr_true, "tpr_true"), _check_rates(fpr_true, "fpr_true")
    w = check_conditions(w)
    if not tpr_true.shape == fpr_true.shape == w.shape:
        raise ValueError("tpr_true, fpr_true and w must have the same shape")
    _check_sizes(n_pos, n_neg)
    target = cost_target(w, tpr_true, fpr_true, n_pos / (n_pos + n_neg), bootstrap)
    x, px = binomial_support(n_pos, tpr_true)
    y, py = binomial_support(n_neg, fpr_true)
    names = ("cover", "below", "above", "width")
    fields = {name: np.empty(w.size) for name in names}
    # A built-in method's bounds are finite with high >= low, so a cell of probability 0
    # (beyond the last count of positive probability, either class) adds +0.0 to every sum:
    # its interval is not computed, and each sum still runs over the whole (x, y) table, in the
    # same order of additions. A method of the user's is evaluated on every cell.
    table = np.zeros((x.shape[1], y.shape[1])) if isinstance(method, str) else None
    for g in range(w.size):  # one grid point at a time: the (x, y) table can be large
        ex = _extent(px[g]) if table is not None else x.shape[1]
        ey = _extent(py[g]) if table is not None else y.shape[1]
        low, high = cost_bounds_from_counts(
            x[g][:ex, None], y[g][None, :ey], n_pos, n_neg, w[g], level, method, a, bootstrap
        )
        low, high = np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
        prob = px[g][:ex, None] * py[g][None, :ey]
        c = target[g]
        cells = {
            "cover": prob * ((low <= c) & (c <= high)),
            "below": prob * (c < low),
            "above": prob * (c > high),
            "width": prob * (high - low),
        }
        for name in names:
            if table is None:
                fields[name][g] = np.sum(cells[name])
            else:
                table[:ex, :ey] = cells[name]
                fields[name][g] = np.sum(table)
        if table is not None:
            table[:ex, :ey] = 0.0
    for name in ("cover", "below", "above"):  # sums of ~1e6 terms can pass 1 by rounding
        np.clip(fields[name], 0.0, 1.0, out=fields[name])
    return AxisCoverage(**fields)
