"""The multiclass AUC with its variance: one-vs-one (Hand & Till 2001) and one-vs-rest, macro
or prevalence-weighted, as scikit-learn's ``roc_auc_score(multi_class=, average=)`` computes it.

Every such AUC, and the paired difference of two models', is a weighted sum of two-sample AUC
kernels between classes: in the block of classes ``a < b`` (``x`` an instance of ``a``, ``y``
one of ``b``),

    K_ab(x, y) = sum_t c_t psi(u_t(x), v_t(y)),

``psi(u, v) = [u > v] + [u = v] / 2``, each term a classifier's score column oriented so that
class ``a`` is the positive one (class ``b``'s own column enters negated). One-vs-one puts
``w_ab / (2 n_a n_b)`` on column ``a`` and on column ``b`` of block ``ab``; one-vs-rest puts
``w_k / (n_k (n - n_k))`` on column ``k`` in every block of class ``k``.

The stratified bootstrap resamples each class separately (multinomial weights ``W``, ``E W =
1``, ``Cov(W_x, W_x') = delta - 1 / n_a`` within a class, independent across classes). With
``W = 1 + e``, ``theta* - theta = sum_x r_x e_x + sum_ab sum_xy K_ab(x, y) e_x e_y``, where
``r_x`` sums ``K`` over every partner of ``x`` in the other classes; the two parts are
uncorrelated (a lone ``e`` of a class has mean 0) and the products of different blocks too,
so

    Var = sum_a SS_a(r) + sum_(a < b) DC_ab,

``SS_a`` the sum of squared deviations within class ``a`` and ``DC_ab`` the doubly centred
sum of squares of block ``ab``: ``sum K^2 - SS(R) / n_b - SS(C) / n_a - T^2 / (n_a n_b)`` with
its row sums ``R``, column sums ``C`` and total ``T``. Exact, in ``O(n log n)`` per block from
the counts of :mod:`rocsim.core.area` (``sum K^2`` needs the cross sums of each block's terms,
counted over two orderings at once). The DeLong-type (placement-value) variance is
``sum_a n_a / (n_a - 1) SS_a(r)``; for two classes both reduce to
:func:`rocsim.core.area.auc_ci`'s.

``method="mover"`` (:func:`weighted_mover_bounds`) is no normal interval: Zou & Donner's
(2008) method of variance estimates recovery on each component's score interval (Newcombe's
2006 shape, carried to the component's DeLong variance), with DeLong's variance of the
average for the components' covariances.

References
----------
Hand, D. J. & Till, R. J. (2001). A simple generalisation of the area under the ROC curve for
multiple class classification problems. Machine Learning 45, 171-186.
DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). Biometrics 44, 837-845.
Newcombe, R. G. (2006). Confidence intervals for an effect size measure based on the
Mann-Whitney statistic. Part 2: asymptotic methods and evaluation. Statistics in Medicine 25,
559-573.
Zou, G. Y. & Donner, A. (2008). Construction of confidence limits about effect measures: a
general approach. Statistics in Medicine 27, 1693-1702.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from typing import ClassVar

import numpy as np
from scipy import special

from rocsim.core._deprecated import module_getattr
from rocsim.core._validation import as_real_array, check_choice, check_confidence_level
from rocsim.core.area import (
    AUC_METHODS,
    Hypothesis,
    _cross_sum,
    _Kernel,
    _kernel,
    _sum_sq_dev,
    check_hypothesis,
    hypothesis_summary,
    polarized_covariance,
)
from rocsim.core.auc_methods import (
    Pivot,
    _score,
    inverted_p_value,
    pivot_interval,
    pivot_p_value,
    rescaled_newcombe_var,
    rescaled_score_bounds,
)
from rocsim.core.registry import method_info, names
from rocsim.core.results import Result

#: scikit-learn's ``multi_class`` values rocsim computes.
MULTI_CLASS = ("ovo", "ovr")
#: scikit-learn's ``average`` values rocsim computes.
AVERAGES = ("macro", "weighted")
#: Methods of :func:`multiclass_auc_ci`: the variances of its normal interval, and the
#: MOVER (:func:`weighted_mover_bounds`) (:mod:`rocsim.core.registry`, kind
#: ``multiclass_auc``).
MULTICLASS_AUC_METHODS = names("multiclass_auc")
#: Methods of :func:`multiclass_auc_difference_ci`: the variances with the normal
#: quantile, and DeLong's with Student's t on its Welch-Satterthwaite degrees of freedom.
MULTICLASS_AUC_DIFFERENCE_METHODS = names("multiclass_auc_difference")


@dataclass(frozen=True)
class _Term:
    """``coef psi(u, v)`` over the instances of a block's two classes."""

    coef: float
    u: np.ndarray
    v: np.ndarray
    kernel: _Kernel


