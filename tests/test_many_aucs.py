"""Many models' AUCs at once (compare_aucs): the joint covariance is the one compare_auc's
variances imply, equals the enumeration of every resample on tiny data and a seeded Monte
Carlo bootstrap on realistic data; the max-t critical value and adjusted p-values against
Genz's integration of the normal law; Holm and Bonferroni against statsmodels."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import optimize, special, stats

import rocsim
from rocsim.core.many_aucs import auc_covariance, aucs_comparison

RNG = np.random.default_rng(51)
N_POS, N_NEG, K = 60, 80, 4
LATENT = RNG.normal(size=(N_POS + N_NEG, K))
Y = np.r_[np.ones(N_POS, int), np.zeros(N_NEG, int)]
SCORES = 0.9 * Y[:, None] * np.array([1.0, 0.8, 0.6, 0.0]) + LATENT + 0.5 * LATENT[:, :1]
POS, NEG = [SCORES[:N_POS, k] for k in range(K)], [SCORES[N_POS:, k] for k in range(K)]


@pytest.mark.parametrize("method", ["delong", "exact_bootstrap"])
def test_the_covariance_holds_compare_auc_s_variances(method):
    aucs, cov = auc_covariance(POS, NEG, method)
    for i, j in itertools.combinations(range(K), 2):
        pair = rocsim.core.auc_difference_ci(POS[i], POS[j], NEG[i], NEG[j], method=method)
        assert cov[i, i] + cov[j, j] - 2 * cov[i, j] == pytest.approx(pair.var, rel=1e-12)
    for k in range(K):
        one = rocsim.core.auc_ci(POS[k], NEG[k], method=method)
        assert (aucs[k], cov[k, k]) == pytest.approx((one.auc, one.var), rel=1e-14)


def test_delong_s_covariance_is_the_placement_values():
    """DeLong et al. (1988): ``S10 / n+ + S01 / n-`` from the placement values' covariances."""
    _, cov = auc_covariance(POS, NEG, "delong")
    v10 = np.array(
        [[np.mean((p > NEG[k]) + 0.5 * (p == NEG[k])) for p in POS[k]] for k in range(K)]
    )
    v01 = np.array(
        [[np.mean((POS[k] > q) + 0.5 * (POS[k] == q)) for q in NEG[k]] for k in range(K)]
    )
    expected = np.cov(v10) / N_POS + np.cov(v01) / N_NEG
    np.testing.assert_allclose(cov, expected, rtol=1e-12, atol=1e-15)


def test_the_exact_covariance_is_the_enumeration_of_every_resample():
    pos = [np.array([0.9, 0.6, 0.3]), np.array([0.8, 0.4, 0.6]), np.array([0.2, 0.7, 0.5])]
    neg = [np.array([0.7, 0.2, 0.4]), np.array([0.3, 0.5, 0.1]), np.array([0.6, 0.1, 0.3])]
    _, cov = auc_covariance(pos, neg, "exact_bootstrap")
    draws = []
    for i in itertools.product(range(3), repeat=3):
        for j in itertools.product(range(3), repeat=3):
            draws.append([rocsim.core.auc(p[list(i)], q[list(j)]) for p, q in zip(pos, neg)])
    np.testing.assert_allclose(cov, np.cov(np.array(draws).T, bias=True), atol=1e-15)


def test_the_exact_covariance_agrees_with_a_seeded_monte_carlo_bootstrap():
    _, cov = auc_covariance(POS, NEG, "exact_bootstrap")
    rng, draws = np.random.default_rng(2026), 3000
    aucs = np.empty((draws, K))
    for b in range(draws):
        i, j = rng.integers(0, N_POS, N_POS), rng.integers(0, N_NEG, N_NEG)
        aucs[b] = [rocsim.core.auc(POS[k][i], NEG[k][j]) for k in range(K)]
    sample = np.cov(aucs.T)
    # a sample covariance's Monte Carlo SE: sqrt((s_ii s_jj + s_ij^2) / draws)
    se = np.sqrt((np.outer(np.diag(cov), np.diag(cov)) + cov**2) / draws)
    assert np.all(np.abs(sample - cov) < 4 * se)


def genz_critical(correlation: np.ndarray, level: float) -> float:
    """The ``c`` with ``Pr{max |Z| <= c} = level`` by Genz's integration (scipy, tight)."""
    law = stats.multivariate_normal(
        np.zeros(len(correlation)), correlation, abseps=1e-8, releps=1e-8, maxpts=10**7, seed=1
    )

    def reach(c):
        box = np.full(len(correlation), c)
        return law.cdf(box, lower_limit=-box) - level

    return optimize.brentq(reach, 1.0, 6.0, xtol=1e-8)


