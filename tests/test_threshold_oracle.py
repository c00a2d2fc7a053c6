"""The exact bootstrap law of (FPR, TPR) at a threshold, against enumeration of all resamples.

Oracles: (a, b) every bootstrap resample of tiny data sets, as multinomial count vectors with
exact Fraction probabilities; (c) a seeded Monte Carlo bootstrap on realistic data.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest
from enumeration import assert_mc_agrees, multinomial_law
from scipy import stats

from rocsim.core import proportion_ci, threshold_ci, threshold_distribution

# (pos, neg): ties within a class and across the classes
TINY_DATA = [
    ([0.9, 0.5, 0.5], [0.5, 0.3, 0.1]),
    ([2.0, 1.0], [1.0, 0.0, -1.0]),
    ([1.0, 1.0, 1.0], [1.0, 0.0]),
]
EXTRA_THRESHOLDS = [np.inf, -np.inf, 0.7, 0.05, 100.0, -100.0, 0.5000001]


def thresholds_for(pos, neg):
    return np.array(sorted(set(pos) | set(neg)) + EXTRA_THRESHOLDS)


def stratified_law(pos, neg, t):
    """{(FPR, TPR): probability} over all stratified resamples."""
    law = {}
    for cp, pp in multinomial_law(len(pos)):
        tpr = Fraction(sum(c for c, s in zip(cp, pos) if s >= t), len(pos))
        for cn, pn in multinomial_law(len(neg)):
            fpr = Fraction(sum(c for c, s in zip(cn, neg) if s >= t), len(neg))
            law[(fpr, tpr)] = law.get((fpr, tpr), 0) + pp * pn
    return law


def full_law(pos, neg, t):
    """{(FPR, TPR): probability} over all resamples of the pooled set, empty classes dropped."""
    scores = list(pos) + list(neg)
    is_pos = [True] * len(pos) + [False] * len(neg)
    law, kept = {}, Fraction(0)
    for counts, prob in multinomial_law(len(scores)):
        n_pos = sum(c for c, y in zip(counts, is_pos) if y)
        n_neg = len(scores) - n_pos
        if n_pos == 0 or n_neg == 0:
            continue
        tp = sum(c for c, y, s in zip(counts, is_pos, scores) if y and s >= t)
        fp = sum(c for c, y, s in zip(counts, is_pos, scores) if not y and s >= t)
        key = (Fraction(fp, n_neg), Fraction(tp, n_pos))
        law[key] = law.get(key, 0) + prob
        kept += prob
    return {k: v / kept for k, v in law.items()}


def moments(law, axis):
    mean = sum(p * k[axis] for k, p in law.items())
    var = sum(p * (k[axis] - mean) ** 2 for k, p in law.items())
    return float(mean), float(var)


def assert_same_law(got, want):
    assert sum(got.values()) == pytest.approx(1.0, abs=1e-12)
    for key in set(got) | set(want):
        assert got.get(key, 0.0) == pytest.approx(float(want.get(key, 0)), abs=1e-12), key


@pytest.mark.parametrize(
    ("bootstrap", "oracle"), [("stratified", stratified_law), ("full", full_law)]
)
@pytest.mark.parametrize(("pos", "neg"), TINY_DATA)
def test_joint_law_and_moments_by_enumeration(pos, neg, bootstrap, oracle):
    thresholds = thresholds_for(pos, neg)
    law = threshold_distribution(pos, neg, thresholds, bootstrap=bootstrap)
    assert law.bootstrap == bootstrap
    for j, t in enumerate(thresholds):
        want = oracle(pos, neg, t)
        assert_same_law(law.joint_pmf(j), want)
        fpr_mean, fpr_var = moments(want, 0)
        tpr_mean, tpr_var = moments(want, 1)
        assert law.tpr[j] == pytest.approx(tpr_mean, abs=1e-12)
        assert law.fpr[j] == pytest.approx(fpr_mean, abs=1e-12)
        assert law.tpr_var[j] == pytest.approx(tpr_var, abs=1e-12)
        assert law.fpr_var[j] == pytest.approx(fpr_var, abs=1e-12)


def test_full_bootstrap_tpr_and_fpr_are_uncorrelated_but_dependent():
    pos, neg, t = [2.0, 0.5], [1.0, 0.0, -1.0], 0.8  # TPR 1/2, FPR 1/3: neither degenerate
    law = full_law(pos, neg, t)
    fm, _ = moments(law, 0)
    tm, _ = moments(law, 1)
    cov = sum(p * (k[0] - Fraction(fm)) * (k[1] - Fraction(tm)) for k, p in law.items())
    assert float(cov) == pytest.approx(0.0, abs=1e-12)
    # not independent: the joint law is not the product of its margins
    f_marg, t_marg = {}, {}
    for (f, t), p in law.items():
        f_marg[f] = f_marg.get(f, 0) + p
        t_marg[t] = t_marg.get(t, 0) + p
    gaps = [
        abs(law.get((f, t), 0) - pf * pt) for f, pf in f_marg.items() for t, pt in t_marg.items()
    ]
    assert max(gaps) > 1e-3
    # and rocsim's law is that same, non-product law
    got = threshold_distribution(pos, neg, [t], bootstrap="full").joint_pmf(0)
    assert_same_law(got, law)


def test_full_bootstrap_effective_size_by_hand():
    # 2 positives, 3 negatives: N+ ~ Bin(5, 2/5) given 1 <= N+ <= 4
    pmf = {
        k: Fraction(math.comb(5, k)) * Fraction(2, 5) ** k * Fraction(3, 5) ** (5 - k)
        for k in range(1, 5)
    }
    total = sum(pmf.values())
    e_inv_pos = sum(p / total / k for k, p in pmf.items())
    e_inv_neg = sum(p / total / (5 - k) for k, p in pmf.items())
    law = threshold_distribution([2.0, 1.0], [1.0, 0.0, -1.0], [1.0], bootstrap="full")
    assert law.effective_pos == pytest.approx(float(1 / e_inv_pos), rel=1e-13)
    assert law.effective_neg == pytest.approx(float(1 / e_inv_neg), rel=1e-13)
    # tpr_var = p(1-p) / effective_pos with p = 1 (both positives >= 1) -> 0
    assert law.tpr_var[0] == 0.0
    assert law.fpr_var[0] == pytest.approx(
        float(Fraction(1, 3) * Fraction(2, 3) * e_inv_neg), rel=1e-13
    )


# (c) seeded Monte Carlo bootstrap on realistic data -------------------------------------------

B = 20000


@lru_cache(maxsize=1)
def realistic_data():
    rng = np.random.default_rng(20090101)
    pos = np.round(rng.normal(1.0, 1.0, 200), 2)  # rounding adds ties
    neg = np.round(rng.normal(0.0, 1.0, 200), 2)
    thresholds = np.quantile(np.concatenate([pos, neg]), [0.02, 0.2, 0.5, 0.8, 0.97])
    return pos, neg, thresholds


def mc_rates(pos, neg, thresholds, bootstrap, seed):
    """B bootstrap (FPR, TPR) at each threshold, shape (B, h) each."""
    rng = np.random.default_rng(seed)
    if bootstrap == "stratified":
        ip = rng.integers(0, pos.size, size=(B, pos.size))
        ineg = rng.integers(0, neg.size, size=(B, neg.size))
        tpr = np.stack([(pos >= t)[ip].sum(1) for t in thresholds], axis=1) / pos.size
        fpr = np.stack([(neg >= t)[ineg].sum(1) for t in thresholds], axis=1) / neg.size
        return fpr, tpr
    scores = np.concatenate([pos, neg])
    is_pos = np.arange(scores.size) < pos.size
    idx = rng.integers(0, scores.size, size=(B, scores.size))
    n_pos = is_pos[idx].sum(1)
    keep = (n_pos > 0) & (n_pos < scores.size)  # discard resamples with an empty class
    idx, n_pos = idx[keep], n_pos[keep]
    n_neg = scores.size - n_pos
    tp = np.stack([((scores >= t) & is_pos)[idx].sum(1) for t in thresholds], axis=1)
    fp = np.stack([((scores >= t) & ~is_pos)[idx].sum(1) for t in thresholds], axis=1)
    return fp / n_neg[:, None], tp / n_pos[:, None]


@pytest.mark.parametrize(("bootstrap", "seed"), [("stratified", 1), ("full", 2)])
def test_monte_carlo_bootstrap_agrees_with_exact_moments(bootstrap, seed):
    pos, neg, thresholds = realistic_data()
    law = threshold_distribution(pos, neg, thresholds, bootstrap=bootstrap)
    fpr, tpr = mc_rates(pos, neg, thresholds, bootstrap, seed)
    assert fpr.shape == (B, thresholds.size)
    for j in range(thresholds.size):
        assert 0 < law.tpr[j] < 1 and 0 < law.fpr[j] < 1
        assert_mc_agrees(tpr[:, j], law.tpr[j], law.tpr_var[j])
        assert_mc_agrees(fpr[:, j], law.fpr[j], law.fpr_var[j])


def test_monte_carlo_joint_law_at_one_threshold():
    # stratified: the MC frequency of each (FPR, TPR) cell matches product binomials
    pos, neg, thresholds = realistic_data()
    j = 2
    law = threshold_distribution(pos, neg, thresholds[j : j + 1])
    _, tpr = mc_rates(pos, neg, thresholds[j : j + 1], "stratified", seed=3)
    tp = np.rint(tpr[:, 0] * pos.size).astype(int)
    pmf = stats.binom.pmf(np.arange(pos.size + 1), pos.size, law.tpr[0])
    freq = np.bincount(tp, minlength=pos.size + 1) / B
    se = np.sqrt(pmf * (1 - pmf) / B)
    assert np.all(np.abs(freq - pmf) <= 4 * se + 1e-12)


# threshold_ci --------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["wald", "score", "agresti", "jeffreys", "clopper_pearson"])
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_threshold_ci_stratified_is_proportion_ci_per_axis(method, level):
    rng = np.random.default_rng(11)
    pos = np.round(rng.normal(1, 1, 40), 1)
    neg = np.round(rng.normal(0, 1, 30), 1)
    thresholds = np.array([np.inf, 2.0, 1.0, 0.5, 0.0, -1.0, -np.inf])
    ci = threshold_ci(pos, neg, thresholds, confidence_level=level, method=method)
    tp = (pos[None, :] >= thresholds[:, None]).sum(1)
    fp = (neg[None, :] >= thresholds[:, None]).sum(1)
    axis = math.sqrt(level)
    t_low, t_high = proportion_ci(tp, 40, confidence_level=axis, method=method)
    f_low, f_high = proportion_ci(fp, 30, confidence_level=axis, method=method)
    np.testing.assert_allclose(ci.tpr_low, t_low, rtol=0, atol=1e-14)
    np.testing.assert_allclose(ci.tpr_high, t_high, rtol=0, atol=1e-14)
    np.testing.assert_allclose(ci.fpr_low, f_low, rtol=0, atol=1e-14)
    np.testing.assert_allclose(ci.fpr_high, f_high, rtol=0, atol=1e-14)
    np.testing.assert_allclose(ci.tpr, tp / 40, rtol=0, atol=1e-15)
    np.testing.assert_allclose(ci.fpr, fp / 30, rtol=0, atol=1e-15)
    assert ci.axis_level == pytest.approx(axis, abs=1e-15)
    assert ci.confidence_level == level
    assert ci.method == method and ci.bootstrap == "stratified"


def test_threshold_ci_agresti_pseudo_count_passed_through():
    pos, neg = [3.0, 2.0, 1.0, 0.5], [2.0, 0.0, -1.0, -2.0]
    ci = threshold_ci(pos, neg, [1.5], confidence_level=0.9, method="agresti", pseudo_count=0.5)
    want = proportion_ci(2, 4, confidence_level=math.sqrt(0.9), method="agresti", pseudo_count=0.5)
    assert ci.tpr_low[0] == pytest.approx(float(want.low), abs=1e-14)
    assert ci.tpr_high[0] == pytest.approx(float(want.high), abs=1e-14)


def test_threshold_ci_full_bootstrap_uses_effective_sizes():
    pos, neg = [2.0, 1.0, 0.5], [1.0, 0.0, -1.0, -2.0, 0.7]
    n_pos, n_neg = 3, 5
    n = n_pos + n_neg
    pmf = {
        k: math.comb(n, k) * Fraction(n_pos, n) ** k * Fraction(n_neg, n) ** (n - k)
        for k in range(1, n)
    }
    total = sum(pmf.values())
    m_pos = 1 / float(sum(p / total / k for k, p in pmf.items()))
    m_neg = 1 / float(sum(p / total / (n - k) for k, p in pmf.items()))
    ci = threshold_ci(pos, neg, [0.8], confidence_level=0.9, method="score", bootstrap="full")
    tpr, fpr = 2 / 3, 1 / 5
    t_low, t_high = proportion_ci(
        tpr * m_pos, m_pos, confidence_level=math.sqrt(0.9), method="score"
    )
    f_low, f_high = proportion_ci(
        fpr * m_neg, m_neg, confidence_level=math.sqrt(0.9), method="score"
    )
    assert ci.tpr_low[0] == pytest.approx(float(t_low), abs=1e-12)
    assert ci.tpr_high[0] == pytest.approx(float(t_high), abs=1e-12)
    assert ci.fpr_low[0] == pytest.approx(float(f_low), abs=1e-12)
    assert ci.fpr_high[0] == pytest.approx(float(f_high), abs=1e-12)


def test_threshold_ci_clipped_flag_is_union_of_axes():
    pos, neg = np.arange(10.0), np.arange(10.0) - 5
    thresholds = np.array([9.0, 4.5, 0.0])
    ci = threshold_ci(pos, neg, thresholds, confidence_level=0.9, method="wald")
    axis = math.sqrt(0.9)
    want = (
        proportion_ci([1, 5, 10], 10, confidence_level=axis, method="wald").clipped
        | proportion_ci([0, 0, 5], 10, confidence_level=axis, method="wald").clipped
    )
    np.testing.assert_array_equal(ci.clipped, want)
    assert ci.clipped.tolist() == [True, False, False]


@pytest.mark.parametrize(
    ("kwargs", "word"),
    [
        ({"pos_scores": [1.0, np.nan]}, "pos_scores"),
        ({"neg_scores": [np.inf, 0.0]}, "neg_scores"),
        ({"pos_scores": []}, "pos_scores"),
        ({"neg_scores": []}, "neg_scores"),
        ({"pos_scores": [[1.0, 2.0]]}, "pos_scores"),
        ({"thresholds": [[0.5, 1.0]]}, "thresholds"),
        ({"thresholds": [0.5, np.nan]}, "thresholds"),
        ({"bootstrap": "balanced"}, "bootstrap"),
        ({"method": "wilson"}, "method"),
        ({"confidence_level": 1.0}, "confidence_level"),
        ({"pseudo_count": 1.0}, "pseudo_count"),
    ],
)
def test_threshold_ci_bad_input(kwargs, word):
    args = {
        "pos_scores": [1.0, 2.0],
        "neg_scores": [0.0, 1.0],
        "thresholds": [0.5],
        "confidence_level": 0.9,
        "method": "score",
        "bootstrap": "stratified",
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=word):
        threshold_ci(**args)


@pytest.mark.parametrize(
    ("kwargs", "word"),
    [
        ({"pos_scores": [np.nan]}, "pos_scores"),
        ({"neg_scores": []}, "neg_scores"),
        ({"thresholds": [[0.5]]}, "thresholds"),
        ({"bootstrap": "smoothed"}, "bootstrap"),
    ],
)
def test_threshold_distribution_bad_input(kwargs, word):
    args = {
        "pos_scores": [1.0, 2.0],
        "neg_scores": [0.0, 1.0],
        "thresholds": [0.5],
        "bootstrap": "stratified",
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=word):
        threshold_distribution(**args)


def test_joint_pmf_refuses_large_data():
    law = threshold_distribution(np.arange(150.0), np.arange(60.0), [10.0])
    with pytest.raises(ValueError, match="200"):
        law.joint_pmf(0)
