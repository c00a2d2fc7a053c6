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

References
----------
Pepe, M. S. (2003). The Statistical Evaluation of Medical Tests for Classification and
Prediction. Oxford University Press (sections 2.2-2.3: the metrics, likelihood ratios).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from rocsim.core._validation import (
    check_choice,
    check_confidence_level,
    check_probability,
    check_two_classes,
)
from rocsim.core.binomial import binomial_pmf
from rocsim.core.counting import count_at_or_above
from rocsim.core.methods import PROBE_LEVEL, MethodProtocol, call_method, check_method, method_name
from rocsim.core.registry import formulas
from rocsim.core.results import Result
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
    tp, fp = np.broadcast_arrays(np.asarray(tp, dtype=float), np.asarray(fp, dtype=float))
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
    defined = np.isfinite(value)
    return np.where(defined, value, 0.0), defined


def _predictive(rate, false_rate, prevalence, hits, false_hits):
    """PPV (or NPV with the classes' roles exchanged): ``hits / (hits + false_hits)`` in the
    test set, or Bayes' rule at ``prevalence``."""
    if prevalence is None:
        return hits / (hits + false_hits)
    return rate * prevalence / (rate * prevalence + false_rate * (1 - prevalence))


@dataclass(frozen=True, repr=False)
class MetricDistribution(Result):
    """Exact bootstrap law of one metric at one operating point, conditional on the metric
    being defined: its support ``values`` (ascending) with probabilities ``probs``.

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
    values: np.ndarray = field(repr=False)
    probs: np.ndarray = field(repr=False)
    undefined: float

    _columns = ("metric", "value", "mean", "var", "undefined")
    _settings = ()

    @property
    def mean(self) -> float:
        return float(self.values @ self.probs) if self.probs.size else np.nan

    @property
    def var(self) -> float:
        if not self.probs.size:
            return np.nan
        return float(np.square(self.values - self.mean) @ self.probs)

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
        """The smallest support value with ``Pr{metric* <= it | defined} >= p``."""
        if not self.probs.size:
            return np.nan
        cumulative = np.cumsum(self.probs)
        at = np.searchsorted(cumulative, p * cumulative[-1], side="left")
        return float(self.values[min(at, self.values.size - 1)])


def _law(
    metric: str, value: float, values: np.ndarray, probs: np.ndarray, defined
) -> MetricDistribution:
    """The conditional law of ``values`` (weights ``probs``) where ``defined``."""
    kept, weight = values[defined], probs[defined]
    total = float(weight.sum())
    order = np.argsort(kept, kind="stable")
    undefined = max(0.0, 1.0 - total)
    probs = weight[order] / total if total > 0 else weight[order]
    return MetricDistribution(metric, value, kept[order], probs, undefined)


def _window(n: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    """Values and probabilities of ``Bin(n, p)`` within its mean -+ 12 sd (+ 30)."""
    sd = np.sqrt(n * p * (1 - p))
    lo = int(max(0, np.floor(n * p - _TAIL_SD * sd) - _TAIL_ROOM))
    hi = int(min(n, np.ceil(n * p + _TAIL_SD * sd) + _TAIL_ROOM))
    x = np.arange(lo, hi + 1, dtype=float)
    return x, binomial_pmf(x, n, p)


@dataclass(frozen=True, repr=False)
class OperatingPointDistribution(Result):
    """Exact bootstrap laws of the metrics at one operating point: ``laws[metric]``.

    Attributes
    ----------
    at : {"threshold", "fpr", "tpr"}
        What is held fixed; ``threshold``, ``fpr``, ``tpr`` the data's operating point.
    laws : dict of str -> MetricDistribution
    """

    at: str
    threshold: float
    fpr: float
    tpr: float
    n_pos: int
    n_neg: int
    bootstrap: str
    laws: dict

    _columns = ("metric", "value", "mean", "var", "undefined")
    _settings = ("at", "bootstrap")

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

    def ci(self, confidence_level: float = 0.95, method: str | Callable = "percentile"):
        """Intervals of every metric from these laws (:func:`operating_point_ci`)."""
        level = check_confidence_level(confidence_level)
        method = check_method(
            method, OPERATING_POINT_METHODS, OPERATING_POINT_PROTOCOL, "operating point method"
        )
        return self._interval(level, method)

    def _interval(self, level: float, method) -> OperatingPointCI:
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
    if at == "threshold":
        return _at_threshold(pos, neg, point, metrics, prevalence)
    return _at_rate(pos, neg, at, point, metrics, prevalence)


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


def _at_threshold(pos, neg, t: float, metrics, prevalence) -> OperatingPointDistribution:
    n_pos, n_neg = pos.size, neg.size
    tp = float(count_at_or_above(pos, np.array([t]))[0])
    fp = float(count_at_or_above(neg, np.array([t]))[0])
    x, px = _window(n_pos, tp / n_pos)
    y, py = _window(n_neg, fp / n_neg)
    grid_x, grid_y = x[:, None], y[None, :]
    weights = (px[:, None] * py[None, :]).ravel()
    laws = {}
    for metric in metrics:
        values, defined = metric_values(metric, grid_x, grid_y, n_pos, n_neg, prevalence)
        data, ok = metric_values(metric, tp, fp, n_pos, n_neg, prevalence)
        value = float(data) if bool(ok) else np.nan
        laws[metric] = _law(metric, value, values.ravel(), weights, defined.ravel())
    return OperatingPointDistribution(
        "threshold", t, fp / n_neg, tp / n_pos, n_pos, n_neg, "stratified", laws
    )


def _at_rate(pos, neg, at: str, rate: float, metrics, prevalence) -> OperatingPointDistribution:
    """At a fixed FPR (or TPR): the exact law of TP* (FP*) on the other count fixed."""
    n_pos, n_neg = pos.size, neg.size
    if at == "fpr":
        r = int(np.clip(np.rint(rate * n_neg), 1, n_neg - 1))
        law = vertical_distribution(pos, neg, [r])
        moving, pmf = np.arange(n_pos + 1, dtype=float), law.pmf[0]
        tp, fp, fixed_t = moving, float(r), np.sort(neg)[::-1][r - 1]
        data_tp, data_fp = float(law.tpr[0] * n_pos), float(r)
    else:
        k = int(np.clip(np.rint(rate * n_pos), 1, n_pos - 1))
        law = vertical_distribution(-neg, -pos, [n_pos - k], side="upper")
        moving, pmf = np.arange(n_neg + 1, dtype=float), law.pmf[0]
        tp, fp, fixed_t = float(k), n_neg - moving, np.sort(pos)[::-1][k - 1]
        data_tp, data_fp = float(k), float(n_neg - law.tpr[0] * n_neg)
    laws = {}
    for metric in metrics:
        values, defined = metric_values(metric, tp, fp, n_pos, n_neg, prevalence)
        data, ok = metric_values(metric, data_tp, data_fp, n_pos, n_neg, prevalence)
        value = float(data) if bool(ok) else np.nan
        laws[metric] = _law(metric, value, values, pmf, defined)
    return OperatingPointDistribution(
        at, float(fixed_t), data_fp / n_neg, data_tp / n_pos, n_pos, n_neg, "stratified", laws
    )


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
