"""``ties="interpolate"``: the ROC curve read linearly along the diagonal segment a score shared
by the two classes draws (pROC's reading), and its exact stratified-bootstrap law.

Checked against every stratified resample of tiny data sets (exact fractions: moments,
distribution function at every support point, quantiles, the data's TPR), a seeded Monte Carlo
bootstrap at n = 200 on rounded scores, and pROC 1.18's ``ci.se``/``ci.sp`` on aSAH's ``wfns``
(an ordinal 1-5 score) and ``s100b`` (B = 20000, two seeds; tests/data/proc, R calls there).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from enumeration import assert_mc_agrees, multinomial_law

import rocsim
from rocsim.core import vertical_distribution

PROC = Path(__file__).parent / "data" / "proc"

TIED_DATA = [
    pytest.param([0.9, 0.3, 0.6], [0.5, 0.5, 0.2], id="3x3-no-cross-ties"),
    pytest.param([0.5, 0.7, 0.2, 0.5], [0.5, 0.2, 0.9], id="4x3-ties-across"),
    pytest.param([0.3, 0.6], [0.6, 0.3, 0.6, 0.0], id="2x4-ties-everywhere"),
    pytest.param([1.0, 1.0], [1.0, 1.0], id="2x2-all-equal"),
    pytest.param([0.7, 0.7, 0.7, 0.7], [0.9, 0.7], id="4x2-pos-tied-with-neg"),
    pytest.param([2, 2, 1, 3], [2, 2, 2, 1], id="4x4-ordinal"),
]


def interpolated_tpr(pos, neg, r: int, side: str) -> Fraction:
    """TPR at FPR ``r / n-`` on the curve with diagonal ties, as pROC reads it: the threshold
    rank's negative (``r``-th largest, lower side; ``(r + 1)``-th, upper) has score ``v``;
    ``C`` negatives and ``X`` positives score above it, ``B`` and ``Y`` equal it."""
    order = sorted(neg, reverse=True)
    rank = r if side == "lower" else r + 1
    if rank > len(order):
        return Fraction(1)
    v = order[rank - 1]
    above_neg = sum(s > v for s in neg)
    tied_neg = sum(s == v for s in neg)
    above = sum(s > v for s in pos)
    tied = sum(s == v for s in pos)
    return (above + Fraction(tied * (r - above_neg), tied_neg)) / len(pos)


def enumerated_law(pos, neg, r: int, side: str) -> dict[Fraction, Fraction]:
    """Exact law of the interpolated TPR over every pair of stratified resamples."""
    law: dict[Fraction, Fraction] = {}
    for pos_counts, p_pos in multinomial_law(len(pos)):
        resampled_pos = [s for s, c in zip(pos, pos_counts) for _ in range(c)]
        for neg_counts, p_neg in multinomial_law(len(neg)):
            resampled_neg = [s for s, c in zip(neg, neg_counts) for _ in range(c)]
            tpr = interpolated_tpr(resampled_pos, resampled_neg, r, side)
            law[tpr] = law.get(tpr, Fraction(0)) + p_pos * p_neg
    return law


@pytest.mark.parametrize("side", ["lower", "upper"])
@pytest.mark.parametrize(("pos", "neg"), TIED_DATA)
def test_law_equals_enumeration(pos, neg, side):
    ranks = list(range(1, len(neg)))
    law = vertical_distribution(pos, neg, ranks, side=side, ties="interpolate")
    for i, r in enumerate(ranks):
        exact = enumerated_law(pos, neg, r, side)
        support = sorted(exact)
        probs = [exact[v] for v in support]
        mean = sum(p * v for p, v in zip(probs, support))
        var = sum(p * (v - mean) ** 2 for p, v in zip(probs, support))
        assert law.mean[i] == pytest.approx(float(mean), abs=1e-12)
        assert law.var[i] == pytest.approx(float(var), abs=1e-12)
        assert law.tpr[i] == pytest.approx(float(interpolated_tpr(pos, neg, r, side)), abs=1e-15)
        cumulative = np.cumsum([float(p) for p in probs])
        for v, expected in zip(support, cumulative):
            at = np.full(len(ranks), float(v))
            assert law.cdf(at)[i] == pytest.approx(expected, abs=1e-12)
        for p in (0.025, 0.2, 0.5, 0.8, 0.975):
            expected = float(support[int(np.searchsorted(cumulative, p - 1e-12))])
            assert law.quantile(p)[i] == pytest.approx(expected, abs=1e-14)


@pytest.mark.parametrize("side", ["lower", "upper"])
def test_without_ties_across_the_classes_it_is_the_step_law(side):
    rng = np.random.default_rng(4)
    pos, neg = np.round(rng.normal(1, 1, 40), 1), np.round(rng.normal(0, 1, 30), 1)
    neg = neg[~np.isin(neg, pos)]  # ties within the negatives only
    ranks = np.arange(1, neg.size)
    step = vertical_distribution(pos, neg, ranks, side=side)
    interpolated = vertical_distribution(pos, neg, ranks, side=side, ties="interpolate")
    np.testing.assert_array_equal(interpolated.tpr, step.tpr)
    np.testing.assert_allclose(interpolated.mean, step.mean, rtol=0, atol=1e-13)
    np.testing.assert_allclose(interpolated.var, step.var, rtol=0, atol=1e-13)
    for p in (0.025, 0.975):
        np.testing.assert_allclose(interpolated.quantile(p), step.quantile(p), atol=1e-14)


def test_against_monte_carlo_on_rounded_scores():
    # n = 200 per class, scores on a grid of 0.25: most FPRs fall on diagonal segments
    rng = np.random.default_rng(2028)
    n, b = 200, 20000
    pos, neg = np.round(4 * rng.normal(1, 1, n)) / 4, np.round(4 * rng.normal(0, 1, n)) / 4
    ranks = np.array([10, 50, 100, 150])
    law = vertical_distribution(pos, neg, ranks, side="upper", ties="interpolate")
    draws = np.empty((b, ranks.size))
    for i in range(b):
        p, q = np.sort(rng.choice(pos, n)), np.sort(rng.choice(neg, n))[::-1]
        v = q[ranks]  # the (r + 1)-th largest resampled negative
        above_neg = n - np.searchsorted(q[::-1], v, "right")
        tied_neg = n - np.searchsorted(q[::-1], v, "left") - above_neg
        above = n - np.searchsorted(p, v, "right")
        tied = n - np.searchsorted(p, v, "left") - above
        draws[i] = (above + tied * (ranks - above_neg) / tied_neg) / n
    for j in range(ranks.size):
        assert_mc_agrees(draws[:, j], law.mean[j], law.var[j])
        for p in (0.025, 0.975):
            # the exact distribution function at the Monte Carlo quantile is p within MC error
            got = law.cdf(np.full(ranks.size, np.quantile(draws[:, j], p)))[j]
            assert abs(got - p) <= 4 * np.sqrt(p * (1 - p) / b) + 1e-3


@pytest.fixture(scope="module")
def asah() -> pd.DataFrame:
    return pd.read_csv(PROC / "asah.csv")


def proc_blocks():
    ref = json.loads((PROC / "interpolated_ties.json").read_text())
    return [pytest.param(name, ref[name], id=name) for name in ref if "_seed" in name]


def proc_law(asah, name: str, block: dict, ties: str):
    """rocsim's law of what pROC bootstrapped: sensitivity at specificity ``j / 72`` (FPR rank
    ``72 - j``, upper side), or specificity at sensitivity ``k / 41`` (the classes exchanged
    and scores negated, FPR rank ``41 - k``, upper side)."""
    marker = name.split("_")[0]
    y = (asah["outcome"] == "Poor").to_numpy()
    s = asah[marker].to_numpy(dtype=float)
    grid = np.asarray(block["grid"])
    if "_se_" in name:
        return vertical_distribution(s[y], s[~y], 72 - grid, side="upper", ties=ties)
    return vertical_distribution(-s[~y], -s[y], 41 - grid, side="upper", ties=ties)


def proc_z(law, block: dict) -> float:
    """The largest gap, in Monte Carlo standard errors, between each of pROC's quantiles
    (B = 20000, R's type 7: between two order statistics) and the level ``p`` it estimates:
    ``F(q) >= p`` and ``F(q-) <= p`` must hold up to Monte Carlo error."""
    worst = 0.0
    for p, key in ((0.025, "q2.5"), (0.5, "q50"), (0.975, "q97.5")):
        q = np.asarray(block[key])
        below, at = law.cdf(q - 1e-9), law.cdf(q)
        se = np.sqrt(p * (1 - p) / 20000)
        worst = max(worst, float(np.max((p - at) / se)), float(np.max((below - p) / se)))
    return worst


@pytest.mark.parametrize(("name", "block"), proc_blocks())
def test_proc_ci_se_and_ci_sp_within_monte_carlo_error(asah, name, block):
    law = proc_law(asah, name, block, "interpolate")
    np.testing.assert_allclose(law.tpr, block["coords"], rtol=0, atol=1e-12)
    # 18 or 13 points and 3 quantiles per block: 4.5 standard errors is a wide margin
    assert proc_z(law, block) < 4.5


@pytest.mark.parametrize("marker", ["wfns", "s100b"])
def test_the_step_reading_disagrees_with_proc(asah, marker):
    # the reason for the option: on tied scores the step law is not what pROC computes
    ref = json.loads((PROC / "interpolated_ties.json").read_text())
    name = f"{marker}_se_seed1"
    assert proc_z(proc_law(asah, name, ref[name], "step"), ref[name]) > 20


def test_roc_ci_is_proc_ci_se_and_ci_sp(asah):
    ref = json.loads((PROC / "interpolated_ties.json").read_text())
    y = (asah["outcome"] == "Poor").to_numpy()
    s = asah["wfns"].to_numpy(dtype=float)
    se, sp = ref["wfns_se_seed1"], ref["wfns_sp_seed1"]
    bands = rocsim.roc_ci(
        y,
        s,
        averaging="vertical",
        at=1 - np.asarray(se["grid"]) / 72,
        side="upper",
        ties="interpolate",
        method="percentile",
    )
    law = proc_law(asah, "wfns_se_seed1", se, "interpolate")
    np.testing.assert_array_equal(bands.tpr_low, law.quantile(0.025 - 1e-12))
    np.testing.assert_allclose(bands.tpr, se["coords"], atol=1e-12)
    frame = bands.to_frame()
    assert frame.attrs["ties"] == "interpolate" and "ties interpolated" in repr(bands)
    horizontal = rocsim.roc_ci(
        y,
        s,
        averaging="horizontal",
        at=np.asarray(sp["grid"]) / 41,
        ties="interpolate",
        method="percentile",
    )
    np.testing.assert_allclose(1 - horizontal.fpr, sp["coords"], atol=1e-12)
    # pROC's specificity bounds, within a few Monte Carlo standard errors of the quantile
    assert np.max(np.abs(1 - horizontal.fpr_high - np.asarray(sp["q2.5"]))) < 0.03


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"averaging": "threshold"}, "ties='interpolate' applies to averaging='vertical'"),
        ({"band": "simultaneous"}, "built on the step reading"),
        ({"method": "agresti"}, "agresti interval needs the step law"),
        ({"bootstrap": "full"}, "bootstrap"),
        ({"ties": "linear"}, "ties"),
    ],
)
def test_bad_input_one_clear_line(kwargs, message):
    y, s = [1, 1, 1, 0, 0, 0], [3, 2, 2, 2, 1, 1]
    arguments = {"averaging": "vertical", "at": [0.5], "ties": "interpolate", **kwargs}
    with pytest.raises(ValueError, match=message):
        rocsim.roc_ci(y, s, **arguments)


def test_no_lattice_pmf_and_no_covariance():
    law = vertical_distribution([2, 2, 1], [2, 1, 1], [1, 2], ties="interpolate")
    with pytest.raises(NotImplementedError, match="not on the grid"):
        _ = law.pmf
    with pytest.raises(NotImplementedError, match="ties='step' only"):
        _ = law.cov
    assert "ties interpolated" in repr(law) and law.to_frame().attrs["ties"] == "interpolate"


@pytest.mark.parametrize("levels", ["rounded", "five"])
def test_a_thousand_per_class_within_pROCs_time_budget(levels):
    """At 10^3 per class on tied scores, rocsim's default 99 FPRs within a bound well under
    pROC's ci.se / ci.sp time at boot.n = 2000 (benchmarks/results_interpolated.md measures
    both); generous, as CI machines vary; both averagings."""
    import time

    rng = np.random.default_rng(3)
    raw = np.r_[rng.normal(1, 1, 1000), rng.normal(0, 1, 1000)]
    score = np.round(4 * raw) if levels == "rounded" else np.digitize(raw, [-0.5, 0.25, 1.5])
    y = np.r_[np.ones(1000), np.zeros(1000)]
    for how in ("vertical", "horizontal"):
        start = time.perf_counter()
        rocsim.roc_ci(y, score, averaging=how, method="percentile", ties="interpolate")
        assert time.perf_counter() - start < 1.5
