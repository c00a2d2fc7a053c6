"""The one registry of rocsim's built-in interval methods.

Every kind of interval (a proportion, a paired difference, TPR at fixed FPRs, precision at
fixed recalls, an AUC, ...) has its methods here, each an :class:`IntervalMethod` holding its
formula (:mod:`rocsim.core.formulas`, :mod:`rocsim.core.auc_methods`) and what it needs: a
default pseudo-count, the stratified bootstrap only, a moment form, whether its interval reads
as a Gaussian. The dispatch tables of the interval functions (``PROPORTION_METHODS``,
``VERTICAL_METHODS``, ``COST_METHODS``, ``AUC_INTERVAL_METHODS``, ...) and each function's
default method are derived from it, so that a method is described once and no code decides by
a method's name.

A method of the user's own is a function following the kind's protocol
(:mod:`rocsim.core.methods`); it is not registered: it has none of the traits below (no
pseudo-count, no moment form).

Examples
--------
>>> names("proportion", gaussian=True)
('wald', 'score', 'agresti')
>>> method_info("vertical", "agresti").pseudo_count
2.0
>>> DEFAULT_METHODS["cost"]
'agresti'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields

from rocsim.core import auc_methods as auc
from rocsim.core import formulas as f


@dataclass(frozen=True)
class IntervalMethod:
    """A built-in interval method of one kind and what it needs.

    Attributes
    ----------
    name : str
        The name users pass as ``method``.
    formula : callable or None
        The method's formula in the kind's calling convention (module docstring of
        :mod:`rocsim.core.formulas`); None where the kind's entry function computes the
        method itself (partial and multiclass AUCs, whose methods share one computation).
    pseudo_count : float or None
        Its default pseudo-count, added to every cell before a Wald interval (thesis Tables
        5.1 and 5.2); None for a method that takes none. On an exact law of TPR the
        pseudo-counts are added to the binomial mixture (:func:`rocsim.core.mixture`), which
        the step law under the stratified bootstrap has.
    gaussian : bool
        Its interval is symmetric about its centre, so it reads as a Gaussian (centre and
        half-width / z): cost curves combine the classes' intervals that way.
    moment_form : MomentForm or None
        The method as an interval of a rate's bootstrap mean and variance, with its
        inversion (:class:`rocsim.core.formulas.MomentForm`): what the planning laws of
        :mod:`rocsim.sim.vertical_law` integrate.
    stratified_only : bool
        Defined under the stratified bootstrap only.
    min_per_class : int
        Instances each class needs (sample variances of placements need two).
    """

    name: str
    formula: Callable | None = None
    pseudo_count: float | None = None
    gaussian: bool = False
    moment_form: f.MomentForm | None = None
    stratified_only: bool = False
    min_per_class: int = 1


M = IntervalMethod

#: Kind of interval -> its built-in methods, in the order users see them.
REGISTRY: dict[str, tuple[IntervalMethod, ...]] = {
    # one proportion x / n: f(x, n, level, pseudo_count) (thesis section 4.2, Table 5.1)
    "proportion": (
        M("wald", f.wald_interval, gaussian=True),
        M("score", f.wilson_interval, gaussian=True),
        M("agresti", f.adjusted_wald_interval, pseudo_count=2.0, gaussian=True),
        M("jeffreys", f.jeffreys_interval),
        M("clopper_pearson", f.clopper_pearson_interval),
        M("percentile", f.binomial_percentile_interval, stratified_only=True),
    ),
    # the difference (b - c) / n of paired proportions: f(b, c, n, level, pseudo_count)
    # (eqs. 4.6-4.9, Table 5.2; Agresti & Min 2005's pseudo-count 1/2)
    "paired": (
        M("wald", f.paired_wald_interval, gaussian=True),
        M("score", f.paired_score_interval, gaussian=True),
        M("agresti", f.paired_adjusted_wald_interval, pseudo_count=0.5, gaussian=True),
        M("tango", f.tango_interval),
        M("bonett_price", f.bonett_price_interval),
    ),
    # TPR at fixed FPRs on its exact bootstrap law: f(law, level) (Algorithm 4.3)
    "vertical": (
        M("score", f.score_on_law, moment_form=f.SCORE_FORM),
        M("wald", f.wald_on_moments, moment_form=f.WALD_FORM),
        M(
            "agresti",
            f.wald_on_moments,
            pseudo_count=2.0,
            moment_form=f.WALD_FORM,
            stratified_only=True,
        ),
        M("percentile", f.stratified_percentile, stratified_only=True),
    ),
    # TPR1 - TPR2 at fixed FPRs on its exact bootstrap moments (eqs. 4.15-4.17)
    "vertical_difference": (
        M("score", f.difference_score),
        M("wald", f.wald_on_moments),
    ),
    # precision at fixed recalls (or thresholds) on its exact bootstrap law
    "precision": (
        M("score", f.precision_score),
        M("wald", f.wald_on_moments),
        M("percentile", f.equal_tailed),
    ),
    # net benefit at fixed threshold probabilities on its exact law (rocsim.core.net_benefit)
    "net_benefit": (
        M("agresti", f.wald_on_moments, pseudo_count=2.0),
        M("percentile", f.equal_tailed),
        M("wald", f.wald_on_moments),
    ),
    # NB1 - NB2 of two models on the same instances
    "net_benefit_difference": (
        M("agresti", f.wald_on_moments, pseudo_count=2.0),
        M("percentile", f.equal_tailed),
        M("wald", f.wald_on_moments),
    ),
    # a metric at one operating point on its exact law (rocsim.core.operating_point)
    "operating_point": (
        M("agresti", f.wald_on_moments, pseudo_count=2.0),
        M("agresti_percentile", f.equal_tailed, pseudo_count=2.0),
        M("agresti_hull", f.wald_percentile_hull, pseudo_count=2.0),
        M("percentile", f.equal_tailed),
        M("wald", f.wald_on_moments),
    ),
    # the simultaneous band's pointwise shapes (rocsim.core.confidence_band)
    "confidence_band": (M("wald"), M("score")),
    # one AUC: f(AUCData) -> Pivot (rocsim.core.auc_methods)
    "auc": (
        M("delong", auc.delong_pivot, min_per_class=2),
        M("exact_bootstrap", auc.exact_bootstrap_pivot),
        M("hanley_mcneil", auc.hanley_mcneil_pivot),
        M("logit", auc.logit_pivot, min_per_class=2),
        M("newcombe", auc.newcombe_pivot),
    ),
    # the AUC's variances (rocsim.core.area: DeLong's, the exact stratified bootstrap's)
    "auc_variance": (M("delong", min_per_class=2), M("exact_bootstrap")),
    # AUC1 - AUC2 on the same instances (rocsim.core.area.auc_difference_ci)
    "auc_difference": (
        M("delong", min_per_class=2),
        M("exact_bootstrap"),
        M("mover", min_per_class=2),
    ),
    # one partial AUC, and the difference of two (rocsim.core.partial_area)
    "partial_auc": (M("delong"), M("exact_bootstrap"), M("logit_t"), M("percentile")),
    "partial_auc_difference": (M("delong"), M("delong_t")),
    # multiclass AUCs, and the difference of two models' (rocsim.core.multiclass)
    "multiclass_auc": (
        M("delong", min_per_class=2),
        M("exact_bootstrap"),
        M("mover", min_per_class=2),
    ),
    "multiclass_auc_difference": (
        M("delong", min_per_class=2),
        M("exact_bootstrap"),
        M("delong_t", min_per_class=2),
    ),
}

#: Kind of interval -> the method its functions use when none is given.
DEFAULT_METHODS: dict[str, str] = {
    "proportion": "score",
    "paired": "tango",
    "vertical": "score",
    "vertical_difference": "score",
    "precision": "score",
    "cost": "agresti",
    "cost_difference": "agresti",
    "net_benefit": "agresti",
    "net_benefit_difference": "agresti",
    "operating_point": "agresti_hull",
    "auc": "delong",
    "auc_difference": "delong",
}

#: Kinds whose methods are those of another kind with a trait: cost curves read each class's
#: interval as a Gaussian (:mod:`rocsim.core.cost`), the planning laws integrate moment forms.
DERIVED_KINDS: dict[str, tuple[str, dict[str, bool]]] = {
    "cost": ("proportion", {"gaussian": True}),
    "cost_difference": ("paired", {"gaussian": True}),
    "law": ("vertical", {"moment_form": True}),
}

_TRAITS = tuple(field.name for field in fields(IntervalMethod))[2:]


def methods(kind: str, **traits: bool) -> dict[str, IntervalMethod]:
    """The built-in methods of ``kind`` by name, in order; ``traits`` keeps those whose trait
    is set (``gaussian=True``) or unset (``pseudo_count=False``)."""
    if kind in DERIVED_KINDS:
        kind, implied = DERIVED_KINDS[kind]
        traits = implied | traits
    unknown = set(traits) - set(_TRAITS)
    if unknown:
        raise TypeError(f"unknown traits {sorted(unknown)}; traits: {', '.join(_TRAITS)}")
    return {
        m.name: m
        for m in REGISTRY[kind]
        if all(_has(m, trait) == wanted for trait, wanted in traits.items())
    }


def _has(method: IntervalMethod, trait: str) -> bool:
    """Whether ``method`` has ``trait``: a flag set, a value given, more than one instance a
    class."""
    value = getattr(method, trait)
    if trait == "min_per_class":
        return value > 1
    return value if isinstance(value, bool) else value is not None


def names(kind: str, **traits: bool) -> tuple[str, ...]:
    """The names of :func:`methods`."""
    return tuple(methods(kind, **traits))


def formulas(kind: str) -> dict[str, Callable]:
    """The dispatch table of ``kind``: method name -> formula."""
    return {name: m.formula for name, m in methods(kind).items()}


def method_info(kind: str, method: str | Callable) -> IntervalMethod | None:
    """What ``kind``'s built-in ``method`` needs; None for a method of the user's own (a
    function) or a name the kind does not have."""
    if not isinstance(method, str):
        return None
    return methods(kind).get(method)


def default_pseudo_count(kind: str, method: str | Callable) -> float | None:
    """The pseudo-count ``method`` takes by default, or None if it takes none."""
    info = method_info(kind, method)
    return None if info is None else info.pseudo_count


def pseudo_count_methods(kind: str) -> tuple[str, ...]:
    """The names of ``kind``'s methods that take a pseudo-count."""
    return names(kind, pseudo_count=True)
