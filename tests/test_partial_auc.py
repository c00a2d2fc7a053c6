"""Partial AUC: scikit-learn's value (``roc_auc_score(max_fpr=)``) and pROC's (stored with the R
call, ``tests/data/proc/partial_auc.json``), ties included; the decomposition behind its
placement-value variance; that variance against a seeded Monte Carlo bootstrap; the exact
stratified-bootstrap mean and variance against every resample of tiny data (ties, ranges,
both foci) and a seeded Monte Carlo bootstrap at n = 150-200."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest
from enumeration import assert_mc_agrees, multinomial_law
from sklearn.metrics import roc_auc_score
from test_vertical_oracle import TINY_DATA

import rocsim
from rocsim.core.area import auc_ci
from rocsim.core.partial_area import (
    bootstrap_mean_area,
    exact_partial_area_var,
    mcclish,
    mcclish_scale,
    partial_area,
    placement_values,
)

matplotlib.use("Agg")

PROC = Path(__file__).parent / "data" / "proc"


def random_data(rng, ties: bool):
    n_pos, n_neg = rng.integers(2, 15, 2)
    if ties:  # an ordinal score: ties within and across the classes
        return rng.integers(0, 5, n_pos).astype(float), rng.integers(0, 4, n_neg).astype(float)
    return rng.normal(1.0, 1.0, n_pos), rng.normal(0.0, 1.0, n_neg)


@pytest.mark.parametrize("ties", [False, True])
def test_equals_scikit_learn(ties):
    rng = np.random.default_rng(7 + ties)
    for case in range(100):
        pos, neg = random_data(rng, ties)
        y, s = np.r_[np.ones(pos.size), np.zeros(neg.size)], np.r_[pos, neg]
        # off the grid of FPRs j / n-, on it, and the whole curve
        for f in (rng.uniform(0.01, 0.99), 2 / neg.size, 0.5, 1.0):
            expected = roc_auc_score(y, s, max_fpr=f)
            got = mcclish(partial_area(pos, neg, 0.0, f), 0.0, f) if f < 1 else None
            if case % 10 == 0 or f == 1:  # through the public function too
                got = rocsim.auc_ci(y, s, max_fpr=f).auc
            assert got == pytest.approx(expected, abs=1e-12)


def asah() -> pd.DataFrame:
    return pd.read_csv(PROC / "asah.csv")


@pytest.mark.parametrize(
    "block",
    [
        "s100b_specificity",
        "ndka_specificity",
        "wfns_specificity",
        "s100b_sensitivity",
        "wfns_sensitivity",
    ],
)
def test_equals_proc(block):
    stored = json.loads((PROC / "partial_auc.json").read_text())[block]
    data = asah()
    marker = block.split("_")[0]
    y = (data["outcome"] == "Poor").astype(int).to_numpy()
    score = data[marker].to_numpy(dtype=float)
    for (high, low), raw, corrected in zip(stored["range"], stored["raw"], stored["corrected"]):
        if stored["focus"] == "specificity":  # specificities (high, low): FPRs 1 - high .. 1 - low
            got = rocsim.auc_ci(y, score, fpr_range=(1 - high, 1 - low))
        else:
            got = rocsim.auc_ci(y, score, tpr_range=(low, high))
        assert got.partial_area == pytest.approx(raw, abs=1e-12)
        assert got.auc == pytest.approx(corrected, abs=1e-12)


def test_placement_shares_sum_to_the_area():
    rng = np.random.default_rng(3)
    for _ in range(300):
        pos, neg = random_data(rng, ties=bool(rng.integers(2)))
        lo, hi = np.sort(rng.uniform(0, 1, 2))
        share, influence = placement_values(pos, neg, lo, hi)
        assert share.mean() == pytest.approx(partial_area(pos, neg, lo, hi), abs=1e-13)
        assert share.shape == pos.shape and influence.shape == neg.shape


def test_tpr_range_is_the_fpr_range_of_the_classes_exchanged():
    rng = np.random.default_rng(11)
    pos, neg = rng.normal(1, 1, 30), rng.normal(0, 1, 40)
    y, s = np.r_[np.ones(30), np.zeros(40)], np.r_[pos, neg]
    by_tpr = rocsim.auc_ci(y, s, tpr_range=(0.6, 0.9))
    exchanged = rocsim.auc_ci(1 - y, -s, fpr_range=(0.1, 0.4))
    assert by_tpr.partial_area == pytest.approx(exchanged.partial_area, abs=1e-15)
    assert by_tpr.var == pytest.approx(exchanged.var, rel=1e-12)


def test_mcclish_ends():
    # the diagonal scores 0.5, a perfect curve 1, over any range
    assert mcclish((0.3**2 - 0.1**2) / 2, 0.1, 0.3) == pytest.approx(0.5)
    assert mcclish(0.2, 0.1, 0.3) == pytest.approx(1.0)


@pytest.mark.parametrize("f", [0.2, 0.5])
def test_placement_variance_against_monte_carlo(f):
    # an asymptotic (influence-function) variance: close to the bootstrap's at n = 500
    rng = np.random.default_rng(2026)
    n = 500
    pos, neg = rng.normal(1.2, 1, n), rng.normal(0, 1, n)
    y = np.r_[np.ones(n), np.zeros(n)]
    got = rocsim.auc_ci(y, np.r_[pos, neg], max_fpr=f)
    areas = [partial_area(rng.choice(pos, n), rng.choice(neg, n), 0.0, f) for _ in range(2000)]
    scale = 0.5 / (f - f * f / 2)
    # 2000 resamples: the variance's Monte Carlo error is about 3 %
    assert got.var == pytest.approx(np.var(areas, ddof=1) * scale**2, rel=0.12)


def test_result_frame_repr_and_plot():
    y, s = [1, 1, 1, 0, 0, 0, 0], [0.9, 0.7, 0.4, 0.8, 0.5, 0.3, 0.1]
    got = rocsim.auc_ci(y, s, max_fpr=0.5, confidence_level=0.9)
    frame = got.to_frame()
    assert list(frame.columns[:5]) == ["auc", "partial_area", "var", "low", "high"]
    assert frame.attrs["focus"] == "fpr" and frame.attrs["range_high"] == 0.5
    assert "partial AUC (FPR 0-0.5" in repr(got) and "90%" in repr(got)
    assert isinstance(got.auc, float) and isinstance(got.var, float)
    ax = got.plot()
    assert any("partial AUC" in t.get_text() for t in ax.get_legend().get_texts())


def test_plot_names_the_standardised_partial_auc_and_its_range():
    # McClish's scale beside the whole curve must not read as the whole curve's AUC
    rng = np.random.default_rng(3)
    y = np.r_[np.ones(60), np.zeros(60)]
    first, second = y + rng.normal(size=120), 0.7 * y + rng.normal(size=120)
    import matplotlib.pyplot as plt

    def legend(ax):
        texts = [t.get_text() for t in ax.get_legend().get_texts()]
        plt.close(ax.figure)
        return texts

    one = rocsim.auc_ci(y, first, max_fpr=0.2, confidence_level=0.9)
    assert legend(one.plot()) == [
        "Chance level (AUC = 0.5)",
        f"standardised partial AUC\n(FPR 0-0.2) {one.auc:.3f}, 90% CI "
        f"[{one.low:.3f}, {one.high:.3f}]",
        "FPR 0-0.2: the partial AUC's range",
    ]
    by_tpr = rocsim.auc_ci(y, first, tpr_range=(0.8, 1.0))
    assert "standardised partial AUC\n(TPR 0.8-1) " in legend(by_tpr.plot())[1]
    two = rocsim.compare_auc(y, first, second, max_fpr=0.2)
    ax = two.plot()
    assert ax.get_title().startswith("partial AUC1 - AUC2 (FPR 0-0.2) = ")
    assert legend(ax)[1:3] == [
        f"classifier 1: standardised partial AUC\n(FPR 0-0.2) {two.auc1:.3f}",
        f"classifier 2: standardised partial AUC\n(FPR 0-0.2) {two.auc2:.3f}",
    ]
    # the whole AUC keeps its plain name
    whole = rocsim.compare_auc(y, first, second)
    ax = whole.plot()
    assert ax.get_title().startswith("AUC1 - AUC2 = ")
    assert legend(ax) == [
        "Chance level (AUC = 0.5)",
        f"classifier 1: AUC {whole.auc1:.3f}",
        f"classifier 2: AUC {whole.auc2:.3f}",
    ]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_fpr": 0.0}, "max_fpr must be in"),
        ({"max_fpr": 1.5}, "max_fpr must be in"),
        ({"fpr_range": (0.4, 0.2)}, "0 <= lo < hi <= 1"),
        ({"tpr_range": (0.2,)}, "tpr_range must be a pair"),
        ({"max_fpr": 0.2, "fpr_range": (0, 0.2)}, "at most one of"),
        ({"max_fpr": 0.2, "method": "bootstrap"}, "partial AUC method"),
    ],
)
def test_bad_input_one_clear_line(kwargs, message):
    y, s = [1, 1, 0, 0], [0.9, 0.4, 0.5, 0.1]
    with pytest.raises(ValueError, match=message):
        rocsim.auc_ci(y, s, **kwargs)


def test_paired_exact_bootstrap_is_refused_by_name():
    y, s = [1, 1, 0, 0], [0.9, 0.4, 0.5, 0.1]
    with pytest.raises(ValueError, match="paired partial AUC method 'exact_bootstrap'"):
        rocsim.compare_auc(y, s, s[::-1], max_fpr=0.5, method="exact_bootstrap")


def test_paired_difference_of_partial_aucs():
    rng = np.random.default_rng(8)
    n = 400
    y = np.r_[np.ones(n), np.zeros(n)]
    shared = rng.normal(size=2 * n)
    s1 = y + 0.8 * shared + 0.6 * rng.normal(size=2 * n)
    s2 = 0.7 * y + 0.8 * shared + 0.6 * rng.normal(size=2 * n)
    got = rocsim.compare_auc(y, s1, s2, max_fpr=0.3)
    one, two = rocsim.auc_ci(y, s1, max_fpr=0.3), rocsim.auc_ci(y, s2, max_fpr=0.3)
    assert got.auc1 == one.auc and got.auc2 == two.auc
    assert got.difference == pytest.approx(one.auc - two.auc, abs=1e-15)
    # correlated classifiers: the paired variance is below the sum of the two
    assert 0 < got.var < one.var + two.var
    assert 0 <= got.p_value <= 1 and got.low < got.difference < got.high
    # a classifier against itself: no difference, no variance
    same = rocsim.compare_auc(y, s1, s1, tpr_range=(0.5, 1.0))
    assert same.difference == 0 and same.var == 0 and same.p_value == 1.0
    # against a paired Monte Carlo bootstrap of the difference (instances keep both scores)
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    diffs = []
    for _ in range(1500):
        p, q = rng.choice(pos, n), rng.choice(neg, n)
        a1 = partial_area(s1[p], s1[q], 0.0, 0.3)
        a2 = partial_area(s2[p], s2[q], 0.0, 0.3)
        diffs.append(a1 - a2)
    scale = 0.5 / (0.3 - 0.045)
    assert got.var == pytest.approx(np.var(diffs, ddof=1) * scale**2, rel=0.15)
    assert "partial AUC1 - AUC2 (FPR 0-0.3)" in repr(got)
    assert got.plot() is not None


RANGES = [(0.0, 0.5), (0.0, 0.3), (0.2, 0.7), (0.25, 1.0), (0.1, 0.35), (0.0, 1.0)]


def enumerated_area_moments(pos, neg, lo: float, hi: float) -> tuple[float, float]:
    """Mean and variance of the partial area over every pair of stratified resamples."""
    first = second = 0.0
    for pos_counts, p_pos in multinomial_law(len(pos)):
        resampled_pos = np.repeat(pos, pos_counts)
        for neg_counts, p_neg in multinomial_law(len(neg)):
            area = partial_area(resampled_pos, np.repeat(neg, neg_counts), lo, hi)
            first += float(p_pos * p_neg) * area
            second += float(p_pos * p_neg) * area * area
    return first, second - first * first


def enumerated_area_var(pos, neg, lo: float, hi: float) -> float:
    """Variance of the partial area over every pair of stratified resamples."""
    return enumerated_area_moments(pos, neg, lo, hi)[1]


@pytest.mark.parametrize(("pos", "neg"), TINY_DATA)
def test_exact_variance_equals_enumeration(pos, neg):
    pos, neg = np.array(pos), np.array(neg)
    for lo, hi in RANGES:
        expected = enumerated_area_var(pos, neg, lo, hi)
        assert exact_partial_area_var(pos, neg, lo, hi) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("pos", "neg"), TINY_DATA)
def test_bootstrap_mean_equals_enumeration(pos, neg):
    pos, neg = np.array(pos), np.array(neg)
    for lo, hi in RANGES:
        expected = enumerated_area_moments(pos, neg, lo, hi)[0]
        assert bootstrap_mean_area(pos, neg, lo, hi) == pytest.approx(expected, abs=1e-13)


def test_bootstrap_mean_of_the_whole_area_is_the_area():
    # the Mann-Whitney statistic is unbiased under the bootstrap too
    rng = np.random.default_rng(8)
    pos, neg = np.round(rng.normal(1, 1, 40), 1), np.round(rng.normal(0, 1, 35), 1)
    area = partial_area(pos, neg, 0.0, 1.0)
    assert bootstrap_mean_area(pos, neg, 0.0, 1.0) == pytest.approx(area, abs=1e-13)


def test_exact_variance_of_a_tpr_range_equals_enumeration():
    # the TPR range is the FPR range of the classes exchanged: check the whole entry point
    pos, neg = [0.5, 0.7, 0.2, 0.5], [0.5, 0.2, 0.9]
    got = rocsim.core.partial_area.partial_auc_ci(
        pos, neg, (0.3, 0.8), focus="tpr", method="exact_bootstrap"
    )
    raw = enumerated_area_var(-np.array(neg), -np.array(pos), 0.2, 0.7)
    assert got.var == pytest.approx(raw * mcclish_scale(0.2, 0.7) ** 2, abs=1e-12)


def test_whole_range_is_the_exact_bootstrap_variance_of_the_auc():
    rng = np.random.default_rng(5)
    pos, neg = np.round(rng.normal(1, 1, 60), 1), np.round(rng.normal(0, 1, 45), 1)
    whole = auc_ci(pos, neg, method="exact_bootstrap").var
    assert exact_partial_area_var(pos, neg, 0.0, 1.0) == pytest.approx(whole, rel=1e-10)


@pytest.mark.parametrize("rates", [(0.0, 0.1), (0.1, 0.5)])
def test_exact_moments_against_monte_carlo(rates):
    # n = 200 per class, scores rounded to ties; the Monte Carlo mean and variance of B
    # resamples against the exact bootstrap mean (the area's bias is largest over a narrow
    # range) and variance
    rng = np.random.default_rng(2027)
    n, b = 200, 20000
    pos, neg = np.round(rng.normal(1, 1, n), 1), np.round(rng.normal(0, 1, n), 1)
    areas = np.array(
        [partial_area(rng.choice(pos, n), rng.choice(neg, n), *rates) for _ in range(b)]
    )
    mean, var = bootstrap_mean_area(pos, neg, *rates), exact_partial_area_var(pos, neg, *rates)
    assert mean != pytest.approx(partial_area(pos, neg, *rates), abs=1e-6)  # a bias to find
    assert_mc_agrees(areas, mean, var)


def test_exact_variance_of_a_degenerate_area_is_zero_not_negative():
    # every positive above every negative: each resample's area up to FPR 0.1 is 0.1; the
    # two moments' difference must not leave a negative rounding error (its root is NaN)
    rng = np.random.default_rng(9)
    for _ in range(20):
        pos, neg = rng.uniform(5, 6, 25), rng.uniform(0, 1, 25)
        for hi in (0.1, 0.3, 1.0):
            assert exact_partial_area_var(pos, neg, 0.0, hi) == 0.0
    y = np.r_[np.ones(25), np.zeros(25)]
    got = rocsim.auc_ci(y, np.r_[pos, neg], max_fpr=0.2, method="exact_bootstrap")
    assert got.low == got.high == got.auc == 1.0
