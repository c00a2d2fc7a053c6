"""Metrics at one operating point with their exact bootstrap laws: sensitivity, specificity,
PPV, NPV, accuracy, the likelihood ratios and Youden's J.

At a fixed threshold ``t`` (positive when the score is ``>= t``) every metric is a function of
the true and false positive counts, which under the stratified bootstrap are two independent
binomials ``TP* ~ Bin(n+, TP/n+)`` and ``FP* ~ Bin(n-, FP/n-)``: the law of a metric is the
image of their product law (each count within mean -+ 12 sd + 30, outside of which the mass is
below ``1e-30``). At a fixed FPR ``r / n-`` the threshold moves with the resample (the ``r``-th
largest resampled negative, vertical averaging): ``FP* = r`` and ``TP*`` follows the exact law
of :func:`rocsim.core.vertical_distribution`; at a fixed TPR ``k / n+`` likewise with the
classes exchanged (horizontal averaging).

A metric can be undefined on a resample (PPV without a predicted positive, LR+ without a false
positive, ...): its law is conditional on being defined, and the share of resamples where it
is not is reported (``undefined``). With ``prevalence`` PPV and NPV are those of a population
with that share of positives (Bayes' rule on sensitivity and specificity).

With a pseudo-count ``a`` (the ``agresti`` methods) the binomials of the law draw with the
data's shares after adding ``a`` instances on either side of the threshold in each class,
``(TP + a) / (n+ + 2a)`` and ``(FP + a) / (n- + 2a)`` (each mixture component's share at a fixed
FPR or TPR likewise), as Agresti & Coull's interval does for one proportion: the plug-in law
collapses to a point where a share is 0 or 1, and its intervals then miss every true value
inside (:doc:`/operating_point_study`).

References
----------
Pepe, M. S. (2003). The Statistical Evaluation of Medical Tests for Classification and
Prediction. Oxford University Press (sections 2.2-2.3: the metrics, likelihood ratios).

Agresti, A. & Coull, B. A. (1998). Approximate is better than "exact" for interval
estimation of binomial proportions. The American Statistician, 52(2), 119-126.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from scipy import special

from rocsim.core._validation import (
    check_choice,
    check_confidence_level,
    check_probability,
    check_two_classes,
)
from rocsim.core.binomial import binomial_pmf
from rocsim.core.counting import count_at_or_above
from rocsim.core.intervals import check_pseudo_count, pseudo_count_value
from rocsim.core.methods import PROBE_LEVEL, MethodProtocol, call_method, check_method, method_name
from rocsim.core.mixture import mixture_pmf
from rocsim.core.registry import formulas
from rocsim.core.results import Result
from rocsim.core.scratch import scratch
from rocsim.core.vertical import vertical_distribution

#: The metrics of :func:`operating_point_ci`, in its frame's order.
METRICS = ("sensitivity", "specificity", "ppv", "npv", "accuracy", "lr_pos", "lr_neg", "youden")

#: The range each metric's bounds are clipped to.
RANGES = {
    "sensitivity": (0.0, 1.0),
    "specificity": (0.0, 1.0),
    "ppv": (0.0, 1.0),
    "npv": (0.0, 1.0),
    "accuracy": (0.0, 1.0),
    "lr_pos": (0.0, np.inf),
    "lr_neg": (0.0, np.inf),
    "youden": (-1.0, 1.0),
}

#: Counts are kept within their mean -+ this many standard deviations (plus 30 values).
_TAIL_SD, _TAIL_ROOM = 12.0, 30
#: Each tail of a count's law holding less than this mass is left out of its cells.
_TAIL_MASS = 1e-18


def metric_values(
    metric: str, tp, fp, n_pos: int, n_neg: int, prevalence: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``metric`` at true and false positive counts ``tp``, ``fp`` (broadcast), and where it
    is defined.

    Examples
    --------
    >>> values, defined = metric_values("lr_pos", [8, 8], [2, 0], 10, 10)
    >>> values[defined].tolist(), defined.tolist()
    ([4.0], [True, False])
    """
    # the counts broadcast in the metric's last operation only: on a grid of a row of TP and
    # a column of FP the rates are computed once per count, not once per cell
    tp, fp = np.asarray(tp, dtype=float), np.asarray(fp, dtype=float)
    sens, fpr = tp / n_pos, fp / n_neg
    spec = 1.0 - fpr
    with np.errstate(divide="ignore", invalid="ignore"):
        if metric == "sensitivity":
            value = sens
        elif metric == "specificity":
            value = spec
        elif metric == "ppv":
            value = _predictive(sens, fpr, prevalence, tp, fp)
        elif metric == "npv":
            value = _predictive(
                spec,
                1.0 - sens,
                None if prevalence is None else 1 - prevalence,
                n_neg - fp,
                n_pos - tp,
            )
        elif metric == "accuracy":
            value = (tp + n_neg - fp) / (n_pos + n_neg)
        elif metric == "lr_pos":
            value = sens / fpr
        elif metric == "lr_neg":
            value = (1.0 - sens) / spec
        else:
            value = sens - fpr
    value = np.broadcast_to(value, np.broadcast_shapes(tp.shape, fp.shape))
    # a finite sum (one pass, no temporary) means every value is finite: an infinity or a NaN
    # anywhere makes it infinite or NaN, and these values are far too small to overflow it
    if np.isfinite(np.add.reduce(value, axis=None)):
        return value, np.broadcast_to(True, value.shape)
    defined = np.isfinite(value)
    return np.where(defined, value, 0.0), defined


