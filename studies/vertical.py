"""Vertical averaging, single design: coverage of TPR intervals at fixed FPRs (Algorithm 4.3).

Grid: FPR ``r/m-`` with ``r`` nearest to 0.01..0.99 (every ``r`` when ``m- < 100``); the
target is the true TPR at that FPR, ``S+(S-^{-1}(r/m-))``. Methods: the exact-bootstrap
intervals of :func:`rocsim.core.vertical_ci` (score, wald, agresti, percentile) and the kernel
comparator of Hall, Hyndman & Fan (2004) (``kernel``). Figures 4.6, 4.7, 4.8 of the thesis.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rocsim.core import (
    VERTICAL_METHODS,
    VERTICAL_PROTOCOL,
    kernel_roc_ci,
    vertical_ci,
)
from rocsim.sim.conditions import Condition
from rocsim.sim.models import ScoreModel, draw_test_set
from rocsim.sim.runner import Setup
from rocsim.studies._common import (
    BuiltinKind,
    class_sizes,
    fpr_grid,
    interval_options,
    interval_outcome,
    model_from_settings,
    outcome_settings,
)


@dataclass(frozen=True)
class _Prepared:
    model: ScoreModel
    n_pos: int
    n_neg: int
    r: np.ndarray


class VerticalStudy(BuiltinKind):
    """generate / analyse for vertical averaging of one classifier."""

    grid = "fpr"
    methods = (*VERTICAL_METHODS, "kernel")
    protocol = VERTICAL_PROTOCOL

    def outcome_settings(self, settings) -> dict:
        """The settings the outcomes depend on (the runner's cache key): the bandwidth scale
        only matters to the kernel method."""
        out = outcome_settings(settings, self.protocol.kind)
        if not _is_kernel(out):
            out.pop("bandwidth_scale", None)
        return out

    def setup(self, condition: Condition) -> Setup:
        s = condition.settings
        if s["sampling"] != "stratified":
            raise ValueError(
                "vertical averaging studies need sampling=stratified "
                "(the FPR grid r/m- is fixed by the class sizes)"
            )
        model = model_from_settings(s)
        n_pos, n_neg = class_sizes(s["n"], s["pi"])
        r, fpr = fpr_grid(s, n_neg)
        return Setup(
            x=fpr,
            target=model.pos.sf(model.neg.isf(fpr)),
            payload=_Prepared(model, n_pos, n_neg, r),
        )

    def generate(self, condition: Condition, setup: Setup, rng: np.random.Generator):
        p: _Prepared = setup.payload
        return draw_test_set(p.model, p.n_pos, p.n_neg, "stratified", rng)

    def analyse(self, condition: Condition, setup: Setup, data) -> dict[str, np.ndarray]:
        pos, neg, _ = data
        s = condition.settings
        if _is_kernel(s):
            scale = s.get("bandwidth_scale", 1.0)
            _, low, high = kernel_roc_ci(
                pos, neg, setup.x, confidence_level=s["confidence_level"], bandwidth_scale=scale
            )
        else:
            options = interval_options(s, "bootstrap", "pseudo_count")
            ci = vertical_ci(pos, neg, setup.payload.r, **options)
            low, high = ci.low, ci.high
        return interval_outcome(setup.target, low, high)

    def exact(self, condition: Condition, setup: Setup):
        raise ValueError(
            "coverage=exact is available for threshold averaging only; use coverage=simulate"
        )


def _is_kernel(settings) -> bool:
    """Whether a condition runs the kernel comparator (not the user's method)."""
    return settings["method"] == "kernel" and not settings.get("method_target")