def _term(coef: float, u: np.ndarray, v: np.ndarray) -> _Term:
    return _Term(coef, u, v, _kernel(u, v))


class _Statistic:
    """A weighted sum of two-sample AUC kernels, block by block (the module's ``K_ab``)."""

    def __init__(self, sizes: list[int]):
        self.sizes = sizes
        self.blocks: dict[tuple[int, int], list[_Term]] = defaultdict(list)

    def add(self, a: int, b: int, coef: float, column_a: np.ndarray, column_b: np.ndarray):
        """``coef`` times the AUC kernel of class ``a`` (positive) against class ``b`` on one
        score column, given as that column's scores of class ``a`` and of class ``b``."""
        if a < b:
            self.blocks[a, b].append(_term(coef, column_a, column_b))
        else:  # stored in the block (b, a), class b first: negate to keep a the positive one
            self.blocks[b, a].append(_term(coef, -column_b, -column_a))

    @classmethod
    def weighted_sum(cls, statistics: list[_Statistic], weights) -> _Statistic:
        """``sum_i weights[i] statistics[i]``, block by block (the kernels are shared)."""
        out = cls(statistics[0].sizes)
        for statistic, weight in zip(statistics, weights):
            for block, terms in statistic.blocks.items():
                out.blocks[block] += [_Term(weight * t.coef, t.u, t.v, t.kernel) for t in terms]
        return out

    def value(self) -> float:
        """The statistic itself, ``sum_ab sum_t c_t T_t`` from the kernels' totals (``T_t``
        the sum of ``psi`` over the block)."""
        return float(
            sum(t.coef * t.kernel.total / 2.0 for terms in self.blocks.values() for t in terms)
        )

    def variance(self, method: str) -> float:
        """The variance by ``method``: ``exact_bootstrap`` (the within-class placements and
        each block's doubly centred sum of squares) or ``delong`` (the placements alone,
        each class's sum of squares by ``n_a / (n_a - 1)``)."""
        placements, blocks = self._placements()
        if method == "delong":
            return float(sum(self._delong_pieces(placements)))
        doubly_centred = sum(_doubly_centred(terms, rows, cols) for terms, rows, cols in blocks)
        return float(sum(_within(placements)) + doubly_centred)

    def welch_df(self) -> float:
        """Welch-Satterthwaite degrees of freedom of DeLong's variance, a sum over the classes
        of ``V_a`` (``n_a / (n_a - 1)`` times the sum of squares of class ``a``'s placements,
        on ``n_a - 1`` degrees of freedom): ``(sum_a V_a)^2 / sum_a V_a^2 / (n_a - 1)``;
        infinite without variance."""
        pieces = np.array(self._delong_pieces(self._placements()[0]), dtype=float)
        spread = float(np.sum(pieces**2 / (np.array(self.sizes) - 1.0)))
        return float(pieces.sum() ** 2 / spread) if spread > 0.0 else np.inf

    def _placements(
        self,
    ) -> tuple[list[np.ndarray], list[tuple[list[_Term], np.ndarray, np.ndarray]]]:
        """Each class's placement values, and each block's terms with its row and column
        sums."""
        placements = [np.zeros(n) for n in self.sizes]
        blocks = []
        for (a, b), terms in self.blocks.items():
            rows = sum(t.coef * t.kernel.rows / 2.0 for t in terms)
            cols = sum(t.coef * t.kernel.cols / 2.0 for t in terms)
            placements[a] += rows
            placements[b] += cols
            blocks.append((terms, rows, cols))
        return placements, blocks

    def _delong_pieces(self, placements: list[np.ndarray]) -> list[float]:
        """Each class's part of DeLong's variance."""
        return [n / (n - 1) * s for n, s in zip(self.sizes, _within(placements))]


def _within(placements: list[np.ndarray]) -> list[float]:
    """Each class's sum of squared deviations of its placements; a class of equal
    placements adds exactly 0 (their mean may round off their value: the MOVER's ratio of two
    such variances would be noise)."""
    return [_sum_sq_dev(r) if np.ptp(r) > 0 else 0.0 for r in placements]


#: A doubly centred sum of squares below this share of its block's ``sum K^2`` is the
#: rounding error of the difference (of ``~1e-16`` relative size), not a variance.
ROUNDING = 1e-12


def _doubly_centred(terms: list[_Term], rows: np.ndarray, cols: np.ndarray) -> float:
    """``sum K^2 - SS(R) / n_b - SS(C) / n_a - T^2 / (n_a n_b)`` of a block (``K`` the sum of
    its terms, ``R``, ``C`` its row and column sums), at least 0 (a sum of squares); below
    :data:`ROUNDING` of ``sum K^2`` it is the rounding of the difference (a block whose
    ``K`` is constant, every score tied), reported as 0."""
    n_a, n_b = rows.size, cols.size
    squares = sum(s.coef * t.coef * _crossed(s, t) / 4.0 for s in terms for t in terms)
    total = float(rows.sum())
    centred = (
        squares - _sum_sq_dev(rows) / n_b - _sum_sq_dev(cols) / n_a - total * total / (n_a * n_b)
    )
    return centred if centred > ROUNDING * squares else 0.0


