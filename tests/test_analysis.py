"""The practitioner API (rocsim.analysis) on (y_true, y_score): it must give the core functions'
numbers, agree with a seeded Monte Carlo bootstrap on real data, and answer bad input in one
line."""

from __future__ import annotations

from dataclasses import replace

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest
from enumeration import assert_mc_agrees
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB

import rocsim
from rocsim.analysis._input import thresholds_at_ratio
from rocsim.core.area import auc_ci, auc_difference_ci


@pytest.fixture(scope="module")
def real():
    """Two scikit-learn models scored on the held-out part of the breast cancer data set
    (malignant = 0 in scikit-learn's coding; here the positive class is 'malignant')."""
    x, y = load_breast_cancer(return_X_y=True)
    x_train, x_test, y_train, y_test = train_test_split(
        x, y, test_size=0.5, random_state=0, stratify=y
    )
    logit = LogisticRegression(max_iter=5000).fit(x_train, y_train)
    bayes = GaussianNB().fit(x_train, y_train)
    labels = np.where(y_test == 0, "malignant", "benign")
    # scores of malignancy: a logit and a probability, on different scales
    return (labels, -logit.decision_function(x_test), bayes.predict_proba(x_test)[:, 0])


def split(labels, scores):
    positive = labels == "malignant"
    return scores[positive], scores[~positive]


def test_roc_ci_threshold_is_the_core_threshold_ci(real):
    labels, s1, _ = real
    bands = rocsim.roc_ci(
        labels,
        s1,
        pos_label="malignant",
        thresholds=[2.0, 0.0, -2.0],
        confidence_level=0.9,
        method="agresti",
    )
    core = rocsim.core.threshold_ci(
        *split(labels, s1), [2.0, 0.0, -2.0], confidence_level=0.9, method="agresti"
    )
    frame = bands.to_frame()
    for column in ("fpr", "fpr_low", "fpr_high", "tpr", "tpr_low", "tpr_high"):
        np.testing.assert_array_equal(frame[column], getattr(core, column))
    assert list(frame.columns[:1]) == ["threshold"] and len(frame) == 3


def test_roc_ci_vertical_is_the_core_vertical_ci(real):
    labels, s1, _ = real
    bands = rocsim.roc_ci(labels, s1, pos_label="malignant", averaging="vertical")
    pos, neg = split(labels, s1)
    r = rocsim.core.fpr_ranks(np.linspace(0.01, 0.99, 99), neg.size)
    core = rocsim.core.vertical_ci(pos, neg, r)
    np.testing.assert_array_equal(bands.tpr_low, core.low)
    np.testing.assert_array_equal(bands.tpr_high, core.high)
    # the empirical TPR at FPR r/n-: positives at or above the r-th largest negative
    t = np.sort(neg)[::-1][r - 1]
    np.testing.assert_array_equal(bands.tpr, (pos[:, None] >= t).mean(axis=0))


def test_compare_roc_is_the_core_paired_functions(real):
    labels, s1, s2 = real
    q = np.array([0.2, 0.37, 0.5])
    cmp = rocsim.compare_roc(labels, s1, s2, pos_label="malignant", at=q)
    pos1, neg1 = split(labels, s1)
    pos2, neg2 = split(labels, s2)
    t1, t2 = thresholds_at_ratio(s1, q), thresholds_at_ratio(s2, q)
    core = rocsim.core.threshold_difference_ci(pos1, pos2, neg1, neg2, t1, t2)
    f1, f2 = rocsim.core.dominance_probability(pos1, pos2, neg1, neg2, t1, t2)
    np.testing.assert_array_equal(cmp.dtpr_low, core.dtpr_low)
    np.testing.assert_array_equal(cmp.dfpr_high, core.dfpr_high)
    np.testing.assert_array_equal(cmp.p_first_dominates, f1)
    np.testing.assert_array_equal(cmp.p_second_dominates, f2)
    # each classifier's threshold is the highest putting a share q at or above it (the naive
    # Bayes probabilities tie at 1, so "at or above" may hold more)
    for s, t in ((s1, t1), (s2, t2)):
        assert np.all((s[:, None] >= t).mean(axis=0) >= q)
        assert np.all((s[:, None] > t).mean(axis=0) < q)
    vertical = rocsim.compare_roc(
        labels, s1, s2, pos_label="malignant", averaging="vertical", at=[0.05, 0.2]
    )
    r = rocsim.core.fpr_ranks([0.05, 0.2], neg1.size)
    law = rocsim.core.vertical_difference_ci(pos1, pos2, neg1, neg2, r)
    np.testing.assert_array_equal(vertical.dtpr_low, law.low)
    np.testing.assert_array_equal(vertical.dtpr, law.mean)