def _predictive(rate, false_rate, prevalence, hits, false_hits):
    """PPV (or NPV with the classes' roles exchanged): ``hits / (hits + false_hits)`` in the
    test set, or Bayes' rule at ``prevalence``."""
    if prevalence is None:
        # the sum in a work array: only the ratio is kept
        total = np.add(
            hits,
            false_hits,
            out=_work(np.broadcast_shapes(np.shape(hits), np.shape(false_hits)), "predictive"),
        )
        return hits / total
    return rate * prevalence / (rate * prevalence + false_rate * (1 - prevalence))


@dataclass(frozen=True, repr=False)
class MetricDistribution(Result):
    """Exact bootstrap law of one metric at one operating point, conditional on the metric
    being defined: the metric's value on each cell of the counts' law (``cells``, in no
    order) with the cell's probability (``weights``, summing to ``total``, the probability
    that the metric is defined); sorted on demand into its support ``values`` (ascending)
    with conditional probabilities ``probs``.

    Attributes
    ----------
    metric : str
    value : float
        The data's value (NaN where undefined).
    mean, var : float
        Moments of the conditional law.
    undefined : float
        The share of resamples on which the metric is undefined.
    """

    metric: str
    value: float
    cells: np.ndarray = field(repr=False)
    weights: np.ndarray = field(repr=False)
    undefined: float
    total: float = 1.0

    _columns = ("metric", "value", "mean", "var", "undefined")
    _settings = ()

    @cached_property
    def _sorted(self) -> tuple[np.ndarray, np.ndarray]:
        order = np.argsort(self.cells, kind="stable")
        return self.cells[order], self.weights[order] / self.total

    @property
    def values(self) -> np.ndarray:
        return self._sorted[0]

    @property
    def probs(self) -> np.ndarray:
        return self._sorted[1]

    @cached_property
    def mean(self) -> float:
        return float(self.cells @ self.weights) / self.total if self.weights.size else np.nan

    @cached_property
    def var(self) -> float:
        if not self.weights.size:
            return np.nan
        # one temporary, squared in place: a law on a product of two windows holds tens of
        # millions of cells at 10^6 instances
        deviation = np.subtract(self.cells, self.mean, out=_work(self.cells.shape, "deviation"))
        return float(np.square(deviation, out=deviation) @ self.weights) / self.total

    def _summary(self) -> str:
        return (
            f"exact bootstrap law of {self.metric} ({self.value:.4g}; undefined on "
            f"{100 * self.undefined:.3g}% of resamples)"
        )

    def cdf(self, x) -> float:
        """``Pr{metric* <= x | defined}``."""
        at = np.searchsorted(self.values, np.asarray(x, dtype=float), side="right")
        cumulative = np.concatenate([[0.0], np.cumsum(self.probs)])
        return np.minimum(cumulative[at], 1.0)

    def quantile(self, p: float) -> float:
        """The smallest support value with ``Pr{metric* <= it | defined} >= p``.

        Only the cells near the quantile are sorted: a window about the normal
        approximation's quantile, widened until it holds the level (the cells below it
        summed, not sorted), or every cell."""
        if not self.weights.size:
            return np.nan
        if "_sorted" in self.__dict__ or self.cells.size <= _SORT_ALL:
            return _support_quantile(*self._sorted, p, 0.0)
        sd = np.sqrt(self.var)
        guess = self.mean + sd * special.ndtri(np.clip(p, 1e-12, 1 - 1e-12))
        target, half = p * self.total, max(sd, 1e-12) / 16
        while half < np.inf:
            low, high = guess - half, guess + half
            # sums where a condition holds, without copying the cells that meet it
            under = np.less(self.cells, low, out=_work(self.cells.shape, "under", bool))
            below = float(np.add.reduce(self.weights, where=under))
            upto = np.less_equal(self.cells, high, out=_work(self.cells.shape, "upto", bool))
            if below < target <= float(np.add.reduce(self.weights, where=upto)):
                inside = np.flatnonzero(np.logical_xor(upto, under, out=upto))
                cells, weights = self.cells[inside], self.weights[inside]
                order = np.argsort(cells, kind="stable")
                return _support_quantile(cells[order], weights[order], target, below)
            half *= 4
        return _support_quantile(*self._sorted, p, 0.0)


