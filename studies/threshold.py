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

from rocsim.core.coverage import threshold_exact_coverage
from rocsim.core.intervals import PROPORTION_METHODS
from rocsim.core.threshold import threshold_ci
from rocsim.sim.conditions import Condition
from rocsim.sim.models import ScoreModel, draw_test_set
from rocsim.sim.runner import Setup
from rocsim.studies._common import (
    class_sizes,
    grid_values,
    interval_options,
    model_from_settings,
    rectangle_outcome,
)


@dataclass(frozen=True)
class _Prepared:
    model: ScoreModel
    n_pos: int
    n_neg: int
    thresholds: np.ndarray


class ThresholdStudy:
    """generate / analyse / exact for threshold averaging of one classifier."""

    grid = "q"
    methods = tuple(PROPORTION_METHODS)
    protocol = "proportion"

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
        pos, neg, redraws = data
        s = condition.settings
        options = interval_options(s, "bootstrap", "pseudo_count")
        ci = threshold_ci(pos, neg, setup.payload.thresholds, **options)
        return {
            **rectangle_outcome(
                setup.target,
                setup.extra["target_fpr"],
                ci.tpr_low,
                ci.tpr_high,
                ci.fpr_low,
                ci.fpr_high,
            ),
            "redraws": np.int64(redraws),
        }

    def exact_beside(self, condition: Condition, limit: int) -> bool:
        """Whether to compute the exact coverage beside a simulation (quickly enough): under
        stratified sampling it is (one binomial sum per axis); under full sampling it mixes
        over the class sizes, so only up to ``n = limit``."""
        s = condition.settings
        return s["sampling"] == "stratified" or s["n"] <= limit

    def exact(self, condition: Condition, setup: Setup) -> dict[str, np.ndarray]:
        s, p = condition.settings, setup.payload
        options = interval_options(s, "pseudo_count", "bootstrap", "sampling")
        truths = (setup.target, setup.extra["target_fpr"])
        c = threshold_exact_coverage(*truths, p.n_pos, p.n_neg, **options)
        return {
            "cover": c.cover,
            "below": c.below,
            "above": c.above,
            "width": c.tpr.width,
            "coverage_tpr": c.tpr.cover,
            "coverage_fpr": c.fpr.cover,
            "mean_width_fpr": c.fpr.width,
        }
