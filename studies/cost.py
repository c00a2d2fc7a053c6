"""Cost curves: coverage of the Gaussian intervals of chapter 5 (figures 5.1-5.12).

Grid: operating condition ``w``. At each ``w`` the threshold is either the ``oracle`` one,
minimizing the true cost (the target is the true cost there, i.e. the true cost curve), or the
``empirical`` one, minimizing the test set's cost (the target is the true cost of that
threshold, so it changes with every replication). :ref:`reading-cost-threshold`; the thesis does
not say which.

``sampling`` says how test sets are drawn and ``bootstrap`` which formulas the intervals use
(eqs. 5.3-5.8 or 5.9-5.14), independently: figures 5.4-5.6 cross them. Under ``full`` formulas
the statistic (eq. 5.9) is normalized by ``n C_max`` and weighs the classes by their shares,
and so is the target: with ``cost_prior: sample`` (default) by the test set's own share
``N+/n``, with ``cost_prior: population`` by the model's ``pi``. The thesis does not say; the
sample reading is the one under which its figure 5.4 is conservative at the edges (the
``delta^2`` term of eq. 5.11 then widens intervals around a target that does not vary with
``N+``). Under the population reading the Wald interval of eqs. 5.10-5.11 covers as it should
and the Agresti one falls to about 0.81 at the edges for small theta.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rocsim.core import (
    COST_METHODS,
    PAIRED_PROTOCOL,
    PROPORTION_PROTOCOL,
    check_paired,
    check_two_classes,
    cost_bounds,
    cost_ci_options,
    cost_difference_bounds,
    cost_exact_coverage,
    cost_target,
    effective_condition,
)
from rocsim.sim.conditions import Condition
from rocsim.sim.models import PairedScoreModel, ScoreModel, draw_test_set
from rocsim.sim.runner import Setup
from rocsim.studies._common import (
    BuiltinKind,
    analyse_in_groups,
    class_sizes,
    class_sizes_of,
    first_row,
    grid_values,
    interval_options,
    interval_outcome,
    model_from_settings,
    outcome_settings,
    paired_class_sizes_of,
    paired_model_from_settings,
)
from rocsim.studies.paired import _PairedStudy

#: Settings the cost intervals take besides the level and the method.
COST_OPTIONS = ("pseudo_count", "bootstrap")


@dataclass(frozen=True)
class _Prepared:
    model: ScoreModel | PairedScoreModel  # what generate() draws test sets from
    models: tuple[ScoreModel, ...]  # one classifier, or the two of a paired design
    n_pos: int
    n_neg: int
    pi: float
    w: np.ndarray
    thresholds: tuple[np.ndarray, ...]  # oracle thresholds, one array per classifier


def _prepare(condition: Condition, model, models: tuple[ScoreModel, ...]) -> _Prepared:
    s = condition.settings
    n_pos, n_neg = class_sizes(s["n"], s["pi"])
    pi = n_pos / (n_pos + n_neg)
    w = grid_values(s["grid"])
    # the statistic of the full formulas is minimized where eq. 3.12 is at w' (same w at pi 1/2)
    w_eff = effective_condition(w, pi, s["bootstrap"])
    return _Prepared(
        model, models, n_pos, n_neg, pi, w, tuple(m.cost_threshold(w_eff) for m in models)
    )


def _true_cost(
    p: _Prepared, model: ScoreModel, thresholds, bootstrap: str, pi: float | None = None
) -> np.ndarray:
    return cost_target(
        p.w, model.tpr(thresholds), model.fpr(thresholds), p.pi if pi is None else pi, bootstrap
    )


def _sample_prior(settings) -> bool:
    """Whether the target weighs the classes by each test set's own share (full formulas)."""
    return settings["bootstrap"] == "full" and settings["cost_prior"] == "sample"


def _replication_targets(settings, p: _Prepared, thresholds, n_pos: int, n_neg: int):
    """True costs per classifier at this replication's thresholds and class share."""
    pi = n_pos / (n_pos + n_neg) if _sample_prior(settings) else p.pi
    return [_true_cost(p, m, t, settings["bootstrap"], pi) for m, t in zip(p.models, thresholds)]


def _checked(settings, paired: bool = False) -> tuple:
    """``(level, method, pseudo_count, bootstrap)`` of a condition, checked and resolved as
    :func:`rocsim.core.cost_ci` (``paired``: :func:`rocsim.core.cost_difference_ci`) does."""
    options = interval_options(settings, *COST_OPTIONS)
    level, method, a = cost_ci_options(
        options["confidence_level"],
        options["method"],
        options["pseudo_count"],
        options["bootstrap"],
        paired=paired,
    )
    return level, method, a, options["bootstrap"]


def _has_exact(settings) -> bool:
    """Whether the exact cost coverage exists: a fixed (oracle) threshold and stratified
    sampling, so that N+/n = pi too."""
    return settings["sampling"] == "stratified" and settings["threshold"] == "oracle"


def _fixed_target(settings) -> bool:
    """Whether every replication has the setup's target (oracle thresholds, no sample prior)."""
    return settings["threshold"] == "oracle" and not _sample_prior(settings)