def _work(shape: tuple[int, ...], slot: str, dtype: type = float) -> np.ndarray:
    """A work array kept from call to call (:func:`rocsim.core.scratch.scratch`): a fresh one
    of a law's size costs about as much in page faults as the arithmetic on it."""
    return scratch(shape, "operating point " + slot, dtype)


#: Laws with at most this many cells are sorted whole for a quantile.
_SORT_ALL = 4096


def _support_quantile(values: np.ndarray, probs: np.ndarray, p: float, below: float) -> float:
    """The first of the ascending ``values`` whose cumulative probability (after the mass
    ``below`` them) reaches ``p``."""
    cumulative = below + np.cumsum(probs)
    at = np.searchsorted(cumulative, p, side="left")
    return float(values[min(at, values.size - 1)])


def _law(
    metric: str, value: float, values: np.ndarray, probs: np.ndarray, defined, mass: float
) -> MetricDistribution:
    """The conditional law of ``values`` (weights ``probs``, of sum ``mass``) where
    ``defined``; the weights are kept as they are (shared by the metrics of one law)."""
    if defined.all():  # a pass over booleans: cheap beside the arithmetic on the values
        return MetricDistribution(metric, value, values, probs, 0.0, mass)
    defined = defined.ravel()
    kept, weight = values[defined], probs[defined]
    total = float(weight.sum())
    return MetricDistribution(metric, value, kept, weight, (mass - total) / mass, total or 1.0)


