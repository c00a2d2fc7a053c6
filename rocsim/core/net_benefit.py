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

The difference of two models' net benefits on the same instances has an exact law under both
bootstraps (:class:`NetBenefitDifference`): ``n (NB1* - NB2*)`` counts the instances treated
by one model only, four cells, two of each class; under the full bootstrap, where the four are
drawn together, its law is a mixture over the draws of one class's two cells
(:class:`rocsim.core.lattice.MixtureLattice`).

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
from rocsim.core.counting import count_at_or_above
from rocsim.core.formulas import QUANTILE_SLACK
from rocsim.core.intervals import check_pseudo_count
from rocsim.core.lattice import (
    Lattice,
    MixtureLattice,
    MultinomialLattice,
    TableLattice,
    binomial_cumulants,
    binomial_window,
    mixture_lattice,
)
from rocsim.core.methods import PROBE_LEVEL, MethodProtocol, call_method, check_method, method_name
from rocsim.core.registry import DEFAULT_METHODS, formulas
from rocsim.core.results import Interval, Result, clip_bounds, from_law
from rocsim.core.trinomial import difference_pmf

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
    ``(B, C)`` two cells of ``Mult(m; b/n, c/n, ...)``, the window the mean -+ 12 sd (+ 30
    values), by the law's characteristic function (:func:`rocsim.core.trinomial.difference_pmf`;
    a sum over ``B + C`` of binomial laws cost a binomial pmf per pair of values)."""
    g, diff = (b + c) / n, (b - c) / n
    sd = np.sqrt(np.maximum(m * (g - diff * diff), 0.0))
    lo = np.maximum(-m, np.floor(m * diff - _TAIL_SD * sd) - _TAIL_ROOM).astype(np.int64)
    hi = np.minimum(m, np.ceil(m * diff + _TAIL_SD * sd) + _TAIL_ROOM).astype(np.int64)
    width = int(np.max(hi - lo)) + 1
    d = lo[:, None] + np.arange(width)[None, :]
    pmf = difference_pmf(m, b / n, c / n, lo, width)
    return d.astype(float), np.where(d <= hi[:, None], pmf, 0.0)


@dataclass(frozen=True, repr=False)
class NetBenefitDifference(_CountLaw):
    """Exact bootstrap law of ``NB1 - NB2``, two models' net benefits on the same instances,
    at each threshold probability: its moments, ``cdf`` and ``quantile`` under either
    bootstrap.

    ``n (NB1* - NB2*) = (B+ - C+) - k (B- - C-)`` with ``B``, ``C`` the instances of a class
    treated by the first model only and by the second only. Under the stratified bootstrap two
    independent differences of multinomial cells; under the full bootstrap the four cells are
    drawn together, and the two differences depend on each other through the count of draws
    they share: given the draws ``O`` of one class's two cells, one difference is ``2B - O``
    with ``B`` binomial and the other a difference of two cells of a multinomial on the other
    ``n - O`` draws, independent of it (:class:`rocsim.core.lattice.MixtureLattice`).
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
    _quantiles: dict = field(repr=False, compare=False, default_factory=dict)  # level -> them

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

    def ci(
        self,
        confidence_level: float = 0.95,
        method: str | Callable = "percentile",
        *,
        pseudo_count: float | None = None,
    ):
        """Intervals of ``NB1 - NB2`` from this law (:func:`net_benefit_difference_ci`)."""
        level = check_confidence_level(confidence_level)
        method = check_difference_method(method)
        a = check_pseudo_count(method, pseudo_count, "net_benefit_difference")
        return self._interval(level, method, a)

    def _with_pseudo_count(self, a: float) -> NetBenefitDifference:
        """This law's moments after adding ``a`` to every cell of each class's paired table
        (treated by both, by the first only, by the second only, by neither; stratified), or
        of the whole table's eight (full), each discordant share read of the adjusted size:
        as the net benefit's ``agresti`` (:meth:`NetBenefitDistribution._with_pseudo_count`),
        so that a difference of few discordant instances is not a point mass at 0."""
        n, k = self.n_pos + self.n_neg, odds(self.thresholds)
        if self.bootstrap == "stratified":
            sizes = self.n_pos + 4 * a, self.n_neg + 4 * a
            shares = [(cell + a) / size for cell, size in zip(self._counts, np.repeat(sizes, 2))]
            mean = (
                self.n_pos * (shares[0] - shares[1]) - k * self.n_neg * (shares[2] - shares[3])
            ) / n
            var = (
                self.n_pos**2 * _share_spread(shares[0], shares[1]) / sizes[0]
                + k * k * self.n_neg**2 * _share_spread(shares[2], shares[3]) / sizes[1]
            ) / n**2
        else:
            size = n + 8 * a
            shares = [(cell + a) / size for cell in self._counts]
            mean = shares[0] - shares[1] - k * (shares[2] - shares[3])
            var = (shares[0] + shares[1] + k * k * (shares[2] + shares[3]) - mean**2) / size
        return replace(self, mean=mean, var=var)

    def quantile(self, p: float) -> np.ndarray:
        """The exact ``p``-quantile at each threshold (a support point), kept for the next
        call at ``p``."""
        if float(p) not in self._quantiles:
            self._read_quantiles([p])
        return self._quantiles[float(p)].copy()

    def _read_quantiles(self, levels: list[float]) -> None:
        """Keep the quantiles at ``levels``, from one search of the law for all of them (its
        rows read once for all the levels' windows, :meth:`rocsim.core.lattice.Lattice.
        quantiles`)."""
        found = self._lattice.quantiles(levels) / (self.n_pos + self.n_neg)
        self._quantiles.update(zip((float(p) for p in levels), found))

    def _interval(self, level: float, method, a: float | None = None) -> NetBenefitDifferenceCI:
        if a is not None:  # a method with a pseudo-count: on the adjusted moments
            law = self._with_pseudo_count(a)
            low, high = call_method(method, NET_BENEFIT_DIFFERENCE_METHODS, law, level)
            return NetBenefitDifferenceCI.from_bounds(law, low, high, level, method_name(method))
        if method == "percentile":  # both tails in one search (equal_tailed's levels)
            tail = (1 - level) / 2
            self._read_quantiles([tail - QUANTILE_SLACK, 1 - tail - QUANTILE_SLACK])
        low, high = call_method(method, NET_BENEFIT_DIFFERENCE_METHODS, self, level)
        return NetBenefitDifferenceCI.from_bounds(self, low, high, level, method_name(method))

    @cached_property
    def _lattice(self) -> Lattice:
        b_pos, c_pos, b_neg, c_neg = self._counts
        k = odds(self.thresholds)
        if self.bootstrap == "full":
            return _full_difference_lattice(self._counts, self.n_pos + self.n_neg, k)
        x, px = _difference_window(b_pos, c_pos, self.n_pos, self.n_pos)
        y, w = _difference_window(b_neg, c_neg, self.n_neg, self.n_neg)
        return TableLattice.of(k, x, px, y, w)


