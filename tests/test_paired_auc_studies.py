"""The coverage studies of paired partial and multiclass AUC differences (kinds
``auc_paired_partial`` and ``auc_multiclass_paired``): the paired multiclass score model's
law, each study's target against a computation of its own, smoke runs, and bad settings
refused with a message that names them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from rocsim.cli import compose_study
from rocsim.sim.models import (
    PairedMulticlassScoreModel,
    make_model,
    make_multiclass_model,
    make_paired_model,
)
from rocsim.sim.pipeline import run_study, study_conditions
from rocsim.studies import get_kind
from rocsim.studies.auc import multiclass_sizes

STUDIES = ["auc_paired_partial", "auc_multiclass_paired"]


def paired(rho=0.7, mu1=2.0, mu2=1.5, sd=1.0):
    return make_paired_model(
        {"mu": mu1, "sd": sd}, {"mu": 0, "sd": 1}, {"mu": mu2, "sd": sd}, {"mu": 0, "sd": 1}, rho
    )


def conditions(name: str, *overrides: str):
    return study_conditions(compose_study(name, list(overrides)))


# -- the paired multiclass score model -------------------------------------------------


def test_paired_multiclass_model_columns_and_correlation():
    model = PairedMulticlassScoreModel.of(paired(rho=0.6), 4.0)
    assert model.classes == 4 and model.label().endswith("4 classes")
    sizes = (20_000, 40_000, 60_000, 80_000)
    first, second = model.sample(np.random.default_rng(2), sizes)
    assert [b.shape for b in first] == [b.shape for b in second] == [(s, 4) for s in sizes]
    k = 2
    for j in range(4):
        mu1, mu2 = (2.0, 1.5) if j == k else (0.0, 0.0)  # the own column: the positives'
        se = 5 / np.sqrt(sizes[k])
        assert abs(first[k][:, j].mean() - mu1) < se and abs(second[k][:, j].mean() - mu2) < se
        # the two models' scores of an instance: correlation rho within a column
        r = np.corrcoef(first[k][:, j], second[k][:, j])[0, 1]
        assert abs(r - 0.6) < 5 * (1 - 0.6**2) / np.sqrt(sizes[k])
    # columns independent, within a model and across the two
    assert abs(np.corrcoef(first[k][:, 0], second[k][:, 1])[0, 1]) < 5 / np.sqrt(sizes[k])
    assert abs(np.corrcoef(first[k][:, 0], first[k][:, 1])[0, 1]) < 5 / np.sqrt(sizes[k])


def test_paired_multiclass_model_at_rho_one_gives_a_multiclass_model_each():
    """At rho = 1 the two models' columns are one draw, shifted: each model on its own is a
    MulticlassScoreModel of its marginals (its every pairwise AUC the binary AUC)."""
    model = PairedMulticlassScoreModel.of(paired(rho=1.0, mu1=1.0, mu2=1.0), 3)
    first, second = model.sample(np.random.default_rng(0), (3, 4, 5))
    for a, b in zip(first, second):
        np.testing.assert_allclose(a, b)
    single = make_multiclass_model("binormal", {"mu": 1.0, "sd": 1}, {"mu": 0, "sd": 1}, 3)
    assert (
        single.model
        == model.paired.first
        == make_model("binormal", {"mu": 1.0, "sd": 1}, {"mu": 0, "sd": 1})
    )


@pytest.mark.parametrize(
    "classes, match", [(2, "classes >= 3"), (3.5, "an integer"), ("3", "an integer")]
)
def test_paired_multiclass_model_refuses_bad_classes(classes, match):
    with pytest.raises(ValueError, match=match):
        PairedMulticlassScoreModel.of(paired(), classes)


def test_paired_multiclass_model_needs_a_paired_model_and_one_size_per_class():
    with pytest.raises(ValueError, match="needs a PairedScoreModel"):
        PairedMulticlassScoreModel(paired().first, 3)
    with pytest.raises(ValueError, match="one size per class"):
        PairedMulticlassScoreModel.of(paired(), 3).sample(np.random.default_rng(0), (5, 5))


# -- the targets -----------------------------------------------------------------------


def binormal_partial_area(mu: float, sd: float, f: float) -> float:
    """``Pr{X > Y, Y > c}`` for ``X ~ N(mu, sd)``, ``Y ~ N(0, 1)``, ``c`` the negatives'
    ``1 - f`` quantile: the area under the binormal curve over FPR ``[0, f]``, as a
    bivariate normal probability (no quadrature). ``(Y - X, -Y)`` has covariance
    ``[[sd^2 + 1, -1], [-1, 1]]``."""
    c = stats.norm.isf(f)
    cov = [[sd**2 + 1, -1.0], [-1.0, 1.0]]
    value = stats.multivariate_normal.cdf(
        [0.0, -c], mean=[-mu, 0.0], cov=cov, abseps=1e-12, releps=1e-12
    )
    return float(value)


def test_partial_target_is_the_difference_of_the_binormal_partial_areas():
    kind = get_kind("auc_paired_partial")
    (condition,) = conditions(
        "auc_paired_partial",
        "study.axes.model=[high]",
        "study.axes.rho=[0.3]",
        "study.axes.n=[25]",
        "study.axes.method=[delong]",
    )
    setup = kind.setup(condition)
    np.testing.assert_allclose(setup.x, [0.1, 0.3])
    np.testing.assert_array_equal(setup.extra["max_fpr"], setup.x)
    for f, target in zip(setup.x, setup.target):
        standardised = [
            0.5 * (1 + (binormal_partial_area(mu, 1.5, f) - f * f / 2) / (f - f * f / 2))
            for mu in (3.0, 2.5)
        ]
        assert target == pytest.approx(standardised[0] - standardised[1], abs=1e-9)
    # the equal pair's difference is zero
    (equal,) = conditions(
        "auc_paired_partial",
        "study.axes.model=[equal]",
        "study.axes.rho=[0.7]",
        "study.axes.n=[25]",
        "study.axes.method=[delong]",
    )
    np.testing.assert_array_equal(kind.setup(equal).target, [0.0, 0.0])


def test_multiclass_target_is_the_difference_of_the_binary_aucs():
    kind = get_kind("auc_multiclass_paired")
    for condition in conditions(
        "auc_multiclass_paired", "study.axes.n=[10]", "study.axes.method=[delong]"
    ):
        setup = kind.setup(condition)
        mu1, mu2 = {"close": (1.0, 0.7), "apart": (2.0, 1.5)}[condition.params["model"]]
        want = stats.norm.cdf(mu1 / np.sqrt(2)) - stats.norm.cdf(mu2 / np.sqrt(2))
        assert setup.x[0] == setup.target[0] == pytest.approx(want, abs=1e-9)
        model = setup.payload.model
        assert model.classes == condition.params["classes"]
        assert setup.payload.sizes == multiclass_sizes(10, model.classes)


# -- smoke runs ------------------------------------------------------------------------


def smoke(name: str, tmp_path, **axes):
    overrides = ["replications=20", "n_jobs=1", f"results_dir={tmp_path}"]
    overrides += [f"study.axes.{k}=[{','.join(map(str, v))}]" for k, v in axes.items()]
    out = run_study(compose_study(name, overrides), tmp_path / name)
    table = pd.read_csv(out.directory / "coverage.csv")
    assert table["coverage"].between(0, 1).all() and (table["mean_width"] > 0).all()
    assert np.allclose(table["coverage"] + table["miss_low"] + table["miss_high"], 1.0)
    # every claim finds its cells in this corner of the grid
    claims = pd.read_csv(out.directory / "claims.csv")
    assert claims["claim"].tolist() == [c["claim"] for c in compose_study(name).study.claims]
    return table


def test_auc_paired_partial_study_smoke_run(tmp_path):
    table = smoke("auc_paired_partial", tmp_path, model=["apart"], rho=[0.7], n=[25, 100])
    assert len(table) == 2 * 2 * 2  # n x f x method
    assert set(table["grid"]) == {"max_fpr"} and np.allclose(table["x"], table["max_fpr"])
    assert set(np.round(table["x"], 12)) == {0.1, 0.3}
    assert set(table["method"]) == {"delong", "delong_t"}
    assert "degenerate" in table.columns
    # t's quantile widens DeLong's interval, most at 25 per class over [0, 0.1]
    wide = table.pivot_table(index=["n", "max_fpr"], columns="method", values="mean_width")
    assert (wide["delong_t"] > wide["delong"]).all()
    # wider at 25 per class than at 100, and narrower over [0, 0.3] than over [0, 0.1]
    width = table[table.method == "delong"].pivot_table(
        index="n", columns="max_fpr", values="mean_width"
    )
    assert (width.loc[25] > width.loc[100]).all()
    assert (width.iloc[:, 0] > width.iloc[:, 1]).all()


def test_auc_multiclass_paired_study_smoke_run(tmp_path):
    table = smoke(
        "auc_multiclass_paired", tmp_path, model=["apart"], rho=[0.3], classes=[3], n=[10]
    )
    assert len(table) == 2 * 3  # multi_class x method
    assert set(table["method"]) == {"delong", "exact_bootstrap", "delong_t"}
    assert set(table["grid"]) == {"auc"} and table["target"].nunique() == 1
    # unequal classes: one-vs-one and one-vs-rest are different estimates of one difference
    widths = table.pivot_table(index="method", columns="multi_class", values="mean_width")
    assert not np.allclose(widths["ovo"], widths["ovr"])


# -- bad settings ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, override, match",
    [
        ("auc_paired_partial", "study.axes.method=[exact_bootstrap]", "valid: delong"),
        ("auc_multiclass_paired", "study.axes.method=[mover]", "interval method"),
    ],
)
def test_methods_the_difference_lacks_are_refused(name, override, match):
    with pytest.raises(ValueError, match=match):
        conditions(name, override)


@pytest.mark.parametrize("name", STUDIES)
def test_the_studies_need_a_paired_model(name):
    (condition,) = conditions(
        "auc_methods",
        "study.axes.model=[binormal]",
        "study.axes.auc=[0.9]",
        "study.axes.n=[10]",
        "study.axes.method=[delong]",
    )
    with pytest.raises(ValueError, match="paired score model"):
        get_kind(name).setup(condition)


def test_the_multiclass_study_needs_classes():
    condition = conditions("auc_paired", "study.axes.method=[delong]")[0]
    with pytest.raises(ValueError, match="paired model with `classes:`"):
        get_kind("auc_multiclass_paired").setup(condition)


def test_the_partial_study_needs_max_fprs_in_the_unit_interval():
    (condition,) = conditions(
        "auc_paired_partial",
        "grid.stop=1.2",
        "study.axes.model=[close]",
        "study.axes.rho=[0.3]",
        "study.axes.n=[25]",
        "study.axes.method=[delong]",
    )
    with pytest.raises(ValueError, match=r"max FPRs in \(0, 1\]"):
        get_kind("auc_paired_partial").setup(condition)


@pytest.mark.parametrize("name", STUDIES)
def test_the_studies_are_stratified_only(name):
    condition = conditions(name, "sampling=full")[0]
    with pytest.raises(ValueError, match="sampling=stratified"):
        get_kind(name).setup(condition)
