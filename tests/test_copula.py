"""The Gaussian copula on the exact marginals (:mod:`rocsim.core.copula`), the containment of
whole bootstrap curves where the exact pass costs too much: against the exact pass where both
run, against a seeded Monte Carlo bootstrap of whole curves beyond, and the Brownian-bridge
covariance against the exact one. The tolerances are the errors measured here, rounded up."""

from __future__ import annotations

import numpy as np
import pytest

from rocsim.core.copula import (
    DRAWS,
    GaussianCopula,
    correlation,
    lattice_probabilities,
    normal_points,
)
from rocsim.core.curve_band import (
    EXACT_CELLS,
    EXACT_COVARIANCE_NEGATIVES,
    ContainmentMeasure,
    count_bounds,
)
from rocsim.core.curve_covariance import bridge_covariance
from rocsim.core.resampled_curves import paired_vertical_tprs
from rocsim.core.vertical import threshold_ranks, vertical_distribution

GRID = np.linspace(0.05, 0.95, 19)


def law_of(n: int, mu: float, seed: int, side: str = "lower"):
    rng = np.random.default_rng(seed)
    pos, neg = rng.normal(mu, 1, n), rng.normal(0, 1, n)
    return vertical_distribution(pos, neg, np.unique(np.rint(GRID * n).astype(int)), side=side)


def copula_containment(law, lo, hi) -> float:
    below, upto = lattice_probabilities(law.cdf, lo, hi, law.m_pos)
    return GaussianCopula(correlation(law.cov)).inside(below, upto)


@pytest.mark.parametrize(("n", "mu", "seed"), [(80, 1.0, 1), (100, 0.5, 2), (120, 2.0, 3)])
@pytest.mark.parametrize("side", ["lower", "upper"])
def test_copula_is_close_to_the_exact_pass_near_the_level(n, mu, seed, side):
    # where a band is calibrated (containment near 0.95) the copula on the exact marginals
    # is within 0.01 of the exact pass, and errs low (a wider band) where it errs
    law = law_of(n, mu, seed, side)
    exact = ContainmentMeasure(law)
    assert exact.how == "exact"
    for level in (0.995, 0.999):
        ci = law.ci(level, "percentile")
        lo, hi = count_bounds(ci.low, ci.high, n)
        value = exact(lo, hi)
        assert 0.9 < value < 1
        assert copula_containment(law, lo, hi) == pytest.approx(value, abs=0.01)


def test_copula_agrees_with_a_seeded_monte_carlo_bootstrap_beyond_the_exact_size():
    # n = 400 per class: the measure is the copula's (the exact pass's grids are too large);
    # 40 000 seeded bootstrap curves hold the same share within 0.005 (MC error about 0.0013)
    n = 400
    law = law_of(n, 1.0, 4)
    measure = ContainmentMeasure(law)
    assert measure.how == "gaussian copula" and (n + 1) ** 2 > EXACT_CELLS
    rng = np.random.default_rng(np.random.SeedSequence(20261129))
    data = np.random.default_rng(4)  # law_of's data set
    pos, neg = data.normal(1.0, 1, n), data.normal(0, 1, n)
    (tpr,) = paired_vertical_tprs([(pos, neg)], law.r, "lower", 40_000, rng)
    counts = np.rint(tpr * n).astype(int)
    for level in (0.99, 0.997):
        ci = law.ci(level, "percentile")
        lo, hi = count_bounds(ci.low, ci.high, n)
        inside = np.all((counts >= lo) & (counts <= hi), axis=1).mean()
        assert measure(lo, hi) == pytest.approx(inside, abs=0.005)


def test_bridge_covariance_is_the_exact_one_in_large_samples():
    # n = 2000: the approximation's correlations where TPR varies (not within a few counts
    # of 1) are within 0.05 of the exact covariance's, and its variances are the law's own
    law = law_of(2000, 1.0, 5)
    assert law._rates.size > EXACT_COVARIANCE_NEGATIVES
    t = threshold_ranks(law.r, law.side)
    approx = bridge_covariance(t, law._rates.size, law.m_pos, law.mean, law.var)
    np.testing.assert_array_equal(np.diag(approx), law.var)
    varies = law.mean < 0.99
    exact_corr, approx_corr = correlation(law.cov), correlation(approx)
    error = np.abs(exact_corr - approx_corr)[np.ix_(varies, varies)]
    assert error.max() < 0.05


def test_the_integration_set_is_fixed_read_only_and_antithetic():
    first, second = normal_points(7), normal_points(7)
    assert first is second and first.shape == (DRAWS, 7)
    assert not first.flags.writeable
    np.testing.assert_array_equal(first[: DRAWS // 2], -first[DRAWS // 2 :])
    # standard normal points: variance 1 within its Monte Carlo error (mean 0 by symmetry)
    assert np.abs(first.var(axis=0) - 1).max() < 5 * np.sqrt(2 / (DRAWS // 2))


def test_independent_points_multiply_and_a_certain_point_changes_nothing():
    copula = GaussianCopula(np.eye(3))
    inside = copula.inside(np.array([0.1, 0.0, 0.2]), np.array([0.9, 1.0, 0.7]))
    assert inside == pytest.approx(0.8 * 1.0 * 0.5, abs=0.005)
    # a point with zero variance is uncorrelated with the others
    cov = np.array([[1.0, 0.5, 0.0], [0.5, 1.0, 0.0], [0.0, 0.0, 0.0]])
    np.testing.assert_array_equal(correlation(cov)[2], [0.0, 0.0, 1.0])