def _crossed(s: _Term, t: _Term) -> int:
    """``sum (2 psi_s)(2 psi_t)`` over the block's pairs."""
    if s.kernel is t.kernel:
        return s.kernel.quad
    return _cross_sum(s.u, t.u, s.v, t.v, s.kernel, t.kernel)


@dataclass(frozen=True)
class _Component:
    """One AUC the multiclass AUC averages: a pair of classes (ovo) or a class (ovr)."""

    name: str
    auc: float
    weight: float
    statistic: _Statistic
    #: the sizes of its two groups: the pair's classes (ovo), the class and the rest (ovr)
    groups: tuple[int, int]


def _components(by_class: list[np.ndarray], multi_class: str, labels) -> list[_Component]:
    """The pairs (ovo) or classes (ovr) of scores ``by_class[k]`` (``(n_k, c)``), unweighted:
    each with its AUC and its own :class:`_Statistic`."""
    sizes = [s.shape[0] for s in by_class]
    n = sum(sizes)
    out = []
    if multi_class == "ovo":
        for a, b in combinations(range(len(by_class)), 2):
            statistic = _Statistic(sizes)
            coef = 1.0 / (2 * sizes[a] * sizes[b])
            statistic.add(a, b, coef, by_class[a][:, a], by_class[b][:, a])
            statistic.add(b, a, coef, by_class[b][:, b], by_class[a][:, b])
            name = f"{labels[a]} vs {labels[b]}"
            weight, groups = sizes[a] + sizes[b], (sizes[a], sizes[b])
            out.append(_Component(name, statistic.value(), weight, statistic, groups))
        return out
    for k in range(len(by_class)):
        statistic = _Statistic(sizes)
        rest = [b for b in range(len(by_class)) if b != k]
        coef = 1.0 / (sizes[k] * (n - sizes[k]))
        for b in rest:
            statistic.add(k, b, coef, by_class[k][:, k], by_class[b][:, k])
        groups = (sizes[k], n - sizes[k])
        name = f"{labels[k]} vs rest"
        out.append(_Component(name, statistic.value(), sizes[k], statistic, groups))
    return out


def _weights(components: list[_Component], average: str) -> np.ndarray:
    """scikit-learn's: equal (macro), or by prevalence (weighted: the pair's instances, ovo;
    the class's, ovr), normalised as ``np.average`` normalises them."""
    raw = np.array([c.weight for c in components], dtype=float)
    weights = np.ones_like(raw) if average == "macro" else raw
    return weights / weights.sum()


def weighted_mean(values: np.ndarray, weights: np.ndarray) -> float:
    """``sum_k w_k v_k`` (weights summing to 1) as ``v_0 + sum_k w_k (v_k - v_0)``: equal
    values give exactly their value (``np.average`` of six AUCs of 0.5 gives 0.5 less an
    ulp, which a zero variance would read as a sure difference from a null of 0.5)."""
    return float(values[0] + weights @ (values - values[0]))


class _ByComponent(Result):
    """A multiclass result's frame: one row per component, then the average."""

    #: frame column -> (the components' attribute, the average's attribute or value)
    _frame: ClassVar[tuple[tuple[str, str, str | float], ...]] = ()
    _settings = (
        "confidence_level",
        "method",
        "multi_class",
        "average",
        "classes",
        "class_sizes",
        "alternative",
        "null",
    )

    def _column_values(self) -> dict:
        out = {"component": [*self.component.tolist(), f"{self.average} ({self.multi_class})"]}
        for column, each, whole in self._frame:
            overall = whole if isinstance(whole, float) else getattr(self, whole)
            out[column] = np.r_[getattr(self, each), overall]
        return out


