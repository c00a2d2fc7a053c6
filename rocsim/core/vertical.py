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
is one sort of the negatives and a count of the positives at the band's thresholds. The
mixture itself (weights, pmf, moments, quantiles) is :mod:`rocsim.core.mixture`'s; horizontal
averaging, the same law with the classes exchanged, is :mod:`rocsim.core.horizontal`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
from scipy import special

from rocsim.core._validation import (
    SCHEMES,
    as_real_array,
    check_choice,
    check_confidence_level,
    check_probability,
    check_rates,
    check_two_classes,
)
from rocsim.core.counting import count_above, count_at_or_above, sorted_scores
from rocsim.core.curve_covariance import tpr_covariance
from rocsim.core.formulas import QUANTILE_SLACK
from rocsim.core.interpolated import InterpolatedComponents, interpolated_law, shares_scores
from rocsim.core.intervals import check_pseudo_count
from rocsim.core.methods import PROBE_LEVEL, MethodProtocol, call_method, check_method, method_name
from rocsim.core.mixture import (
    WEIGHT_FLOOR,
    BinomialMixture,
    mixture_moments,
    mixture_pmf,
    rank_weights,
)
from rocsim.core.registry import formulas, method_info, names
from rocsim.core.results import Interval, Result, from_law
from rocsim.core.threshold import class_count_law


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
    ties : {"step", "interpolate"}
        How scores shared across the classes are read (:func:`vertical_distribution`).
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
    _rates: np.ndarray | None = field(default=None, repr=False)
    ties: str = "step"

    _columns = ("r", "fpr", "tpr", "mean", "var")
    _settings = ("bootstrap", "side", "ties")

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
        method : {'score', 'wald', 'agresti', 'percentile'} or callable, default 'score'
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
        method = check_method(
            method, VERTICAL_METHODS, VERTICAL_PROTOCOL, "vertical interval method"
        )
        return self._interval(level, method, check_pseudo_count(method, pseudo_count, "vertical"))

    def _interval(self, level: float, method: str | Callable, a: float | None) -> VerticalCI:
        """:meth:`ci` on a checked level, method and pseudo-count (the public functions check
        them once, at their entry)."""
        law = self
        if a is not None:  # a method with a pseudo-count (registry): on the adjusted mixture
            self._require_stratified(f"the {method_name(method)} interval")
            mean, var = mixture_moments(self._q, self._w, self.m_pos, a)
            law = replace(self, mean=mean, var=var, m_pos=self.m_pos + 2 * a)
        low, high = call_method(method, VERTICAL_METHODS, law, level)
        # it reports the moments its interval is built on, as its Wald interval does
        return VerticalCI.from_bounds(law, low, high, level, method_name(method))

    @cached_property
    def cov(self) -> np.ndarray:
        """``cov[i, j] = Cov(TPR_i, TPR_j)``, the exact bootstrap covariance of TPR across the
        FPRs ``fpr[i]``, ``fpr[j]`` (stratified only); the diagonal is :attr:`var`.

        Computed on first access by :func:`rocsim.core.curve_covariance.tpr_covariance`: the
        joint law of the two bootstrap thresholds' ranks (a Markov chain on the resampled
        negatives), with ties and on either side of the vertical step.

        Examples
        --------
        >>> law = vertical_distribution([0.9, 0.8, 0.3], [0.7, 0.5, 0.2], [1, 2])
        >>> law.cov.round(4).tolist()
        [[0.0753, 0.0579], [0.0579, 0.0762]]
        """
        self._require_stratified("the covariance across FPRs")
        t = threshold_ranks(self.r, self.side)
        return tpr_covariance(self._rates, t, self._rates.size, self.m_pos, self.mean, self.var)

    @cached_property
    def pmf(self) -> np.ndarray:
        """``pmf[i, l] = Pr{TPR = l / m+}`` at ``fpr[i]`` (eq. 4.12); rows sum to 1.

        Stratified bootstrap only: under the full bootstrap ``N+`` is random, so TPR has no
        common support ``{0, 1/m+, ..., 1}``.
        """
        self._require_stratified("the pmf of TPR")
        return mixture_pmf(self._q, self._w, self.m_pos)

    def cdf(self, x) -> np.ndarray:
        """``Pr{TPR <= x[i]}`` at each FPR (``x``: one value per FPR, or one for all;
        stratified only): the mixture's distribution function (eq. 4.12).

        Examples
        --------
        >>> law = vertical_distribution([0.9, 0.8, 0.3], [0.7, 0.5, 0.2], [1])
        >>> law.cdf(1 / 3).round(4).tolist()
        [0.2497]
        """
        self._require_stratified("the distribution function of TPR")
        x = np.broadcast_to(np.asarray(x, dtype=float), self.r.shape)
        # a support point l / m+ at x counts, despite rounding
        at = np.floor(x * self.m_pos * (1 + 1e-15))
        inside = (at >= 0) & (at < self.m_pos)
        out = self._mixture.cdf(np.clip(at, 0, self.m_pos), inside)
        return np.where(at >= self.m_pos, 1.0, np.where(inside, out, 0.0))

    def quantile(self, p: float) -> np.ndarray:
        """Smallest ``l / m+`` with ``Pr{TPR <= l / m+} >= p`` at every FPR (stratified only).

        The exact quantile of the mixture CDF ``sum_c w_c B(l; m+, q_c)`` (eq. 4.12), found
        by :meth:`BinomialMixture.quantile` without building the ``(len(r), m+ + 1)`` pmf:
        ``F`` is evaluated near a Cornish-Fisher guess (table lookups for small ``m+``, else
        one ``bdtr`` a row plus Gauss-Legendre integrals) with a bound on its error, and a
        bound is returned only where ``F(l - 1) < p <= F(l)`` holds beyond that bound (else
        bisection on ``bdtr``): the same ``l`` as the quantile of the dense exact pmf.
        """
        p = check_probability(p)
        self._require_stratified("the quantiles of TPR")
        sd = np.sqrt(self.var)
        guess = self.mean + special.ndtri(min(max(p, 1e-300), 1 - 1e-16)) * sd
        return self._mixture.quantile(p, guess, sd / 4) / self.m_pos

    @cached_property
    def _mixture(self) -> BinomialMixture:
        return BinomialMixture(self._q, self._w, self.m_pos)

    def _require_stratified(self, what: str) -> None:
        if self.bootstrap != "stratified":
            raise NotImplementedError(
                f"{what} is defined for bootstrap='stratified' only (under the full "
                "bootstrap N+ is random); mean and var are exact for both"
            )


