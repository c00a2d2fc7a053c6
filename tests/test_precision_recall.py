"""Precision-recall curves (rocsim.core.precision_recall) against independent oracles.

Oracles: (a) every stratified bootstrap resample of tiny data sets, as multinomial count vectors
with exact Fraction probabilities; (b) a seeded Monte Carlo bootstrap on realistic data;
(c) dense quantiles of the exact pmf built with scipy.stats.binom; (d) the interval formulas
written out by hand.

Conventions: predicted positive means ``score >= threshold``. Vertical averaging at recall
``r/m+``: the threshold is the ``r``-th largest resampled positive (counting multiplicity) and
``precision = r / (r + FP)``, ``FP`` the resampled negatives scoring ``>=`` it. Threshold
averaging: ``precision = TP / (TP + FP)`` given ``TP + FP > 0``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pytest
from enumeration import assert_mc_agrees, multinomial_law
from scipy import stats

from rocsim.analysis import PRBands, pr_ci
from rocsim.core.precision_recall import (
    PR_METHODS,
    PRCI,
    PRDistribution,
    PRThresholdCI,
    pr_curve,
    pr_distribution,
    pr_threshold_ci,
    pr_threshold_distribution,
)
from rocsim.core.precision_recall import (
    pr_ci as core_pr_ci,
)

# (pos, neg): tiny data sets without ties, with ties within a class and across the classes
TINY_DATA = [
    pytest.param([0.9, 0.6, 0.3], [0.8, 0.5, 0.1], id="3x3-no-ties"),
    pytest.param([3.0, 2.0, 1.0, 0.5], [2.5, 1.5, 0.7], id="4x3-no-ties"),
    pytest.param([0.9, 0.6, 0.3], [0.8, 0.5, 0.1, 0.05], id="3x4-no-ties"),
    pytest.param([0.8, 0.8, 0.2], [0.9, 0.5, 0.1], id="3x3-ties-pos"),
    pytest.param([0.9, 0.3, 0.6], [0.5, 0.5, 0.2], id="3x3-ties-neg"),
    pytest.param([0.5, 0.7, 0.2, 0.5], [0.5, 0.2, 0.9], id="4x3-ties-across"),
    pytest.param([2.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, -1.0], id="4x4-ties"),
    pytest.param([0.7, 0.7, 0.7], [0.7, 0.7, 0.1], id="3x3-all-tied-at-top"),
]
LEVEL = 0.9


# --- brute-force enumeration of resamples ------------------------------------------------------


def rth_largest(scores, counts, r):
    """The ``r``-th largest score of a resample, counting multiplicity."""
    expanded = sorted((s for s, c in zip(scores, counts) for _ in range(c)), reverse=True)
    return expanded[r - 1]


def count_law(scores, t):
    """{#resampled scores >= t: probability} over all resamples of ``scores``."""
    law = {}
    for counts, p in multinomial_law(len(scores)):
        k = sum(c for c, s in zip(counts, scores) if s >= t)
        law[k] = law.get(k, 0) + p
    return law


def vertical_fp_law(pos, neg, r):
    """{FP: probability} at recall r / n+, over all stratified resamples."""
    law = {}
    for counts, p in multinomial_law(len(pos)):
        for fp, q in count_law(neg, rth_largest(pos, counts, r)).items():
            law[fp] = law.get(fp, 0) + p * q
    assert sum(law.values()) == 1
    return law


def threshold_joint_law(pos, neg, t):
    """{(TP, FP): probability} at threshold t, over all stratified resamples."""
    tp_law, fp_law = count_law(pos, t), count_law(neg, t)
    return {(a, b): pa * pb for a, pa in tp_law.items() for b, pb in fp_law.items()}


def moments(law):
    """Exact mean and variance of {value: probability}."""
    mean = sum(p * v for v, p in law.items())
    return mean, sum(p * (v - mean) ** 2 for v, p in law.items())


def exact_quantile(law, p):
    """Smallest value ``v`` with ``Pr{X <= v} >= p`` (with the rocsim 1e-12 slack)."""
    total = 0
    for v in sorted(law):
        total += law[v]
        if total >= p - 1e-12:
            return v
    return max(law)


def thresholds_for(pos, neg):
    """Every score, -inf and a threshold between scores (above every score there is no
    precision: refused, see test_threshold_edges_no_positive_and_no_prediction)."""
    return [*sorted(set(pos) | set(neg)), -np.inf, 0.55]


# --- 1. exact laws against enumeration ----------------------------------------------------------


@pytest.mark.parametrize(("pos", "neg"), TINY_DATA)
def test_vertical_law_equals_enumeration_of_all_resamples(pos, neg):
    ranks = list(range(1, len(pos) + 1))
    law = pr_distribution(pos, neg, ranks)
    assert law.pmf.shape == (len(ranks), len(neg) + 1)
    np.testing.assert_allclose(law.pmf.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    for i, r in enumerate(ranks):
        fp_law = vertical_fp_law(pos, neg, r)
        want = [float(fp_law.get(j, 0)) for j in range(len(neg) + 1)]
        np.testing.assert_allclose(law.pmf[i], want, rtol=0, atol=1e-12, err_msg=f"r={r}")
        precision = {}
        for j, p in fp_law.items():
            precision[Fraction(r, r + j)] = precision.get(Fraction(r, r + j), 0) + p
        mean, var = moments(precision)
        assert law.mean[i] == pytest.approx(float(mean), abs=1e-12), r
        assert law.var[i] == pytest.approx(float(var), abs=1e-12), r
        fp_mean, fp_var = moments(fp_law)
        assert law.fp_mean[i] == pytest.approx(float(fp_mean), abs=1e-12)
        assert law.fp_var[i] == pytest.approx(float(fp_var), abs=1e-12)
        for q in (0.05, 0.3, 0.5, 0.95):
            assert law.quantile(q)[i] == float(exact_quantile(precision, q)), (r, q)
        # the data's precision: the r-th largest positive, every negative at or above it
        t = sorted(pos, reverse=True)[r - 1]
        assert law.precision[i] == r / (r + sum(s >= t for s in neg))


@pytest.mark.parametrize(("pos", "neg"), TINY_DATA)
def test_threshold_law_equals_enumeration_of_all_resamples(pos, neg):
    thresholds = thresholds_for(pos, neg)
    law = pr_threshold_distribution(pos, neg, thresholds)
    for i, t in enumerate(thresholds):
        joint = threshold_joint_law(pos, neg, t)
        undefined = joint.get((0, 0), 0)
        assert law.p_undefined[i] == pytest.approx(float(undefined), abs=1e-12)
        recall = {}
        for (a, _), p in joint.items():
            recall[Fraction(a, len(pos))] = recall.get(Fraction(a, len(pos)), 0) + p
        assert law.recall_var[i] == pytest.approx(float(moments(recall)[1]), abs=1e-12)
        precision = {}
        for (a, b), p in joint.items():
            if a + b > 0:
                v = Fraction(a, a + b)
                precision[v] = precision.get(v, 0) + p / (1 - undefined)
        mean, var = moments(precision)
        assert law.mean[i] == pytest.approx(float(mean), abs=1e-12), t
        assert law.var[i] == pytest.approx(float(var), abs=1e-12), t
        values, probs = law.precision_pmf(i)
        assert values.tolist() == [float(v) for v in sorted(precision)]
        np.testing.assert_allclose(
            probs, [float(precision[v]) for v in sorted(precision)], atol=1e-12
        )
        for q in (0.05, 0.3, 0.5, 0.95):
            assert law.quantile(q)[i] == float(exact_quantile(precision, q)), (t, q)


def test_rows_follow_the_order_of_r_and_of_thresholds_repeats_included():
    pos, neg = [0.5, 0.7, 0.2, 0.5], [0.5, 0.2, 0.9]
    law = pr_distribution(pos, neg, [3, 1, 3, 2])
    alone = [pr_distribution(pos, neg, [r]) for r in (3, 1, 3, 2)]
    np.testing.assert_array_equal(law.r, [3, 1, 3, 2])
    for i, one in enumerate(alone):
        assert law.mean[i] == one.mean[0] and law.var[i] == one.var[0]
        np.testing.assert_array_equal(law.pmf[i], one.pmf[0])
    tl = pr_threshold_distribution(pos, neg, [0.5, 0.2, 0.5])
    np.testing.assert_array_equal(tl.thresholds, [0.5, 0.2, 0.5])
    assert tl.mean[0] == tl.mean[2] != tl.mean[1]


def test_empirical_curve_counts_every_threshold():
    recall, precision, thresholds = pr_curve([0.9, 0.5, 0.5], [0.5, 0.1])
    assert thresholds.tolist() == [0.9, 0.5, 0.1]
    assert recall.tolist() == [1 / 3, 1.0, 1.0]
    assert precision.tolist() == [1.0, 0.75, 0.6]


# --- 2. seeded Monte Carlo bootstrap ------------------------------------------------------------

MC_B = 100_000
MC_RANKS = [2, 20, 100, 180, 200]
MC_THRESHOLDS = [2.5, 1.0, 0.0, -1.5]


@pytest.fixture(scope="module")
def binormal():
    rng = np.random.default_rng(20090401)
    pos = np.round(rng.normal(1.0, 1.0, 200), 2)  # rounding adds ties, also across classes
    neg = np.round(rng.normal(0.0, 1.0, 200), 2)
    assert np.unique(pos).size < pos.size and np.intersect1d(pos, neg).size > 0
    return pos, neg


def monte_carlo(pos, neg, ranks, thresholds, b, seed, chunk=10_000):
    """``b`` stratified bootstrap precisions at each recall rank and at each threshold."""
    rng = np.random.default_rng(seed)
    vertical = np.empty((len(ranks), b))
    threshold = np.empty((len(thresholds), b))
    for start in range(0, b, chunk):
        size = min(chunk, b - start)
        pos_desc = -np.sort(-pos[rng.integers(0, pos.size, size=(size, pos.size))], axis=1)
        neg_boot = neg[rng.integers(0, neg.size, size=(size, neg.size))]
        for i, r in enumerate(ranks):
            fp = (neg_boot >= pos_desc[:, r - 1, None]).sum(axis=1)
            vertical[i, start : start + size] = r / (r + fp)
        for i, t in enumerate(thresholds):
            tp, fp = (pos_desc >= t).sum(axis=1), (neg_boot >= t).sum(axis=1)
            # the law is conditional on TP + FP > 0: undefined resamples are left out (NaN)
            threshold[i, start : start + size] = np.where(
                tp + fp > 0, tp / np.maximum(tp + fp, 1), np.nan
            )
    return vertical, threshold


def check_quantiles(sample, exact_low, exact_high, level):
    """The exact percentile bounds against the Monte Carlo ones: within the quantiles of the
    sample at levels moved by 4 Monte Carlo standard errors of a proportion."""
    tail = (1 - level) / 2
    se = 4 * math.sqrt(tail * (1 - tail) / sample.size)
    for exact, p in ((exact_low, tail), (exact_high, 1 - tail)):
        lo, hi = np.quantile(sample, [p - se, p + se], method="inverted_cdf")
        assert lo <= exact <= hi, (p, lo, exact, hi)


def test_monte_carlo_bootstrap_agrees_with_the_exact_laws(binormal):
    pos, neg = binormal
    vertical, threshold = monte_carlo(pos, neg, MC_RANKS, MC_THRESHOLDS, MC_B, seed=7)
    law = pr_distribution(pos, neg, MC_RANKS)
    ci = law.ci(0.95, "percentile")
    for i in range(len(MC_RANKS)):
        assert_mc_agrees(vertical[i], law.mean[i], law.var[i])
        check_quantiles(vertical[i], ci.low[i], ci.high[i], 0.95)
    tlaw = pr_threshold_distribution(pos, neg, MC_THRESHOLDS)
    tci = tlaw.ci(0.95, "percentile")
    for i, _ in enumerate(MC_THRESHOLDS):
        defined = threshold[i][~np.isnan(threshold[i])]
        assert 1 - defined.size / MC_B <= tlaw.p_undefined[i] + 4 * math.sqrt(
            tlaw.p_undefined[i] / MC_B
        )
        assert_mc_agrees(defined, tlaw.mean[i], tlaw.var[i])
        check_quantiles(defined, tci.low[i], tci.high[i], tci.axis_level)


# --- 3. interval methods ------------------------------------------------------------------------


def dense_vertical_pmf(law) -> np.ndarray:
    """``Pr{FP = j}`` from scipy.stats.binom on every band component, densely."""
    support = np.arange(law.m_neg + 1)
    pmf = stats.binom.pmf(support[None, None, :], law.m_neg, law._q[:, :, None])
    return np.einsum("ic,icl->il", law._w, pmf)


def dense_threshold_law(tp, fp, n_pos, n_neg):
    """Sorted precision values and probabilities given TP + FP > 0, every (TP, FP) cell."""
    pa = stats.binom.pmf(np.arange(n_pos + 1), n_pos, tp / n_pos)
    pb = stats.binom.pmf(np.arange(n_neg + 1), n_neg, fp / n_neg)
    a, b = np.meshgrid(np.arange(n_pos + 1), np.arange(n_neg + 1), indexing="ij")
    defined = (a + b) > 0
    values = a[defined] / (a[defined] + b[defined])
    mass = np.outer(pa, pb)[defined]
    order = np.argsort(values, kind="stable")
    return values[order], mass[order] / mass.sum()


def dense_quantile(values, probs, p):
    return values[np.argmax(np.cumsum(probs) >= p - 1e-12)]


@pytest.mark.parametrize("ties", [False, True])
def test_percentile_bounds_are_the_dense_quantiles_of_the_exact_pmf(ties):
    rng = np.random.default_rng(30 + ties)
    tail = (1 - LEVEL) / 2
    for _ in range(25):
        n_pos, n_neg = rng.integers(2, 25), rng.integers(2, 25)
        pos, neg = rng.normal(0.8, 1, n_pos), rng.normal(0, 1, n_neg)
        if ties:
            pos, neg = np.round(pos * 2) / 2, np.round(neg * 2) / 2
        r = np.arange(1, n_pos + 1)
        ci = core_pr_ci(pos, neg, r, confidence_level=LEVEL, method="percentile")
        pmf = dense_vertical_pmf(ci.law)
        # precision ascending is FP descending
        cdf = np.cumsum(pmf[:, ::-1], axis=1)
        j_low = n_neg - np.argmax(cdf >= tail - 1e-12, axis=1)
        j_high = n_neg - np.argmax(cdf >= 1 - tail - 1e-12, axis=1)
        np.testing.assert_array_equal(ci.low, r / (r + j_low))
        np.testing.assert_array_equal(ci.high, r / (r + j_high))
        t = np.quantile(np.concatenate([pos, neg]), [0.1, 0.4, 0.7, 0.95])
        tci = pr_threshold_ci(pos, neg, t, confidence_level=LEVEL, method="percentile")
        axis_tail = (1 - math.sqrt(LEVEL)) / 2
        for i in range(t.size):
            values, probs = dense_threshold_law(tci.law.tp[i], tci.law.fp[i], n_pos, n_neg)
            assert tci.low[i] == dense_quantile(values, probs, axis_tail)
            assert tci.high[i] == dense_quantile(values, probs, 1 - axis_tail)
            recall = stats.binom.pmf(np.arange(n_pos + 1), n_pos, tci.recall[i])
            support = np.arange(n_pos + 1) / n_pos
            assert tci.recall_low[i] == dense_quantile(support, recall, axis_tail)
            assert tci.recall_high[i] == dense_quantile(support, recall, 1 - axis_tail)


def test_wald_and_score_by_hand_and_score_contains_the_mean(binormal):
    pos, neg = binormal
    z = stats.norm.ppf(0.5 + LEVEL / 2)
    r = np.arange(1, pos.size + 1)
    law = pr_distribution(pos, neg, r)
    e, v = law.mean, law.var
    wald = law.ci(LEVEL, "wald")
    np.testing.assert_allclose(wald.low, np.clip(e - z * np.sqrt(v), 0, 1), atol=1e-14)
    np.testing.assert_allclose(wald.high, np.clip(e + z * np.sqrt(v), 0, 1), atol=1e-14)
    score = core_pr_ci(pos, neg, r, confidence_level=LEVEL)  # score is the default
    assert score.method == "score"
    m = r / e  # our reading: the predicted positives that make e a share of r true positives
    centre = e + z**2 / (2 * m)
    half = z * np.sqrt(v + z**2 / (4 * m**2))
    np.testing.assert_allclose(score.low, np.clip((centre - half) / (1 + z**2 / m), 0, 1))
    np.testing.assert_allclose(score.high, np.clip((centre + half) / (1 + z**2 / m), 0, 1))
    assert np.all(score.low <= e) and np.all(e <= score.high)
    for method in PR_METHODS:
        ci = law.ci(LEVEL, method)
        assert np.all((ci.low >= 0) & (ci.low <= ci.high) & (ci.high <= 1))
    t = np.linspace(-2, 3, 11)
    tlaw = pr_threshold_distribution(pos, neg, t)
    tci = tlaw.ci(LEVEL, "score")
    assert np.all(tci.low <= tlaw.mean) and np.all(tlaw.mean <= tci.high)
    # the recall axis is ROC threshold averaging's TPR axis, at sqrt(level)
    from rocsim.core.threshold import rate_intervals

    want = rate_intervals(tlaw.tp, pos.size, pos.size, math.sqrt(LEVEL), "score", None)
    np.testing.assert_array_equal(tci.recall_low, want.low)
    np.testing.assert_array_equal(tci.recall_high, want.high)


def test_threshold_edges_no_positive_and_no_prediction():
    pos, neg = [0.9, 0.4, 0.3], [0.8, 0.7, 0.2]
    with pytest.raises(ValueError, match=r"thresholds \[10.0\] are above every score"):
        pr_threshold_ci(pos, neg, [0.85, 10.0], confidence_level=LEVEL)
    ci = pr_threshold_ci(pos, neg, [0.85, 0.75], confidence_level=LEVEL)
    # t = 0.85: one positive, no negative -> precision 1 surely (when defined)
    assert ci.precision[0] == 1.0 and ci.mean[0] == 1.0 and ci.var[0] == 0.0
    for method in ("wald", "percentile"):
        assert ci.law.ci(LEVEL, method).low[0] == ci.law.ci(LEVEL, method).high[0] == 1.0
    # the score interval at e = 1, v = 0 is Wilson's at x = m: [m / (m + z^2), 1]
    z2 = stats.norm.ppf(0.5 + math.sqrt(LEVEL) / 2) ** 2
    m = 1 / (1 - (2 / 3) ** 3)  # E[TP | TP > 0] with TP ~ Bin(3, 1/3), over e = 1
    assert ci.low[0] == pytest.approx(m / (m + z2), abs=1e-15) and ci.high[0] == 1.0
    tl = pr_threshold_distribution([0.1, 0.2], [0.5, 0.6], [0.4])  # TP = 0 surely
    assert tl.mean[0] == 0.0 and tl.var[0] == 0.0
    assert tl.ci(LEVEL).low[0] == tl.ci(LEVEL).high[0] == 0.0


def test_recall_one_and_a_single_positive():
    law = pr_distribution([0.4], [0.9, 0.1], [1])
    # the threshold is the only positive; FP ~ Bin(2, 1/2)
    np.testing.assert_allclose(law.pmf, [[0.25, 0.5, 0.25]], atol=1e-15)
    assert law.mean[0] == pytest.approx(0.25 + 0.5 / 2 + 0.25 / 3, abs=1e-15)


# --- 4. bad input -------------------------------------------------------------------------------


def test_unknown_method_names_the_valid_ones():
    with pytest.raises(
        ValueError, match=r"unknown precision interval method 'exact'.*score.*wald.*percentile"
    ):
        core_pr_ci([1, 2], [0, 1], [1], method="exact")
    with pytest.raises(ValueError, match=r"score.*wald.*percentile"):
        pr_threshold_ci([1, 2], [0, 1], [1.0], method="agresti")
    with pytest.raises(ValueError, match="percentile"):
        pr_ci([1, 0, 1, 0], [0.9, 0.1, 0.8, 0.3], method="nope")


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: pr_ci([1, 0, 1, 0], [0.9, 0.1, 0.8, 0.3], at=[0.5, 1.0]), "at"),
        (lambda: pr_ci([1, 0, 1, 0], [0.9, 0.1, 0.8, 0.3], at=[0.0]), "at"),
        (lambda: pr_ci([1, 1, 1], [0.9, 0.1, 0.8]), "y_true"),
        (lambda: pr_ci([1, 0, 1, 0], [0.9, np.nan, 0.8, 0.3]), "y_score"),
        (lambda: pr_ci([1, 0, 1, 0], [0.9, 0.1, 0.8, 0.3], averaging="diagonal"), "averaging"),
        (lambda: pr_ci([1, 0], [0.9, 0.1], thresholds=[0.5]), "thresholds"),
        (lambda: pr_ci([1, 0], [0.9, 0.1], averaging="threshold", at=[1.5]), "at"),
        (lambda: pr_ci([1, 0], [0.9, 0.1], confidence_level=1.0), "confidence_level"),
        (lambda: pr_distribution([0.9, np.nan], [0.1], [1]), "pos_scores"),
        (lambda: pr_distribution([0.9], [], [1]), "neg_scores"),
        (lambda: pr_distribution([0.9, 0.8], [0.1], [3]), "r"),
        (lambda: pr_distribution([0.9, 0.8], [0.1], [0]), "r"),
        (lambda: pr_distribution([0.9, 0.8], [0.1], [1.5]), "r"),
        (lambda: pr_threshold_distribution([0.9], [0.1], [np.nan]), "thresholds"),
        (lambda: pr_threshold_distribution([0.9], [0.1], []), "thresholds"),
    ],
)
def test_bad_input_is_a_value_error_naming_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --- 5. the practitioner function and the plot --------------------------------------------------