@dataclass(frozen=True, repr=False)
class MulticlassAUCCI(_ByComponent):
    """The multiclass AUC with its variance and normal interval, and the AUCs it averages.

    Attributes
    ----------
    auc, var, low, high : float
        The averaged AUC (scikit-learn's ``roc_auc_score(multi_class=, average=)``), its
        variance by ``method`` and ``auc -+ z sqrt(var)`` clipped to [0, 1].
    multi_class, average : str
    classes : tuple
        The class labels, in the order of the score columns.
    class_sizes : tuple of int
    component : ndarray of str
        ``"a vs b"`` (ovo: the pair's mean of both directions) or ``"k vs rest"`` (ovr).
    component_auc, component_var, component_low, component_high, component_weight : ndarray
        Each component's AUC, variance (under the same bootstrap: each class resampled
        separately), interval and weight in the average.
    p_value, component_p_value
        The normal test of the AUC (each component's) against ``null`` and ``alternative``.
    alternative : {"two-sided", "greater", "less"}
    null : float

    ``to_frame()``: one row per component (columns ``component, auc, var, low, high,
    weight``) and a last row for the average.
    """

    auc: float
    var: float
    low: float
    high: float
    confidence_level: float
    method: str
    multi_class: str
    average: str
    classes: tuple
    class_sizes: tuple
    component: np.ndarray
    component_auc: np.ndarray
    component_var: np.ndarray
    component_low: np.ndarray
    component_high: np.ndarray
    component_weight: np.ndarray
    p_value: float = float("nan")
    component_p_value: np.ndarray | None = None
    alternative: str = "two-sided"
    null: float = 0.5

    _frame = (
        ("auc", "component_auc", "auc"),
        ("var", "component_var", "var"),
        ("low", "component_low", "low"),
        ("high", "component_high", "high"),
        ("p_value", "component_p_value", "p_value"),
        ("weight", "component_weight", 1.0),
    )

    def _summary(self) -> str:
        sizes = ", ".join(str(n) for n in self.class_sizes)
        return (
            f"{self.multi_class} {self.average} AUC {self.auc:.3f} [{self.low:.3f}, "
            f"{self.high:.3f}]{hypothesis_summary(self)} over {len(self.classes)} classes "
            f"({self._level_and_method()}, n = {sizes})"
        )


def check_multiclass(
    multi_class: str, average: str, method: str, sizes, kind: str = "multiclass_auc"
) -> None:
    """The names and the class sizes of a multiclass AUC, checked once (``method`` one of
    ``kind``'s in :mod:`rocsim.core.registry`)."""
    check_choice(multi_class, MULTI_CLASS, "multi_class")
    check_choice(average, AVERAGES, "average")
    check_choice(method, names(kind), "multiclass AUC method")
    if len(sizes) < 2 or min(sizes) < 1:
        raise ValueError(
            f"a multiclass AUC needs two classes or more, each present; got sizes {list(sizes)}"
        )
    if min(sizes) < method_info(kind, method).min_per_class:
        raise ValueError(
            f"method={method!r} needs at least 2 instances of every class (sample variances "
            f"of placements), got sizes {list(sizes)}"
        )


def _prepared(
    models, multi_class, average, method, confidence_level, labels, kind="multiclass_auc"
):
    """Each model's scores by class as float arrays, the class sizes, the level and the labels,
    checked once (the models score the same instances)."""
    models = [
        [np.atleast_2d(as_real_array(s, "by_class")) for s in by_class] for by_class in models
    ]
    shapes = [s.shape for s in models[0]]
    if any(len(shape) != 2 or shape[1] != len(shapes) for shape in shapes):
        raise ValueError(
            f"by_class[k] must be (n_k, c) score rows, a column per class ({len(shapes)}), "
            f"got shapes {shapes}"
        )
    if any([s.shape for s in by_class] != shapes for by_class in models):
        raise ValueError("the two models must score the same instances with as many columns")
    if not all(np.isfinite(s).all() for by_class in models for s in by_class):
        raise ValueError("by_class contains NaN or infinite scores; scores must be finite")
    sizes = [shape[0] for shape in shapes]
    level = check_confidence_level(confidence_level)
    check_multiclass(multi_class, average, method, sizes, kind)
    labels = list(range(len(sizes))) if labels is None else list(labels)
    return models, sizes, level, labels


def _tested(hypothesis: Hypothesis, values, variances, level: float, dfs=None):
    """Each value's interval and p-value under ``hypothesis`` (Student's t on ``dfs`` where
    given, else normal), as three arrays."""
    dfs = np.full(len(values), np.inf) if dfs is None else dfs
    triples = list(zip(values, variances, dfs))
    bounds = np.array([hypothesis.interval(v, s, level, df) for v, s, df in triples])
    p_values = np.array([hypothesis.p_value(v, s, df) for v, s, df in triples])
    return bounds[:, 0], bounds[:, 1], p_values


@dataclass(frozen=True)
class MoverData:
    """What the MOVER interval of a weighted average of AUCs sees
    (:func:`weighted_mover_bounds`).

    Attributes
    ----------
    auc : float
        The weighted average ``theta_hat = sum_k w_k theta_hat_k``.
    aucs, weights, variances : ndarray
        Each component's AUC ``theta_hat_k``, weight ``w_k`` and DeLong variance ``v_k``.
    var : float
        DeLong's variance ``V`` of the weighted average (the components' covariances in it).
    groups : tuple of (int, int)
        Each component's two groups' sizes (its score interval's).
    df : float, default inf
        Degrees of freedom of the Student t critical value (:meth:`_Statistic.welch_df`);
        infinite: the normal one.
    """

    auc: float
    aucs: np.ndarray
    weights: np.ndarray
    variances: np.ndarray
    var: float
    groups: tuple[tuple[int, int], ...]
    df: float = np.inf