def _window(n: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    """Values and probabilities of ``Bin(n, p)`` within its mean -+ 12 sd (+ 30), then
    trimmed of each tail holding less than ``_TAIL_MASS``: the product of two windows then
    misses less than ``2 _TAIL_MASS`` of the law, which no quantile at a level of
    ``check_confidence_level`` or moment can feel (as the net benefit's windows,
    :data:`rocsim.core.lattice._CUT`), and its cells (the cost) shrink by half."""
    sd = np.sqrt(n * p * (1 - p))
    lo = int(max(0, np.floor(n * p - _TAIL_SD * sd) - _TAIL_ROOM))
    hi = int(min(n, np.ceil(n * p + _TAIL_SD * sd) + _TAIL_ROOM))
    x = np.arange(lo, hi + 1, dtype=float)
    pmf = binomial_pmf(x, n, p)
    first = np.searchsorted(np.cumsum(pmf), _TAIL_MASS, side="right")
    last = pmf.size - np.searchsorted(np.cumsum(pmf[::-1]), _TAIL_MASS, side="right")
    return x[first:last], pmf[first:last]


@dataclass(frozen=True, repr=False)
class OperatingPointDistribution(Result):
    """Exact bootstrap laws of the metrics at one operating point: ``laws[metric]``.

    Attributes
    ----------
    at : {"threshold", "fpr", "tpr"}
        What is held fixed; ``threshold``, ``fpr``, ``tpr`` the data's operating point.
    laws : dict of str -> MetricDistribution
    pseudo_count : float
        Added on either side of the threshold in each class before the law's binomials draw
        (0: the bootstrap's law).
    """

    at: str
    threshold: float
    fpr: float
    tpr: float
    n_pos: int
    n_neg: int
    bootstrap: str
    laws: dict
    pseudo_count: float = 0.0
    _source: tuple | None = field(default=None, repr=False, compare=False)

    _columns = ("metric", "value", "mean", "var", "undefined")
    _settings = ("at", "bootstrap", "pseudo_count")

    def _column_values(self) -> dict:
        rows = list(self.laws.values())
        return {
            "metric": [law.metric for law in rows],
            "value": [law.value for law in rows],
            "mean": [law.mean for law in rows],
            "var": [law.var for law in rows],
            "undefined": [law.undefined for law in rows],
        }

    def __getitem__(self, metric: str) -> MetricDistribution:
        return self.laws[metric]

    def _summary(self) -> str:
        return (
            f"exact bootstrap laws of {len(self.laws)} metrics at {self.at} "
            f"{getattr(self, self.at):.4g} ({self.bootstrap} bootstrap, n+={self.n_pos}, "
            f"n-={self.n_neg})"
        )

    def ci(
        self,
        confidence_level: float = 0.95,
        method: str | Callable = "percentile",
        *,
        pseudo_count: float | None = None,
    ) -> OperatingPointCI:
        """Intervals of every metric from these laws (:func:`operating_point_ci`); a method
        with a pseudo-count (``agresti``) reads the laws built again with it."""
        level = check_confidence_level(confidence_level)
        method = check_method(
            method, OPERATING_POINT_METHODS, OPERATING_POINT_PROTOCOL, "operating point method"
        )
        a = check_pseudo_count(method, pseudo_count, "operating_point")
        law = self if a is None else self.with_pseudo_count(a)
        return law._interval(level, method)

    def with_pseudo_count(self, a: float) -> OperatingPointDistribution:
        """These laws with pseudo-count ``a``, built again from the data they were built on."""
        if a == self.pseudo_count:
            return self
        pos, neg, point, metrics, prevalence = self._source
        build = _at_threshold if self.at == "threshold" else _at_rate
        return build(pos, neg, self.at, point, metrics, prevalence, a)

    def _interval(self, level: float, method) -> OperatingPointCI:
        """Intervals from these laws as they are (built with the method's pseudo-count)."""
        rows = {}
        for metric, law in self.laws.items():
            low, high = call_method(method, OPERATING_POINT_METHODS, law, level)
            lo, hi = RANGES[metric]
            rows[metric] = (float(np.clip(low, lo, hi)), float(np.clip(high, lo, hi)))
        return OperatingPointCI(self, rows, level, method_name(method))


def operating_point_distribution(
    pos_scores,
    neg_scores,
    *,
    threshold: float | None = None,
    fpr: float | None = None,
    tpr: float | None = None,
    metrics=METRICS,
    bootstrap: str = "stratified",
    prevalence: float | None = None,
    pseudo_count: float = 0.0,
) -> OperatingPointDistribution:
    """Exact bootstrap laws of ``metrics`` at a fixed threshold, FPR or TPR (one of them).

    Parameters
    ----------
    pos_scores, neg_scores : array-like
    threshold : float, optional
        Positive when the score is ``>= threshold``.
    fpr, tpr : float, optional
        In (0, 1): the nearest rate ``r / n-`` (``k / n+``) of the data, the threshold moving
        with the resample.
    metrics : sequence of str, default all of :data:`METRICS`
    bootstrap : {"stratified"}, default "stratified"
        The full bootstrap's laws are not built yet.
    prevalence : float, optional
        PPV and NPV at this share of positives (default: the data's).
    pseudo_count : float, default 0
        Instances added on either side of the threshold in each class before the law's
        binomials draw (the ``agresti`` methods; module docstring); 0 is the bootstrap's law.

    Examples
    --------
    >>> law = operating_point_distribution([0.9, 0.8, 0.4], [0.7, 0.3, 0.2], threshold=0.5)
    >>> law["sensitivity"].value, round(law["sensitivity"].var, 4)
    (0.6666666666666666, 0.0741)
    """
    pos, neg = check_two_classes(pos_scores, neg_scores)
    at, point = _check_point(threshold, fpr, tpr)
    metrics = _check_metrics(metrics)
    check_choice(bootstrap, ("stratified",), "bootstrap (the full bootstrap is not built yet)")
    if prevalence is not None:
        prevalence = check_probability(prevalence, "prevalence")
    a = pseudo_count_value(pseudo_count)
    build = _at_threshold if at == "threshold" else _at_rate
    return build(pos, neg, at, point, metrics, prevalence, a)


def _check_point(threshold, fpr, tpr) -> tuple[str, float]:
    given = {
        k: v for k, v in (("threshold", threshold), ("fpr", fpr), ("tpr", tpr)) if v is not None
    }
    if len(given) != 1:
        got = ", ".join(sorted(given)) or "none"
        raise ValueError(
            f"give exactly one of threshold, fpr, tpr (the operating point), got {got}"
        )
    ((at, value),) = given.items()
    value = float(value)
    if not np.isfinite(value) and at == "threshold":
        raise ValueError(f"threshold must be a finite number, got {threshold!r}")
    if at != "threshold" and not 0.0 < value < 1.0:
        raise ValueError(f"{at} must lie strictly between 0 and 1, got {value!r}")
    return at, value


def _check_metrics(metrics) -> tuple[str, ...]:
    metrics = (metrics,) if isinstance(metrics, str) else tuple(metrics)
    if not metrics:
        raise ValueError("metrics must name at least one metric")
    for metric in metrics:
        check_choice(metric, METRICS, "metric")
    return metrics


def _at_threshold(
    pos, neg, at: str, t: float, metrics, prevalence, a: float
) -> OperatingPointDistribution:
    n_pos, n_neg = pos.size, neg.size
    tp = float(count_at_or_above(pos, np.array([t]))[0])
    fp = float(count_at_or_above(neg, np.array([t]))[0])
    x, px = _window(n_pos, (tp + a) / (n_pos + 2 * a))
    y, py = _window(n_neg, (fp + a) / (n_neg + 2 * a))
    laws, built = {}, {}
    for metric in metrics:
        key = metric if metric in _ONE_DIMENSIONAL else None
        if key not in built:
            built[key] = _cells(key, x, px, y, py, tp, fp)
        at_x, at_y, weights, mass = built[key]
        values, defined = metric_values(metric, at_x, at_y, n_pos, n_neg, prevalence)
        data, ok = metric_values(metric, tp, fp, n_pos, n_neg, prevalence)
        value = float(data) if bool(ok) else np.nan
        laws[metric] = _law(metric, value, values.ravel(), weights, defined, mass)
    source = (pos, neg, t, metrics, prevalence)
    return OperatingPointDistribution(
        at, t, fp / n_neg, tp / n_pos, n_pos, n_neg, "stratified", laws, a, source
    )


#: Metrics whose law at a threshold is that of one count: TP, FP, or TP - FP (accuracy).
_ONE_DIMENSIONAL = ("sensitivity", "specificity", "accuracy")


def _cells(key: str | None, x, px, y, py, tp: float, fp: float) -> tuple:
    """``(tp, fp, weights, their sum)`` of the cells a metric is read on: sensitivity and
    specificity one binomial's values; accuracy ``TP - FP`` (as ``tp``, ``fp = 0``), whose
    law is the convolution of the two (at 10^6 instances the product holds tens of millions
    of cells, the convolution thousands); the other metrics the product of the two."""
    if key == "sensitivity":
        at_x, at_y, weights = x, fp, px
    elif key == "specificity":
        at_x, at_y, weights = tp, y, py
    elif key == "accuracy":
        at_x, at_y = np.arange(x[0] - y[-1], x[-1] - y[0] + 1), 0.0
        weights = np.convolve(px, py[::-1])
    else:
        at_x, at_y, weights = x[:, None], y[None, :], np.multiply.outer(px, py).ravel()
    return at_x, at_y, weights, float(weights.sum())


def _at_rate(
    pos, neg, at: str, rate: float, metrics, prevalence, a: float
) -> OperatingPointDistribution:
    """At a fixed FPR (or TPR): the exact law of TP* (FP*) on the other count fixed."""
    n_pos, n_neg = pos.size, neg.size
    if at == "fpr":
        r = int(np.clip(np.rint(rate * n_neg), 1, n_neg - 1))
        law = vertical_distribution(pos, neg, [r])
        moving, pmf = np.arange(n_pos + 1, dtype=float), _moving_pmf(law, n_pos, a)
        tp, fp, fixed_t = moving, float(r), np.sort(neg)[::-1][r - 1]
        data_tp, data_fp = float(law.tpr[0] * n_pos), float(r)
    else:
        k = int(np.clip(np.rint(rate * n_pos), 1, n_pos - 1))
        law = vertical_distribution(-neg, -pos, [n_pos - k], side="upper")
        moving, pmf = np.arange(n_neg + 1, dtype=float), _moving_pmf(law, n_neg, a)
        tp, fp, fixed_t = float(k), n_neg - moving, np.sort(pos)[::-1][k - 1]
        data_tp, data_fp = float(k), float(n_neg - law.tpr[0] * n_neg)
    laws = {}
    for metric in metrics:
        values, defined = metric_values(metric, tp, fp, n_pos, n_neg, prevalence)
        data, ok = metric_values(metric, data_tp, data_fp, n_pos, n_neg, prevalence)
        value = float(data) if bool(ok) else np.nan
        laws[metric] = _law(metric, value, values, pmf, defined, float(pmf.sum()))
    source = (pos, neg, rate, metrics, prevalence)
    return OperatingPointDistribution(
        at,
        float(fixed_t),
        data_fp / n_neg,
        data_tp / n_pos,
        n_pos,
        n_neg,
        "stratified",
        laws,
        a,
        source,
    )


def _moving_pmf(law, size: int, a: float) -> np.ndarray:
    """The pmf of the moving count: the vertical law's mixture of ``Bin(size, q)``, each share
    ``q`` moved to ``(size q + a) / (size + 2a)`` by the pseudo-count."""
    if not a:
        return law.pmf[0]
    q = (law._q * size + a) / (size + 2 * a)
    return mixture_pmf(q, law._w, size)[0]


@dataclass(frozen=True, repr=False)
class OperatingPointCI(Result):
    """Intervals of the metrics at one operating point (:func:`operating_point_ci`): a long
    table, a row per metric with ``metric``, ``value``, ``low``, ``high``, ``undefined``; the
    laws at ``law[metric]`` (``.mean``, ``.var``)."""

    law: OperatingPointDistribution
    bounds: dict
    confidence_level: float
    method: str

    _columns = ("metric", "value", "low", "high", "undefined")

    def _column_values(self) -> dict:
        laws = self.law.laws
        return {
            "metric": list(laws),
            "value": [laws[m].value for m in laws],
            "low": [self.bounds[m][0] for m in laws],
            "high": [self.bounds[m][1] for m in laws],
            "undefined": [laws[m].undefined for m in laws],
        }

    def _summary(self) -> str:
        law = self.law
        return (
            f"{len(law.laws)} metrics at {law.at} {getattr(law, law.at):.4g} "
            f"({self._level_and_method()}, n+={law.n_pos}, n-={law.n_neg})"
        )


#: Method name -> interval ``(law, confidence_level) -> (low, high)`` on a metric's exact law
#: (:mod:`rocsim.core.registry`, kind ``operating_point``).
OPERATING_POINT_METHODS: dict[str, Callable] = formulas("operating_point")


def _probe():
    law = operating_point_distribution([0.9, 0.8, 0.3, 0.6], [0.7, 0.5, 0.2, 0.1], threshold=0.5)
    return (law["sensitivity"], PROBE_LEVEL), ()


#: How a method of an operating point's metric is called: on its exact law (``mean``,
#: ``var``, ``quantile(p)``, ``values``, ``probs``), returning two numbers.
OPERATING_POINT_PROTOCOL = MethodProtocol(
    "operating_point", "f(law, confidence_level) -> (low, high)", _probe
)