def test_cost_functions_are_the_core_cost_functions(real):
    labels, s1, s2 = real
    w = [0.1, 0.5, 0.8]
    bands = rocsim.cost_curve_ci(labels, s1, w=w, pos_label="malignant")
    core = rocsim.core.cost_ci(*split(labels, s1), w, "empirical")
    np.testing.assert_array_equal(bands.low, core.low)
    np.testing.assert_array_equal(bands.threshold, core.thresholds)
    cmp = rocsim.compare_cost(labels, s1, s2, w=w, pos_label="malignant")
    pos1, neg1 = split(labels, s1)
    pos2, neg2 = split(labels, s2)
    core2 = rocsim.core.cost_difference_ci(pos1, pos2, neg1, neg2, w, "empirical", "empirical")
    np.testing.assert_array_equal(cmp.cost_difference, core2.cost)
    np.testing.assert_array_equal(cmp.high, core2.high)


def resample_counts(n: int, b: int, rng) -> np.ndarray:
    idx = rng.integers(0, n, size=(b, n)) + n * np.arange(b)[:, None]
    return np.bincount(idx.ravel(), minlength=b * n).reshape(b, n)


def test_real_data_moments_agree_with_a_seeded_monte_carlo_bootstrap(real):
    # the bootstrap laws behind roc_ci (threshold), compare_roc (threshold) and cost_curve_ci,
    # against B = 20000 stratified resamples of the real test set
    labels, s1, s2 = real
    rng = np.random.default_rng(20091)
    b = 20_000
    positive = labels == "malignant"
    w_pos = resample_counts(positive.sum(), b, rng)
    w_neg = resample_counts((~positive).sum(), b, rng)
    q = 0.37
    t1, t2 = thresholds_at_ratio(s1, np.array([q]))[0], thresholds_at_ratio(s2, np.array([q]))[0]
    pos1, neg1 = split(labels, s1)
    pos2, neg2 = split(labels, s2)
    tpr1 = w_pos @ (pos1 >= t1) / pos1.size
    tpr2 = w_pos @ (pos2 >= t2) / pos2.size
    fpr1 = w_neg @ (neg1 >= t1) / neg1.size
    law = rocsim.core.threshold_distribution(pos1, neg1, [t1])
    assert_mc_agrees(tpr1, law.tpr[0], law.tpr_var[0])
    paired = rocsim.core.threshold_difference_distribution(pos1, pos2, neg1, neg2, [t1], [t2])
    assert_mc_agrees(tpr1 - tpr2, paired.dtpr[0], paired.var_dtpr[0])
    cost = rocsim.cost_curve_ci(
        labels, s1, w=[0.3], thresholds=[t1], pos_label="malignant", method="wald"
    )
    core = rocsim.core.cost_ci(pos1, neg1, [0.3], [t1], method="wald")
    cost1 = 0.3 * (1 - tpr1) + 0.7 * fpr1
    assert_mc_agrees(cost1, core.cost[0], core.var[0])
    np.testing.assert_array_equal(cost.low, core.low)
    cost2 = 0.3 * (1 - tpr2) + 0.7 * (w_neg @ (neg2 >= t2) / neg2.size)
    both = rocsim.compare_cost(
        labels, s1, s2, w=[0.3], thresholds=([t1], [t2]), pos_label="malignant", method="wald"
    )
    core2 = rocsim.core.cost_difference_ci(
        pos1, pos2, neg1, neg2, [0.3], [t1], [t2], method="wald"
    )
    assert_mc_agrees(cost2 - cost1, core2.cost[0], core2.var[0])
    np.testing.assert_array_equal(both.high, core2.high)


def test_labels_in_any_two_values_and_scores_on_any_scale():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 300)
    p = 1 / (1 + np.exp(-(y + rng.normal(0, 1, 300))))
    logit = np.log(p / (1 - p))
    base = rocsim.roc_ci(y, p, averaging="vertical").to_frame()
    # a monotone transform of the scores (probability -> logit) changes nothing but thresholds
    same = rocsim.roc_ci(y, logit, averaging="vertical").to_frame()
    np.testing.assert_allclose(
        base[["fpr", "tpr_low", "tpr_high"]], same[["fpr", "tpr_low", "tpr_high"]]
    )
    for labels, pos_label in (
        (y.astype(bool), None),
        (np.where(y, 1, -1), None),
        (np.where(y, "yes", "no"), "yes"),
        (y + 7, 8),
    ):
        other = rocsim.roc_ci(labels, p, averaging="vertical", pos_label=pos_label).to_frame()
        np.testing.assert_array_equal(other["tpr_low"], base["tpr_low"])


