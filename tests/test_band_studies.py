"""The whole-curve band and partial-AUC coverage studies (kinds ``bands`` and ``partial_auc``;
overlays ``bands``, ``bands_small_n``, ``partial_auc``): they compose, their models sit at the
AUC of their axis, a smoke run writes the columns the other studies write and evaluates every
literature claim, and ``rocsim-reproduce`` runs them only with ``--with-bands``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rocsim.studies.bands
from rocsim.cli import compose_study
from rocsim.cli.reproduce import chosen_studies
from rocsim.sim.conditions import evaluate
from rocsim.sim.configs import available_studies
from rocsim.sim.pipeline import run_study, study_conditions
from rocsim.studies import get_kind
from rocsim.studies._common import true_area
from rocsim.studies.bands import BAND_CALLS, rocci_installed

STUDIES = ["bands", "bands_small_n", "partial_auc"]


@pytest.mark.parametrize("name", [*STUDIES, "auc_methods", "auc_multiclass"])
def test_the_overlays_compose_and_validate(name):
    """The studies of rocsim's own intervals (bands, partial and whole AUCs)."""
    cfg = compose_study(name)
    conditions = study_conditions(cfg)
    axes = cfg.study.axes
    assert len(conditions) == np.prod([len(v) for v in axes.values()])
    assert {"model", "auc", "n", "method"} <= set(axes)


@pytest.mark.parametrize("model", ["binormal", "beta", "exponential"])
def test_each_model_sits_at_the_auc_of_its_axis(model):
    cfg = compose_study("partial_auc")
    kind = get_kind("partial_auc")
    for condition in study_conditions(cfg):
        s = condition.settings
        if condition.params["model"] != model or s["method"] != "delong" or s["n"] != 25:
            continue
        setup = kind.setup(condition)
        assert setup.x[-1] == 1.0
        # McClish's standardisation of the whole range is the area itself
        assert setup.target[-1] == pytest.approx(condition.params["auc"], abs=1e-9)


def test_true_partial_area_in_closed_form():
    # exponential scores, negatives of mean 1, positives of mean a: R(u) = u^(1/a)
    cfg = compose_study("partial_auc")
    condition = next(
        c
        for c in study_conditions(cfg)
        if c.params["model"] == "exponential" and c.params["auc"] == 0.75
    )
    model = get_kind("partial_auc").setup(condition).payload.model
    a = 0.75 / 0.25
    for f in (0.1, 0.35, 1.0):
        assert true_area(model, f) == pytest.approx(f ** (1 + 1 / a) / (1 + 1 / a), rel=1e-10)


def test_model_expressions_take_ndtri_and_sqrt_only():
    assert evaluate("sqrt(2) * ndtri(auc)", {"auc": 0.75}) == pytest.approx(
        np.sqrt(2) * stats.norm.ppf(0.75), rel=1e-14
    )
    with pytest.raises(ValueError, match="the functions sqrt, ndtri"):
        evaluate("exp(auc)", {"auc": 0.75})


def smoke(name: str, tmp_path, **axes):
    overrides = ["replications=12", "n_jobs=1", f"results_dir={tmp_path}"]
    overrides += [f"study.axes.{k}=[{','.join(map(str, v))}]" for k, v in axes.items()]
    cfg = compose_study(name, overrides)
    return run_study(cfg, tmp_path / name)


def test_band_study_smoke_run(tmp_path):
    out = smoke("bands_small_n", tmp_path, model=["binormal", "exponential"], auc=[0.75], n=[25])
    table = pd.read_csv(out.directory / "coverage.csv")
    bands = len(BAND_CALLS) - (not rocci_installed())  # rocci's when it is installed
    # one row per condition (model, averaging, band): the band's simultaneous coverage
    assert len(table) == 2 * 2 * bands
    assert set(table["averaging"]) == {"vertical", "horizontal"}
    for column in ("method", "coverage", "mcse", "model", "auc", "n", "coverage_pointwise"):
        assert column in table.columns
    assert set(table["x"]) == {19.0} and set(table["grid"]) == {"band"}
    # a band covers the whole curve less often than it covers its points
    assert np.all(table["coverage"] <= table["coverage_pointwise"] + 1e-12)
    # the figure: coverage against n, a line per band, a panel per model and AUC
    from rocsim.views.figures import save_study_figure

    cfg = compose_study("bands_small_n")
    paths = save_study_figure(table, cfg, tmp_path)
    assert [p.name for p in paths] == ["coverage.png", "coverage.pdf"]
    claims = pd.read_csv(out.directory / "claims.csv")
    configured = [c["claim"] for c in compose_study("bands_small_n").study.claims]
    if not rocci_installed():  # a claim on rocci's band selects nothing: left out
        configured.remove("rocci_holds_level")
    assert claims["claim"].tolist() == configured


def test_without_rocci_its_conditions_are_left_out_with_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(rocsim.studies.bands, "rocci_installed", lambda: False)
    out = smoke(
        "bands_small_n",
        tmp_path,
        model=["binormal"],
        auc=[0.75],
        n=[25],
        method=["simultaneous", "rocci"],
        averaging=["vertical"],
    )
    table = pd.read_csv(out.directory / "coverage.csv")
    assert table["method"].tolist() == ["simultaneous"]
    said = [line for line in capsys.readouterr().err.splitlines() if "rocci" in line]
    assert said == [
        "rocsim: rocci is not installed (pip install rocci): its band is left out (1 condition)"
    ]


def test_the_page_is_what_its_script_writes_from_the_kept_tables(page_script):
    """docs/bands_study.md's results are what docs/examples/write_bands_page.py writes from the
    run's tables kept in docs/data (results/ is not tracked)."""
    page, written = page_script("write_bands_page")
    assert written.strip() == "\n".join(page.section(page.DATA)).strip()
    # every study the page speaks of has its tables kept (none "not run")
    assert "Not run." not in written


def test_partial_auc_study_smoke_run(tmp_path):
    out = smoke("partial_auc", tmp_path, model=["beta"], auc=[0.9], n=[25])
    table = pd.read_csv(out.directory / "coverage.csv")
    assert set(table["method"]) == {"delong", "exact_bootstrap", "logit_t"}
    assert np.allclose(sorted(set(table["x"])), np.linspace(0.1, 1.0, 10))
    assert table["coverage"].between(0, 1).all() and (table["mcse"] >= 0).all()


def test_reproduce_runs_the_band_studies_only_when_asked():
    studies = available_studies()
    default = chosen_studies(None, False, studies)
    assert not set(STUDIES) & set(default) and "fig4_2" in default
    assert set(STUDIES) <= set(chosen_studies(None, True, studies))
    assert chosen_studies(["bands"], False, studies) == ["bands"]
