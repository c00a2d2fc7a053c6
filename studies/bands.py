"""Whole-curve bands and partial AUCs: coverage of the true curve by a band at every FPR of its
grid at once (simultaneous coverage), and of the true partial AUC by its interval.

``bands``: one band per replication at the FPRs ``r/n-`` nearest the grid (vertical averaging,
stratified; :func:`rocsim.core.bands.band_ci`). Methods: the band kinds, the exact-law ones
(``pointwise``, ``bonferroni``, ``simultaneous``) on the percentile intervals of the exact law
(the one interval that reaches any level of containment), and the literature's comparators
(``working-hotelling``, ``ks``, ``fixed-width``). A replication covers when the true TPR,
``S+(S-^{-1}(r/n-))``, lies in the band at every FPR of the grid: the table's ``coverage`` is
the simultaneous coverage, ``miss_low`` / ``miss_high`` the shares of replications where the
true curve leaves the band below / above somewhere, ``mean_width`` the band's width averaged
over its FPRs, and ``coverage_pointwise`` the share of the grid's FPRs covered. The table has
one row per condition: ``x`` is the number of FPRs the band holds at once.

``partial_auc``: the McClish-standardised partial AUC over FPR ``[0, f]`` for each ``f`` of
the grid (:func:`rocsim.core.partial_area.partial_auc_interval`), methods ``delong`` and
``exact_bootstrap``; the target is the true standardised partial area, the integral of the
true curve from 0 to ``f``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rocsim.core.bands import BANDS, band_ci
from rocsim.core.partial_area import PARTIAL_AUC_METHODS, mcclish, partial_auc_interval
from rocsim.core.vertical import vertical_distribution
from rocsim.sim.conditions import Condition
from rocsim.sim.models import ScoreModel
from rocsim.sim.runner import Setup
from rocsim.studies._common import (
    SimulatedOnly,
    fpr_grid,
    grid_values,
    interval_outcome,
    true_area,
)

#: The pointwise interval of the exact-law bands.
BAND_INTERVAL = "percentile"


@dataclass(frozen=True)
class _Prepared:
    model: ScoreModel
    n_pos: int
    n_neg: int
    r: np.ndarray
    truth: np.ndarray


class BandStudy(SimulatedOnly):
    """generate / analyse for whole-curve bands of one classifier."""

    kind = "band"
    grid = "band"
    methods = BANDS

    def setup(self, condition: Condition) -> Setup:
        s = condition.settings
        model, n_pos, n_neg = self.model_and_sizes(s)
        r, fpr = fpr_grid(s, n_neg)
        truth = model.pos.sf(model.neg.isf(fpr))
        return Setup(
            x=np.array([float(r.size)]),
            target=np.array([np.nan]),
            payload=_Prepared(model, n_pos, n_neg, r, truth),
        )

    def analyse(self, condition: Condition, setup: Setup, data) -> dict[str, np.ndarray]:
        pos, neg, _ = data
        p: _Prepared = setup.payload
        s = condition.settings
        law = vertical_distribution(pos, neg, p.r)
        ci = band_ci(pos, neg, law, s["method"], s["confidence_level"], BAND_INTERVAL).ci
        inside = (ci.low <= p.truth) & (p.truth <= ci.high)
        return {
            "cover": np.array([inside.all()]),
            "below": np.array([np.any(p.truth < ci.low)]),
            "above": np.array([np.any(p.truth > ci.high)]),
            "width": np.array([np.mean(ci.high - ci.low)]),
            "coverage_pointwise": np.array([inside.mean()]),
        }


class PartialAUCStudy(SimulatedOnly):
    """generate / analyse for partial-AUC intervals over FPR ``[0, f]``."""

    kind = "partial AUC"
    grid = "max_fpr"
    methods = PARTIAL_AUC_METHODS

    def setup(self, condition: Condition) -> Setup:
        s = condition.settings
        model, n_pos, n_neg = self.model_and_sizes(s)
        f = grid_values(s["grid"])
        if np.any(f <= 0) or np.any(f > 1):
            raise ValueError("a partial AUC study's grid holds max FPRs in (0, 1]")
        truth = np.array([mcclish(true_area(model, v), 0.0, v) for v in f])
        return Setup(x=f, target=truth, payload=_Prepared(model, n_pos, n_neg, f, truth))

    def analyse(self, condition: Condition, setup: Setup, data) -> dict[str, np.ndarray]:
        pos, neg, _ = data
        s = condition.settings
        low, high = np.empty(setup.x.size), np.empty(setup.x.size)
        for i, f in enumerate(setup.x):
            ci = partial_auc_interval(
                pos,
                neg,
                (0.0, float(f)),
                method=s["method"],
                confidence_level=s["confidence_level"],
            )
            low[i], high[i] = ci.low, ci.high
        return interval_outcome(setup.target, low, high)
