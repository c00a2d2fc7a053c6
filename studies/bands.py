"""Whole-curve bands and partial AUCs: coverage of the true curve by a band at every point of
its grid at once (simultaneous coverage), and of the true partial AUC by its interval.

``bands``: one band per replication, called exactly as a user calls it,
``rocsim.roc_ci(y, s, averaging=..., at=grid, band=..., method=...)``, at the rates of the grid
(vertical averaging: FPRs, each moved to the nearest ``r/n-``; horizontal: TPRs, to the nearest
``k/n+``; the ``averaging`` axis, vertical by default). Methods (:data:`BAND_CALLS`): every
band :func:`rocsim.roc_ci` offers with its default method, each other method the simultaneous
band takes, and rocci's envelope (Delaney-Busch's ``rocci.roc_band``, an optional dependency:
without it those conditions are left out, with one line). A replication covers when the true
curve lies in the band at every point of the grid: at FPR ``t`` the true TPR
``S+(S-^{-1}(t))``, at TPR ``s`` the true FPR ``S-(S+^{-1}(s))``. The table's ``coverage``
is the simultaneous coverage, ``miss_low`` / ``miss_high`` the shares of replications where
the true curve leaves the band below / above somewhere, ``mean_width`` the band's width
averaged over its points, and ``coverage_pointwise`` the share of the grid's points covered.
The table has one row per condition: ``x`` is the number of points the band holds at once.

``partial_auc``: the McClish-standardised partial AUC over FPR ``[0, f]`` for each ``f`` of
the grid (:func:`rocsim.core.partial_area.partial_auc_ci`), methods ``delong``,
``exact_bootstrap`` and ``logit_t``; the target is the true standardised partial area, the
integral of the true curve from 0 to ``f``.
"""

from __future__ import annotations

import importlib.util
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

import rocsim
from rocsim.core import (
    PARTIAL_AUC_METHODS,
    mcclish,
    partial_auc_ci,
)
from rocsim.sim.conditions import Condition
from rocsim.sim.models import ScoreModel
from rocsim.sim.runner import Setup
from rocsim.studies._common import (
    SimulatedOnly,
    averaging,
    band_outcome,
    grid_values,
    interval_outcome,
    true_area,
)

#: The band study's methods: name -> ``(band, method)`` of :func:`rocsim.roc_ci` (``None``:
#: the band's default method); ``rocci`` is rocci's envelope.
BAND_CALLS: dict[str, tuple[str, str | None]] = {
    "pointwise": ("pointwise", None),
    "bonferroni": ("bonferroni", None),
    "simultaneous": ("simultaneous", None),
    "simultaneous-score": ("simultaneous", "score"),
    "bootstrap-containment": ("bootstrap-containment", None),
    "working-hotelling": ("working-hotelling", None),
    "ks": ("ks", None),
    "fixed-width": ("fixed-width", None),
    "rocci": ("rocci", None),
}


@dataclass(frozen=True)
class _Prepared:
    model: ScoreModel
    n_pos: int
    n_neg: int
    at: np.ndarray


class BandStudy(SimulatedOnly):
    """generate / analyse for whole-curve bands of one classifier."""

    kind = "band"
    grid = "band"
    methods = tuple(BAND_CALLS)

    def setup(self, condition: Condition) -> Setup:
        s = condition.settings
        model, n_pos, n_neg = self.model_and_sizes(s)
        averaging(s)  # checked before any data
        at = grid_values(s["grid"])
        if s["method"] == "rocci":
            rocci_grid_size(at)
        return Setup(
            x=np.array([float(at.size)]),
            target=np.array([np.nan]),
            payload=_Prepared(model, n_pos, n_neg, at),
        )

    def unavailable(self, condition: Condition) -> str | None:
        """Why the condition cannot run here: rocci's, when rocci is not installed."""
        if condition.settings["method"] == "rocci" and not rocci_installed():
            return "rocci is not installed (pip install rocci): its band is left out"
        return None

    def generate(self, condition: Condition, setup: Setup, rng: np.random.Generator):
        pos, neg, redraws = super().generate(condition, setup, rng)
        # drawn after the data, so every method sees the same data sets
        return pos, neg, redraws, int(rng.integers(2**63))

    def analyse(self, condition: Condition, setup: Setup, data) -> dict[str, np.ndarray]:
        pos, neg, _, seed = data
        p: _Prepared = setup.payload
        s = condition.settings
        how = averaging(s)
        y, score = np.r_[np.ones(pos.size), np.zeros(neg.size)], np.r_[pos, neg]
        if s["method"] == "rocci":
            rate, low, high = rocci_band(y, score, how, p.at, s["confidence_level"], seed)
        else:
            band, method = BAND_CALLS[s["method"]]
            result = rocsim.roc_ci(
                y,
                score,
                averaging=how,
                at=p.at,
                band=band,
                method=method,
                confidence_level=s["confidence_level"],
            )
            if how == "vertical":
                rate, low, high = result.fpr, result.tpr_low, result.tpr_high
            else:
                rate, low, high = result.tpr, result.fpr_low, result.fpr_high
        return band_outcome(true_curve(p.model, rate, how), low, high)


