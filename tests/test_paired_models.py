"""Paired binormal score model: sampling law, truths, threshold pairs."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from rocsim.sim.models import make_paired_model


def model(rho=0.6, shift=2.0, theta=1.0):
    return make_paired_model(
        {"mu": theta, "sd": 3.75},
        {"mu": -theta, "sd": 3.0},
        {"mu": theta + shift, "sd": 3.75},
        {"mu": -theta, "sd": 3.0},
        rho,
    )


def test_sample_moments_and_correlation():
    pos1, pos2, neg1, neg2 = model(rho=0.6).sample(np.random.default_rng(1), 200_000, 150_000)
    assert pos1.shape == pos2.shape == (200_000,) and neg1.shape == neg2.shape == (150_000,)
    assert abs(pos1.mean() - 1.0) < 0.03 and abs(pos2.mean() - 3.0) < 0.03
    assert abs(neg2.std() - 3.0) < 0.02
    se = (1 - 0.6**2) / np.sqrt(150_000)
    assert abs(np.corrcoef(pos1, pos2)[0, 1] - 0.6) < 4 * se
    assert abs(np.corrcoef(neg1, neg2)[0, 1] - 0.6) < 4 * se


def test_truths_are_marginal_survival_functions():
    m = model()
    t1, t2 = np.array([0.5, -1.0]), np.array([1.5, 0.0])
    dtpr, dfpr = m.differences_at(t1, t2)
    np.testing.assert_allclose(dtpr, stats.norm(1, 3.75).sf(t1) - stats.norm(3, 3.75).sf(t2))
    np.testing.assert_allclose(dfpr, stats.norm(-1, 3).sf(t1) - stats.norm(-1, 3).sf(t2))
    f = np.array([0.1, 0.5])
    want = stats.norm(1, 3.75).sf(stats.norm(-1, 3).isf(f)) - stats.norm(3, 3.75).sf(
        stats.norm(-1, 3).isf(f)
    )
    np.testing.assert_allclose(m.tpr_difference_at_fpr(f), want)


def test_threshold_pairs_own_or_common():
    m = model()
    q = np.array([0.1, 0.5, 0.9])
    t1, t2 = m.thresholds_for_total_positive_ratio(q)
    for sub, t in ((m.first, t1), (m.second, t2)):
        np.testing.assert_allclose(0.5 * sub.tpr(t) + 0.5 * sub.fpr(t), q, atol=1e-12)
    c1, c2 = m.thresholds_for_total_positive_ratio(q, common=True)
    np.testing.assert_array_equal(c1, c2)
    np.testing.assert_array_equal(c1, t1)


def test_bad_parameters():
    with pytest.raises(ValueError, match="rho"):
        model(rho=1.5)
    with pytest.raises(ValueError, match="sd"):
        make_paired_model(
            {"mu": 0, "sd": -1}, {"mu": 0, "sd": 1}, {"mu": 0, "sd": 1}, {"mu": 0, "sd": 1}, 0.3
        )


def test_same_seed_same_draw():
    a = model().sample(np.random.default_rng(5), 10, 7)
    b = model().sample(np.random.default_rng(5), 10, 7)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