@dataclass(frozen=True, repr=False)
class InterpolatedDistribution(VerticalDistribution):
    """Exact stratified-bootstrap law of TPR at the FPRs ``r / m-`` with scores shared across
    the classes read along the diagonal (``ties="interpolate"``,
    :mod:`rocsim.core.interpolated`): the attributes and ``ci(...)``, :meth:`cdf` and
    :meth:`quantile` of :class:`VerticalDistribution`; its support is not the grid ``l / m+``,
    so it has no ``pmf`` (and no ``cov``). Without a score shared across the classes it is the
    step law, and computed as such (no ``_components``)."""

    ties: str = "interpolate"
    _components: InterpolatedComponents | None = field(default=None, repr=False)

    def _summary(self) -> str:
        return super()._summary() + ", ties interpolated"

    @property
    def pmf(self) -> np.ndarray:
        raise NotImplementedError(
            "the law with ties='interpolate' is not on the grid l / m+: use cdf() or quantile()"
        )

    @property
    def cov(self) -> np.ndarray:
        raise NotImplementedError("the covariance across FPRs is built for ties='step' only")

    def cdf(self, x) -> np.ndarray:
        """``Pr{TPR <= x[i]}`` at each FPR (``x``: one value per FPR, or one for all)."""
        if self._components is None:
            return super().cdf(x)
        return self._components.cdf(np.broadcast_to(np.asarray(x, dtype=float), self.r.shape))

    def quantile(self, p: float) -> np.ndarray:
        """Smallest TPR with ``Pr{TPR <= it} >= p`` at every FPR (exact support points)."""
        p = check_probability(p)
        if self._components is None:
            return super().quantile(p)
        return self._components.quantile(p)

    def _interval(self, level: float, method, a: float | None) -> VerticalCI:
        if a is not None:  # pseudo-counts are added to the step law's binomial mixture
            others = ", ".join(names("vertical", pseudo_count=False))
            raise ValueError(
                f"the {method_name(method)} interval needs the step law (ties='step'); with "
                f"ties='interpolate' use {others}"
            )
        if method == "percentile" and self._components is not None:
            # both tails' quantiles in one pass over the rows' laws (equal_tailed's levels;
            # kept by the components, so the interval reads them back)
            tail = (1 - level) / 2
            self._components.quantiles([tail - QUANTILE_SLACK, 1 - tail - QUANTILE_SLACK])
        return super()._interval(level, method, a)