def weighted_mover_bounds(
    data: MoverData, critical: float, clip: bool = True
) -> tuple[float, float]:
    """The MOVER interval of a weighted average of AUCs at a normal critical value.

    Zou & Donner's (2008) method of variance estimates recovery, applied to ``theta = sum_k
    w_k theta_k``: each component's own score interval ``[l_k, u_k]`` at ``critical`` (``z``)
    recovers its variance on each side, and the components' covariances (the part of
    DeLong's variance ``V`` of the average beyond ``sum_k w_k^2 v_k``) are scaled by the
    components' mean inflation on that side::

        L = theta - sqrt(sum_k w_k^2 (theta_k - l_k)^2 + rbar_L^2 z^2 (V - sum_k w_k^2 v_k)),
        rbar_L^2 = sum_k w_k^2 (theta_k - l_k)^2 / (z^2 sum_k w_k^2 v_k),

    i.e. ``L = theta - sqrt(V / sum_k w_k^2 v_k * sum_k w_k^2 (theta_k - l_k)^2)``, and ``U``
    alike with ``u_k - theta_k``; where ``sum_k w_k^2 v_k`` is 0 (every component AUC 0 or
    1, or all scores tied) just ``sqrt(sum_k w_k^2 (theta_k - l_k)^2)``. With Wald
    components (``theta_k - l_k = z sqrt(v_k)``) it is DeLong's interval ``theta -+ z
    sqrt(V)``; at a component AUC of 1 the score interval keeps the bound below 1.

    The component's interval is the score interval of Newcombe (2006), ``|theta_k - t| = z
    sqrt(v_k N(t) / N(theta_k))``: his variance ``N`` (Hanley & McNeil's with both sizes
    their mean, the component's two groups) gives the shape in ``t``, the component's DeLong
    variance the scale (:func:`rocsim.core.auc_methods.rescaled_score_bounds`, as the MOVER
    of a paired difference has it; Newcombe's own where ``v_k`` is 0). Newcombe's variance
    alone would misjudge the components' scale: a one-vs-one component averages two
    directions' AUCs (about half one AUC's variance), and a class against the rest is
    unbalanced.

    An approximation (the MOVER), not an exact interval; its coverage of the true multiclass
    AUC is measured by the ``auc_multiclass`` study (``rocsim study=auc_multiclass``).

    Parameters
    ----------
    data : MoverData
    critical : float
        The critical value ``z``: :func:`multiclass_auc_ci` takes Student's t quantile
        on the Welch-Satterthwaite degrees of freedom of DeLong's variance of the average
        (:meth:`_Statistic.welch_df`), since with a few instances in a class that variance
        rests on a few placements (with the normal quantile the ``auc_multiclass`` study
        found the interval short of its level at 10 instances a class).
    clip : bool, default True
        Clip the bounds to [0, 1].

    Returns
    -------
    (float, float)
        ``L``, ``U``.

    References
    ----------
    Zou, G. Y. & Donner, A. (2008). Construction of confidence limits about effect measures:
    a general approach. Statistics in Medicine 27, 1693-1702.
    Newcombe, R. G. (2006). Confidence intervals for an effect size measure based on the
    Mann-Whitney statistic. Part 2: asymptotic methods and evaluation. Statistics in
    Medicine 25, 559-573.
    """
    bounds = np.array(
        [
            rescaled_score_bounds(a, v, n_pos, n_neg, critical)
            for a, v, (n_pos, n_neg) in zip(data.aucs, data.variances, data.groups)
        ]
    )
    squared = data.weights**2
    own = float(squared @ data.variances)
    # S + rbar^2 z^2 (V - own) = S V / own, S = sum w^2 (theta_k - l_k)^2 (or with u_k)
    inflation = data.var / own if own > 0.0 else 1.0
    down = float(np.sqrt(inflation * (squared @ (data.aucs - bounds[:, 0]) ** 2)))
    up = float(np.sqrt(inflation * (squared @ (bounds[:, 1] - data.aucs) ** 2)))
    low, high = data.auc - down, data.auc + up
    return (max(low, 0.0), min(high, 1.0)) if clip else (low, high)


def _mover_critical(level: float, alternative: str, df: float) -> float:
    """The Student t critical value on ``df`` degrees of freedom (normal at ``df = inf``) of
    a two-sided interval at ``level``, or of the one bound of a one-sided one (the two-sided
    bound at twice the alpha)."""
    return float(special.stdtrit(df, 0.5 + level / 2 if alternative == "two-sided" else level))


def _mover_interval(data: MoverData, level: float, alternative: str) -> tuple[float, float]:
    """:func:`weighted_mover_bounds` at ``level``; one-sided, one bound (the other 0 or 1)."""
    low, high = weighted_mover_bounds(data, _mover_critical(level, alternative, data.df))
    if alternative == "greater":
        return low, 1.0
    if alternative == "less":
        return 0.0, high
    return low, high