@pytest.fixture(scope="module")
def labelled(binormal):
    pos, neg = binormal
    y = np.r_[np.ones(pos.size, dtype=int), np.zeros(neg.size, dtype=int)]
    return y, np.r_[pos, neg]


def test_pr_ci_vertical_contract(labelled):
    y, s = labelled
    result = pr_ci(y, s, at=[0.1, 0.5, 0.5, 0.9], averaging="vertical")
    assert isinstance(result, PRBands) and isinstance(result.ci, PRCI)
    frame = result.to_frame()
    assert list(frame.columns[:4]) == ["recall", "precision", "low", "high"]
    assert len(frame) == 4 and frame["at"].tolist() == [0.1, 0.5, 0.5, 0.9]
    assert frame["recall"].tolist() == [0.1, 0.5, 0.5, 0.9]  # r/n+ with n+ = 200
    for moment in (result.law.mean, result.law.var):
        assert isinstance(moment, np.ndarray) and moment.dtype == float and moment.shape == (4,)
    core = core_pr_ci(s[y == 1], s[y == 0], [20, 100, 100, 180])
    np.testing.assert_array_equal(frame["low"], core.low)
    np.testing.assert_array_equal(frame["high"], core.high)
    assert "precision at 4 recalls" in repr(result)
    default = pr_ci(y, s)
    assert len(default.to_frame()) == 99 and isinstance(default.law, PRDistribution)


