"""Both ends of the vertical step, and horizontal averaging, against every resample.

At FPR ``r/m-`` a resample's ROC curve has a vertical step. ``side="lower"`` (the thesis) reads
its bottom: positives scoring at least the ``r``-th largest resampled negative. ``side="upper"``
(pROC's ``coords``/``ci.se``) reads its top: positives scoring above the ``(r + 1)``-th
largest resampled negative. Horizontal averaging reads FPR at TPR ``k/m+``: negatives scoring
at least the ``k``-th largest resampled positive. Each law is checked against the enumeration
of all stratified resamples (exact fractions) on tiny data with and without ties, and against a
seeded Monte Carlo bootstrap on n = 200 per class.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest
from enumeration import assert_mc_agrees, multinomial_law

import rocsim
from rocsim.core.horizontal import horizontal_ci

TINY = [
    ([0.9, 0.8, 0.3, 0.6], [0.7, 0.5, 0.2, 0.1]),  # no ties
    ([0.9, 0.5, 0.5, 0.2], [0.5, 0.7, 0.2, 0.1]),  # ties within and across the classes
    ([1.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0]),  # heavy ties
    ([0.3, 0.8, 0.6], [0.4, 0.9, 0.1]),
]


def resamples(pos, neg):
    """Every stratified resample: (resampled positives, resampled negatives, probability)."""
    for (cp, pp), (cn, pn) in itertools.product(
        multinomial_law(len(pos)), multinomial_law(len(neg))
    ):
        yield np.repeat(pos, cp), np.repeat(neg, cn), pp * pn


def kth_largest(values: np.ndarray, k: int) -> float:
    """The ``k``-th largest value; ``-inf`` past the last one."""
    ordered = np.sort(values)[::-1]
    return ordered[k - 1] if k <= ordered.size else -np.inf


def enumerated_law(pos, neg, rank: int, statistic) -> dict[Fraction, Fraction]:
    """Law of ``statistic(resampled pos, resampled neg, rank)`` over every resample."""
    law: dict[Fraction, Fraction] = defaultdict(Fraction)
    for p, n, prob in resamples(np.asarray(pos), np.asarray(neg)):
        law[statistic(p, n, rank)] += prob
    return law


def upper_tpr(p, n, r) -> Fraction:
    return Fraction(int(np.sum(p > kth_largest(n, r + 1))), p.size)


def lower_tpr(p, n, r) -> Fraction:
    return Fraction(int(np.sum(p >= kth_largest(n, r))), p.size)


def horizontal_fpr(p, n, k) -> Fraction:
    return Fraction(int(np.sum(n >= kth_largest(p, k))), n.size)


def moments(law: dict[Fraction, Fraction]) -> tuple[float, float]:
    mean = sum(v * w for v, w in law.items())
    return float(mean), float(sum((v - mean) ** 2 * w for v, w in law.items()))


@pytest.mark.parametrize(("pos", "neg"), TINY)
def test_upper_side_law_equals_enumeration(pos, neg):
    ranks = list(range(1, len(neg)))
    law = rocsim.core.vertical_distribution(pos, neg, ranks, side="upper")
    for i, r in enumerate(ranks):
        want = enumerated_law(pos, neg, r, upper_tpr)
        pmf = [float(want.get(Fraction(j, len(pos)), 0)) for j in range(len(pos) + 1)]
        np.testing.assert_allclose(law.pmf[i], pmf, rtol=0, atol=1e-12, err_msg=f"r={r}")
        np.testing.assert_allclose((law.mean[i], law.var[i]), moments(want), atol=1e-12)
        assert law.tpr[i] == pytest.approx(float(upper_tpr(np.asarray(pos), np.asarray(neg), r)))


@pytest.mark.parametrize(("pos", "neg"), TINY[:2])
def test_full_bootstrap_upper_side_equals_enumeration(pos, neg):
    """The full bootstrap resamples all n instances (a resample missing a class is redrawn);
    the FPR r/n- is read at rank round(r N-/n-) of the N- resampled negatives."""
    scores = np.asarray(pos + neg, dtype=float)
    is_pos = np.r_[np.ones(len(pos), bool), np.zeros(len(neg), bool)]
    ranks = list(range(1, len(neg)))
    law = rocsim.core.vertical_distribution(pos, neg, ranks, bootstrap="full", side="upper")
    for i, r in enumerate(ranks):
        total: dict[Fraction, Fraction] = defaultdict(Fraction)
        for counts, prob in multinomial_law(scores.size):
            sample = np.repeat(scores, counts)
            labels = np.repeat(is_pos, counts)
            big_neg = int((~labels).sum())
            if big_neg in (0, sample.size):
                continue
            rank = min(max(round(Fraction(r * big_neg, len(neg))), 1), max(big_neg - 1, 1))
            total[upper_tpr(sample[labels], sample[~labels], rank)] += prob
        kept = sum(total.values())
        mean, var = moments({v: w / kept for v, w in total.items()})
        np.testing.assert_allclose((law.mean[i], law.var[i]), (mean, var), atol=1e-12)


def test_untied_upper_law_at_r_is_the_lower_law_at_r_plus_one():
    rng = np.random.default_rng(3)
    pos, neg = rng.normal(1, 1, 60), rng.normal(0, 1, 50)
    r = np.arange(1, 49)
    upper = rocsim.core.vertical_distribution(pos, neg, r, side="upper")
    lower = rocsim.core.vertical_distribution(pos, neg, r + 1)
    np.testing.assert_array_equal(upper.tpr, lower.tpr)
    np.testing.assert_allclose(upper.mean, lower.mean, rtol=0, atol=1e-15)
    np.testing.assert_allclose(upper.var, lower.var, rtol=0, atol=1e-15)
    np.testing.assert_allclose(upper.pmf, lower.pmf, rtol=0, atol=1e-15)


def test_ties_make_the_two_sides_differ():
    pos, neg = [1.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0]
    upper = rocsim.core.vertical_distribution(pos, neg, [1], side="upper")
    lower = rocsim.core.vertical_distribution(pos, neg, [2])
    assert upper.mean[0] != pytest.approx(lower.mean[0])


@pytest.mark.parametrize(("pos", "neg"), TINY)
def test_horizontal_law_equals_enumeration(pos, neg):
    ks = list(range(1, len(pos)))
    ci = horizontal_ci(pos, neg, ks, method="wald")
    for i, k in enumerate(ks):
        want = enumerated_law(pos, neg, k, horizontal_fpr)
        np.testing.assert_allclose((ci.mean[i], ci.var[i]), moments(want), atol=1e-12)
        want_fpr = horizontal_fpr(np.asarray(pos), np.asarray(neg), k)
        assert ci.fpr[i] == pytest.approx(float(want_fpr), abs=1e-15)


def test_horizontal_equals_vertical_on_swapped_negated_scores():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 300).astype(bool)
    s = np.round(rng.normal(y, 1.0), 1)  # with ties
    pos, neg = s[y], s[~y]
    at = [0.1, 0.5, 0.9]
    bands = rocsim.roc_ci(y, s, averaging="horizontal", at=at, method="percentile")
    k = np.rint(np.asarray(at) * pos.size).astype(int)
    swapped = rocsim.core.vertical_ci(-neg, -pos, pos.size - k, method="percentile", side="upper")
    np.testing.assert_allclose(bands.fpr, 1 - swapped.tpr, atol=1e-15)
    np.testing.assert_allclose(bands.mean, 1 - swapped.mean, atol=1e-15)
    np.testing.assert_allclose(bands.fpr_low, 1 - swapped.high, atol=1e-15)
    np.testing.assert_allclose(bands.fpr_high, 1 - swapped.low, atol=1e-15)
    np.testing.assert_allclose(bands.tpr, k / pos.size)


PAIRED = [
    ([3, 2, 1, 5], [3, 0, 2, 4], [0, 1, 2], [1, 0, 3]),
    ([2, 2, 1], [1, 3, 1], [2, 0, 1], [1, 1, 3]),  # ties within and across
]


def paired_resamples(pos1, pos2, neg1, neg2):
    for (cp, pp), (cn, pn) in itertools.product(
        multinomial_law(len(pos1)), multinomial_law(len(neg1))
    ):
        yield (
            np.repeat(pos1, cp),
            np.repeat(pos2, cp),
            np.repeat(neg1, cn),
            np.repeat(neg2, cn),
            pp * pn,
        )


@pytest.mark.parametrize("data", PAIRED)
@pytest.mark.parametrize("side", ["lower", "upper"])
def test_paired_difference_moments_equal_enumeration_on_both_sides(data, side):
    pos1, pos2, neg1, neg2 = (np.asarray(a, dtype=float) for a in data)
    tpr = upper_tpr if side == "upper" else lower_tpr
    ranks = list(range(1, len(neg1)))
    law = rocsim.core.vertical_difference(pos1, pos2, neg1, neg2, ranks, side=side)
    for i, r in enumerate(ranks):
        diff: dict[Fraction, Fraction] = defaultdict(Fraction)
        for p1, p2, n1, n2, prob in paired_resamples(pos1, pos2, neg1, neg2):
            diff[tpr(p1, n1, r) - tpr(p2, n2, r)] += prob
        np.testing.assert_allclose((law.mean[i], law.var[i]), moments(diff), atol=1e-12)


@pytest.mark.parametrize("data", PAIRED)
def test_compare_roc_horizontal_equals_enumeration(data):
    pos1, pos2, neg1, neg2 = (np.asarray(a, dtype=float) for a in data)
    y = np.r_[np.ones(pos1.size, bool), np.zeros(neg1.size, bool)]
    s1, s2 = np.r_[pos1, neg1], np.r_[pos2, neg2]
    ks = np.arange(1, pos1.size)
    cmp = rocsim.compare_roc(y, s1, s2, averaging="horizontal", at=ks / pos1.size)
    for i, k in enumerate(ks):
        diff: dict[Fraction, Fraction] = defaultdict(Fraction)
        for p1, p2, n1, n2, prob in paired_resamples(pos1, pos2, neg1, neg2):
            diff[horizontal_fpr(p1, n1, k) - horizontal_fpr(p2, n2, k)] += prob
        mean, var = moments(diff)
        assert cmp.dfpr[i] == pytest.approx(mean, abs=1e-12)
        assert cmp.sd[i] == pytest.approx(np.sqrt(var), abs=1e-12)


def test_upper_and_horizontal_laws_agree_with_a_seeded_monte_carlo_bootstrap():
    rng = np.random.default_rng(11)
    pos, neg = rng.normal(1.0, 1.0, 200), rng.normal(0.0, 1.0, 200)
    pos, neg = np.round(pos, 1), np.round(neg, 1)  # ties, so that the sides differ
    r, b = np.array([20, 100, 180]), 20_000
    upper = rocsim.core.vertical_distribution(pos, neg, r, side="upper")
    horizontal = horizontal_ci(pos, neg, r, method="wald")
    boot_pos = np.sort(rng.choice(pos, (b, pos.size)), axis=1)[:, ::-1]
    boot_neg = np.sort(rng.choice(neg, (b, neg.size)), axis=1)[:, ::-1]
    for i, rank in enumerate(r):
        threshold = boot_neg[:, rank]  # the (r + 1)-th largest
        tpr = (boot_pos > threshold[:, None]).mean(axis=1)
        assert_mc_agrees(tpr, upper.mean[i], upper.var[i])
        fpr = (boot_neg >= boot_pos[:, rank - 1][:, None]).mean(axis=1)
        assert_mc_agrees(fpr, horizontal.mean[i], horizontal.var[i])


def test_side_is_checked_and_only_for_vertical_averaging():
    y, s = [1, 1, 0, 0, 1, 0], [0.9, 0.8, 0.7, 0.6, 0.3, 0.2]
    with pytest.raises(ValueError, match="side"):
        rocsim.roc_ci(y, s, averaging="vertical", side="top")
    with pytest.raises(ValueError, match="side applies to averaging='vertical'"):
        rocsim.roc_ci(y, s, side="upper")
    with pytest.raises(ValueError, match="side"):
        rocsim.core.vertical_distribution([1, 2], [0, 1, 3], [1], side="middle")