def test_max_t_against_genz_s_integration():
    """Each model against a reference: the contrasts' correlation is full rank, so the
    simultaneous critical value is a box probability of the normal law. The Monte Carlo
    value is within 0.01 of Genz's; one contrast gives the normal quantile."""
    result = aucs_comparison(POS, NEG, reference=3, adjust="max-t", confidence_level=0.95)
    contrasts = np.zeros((K - 1, K))
    for row in range(K - 1):
        contrasts[row, row], contrasts[row, 3] = 1.0, -1.0
    spread = contrasts @ result.cov @ contrasts.T
    sd = np.sqrt(np.diag(spread))
    exact = genz_critical(spread / np.outer(sd, sd), 0.95)
    for seed in range(5):  # the Monte Carlo critical value, whatever the seed
        again = aucs_comparison(POS, NEG, reference=3, random_state=seed)
        assert abs(again.critical_value - exact) < 0.01, seed
    two = aucs_comparison(POS[:2], NEG[:2], adjust="max-t")
    assert two.critical_value == pytest.approx(special.ndtri(0.975), abs=0.005)
    assert two.p_adjusted[0] == pytest.approx(two.p_value[0], abs=0.005)
    assert np.all(result.p_adjusted >= result.p_value - 0.005)
    # the interval excludes 0 exactly when the adjusted p-value is below 0.05 (to QMC error)
    outside = (result.low > 0) | (result.high < 0)
    clear = np.abs(result.p_adjusted - 0.05) > 0.005
    assert clear.any()
    assert np.array_equal(outside[clear], (result.p_adjusted < 0.05)[clear])


@pytest.mark.parametrize("adjust", ["holm", "bonferroni"])
def test_holm_and_bonferroni_are_statsmodels(adjust):
    from statsmodels.stats.multitest import multipletests

    result = aucs_comparison(POS, NEG, adjust=adjust)
    expected = multipletests(result.p_value, method=adjust)[1]
    np.testing.assert_allclose(result.p_adjusted, expected, rtol=1e-12)
    m = result.p_value.size
    assert result.critical_value == pytest.approx(special.ndtri(1 - 0.05 / (2 * m)))


def test_compare_aucs_takes_a_dict_a_frame_or_an_array():
    import pandas as pd

    frame = pd.DataFrame(SCORES, columns=["a", "b", "c", "d"])
    from_frame = rocsim.compare_aucs(Y, frame, reference="d", method="exact_bootstrap")
    from_dict = rocsim.compare_aucs(
        Y, dict(frame.items()), reference="d", method="exact_bootstrap"
    )
    from_array = rocsim.compare_aucs(Y, SCORES, reference=3, method="exact_bootstrap")
    assert from_frame.to_frame().equals(from_dict.to_frame())
    np.testing.assert_array_equal(from_frame.cov, from_array.cov)
    assert list(from_array.model1) == ["model 1", "model 2", "model 3"]
    assert list(from_frame.to_frame().columns) == [
        "model1",
        "model2",
        "difference",
        "se",
        "low",
        "high",
        "p_value",
        "p_adjusted",
    ]
    assert rocsim.compare_aucs(Y, SCORES, random_state=1).to_frame().shape == (6, 8)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: rocsim.compare_aucs(Y, SCORES[:, :1]), "K >= 2 models"),
        (lambda: rocsim.compare_aucs(Y, SCORES, adjust="tukey"), "unknown adjust 'tukey'"),
        (lambda: rocsim.compare_aucs(Y, SCORES, method="mover"), "unknown method 'mover'"),
        (
            lambda: rocsim.compare_aucs(Y, {"a": SCORES[:, 0], "b": SCORES[:, 1]}, reference="z"),
            "reference 'z' is not a model",
        ),
        (lambda: rocsim.compare_aucs(Y, SCORES, reference=7), "reference must be a model's"),
    ],
)
def test_bad_input_names_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_the_family_kind_reports_coverage_and_rejection():
    """Every AUC equal: the family's coverage and its rejection rate (the smallest adjusted
    p-value below 0.05) add up to one for an adjustment whose intervals and p-values agree."""
    from rocsim.sim.conditions import expand_conditions
    from rocsim.sim.runner import run_conditions
    from rocsim.studies import get_kind

    axes = {"delta": [0.0], "models": [3], "auc": [0.75], "rho": [0.5], "adjust": ["bonferroni"]}
    base = {
        "confidence_level": 0.95,
        "method": "delong",
        "n": 60,
        "pi": 0.5,
        "model": {"family": "binormal", "pos": {"mu": 1, "sd": 1}, "neg": {"mu": 0, "sd": 1}},
    }
    table = run_conditions(
        get_kind("auc_family"),
        expand_conditions("auc_family", axes, base),
        replications=200,
        seed=4,
        progress=False,
    ).table
    (row,) = table.itertuples()
    assert row.coverage + row.rejection == pytest.approx(1.0)
    assert row.x == 3 and row.target == 0.0 and row.rejection_mcse > 0


def test_the_family_page_quotes_the_committed_results(page_script):
    writer, written = page_script("write_auc_family_page")
    assert written.strip() == "\n".join(writer.section(writer.TABLES)).strip()
    assert "**Family-wise error rate**" in written and " ± " in written