def _mover_p_value(data: MoverData, null: float, alternative: str) -> float:
    """The p-value that inverts the MOVER interval (on the unclipped bounds:
    :func:`rocsim.core.auc_methods.inverted_p_value`, its critical value Student's t on
    ``data.df`` at the normal quantile's level)."""
    return inverted_p_value(
        lambda critical: weighted_mover_bounds(data, critical, clip=False),
        data.auc,
        null,
        alternative,
        critical_of=_t_critical(data.df),
    )


#: A critical value that puts every component's score bound at an end of [0, 1].
HUGE_CRITICAL = 1e150


def _df(statistic: _Statistic, method: str) -> float:
    """Degrees of freedom of ``method``'s quantile: the Welch-Satterthwaite ones of DeLong's
    variance for ``delong_t``, else infinite (normal)."""
    return statistic.welch_df() if method == "delong_t" else np.inf


def _t_critical(df: float) -> Callable[[float], float]:
    """The Student t critical value on ``df`` degrees of freedom at the level of the normal
    ``z`` (``z`` itself at ``df = inf``), from the lower tail (no rounding of the upper one
    to 1)."""
    if np.isinf(df):
        return float

    def critical(z: float) -> float:
        t = -float(special.stdtrit(df, special.ndtr(-z)))
        # scipy's inverse gives up (inf of either sign) in the far tail of a fractional df,
        # where any bound is at an end of [0, 1] already
        return t if 0.0 <= t < np.inf else HUGE_CRITICAL

    return critical


def _score_pivot(auc: float, var: float, groups: tuple[int, int]) -> Pivot:
    """A component's score pivot, as :func:`weighted_mover_bounds` takes its interval."""
    n_pos, n_neg = groups
    return Pivot(var, _score(auc, lambda t: rescaled_newcombe_var(t, var, auc, n_pos, n_neg)))


def multiclass_auc_ci(
    by_class,
    *,
    multi_class: str = "ovo",
    average: str = "macro",
    confidence_level: float = 0.95,
    method: str = "delong",
    labels=None,
    alternative: str = "two-sided",
    null: float = 0.5,
) -> MulticlassAUCCI:
    """The multiclass AUC of scores ``by_class[k]`` (the ``(n_k, c)`` score rows of the
    instances of class ``k``; column ``j`` scores class ``j``) with a normal interval.

    Parameters
    ----------
    by_class : sequence of array-like of shape (n_k, c)
    multi_class : {"ovo", "ovr"}, default "ovo"
        ``ovo``: the mean over pairs of classes of the two directions' AUCs (Hand & Till
        2001); ``ovr``: each class against the rest on its own column.
    average : {"macro", "weighted"}, default "macro"
        Equal weights, or by prevalence (scikit-learn's).
    confidence_level : float, default 0.95
    method : {"delong", "exact_bootstrap", "mover"}, default "delong"
        The normal interval on the placement-value variance, or on the exact variance of the
        stratified bootstrap that resamples each class separately (module docstring); or
        ``mover``, Zou & Donner's (2008) MOVER on each component's score interval with
        DeLong's covariances, at Student's t critical value on the Welch-Satterthwaite
        degrees of freedom of DeLong's variance (:func:`weighted_mover_bounds`, an
        approximation whose coverage the ``auc_multiclass`` study measures). The MOVER's
        ``var`` is DeLong's variance of the average, its ``p_value`` the one that inverts its
        interval (the smallest alpha whose interval leaves ``null`` out, found by root search
        over the critical value); each component's interval, p-value and variance are its
        score interval, that interval's score test and its DeLong variance.
    labels : sequence, optional
        The classes' names (default ``0 .. c - 1``).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
    null : float, default 0.5
        The one-sided intervals and the tests of the AUC and of each component against
        ``null``, as :func:`rocsim.core.area.auc_ci` has them.

    Returns
    -------
    MulticlassAUCCI

    Examples
    --------
    >>> r = multiclass_auc_ci(
    ...     [[[0.6, 0.3, 0.1], [0.5, 0.4, 0.1]], [[0.2, 0.7, 0.1], [0.4, 0.3, 0.3]],
    ...      [[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]]], method="exact_bootstrap")
    >>> round(r.auc, 4), r.component.tolist()
    (0.9167, ['0 vs 1', '0 vs 2', '1 vs 2'])
    """
    (by_class,), sizes, level, labels = _prepared(
        [by_class], multi_class, average, method, confidence_level, labels
    )
    hypothesis = check_hypothesis(alternative, null, 0.0, 1.0)
    components = _components(by_class, multi_class, labels)
    weights = _weights(components, average)
    aucs = np.array([c.auc for c in components])
    variance = "delong" if method == "mover" else method
    variances = np.array([c.statistic.variance(variance) for c in components])
    whole = _Statistic.weighted_sum([c.statistic for c in components], weights)
    auc = weighted_mean(aucs, weights)
    var = whole.variance(variance)
    if method == "mover":
        groups = tuple(c.groups for c in components)
        data = MoverData(auc, aucs, weights, variances, var, groups, whole.welch_df())
        low, high = _mover_interval(data, level, hypothesis.alternative)
        p_value = _mover_p_value(data, hypothesis.null, hypothesis.alternative)
        pivots = [_score_pivot(a, v, g) for a, v, g in zip(aucs, variances, groups)]
        bounds = [
            pivot_interval(q, a, level, hypothesis.alternative) for q, a in zip(pivots, aucs)
        ]
        component_low, component_high = np.array(bounds).T
        component_p = np.array(
            [pivot_p_value(q, hypothesis.null, hypothesis.alternative) for q in pivots]
        )
    else:
        component_low, component_high, component_p = _tested(hypothesis, aucs, variances, level)
        low, high = hypothesis.interval(auc, var, level)
        p_value = hypothesis.p_value(auc, var)
    return MulticlassAUCCI(
        auc,
        var,
        float(low),
        float(high),
        level,
        method,
        multi_class,
        average,
        tuple(labels),
        tuple(sizes),
        np.array([c.name for c in components]),
        aucs,
        variances,
        component_low,
        component_high,
        weights,
        p_value,
        component_p,
        hypothesis.alternative,
        hypothesis.null,
    )


