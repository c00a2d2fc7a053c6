"""Cost studies (figures 5.1-5.12): overlays, exact versus simulated coverage, thresholds."""

from __future__ import annotations

import numpy as np
import pytest

from rocsim.cli import compose_study
from rocsim.sim.pipeline import run_study, study_conditions

# figure: (sampling, bootstrap formulas, pseudo-count; None = the method's default)
SCHEMES = {
    "fig5_1": ("stratified", "stratified", None),
    "fig5_2": ("stratified", "stratified", None),
    "fig5_3": ("stratified", "stratified", None),
    "fig5_4": ("full", "full", None),
    "fig5_5": ("full", "stratified", None),
    "fig5_6": ("full", "stratified", None),
    "fig5_7": ("stratified", "stratified", 2.0),
    "fig5_8": ("stratified", "stratified", 0.5),
    "fig5_9": ("stratified", "stratified", 3.0),
    "fig5_10": ("stratified", "stratified", 0.5),
    "fig5_11": ("stratified", "stratified", 0.125),
    "fig5_12": ("stratified", "stratified", 1.0),
}


@pytest.mark.parametrize("name", sorted(SCHEMES))
def test_cost_overlays_cross_sampling_formulas_and_pseudo_counts(name):
    sampling, bootstrap, pseudo_count = SCHEMES[name]
    for condition in study_conditions(compose_study(name)):
        s = condition.settings
        assert (s["sampling"], s["bootstrap"], s["pseudo_count"]) == (
            sampling,
            bootstrap,
            pseudo_count,
        )
        assert s["threshold"] == "oracle" and s["grid"]["name"] == "w"


def test_paired_cost_model_has_scale_3_and_shifted_positives():
    conditions = study_conditions(compose_study("fig5_3"))
    last = conditions[-1]
    assert last.params == {"shift": 4.0, "theta": 3.0, "rho": 0.9}
    model = last.settings["model"]
    assert model["pos"] == {"mu": 3.0, "sd": 3.0} and model["neg"] == {"mu": -3.0, "sd": 3.0}
    assert model["pos2"] == {"mu": 7.0, "sd": 3.0} and model["rho"] == 0.9


def test_adjustment_study_is_one_sweep_over_the_pseudo_count():
    """fig5_8 is fig5_1 with another pseudo-count and nothing else."""
    base = study_conditions(compose_study("fig5_1", ["interval.pseudo_count=0.5"]))
    swept = study_conditions(compose_study("fig5_8"))
    assert [c.settings for c in base] == [c.settings for c in swept]


@pytest.mark.parametrize("name", ["fig5_1", "fig5_3"])
def test_empirical_threshold_rule_covers_its_own_target(small_study, tmp_path, name):
    """At the data's own threshold the target is that threshold's true cost, which changes
    with every test set; scored against it, the intervals cover near the level in the middle
    of the operating range (against the oracle threshold's cost they would not)."""
    settings = ("threshold=empirical", "grid.num=5", "replications=200", "n_jobs=2")
    table = run_study(small_study(name, *settings), tmp_path).table
    middle = table[(table["x"] >= 0.25) & (table["x"] <= 0.75)]
    assert abs(middle["coverage"].mean() - 0.9) < 0.05, middle["coverage"].describe()
    assert (middle["coverage"] > 0.75).all()


def test_exact_coverage_needs_a_fixed_threshold(small_study):
    for overrides in (["threshold=empirical"], ["sampling=full"]):
        with pytest.raises(ValueError, match="exact cost coverage"):
            run_study(small_study("fig5_1", "coverage=exact", "grid.num=3", *overrides))


def test_full_formula_target_is_normalized_by_c_max(small_study, tmp_path):
    """Under eq. 5.9 with pi = 1/2 the target is the eq. 3.12 cost over 2 max(w, 1 - w)."""
    grid = ["grid.num=5", "replications=2"]
    strat = run_study(small_study("fig5_5", *grid), tmp_path / "a").table
    full = run_study(small_study("fig5_4", *grid), tmp_path / "b").table
    w = strat["x"].to_numpy()
    np.testing.assert_allclose(
        full["target"], strat["target"] / (2 * np.maximum(w, 1 - w)), rtol=1e-12
    )


