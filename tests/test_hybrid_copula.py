"""The hybrid paired vertical law beyond EXACT_LIMIT: its compiled Gaussian copula.

Oracles: (a) the bivariate normal CDF against Owen's (1956) formula through scipy's Owen's T,
an independent method, and against ``scipy.stats.multivariate_normal``; (b) the compiled pass
over each rank's block, which counts the overlaps as it goes, against the copula written
pair by pair from the whole grid of overlaps (``overlaps``); (c) the windowed binomial
marginals at large n against ``scipy.special.bdtr`` on the whole grid; (d) a seeded Monte Carlo
bootstrap beyond the practitioner API's former limit of 10^4 per class (``slow``).
"""

from __future__ import annotations

import numpy as np
import pytest
from enumeration import assert_mc_agrees
from scipy import special, stats
from test_paired_oracle import monte_carlo_dtpr, paired_binormal

from rocsim import vertical_difference
from rocsim.core import joint_thresholds as jt
from rocsim.core.paired_vertical import joint_threshold_law


def owen_bivariate_normal_cdf(h, k, rho):
    """``Pr{X <= h, Y <= k}`` by Owen's T (Owen 1956, eq. 3.1), vectorised by scipy."""
    root = np.sqrt(np.maximum(1.0 - rho * rho, 1e-300))
    with np.errstate(divide="ignore", invalid="ignore"):
        a_h = (k - rho * h) / (h * root)
        a_k = (h - rho * k) / (k * root)
    offset = np.where((h * k < 0) | ((h * k == 0) & (h + k < 0)), 0.5, 0.0)
    value = (
        0.5 * special.ndtr(h)
        + 0.5 * special.ndtr(k)
        - special.owens_t(h, a_h)
        - special.owens_t(k, a_k)
        - offset
    )
    origin = 0.25 + np.arcsin(np.clip(rho, -1, 1)) / (2 * np.pi)
    return np.where((h == 0) & (k == 0), origin, value)


def compiled_cdf(h, k, rho):
    rules, sines = (jt._GL_NODES, jt._GL_WEIGHTS, jt._GL_COUNTS), np.empty(20)
    return np.array(
        [jt._bivariate_normal_cdf(x, y, r, *rules, sines) for x, y, r in zip(h, k, rho)]
    )


