"""Hydra configs: every overlay composes, axes override, sweeps get their own folders."""

from __future__ import annotations

import pytest

from rocsim.cli import compose_study
from rocsim.sim.configs import available_studies
from rocsim.sim.pipeline import study_conditions

THESIS_SETTINGS = {
    # study: (level, method, axes, per-class n, model family)
    "fig4_2": (0.95, "score", {"model": 5}, 100, "binormal"),
    "fig4_3": (0.90, "score", {"theta": 4}, 10000, "binormal"),
    "fig4_4": (0.90, "score", {"n": 4}, 100, "binormal"),
    "fig4_10": (0.90, "score", {"n": 4, "scheme": 2}, 100, "binormal"),
    "fig4_6": (0.95, "score", {"model": 5, "method": 2}, 100, "binormal"),
    "fig4_7": (0.90, "score", {"theta": 4, "method": 2}, 10000, "binormal"),
    "fig4_8": (0.90, "score", {"n": 4, "method": 2}, 100, "binormal"),
    "fig5_1": (0.90, "agresti", {"theta": 4}, 1000, "binormal"),
    "fig5_2": (0.90, "agresti", {"n": 4}, 100, "binormal"),
    "fig5_3": (0.90, "agresti", {"shift": 3, "theta": 2, "rho": 3}, 1000, "binormal"),
    "fig5_4": (0.90, "agresti", {"theta": 4}, 1000, "binormal"),
    "fig5_5": (0.90, "agresti", {"theta": 4}, 1000, "binormal"),
    "fig5_6": (0.90, "agresti", {"shift": 3, "theta": 2, "rho": 3}, 1000, "binormal"),
    **{f"fig5_{k}": (0.90, "agresti", {"theta": 4}, 1000, "binormal") for k in (7, 8, 9)},
    **{
        f"fig5_{k}": (0.90, "agresti", {"shift": 3, "theta": 2, "rho": 3}, 1000, "binormal")
        for k in (10, 11, 12)
    },
}
GRIDS = {
    "fig4_6": "fpr",
    "fig4_7": "fpr",
    "fig4_8": "fpr",
    **{f"fig5_{k}": "w" for k in range(1, 13)},
}


def test_vertical_studies_compare_exact_and_kernel():
    for name in ("fig4_6", "fig4_7", "fig4_8"):
        conditions = study_conditions(compose_study(name))
        assert {c.settings["method"] for c in conditions} == {"score", "kernel"}


def test_method_must_fit_the_study_kind():
    with pytest.raises(ValueError, match="kernel"):
        study_conditions(compose_study("fig4_3", ["interval=kernel"]))
    # the exact binomial percentile interval is a proportion method: threshold studies take it
    assert study_conditions(compose_study("fig4_3", ["interval=percentile"]))
    with pytest.raises(ValueError, match="kernel"):
        study_conditions(compose_study("fig4_8", ["study.axes.method=[jeffreys]"]))


def test_every_thesis_figure_has_an_overlay():
    assert set(THESIS_SETTINGS) <= set(available_studies())


@pytest.mark.parametrize("name", sorted(THESIS_SETTINGS))
def test_overlay_matches_the_thesis_settings(name):
    level, method, axes, n, family = THESIS_SETTINGS[name]
    cfg = compose_study(name)
    assert cfg.study.name == name
    assert cfg.confidence_level == level
    assert cfg.interval.method == method
    assert {k: len(v) for k, v in cfg.study.axes.items()} == axes
    assert cfg.size.n == n
    assert cfg.model.family == family
    assert cfg.grid.name == GRIDS.get(name, "q") and cfg.grid.num == 99


def test_dispersion_model_resolves_theta():
    conditions = study_conditions(compose_study("fig4_3"))
    model = conditions[-1].settings["model"]
    assert conditions[-1].params == {"theta": 5.0}
    assert model["pos"] == {"mu": 5.0, "sd": 3.75}
    assert model["neg"] == {"mu": -5.0, "sd": 3.0}


def test_size_axis_replaces_n():
    conditions = study_conditions(compose_study("fig4_4"))
    assert [c.settings["n"] for c in conditions] == [25, 250, 2500, 10000]
    assert all(c.settings["model"]["pos"]["mu"] == 3.0 for c in conditions)


def test_scheme_axis_sets_sampling_and_bootstrap():
    conditions = study_conditions(compose_study("fig4_10"))
    full = [c for c in conditions if c.params["scheme"] == "full"]
    assert len(full) == 4
    assert all(c.settings["sampling"] == c.settings["bootstrap"] == "full" for c in full)


@pytest.mark.parametrize("method", ["wald", "score", "agresti", "jeffreys", "clopper_pearson"])
def test_command_line_interval_beats_the_overlay(method):
    cfg = compose_study("fig4_3", [f"interval={method}"])
    assert cfg.interval.method == method
    assert all(c.settings["method"] == method for c in study_conditions(cfg))


def test_agresti_pseudo_count_is_free():
    cfg = compose_study("fig4_3", ["interval=agresti", "interval.pseudo_count=0.5"])
    assert study_conditions(cfg)[0].settings["pseudo_count"] == 0.5


def test_new_axis_values_by_override():
    cfg = compose_study("fig4_3", ["study.axes.theta=[1.0,2.0]", "size=n250"])
    conditions = study_conditions(cfg)
    assert [c.label for c in conditions] == ["theta=1", "theta=2"]
    assert conditions[0].settings["n"] == 250


def test_bad_override_is_a_value_error():
    with pytest.raises(ValueError, match="confidence_level"):
        study_conditions(compose_study("fig4_3", ["confidence_level=1.5"]))
    with pytest.raises(ValueError, match="unknown interval method"):
        study_conditions(compose_study("fig4_3", ["interval.method=bogus"]))


def test_where_a_sweep_runs_does_not_name_its_folders():
    """A -m sweep's job folders are named by the overrides that change results: the same
    folders on a dask cluster (runner.* but what failures do) as on this machine."""
    from hydra import compose, initialize_config_dir

    from rocsim.sim.configs import package_config_dir

    with initialize_config_dir(config_dir=str(package_config_dir()), version_base=None):
        cfg = compose("config", overrides=["study=fig4_2"], return_hydra_config=True)
    excluded = set(cfg.hydra.job.config.override_dirname.exclude_keys)
    # what a data set that raises does changes the results (record: its replication is drawn
    # again, the table counts failures): those keys name a job's folder
    results = {"runner.on_error", "runner.max_failure_share"}
    runner_keys = {
        "runner",
        *(f"runner.{key}" for key in compose_study("fig4_2", ["runner=dask"]).runner),
    } - results
    assert runner_keys <= excluded, runner_keys - excluded
    assert not results & excluded
