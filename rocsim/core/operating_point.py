"""Metrics at one operating point with their exact bootstrap laws: sensitivity, specificity,
PPV, NPV, accuracy, the likelihood ratios and Youden's J.

At a fixed threshold ``t`` (positive when the score is ``>= t``) every metric is a function of
the true and false positive counts, which under the stratified bootstrap are two independent
binomials ``TP* ~ Bin(n+, TP/n+)`` and ``FP* ~ Bin(n-, FP/n-)``: the law of a metric is the
image of their product law (each count on a window of its law holding all but ``1e-18`` of
each tail). At a fixed FPR ``r / n-`` the threshold moves with the resample (the ``r``-th
largest resampled negative, vertical averaging): ``FP* = r`` and ``TP*`` follows the exact law
of :func:`rocsim.core.vertical_distribution`; at a fixed TPR ``k / n+`` likewise with the
classes exchanged (horizontal averaging).

Under the full bootstrap (the ``n`` instances resampled together, the class counts random, the
thesis's chapter 5) the table ``(TP*, FN*, FP*, TN*)`` is multinomial. A metric that is a ratio
of a count to its margin (sensitivity ``TP*/N+*``, specificity, PPV ``TP*/(TP* + FP*)``, NPV,
accuracy) is a mixture over the margin of a binomial over it; the others (Youden's J, the
likelihood ratios, PPV and NPV at a prevalence) read both classes' rates: a mixture over
``N+* ~ Bin(n, n+/n)`` of the stratified law of classes of sizes ``N+*`` and ``n - N+*``.

Every law is read without making its cells (:mod:`rocsim.core._operating_point`): each metric
rises with one count and falls with the other, so its distribution function is a walk along a
staircase through the product of the windows, and a quantile a bracket narrowed by such walks;
moments are sums over the windows (over each window alone for Youden's J, accuracy and the
likelihood ratios, a sum or product of a function of each count).

A metric can be undefined on a resample (PPV without a predicted positive, LR+ without a false
positive, ...): its law is conditional on being defined, and the share of resamples where it
is not is reported (``undefined``). With ``prevalence`` PPV and NPV are those of a population
with that share of positives (Bayes' rule on sensitivity and specificity).

With a pseudo-count ``a`` (the ``agresti`` methods) the binomials of the law draw with the
data's shares after adding ``a`` instances on either side of the threshold in each class,
``(TP + a) / (n+ + 2a)`` and ``(FP + a) / (n- + 2a)`` (each mixture component's share at a fixed
FPR or TPR likewise; under the full bootstrap ``a`` is added to each of the four cells), as
Agresti & Coull's interval does for one proportion: the plug-in law collapses to a point where
a share is 0 or 1, and its intervals then miss every true value inside
(:doc:`/operating_point_study`).

References
----------
Pepe, M. S. (2003). The Statistical Evaluation of Medical Tests for Classification and
Prediction. Oxford University Press (sections 2.2-2.3: the metrics, likelihood ratios).

Agresti, A. & Coull, B. A. (1998). Approximate is better than "exact" for interval
estimation of binomial proportions. The American Statistician, 52(2), 119-126.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from scipy import special

from rocsim.core import _operating_point
from rocsim.core._validation import (
    check_choice,
    check_confidence_level,
    check_probability,
    check_two_classes,
)
from rocsim.core.counting import count_at_or_above
from rocsim.core.intervals import check_pseudo_count, pseudo_count_value
from rocsim.core.lattice import binomial_rows
from rocsim.core.methods import PROBE_LEVEL, MethodProtocol, call_method, check_method, method_name
from rocsim.core.mixture import mixture_pmf
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
#: Each tail of a count's law holding less than this mass is left out of its window.
_TAIL_MASS = 1e-18

#: How each metric is read on a block's counts (:mod:`rocsim.core._operating_point`): its
#: formula, the count along ``x`` and the one along ``y`` (``None``: the metric reads ``x``
#: only), chosen so that it rises with ``x`` and falls with ``y``; with a ``prevalence`` PPV and
#: NPV read Bayes' rule (``predictive``) on the same counts.
_READINGS = {
    "sensitivity": ("ratio", "tp", None),
    "specificity": ("ratio", "tn", None),
    "ppv": ("ppv", "tp", "fp"),
    "npv": ("ppv", "tn", "fn"),
    "accuracy": ("accuracy", "tp", "fp"),
    "lr_pos": ("lr", "tp", "fp"),
    "lr_neg": ("lr", "fn", "tn"),
    "youden": ("youden", "tp", "fp"),
}
#: The formula of a count over its size (:data:`rocsim.core._operating_point.KINDS`).
RATIO = _operating_point.KINDS["ratio"]
#: The class each count is a count of.
_CLASS = {"tp": "pos", "fn": "pos", "fp": "neg", "tn": "neg"}


def _reading(metric: str, prevalence: float | None) -> tuple[int, str, str | None, float]:
    """``(kind, x count, y count, prevalence read)`` of ``metric`` (:data:`_READINGS`)."""
    kind, x, y = _READINGS[metric]
    share = np.nan
    if kind == "ppv" and prevalence is not None:
        kind, share = "predictive", prevalence if metric == "ppv" else 1.0 - prevalence
    return _operating_point.KINDS[kind], x, y, share


def metric_values(
    metric: str, tp, fp, n_pos: int, n_neg: int, prevalence: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``metric`` at true and false positive counts ``tp``, ``fp`` of classes of sizes
    ``n_pos``, ``n_neg`` (all broadcast), and where it is defined: the same bits as the exact
    laws' cells.

    Examples
    --------
    >>> values, defined = metric_values("lr_pos", [8, 8], [2, 0], 10, 10)
    >>> values[defined].tolist(), defined.tolist()
    ([4.0], [True, False])
    """
    tp, fp = np.broadcast_arrays(np.asarray(tp, dtype=float), np.asarray(fp, dtype=float))
    counts = {"tp": tp, "fp": fp, "fn": n_pos - tp, "tn": n_neg - fp}
    sizes = {"pos": n_pos, "neg": n_neg}
    kind, x, y, share = _reading(metric, prevalence)
    y_counts = counts[y] if y else 0.0
    y_size = sizes[_CLASS[y]] if y else 1.0
    value = _operating_point.values(kind, counts[x], y_counts, sizes[_CLASS[x]], y_size, share)
    defined = np.isfinite(value)
    return np.where(defined, value, 0.0), defined


