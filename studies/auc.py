"""AUC intervals: coverage of the true AUC by every method of the AUC method table, and of the
true multiclass AUC by the multiclass intervals.

``auc_methods``: one binary test set per replication (stratified, ``n`` per class), one
interval per method of :data:`rocsim.core.auc_methods.AUC_INTERVAL_METHODS`
(:func:`rocsim.core.area.auc_interval`). The target is the model's AUC, ``int_0^1
S+(S-^{-1}(u)) du``. The table has one row per condition (``x`` is the true AUC): coverage,
``miss_low`` / ``miss_high`` (the true AUC below / above the interval), ``mean_width``, and
``degenerate``, the share of zero-width intervals (a sample AUC of 0 or 1 makes the Wald
intervals ``[1, 1]``).

``auc_multiclass``: ``classes`` classes of ``n`` instances on average, in the ratio ``1 : 2 :
... : classes`` (:func:`multiclass_sizes`; unequal, so that one-vs-one and one-vs-rest differ),
scores from a
:class:`~rocsim.sim.models.MulticlassScoreModel` (every pairwise and one-vs-rest AUC equals
the model's AUC, hence so does every average), intervals of
:func:`rocsim.core.multiclass.multiclass_auc_interval` with ``multi_class`` and ``average``
from the axes (default ``ovo``, ``macro``), methods ``delong`` and ``exact_bootstrap`` (normal
intervals on either variance) and ``mover`` (the MOVER on each component's score interval,
:func:`rocsim.core.multiclass.weighted_mover_bounds`).

``auc_paired``: one paired test set per replication (two classifiers scoring the same ``n``
positives and ``n`` negatives, bivariate normal within each class), one interval of ``AUC1 -
AUC2`` per method of :data:`rocsim.core.area.AUC_DIFFERENCE_METHODS`
(:func:`rocsim.core.area.auc_difference_interval`); the target is the difference of the
two marginal models' AUCs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rocsim.core._validation import check_choice
from rocsim.core.area import AUC_DIFFERENCE_METHODS, auc_difference_interval, auc_interval
from rocsim.core.auc_methods import AUC_INTERVAL_METHODS
from rocsim.core.multiclass import (
    AVERAGES,
    MULTI_CLASS,
    MULTICLASS_AUC_METHODS,
    multiclass_auc_interval,
)
from rocsim.sim.conditions import Condition
from rocsim.sim.extensions import build_model
from rocsim.sim.models import MulticlassScoreModel, PairedScoreModel, ScoreModel
from rocsim.sim.runner import Setup
from rocsim.studies._common import (
    SimulatedOnly,
    class_sizes,
    interval_outcome,
    paired_model_from_settings,
    true_area,
)

#: The multiclass intervals' methods: the normal intervals' variances and the MOVER.
MULTICLASS_METHODS = MULTICLASS_AUC_METHODS


@dataclass(frozen=True)
class _Prepared:
    model: ScoreModel | MulticlassScoreModel | PairedScoreModel
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

    def setup(self, condition: Condition) -> Setup:
        model, n_pos, n_neg = self.model_and_sizes(condition.settings)
        truth = np.array([true_area(model)])
        return Setup(x=truth, target=truth, payload=_Prepared(model, n_pos, n_neg))

    def analyse(self, condition: Condition, setup: Setup, data) -> dict[str, np.ndarray]:
        pos, neg, _ = data
        s = condition.settings
        ci = auc_interval(pos, neg, method=s["method"], confidence_level=s["confidence_level"])
        return _outcome(float(setup.target[0]), ci.low, ci.high)


class MulticlassAUCStudy(SimulatedOnly):
    """generate / analyse for the multiclass AUC's intervals (:func:`multiclass_sizes`)."""

    kind = "multiclass AUC"
    grid = "auc"
    methods = MULTICLASS_METHODS

    def setup(self, condition: Condition) -> Setup:
        s = condition.settings
        self.check_settings(s)
        model = build_model(s["model"])
        if not isinstance(model, MulticlassScoreModel):
            raise ValueError("multiclass AUC studies need a model with `classes:` (3 or more)")
        multiclass_options(s)  # checked before any data
        sizes = multiclass_sizes(int(s["n"]), model.classes)
        truth = np.array([true_area(model.model)])
        return Setup(x=truth, target=truth, payload=_Prepared(model, 0, 0, sizes))

    def generate(self, condition: Condition, setup: Setup, rng: np.random.Generator):
        p: _Prepared = setup.payload
        return p.model.sample(rng, p.sizes)

    def analyse(self, condition: Condition, setup: Setup, data) -> dict[str, np.ndarray]:
        s = condition.settings
        ci = multiclass_auc_interval(
            data,
            **multiclass_options(s),
            method=s["method"],
            confidence_level=s["confidence_level"],
        )
        return _outcome(float(setup.target[0]), ci.low, ci.high)


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
        truth = np.array([true_area(model.first) - true_area(model.second)])
        n_pos, n_neg = class_sizes(s["n"], s["pi"])
        return Setup(x=truth, target=truth, payload=_Prepared(model, n_pos, n_neg))

    def generate(self, condition: Condition, setup: Setup, rng: np.random.Generator):
        p: _Prepared = setup.payload
        return p.model.sample(rng, p.n_pos, p.n_neg)

    def analyse(self, condition: Condition, setup: Setup, data) -> dict[str, np.ndarray]:
        s = condition.settings
        ci = auc_difference_interval(
            *data, method=s["method"], confidence_level=s["confidence_level"]
        )
        return _outcome(float(setup.target[0]), ci.low, ci.high)