def rates_at_ranks(pos: np.ndarray, neg_desc: np.ndarray, side: str) -> np.ndarray:
    """``rates[c - 1]``: share of positives reaching the ``c``-th largest negative, scoring
    ``>=`` it (lower side) or ``>`` it (upper side), for every rank ``c``; non-decreasing in
    ``c``. One pass over the data serves the data's TPR (:func:`empirical_tpr`) and every
    band of :func:`_moments` (the same integer counts, so the same shares, as counting at
    each threshold apart)."""
    # the bands cover most ranks once n- is large, so count at every negative in one pass
    # (looked up in ascending order, which searchsorted walks faster)
    count = count_at_or_above if side == "lower" else count_above
    return count(pos, neg_desc[::-1])[::-1] / pos.size


def threshold_ranks(r: np.ndarray, side: str) -> np.ndarray:
    """Rank of the bootstrap threshold among the resampled negatives at FPR ``r / m-``: the
    ``r``-th largest (the bottom of the vertical step) or the ``(r + 1)``-th (its top)."""
    return r if side == "lower" else r + 1


def empirical_tpr(
    pos: np.ndarray,
    neg_desc: np.ndarray,
    r: np.ndarray,
    side: str,
    rates: np.ndarray | None = None,
) -> np.ndarray:
    """The data's TPR at FPR ``r / n-``: positives scoring ``>=`` the ``r``-th largest negative
    (lower side), or ``>`` the ``(r + 1)``-th (upper side; past the last negative, all).
    ``rates``: the data's :func:`rates_at_ranks` on ``side``, if computed already (then
    looked up, for ``r <= n- - 1``)."""
    if rates is not None:
        return tpr_at_ranks(rates, r, side)
    if side == "lower":
        return count_at_or_above(pos, neg_desc[r - 1]) / pos.size
    below = np.append(neg_desc, -np.inf)  # no (n- + 1)-th negative: every positive is above
    return count_above(pos, below[r]) / pos.size


def tpr_at_ranks(rates: np.ndarray, r: np.ndarray, side: str) -> np.ndarray:
    """The data's TPR at FPR ``r / n-`` (``r <= n- - 1``) from its :func:`rates_at_ranks`."""
    return rates[threshold_ranks(r, side) - 1]


def _moments(
    rates: np.ndarray, r, m_neg: int, m_pos: int, pseudo_count: float = 0.0, side: str = "lower"
):
    """Mean and variance of TPR at the FPR ranks ``r`` (eqs. 4.13-4.14), and the mixture's
    ``q`` and weights ``w`` (eq. 4.12), each row of ``w`` normalised to sum to 1.

    ``rates``: the data's :func:`rates_at_ranks` on ``side`` (one per negative).
    ``side="upper"``: the threshold is the ``(r + 1)``-th largest resampled negative and a
    positive counts when it scores strictly above it; the law is the same mixture with those
    ranks and counts. ``pseudo_count``: see :func:`mixture_moments`.
    """
    ranks = tuple(threshold_ranks(np.asarray(r), side).tolist())
    weights = rank_weights(rates.size, m_neg, ranks)
    q = np.take(rates, weights.index)  # a gather: faster than fancy indexing
    # the band leaves out weights below WEIGHT_FLOOR (< ~1e-15 per row): renormalised, the
    # mean is a convex combination of the q and the rows of the pmf sum to 1 up to rounding
    w = weights.normalised
    mean, var = mixture_moments(q, w, m_pos, pseudo_count, weights.layout)
    return mean, var, q, w


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


def nearest_ranks(fpr, m_neg: int, averaging: str = "vertical") -> np.ndarray:
    """Per target FPR, the rank ``r`` in ``1..m- - 1`` whose ``r/m-`` is nearest (a rank per
    target, in the targets' order; targets closer together than ``1/m-`` share one).
    ``averaging="horizontal"``: TPR targets, ranks among the ``m+`` positives."""
    if m_neg < 2:
        who, size, rate = (
            ("positives", "m+", "TPR") if averaging == "horizontal" else ("negatives", "m-", "FPR")
        )
        raise ValueError(
            f"{averaging} averaging needs at least 2 {who} ({rate} ranks 1..{size} - 1), "
            f"got {m_neg}"
        )
    rates = check_rates(fpr, "fpr" if averaging == "vertical" else "tpr")
    return np.clip(np.rint(rates * m_neg), 1, m_neg - 1).astype(np.int64)