class CostStudy(BuiltinKind):
    """generate / analyse / exact for the cost of one classifier (figures 5.1, 5.2, 5.4, 5.5,
    5.7-5.9)."""

    grid = "w"
    methods = COST_METHODS
    protocol = PROPORTION_PROTOCOL

    def outcome_settings(self, settings) -> dict:
        """The settings the outcomes depend on (the runner's cache key)."""
        return outcome_settings(settings, self.protocol.kind)

    def setup(self, condition: Condition) -> Setup:
        model = model_from_settings(condition.settings)
        p = _prepare(condition, model, (model,))
        (model,), (t,) = p.models, p.thresholds
        return Setup(
            x=p.w,
            target=_true_cost(p, model, t, condition.settings["bootstrap"]),
            extra={"threshold": t},
            payload=p,
        )

    def generate(self, condition: Condition, setup: Setup, rng: np.random.Generator):
        p: _Prepared = setup.payload
        return draw_test_set(p.model, p.n_pos, p.n_neg, condition.settings["sampling"], rng)

    def analyse(self, condition: Condition, setup: Setup, data) -> dict[str, np.ndarray]:
        return first_row(self.analyse_block(condition, setup, [data]))

    def analyse_block(self, condition: Condition, setup: Setup, block) -> dict[str, np.ndarray]:
        """:meth:`analyse` of every test set of ``block``, stacked: the interval formulas run
        once on the counts of all the test sets of equal class sizes (a user's method, once
        per test set)."""
        s, p = condition.settings, setup.payload
        options = _checked(s)
        thresholds = "empirical" if s["threshold"] == "empirical" else p.thresholds[0]

        def analyse_group(group) -> dict[str, np.ndarray]:
            samples = [check_two_classes(*data[:2]) for data in group]
            # rocsim.core.cost_ci's intervals, checked once per block, without the moments
            low, high, thr = cost_bounds(samples, p.w, thresholds, *options)
            target = setup.target
            if not _fixed_target(s):
                n_pos, n_neg = samples[0][0].size, samples[0][1].size
                target = np.stack([_replication_targets(s, p, (t,), n_pos, n_neg)[0] for t in thr])
            redraws = np.array([data[2] for data in group], dtype=np.int64)
            return {**interval_outcome(target, low, high), "redraws": redraws}

        return analyse_in_groups(block, options[1], analyse_group, class_sizes_of)

    def exact_beside(self, condition: Condition, limit: int) -> bool:
        """Whether to compute the exact coverage beside a simulation: it exists for a fixed
        threshold under stratified sampling, and sums over the joint support of both classes'
        counts, so only up to ``n = limit``."""
        return _has_exact(condition.settings) and condition.settings["n"] <= limit

    def exact(self, condition: Condition, setup: Setup) -> dict[str, np.ndarray]:
        s, p = condition.settings, setup.payload
        if not _has_exact(s):
            raise ValueError(
                "exact cost coverage needs sampling=stratified and threshold=oracle "
                "(a fixed threshold); use coverage=simulate"
            )
        (model,), (t,) = p.models, p.thresholds
        truths = (model.tpr(t), model.fpr(t))
        options = interval_options(s, *COST_OPTIONS)
        c = cost_exact_coverage(*truths, p.w, p.n_pos, p.n_neg, **options)
        return {"cover": c.cover, "below": c.below, "above": c.above, "width": c.width}


class PairedCostStudy(_PairedStudy):
    """generate / analyse for the cost difference of two classifiers (figures 5.3, 5.6,
    5.10-5.12): the target is ``cost2 - cost1`` at each classifier's own threshold."""

    grid = "w"
    methods = COST_METHODS
    protocol = PAIRED_PROTOCOL

    def outcome_settings(self, settings) -> dict:
        """The settings the outcomes depend on (the runner's cache key)."""
        return outcome_settings(settings, self.protocol.kind)

    def setup(self, condition: Condition) -> Setup:
        paired = paired_model_from_settings(condition.settings)
        p = _prepare(condition, paired, (paired.first, paired.second))
        bootstrap = condition.settings["bootstrap"]
        costs = [_true_cost(p, m, t, bootstrap) for m, t in zip(p.models, p.thresholds)]
        return Setup(
            x=p.w,
            target=costs[1] - costs[0],
            extra={"threshold1": p.thresholds[0], "threshold2": p.thresholds[1]},
            payload=p,
        )

    def analyse(self, condition: Condition, setup: Setup, data) -> dict[str, np.ndarray]:
        return first_row(self.analyse_block(condition, setup, [data]))

    def analyse_block(self, condition: Condition, setup: Setup, block) -> dict[str, np.ndarray]:
        """:meth:`analyse` of every paired test set of ``block``, stacked, as
        :meth:`CostStudy.analyse_block`."""
        s, p = condition.settings, setup.payload
        options = _checked(s, True)
        t1, t2 = ("empirical", "empirical") if s["threshold"] == "empirical" else p.thresholds

        def analyse_group(group) -> dict[str, np.ndarray]:
            samples = [check_paired(*data) for data in group]
            # rocsim.core.cost_difference_ci's intervals, as in CostStudy.analyse_block
            low, high, thr1, thr2 = cost_difference_bounds(samples, p.w, t1, t2, *options)
            target = setup.target
            if not _fixed_target(s):
                n_pos, n_neg = samples[0][0].size, samples[0][2].size
                costs = [
                    _replication_targets(s, p, (a, b), n_pos, n_neg) for a, b in zip(thr1, thr2)
                ]
                target = np.stack([cost2 - cost1 for cost1, cost2 in costs])
            return interval_outcome(target, low, high)

        return analyse_in_groups(block, options[1], analyse_group, paired_class_sizes_of)
