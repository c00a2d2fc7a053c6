"""Sample size for the AUC (:func:`rocsim.auc_sample_size`), checked by simulating test sets at
the planned sizes: DeLong's interval is on average as wide as planned, and the one-sided test
of the AUC has the planned power; the model's moments against a Monte Carlo of the model."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import rocsim
from rocsim.sim.auc_planning import auc_moments, auc_sample_size
from rocsim.sim.models import make_model
from rocsim.sim.planning import binormal


def simulated(model, n_pos: int, n_neg: int, replications: int, seed: int, **options):
    """DeLong's AUC results on ``replications`` test sets drawn from ``model``."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(replications):
        pos, neg = model.pos.sample(rng, n_pos), model.neg.sample(rng, n_neg)
        y = np.r_[np.ones(n_pos), np.zeros(n_neg)]
        out.append(rocsim.auc_ci(y, np.r_[pos, neg], **({"method": "delong"} | options)))
    return out


@pytest.mark.parametrize(("auc", "width", "ratio"), [(0.8, 0.1, 1.0), (0.9, 0.08, 2.0)])
def test_planned_width_is_the_mean_width_of_delongs_interval(auc, width, ratio):
    plan = auc_sample_size(auc, width=width, ratio=ratio)
    assert plan.achieved <= width
    results = simulated(binormal(auc=auc), plan.n, plan.n_neg, 400, 1)
    widths = np.array([r.high - r.low for r in results])
    # the mean width within 3% of the plan (its Monte Carlo error is a tenth of that)
    assert abs(widths.mean() / width - 1) < 0.03, widths.mean()


@pytest.mark.parametrize(
    ("auc", "null", "alternative"), [(0.8, 0.7, "greater"), (0.75, 0.85, "less")]
)
def test_planned_power_is_the_simulated_rejection_rate(auc, null, alternative):
    plan = auc_sample_size(auc, power=0.8, null=null, alternative=alternative)
    assert plan.achieved >= 0.8
    assert (
        auc_sample_size(auc, power=0.8, null=null, alternative=alternative, max_n=plan.n).n
        == plan.n
    )
    results = simulated(
        binormal(auc=auc), plan.n, plan.n_neg, 1500, 2, alternative=alternative, null=null
    )
    rejected = np.mean([r.p_value < 0.05 for r in results])
    # within 4 Monte Carlo standard errors (and the plan's approximation)
    assert abs(rejected - 0.8) < 4 * np.sqrt(0.8 * 0.2 / 1500) + 0.02, rejected


def test_smallest_size_meets_the_target_and_the_one_below_does_not():
    moments = auc_moments(binormal(auc=0.85))
    z = 1.959963984540054
    for ratio in (1.0, 1.5):
        plan = auc_sample_size(0.85, width=0.12, ratio=ratio)
        below = (plan.n - 1, int(np.ceil(ratio * (plan.n - 1))))
        assert 2 * z * moments.sd(plan.n, plan.n_neg) <= 0.12 < 2 * z * moments.sd(*below)
    power = auc_sample_size(0.85, power=0.9, null=0.75)
    one_fewer = stats.norm.cdf(0.1 / moments.sd(power.n - 1, power.n - 1) - stats.norm.ppf(0.95))
    assert power.achieved >= 0.9 > one_fewer


def test_moments_of_a_model_against_its_monte_carlo():
    model = make_model("exponential", {"mean": 2.0}, {"mean": 1.0})
    moments = auc_moments(model)
    rng = np.random.default_rng(3)
    x1, x2 = model.pos.sample(rng, 400_000), model.pos.sample(rng, 400_000)
    y1, y2 = model.neg.sample(rng, 400_000), model.neg.sample(rng, 400_000)
    for value, draws in (
        (moments.auc, x1 > y1),
        (moments.q1, (x1 > y1) & (x2 > y1)),
        (moments.q2, (x1 > y1) & (x1 > y2)),
    ):
        assert abs(value - draws.mean()) < 4 * draws.std() / np.sqrt(draws.size)
    # the binormal AUC is Phi(a / sqrt(2))
    assert auc_moments(binormal(auc=0.7)).auc == pytest.approx(0.7, abs=1e-9)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "exactly one of width and power"),
        ({"width": 0.1, "power": 0.8}, "exactly one of width and power"),
        ({"width": -0.1}, "width must be a finite number > 0"),
        ({"power": 1.2}, "power must lie strictly between 0 and 1"),
        ({"power": 0.8, "null": 0.9}, "not in the alternative"),
        ({"power": 0.8, "alternative": "bigger"}, "alternative"),
        ({"width": 0.1, "ratio": 0}, "ratio must be a finite number > 0"),
        ({"width": 0.1, "max_n": 1.5}, "max_n must be an integer"),
        ({"width": 1e-6, "max_n": 1000}, "not reached by n = 1000"),
    ],
)
def test_bad_plans(options, message):
    with pytest.raises(ValueError, match=message):
        auc_sample_size(0.8, **options)
    with pytest.raises(ValueError, match="an AUC must lie strictly between 0 and 1"):
        auc_sample_size(1.5, width=0.1)
    pilot = (np.r_[np.ones(20), np.zeros(20)], np.arange(40.0))
    with pytest.raises(ValueError, match="not pilot data"):
        auc_sample_size(pilot, width=0.1)


def test_sample_size_at_the_auc_points_to_auc_sample_size():
    from rocsim import sample_size

    with pytest.raises(ValueError, match=r"rocsim.auc_sample_size\(model, width=...\)"):
        sample_size(0.8, at="auc", width=0.1)