def test_ties_and_five_positives():
    rng = np.random.default_rng(8)
    y = np.r_[np.ones(5, int), np.zeros(400, int)]
    s = np.round(rng.normal(y * 1.5, 1), 1)  # heavy ties
    bands = rocsim.roc_ci(y, s)
    assert np.all((bands.tpr_low <= bands.tpr) & (bands.tpr <= bands.tpr_high))
    assert set(np.round(bands.tpr * 5, 9)) <= set(range(6))
    vertical = rocsim.roc_ci(y, s, averaging="vertical")
    assert np.all(np.isfinite(vertical.tpr_low))
    cost = rocsim.cost_curve_ci(y, s).to_frame()
    np.testing.assert_allclose(
        cost["cost"], rocsim.core.cost_curve(s[y == 1], s[y == 0], cost["w"])
    )
    assert ((cost["low"] <= cost["cost"]) & (cost["cost"] <= cost["high"])).all()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: rocsim.roc_ci([0, 1, 2], [1, 2, 3]), "exactly two classes"),
        (lambda: rocsim.roc_ci(["a", "b"], [1, 2]), "pos_label"),
        (lambda: rocsim.roc_ci([0, 1], [1, 2], pos_label=3), "pos_label 3"),
        (lambda: rocsim.roc_ci([0, 1, 1], [1, 2]), "differ in length"),
        (lambda: rocsim.roc_ci([0, 1], [1, np.nan]), "NaN"),
        (lambda: rocsim.roc_ci([0, None], [1, 2]), "missing label"),
        (
            lambda: rocsim.roc_ci([0, 1], [1, 2], averaging="diagonal"),
            "valid: threshold, vertical",
        ),
        (lambda: rocsim.roc_ci([0, 1, 0], [1, 2, 0], averaging="vertical", at=[1.5]), "between"),
        (lambda: rocsim.compare_roc([0, 1], [1, 2], [1, 2, 3]), "y_score2"),
        (lambda: rocsim.compare_cost([0, 1], [1, 2], [2, 1], thresholds=3), "thresholds"),
    ],
)
def test_bad_input_is_one_line(call, message):
    with pytest.raises(ValueError, match=message) as err:
        call()
    assert "\n" not in str(err.value)


def test_paired_vertical_refuses_large_data_with_a_pointer():
    n = rocsim.analysis.PAIRED_VERTICAL_LIMIT + 1
    y = np.r_[np.ones(n, int), np.zeros(10, int)]
    s = np.arange(y.size, dtype=float)
    with pytest.raises(ValueError, match="averaging='threshold'"):
        rocsim.compare_roc(y, s, s, averaging="vertical")


def test_results_plot_on_given_axes(real):
    labels, s1, s2 = real
    kw = {"pos_label": "malignant"}
    results = [
        rocsim.roc_ci(labels, s1, **kw),
        rocsim.roc_ci(labels, s1, averaging="vertical", **kw),
        rocsim.compare_roc(labels, s1, s2, **kw),
        rocsim.cost_curve_ci(labels, s1, **kw),
        rocsim.compare_cost(labels, s1, s2, **kw),
    ]
    _, axes = plt.subplots(1, len(results))
    for ax, result in zip(axes, results):
        assert result.plot(ax) is ax
        assert ax.has_data()
    assert results[2].plot() is not None  # a new figure when no axes are given
    plt.close("all")


def test_auc_functions_are_the_core_area_functions(real):
    labels, s1, s2 = real
    pos1, neg1 = split(labels, s1)
    pos2, neg2 = split(labels, s2)
    for method in ("delong", "exact_bootstrap"):
        one = rocsim.auc_ci(labels, s1, method=method, pos_label="malignant")
        core = auc_ci(pos1, neg1, confidence_level=0.95, method=method)
        assert (one.auc, one.low, one.high) == (core.auc, core.low, core.high)
        two = rocsim.compare_auc(labels, s1, s2, method=method, pos_label="malignant")
        core2 = auc_difference_ci(pos1, pos2, neg1, neg2, confidence_level=0.95, method=method)
        assert (two.difference, two.p_value) == (core2.difference, core2.p_value)
        assert list(two.to_frame().columns) == [
            "auc1",
            "auc2",
            "difference",
            "var",
            "low",
            "high",
            "p_value",
        ]
    with pytest.raises(ValueError, match="valid: delong, exact_bootstrap"):
        rocsim.auc_ci(labels, s1, method="bootstrap", pos_label="malignant")
    _, ax = plt.subplots()
    assert two.plot(ax) is ax and ax.has_data()
    plt.close("all")