def test_cost_studies_reject_other_interval_methods():
    with pytest.raises(ValueError, match="wald, score, agresti"):
        study_conditions(compose_study("fig5_1", ["interval=jeffreys"]))


def test_cost_prior_only_matters_when_the_class_share_varies(small_study, tmp_path):
    """With stratified test sets N+/n = pi, so the sample and population priors coincide;
    with full sampling and the full formulas they differ (the sample one is wider-covering)."""
    args = ["grid.num=7", "replications=200", "study.axes.theta=[0.75]"]
    tables = {}
    for sampling in ("stratified", "full"):
        for prior in ("sample", "population"):
            cfg = small_study("fig5_4", *args, f"sampling={sampling}", f"cost_prior={prior}")
            tables[sampling, prior] = run_study(cfg, tmp_path / f"{sampling}-{prior}").table
    same = tables["stratified", "sample"]["coverage"].to_numpy()
    np.testing.assert_array_equal(same, tables["stratified", "population"]["coverage"])
    sample, population = (
        tables["full", p]["coverage"].to_numpy() for p in ("sample", "population")
    )
    assert np.mean(sample) > np.mean(population)


def test_unknown_cost_prior_is_answered_with_the_valid_ones():
    with pytest.raises(ValueError, match="sample, population"):
        study_conditions(compose_study("fig5_4", ["cost_prior=bogus"]))


def _user_wald(x, n, confidence_level):
    """A user's proportion method (the Wald interval), to check it is called per test set."""
    assert np.ndim(x) == 1, "a user's method gets one test set's counts"
    half = 1.6448536269514722 * np.sqrt(x / n * (1 - x / n) / n)
    return x / n - half, x / n + half


@pytest.mark.parametrize(
    ("name", "overrides"),
    [
        ("fig5_1", ()),
        ("fig5_4", ()),  # full sampling: class sizes vary by test set
        ("fig5_5", ("cost_prior=population",)),
        ("fig5_8", ("threshold=empirical",)),
        ("fig5_3", ()),
        ("fig5_11", ("threshold=empirical",)),
        ("fig5_6", ()),
        ("fig4_2", ()),  # threshold averaging
        ("fig4_3", ("interval=percentile",)),
        ("fig4_4", ("sampling=full", "bootstrap=full")),
        ("fig4_10", ()),
        ("fig4_5", ()),  # paired threshold averaging
        ("fig4_5", ("interval=wald",)),
    ],
)
def test_a_block_analysed_at_once_gives_each_test_sets_outcomes(name, overrides):
    """``analyse_block`` (the runner's path) gives, bit for bit, the outcomes of ``analyse``
    on each test set alone, in order, for every kind of cost and threshold condition (one
    classifier or two)."""
    from rocsim.sim.runner import replication_rng
    from rocsim.studies import get_kind

    cfg = compose_study(name, ["grid.num=9", "size=n25", *overrides])
    kind = get_kind(cfg["study"]["kind"])
    for condition in study_conditions(cfg)[:3]:
        setup = kind.setup(condition)
        block = [
            kind.generate(condition, setup, replication_rng(7, condition, r)) for r in range(9)
        ]
        together = kind.analyse_block(condition, setup, block)
        alone = [kind.analyse(condition, setup, data) for data in block]
        assert set(together) == set(alone[0])
        for outcome, values in together.items():
            expected = np.stack([np.asarray(row[outcome]) for row in alone])
            assert values.dtype == expected.dtype
            assert values.tobytes() == expected.tobytes(), outcome


def test_a_users_cost_method_is_given_one_test_set_at_a_time():
    from rocsim.sim.runner import replication_rng
    from rocsim.studies import get_kind

    cfg = compose_study("fig5_1", ["grid.num=5", "size=n25"])
    kind = get_kind(cfg["study"]["kind"])
    condition = study_conditions(cfg)[0]
    condition.settings["method_target"] = {"_target_": f"{__name__}._user_wald"}
    setup = kind.setup(condition)
    block = [kind.generate(condition, setup, replication_rng(3, condition, r)) for r in range(4)]
    together = kind.analyse_block(condition, setup, block)
    assert together["cover"].shape == (4, 5)