def test_pr_ci_threshold_averaging(labelled):
    y, s = labelled
    result = pr_ci(y, s, averaging="threshold", at=[0.2, 0.5], confidence_level=0.9)
    assert isinstance(result, PRBands) and isinstance(result.ci, PRThresholdCI)
    frame = result.to_frame()
    assert list(frame.columns[:6]) == [
        "recall",
        "precision",
        "low",
        "high",
        "recall_low",
        "recall_high",
    ]
    assert frame["q"].tolist() == [0.2, 0.5]
    # the threshold puts a share q of all instances at or above it (ties can add more)
    assert [np.mean(s >= t) >= q for t, q in zip(frame["threshold"], frame["q"])] == [True] * 2
    given = pr_ci(y, s, averaging="threshold", thresholds=[0.5, 1.0])
    assert given.threshold.tolist() == [0.5, 1.0] and given.q is None
    assert len(pr_ci(y, s, averaging="threshold").to_frame()) == 99


@pytest.mark.parametrize("averaging", ["vertical", "threshold"])
def test_plot_draws_the_curve_and_its_intervals(labelled, averaging):
    y, s = labelled
    result = pr_ci(y, s, averaging=averaging)
    fig, ax = plt.subplots()
    assert result.plot(ax=ax) is ax
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("95%" in label for label in labels) and ax.get_xlabel() == "Recall"
    plt.close(fig)
    ax = result.plot()
    plt.close(ax.figure)


