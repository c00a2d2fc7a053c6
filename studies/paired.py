"""Paired designs: coverage of intervals on the difference of two classifiers' ROC curves.

Threshold averaging (figure 4.5): at the total positive ratio ``q`` each classifier gets its
own true threshold ``t_q`` (or classifier 1's for both, ``common_threshold: true``); a
replication draws a paired test set, builds the rectangle of ``(dFPR, dTPR)`` (each axis at
``sqrt(level)``, eqs. 4.8-4.9 for ``score``) and checks it against the true differences.

Vertical averaging (figure 4.9): at FPR ``r/m-`` the target is the true
``TPR1 - TPR2`` there; the interval comes from the bootstrap moments of
:func:`rocsim.core.vertical_difference` (Algorithm 4.4).

Bands of the difference (``paired_bands``): one band per replication over the whole grid,
called as a user calls it, ``rocsim.compare_roc(y, s1, s2, averaging=..., at=grid,
band=...)`` (vertical: ``TPR1 - TPR2`` at FPRs; horizontal: ``FPR1 - FPR2`` at TPRs; the
``averaging`` axis); a replication covers when the true difference lies in the band at every
point at once (one row per condition, as the single-classifier band study).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import rocsim
from rocsim.core import (
    PAIRED_METHODS,
    PAIRED_PROTOCOL,
    VERTICAL_DIFFERENCE_METHODS,
    VERTICAL_DIFFERENCE_PROTOCOL,
    check_paired,
    check_thresholds,
    threshold_difference_bounds,
    threshold_difference_ci_options,
    vertical_difference_ci,
)
from rocsim.sim.conditions import Condition
from rocsim.sim.models import PairedScoreModel, draw_class_counts
from rocsim.sim.runner import Setup
from rocsim.studies._common import (
    BuiltinKind,
    analyse_in_groups,
    averaging,
    band_outcome,
    class_sizes,
    first_row,
    fpr_grid,
    grid_values,
    interval_options,
    interval_outcome,
    outcome_settings,
    paired_class_sizes_of,
    paired_model_from_settings,
    rectangle_outcome,
)


@dataclass(frozen=True)
class _Prepared:
    model: PairedScoreModel
    n_pos: int
    n_neg: int
    t1: np.ndarray | None = None
    t2: np.ndarray | None = None
    r: np.ndarray | None = None


def _paired_design(settings) -> tuple[PairedScoreModel, int, int]:
    """The paired model and class sizes of a condition (stratified sampling and bootstrap)."""
    if settings["sampling"] != "stratified" or settings["bootstrap"] != "stratified":
        raise ValueError("paired studies use sampling=stratified and bootstrap=stratified")
    return paired_model_from_settings(settings), *class_sizes(settings["n"], settings["pi"])


class _PairedStudy(BuiltinKind):
    """What both paired kinds share: a paired test set per replication, no exact coverage."""

    def generate(self, condition: Condition, setup: Setup, rng: np.random.Generator):
        """``(pos1, pos2, neg1, neg2)``; class sizes drawn as ``sampling`` says (with
        ``stratified`` nothing is drawn for them, so the scores use the same random stream)."""
        p: _Prepared = setup.payload
        n_pos, n_neg, _ = draw_class_counts(p.n_pos, p.n_neg, condition.settings["sampling"], rng)
        return p.model.sample(rng, n_pos, n_neg)

    def exact(self, condition: Condition, setup: Setup):
        raise ValueError(
            "coverage=exact is available for single-classifier threshold averaging "
            "and cost curves only; use coverage=simulate"
        )


class PairedThresholdStudy(_PairedStudy):
    """generate / analyse for threshold averaging of two classifiers (thesis 4.3.2)."""

    grid = "q"
    methods = tuple(PAIRED_METHODS)
    protocol = PAIRED_PROTOCOL

    def outcome_settings(self, settings) -> dict:
        """The settings the outcomes depend on (the runner's cache key)."""
        return outcome_settings(settings, self.protocol.kind)

    def setup(self, condition: Condition) -> Setup:
        s = condition.settings
        model, n_pos, n_neg = _paired_design(s)
        q = grid_values(s["grid"])
        t1, t2 = model.thresholds_for_total_positive_ratio(
            q, pi=n_pos / (n_pos + n_neg), common=bool(s["model"].get("common_threshold"))
        )
        dtpr, dfpr = model.differences_at(t1, t2)
        return Setup(
            x=q,
            target=dtpr,
            extra={"target_fpr": dfpr},
            payload=_Prepared(model, n_pos, n_neg, t1, t2),
        )

    def analyse(self, condition: Condition, setup: Setup, data) -> dict[str, np.ndarray]:
        return first_row(self.analyse_block(condition, setup, [data]))

    def analyse_block(self, condition: Condition, setup: Setup, block) -> dict[str, np.ndarray]:
        """:meth:`analyse` of every paired test set of ``block``, stacked: the interval
        formulas run once on the discordant counts of all the test sets of equal class sizes
        (:func:`rocsim.core.paired_threshold.threshold_difference_bounds`)."""
        p, options = setup.payload, interval_options(condition.settings, "pseudo_count")
        level, method, a = threshold_difference_ci_options(
            options["confidence_level"], options["method"], options["pseudo_count"]
        )
        t1, t2 = check_thresholds(p.t1, "t1"), check_thresholds(p.t2, "t2")

        def analyse_group(group) -> dict[str, np.ndarray]:
            samples = [check_paired(*data) for data in group]
            bounds = threshold_difference_bounds(samples, t1, t2, level, method, a)
            return rectangle_outcome(setup.target, setup.extra["target_fpr"], *bounds)

        return analyse_in_groups(block, method, analyse_group, paired_class_sizes_of)


class PairedVerticalStudy(_PairedStudy):
    """generate / analyse for vertical averaging of two classifiers (thesis 4.4.2)."""

    grid = "fpr"
    methods = tuple(VERTICAL_DIFFERENCE_METHODS)
    protocol = VERTICAL_DIFFERENCE_PROTOCOL

    def setup(self, condition: Condition) -> Setup:
        model, n_pos, n_neg = _paired_design(condition.settings)
        r, fpr = fpr_grid(condition.settings, n_neg)
        return Setup(
            x=fpr,
            target=model.tpr_difference_at_fpr(fpr),
            payload=_Prepared(model, n_pos, n_neg, r=r),
        )

    def analyse(self, condition: Condition, setup: Setup, data) -> dict[str, np.ndarray]:
        s = condition.settings
        ci = vertical_difference_ci(*data, setup.payload.r, **interval_options(s))
        return interval_outcome(setup.target, ci.low, ci.high)


#: The paired band study's methods: the bands of :func:`rocsim.compare_roc`, each with its
#: default method.
PAIRED_BANDS = ("pointwise", "bonferroni", "simultaneous")


class PairedBandStudy(_PairedStudy):
    """generate / analyse for bands of the difference of two classifiers' curves."""

    grid = "band"
    methods = PAIRED_BANDS
    protocol = VERTICAL_DIFFERENCE_PROTOCOL

    def setup(self, condition: Condition) -> Setup:
        model, n_pos, n_neg = _paired_design(condition.settings)
        averaging(condition.settings)  # checked before any data
        at = grid_values(condition.settings["grid"])
        return Setup(
            x=np.array([float(at.size)]),
            target=np.array([np.nan]),
            payload=_Prepared(model, n_pos, n_neg, r=at),
        )

    def analyse(self, condition: Condition, setup: Setup, data) -> dict[str, np.ndarray]:
        pos1, pos2, neg1, neg2 = data
        p: _Prepared = setup.payload
        s = condition.settings
        how = averaging(s)
        y = np.r_[np.ones(pos1.size), np.zeros(neg1.size)]
        result = rocsim.compare_roc(
            y,
            np.r_[pos1, neg1],
            np.r_[pos2, neg2],
            averaging=how,
            at=p.r,
            band=s["method"],
            confidence_level=s["confidence_level"],
        )
        if how == "vertical":
            truth = p.model.tpr_difference_at_fpr(result.fpr)
            low, high = result.dtpr_low, result.dtpr_high
        else:
            truth = p.model.fpr_difference_at_tpr(result.tpr)
            low, high = result.dfpr_low, result.dfpr_high
        return band_outcome(truth, low, high)

    def exact(self, condition: Condition, setup: Setup):
        raise ValueError("paired band studies are simulated only; use coverage=simulate")