@dataclass(frozen=True)
class _Windows:
    """A count's law on each block: block ``k``'s values ``start[k], start[k] + 1, ...`` with
    probabilities ``pmf[offsets[k]:offsets[k + 1]]``."""

    start: np.ndarray
    offsets: np.ndarray
    pmf: np.ndarray

    @classmethod
    def point(cls, value: float, blocks: int = 1) -> _Windows:
        """A count fixed at ``value`` on every block."""
        return cls(
            np.full(blocks, int(value), dtype=np.int64),
            np.arange(blocks + 1, dtype=np.int64),
            np.ones(blocks),
        )

    @classmethod
    def of_pmf(cls, pmf: np.ndarray) -> _Windows:
        """One block with the pmf ``pmf`` on ``0, 1, ...``, cut as :func:`binomial_windows`."""
        window = (np.zeros(1, np.int64), np.array([0, pmf.size]), pmf)
        return cls(*_operating_point.cut_tails(*window, _TAIL_MASS))

    def complement(self, sizes: np.ndarray) -> _Windows:
        """The windows of ``sizes[k] - count`` (a class's other count), ascending."""
        lengths = np.diff(self.offsets)
        block = np.repeat(np.arange(lengths.size), lengths)
        # each block's probabilities in reverse order
        reverse = self.offsets[block] + self.offsets[block + 1] - 1 - np.arange(block.size)
        start = np.asarray(sizes, dtype=np.int64) - (self.start + lengths - 1)
        return _Windows(start, self.offsets, self.pmf[reverse])