def test_bivariate_normal_cdf_agrees_with_owens_t_everywhere():
    rng = np.random.default_rng(0)
    size = 20_000
    h, k = rng.uniform(-8.5, 8.5, (2, size))
    h[: size // 4] = k[: size // 4]  # on the diagonal, where rho -> 1 is sharpest
    near = rng.normal(0, 2, size // 4)
    h[size // 4 : size // 2], k[size // 4 : size // 2] = near, near + rng.normal(0, 0.2, near.size)
    near_one = 10 ** rng.uniform(-9, 0, (2, size // 4))
    rho = np.concatenate([rng.uniform(-1, 1, size // 2), 1 - near_one[0], -1 + near_one[1]])
    np.testing.assert_allclose(
        compiled_cdf(h, k, rho), owen_bivariate_normal_cdf(h, k, rho), rtol=0, atol=5e-15
    )


@pytest.mark.parametrize(
    ("h", "k", "rho"),
    [(0.3, -0.2, 0.5), (1.0, 1.0, 0.99), (-1.0, 2.0, -0.95), (0.0, 0.0, 0.0), (2.0, -1.5, 0.8)],
)
def test_bivariate_normal_cdf_agrees_with_scipy(h, k, rho):
    want = stats.multivariate_normal([0, 0], [[1, rho], [rho, 1]]).cdf([h, k])
    assert compiled_cdf([h], [k], [rho])[0] == pytest.approx(want, abs=1e-12)


def test_bivariate_normal_cdf_at_perfect_correlation():
    h, k = np.array([-1.0, 0.5, 2.0]), np.array([0.5, 0.5, -1.0])
    np.testing.assert_allclose(
        compiled_cdf(h, k, np.ones(3)), special.ndtr(np.minimum(h, k)), atol=1e-16
    )
    np.testing.assert_allclose(
        compiled_cdf(h, k, -np.ones(3)),
        np.maximum(special.ndtr(h) + special.ndtr(k) - 1, 0),
        atol=1e-16,
    )


def pairwise_hybrid(law: jt.JointThresholdLaw, weight_a, weight_b, pairs):
    """The hybrid's moments at its copula ranks written pair by pair from the whole grid of
    overlaps: ``sum w_a w_b L(a, b)`` and ``mean_i L(a_i, b_i)``."""
    c = jt.overlaps(law.order1_rank2, law.a, law.b)
    ranks = np.setdiff1d(np.arange(law.u.size), law._table_ranks())
    product, diagonal = [], []
    for k in ranks:
        grid = np.where(
            law.sure_a[k][:, None],
            law.below_b[k][None, :],
            np.where(law.sure_b[k][None, :], law.below_a[k][:, None], 0.0),
        )
        ia, ib = np.nonzero(law.open_a[k][:, None] & law.open_b[k][None, :])
        pa, pb = law.a[ia] / law.n, law.b[ib] / law.n
        rho = (c[ia, ib] / law.n - pa * pb) / np.sqrt(pa * (1 - pa) * pb * (1 - pb))
        grid[ia, ib] = owen_bivariate_normal_cdf(
            law.probit_a[k, ia], law.probit_b[k, ib], np.clip(rho, -1, 1)
        )
        product.append(weight_a @ grid @ weight_b)
        diagonal.append(grid[pairs].mean())
    return ranks, np.array(product), np.array(diagonal)


@pytest.mark.parametrize(("n", "rho"), [(700, 0.3), (900, 0.99), (1200, 0.9)])
def test_compiled_copula_equals_the_pairwise_definition(n, rho):
    pos1, pos2, neg1, neg2 = paired_binormal(n, rho, 0.5, seed=n)
    ranks = np.unique(np.ceil(np.linspace(0.01, 0.99, 25) * n).astype(int))
    law, (weight_a, weight_b), pairs, _ = joint_threshold_law(
        pos1, pos2, neg1, neg2, ranks, "lower", exact=False
    )
    product, diagonal = law.moments(weight_a, weight_b, pairs)
    copula, want_product, want_diagonal = pairwise_hybrid(law, weight_a, weight_b, pairs)
    assert copula.size >= 20  # most ranks are the copula's
    np.testing.assert_allclose(product[copula], want_product, rtol=0, atol=1e-13)
    np.testing.assert_allclose(diagonal[copula], want_diagonal, rtol=0, atol=1e-13)


@pytest.mark.parametrize("n", [jt._CACHED_ROWS + 1, 40_000])
def test_windowed_marginals_equal_the_whole_rows(n):
    rng = np.random.default_rng(n)
    u = np.unique(np.r_[0, 1, 29, 30, rng.integers(0, n, 40), n - 31, n - 2])
    a = np.unique(rng.integers(0, n + 1, 4000))
    below, probit = jt._binomial_below(n, u, a)
    want = special.bdtr(u[:, None], n, a[None, :] / n)
    np.testing.assert_allclose(below, want, rtol=0, atol=2e-16)
    for limit in (jt._NEGLIGIBLE, 1 - jt._NEGLIGIBLE):  # the same open and sure marginals
        assert np.array_equal(below > limit, want > limit)
    inside = (want > jt._NEGLIGIBLE) & (want < 1 - jt._NEGLIGIBLE)  # open: the copula's
    np.testing.assert_allclose(probit[inside], special.ndtri(want[inside]), rtol=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("rho", [0.3, 0.9, 0.99])
def test_hybrid_beyond_ten_thousand_agrees_with_monte_carlo(rho):
    # the practitioner API's former limit was 10^4 per class
    n = 20_000
    data = paired_binormal(n, rho, 0.3, seed=int(rho * 100) + 7)
    ranks = list(np.unique(np.round(np.linspace(0.02, 0.98, 7) * n).astype(int)))
    law = vertical_difference(*data, ranks)
    assert law.algorithm == "hybrid"
    sample = monte_carlo_dtpr(*data, ranks, 4000, seed=8, chunk=500)
    for i in range(len(ranks)):
        assert_mc_agrees(sample[i], law.mean[i], law.var[i])
