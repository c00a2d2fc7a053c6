"""rocsim against R's pROC 1.18 on pROC's own aSAH data (tests/data/proc, R calls recorded there).

pROC's ``coords`` and ``ci.se`` read the sensitivity at a specificity on the *top* of the ROC
curve's vertical step; rocsim's ``side="upper"`` is that reading, exactly. pROC's bootstrap
(B = 20000, stratified) must then agree with rocsim's exact law within Monte Carlo error:

- pROC interpolates linearly between curve points where a specificity is not one of them. A
  score shared by a case and a control makes such a segment diagonal; on ndka (3 shared
  scores) at most a few percent of replicates are interpolated, on s100b (scores rounded to
  0.01) up to 59%, so the bootstrap comparisons use ndka and require a small
  ``share_interpolated``; every interpolated value lies within one step 1/41 of a step value.
- pROC's quantiles are R's type 7 (linear between order statistics), rocsim's percentile
  bounds are quantiles of the exact law: they may differ by one grid step plus noise.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import rocsim

DATA = Path(__file__).parent / "data" / "proc"


def load(name: str) -> dict:
    return json.loads((DATA / name).read_text())


@pytest.fixture(scope="module")
def asah() -> pd.DataFrame:
    return pd.read_csv(DATA / "asah.csv")


def labels_and_score(asah: pd.DataFrame, marker: str):
    return (asah["outcome"] == "Poor").to_numpy(), asah[marker].to_numpy(dtype=float)


@pytest.mark.parametrize("marker", ["s100b", "ndka"])
def test_coords_at_a_specificity_is_the_upper_side(asah, marker):
    ref = load("ci_se.json")[marker]
    y, s = labels_and_score(asah, marker)
    on_curve = np.array([c["n_points_on_curve"] > 0 for c in ref["curve_at_specificity"]])
    fpr = 1 - np.asarray(ref["specificity"])[on_curve]
    upper = rocsim.roc_ci(y, s, averaging="vertical", side="upper", at=fpr)
    lower = rocsim.roc_ci(y, s, averaging="vertical", at=fpr)
    expected = np.asarray(ref["coords_sensitivity"])[on_curve]
    np.testing.assert_allclose(upper.tpr, expected, rtol=0, atol=1e-12)
    steps = np.array([c["vertical_step"] for c in ref["curve_at_specificity"]])[on_curve]
    assert steps.any() and np.all(lower.tpr[steps] < expected[steps])  # the side matters


def test_ci_se_bootstrap_moments_and_bounds_match_the_exact_upper_law(asah):
    ref, boot = load("ci_se.json")["ndka"], load("bootstrap_se.json")["ndka"]
    y, s = labels_and_score(asah, "ndka")
    fpr = 1 - np.asarray(ref["specificity"])
    bands = rocsim.roc_ci(y, s, averaging="vertical", side="upper", at=fpr, method="percentile")
    r = np.rint(fpr * 72).astype(int)
    law = rocsim.core.vertical_distribution(s[y], s[~y], r, side="upper")
    step = 1 / 41
    share = np.asarray(boot["share_interpolated"])
    assert share.max() < 0.05
    # interpolated replicates move by less than a step; the rest is Monte Carlo error
    mcse = np.sqrt(law.var / boot["B"])
    bias = share * step
    assert np.all(np.abs(np.asarray(boot["mean"]) - law.mean) <= 4 * mcse + bias)
    sd_mcse = np.sqrt(law.var / (2 * boot["B"]))  # MCSE of a sample sd, near-normal law
    assert np.all(np.abs(np.asarray(boot["sd"]) - np.sqrt(law.var)) <= 6 * sd_mcse + bias)
    for ours, theirs in ((bands.tpr_low, "se_lower_2.5"), (bands.tpr_high, "se_upper_97.5")):
        assert np.all(np.abs(ours - np.asarray(ref[theirs])) <= step + 0.01), theirs


def test_ci_sp_is_horizontal_averaging(asah):
    ref = load("ci_sp.json")["s100b"]
    y, s = labels_and_score(asah, "s100b")
    on_curve = np.array([c["n_points_on_curve"] > 0 for c in ref["curve_at_sensitivity"]])
    tpr = np.asarray(ref["sensitivity"])[on_curve]
    keep = tpr < 1  # TPR ranks 1..n+ - 1
    bands = rocsim.roc_ci(y, s, averaging="horizontal", at=tpr[keep])
    expected = np.asarray(ref["coords_specificity"])[on_curve][keep]
    np.testing.assert_allclose(1 - bands.fpr, expected, rtol=0, atol=1e-12)


def test_ci_thresholds_is_the_percentile_at_the_level_per_axis(asah):
    ref = load("ci_thresholds.json")["s100b"]
    y, s = labels_and_score(asah, "s100b")
    level = ref["conf_level"]
    # pROC gives each axis the level; rocsim's rectangle at level**2 has each axis at level
    ci = rocsim.roc_ci(
        y, s, thresholds=ref["threshold"], method="percentile", confidence_level=level**2
    )
    assert ci.axis_level == pytest.approx(level)
    np.testing.assert_allclose(ci.tpr, np.asarray(ref["tp"]) / ref["n_pos"], atol=1e-12)
    np.testing.assert_allclose(1 - ci.fpr, np.asarray(ref["tn"]) / ref["n_neg"], atol=1e-12)
    for ours, theirs, step in (
        (ci.tpr_low, "se_lower_2.5", 1 / 41),
        (ci.tpr_high, "se_upper_97.5", 1 / 41),
        (1 - ci.fpr_high, "sp_lower_2.5", 1 / 72),
        (1 - ci.fpr_low, "sp_upper_97.5", 1 / 72),
    ):
        assert np.all(np.abs(ours - np.asarray(ref[theirs])) <= step + 0.01), theirs