def binomial_windows(sizes, share: float) -> _Windows:
    """``Bin(sizes[k], share)`` on each block, within its mean -+ 12 sd (+ 30) and then cut of
    each tail holding less than ``_TAIL_MASS``: a law on products of such windows misses less
    than ``4 _TAIL_MASS`` of its mass, which no quantile at a level of
    ``check_confidence_level`` or moment can feel (as the net benefit's windows,
    :data:`rocsim.core.lattice._CUT`), and its cells (the cost) shrink by half. The
    probabilities are Boost's every 64 values, their ratio recurrence between
    (:func:`rocsim.core.lattice.binomial_rows`)."""
    sizes = np.atleast_1d(np.asarray(sizes, dtype=np.int64))
    lo, hi = _binomial_window(sizes, share)
    width = hi - lo + 1
    pmf = binomial_rows(sizes, np.full(sizes.size, float(share)), lo, width)
    offsets = np.concatenate([[0], np.cumsum(width)])
    return _Windows(*_operating_point.cut_tails(lo, offsets, pmf, _TAIL_MASS))


def _binomial_window(sizes: np.ndarray, share: float) -> tuple[np.ndarray, np.ndarray]:
    """The first and last value of ``Bin(sizes[k], share)``'s mean -+ 12 sd (+ 30): outside
    it a binomial holds less than ``1e-30`` of its mass."""
    sd = np.sqrt(sizes * share * (1 - share))
    room = np.where(sd > 0, _TAIL_ROOM, 0)  # a point law (share 0 or 1) is one value
    lo = np.maximum(0, np.floor(sizes * share - _TAIL_SD * sd) - room).astype(np.int64)
    hi = np.minimum(sizes, np.ceil(sizes * share + _TAIL_SD * sd) + room).astype(np.int64)
    return lo, hi


@dataclass(frozen=True, repr=False)
class MetricDistribution(Result):
    """Exact bootstrap law of one metric at one operating point, conditional on the metric
    being defined: read on its blocks of count windows (:class:`_operating_point.Grid`)
    without making its cells; ``values`` and ``probs`` make them (sorted, conditional
    probabilities).

    Attributes
    ----------
    metric : str
    value : float
        The data's value (NaN where undefined).
    bootstrap : {"stratified", "full", "full_approx"}
        The bootstrap whose law this is.
    mean, var : float
        Moments of the conditional law.
    undefined : float
        The share of resamples on which the metric is undefined.
    """

    metric: str
    value: float
    grid: _operating_point.Grid = field(repr=False)
    bootstrap: str = "stratified"

    _columns = ("metric", "value", "mean", "var", "undefined")
    _settings = ("bootstrap",)

    @property
    def undefined(self) -> float:
        return (self.grid.total - self.grid.defined) / self.grid.total

    @cached_property
    def _moments(self) -> tuple[float, float]:
        return self.grid.moments()

    @property
    def mean(self) -> float:
        return self._moments[0]

    @property
    def var(self) -> float:
        return self._moments[1]

    @cached_property
    def _sorted(self) -> tuple[np.ndarray, np.ndarray]:
        values, probs = self.grid.between(-np.inf, np.inf)
        return values, probs / (self.grid.defined or 1.0)

    @property
    def values(self) -> np.ndarray:
        return self._sorted[0]

    @property
    def probs(self) -> np.ndarray:
        return self._sorted[1]

    def _summary(self) -> str:
        return (
            f"exact bootstrap law of {self.metric} ({self.value:.4g}; undefined on "
            f"{100 * self.undefined:.3g}% of resamples)"
        )

    def cdf(self, x) -> np.ndarray:
        """``Pr{metric* <= x | defined}``."""
        x = np.asarray(x, dtype=float)
        below = [self.grid.cdf(v)[0] for v in x.ravel()]
        return np.minimum(np.reshape(below, x.shape) / (self.grid.defined or 1.0), 1.0)

    def quantile(self, p: float) -> float:
        """The smallest support value with ``Pr{metric* <= it | defined} >= p``: searched
        about the normal approximation's quantile (:meth:`_operating_point.Grid.quantile`)."""
        if not self.grid.cells:
            return np.nan
        sd = math.sqrt(self.var)
        guess = self.mean + sd * special.ndtri(min(max(p, 1e-12), 1 - 1e-12))
        return self.grid.quantile(p, guess, max(sd, 1e-12) / 16)


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
            f"{getattr(self, self.at):.4g} ({_bootstraps(self)}, n+={self.n_pos}, "
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
        return _build(pos, neg, self.at, point, metrics, prevalence, self.bootstrap, a)

    def _interval(self, level: float, method) -> OperatingPointCI:
        """Intervals from these laws as they are (built with the method's pseudo-count)."""
        rows = {}
        for metric, law in self.laws.items():
            low, high = call_method(method, OPERATING_POINT_METHODS, law, level)
            lo, hi = RANGES[metric]
            rows[metric] = (float(np.clip(low, lo, hi)), float(np.clip(high, lo, hi)))
        return OperatingPointCI(self, rows, level, method_name(method))


