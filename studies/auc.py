"""AUC intervals: coverage of the true AUC by every method of the AUC method table, and of the
true multiclass AUC by the multiclass intervals.

``auc_methods``: one binary test set per replication (stratified, ``n`` per class), one
interval per method of :data:`rocsim.core.auc_methods.AUC_INTERVAL_METHODS`
(:func:`rocsim.core.area.auc_ci`). The target is the model's AUC, ``int_0^1
S+(S-^{-1}(u)) du``. The table has one row per condition (``x`` is the true AUC): coverage,
``miss_low`` / ``miss_high`` (the true AUC below / above the interval), ``mean_width``, and
``degenerate``, the share of zero-width intervals (a sample AUC of 0 or 1 makes the Wald
intervals ``[1, 1]``).

``auc_tests``: the same test sets, and the test of each method of the AUC method table
against ``null`` (:func:`rocsim.core.area.auc_ci` with ``alternative`` and ``null``, as
``auc_ci(..., alternative=, null=)`` calls it). ``analyse`` reports estimates rather than
interval outcomes: the AUC, its model SE (the square root of the method's variance), the
test's p-value and the interval's bounds, from which the runner computes the performance
measures of Morris, White & Crowther (2019) with their Monte Carlo SEs
(:mod:`rocsim.sim.performance`): ``rejection`` (the test's size where the true AUC ``x``
equals ``null``, its power elsewhere), ``bias``, ``empirical_se``, ``model_se`` and
``model_se_rel_error`` (how well the method's variance estimates the AUC's), ``mse``, and the
coverage of the true AUC.

``auc_multiclass``: ``classes`` classes of ``n`` instances on average, in the ratio ``1 : 2 :
... : classes`` (:func:`multiclass_sizes`; unequal, so that one-vs-one and one-vs-rest differ),
scores from a
:class:`~rocsim.sim.models.MulticlassScoreModel` (every pairwise and one-vs-rest AUC equals
the model's AUC, hence so does every average), intervals of
:func:`rocsim.core.multiclass.multiclass_auc_ci` with ``multi_class`` and ``average``
from the axes (default ``ovo``, ``macro``), methods ``delong`` and ``exact_bootstrap`` (normal
intervals on either variance) and ``mover`` (the MOVER on each component's score interval,
:func:`rocsim.core.multiclass.weighted_mover_bounds`).

``auc_paired``: one paired test set per replication (two classifiers scoring the same ``n``
positives and ``n`` negatives, bivariate normal within each class), one interval of ``AUC1 -
AUC2`` per method of :data:`rocsim.core.area.AUC_DIFFERENCE_METHODS`
(:func:`rocsim.core.area.auc_difference_ci`); the target is the difference of the
two marginal models' AUCs.

``auc_paired_partial``: the same paired test sets, one interval of the difference of the two
classifiers' McClish-standardised partial AUCs over FPR ``[0, f]`` per ``f`` of the grid
(``max_fpr``) and method of :data:`rocsim.core.partial_area.PARTIAL_AUC_DIFFERENCE_METHODS`
(:func:`rocsim.core.partial_area.partial_auc_difference_ci`, as ``compare_auc(...,
max_fpr=f)`` calls it); the target is the difference of the two marginal models' true
standardised partial areas (:func:`true_area` to ``f``, :func:`~rocsim.core.partial_area.
mcclish`).

``auc_multiclass_paired``: two models scoring the same instances of ``classes`` classes
(:class:`~rocsim.sim.models.PairedMulticlassScoreModel`: each model's columns as in
``auc_multiclass``, the two models' scores of an instance bivariate normal with ``rho``),
sizes of :func:`multiclass_sizes`, one interval of ``AUC1 - AUC2`` per method of
:data:`MULTICLASS_DIFFERENCE_METHODS` (:func:`rocsim.core.multiclass.
multiclass_auc_difference_ci`, as ``compare_auc(..., multi_class=...)`` calls it); each
model's multiclass AUC is its binary AUC, so the target is the difference of the two.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from rocsim.core import (
    AUC_DIFFERENCE_METHODS,
    AUC_INTERVAL_METHODS,
    AUC_PROTOCOL,
    AVERAGES,
    MULTI_CLASS,
    MULTICLASS_AUC_DIFFERENCE_METHODS,
    MULTICLASS_AUC_METHODS,
    PARTIAL_AUC_DIFFERENCE_METHODS,
    auc_ci,
    auc_difference_ci,
    check_choice,
    mcclish,
    multiclass_auc_ci,
    multiclass_auc_difference_ci,
    partial_auc_difference_ci,
)
from rocsim.sim.conditions import Condition
from rocsim.sim.extensions import build_model
from rocsim.sim.models import (
    MulticlassScoreModel,
    PairedMulticlassScoreModel,
    PairedScoreModel,
    ScoreModel,
)
from rocsim.sim.runner import Setup
from rocsim.studies._common import (
    SimulatedOnly,
    class_sizes,
    grid_values,
    interval_method,
    interval_outcome,
    paired_model_from_settings,
    true_area,
)

#: The multiclass intervals' methods: the normal intervals' variances and the MOVER.
MULTICLASS_METHODS = MULTICLASS_AUC_METHODS
#: The intervals of a difference of two multiclass AUCs: the normal intervals' variances and
#: DeLong's with a t quantile
#: (:func:`rocsim.core.multiclass.multiclass_auc_difference_ci` has no MOVER).
MULTICLASS_DIFFERENCE_METHODS = MULTICLASS_AUC_DIFFERENCE_METHODS


@dataclass(frozen=True)
class _Prepared:
    model: ScoreModel | MulticlassScoreModel | PairedScoreModel | PairedMulticlassScoreModel
    n_pos: int
    n_neg: int
    sizes: tuple[int, ...] = ()


def multiclass_sizes(n: int, classes: int) -> tuple[int, ...]:
    """Class sizes ``round(2 n k / (classes + 1))``, ``k = 1 .. classes``: ``n`` on average,
    in the ratio ``1 : 2 : ... : classes``.

    >>> multiclass_sizes(10, 3)
    (5, 10, 15)
    """
    sizes = tuple(round(2 * n * k / (classes + 1)) for k in range(1, classes + 1))
    if sizes[0] < 2:
        raise ValueError(
            f"n={n} leaves the smallest of {classes} classes with {sizes[0]} instances; "
            "the intervals need 2"
        )
    return sizes


def multiclass_options(settings) -> dict[str, str]:
    """``multi_class`` and ``average`` of a condition: its axes', else ``ovo`` and ``macro``
    (settings only hold what an axis sets)."""
    return {
        "multi_class": check_choice(
            settings.get("multi_class", "ovo"), MULTI_CLASS, "multi_class"
        ),
        "average": check_choice(settings.get("average", "macro"), AVERAGES, "average"),
    }


def _outcome(truth: float, low: float, high: float) -> dict[str, np.ndarray]:
    out = interval_outcome(np.array([truth]), np.array([low]), np.array([high]))
    return out | {"degenerate": np.array([low == high])}


class AUCMethodStudy(SimulatedOnly):
    """generate / analyse for the intervals of one classifier's AUC."""

    kind = "AUC"
    grid = "auc"
    methods = AUC_INTERVAL_METHODS
    protocol = AUC_PROTOCOL
    user_methods = True

    def setup(self, condition: Condition) -> Setup:
        model, n_pos, n_neg = self.model_and_sizes(condition.settings)
        truth = np.array([true_area(model)])
        return Setup(x=truth, target=truth, payload=_Prepared(model, n_pos, n_neg))

    def analyse(self, condition: Condition, setup: Setup, data) -> dict[str, np.ndarray]:
        pos, neg, _ = data
        s = condition.settings
        ci = auc_ci(pos, neg, method=interval_method(s), confidence_level=s["confidence_level"])
        return _outcome(float(setup.target[0]), ci.low, ci.high)