# --- 6. large data ------------------------------------------------------------------------------


def test_large_data_smoke():
    rng = np.random.default_rng(5)
    pos, neg = rng.normal(1, 1, 3000), rng.normal(0, 1, 4000)
    r = np.unique(np.rint(np.linspace(0.01, 1.0, 25) * pos.size)).astype(int)
    law = pr_distribution(pos, neg, r)
    assert np.all(np.isfinite(law.mean)) and np.all(law.var > 0)
    ci = law.ci(0.95, "percentile")
    assert np.all(ci.low <= law.mean) and np.all(law.mean <= ci.high)
    tci = pr_threshold_ci(pos, neg, np.linspace(-1, 2, 7), method="percentile")
    assert np.all(tci.low <= tci.mean) and np.all(tci.mean <= tci.high)


def test_a_method_of_your_own_is_called_on_the_law():
    def plus_minus(law, level):
        return law.mean - 0.1, law.mean + 0.1

    pos, neg = [0.9, 0.8, 0.3, 0.6], [0.7, 0.5, 0.2, 0.1]
    ci = core_pr_ci(pos, neg, [1, 2, 4], method=plus_minus)
    np.testing.assert_allclose(ci.low, np.clip(ci.mean - 0.1, 0, 1))
    assert ci.method.endswith("plus_minus") and ci.clipped.tolist() == [True, True, False]
    tci = pr_threshold_ci(pos, neg, [0.55], method=plus_minus)
    np.testing.assert_allclose([tci.recall_low[0], tci.recall_high[0]], [0.65, 0.85])
