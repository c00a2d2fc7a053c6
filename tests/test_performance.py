"""Performance measures and their Monte Carlo SEs (rocsim.sim.performance): a case computed by
hand, the grid form against the scalar form, the MCSEs against the spread of the measures over
repeated simulations, failed replications, and bad inputs."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from rocsim.sim.performance import (
    performance_columns,
    performance_measures,
    performance_measures_grid,
)

# R = 4 replications of a target 1, every input given.
ESTIMATE = [1.0, 2.0, 3.0, 6.0]
SE = [1.0, 1.0, 2.0, 2.0]
LOW = [0.0, 1.0, 2.0, 3.0]
HIGH = [2.0, 3.0, 4.0, 8.0]
P_VALUE = [0.001, 0.05, 0.04, 0.03]


def full_case(**changes):
    inputs = dict(estimate=ESTIMATE, target=1.0, se=SE, low=LOW, high=HIGH, p_value=P_VALUE)
    return performance_measures(**(inputs | changes))


def test_hand_computed_case():
    out = full_case()
    # mean estimate 12/4 = 3, so bias 3 - 1 = 2; deviations -2, -1, 0, 3 give
    # S^2 = (4 + 1 + 0 + 9) / 3 = 14/3 and MCSE(bias) = sqrt(S^2 / 4) = sqrt(7/6)
    # empirical SE sqrt(14/3), MCSE sqrt(14/3) / sqrt(2 * 3) = sqrt(7/9)
    # errors 0, 1, 2, 5: squared 0, 1, 4, 25, MSE 30/4 = 7.5; squared minus MSE
    # -7.5, -6.5, -3.5, 17.5, whose squares sum to 56.25 + 42.25 + 12.25 + 306.25 = 417,
    # MCSE(MSE) = sqrt(417 / (4 * 3))
    # variances 1, 1, 4, 4: mean 2.5, model SE sqrt(2.5); their variance
    # V = 4 * 1.5^2 / 3 = 3, MCSE(model SE) = sqrt(3 / (4 * 4 * 2.5)) = sqrt(3/40)
    # relative error sqrt(2.5) / sqrt(14/3) - 1 = sqrt(15/28) - 1, MCSE (Table 6)
    # sqrt(15/28) * sqrt(3 / (4 * 4 * 2.5^2) + 1 / (2 * 3)) = sqrt(15/28) * sqrt(59/300)
    # coverage of 1: [0, 2] and [1, 3] (bound included), not [2, 4], [3, 8]: 2/4, MCSE
    # sqrt(0.25 / 4) = 0.25; of the mean 3: [1, 3], [2, 4], [3, 8] (bounds included): 3/4,
    # MCSE sqrt(0.75 * 0.25 / 4) = sqrt(3) / 8
    # rejection at 0.05: 0.001, 0.04, 0.03 but not 0.05 (strictly below): 3/4, sqrt(3) / 8
    expected = {
        "replications_used": 4,
        "bias": 2.0,
        "bias_mcse": math.sqrt(7 / 6),
        "empirical_se": math.sqrt(14 / 3),
        "empirical_se_mcse": math.sqrt(7 / 9),
        "mse": 7.5,
        "mse_mcse": math.sqrt(417 / 12),
        "model_se": math.sqrt(2.5),
        "model_se_mcse": math.sqrt(3 / 40),
        "model_se_rel_error": math.sqrt(15 / 28) - 1,
        "model_se_rel_error_mcse": math.sqrt(15 / 28) * math.sqrt(59 / 300),
        "coverage": 0.5,
        "coverage_mcse": 0.25,
        "bias_eliminated_coverage": 0.75,
        "bias_eliminated_coverage_mcse": math.sqrt(3) / 8,
        "rejection": 0.75,
        "rejection_mcse": math.sqrt(3) / 8,
    }
    assert list(out) == list(expected)
    assert isinstance(out["replications_used"], int)
    for key, value in expected.items():
        assert out[key] == pytest.approx(value, rel=0, abs=1e-12), key


@pytest.mark.parametrize("level", [0.95, 0.9, 0.99])
def test_p_value_equal_to_alpha_is_not_a_rejection(level):
    # in binary 1 - 0.95 exceeds 0.05 and 1 - 0.9 falls short of 0.1
    alpha = round(1 - level, 10)
    out = performance_measures(
        [0.0, 1.0], target=0.0, p_value=[alpha, alpha / 2], confidence_level=level
    )
    assert out["rejection"] == 0.5


@pytest.mark.parametrize(
    "given",
    [
        {},
        {"se": SE},
        {"low": LOW, "high": HIGH},
        {"p_value": P_VALUE},
        {"se": SE, "p_value": P_VALUE},
    ],
)
def test_keys_are_the_columns_of_the_inputs_given(given):
    out = performance_measures(ESTIMATE, target=1.0, **given)
    columns = performance_columns(
        se="se" in given, bounds="low" in given, p_value="p_value" in given
    )
    assert tuple(out) == columns


def test_grid_equals_the_scalar_form_column_by_column():
    # bit for bit: each grid point is summed alone, as the scalar form sums it
    rng = np.random.default_rng(5)
    shape = (30, 6)
    est = rng.normal(0.7, 0.1, shape)
    se = rng.uniform(0.05, 0.15, shape)
    est[3, 1] = np.nan  # a failed replication of one grid point
    se[7, 4] = np.nan
    p = rng.uniform(size=shape)
    target = np.linspace(0.6, 0.8, shape[1])
    grid = performance_measures_grid(
        est, target=target, se=se, low=est - 2 * se, high=est + 2 * se, p_value=p
    )
    assert grid["replications_used"].tolist() == [30, 29, 30, 30, 29, 30]
    for g in range(shape[1]):
        one = performance_measures(
            est[:, g],
            target=target[g],
            se=se[:, g],
            low=est[:, g] - 2 * se[:, g],
            high=est[:, g] + 2 * se[:, g],
            p_value=p[:, g],
        )
        assert list(one) == list(grid)
        for key, value in one.items():
            np.testing.assert_array_equal(value, grid[key][g], err_msg=key)


def test_a_scalar_target_serves_every_grid_point():
    est = np.array([[0.9, 1.3], [1.1, 0.8], [1.0, 1.0]])
    one = performance_measures_grid(est, target=1.0)
    each = performance_measures_grid(est, target=[1.0, 1.0])
    for key in one:
        np.testing.assert_array_equal(one[key], each[key])


def test_mcse_is_the_spread_of_the_measure_over_repeated_studies():
    """Each of M studies of R replications: estimates N(theta, 1), model SEs sqrt(chi2_10 / 10)
    (independent), intervals estimate +- 1.96 SE, p-values uniform. The MCSE a study reports
    should be, on average, the SD of its measure over the M studies."""
    rng = np.random.default_rng(20190101)
    replications, studies, theta = 100, 4000, 0.3
    est = rng.normal(theta, 1.0, (replications, studies))
    se = np.sqrt(rng.chisquare(10, (replications, studies)) / 10)
    out = performance_measures_grid(
        est,
        target=theta,
        se=se,
        low=est - 1.96 * se,
        high=est + 1.96 * se,
        p_value=rng.uniform(size=(replications, studies)),
    )
    for measure in (
        "bias",
        "empirical_se",
        "mse",
        "model_se",
        "model_se_rel_error",
        "coverage",
        "bias_eliminated_coverage",
        "rejection",
    ):
        spread = out[measure].std(ddof=1)
        reported = out[f"{measure}_mcse"].mean()
        assert reported == pytest.approx(spread, rel=0.1), measure


def test_failed_replications_are_dropped_from_every_measure():
    est = [1.0, np.nan, 2.0, 3.0, 6.0]
    se = [1.0, 1.0, 1.0, 1.0, 2.0]
    low = [0.0, 0.0, 1.0, 2.0, 3.0]
    high = [2.0, 2.0, 3.0, np.nan, 8.0]  # the 4th replication's interval failed
    out = performance_measures(est, target=1.0, se=se, low=low, high=high)
    kept = [0, 2, 4]
    same = performance_measures(
        [est[i] for i in kept],
        target=1.0,
        se=[se[i] for i in kept],
        low=[low[i] for i in kept],
        high=[high[i] for i in kept],
    )
    assert out == same
    assert out["replications_used"] == 3


def test_a_grid_point_with_fewer_than_two_replications_is_nan_without_a_warning():
    est = np.array([[1.0, np.nan, 1.0], [2.0, np.nan, np.nan], [4.0, np.nan, np.nan]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = performance_measures_grid(
            est, target=1.0, se=np.ones_like(est), low=est - 1, high=est + 1, p_value=est / 10
        )
    assert out["replications_used"].tolist() == [3, 0, 1]
    for key, value in out.items():
        if key != "replications_used":
            assert np.isfinite(value[0]) and np.all(np.isnan(value[1:])), key


def grid_error(**changes):
    est = np.zeros((4, 2))
    inputs = dict(estimate=est, target=0.0, se=np.ones((4, 2)))
    return performance_measures_grid(**(inputs | changes))


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: full_case(se=SE[:3]), "se has 3 values but estimate has 4"),
        (lambda: full_case(p_value=[*P_VALUE, 0.5]), "p_value has 5 values"),
        (lambda: full_case(high=HIGH[:2]), "high has 2 values"),
        (lambda: full_case(estimate=[1.0]), "estimate needs at least 2 replications"),
        (lambda: full_case(estimate=[[1.0, 2.0]]), "estimate must be 1-D"),
        (lambda: full_case(estimate=[1.0, np.inf, 2.0, 3.0]), "estimate must be finite"),
        (lambda: full_case(se=[1.0, -1.0, 1.0, 1.0]), "se must be non-negative"),
        (lambda: full_case(p_value=[0.5, 1.5, 0.5, 0.5]), "p_value must lie in"),
        (lambda: full_case(high=None), "high is missing"),
        (lambda: full_case(low=None), "low is missing"),
        (lambda: full_case(low=HIGH, high=LOW), "low must not exceed high"),
        (lambda: full_case(target=np.nan), "target must be a finite number"),
        (lambda: full_case(target=[1.0, 2.0]), "target must be a finite number"),
        (lambda: full_case(confidence_level=95), "confidence_level"),
        (lambda: full_case(se=["a", 1, 1, 1]), "se must hold numbers"),
        (lambda: grid_error(se=np.ones((4, 3))), r"se must have estimate's shape \(4, 2\)"),
        (lambda: grid_error(estimate=np.zeros(4)), "estimate must be 2-D"),
        (lambda: grid_error(estimate=np.zeros((1, 2)), se=None), "at least 2 replications"),
        (lambda: grid_error(target=[0.0, 1.0, 2.0]), "target must be a number or one per"),
    ],
)
def test_bad_inputs_raise_value_errors_naming_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_infinite_bounds_are_allowed():
    out = performance_measures(
        [0.0, 1.0, 2.0], target=0.0, low=[-np.inf, 0.5, -1.0], high=[0.1, np.inf, np.inf]
    )
    assert out["coverage"] == pytest.approx(2 / 3)