def test_real_data_vertical_moments_agree_with_a_seeded_monte_carlo_bootstrap(real):
    # roc_ci(averaging="vertical") and compare_roc(averaging="vertical") rest on the laws of
    # TPR and TPR1 - TPR2 at FPR r/n-: check them against 4000 stratified resamples in which
    # the threshold is the r-th largest resampled negative score (same resample for both)
    labels, s1, s2 = real
    pos1, neg1 = split(labels, s1)
    pos2, neg2 = split(labels, s2)
    r = rocsim.core.fpr_ranks([0.05, 0.2], neg1.size)
    rng = np.random.default_rng(77)
    b = 4000
    draws = np.empty((b, 2, r.size))
    for k in range(b):
        i, j = rng.integers(0, pos1.size, pos1.size), rng.integers(0, neg1.size, neg1.size)
        for c, (pos, neg) in enumerate(((pos1, neg1), (pos2, neg2))):
            t = np.sort(neg[j])[::-1][r - 1]
            draws[k, c] = (pos[i][:, None] >= t).mean(axis=0)
    law = rocsim.core.vertical_distribution(pos1, neg1, r)
    paired = rocsim.core.vertical_difference(pos1, pos2, neg1, neg2, r)
    for col in range(r.size):
        assert_mc_agrees(draws[:, 0, col], law.mean[col], law.var[col])
        assert_mc_agrees(draws[:, 0, col] - draws[:, 1, col], paired.mean[col], paired.var[col])


def _paired_scores(n: int = 120, seed: int = 8):
    rng = np.random.default_rng(seed)
    y = np.r_[np.ones(n), np.zeros(n)]
    shared = rng.normal(size=2 * n)
    first = y + 0.8 * shared + 0.6 * rng.normal(size=2 * n)
    second = 0.5 * y + 0.8 * shared + 0.6 * rng.normal(size=2 * n)
    return y, first, second


@pytest.mark.parametrize("averaging", ["vertical", "horizontal"])
def test_bonferroni_comparison_is_the_pointwise_one_at_alpha_over_k(averaging):
    y, first, second = _paired_scores()
    at = [0.1, 0.3, 0.5, 0.7]
    band = rocsim.compare_roc(y, first, second, averaging=averaging, at=at, band="bonferroni")
    pointwise = rocsim.compare_roc(
        y, first, second, averaging=averaging, at=at, confidence_level=1 - 0.05 / 4
    )
    got, expected = band.to_frame(), pointwise.to_frame()
    for column in [c for c in got.columns if c.endswith(("_low", "_high"))]:
        np.testing.assert_array_equal(got[column], expected[column])
    assert got.attrs["band"] == "bonferroni" and got.attrs["confidence_level"] == 0.95
    assert got.attrs["pointwise_level"] == pytest.approx(1 - 0.05 / 4)
    assert "bonferroni band" in repr(band) and band.overall in repr(band)


def test_overall_says_what_the_points_say_together():
    y, first, second = _paired_scores()
    cmp = rocsim.compare_roc(y, first, second, averaging="vertical", at=[0.2, 0.5])
    cases = {
        ("first better", "first better"): "first better everywhere",
        ("first better", "no difference"): "first better somewhere",
        ("no difference", "second better"): "second better somewhere",
        ("first better", "second better"): "mixed",
        ("no difference", "no difference"): "no difference",
    }
    for verdicts, expected in cases.items():
        assert replace(cmp, verdict=np.array(verdicts)).overall == expected


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"averaging": "vertical", "band": "simultaneous", "method": "score"}, "method="),
        ({"averaging": "threshold", "band": "bonferroni"}, "needs averaging='vertical'"),
        ({"averaging": "threshold", "band": "simultaneous"}, "needs averaging='vertical'"),
        ({"averaging": "vertical", "band": "sup"}, "band"),
    ],
)
def test_comparison_band_bad_input(kwargs, message):
    y, first, second = _paired_scores(30)
    with pytest.raises(ValueError, match=message):
        rocsim.compare_roc(y, first, second, at=[0.5], **kwargs)
