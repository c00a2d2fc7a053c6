"""Net benefit (decision curve analysis) with its exact bootstrap law.

At a threshold probability ``t`` a model treats the instances whose predicted probability is
``>= t`` and not 0 (the rule of Vickers & Elkin 2006 and of dcurves, which never treats a
probability of 0: a binary test scored 0/1 treats its positives at ``t = 0`` too); its net
benefit is

    NB(t) = TP / n - FP / n * t / (1 - t),

``TP`` and ``FP`` the treated positives and negatives, ``n`` all instances; "treat all" has
``NB = pi - (1 - pi) t / (1 - t)``, ``pi`` the share of positives, and "treat none" 0.

The exact bootstrap law of ``NB*`` at a fixed ``t``: under the stratified bootstrap (class
sizes kept) ``TP* ~ Bin(n+, TP/n+)`` and ``FP* ~ Bin(n-, FP/n-)`` are independent; under the
full bootstrap (the ``n`` instances resampled together, the class counts random, as in the
thesis's chapter 5) ``(TP*, FP*)`` is multinomial, ``FP* ~ Bin(n, FP/n)`` and ``TP*`` given
``FP* = y`` is ``Bin(n - y, TP / (n - FP))``. Either way ``n NB* = TP* - k FP*`` with
``k = t / (1 - t)``, whose distribution function is the sum over ``y`` of
``Pr{FP* = y} Pr{TP* <= s + k y | FP* = y}`` (binomial distribution functions): the law is
computed without enumerating resamples, its quantiles are exact support points (read off a
window of support points around a first guess, :class:`Lattice`; under the full bootstrap
sliced by the treated count ``TP* + FP*`` instead, so that each slice's distribution function
follows a recurrence, :mod:`rocsim.core.lattice`). Under the full
bootstrap every resample counts (net benefit is defined on all of them), and treat-all has a
law of its own (``NB_all* = pi* (1 + k) - k``, ``n pi* ~ Bin(n, pi)``); under the stratified
bootstrap treat-all is fixed.

References
----------
Vickers, A. J. & Elkin, E. B. (2006). Decision curve analysis: a novel method for evaluating
prediction models. Medical Decision Making 26, 565-574.
Vickers, A. J., Cronin, A. M., Elkin, E. B. & Gonen, M. (2008). Extensions to decision curve
analysis, a novel method for evaluating diagnostic tests, prediction models and molecular
markers. BMC Medical Informatics and Decision Making 8, 53.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from rocsim.core._validation import (
    SCHEMES,
    as_real_array,
    check_choice,
    check_confidence_level,
    check_paired,
    check_two_classes,
)
from rocsim.core.binomial import binomial_pmf
from rocsim.core.counting import count_at_or_above
from rocsim.core.intervals import check_pseudo_count
from rocsim.core.lattice import (
    Lattice,
    MultinomialLattice,
    TableLattice,
    binomial_cumulants,
    binomial_window,
)
from rocsim.core.methods import PROBE_LEVEL, MethodProtocol, call_method, check_method, method_name
from rocsim.core.paired_threshold import _split_law
from rocsim.core.registry import DEFAULT_METHODS, formulas
from rocsim.core.results import Interval, Result, clip_bounds, from_law

#: The law of a difference of two multinomial cells (:func:`_difference_window`) is kept within
#: its mean -+ this many standard deviations (plus :data:`_TAIL_ROOM` values): the mass left out
#: is below ``1e-30``.
_TAIL_SD, _TAIL_ROOM = 12.0, 30


def odds(thresholds) -> np.ndarray:
    """``t / (1 - t)``: the weight of a false positive against a true positive at the
    threshold probability ``t`` (Vickers & Elkin 2006)."""
    t = np.asarray(thresholds, dtype=float)
    return t / (1.0 - t)


def check_threshold_probabilities(thresholds, name: str = "thresholds") -> np.ndarray:
    """Threshold probabilities as a non-empty 1-D float array in ``[0, 1)``, or ``ValueError``
    naming ``name``."""
    t = np.atleast_1d(as_real_array(thresholds, name))
    if t.ndim != 1 or t.size == 0 or not np.all(np.isfinite(t)):
        raise ValueError(f"{name} must be a non-empty 1-D array of finite numbers")
    if np.any(t < 0) or np.any(t >= 1):
        raise ValueError(
            f"{name} must lie in [0, 1) (a probability below 1), got {t.min():g}..{t.max():g}"
        )
    return t


def net_benefit(pos_scores, neg_scores, thresholds) -> np.ndarray:
    """Net benefit ``TP/n - FP/n * t/(1 - t)`` of treating the instances whose probability is
    ``>= t`` (and not 0).

    Examples
    --------
    >>> net_benefit([0.9, 0.6, 0.3], [0.7, 0.2], [0.5]).round(4).tolist()
    [0.2]
    """
    pos, neg = check_two_classes(pos_scores, neg_scores)
    t = check_threshold_probabilities(thresholds)
    return _net_benefit(treated(pos, t), treated(neg, t), pos.size + neg.size, t)


def treated(probabilities: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """How many of ``probabilities`` are treated at each threshold: ``>= t`` and not 0."""
    return count_at_or_above(probabilities[probabilities != 0], thresholds)


def _net_benefit(tp, fp, n: int, t) -> np.ndarray:
    return (tp - odds(t) * fp) / n


def treat_all(n_pos: int, n_neg: int, thresholds) -> np.ndarray:
    """Net benefit of treating everyone: ``pi - (1 - pi) t / (1 - t)``, ``pi = n+ / n``."""
    pi = n_pos / (n_pos + n_neg)
    return pi - (1.0 - pi) * odds(thresholds)


# --- the exact law ------------------------------------------------------------------------------


class _CountLaw(Result):
    """A law of ``n`` times a net benefit (or a difference of two) on a :class:`Lattice`: its
    exact quantiles and distribution function at each threshold."""

    def quantile(self, p: float) -> np.ndarray:
        """The exact ``p``-quantile at each threshold (a support point)."""
        return self._lattice.quantile(p) / (self.n_pos + self.n_neg)

    def cdf(self, x) -> np.ndarray:
        """``Pr{value <= x[i]}`` at each threshold (``x``: one value per threshold, or one)."""
        n = self.n_pos + self.n_neg
        x = np.broadcast_to(np.asarray(x, dtype=float), self.thresholds.shape)
        return np.clip(self._lattice.cdf(x * n), 0.0, 1.0)


@dataclass(frozen=True, repr=False)
class NetBenefitDistribution(_CountLaw):
    """Exact bootstrap law of the net benefit at each threshold probability.

    Attributes
    ----------
    thresholds : ndarray
    net_benefit : ndarray
        The data's net benefit.
    mean, var : ndarray
        Moments of ``NB*`` (the mean is the data's net benefit).
    n_pos, n_neg : int
    bootstrap : {"stratified", "full"}
    """

    thresholds: np.ndarray
    net_benefit: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    n_pos: int
    n_neg: int
    bootstrap: str
    _tp: np.ndarray = field(repr=False, default=None)
    _fp: np.ndarray = field(repr=False, default=None)

    _columns = ("thresholds", "net_benefit", "mean", "var")
    _settings = ("bootstrap",)

    def _summary(self) -> str:
        return (
            f"exact bootstrap law of net benefit at {self.thresholds.size} thresholds, "
            f"{self.bootstrap} bootstrap, n+={self.n_pos}, n-={self.n_neg}"
        )

    @property
    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The range of ``NB*`` at each threshold: ``[-k n-/n, n+/n]`` (stratified) or
        ``[-k, 1]`` (full)."""
        n, k = self.n_pos + self.n_neg, odds(self.thresholds)
        if self.bootstrap == "stratified":
            return -k * self.n_neg / n, np.full(k.shape, self.n_pos / n)
        return -k, np.ones(k.shape)

    def ci(
        self,
        confidence_level: float = 0.95,
        method: str | Callable = DEFAULT_METHODS["net_benefit"],
        *,
        pseudo_count: float | None = None,
    ) -> NetBenefitCI:
        """Intervals of the net benefit from this law (:func:`net_benefit_ci`)."""
        level = check_confidence_level(confidence_level)
        method = check_method(
            method, NET_BENEFIT_METHODS, NET_BENEFIT_PROTOCOL, "net benefit interval method"
        )
        a = check_pseudo_count(method, pseudo_count, "net_benefit")
        return self._interval(level, method, a)

    def _interval(self, level: float, method, a: float | None = None) -> NetBenefitCI:
        law = self if a is None else self._with_pseudo_count(a)
        low, high = call_method(method, NET_BENEFIT_METHODS, law, level)
        return NetBenefitCI.from_bounds(law, low, high, level, method_name(method))

    def _with_pseudo_count(self, a: float) -> NetBenefitDistribution:
        """This law's moments after adding ``a`` to every cell: each class's 2x2 table of
        treated and untreated (stratified; thesis Table 5.1, as the cost curves' ``agresti``),
        or the four cells of the whole table (full), each rate read as a binomial share of
        the adjusted size."""
        n, k = self.n_pos + self.n_neg, odds(self.thresholds)
        if self.bootstrap == "stratified":
            size_pos, size_neg = self.n_pos + 2 * a, self.n_neg + 2 * a
            tpr, fpr = (self._tp + a) / size_pos, (self._fp + a) / size_neg
            mean = (self.n_pos * tpr - k * self.n_neg * fpr) / n
            spread = self.n_pos**2 * tpr * (1 - tpr) / size_pos
            var = (spread + k * k * self.n_neg**2 * fpr * (1 - fpr) / size_neg) / n**2
        else:
            size = n + 4 * a
            hit, miss = (self._tp + a) / size, (self._fp + a) / size
            mean = hit - k * miss
            var = (hit * (1 - hit) + k * k * miss * (1 - miss) + 2 * k * hit * miss) / size
        return replace(self, mean=mean, var=var)

    @cached_property
    def _lattice(self) -> Lattice:
        k = odds(self.thresholds)
        if self.bootstrap == "stratified":
            laws = ((self.n_pos, self._tp / self.n_pos), (self.n_neg, self._fp / self.n_neg))
            (x, px), (y, w) = (binomial_window(np.full(k.shape, float(m)), p) for m, p in laws)
            cumulants = [binomial_cumulants(m, p) for m, p in laws]
            return TableLattice.of(k, x, px, y, w, cumulants)
        return MultinomialLattice.of(self._tp, self._fp, self.n_pos + self.n_neg, k)


def net_benefit_distribution(
    pos_scores, neg_scores, thresholds, *, bootstrap: str = "stratified"
) -> NetBenefitDistribution:
    """Exact bootstrap law of the net benefit at threshold probabilities ``thresholds``.

    Parameters
    ----------
    pos_scores, neg_scores : array-like
        Predicted probabilities of the positives and the negatives.
    thresholds : array-like
        Threshold probabilities in ``[0, 1)``; an instance is treated when its probability is
        ``>= t``.
    bootstrap : {"stratified", "full"}, default "stratified"
        Resample each class apart (class sizes kept), or all instances together (the class
        counts random: the prevalence varies as it does between samples).

    Returns
    -------
    NetBenefitDistribution

    Examples
    --------
    >>> law = net_benefit_distribution([0.9, 0.6, 0.3], [0.7, 0.2], [0.5])
    >>> law.mean.round(4).tolist(), law.var.round(5).tolist()
    ([0.2], [0.04667])
    """
    pos, neg = check_two_classes(pos_scores, neg_scores)
    t = check_threshold_probabilities(thresholds)
    check_choice(bootstrap, SCHEMES, "bootstrap scheme")
    return _distribution(pos, neg, t, bootstrap)


def _distribution(pos, neg, t, bootstrap: str) -> NetBenefitDistribution:
    n_pos, n_neg = pos.size, neg.size
    n = n_pos + n_neg
    tp, fp = treated(pos, t).astype(float), treated(neg, t).astype(float)
    k = odds(t)
    if bootstrap == "stratified":
        a, b = tp / n_pos, fp / n_neg
        var = (n_pos * a * (1 - a) + k * k * n_neg * b * (1 - b)) / n**2
    else:
        a, b = tp / n, fp / n
        var = (a * (1 - a) + k * k * b * (1 - b) + 2 * k * a * b) / n
    nb = _net_benefit(tp, fp, n, t)
    return NetBenefitDistribution(t, nb, nb.copy(), var, n_pos, n_neg, bootstrap, tp, fp)


# --- two models on the same instances -----------------------------------------------------------


def _difference_window(b: np.ndarray, c: np.ndarray, n: int, m: int):
    """Values ``d`` (a run of whole numbers per row) and ``Pr{B - C = d}`` (0 past its window) for
    ``(B, C)`` two cells of ``Mult(m; b/n, c/n, ...)``: the sum over ``S = B + C ~ Bin(m, g)``
    (its window, :func:`rocsim.core.paired_threshold._split_law`) of ``Bin((S + d)/2; S,
    theta)``, ``theta = b / (b + c)``."""
    g, diff = (b + c) / n, (b - c) / n
    sd = np.sqrt(np.maximum(m * (g - diff * diff), 0.0))
    lo = np.maximum(-m, np.floor(m * diff - _TAIL_SD * sd) - _TAIL_ROOM).astype(np.int64)
    hi = np.minimum(m, np.ceil(m * diff + _TAIL_SD * sd) + _TAIL_ROOM).astype(np.int64)
    width = int(np.max(hi - lo)) + 1
    d = lo[:, None] + np.arange(width)[None, :]
    pmf = np.zeros(d.shape)
    totals, weights, theta = _split_law(b, c, n, m, band=True)
    for row in range(b.size):  # one threshold at a time: (window of d) x (window of S)
        total = totals[row][None, :]
        first = (total + d[row][:, None]) / 2
        whole = (first == np.floor(first)) & (first >= 0) & (first <= total)
        cond = np.where(whole, binomial_pmf(np.where(whole, first, 0), total, theta[row]), 0.0)
        pmf[row] = cond @ weights[row]
    return d.astype(float), np.where(d <= hi[:, None], pmf, 0.0)


@dataclass(frozen=True, repr=False)
class NetBenefitDifference(_CountLaw):
    """Exact bootstrap law of ``NB1 - NB2``, two models' net benefits on the same instances,
    at each threshold probability (both bootstraps' moments; the law itself, ``cdf`` and
    ``quantile``, under the stratified bootstrap).

    ``n (NB1* - NB2*) = (B+ - C+) - k (B- - C-)`` with ``B``, ``C`` the instances of a class
    treated by the first model only and by the second only: under the stratified bootstrap
    two independent differences of multinomial cells.
    """

    thresholds: np.ndarray
    net_benefit1: np.ndarray
    net_benefit2: np.ndarray
    mean: np.ndarray
    var: np.ndarray
    n_pos: int
    n_neg: int
    bootstrap: str
    _counts: tuple = field(repr=False, default=())

    _columns = ("thresholds", "net_benefit1", "net_benefit2", "difference", "mean", "var")
    _settings = ("bootstrap",)

    @property
    def difference(self) -> np.ndarray:
        return self.net_benefit1 - self.net_benefit2

    @property
    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The range of ``NB1* - NB2*``: ``-+ (n+ + k n-) / n`` (stratified) or
        ``-+ max(1, k)`` (full)."""
        n, k = self.n_pos + self.n_neg, odds(self.thresholds)
        if self.bootstrap == "stratified":
            reach = (self.n_pos + k * self.n_neg) / n
        else:
            reach = np.maximum(1.0, k)
        return -reach, reach

    def _summary(self) -> str:
        return (
            f"exact bootstrap law of NB1 - NB2 at {self.thresholds.size} thresholds, "
            f"{self.bootstrap} bootstrap, n+={self.n_pos}, n-={self.n_neg}"
        )

    def ci(self, confidence_level: float = 0.95, method: str | Callable = "percentile"):
        """Intervals of ``NB1 - NB2`` from this law (:func:`net_benefit_difference_ci`)."""
        level = check_confidence_level(confidence_level)
        return self._interval(level, check_difference_method(method, self.bootstrap))

    def _interval(self, level: float, method) -> NetBenefitDifferenceCI:
        low, high = call_method(method, NET_BENEFIT_DIFFERENCE_METHODS, self, level)
        return NetBenefitDifferenceCI.from_bounds(self, low, high, level, method_name(method))

    @cached_property
    def _lattice(self) -> Lattice:
        if self.bootstrap != "stratified":
            raise NotImplementedError(
                "the law of NB1 - NB2 beyond its moments is built for bootstrap='stratified' "
                "only; under the full bootstrap use method='wald' (its exact moments)"
            )
        b_pos, c_pos, b_neg, c_neg = self._counts
        x, px = _difference_window(b_pos, c_pos, self.n_pos, self.n_pos)
        y, w = _difference_window(b_neg, c_neg, self.n_neg, self.n_neg)
        return TableLattice.of(odds(self.thresholds), x, px, y, w)


def net_benefit_difference_distribution(
    pos1, pos2, neg1, neg2, thresholds, *, bootstrap: str = "stratified"
) -> NetBenefitDifference:
    """Exact bootstrap law of the difference of two models' net benefits on the same
    instances (``pos1[i]``, ``pos2[i]``: the two models' probabilities of positive ``i``).

    Examples
    --------
    >>> law = net_benefit_difference_distribution(
    ...     [0.9, 0.6, 0.3], [0.8, 0.4, 0.6], [0.7, 0.2], [0.3, 0.1], [0.5])
    >>> law.difference.round(4).tolist(), law.var.round(4).tolist()
    ([-0.2], [0.1])
    """
    pos1, pos2, neg1, neg2 = check_paired(pos1, pos2, neg1, neg2)
    t = check_threshold_probabilities(thresholds)
    check_choice(bootstrap, SCHEMES, "bootstrap scheme")
    return _difference(pos1, pos2, neg1, neg2, t, bootstrap)


def _difference(pos1, pos2, neg1, neg2, t, bootstrap: str) -> NetBenefitDifference:
    n_pos, n_neg = pos1.size, neg1.size
    n, k = n_pos + n_neg, odds(t)
    b_pos, c_pos = _discordant(pos1, pos2, t)
    b_neg, c_neg = _discordant(neg1, neg2, t)
    nb1 = _net_benefit(treated(pos1, t), treated(neg1, t), n, t)
    nb2 = _net_benefit(treated(pos2, t), treated(neg2, t), n, t)
    if bootstrap == "stratified":
        var = (_spread(b_pos, c_pos, n_pos) + k * k * _spread(b_neg, c_neg, n_neg)) / n**2
    else:  # one instance adds +1, -1, -k, +k or 0 to n (NB1 - NB2)
        shares = np.array([b_pos, c_pos, b_neg, c_neg]) / n
        mean = shares[0] - shares[1] - k * (shares[2] - shares[3])
        var = (shares[0] + shares[1] + k * k * (shares[2] + shares[3]) - mean**2) / n
    counts = (b_pos, c_pos, b_neg, c_neg)
    return NetBenefitDifference(t, nb1, nb2, nb1 - nb2, var, n_pos, n_neg, bootstrap, counts)


def _discordant(first: np.ndarray, second: np.ndarray, t: np.ndarray):
    """Instances treated by the first model only and by the second only, at each ``t``."""
    one = (first[:, None] >= t) & (first[:, None] != 0)
    two = (second[:, None] >= t) & (second[:, None] != 0)
    return np.sum(one & ~two, axis=0).astype(float), np.sum(two & ~one, axis=0).astype(float)


def _spread(b, c, m: int) -> np.ndarray:
    """``Var(B - C)`` for two cells of ``Mult(m; b/m, c/m, ...)``."""
    g, d = (b + c) / m, (b - c) / m
    return m * (g - d * d)


def check_difference_method(method, bootstrap: str):
    method = check_method(
        method,
        NET_BENEFIT_DIFFERENCE_METHODS,
        NET_BENEFIT_DIFFERENCE_PROTOCOL,
        "net benefit interval method",
    )
    if method == "percentile" and bootstrap != "stratified":
        raise ValueError(
            "method='percentile' for NB1 - NB2 needs bootstrap='stratified' (under the full "
            "bootstrap its law is computed to its moments only: use method='wald')"
        )
    return method


# --- intervals ----------------------------------------------------------------------------------


class _ClippedToLaw(Interval):
    """An interval clipped to the range of its law at each threshold (``law.bounds``)."""

    @classmethod
    def from_bounds(cls, law, low, high, confidence_level: float, method: str):
        low, high, clipped = clip_bounds(low, high, law.bounds)  # per threshold
        return cls(law, low, high, confidence_level, method, clipped)


@dataclass(frozen=True, repr=False)
class NetBenefitCI(_ClippedToLaw):
    """Intervals of the net benefit at each threshold probability, on its exact law
    (:func:`net_benefit_ci`); bounds clipped to the range of ``NB*``."""

    thresholds = from_law("thresholds")
    net_benefit = from_law("net_benefit")
    mean = from_law("mean")
    var = from_law("var")

    _columns = ("thresholds", "net_benefit", "mean", "var", "low", "high", "clipped")
    _settings = ("confidence_level", "method")

    def _summary(self) -> str:
        return f"net benefit at {self.thresholds.size} thresholds ({self._level_and_method()})"


@dataclass(frozen=True, repr=False)
class NetBenefitDifferenceCI(_ClippedToLaw):
    """Intervals of ``NB1 - NB2`` at each threshold probability on its exact law; bounds
    clipped to its range."""

    thresholds = from_law("thresholds")
    net_benefit1 = from_law("net_benefit1")
    net_benefit2 = from_law("net_benefit2")
    difference = from_law("difference")
    var = from_law("var")

    _columns = ("thresholds", "net_benefit1", "net_benefit2", "difference", "var", "low", "high")
    _settings = ("confidence_level", "method")

    def _summary(self) -> str:
        return f"NB1 - NB2 at {self.thresholds.size} thresholds ({self._level_and_method()})"


#: Method name -> interval ``(law, confidence_level) -> (low, high)`` on the exact law of the
#: net benefit (:mod:`rocsim.core.registry`, kind ``net_benefit``).
NET_BENEFIT_METHODS: dict[str, Callable] = formulas("net_benefit")
#: The same for ``NB1 - NB2`` (kind ``net_benefit_difference``).
NET_BENEFIT_DIFFERENCE_METHODS: dict[str, Callable] = formulas("net_benefit_difference")


def _probe():
    law = net_benefit_distribution([0.9, 0.8, 0.3, 0.6], [0.7, 0.5, 0.2, 0.1], [0.25, 0.5, 0.75])
    return (law, PROBE_LEVEL), (3,)


def _difference_probe():
    law = net_benefit_difference_distribution(
        [0.9, 0.8, 0.3, 0.6],
        [0.7, 0.85, 0.5, 0.4],
        [0.7, 0.5, 0.2, 0.1],
        [0.6, 0.3, 0.4, 0.2],
        [0.25, 0.5, 0.75],
    )
    return (law, PROBE_LEVEL), (3,)


#: How a net-benefit interval method is called: on the exact law at each threshold.
NET_BENEFIT_PROTOCOL = MethodProtocol(
    "net_benefit", "f(law, confidence_level) -> (low, high)", _probe
)


#: How a method for ``NB1 - NB2`` is called: on its exact law (mean, var, quantile).
NET_BENEFIT_DIFFERENCE_PROTOCOL = MethodProtocol(
    "net_benefit_difference", "f(law, confidence_level) -> (low, high)", _difference_probe
)