def fpr_ranks(fpr, m_neg: int, averaging: str = "vertical") -> np.ndarray:
    """The distinct ranks of :func:`nearest_ranks`, ascending: the FPR grid of a study.

    With ``m- < 100`` and the thesis grid 0.01..0.99 this is every ``r``.
    """
    return np.unique(nearest_ranks(fpr, m_neg, averaging))


#: Ends of the ROC curve's vertical step at an FPR: the thesis's bottom, pROC's top.
SIDES = ("lower", "upper")

#: Readings of a score shared by the two classes: the step ROC curve (the thesis's), or
#: linearly along the diagonal segment it draws (pROC's; :mod:`rocsim.core.interpolated`).
TIES = ("step", "interpolate")


def vertical_distribution(
    pos_scores,
    neg_scores,
    r,
    *,
    bootstrap: str = "stratified",
    side: str = "lower",
    ties: str = "step",
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
    ties : {"step", "interpolate"}, default "step"
        How a score shared by a positive and a negative is read. ``step``: the ROC curve of
        the thresholds ``score >= t``, a step at every negative (the thesis). ``interpolate``:
        linearly along the diagonal segment the shared score draws between two points of the
        curve, as pROC's ``coords``, ``ci.se`` and ``ci.sp`` read it (stratified bootstrap;
        :mod:`rocsim.core.interpolated`); at a vertex, ``side`` still decides. Without ties
        across the classes the two readings are the same law.

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
    check_choice(bootstrap, SCHEMES, "bootstrap scheme")
    check_choice(side, SIDES, "side")
    check_choice(ties, TIES, "ties")
    ranks = check_ranks(r, neg.size)
    if ties == "interpolate":
        check_choice(bootstrap, ("stratified",), "bootstrap (with ties='interpolate')")
        if shares_scores(pos, neg):
            return _interpolated_distribution(pos, neg, ranks, side)
    neg_desc = sorted_scores(neg)[::-1]  # compared with scores only: -0.0 as 0.0
    rates = rates_at_ranks(pos, neg_desc, side)
    if ties == "interpolate":  # no score shared across the classes: the step law
        law = stratified_vertical_law(rates, ranks, pos.size, side)
        return InterpolatedDistribution(
            *(getattr(law, name) for name in ("r", "fpr", "tpr", "mean", "var", "m_pos")),
            "stratified",
            side,
            law._q,
            law._w,
            law._rates,
        )
    if bootstrap == "stratified":
        return stratified_vertical_law(rates, ranks, pos.size, side)
    tpr = empirical_tpr(pos, neg_desc, ranks, side, rates)
    mean, var = _full_moments(pos, neg_desc, ranks, side, rates)
    return VerticalDistribution(ranks, ranks / neg.size, tpr, mean, var, pos.size, bootstrap, side)


def _interpolated_distribution(
    pos: np.ndarray, neg: np.ndarray, ranks: np.ndarray, side: str
) -> InterpolatedDistribution:
    """The :class:`InterpolatedDistribution` of data with a score shared across the classes
    (:func:`rocsim.core.interpolated.interpolated_law`)."""
    tpr, mean, var, components = interpolated_law(pos, neg, ranks, threshold_ranks(ranks, side))
    return InterpolatedDistribution(
        ranks,
        ranks / neg.size,
        tpr,
        mean,
        var,
        pos.size,
        "stratified",
        side,
        _components=components,
    )


def stratified_vertical_law(
    rates: np.ndarray, ranks: np.ndarray, m_pos: int, side: str
) -> VerticalDistribution:
    """The stratified :class:`VerticalDistribution` at the validated FPR ``ranks`` from the
    data's :func:`rates_at_ranks` on ``side`` (the paired law counts them on its own
    ranking of the negatives: the same integers)."""
    n_neg = rates.size
    tpr = tpr_at_ranks(rates, ranks, side)
    mean, var, q, w = _moments(rates, ranks, n_neg, m_pos, side=side)
    return VerticalDistribution(
        ranks, ranks / n_neg, tpr, mean, var, m_pos, "stratified", side, q, w, rates
    )