def true_curve(model: ScoreModel, rate: np.ndarray, how: str) -> np.ndarray:
    """The true curve at the band's rates: TPR at FPR ``rate`` (vertical) or FPR at TPR
    ``rate`` (horizontal)."""
    if how == "vertical":
        return model.pos.sf(model.neg.isf(rate))
    return model.neg.sf(model.pos.isf(rate))


#: Most steps of rocci's grid the band study asks for (its band is simultaneous over all of
#: them: a grid finer than the study's makes it wider).
ROCCI_MAX_GRID = 1000


def rocci_installed() -> bool:
    return importlib.util.find_spec("rocci") is not None


def rocci_grid_size(at: np.ndarray) -> int:
    """rocci's grid is ``linspace(0, 1, K)``: the smallest ``K`` that holds every rate of
    ``at`` (rates that are fractions with denominators up to :data:`ROCCI_MAX_GRID`)."""
    fractions = [Fraction(float(rate)).limit_denominator(ROCCI_MAX_GRID) for rate in at]
    steps = math.lcm(*(fraction.denominator for fraction in fractions))
    if steps > ROCCI_MAX_GRID or not np.allclose(at * steps, np.round(at * steps), atol=1e-9):
        raise ValueError(
            f"rocci's band is computed on an even grid linspace(0, 1, K) with K up to "
            f"{ROCCI_MAX_GRID + 1}; the study's grid {at.tolist()} is not on one"
        )
    return steps + 1


def rocci_band(y, score, how: str, at: np.ndarray, level: float, seed: int):
    """rocci's envelope band (``rocci.roc_band``, its defaults but the grid and one thread)
    at the rates ``at``: ``(rates, low, high)``. Horizontal averaging: its band of the curve
    with the classes exchanged and the scores negated, whose TPR is ``1 - FPR`` at FPR ``1 -
    TPR`` (:func:`rocsim.core.horizontal_ci` reads FPR at fixed TPRs the same way)."""
    import rocci

    size = rocci_grid_size(at)
    index = np.rint(at * (size - 1)).astype(int)
    # one thread: the study's workers are its parallelism (and BLAS runs single-threaded)
    options = {"confidence": level, "grid_size": size, "random_state": seed, "n_threads": 1}
    if how == "vertical":
        band = rocci.roc_band(y, score, **options)
        return band.fpr[index], band.lower[index], band.upper[index]
    band = rocci.roc_band(1 - y, -score, **options)
    swapped = size - 1 - index  # FPR' = 1 - TPR
    return 1 - band.fpr[swapped], 1 - band.upper[swapped], 1 - band.lower[swapped]


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
        return Setup(x=f, target=truth, payload=_Prepared(model, n_pos, n_neg, f))

    def analyse(self, condition: Condition, setup: Setup, data) -> dict[str, np.ndarray]:
        pos, neg, _ = data
        s = condition.settings
        low, high = np.empty(setup.x.size), np.empty(setup.x.size)
        for i, f in enumerate(setup.x):
            ci = partial_auc_ci(
                pos,
                neg,
                (0.0, float(f)),
                method=s["method"],
                confidence_level=s["confidence_level"],
            )
            low[i], high[i] = ci.low, ci.high
        return interval_outcome(setup.target, low, high)