@dataclass(frozen=True, repr=False)
class MulticlassAUCDifferenceCI(_ByComponent):
    """The paired difference of two models' multiclass AUCs on the same instances, with a
    normal interval and p-value, and the differences of the AUCs they average.

    Attributes
    ----------
    auc1, auc2, difference, var, low, high, p_value : float
        Both averaged AUCs, ``auc1 - auc2``, its variance by ``method``, the interval clipped
        to [-1, 1] and the two-sided normal p-value of no difference.
    multi_class, average, classes, class_sizes
    component : ndarray of str
    component_difference, component_var, component_low, component_high, component_p_value
        Each component's paired difference with its interval and p-value.

    ``to_frame()``: one row per component and a last row for the average.
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
    multi_class: str
    average: str
    classes: tuple
    class_sizes: tuple
    component: np.ndarray
    component_difference: np.ndarray
    component_var: np.ndarray
    component_low: np.ndarray
    component_high: np.ndarray
    component_p_value: np.ndarray
    alternative: str = "two-sided"
    null: float = 0.0

    _frame = (
        ("difference", "component_difference", "difference"),
        ("var", "component_var", "var"),
        ("low", "component_low", "low"),
        ("high", "component_high", "high"),
        ("p_value", "component_p_value", "p_value"),
    )

    def _summary(self) -> str:
        return (
            f"{self.multi_class} {self.average} AUC1 - AUC2 {self.difference:+.3f} "
            f"[{self.low:+.3f}, {self.high:+.3f}]{hypothesis_summary(self)} over "
            f"{len(self.classes)} classes ({self._level_and_method()})"
        )


def multiclass_auc_difference_ci(
    by_class1,
    by_class2,
    *,
    multi_class: str = "ovo",
    average: str = "macro",
    confidence_level: float = 0.95,
    method: str = "delong",
    labels=None,
    alternative: str = "two-sided",
    null: float = 0.0,
) -> MulticlassAUCDifferenceCI:
    """``AUC1 - AUC2`` of two models' multiclass AUCs on the same instances (paired: row ``i``
    of ``by_class1[k]`` and of ``by_class2[k]`` score the same instance), with its variance
    under the per-class stratified bootstrap (``exact_bootstrap``) or the placement-value one
    (``delong``): the module's formula on the difference of the two models' kernels. Normal
    intervals and tests, or, for ``delong_t``, DeLong's variance with Student's t on its
    Welch-Satterthwaite degrees of freedom (the classes' parts, each on ``n_a - 1``:
    :meth:`_Statistic.welch_df`), for classes of a few instances; its coverage of the true
    difference is measured by the ``auc_multiclass_paired`` study. ``alternative`` and
    ``null`` (default 0) give the one-sided intervals and the tests.

    Examples
    --------
    >>> first = [[[0.6, 0.3, 0.1], [0.5, 0.4, 0.1]], [[0.2, 0.7, 0.1], [0.4, 0.3, 0.3]],
    ...          [[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]]]
    >>> second = [[[0.4, 0.3, 0.3], [0.5, 0.4, 0.1]], [[0.3, 0.5, 0.2], [0.4, 0.3, 0.3]],
    ...           [[0.3, 0.3, 0.4], [0.3, 0.3, 0.4]]]
    >>> r = multiclass_auc_difference_ci(first, second)
    >>> round(r.difference, 4), round(r.auc1, 4)
    (0.0417, 0.9167)
    """
    if method == "mover":
        raise ValueError(
            "method='mover' is an interval of one multiclass AUC (multiclass_auc_ci); "
            "the difference of two takes method='delong', 'delong_t' or 'exact_bootstrap'"
        )
    (by_class1, by_class2), sizes, level, labels = _prepared(
        [by_class1, by_class2],
        multi_class,
        average,
        method,
        confidence_level,
        labels,
        "multiclass_auc_difference",
    )
    variance = "delong" if method == "delong_t" else method
    hypothesis = check_hypothesis(alternative, null, -1.0, 1.0)
    first = _components(by_class1, multi_class, labels)
    second = _components(by_class2, multi_class, labels)
    weights = _weights(first, average)
    differences = np.array([c.auc - d.auc for c, d in zip(first, second)])
    paired = [
        _Statistic.weighted_sum([c.statistic, d.statistic], [1.0, -1.0])
        for c, d in zip(first, second)
    ]
    variances = np.array([statistic.variance(variance) for statistic in paired])
    dfs = np.array([_df(statistic, method) for statistic in paired])
    component_low, component_high, component_p = _tested(
        hypothesis, differences, variances, level, dfs
    )
    whole = _paired(first, second, weights)
    auc1, auc2 = _average(first, weights), _average(second, weights)
    difference, var, df = auc1 - auc2, whole.variance(variance), _df(whole, method)
    low, high = hypothesis.interval(difference, var, level, df)
    return MulticlassAUCDifferenceCI(
        auc1,
        auc2,
        difference,
        var,
        float(low),
        float(high),
        hypothesis.p_value(difference, var, df),
        level,
        method,
        multi_class,
        average,
        tuple(labels),
        tuple(sizes),
        np.array([c.name for c in first]),
        differences,
        variances,
        component_low,
        component_high,
        component_p,
        hypothesis.alternative,
        hypothesis.null,
    )


def _average(components: list[_Component], weights: np.ndarray) -> float:
    """The multiclass AUC: the components' AUCs averaged with ``weights``."""
    return weighted_mean(np.array([c.auc for c in components]), weights)