def _full_moments(
    pos, neg_desc, ranks, side: str, rates: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The full bootstrap's moments: a mixture over the class counts ``N+`` of the stratified
    moments, its variance by the law of total variance (no ``E[X^2] - mean^2`` cancellation,
    as in :func:`mixture_moments`); ``rates``: the data's :func:`rates_at_ranks`, shared by
    every ``N+``."""
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
            mu, v, _, _ = _moments(rates, rr, m_neg, int(m_pos), side=side)
        means.append(mu)
        variances.append(v)
    weight = prob[keep] / prob[keep].sum()
    means, variances = np.array(means), np.array(variances)
    mean = weight @ means
    return mean, weight @ variances + weight @ np.square(means - mean)


@dataclass(frozen=True, repr=False)
class VerticalCI(Interval):
    """Pointwise confidence intervals of TPR at fixed FPRs (vertical averaging): the exact law
    ``law`` (a :class:`VerticalDistribution`) and the bounds at its FPRs.

    Attributes
    ----------
    law : VerticalDistribution
        ``r``, ``fpr`` (``r / m-``), ``tpr`` (the data's, on ``side`` of the vertical step),
        ``mean`` and ``var`` (exact bootstrap moments), ``bootstrap`` and ``side`` are read
        from it.
    low, high : ndarray
        Bounds, clipped to [0, 1]; ``clipped`` marks where the method's bound was outside.
    confidence_level : float
    method : str
    """

    r = from_law("r", "FPR ranks.")
    fpr = from_law("fpr", "FPRs ``r / m-``.")
    tpr = from_law("tpr", "The data's TPR at each FPR (on ``side`` of the vertical step).")
    mean = from_law("mean", "Exact bootstrap mean of TPR.")
    var = from_law("var", "Exact bootstrap variance of TPR.")
    cov = from_law("cov", "Exact bootstrap covariance of TPR across the FPRs (stratified).")
    bootstrap = from_law("bootstrap")
    side = from_law("side")
    ties = from_law("ties")

    _columns = ("r", "fpr", "tpr", "mean", "var", "low", "high", "clipped")
    _settings = ("confidence_level", "method", "bootstrap", "side", "ties")
    _plot_kind = "vertical"

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
    ties: str = "step",
) -> VerticalCI:
    """Confidence intervals for TPR at FPR ``r / m-`` from the exact bootstrap law.

    Parameters
    ----------
    pos_scores, neg_scores : array-like
    r : array-like of int
        FPR ranks (``1 <= r <= n- - 1``).
    confidence_level : float, default 0.95
    method : {'score', 'wald', 'agresti', 'percentile'} or callable, default 'score'
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
    ties : {"step", "interpolate"}, default "step"
        ``interpolate``: scores shared across the classes read linearly along the diagonal,
        as pROC reads them (:func:`vertical_distribution`; not with ``agresti``).

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
    method = check_method(method, VERTICAL_METHODS, VERTICAL_PROTOCOL, "vertical interval method")
    a = check_pseudo_count(method, pseudo_count, "vertical")
    if getattr(method_info("vertical", method), "stratified_only", False):
        check_choice(bootstrap, ("stratified",), f"bootstrap (with method={method!r})")
    law = vertical_distribution(
        pos_scores, neg_scores, r, bootstrap=bootstrap, side=side, ties=ties
    )
    return law._interval(level, method, a)


#: Method name -> interval ``(law, confidence_level) -> (low, high)`` on the exact bootstrap
#: law of TPR (:mod:`rocsim.core.registry`, kind ``vertical``); a user's function with this
#: signature works the same (:mod:`rocsim.core.methods`).
VERTICAL_METHODS: dict[str, Callable] = formulas("vertical")


def _vertical_probe():
    law = vertical_distribution([0.9, 0.8, 0.3, 0.6, 0.75], [0.7, 0.5, 0.2, 0.1, 0.4], [1, 2, 3])
    return (law, PROBE_LEVEL), (3,)


#: How a vertical interval method is called: on the exact law of TPR at each FPR.
VERTICAL_PROTOCOL = MethodProtocol(
    "vertical", "f(law, confidence_level) -> (low, high)", _vertical_probe
)