def _bootstraps(law: OperatingPointDistribution) -> str:
    """``"full bootstrap"``, or for ``auto`` which metrics read another than the stratified
    one (``"stratified bootstrap, full_approx for ppv, npv"``)."""
    if law.bootstrap != "auto":
        return f"{law.bootstrap} bootstrap"
    others: dict[str, list[str]] = {}
    for metric, one in law.laws.items():
        if one.bootstrap != "stratified":
            others.setdefault(one.bootstrap, []).append(metric)
    return "stratified bootstrap" + "".join(f", {b} for {', '.join(m)}" for b, m in others.items())


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
    bootstrap : {"stratified", "full", "full_approx", "auto"}, default "stratified"
        Each class resampled on its own, or the instances together (the class counts random,
        the thesis's chapter 5): at a threshold only, since at a fixed FPR or TPR the moving
        threshold is a rank within a class. ``full_approx``: there, the full bootstrap
        approximated (:class:`PrevalenceMixtures`). ``auto``: for the metrics that move with
        the prevalence (:data:`PREVALENCE_METRICS`, unless ``prevalence`` is given), ``full``
        at a threshold and ``full_approx`` at a fixed FPR or TPR; ``stratified`` for the
        others.
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
    check_choice(bootstrap, OPERATING_POINT_BOOTSTRAPS, "bootstrap")
    if bootstrap == "full" and at != "threshold":
        raise ValueError(
            f"bootstrap='full' is built at a threshold only: at a fixed {at} the threshold is "
            "a rank within a class, whose size the full bootstrap draws; use "
            "bootstrap='full_approx' (its approximation), 'stratified', or give threshold="
        )
    if bootstrap == "full_approx" and at == "threshold":
        raise ValueError(
            "bootstrap='full_approx' approximates the full bootstrap at a fixed FPR or TPR; at "
            "a threshold the full bootstrap is exact: use bootstrap='full'"
        )
    if prevalence is not None:
        prevalence = check_probability(prevalence, "prevalence")
    return _build(
        pos, neg, at, point, metrics, prevalence, bootstrap, pseudo_count_value(pseudo_count)
    )


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


def _build(
    pos, neg, at: str, point: float, metrics, prevalence, bootstrap: str, a: float
) -> OperatingPointDistribution:
    """The laws at the operating point, their blocks made once for all metrics."""
    n_pos, n_neg = pos.size, neg.size
    if at == "threshold":
        tp = float(count_at_or_above(pos, np.array([point]))[0])
        fp = float(count_at_or_above(neg, np.array([point]))[0])
        fixed = point
        makers = {
            "full": lambda: _FullGrids(tp, fp, n_pos, n_neg, a),
            "stratified": lambda: _Blocks.stratified(tp, fp, n_pos, n_neg, a),
        }
    else:
        fixed, tp, fp, blocks = _at_rate(pos, neg, at, point, a)
        makers = {
            "stratified": lambda: blocks,
            "full_approx": lambda: PrevalenceMixtures(blocks, a),
        }
    laws, made = {}, {}
    for metric in metrics:
        data, ok = metric_values(metric, tp, fp, n_pos, n_neg, prevalence)
        value = float(data) if bool(ok) else np.nan
        chosen = _bootstrap_of(metric, bootstrap, at, prevalence)
        if chosen not in made:  # each bootstrap's blocks made once, if a metric reads them
            made[chosen] = makers[chosen]()
        grid = made[chosen].grid(metric, prevalence)
        laws[metric] = MetricDistribution(metric, value, grid, chosen)
    source = (pos, neg, point, metrics, prevalence)
    return OperatingPointDistribution(
        at, float(fixed), fp / n_neg, tp / n_pos, n_pos, n_neg, bootstrap, laws, a, source
    )


#: The bootstraps of :func:`operating_point_distribution` (``full_approx``: at a fixed FPR or
#: TPR, :class:`PrevalenceMixtures`).
OPERATING_POINT_BOOTSTRAPS = ("stratified", "full", "full_approx", "auto")

#: The metrics whose value moves with the prevalence (at the data's): the full bootstrap's
#: class counts move them, and on cohort test sets the stratified law's intervals miss them
#: (:doc:`/operating_point_full_study`); the others' laws barely feel the class counts.
PREVALENCE_METRICS = ("ppv", "npv", "accuracy")


def _bootstrap_of(metric: str, bootstrap: str, at: str, prevalence: float | None) -> str:
    """The bootstrap of ``metric``'s law: ``bootstrap``, or as ``auto`` resolves it."""
    if bootstrap != "auto":
        return bootstrap
    if metric in PREVALENCE_METRICS and (prevalence is None or metric == "accuracy"):
        return "full" if at == "threshold" else "full_approx"
    return "stratified"


@dataclass(frozen=True)
class _Blocks:
    """Blocks of the counts' law: a weight each, each class's size, and the windows of the
    true and false positives (the other two counts their complements)."""

    weight: np.ndarray
    n_pos: np.ndarray
    n_neg: np.ndarray
    tp: _Windows
    fp: _Windows

    @classmethod
    def stratified(cls, tp: float, fp: float, n_pos: int, n_neg: int, a: float) -> _Blocks:
        """One block: ``TP* ~ Bin(n+, (tp + a) / (n+ + 2a))``, ``FP*`` likewise."""
        return cls(
            np.ones(1),
            np.array([n_pos]),
            np.array([n_neg]),
            binomial_windows([n_pos], _share(tp + a, n_pos + 2 * a)),
            binomial_windows([n_neg], _share(fp + a, n_neg + 2 * a)),
        )

    @cached_property
    def fn(self) -> _Windows:
        return self.tp.complement(self.n_pos)

    @cached_property
    def tn(self) -> _Windows:
        return self.fp.complement(self.n_neg)

    def grid(self, metric: str, prevalence: float | None) -> _operating_point.Grid:
        """``metric``'s law on these blocks (:data:`_READINGS`)."""
        kind, x, y, share = _reading(metric, prevalence)
        sizes = {"pos": self.n_pos.astype(float), "neg": self.n_neg.astype(float)}
        along_x = getattr(self, x)
        along_y = getattr(self, y) if y else _Windows.point(0, self.weight.size)
        size_y = sizes[_CLASS[y]] if y else np.ones(self.weight.size)
        return _grid(kind, share, self.weight, sizes[_CLASS[x]], size_y, along_x, along_y)


def _grid(kind: int, share: float, weight, size_x, size_y, x: _Windows, y: _Windows):
    return _operating_point.Grid(
        kind, share, weight, size_x, size_y, x.start, x.offsets, x.pmf, y.start, y.offsets, y.pmf
    )


def _share(hits: float, size: float) -> float:
    """``hits / size``, 0 for an empty size (whose law is a point whatever the share)."""
    return hits / size if size else 0.0


#: The other count of a count's class (its size's other part).
_OTHER = {"tp": "fn", "fn": "tp", "fp": "tn", "tn": "fp"}


def _ratio_cells(metric: str) -> tuple[str, str] | None:
    """The count and the other cell of its size where ``metric`` is a count over a binomial
    size under the full bootstrap (sensitivity, specificity: over a class; PPV, NPV: over the
    predicted positives, negatives; :data:`_READINGS`), else ``None``."""
    kind, x, y = _READINGS[metric]
    if kind == "ratio":
        return x, _OTHER[x]
    return (x, y) if kind == "ppv" else None


class _FullGrids:
    """The full bootstrap's laws: the table's four cells multinomial (after adding ``a`` to
    each). A metric of one class's counts, of the predicted positives' or negatives', or of
    all instances is a ratio of a binomial count to a binomial size: blocks over that size
    (``TP* | N+* ~ Bin(N+*, .)``, ...). The others (Youden's J, the likelihood ratios, PPV and
    NPV at a prevalence) read both classes' rates: blocks over ``N+*``, the true and false
    positives independent binomials within each. The ratios walk one value per block
    (:class:`_operating_point.RatioMixture`); the others walk a stratified staircase per
    block, ``O(sqrt(n))`` blocks of ``O(sqrt(n))`` values, which is about a Monte Carlo
    bootstrap's cost (``benchmarks/results_decision.md``): exact, but not fast, and ``auto``
    never reads them."""

    def __init__(self, tp: float, fp: float, n_pos: int, n_neg: int, a: float):
        n, fn, tn = n_pos + n_neg, n_pos - tp, n_neg - fp
        self.n, self.size = n, n + 4 * a
        self.cells = {"tp": tp + a, "fn": fn + a, "fp": fp + a, "tn": tn + a}
        self.a = a

    @cached_property
    def classes(self) -> _Blocks:
        """Blocks over ``N+*``."""
        c = self.cells
        margin = binomial_windows([self.n], (c["tp"] + c["fn"]) / self.size)
        n_pos = margin.start[0] + np.arange(margin.pmf.size)
        return _Blocks(
            margin.pmf,
            n_pos,
            self.n - n_pos,
            binomial_windows(n_pos, c["tp"] / (c["tp"] + c["fn"])),
            binomial_windows(self.n - n_pos, c["fp"] / (c["fp"] + c["tn"])),
        )

    def grid(self, metric: str, prevalence: float | None) -> _operating_point.Law:
        c = self.cells
        if metric == "accuracy":
            return self._ratio(c["tp"] + c["tn"], self.size)
        cells = _ratio_cells(metric)
        if cells and (prevalence is None or metric not in ("ppv", "npv")):
            hits, misses = (c[cell] for cell in cells)
            return self._ratio(hits, hits + misses)
        return self.classes.grid(metric, prevalence)

    def _ratio(self, hits: float, together: float) -> _operating_point.RatioMixture:
        """``H* / M*`` with ``M* ~ Bin(n, together / size)`` (the block's size) and
        ``H* | M* ~ Bin(M*, hits / together)``: blocks over ``M*``
        (:class:`_operating_point.RatioMixture`)."""
        margin = binomial_windows([self.n], together / self.size)
        sizes = margin.start[0] + np.arange(margin.pmf.size)
        share = _share(hits, together)
        lo, hi = _binomial_window(sizes, share)
        # Boost's window at the first block with M >= 1 (the last if there is none)
        b = min(int(np.searchsorted(sizes, 1)), sizes.size - 1)
        anchor = binomial_rows(
            sizes[b : b + 1], np.array([share]), lo[b : b + 1], hi[b : b + 1] - lo[b : b + 1] + 1
        )
        return _operating_point.RatioMixture(
            share, int(sizes[0]), margin.pmf, lo, hi, int(lo[b]), anchor
        )


class PrevalenceMixtures:
    """At a fixed FPR or TPR, the full bootstrap approximated (``bootstrap="full_approx"``),
    as an exact law of its own: the rates' stratified law (the classes' sizes the data's)
    read at a prevalence ``N+* / n`` drawn as the full bootstrap draws it,
    ``N+* ~ Bin(n, (n+ + 2a) / (n + 4a))``, independently of the rates. PPV and NPV are then
    Bayes' rule at that prevalence, accuracy its weighting of sensitivity and specificity; the
    other metrics do not read the prevalence and keep their stratified laws
    (:class:`_operating_point.PrevalenceMixture`).

    The approximation: under the full bootstrap the rates' laws are those of classes of
    ``N+*`` and ``n - N+*`` instances, not ``n+`` and ``n-``, which moves their spread by a
    factor ``sqrt(n+ / N+*)``, about ``1 -+ 1 / sqrt(n)``; the prevalence's spread, which the
    stratified law misses whole, is kept. The test
    ``test_full_approx_is_close_to_a_seeded_monte_carlo_full_bootstrap`` checks its standard
    deviations and quantiles against a seeded Monte Carlo full bootstrap at a fixed FPR, and
    the :doc:`/operating_point_fpr_full_study` measures its intervals' coverage on cohorts.
    """

    def __init__(self, blocks: _Blocks, a: float):
        self.blocks = blocks
        n_pos, n_neg = int(blocks.n_pos[0]), int(blocks.n_neg[0])
        self.n = n_pos + n_neg
        self.margin = binomial_windows([self.n], (n_pos + 2 * a) / (self.n + 4 * a))

    def grid(self, metric: str, prevalence: float | None) -> _operating_point.Law:
        if metric not in PREVALENCE_METRICS or (prevalence is not None and metric != "accuracy"):
            return self.blocks.grid(metric, prevalence)
        n_pos = self.margin.start[0] + np.arange(self.margin.pmf.size)
        x, y = _READINGS[metric][1:]
        kind, share = _PREVALENCE_KINDS[metric], n_pos / self.n
        if metric == "npv":  # Bayes' rule for the negatives, at their share
            share = (self.n - n_pos) / self.n
        xs, ys, pmf = _moving_cells(getattr(self.blocks, x), getattr(self.blocks, y))
        sizes = {"pos": float(self.blocks.n_pos[0]), "neg": float(self.blocks.n_neg[0])}
        return _operating_point.PrevalenceMixture(
            _operating_point.KINDS[kind],
            xs,
            ys,
            pmf,
            sizes[_CLASS[x]],
            sizes[_CLASS[y]],
            share,
            self.margin.pmf,
        )


#: The formula of each prevalence metric at a prevalence (:data:`_READINGS`' counts).
_PREVALENCE_KINDS = {"ppv": "predictive", "npv": "predictive", "accuracy": "weighted"}


def _moving_cells(x: _Windows, y: _Windows) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cells of two one-block windows, one of them a point: ``(x counts, y counts,
    probabilities)``, ordered so that a metric rising with ``x`` and falling with ``y``
    rises (ascending ``x``, or descending ``y``)."""
    if x.pmf.size >= y.pmf.size:
        xs = x.start[0] + np.arange(x.pmf.size, dtype=float)
        return xs, np.full(xs.size, float(y.start[0])), x.pmf * y.pmf[0]
    ys = y.start[0] + np.arange(y.pmf.size - 1, -1, -1, dtype=float)
    return np.full(ys.size, float(x.start[0])), ys, (y.pmf * x.pmf[0])[::-1].copy()


def _at_rate(pos, neg, at: str, rate: float, a: float) -> tuple:
    """At a fixed FPR (or TPR): ``(threshold, TP, FP, blocks)``, the moving count's exact law
    on the other count fixed."""
    n_pos, n_neg = pos.size, neg.size
    sizes = (np.ones(1), np.array([n_pos]), np.array([n_neg]))
    if at == "fpr":
        r = int(np.clip(np.rint(rate * n_neg), 1, n_neg - 1))
        law = vertical_distribution(pos, neg, [r])
        blocks = _Blocks(*sizes, _Windows.of_pmf(_moving_pmf(law, n_pos, a)), _Windows.point(r))
        return np.sort(neg)[::-1][r - 1], float(law.tpr[0] * n_pos), float(r), blocks
    k = int(np.clip(np.rint(rate * n_pos), 1, n_pos - 1))
    law = vertical_distribution(-neg, -pos, [n_pos - k], side="upper")
    true_negatives = _Windows.of_pmf(_moving_pmf(law, n_neg, a))
    blocks = _Blocks(*sizes, _Windows.point(k), true_negatives.complement(np.array([n_neg])))
    fp = float(n_neg - law.tpr[0] * n_neg)
    return np.sort(pos)[::-1][k - 1], float(k), fp, blocks


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