def _full_difference_lattice(counts: tuple, n: int, k: np.ndarray) -> MixtureLattice:
    """The full bootstrap's law of ``n (NB1* - NB2*) = (B+ - C+) - k (B- - C-)``, the four
    discordant cells drawn together (:func:`rocsim.core.lattice.mixture_lattice`). A slice
    costs a sum over the outer count only where its reading is neither 0 nor 1: where
    ``0 < k < 1`` the slices are the positives' difference and the negatives' is read in them
    (``alpha = k``), so that about ``k`` times the negatives' window of slices cost one; where
    ``k >= 1`` the other way round (``alpha = 1``), and at ``k = 0`` too (``alpha > 0``)."""
    b_pos, c_pos, b_neg, c_neg = counts
    by_positives = (k > 0) & (k < 1)
    outer = np.where(by_positives, c_neg, b_pos), np.where(by_positives, b_neg, c_pos)
    other = np.where(by_positives, b_pos, b_neg), np.where(by_positives, c_pos, c_neg)
    alpha, beta = np.where(by_positives, k, 1.0), np.where(by_positives, -1.0, k)
    return mixture_lattice(n, outer, other, alpha, beta)


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
    return m * _share_spread(b / m, c / m)


def _share_spread(b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``Var(B - C) / m`` for two cells of shares ``b``, ``c`` of a multinomial of ``m``."""
    return b + c - (b - c) ** 2


def check_difference_method(method: str | Callable) -> str | Callable:
    """An interval method for ``NB1 - NB2`` (a name of the registry's
    ``net_benefit_difference`` kind or a function of the law), or ``ValueError``."""
    return check_method(
        method,
        NET_BENEFIT_DIFFERENCE_METHODS,
        NET_BENEFIT_DIFFERENCE_PROTOCOL,
        "net benefit interval method",
    )


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