class AUCTestStudy(AUCMethodStudy):
    """generate / analyse for the AUC tests' size and power (estimates, not outcomes)."""

    kind = "AUC test"

    def analyse(self, condition: Condition, setup: Setup, data) -> dict[str, np.ndarray]:
        pos, neg, _ = data
        s = condition.settings
        test = auc_ci(
            pos,
            neg,
            method=interval_method(s),
            confidence_level=s["confidence_level"],
            alternative=s.get("alternative", "two-sided"),
            null=s.get("null", 0.5),
        )
        values = {
            "estimate": test.auc,
            "se": np.sqrt(test.var),
            "p_value": test.p_value,
            "low": test.low,
            "high": test.high,
        }
        return {name: np.array([value], dtype=float) for name, value in values.items()}


class MulticlassAUCStudy(SimulatedOnly):
    """generate / analyse for the multiclass AUC's intervals (:func:`multiclass_sizes`)."""

    kind = "multiclass AUC"
    grid = "auc"
    methods = MULTICLASS_METHODS

    def setup(self, condition: Condition) -> Setup:
        s = condition.settings
        self.check_settings(s)
        model = self.model_of(s)
        multiclass_options(s)  # checked before any data
        sizes = multiclass_sizes(int(s["n"]), model.classes)
        truth = self.truth(model)
        return Setup(x=truth, target=truth, payload=_Prepared(model, 0, 0, sizes))

    def model_of(self, settings) -> MulticlassScoreModel:
        """The condition's multiclass score model."""
        model = build_model(settings["model"])
        if not isinstance(model, MulticlassScoreModel):
            raise ValueError("multiclass AUC studies need a model with `classes:` (3 or more)")
        return model

    def truth(self, model: MulticlassScoreModel) -> np.ndarray:
        """The target: the model's AUC (every pairwise and one-vs-rest AUC's)."""
        return np.array([true_area(model.model)])

    def generate(self, condition: Condition, setup: Setup, rng: np.random.Generator):
        p: _Prepared = setup.payload
        return p.model.sample(rng, p.sizes)

    def analyse(self, condition: Condition, setup: Setup, data) -> dict[str, np.ndarray]:
        s = condition.settings
        ci = self.interval(
            data,
            **multiclass_options(s),
            method=s["method"],
            confidence_level=s["confidence_level"],
        )
        return _outcome(float(setup.target[0]), ci.low, ci.high)

    def interval(self, data, **options):
        """The interval of one data set (``generate``'s)."""
        return multiclass_auc_ci(data, **options)