def _paired(first: list[_Component], second: list[_Component], weights) -> _Statistic:
    """The statistic of the difference of two models' averaged AUCs."""
    return _Statistic.weighted_sum(
        [c.statistic for c in first] + [d.statistic for d in second], [*weights, *(-weights)]
    )


def multiclass_auc_covariance(
    models,
    *,
    multi_class: str = "ovo",
    average: str = "macro",
    method: str = "delong",
    labels=None,
) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """``K`` models' multiclass AUCs on the same instances, their ``K x K`` covariance and
    the class sizes.

    The covariance of two averaged AUCs is read from the variances of each and of their
    difference (:func:`rocsim.core.area.polarized_covariance`; the variance is a
    quadratic form in the kernels' coefficients), so that the variance of every difference
    read from it is :func:`multiclass_auc_difference_ci`'s and each diagonal
    :func:`multiclass_auc_ci`'s, with the same ``method``.

    Parameters
    ----------
    models : sequence of K sequences of array-like of shape (n_k, c)
        ``models[m][k]``: model ``m``'s score rows of the instances of class ``k``, the same
        instances in the same order for every model.
    multi_class, average, labels
        As in :func:`multiclass_auc_ci`.
    method : {"delong", "exact_bootstrap"}, default "delong"
        The placement-value variance, or the exact one of the stratified bootstrap that
        resamples each class separately (module docstring).

    Returns
    -------
    aucs : ndarray of shape (K,)
    cov : ndarray of shape (K, K)
    sizes : list of int

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> models = [[rng.random((3, 3)) for _ in range(3)] for _ in range(2)]
    >>> aucs, cov, sizes = multiclass_auc_covariance(models, method="exact_bootstrap")
    >>> pair = multiclass_auc_difference_ci(*models, method="exact_bootstrap")
    >>> bool(np.isclose(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1], pair.var)), sizes
    (True, [3, 3, 3])
    """
    check_choice(method, AUC_METHODS, "multiclass AUC covariance method")
    models, sizes, _, labels = _prepared(
        models, multi_class, average, method, 0.95, labels, "multiclass_auc_difference"
    )
    components = [_components(by_class, multi_class, labels) for by_class in models]
    weights = _weights(components[0], average)
    aucs = np.array([_average(each, weights) for each in components])
    variances = [
        _Statistic.weighted_sum([c.statistic for c in each], weights).variance(method)
        for each in components
    ]
    cov = polarized_covariance(
        variances,
        lambda i, j: _paired(components[i], components[j], weights).variance(method),
    )
    return aucs, cov, sizes


# the names these had before rocsim.core spoke one vocabulary (rocsim.core._deprecated)
__getattr__ = module_getattr(__name__)
