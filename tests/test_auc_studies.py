"""The coverage studies of AUC intervals (kinds ``auc_methods`` and ``auc_multiclass``): they
compose, their models sit at the AUC of their axis (every pairwise and one-vs-rest AUC of the
multiclass model too), a smoke run writes the columns of the other studies plus
``degenerate`` and evaluates every literature claim, and ``rocsim-reproduce`` runs them only
with ``--with-bands``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

from rocsim.cli import compose_study
from rocsim.cli.reproduce import chosen_studies
from rocsim.sim.configs import available_studies
from rocsim.sim.extensions import build_model
from rocsim.sim.models import MulticlassScoreModel, make_model, make_multiclass_model
from rocsim.sim.pipeline import run_study, study_conditions
from rocsim.studies import get_kind
from rocsim.studies.auc import multiclass_sizes

STUDIES = ["auc_methods", "auc_multiclass"]


def test_the_method_study_compares_every_auc_method():
    from rocsim.core.area import AUC_INTERVAL_METHODS

    axes = compose_study("auc_methods").study.axes
    assert list(axes.method) == list(AUC_INTERVAL_METHODS)
    # the grid: AUC 0.6-0.99, n = 10 .. 500 per class, three score models
    assert min(axes.auc) == 0.6 and max(axes.auc) == 0.99
    assert min(axes.n) == 10 and max(axes.n) == 500
    assert set(axes.model) == {"binormal", "beta", "exponential"}


@pytest.mark.parametrize("name", STUDIES)
def test_each_model_sits_at_the_auc_of_its_axis(name):
    kind = get_kind(name)
    seen = set()
    for condition in study_conditions(compose_study(name)):
        p = condition.params
        key = (p["model"], p["auc"])
        if key in seen:
            continue
        seen.add(key)
        setup = kind.setup(condition)
        assert setup.x[0] == setup.target[0] == pytest.approx(p["auc"], abs=1e-9)
    assert len(seen) == len(compose_study(name).study.axes.model) * len(
        compose_study(name).study.axes.auc
    )


def test_multiclass_model_every_pairwise_and_one_vs_rest_auc_is_the_models():
    from rocsim.core.auc_methods import hanley_mcneil_var

    model = make_multiclass_model("exponential", {"mean": 3.0}, {"mean": 1.0}, 4.0)
    sizes = (8000, 16000, 24000, 32000)
    by_class = model.sample(np.random.default_rng(5), sizes)
    assert [b.shape for b in by_class] == [(size, 4) for size in sizes]
    truth = 3.0 / 4.0

    def five_se(n_pos: int, n_neg: int) -> float:
        # Hanley & McNeil's variance is exact for exponential scores
        return 5 * float(np.sqrt(hanley_mcneil_var(truth, n_pos, n_neg)))

    y = np.concatenate([np.full(len(b), k) for k, b in enumerate(by_class)])
    scores = np.concatenate(by_class)
    for a in range(4):
        # one vs rest on column a
        rest = y.size - sizes[a]
        auc = roc_auc_score(y == a, scores[:, a])
        assert auc == pytest.approx(truth, abs=five_se(sizes[a], rest))
        for b in range(4):
            if a != b:  # A(a|b), Hand & Till's, on column a
                keep = (y == a) | (y == b)
                auc = roc_auc_score(y[keep] == a, scores[keep, a])
                assert auc == pytest.approx(truth, abs=five_se(sizes[a], sizes[b]))


def test_multiclass_model_is_built_from_a_spec_with_classes():
    spec = {"family": "binormal", "pos": {"mu": 1.0, "sd": 1.0}, "neg": {"mu": 0, "sd": 1}}
    model = build_model(spec | {"classes": 3.0})
    assert isinstance(model, MulticlassScoreModel) and model.classes == 3
    assert model.model == make_model("binormal", {"mu": 1.0, "sd": 1.0}, {"mu": 0, "sd": 1})
    assert model.label().endswith("3 classes")


@pytest.mark.parametrize(
    "classes, match", [(2.0, "classes >= 3"), (3.5, "an integer"), ("3", "an integer")]
)
def test_multiclass_model_refuses_bad_classes(classes, match):
    with pytest.raises(ValueError, match=match):
        make_multiclass_model("binormal", {"mu": 1.0, "sd": 1.0}, {"mu": 0, "sd": 1}, classes)


def test_multiclass_model_needs_one_size_per_class():
    model = make_multiclass_model("binormal", {"mu": 1.0, "sd": 1.0}, {"mu": 0, "sd": 1}, 3)
    with pytest.raises(ValueError, match="one size per class"):
        model.sample(np.random.default_rng(0), (5, 5))


def test_multiclass_sizes_average_n_in_the_ratio_one_two_three():
    assert multiclass_sizes(10, 3) == (5, 10, 15)
    for n in (10, 50, 200):
        for c in (3, 4, 5):
            sizes = multiclass_sizes(n, c)
            assert len(sizes) == c and abs(np.mean(sizes) - n) <= 0.5
    with pytest.raises(ValueError, match="smallest of 5 classes"):
        multiclass_sizes(3, 5)


def test_the_multiclass_study_needs_a_multiclass_model():
    cfg = compose_study("auc_methods")
    condition = study_conditions(cfg)[0]
    with pytest.raises(ValueError, match="model with `classes:`"):
        get_kind("auc_multiclass").setup(condition)


def smoke(name: str, tmp_path, **axes):
    overrides = ["replications=40", "n_jobs=1", f"results_dir={tmp_path}"]
    overrides += [f"study.axes.{k}=[{','.join(map(str, v))}]" for k, v in axes.items()]
    return run_study(compose_study(name, overrides), tmp_path / name)


def test_auc_method_study_smoke_run(tmp_path):
    out = smoke("auc_methods", tmp_path, model=["beta"], auc=[0.75, 0.99], n=[10, 500])
    table = pd.read_csv(out.directory / "coverage.csv")
    for column in ("coverage", "mcse", "mean_width", "miss_low", "miss_high", "degenerate"):
        assert column in table.columns
    assert set(table["grid"]) == {"auc"} and np.allclose(table["x"], table["auc"])
    by = table[(table["auc"] == 0.99) & (table["n"] == 10)].set_index("method")
    assert by.index.tolist() == compose_study("auc_methods").study.axes.method
    # at AUC 0.99 and 10 per class a sample AUC of 1 is common: the Wald intervals collapse
    # to [1, 1] and miss the true AUC above it; Newcombe's score interval never collapses
    assert by.loc["delong", "degenerate"] > 0.1
    assert by.loc["delong", "miss_low"] >= by.loc["delong", "degenerate"]
    assert by.loc["newcombe", "degenerate"] == 0
    assert by.loc["newcombe", "coverage"] > by.loc["delong", "coverage"]
    # every literature claim finds its cells in this corner of the grid
    claims = pd.read_csv(out.directory / "claims.csv")
    configured = [c["claim"] for c in compose_study("auc_methods").study.claims]
    assert claims["claim"].tolist() == configured


def test_auc_multiclass_study_smoke_run(tmp_path):
    out = smoke(
        "auc_multiclass", tmp_path, model=["exponential"], auc=[0.9], classes=[3, 4], n=[10]
    )
    table = pd.read_csv(out.directory / "coverage.csv")
    assert len(table) == 2 * 2 * 3  # multi_class x classes x method
    assert set(table["multi_class"]) == {"ovo", "ovr"}
    assert set(table["method"]) == {"delong", "exact_bootstrap", "mover"}
    assert np.allclose(table["target"], 0.9)
    assert table["coverage"].between(0, 1).all() and (table["mean_width"] > 0).all()
    # unequal classes: one-vs-one and one-vs-rest are different estimates of the same AUC
    wide = table.pivot_table(index=["classes", "method"], columns="multi_class", values="x")
    assert np.allclose(wide["ovo"], wide["ovr"])
    widths = table.pivot_table(
        index=["classes", "method"], columns="multi_class", values="mean_width"
    )
    assert not np.allclose(widths["ovo"], widths["ovr"])


def test_reproduce_runs_the_auc_studies_only_when_asked():
    studies = available_studies()
    assert set(STUDIES) <= set(studies)
    assert not set(STUDIES) & set(chosen_studies(None, False, studies))
    assert set(STUDIES) <= set(chosen_studies(None, True, studies))


def test_the_study_page_quotes_the_committed_results(page_script):
    """docs/auc_study.md's results are what docs/examples/write_auc_page.py writes from the
    run's tables it keeps in docs/data/ (computed, never typed)."""
    writer, written = page_script("write_auc_page")
    assert written.strip() == "\n".join(writer.section(writer.DATA)).strip()
    for name in STUDIES:
        assert (writer.DATA / name / "coverage.csv").is_file()


def test_the_pages_reading_of_the_exponential_variances_holds_on_the_run():
    """docs/auc_study.md: Hanley & McNeil's and Newcombe's variances (the exponential
    model's) over-cover most on binormal scores at a high AUC."""
    from pathlib import Path

    table = pd.read_csv(
        Path(__file__).resolve().parents[1] / "docs" / "data" / "auc_methods" / "coverage.csv"
    )
    for method in ("hanley_mcneil", "newcombe"):
        part = table[table["method"] == method]
        top = part.loc[part["coverage"].idxmax()]
        assert top["model"] == "binormal" and top["auc"] == 0.99
        assert top["coverage"] - 3 * top["mcse"] > top["level"]
