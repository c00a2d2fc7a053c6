"""The net benefit study: its truth is the population's net benefit, its kind runs on the
public base, and its page quotes the committed run (computed, never typed)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, special
from study_conditions import study_conditions

from rocsim.sim.runner import run_conditions
from rocsim.studies import get_kind
from rocsim.studies.decision import calibrated_risk, true_net_benefit

#: The threshold probabilities of the kinds' tests.
GRID = {"name": "threshold", "start": 0.1, "stop": 0.4, "num": 4}


@pytest.mark.parametrize(("auc", "pi", "t"), [(0.75, 0.3, 0.2), (0.9, 0.1, 0.05)])
def test_the_truth_is_the_population_s_net_benefit(auc, pi, t):
    """By integration over the scores: ``pi Pr{r(S+) >= t} - (1 - pi) Pr{r(S-) >= t} t/(1-t)``
    with ``r`` the calibrated risk."""
    mu = np.sqrt(2) * special.ndtri(auc)

    def treated(mean):
        density = lambda s: np.exp(-0.5 * (s - mean) ** 2) / np.sqrt(2 * np.pi)  # noqa: E731
        return integrate.quad(
            lambda s: density(s) * (calibrated_risk(np.array(s), mu, pi) >= t),
            -12,
            12,
            points=[(special.logit(t) - special.logit(pi) + mu * mu / 2) / mu],
            limit=200,
        )[0]

    expected = pi * treated(mu) - (1 - pi) * treated(0.0) * t / (1 - t)
    assert true_net_benefit(mu, pi, np.array([t]))[0] == pytest.approx(expected, abs=1e-8)


def test_the_kind_runs_both_samplings_and_reports_coverage():
    kind = get_kind("net_benefit")
    axes = {"sampling": ["stratified", "full"], "auc": [0.8], "bootstrap": ["full"]}
    table = run_conditions(
        kind,
        study_conditions("net_benefit", axes, method="agresti", n=60, grid=GRID),
        replications=60,
        seed=3,
        progress=False,
    ).table
    assert np.allclose(table["x"], np.tile([0.1, 0.2, 0.3, 0.4], 2)) and len(table) == 8
    assert table["coverage"].between(0.6, 1.0).all()


def test_the_net_benefit_page_quotes_the_committed_results(page_script):
    writer, written = page_script("write_decision_page")
    assert written.strip() == "\n".join(writer.section(writer.DATA / writer.NAME)).strip()
    table = pd.read_csv(writer.DATA / writer.NAME / "coverage.csv")
    assert {"sampling", "bootstrap", "method", "coverage", "mcse"} <= set(table.columns)
    assert "Claims:" in written


def test_the_net_benefit_difference_page_quotes_the_committed_results(page_script):
    writer, written = page_script("write_net_benefit_difference_page")
    assert written.strip() == "\n".join(writer.section(writer.DATA / writer.NAME)).strip()
    table = pd.read_csv(writer.DATA / writer.NAME / "coverage.csv")
    assert {"sampling", "bootstrap", "method", "delta", "coverage", "mcse"} <= set(table.columns)
    assert "Claims:" in written


def test_the_difference_kind_s_truth_is_the_two_models_difference():
    from rocsim.studies.decision import true_net_benefit

    kind = get_kind("net_benefit_difference")
    axes = {"auc": [0.8], "delta": [0.05], "rho": [0.5]}
    (condition,) = study_conditions(
        "net_benefit_difference",
        axes,
        method="wald",
        n=40,
        sampling="stratified",
        bootstrap="stratified",
        grid=GRID,
    )
    setup = kind.setup(condition)
    mu = np.sqrt(2) * special.ndtri([0.8, 0.75])
    t = np.array([0.1, 0.2, 0.3, 0.4])
    expected = true_net_benefit(mu[0], 0.3, t) - true_net_benefit(mu[1], 0.3, t)
    np.testing.assert_allclose(setup.target, expected, rtol=1e-12)
    pos1, neg1, pos2, neg2 = kind.generate(condition, setup, np.random.default_rng(0))
    assert pos1.size == pos2.size == 24 and neg1.size == neg2.size == 56
    assert 0.3 < np.corrcoef(pos1, pos2)[0, 1] < 0.8  # the risks follow the correlated scores