class PairedMulticlassAUCStudy(MulticlassAUCStudy):
    """generate / analyse for the intervals of the difference of two models' multiclass AUCs
    on the same instances (:class:`~rocsim.sim.models.PairedMulticlassScoreModel`: a paired
    binormal model's spec with ``classes:``)."""

    kind = "paired multiclass AUC"
    methods = MULTICLASS_DIFFERENCE_METHODS

    def model_of(self, settings) -> PairedMulticlassScoreModel:
        paired = paired_model_from_settings(settings)
        classes = settings["model"].get("classes")
        if classes is None:
            raise ValueError(
                "paired multiclass AUC studies need a paired model with `classes:` (3 or more)"
            )
        return PairedMulticlassScoreModel.of(paired, classes)

    def truth(self, model: PairedMulticlassScoreModel) -> np.ndarray:
        """``AUC1 - AUC2``: each model's multiclass AUC is its binary AUC."""
        return auc_difference(model.paired)

    def interval(self, data, **options):
        return multiclass_auc_difference_ci(*data, **options)


class PairedAUCStudy(SimulatedOnly):
    """generate / analyse for the intervals of the difference of two classifiers' AUCs on the
    same instances (a paired score model: bivariate normal scores within each class)."""

    kind = "paired AUC"
    grid = "auc"
    methods = AUC_DIFFERENCE_METHODS

    def setup(self, condition: Condition) -> Setup:
        s = condition.settings
        self.check_settings(s)
        model = paired_model_from_settings(s)
        x, truth = self.truth(model, s)
        n_pos, n_neg = class_sizes(s["n"], s["pi"])
        return Setup(x=x, target=truth, payload=_Prepared(model, n_pos, n_neg))

    def truth(self, model: PairedScoreModel, settings) -> tuple[np.ndarray, np.ndarray]:
        """The grid (``x``) and the targets there: ``AUC1 - AUC2``, once."""
        truth = auc_difference(model)
        return truth, truth

    def generate(self, condition: Condition, setup: Setup, rng: np.random.Generator):
        p: _Prepared = setup.payload
        return p.model.sample(rng, p.n_pos, p.n_neg)

    def analyse(self, condition: Condition, setup: Setup, data) -> dict[str, np.ndarray]:
        s = condition.settings
        ci = auc_difference_ci(*data, method=s["method"], confidence_level=s["confidence_level"])
        return _outcome(float(setup.target[0]), ci.low, ci.high)


class PairedPartialAUCStudy(PairedAUCStudy):
    """generate / analyse for the intervals of the difference of two classifiers'
    McClish-standardised partial AUCs over FPR ``[0, f]`` on the same instances, at each
    ``f`` of the grid (``max_fpr``; also the table's column ``max_fpr``)."""

    kind = "paired partial AUC"
    grid = "max_fpr"
    methods = PARTIAL_AUC_DIFFERENCE_METHODS

    def setup(self, condition: Condition) -> Setup:
        setup = super().setup(condition)
        return replace(setup, extra={"max_fpr": setup.x})

    def truth(self, model: PairedScoreModel, settings) -> tuple[np.ndarray, np.ndarray]:
        """The max FPRs ``f`` of the grid and the difference of the two classifiers' true
        standardised partial areas over ``[0, f]``."""
        f = grid_values(settings["grid"])
        if np.any(f <= 0) or np.any(f > 1):
            raise ValueError(
                f"a paired partial AUC study's grid holds max FPRs in (0, 1], got {f.tolist()}"
            )
        return f, standardised_partial_area(model.first, f) - standardised_partial_area(
            model.second, f
        )

    def analyse(self, condition: Condition, setup: Setup, data) -> dict[str, np.ndarray]:
        s = condition.settings
        low, high = np.empty(setup.x.size), np.empty(setup.x.size)
        for i, f in enumerate(setup.x):
            ci = partial_auc_difference_ci(
                *data,
                (0.0, float(f)),
                method=s["method"],
                confidence_level=s["confidence_level"],
            )
            low[i], high[i] = ci.low, ci.high
        return interval_outcome(setup.target, low, high) | {"degenerate": low == high}


def auc_difference(model: PairedScoreModel) -> np.ndarray:
    """``[AUC1 - AUC2]``, the two marginal models' true AUCs (:func:`true_area`)."""
    return np.array([true_area(model.first) - true_area(model.second)])


def standardised_partial_area(model: ScoreModel, f: np.ndarray) -> np.ndarray:
    """The true curve's McClish-standardised partial area over FPR ``[0, f]`` at each ``f``
    (:func:`true_area` to ``f``, as the ``partial_auc`` study's target)."""
    return np.array([mcclish(true_area(model, float(v)), 0.0, float(v)) for v in f])
