"""Threshold averaging, single design: coverage of the rectangles of Algorithm 4.1.

Grid: total positive ratio ``q``; the true threshold ``t_q`` solves
``pi S+(t) + (1-pi) S-(t) = q`` (:ref:`reading-total-positive-ratio`). A replication draws a test
set, builds the
confidence rectangle of ``(FPR, TPR)`` at ``t_q`` and checks it against
``(S-(t_q), S+(t_q))``. Figures 4.2, 4.3, 4.4 and 4.10 of the thesis.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rocsim.core import (
    PROPORTION_METHODS,
    PROPORTION_PROTOCOL,
    check_two_classes,
    mix_rectangles,
    sampling_class_sizes,
    threshold_bounds,
    threshold_ci_options,
    threshold_exact_parts,
)
from rocsim.sim.conditions import Condition
from rocsim.sim.models import ScoreModel, draw_test_set
from rocsim.sim.runner import Setup
from rocsim.studies._common import (
    BuiltinKind,
    analyse_in_groups,
    class_sizes,
    class_sizes_of,
    first_row,
    grid_values,
    interval_options,
    model_from_settings,
    outcome_settings,
    rectangle_outcome,
)

#: Class sizes per part of a full-sampling exact coverage (:meth:`ThresholdStudy.exact_split`).
EXACT_PART_SIZES = 32


@dataclass(frozen=True)
class _Prepared:
    model: ScoreModel
    n_pos: int
    n_neg: int
    thresholds: np.ndarray


class ThresholdStudy(BuiltinKind):
    """generate / analyse / exact for threshold averaging of one classifier."""

    grid = "q"
    methods = tuple(PROPORTION_METHODS)
    protocol = PROPORTION_PROTOCOL

    def outcome_settings(self, settings) -> dict:
        """The settings the outcomes depend on (the runner's cache key)."""
        return outcome_settings(settings, self.protocol.kind)

    def setup(self, condition: Condition) -> Setup:
        s = condition.settings
        model = model_from_settings(s)
        n_pos, n_neg = class_sizes(s["n"], s["pi"])
        q = grid_values(s["grid"])
        thresholds = model.threshold_for_total_positive_ratio(q, pi=n_pos / (n_pos + n_neg))
        return Setup(
            x=q,
            target=model.tpr(thresholds),
            extra={"target_fpr": model.fpr(thresholds), "threshold": thresholds},
            payload=_Prepared(model, n_pos, n_neg, thresholds),
        )

    def generate(self, condition: Condition, setup: Setup, rng: np.random.Generator):
        p: _Prepared = setup.payload
        return draw_test_set(p.model, p.n_pos, p.n_neg, condition.settings["sampling"], rng)

    def analyse(self, condition: Condition, setup: Setup, data) -> dict[str, np.ndarray]:
        return first_row(self.analyse_block(condition, setup, [data]))

    def analyse_block(self, condition: Condition, setup: Setup, block) -> dict[str, np.ndarray]:
        """:meth:`analyse` of every test set of ``block``, stacked: the interval formulas run
        once on the counts of all the test sets of equal class sizes
        (:func:`rocsim.core.threshold.threshold_bounds`)."""
        options = interval_options(condition.settings, "bootstrap", "pseudo_count")
        bootstrap = options["bootstrap"]
        level, method, a = threshold_ci_options(
            options["confidence_level"], options["method"], options["pseudo_count"], bootstrap
        )

        def analyse_group(group) -> dict[str, np.ndarray]:
            samples = [check_two_classes(*data[:2]) for data in group]
            thresholds = setup.payload.thresholds
            tpr_low, tpr_high, fpr_low, fpr_high = threshold_bounds(
                samples, thresholds, level, method, a, bootstrap
            )
            target_fpr = setup.extra["target_fpr"]
            outcome = rectangle_outcome(
                setup.target, target_fpr, tpr_low, tpr_high, fpr_low, fpr_high
            )
            return {**outcome, "redraws": np.array([data[2] for data in group], dtype=np.int64)}

        return analyse_in_groups(block, method, analyse_group, class_sizes_of)

    def exact_beside(self, condition: Condition, limit: int) -> bool:
        """Whether to compute the exact coverage beside a simulation (quickly enough): under
        stratified sampling it is (one binomial sum per axis); under full sampling it mixes
        over the class sizes, so only up to ``n = limit``."""
        s = condition.settings
        return s["sampling"] == "stratified" or s["n"] <= limit

    def exact(self, condition: Condition, setup: Setup) -> dict[str, np.ndarray]:
        parts = self.exact_split(condition, setup)
        return self.exact_join(
            condition, setup, [self.exact_part(condition, setup, part) for part in parts]
        )

    def exact_split(self, condition: Condition, setup: Setup) -> list[slice]:
        """The exact coverage in parts the runner computes side by side: a test set's class
        sizes (one pair, or every likely one under full sampling) in slices of
        :data:`EXACT_PART_SIZES`."""
        p = setup.payload
        count = len(sampling_class_sizes(p.n_pos, p.n_neg, condition.settings["sampling"])[0])
        return [slice(a, a + EXACT_PART_SIZES) for a in range(0, count, EXACT_PART_SIZES)]

    def exact_part(self, condition: Condition, setup: Setup, sizes: slice) -> list:
        """Each axis's exact coverage for the class sizes ``sizes``
        (:func:`rocsim.core.coverage.threshold_exact_parts`)."""
        s, p = condition.settings, setup.payload
        options = interval_options(s, "pseudo_count", "bootstrap", "sampling")
        truths = (setup.target, setup.extra["target_fpr"])
        return threshold_exact_parts(*truths, p.n_pos, p.n_neg, sizes=sizes, **options)

    def exact_join(self, condition: Condition, setup: Setup, parts: list) -> dict:
        """The exact outcomes from the parts of every slice, in order (the rectangles'
        coverage averaged over the class sizes, :func:`rocsim.core.coverage.mix_rectangles`)."""
        p = setup.payload
        weights = sampling_class_sizes(p.n_pos, p.n_neg, condition.settings["sampling"])[1]
        c = mix_rectangles([axes for part in parts for axes in part], weights)
        return {
            "cover": c.cover,
            "below": c.below,
            "above": c.above,
            "width": c.tpr.width,
            "coverage_tpr": c.tpr.cover,
            "coverage_fpr": c.fpr.cover,
            "mean_width_fpr": c.fpr.width,
        }
