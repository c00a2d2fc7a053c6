"""A classifier scored the other way round (issue 35): scikit-learn's default (higher score =
positive, no silent flip), ``direction="lower"`` and ``"auto"`` (pROC's rule, checked against
pROC's own results on its aSAH data, tests/data/proc/direction.json with the R code), and one
warning when a curve lies clearly below the diagonal or two compared curves point in opposite
directions."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rocsim

DATA = Path(__file__).parent / "data" / "proc"
ASAH = pd.read_csv(DATA / "asah.csv")
PROC = json.loads((DATA / "direction.json").read_text())
Y, S100B, NDKA = ASAH["outcome"], ASAH["s100b"].to_numpy(), ASAH["ndka"].to_numpy()


def quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning expected
        return call()


def test_auto_gives_procs_direction_and_area():
    result = quiet(lambda: rocsim.auc_ci(Y, -S100B, pos_label="Poor", direction="auto"))
    assert PROC["neg_s100b_auto"]["direction"] == ">" and result.direction == "lower"
    assert result.auc == pytest.approx(PROC["neg_s100b_auto"]["auc"], abs=1e-15)
    assert result.to_frame().attrs["direction"] == "lower"


def test_the_default_reads_higher_as_positive_and_warns_below_the_diagonal():
    with pytest.warns(rocsim.DirectionWarning, match="below the diagonal.*direction='lower'"):
        result = rocsim.auc_ci(Y, -S100B, pos_label="Poor")
    assert result.direction == "higher"
    assert result.auc == pytest.approx(PROC["neg_s100b_forced"]["auc"], abs=1e-15)


def test_lower_equals_negating_the_scores_with_thresholds_on_the_users_scale():
    lower = quiet(
        lambda: rocsim.roc_ci(Y, -S100B, pos_label="Poor", direction="lower", thresholds=[-0.2])
    )
    higher = rocsim.roc_ci(Y, S100B, pos_label="Poor", thresholds=[0.2])
    frame, expected = lower.to_frame(), higher.to_frame()
    assert frame["threshold"].tolist() == [-0.2]  # positive means score <= -0.2
    for column in ("fpr", "fpr_low", "fpr_high", "tpr", "tpr_low", "tpr_high"):
        np.testing.assert_array_equal(frame[column], expected[column])
    cost = quiet(lambda: rocsim.cost_curve_ci(Y, -S100B, pos_label="Poor", direction="lower"))
    np.testing.assert_array_equal(
        cost.threshold, -rocsim.cost_curve_ci(Y, S100B, pos_label="Poor").threshold
    )


@pytest.mark.parametrize("placement", [{"at": [0.2, 0.5]}, {"thresholds": [-0.2, -0.1]}])
def test_lower_precision_recall_thresholds_are_on_the_users_scale(placement):
    lower = quiet(
        lambda: rocsim.pr_ci(
            Y, -S100B, pos_label="Poor", direction="lower", averaging="threshold", **placement
        )
    )
    flipped = {k: -np.asarray(v) if k == "thresholds" else v for k, v in placement.items()}
    higher = rocsim.pr_ci(Y, S100B, pos_label="Poor", averaging="threshold", **flipped)
    frame, expected = lower.to_frame(), higher.to_frame()
    # positive means score <= threshold: the user's own (negated) thresholds come back
    np.testing.assert_array_equal(frame["threshold"], -expected["threshold"])
    assert (frame["threshold"] < 0).all()
    if "thresholds" in placement:
        assert frame["threshold"].tolist() == placement["thresholds"]
    for column in ("recall", "precision", "low", "high", "recall_low", "recall_high"):
        np.testing.assert_array_equal(frame[column], expected[column])


def test_comparing_opposite_directions_warns_and_auto_gives_procs_test():
    with pytest.warns(rocsim.DirectionWarning, match="opposite directions"):
        naive = rocsim.compare_auc(Y, S100B, -NDKA, pos_label="Poor")
    assert naive.p_value < 1e-5  # a curve against the other's mirror image
    test = PROC["roc_test"]
    assert "different direction" in test["warning"]  # pROC warns as well
    paired = quiet(
        lambda: rocsim.compare_auc(
            Y, S100B, -NDKA, pos_label="Poor", direction="auto", method="delong"
        )
    )
    assert paired.direction == ("higher", "lower")
    assert paired.auc1 == pytest.approx(test["auc1"], abs=1e-15)
    assert paired.auc2 == pytest.approx(test["auc2"], abs=1e-15)
    assert paired.p_value == pytest.approx(test["p_value"], rel=1e-9)
    assert paired.difference / np.sqrt(paired.var) == pytest.approx(test["statistic"], rel=1e-9)


def test_a_pair_of_directions_and_a_comparison_with_one_flipped():
    both = quiet(
        lambda: rocsim.compare_roc(
            Y, S100B, -NDKA, pos_label="Poor", direction=("higher", "lower"), at=[0.5]
        )
    )
    reference = rocsim.compare_roc(Y, S100B, NDKA, pos_label="Poor", at=[0.5])
    assert both.to_frame()["dtpr"].tolist() == reference.to_frame()["dtpr"].tolist()
    assert both.t2.tolist() == (-reference.t2).tolist()


@pytest.mark.parametrize(
    ("direction", "message"),
    [
        ("down", "unknown direction 'down'"),
        (("higher",), "one per classifier"),
        (("higher", "sideways"), "unknown direction 'sideways'"),
    ],
)
def test_bad_directions_are_named(direction, message):
    with pytest.raises(ValueError, match=message):
        rocsim.compare_auc(Y, S100B, NDKA, pos_label="Poor", direction=direction)


def test_no_warning_for_a_classifier_near_the_diagonal():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    quiet(lambda: rocsim.roc_ci(y, rng.normal(size=200)))


def test_the_pages_quote_of_procs_area_is_procs():
    page = (Path(__file__).parents[1] / "docs" / "coming_from_pROC.md").read_text()
    assert f"gives pROC's\n{PROC['neg_s100b_auto']['auc']:.3f}" in page
