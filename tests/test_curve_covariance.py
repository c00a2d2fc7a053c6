"""The exact bootstrap covariance of the ROC curve across FPRs (``law.cov``) against every
stratified resample of tiny data sets (exact fractions; ties; both sides of the vertical step;
vertical and horizontal averaging) and against a seeded Monte Carlo bootstrap at n = 200."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from enumeration import multinomial_law
from test_vertical_oracle import TINY_DATA

from rocsim.core import horizontal_ci, vertical_ci, vertical_distribution


def resampled(scores, counts) -> list:
    """A resample's scores, largest first."""
    return sorted((s for s, c in zip(scores, counts) for _ in range(c)), reverse=True)


def reaching(scores, counts, threshold, strict: bool) -> Fraction:
    """Share of a resample scoring ``>= threshold`` (``> threshold`` if ``strict``)."""
    hits = sum(c for s, c in zip(scores, counts) if (s > threshold if strict else s >= threshold))
    return Fraction(hits, sum(counts))


def enumerated_covariance(ranked, counted, ranks, side: str) -> np.ndarray:
    """Covariance of the share of ``counted`` reaching the threshold at each rank of ``ranked``
    (the ``r``-th largest resampled score, ``side="lower"``; the ``(r + 1)``-th, counted
    strictly above, ``side="upper"``), over every pair of resamples of the two classes."""
    k = len(ranks)
    first = [Fraction(0)] * k
    second = [[Fraction(0)] * k for _ in range(k)]
    for ranked_counts, p_ranked in multinomial_law(len(ranked)):
        order = resampled(ranked, ranked_counts)
        if side == "lower":
            thresholds = [order[r - 1] for r in ranks]
        else:
            thresholds = [order[r] if r < len(order) else -np.inf for r in ranks]
        for counted_counts, p_counted in multinomial_law(len(counted)):
            p = p_ranked * p_counted
            x = [reaching(counted, counted_counts, t, side == "upper") for t in thresholds]
            for i in range(k):
                first[i] += p * x[i]
                for j in range(k):
                    second[i][j] += p * x[i] * x[j]
    return np.array(
        [[float(second[i][j] - first[i] * first[j]) for j in range(k)] for i in range(k)]
    )


@pytest.mark.parametrize("side", ["lower", "upper"])
@pytest.mark.parametrize(("pos", "neg"), TINY_DATA)
def test_vertical_covariance_equals_enumeration(pos, neg, side):
    ranks = list(range(1, len(neg)))
    law = vertical_distribution(pos, neg, ranks, side=side)
    expected = enumerated_covariance(neg, pos, ranks, side)
    np.testing.assert_allclose(law.cov, expected, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(np.diag(law.cov), law.var)


@pytest.mark.parametrize(("pos", "neg"), TINY_DATA)
def test_horizontal_covariance_equals_enumeration(pos, neg):
    # FPR at the k-th largest resampled positive: the negatives reaching it (lower side)
    ranks = list(range(1, len(pos)))
    got = horizontal_ci(pos, neg, ranks).cov
    np.testing.assert_allclose(got, enumerated_covariance(pos, neg, ranks, "lower"), atol=1e-12)


def test_ranks_in_any_order_and_repeated():
    pos, neg = [0.9, 0.6, 0.3, 0.75], [0.8, 0.5, 0.1, 0.05, 0.5]
    ranks = [3, 1, 3, 4, 2]
    law = vertical_distribution(pos, neg, ranks)
    sorted_law = vertical_distribution(pos, neg, [1, 2, 3, 4])
    place = np.array(ranks) - 1
    np.testing.assert_array_equal(law.cov, sorted_law.cov[np.ix_(place, place)])
    np.testing.assert_array_equal(vertical_ci(pos, neg, ranks).cov, law.cov)


def test_full_bootstrap_is_refused():
    law = vertical_distribution([0.9, 0.8, 0.3], [0.7, 0.5, 0.2], [1], bootstrap="full")
    with pytest.raises(NotImplementedError, match="stratified"):
        _ = law.cov


def bootstrap_tprs(pos, neg, ranks, replications, rng) -> dict[str, np.ndarray]:
    """TPR at the FPR ranks on both sides of the step in ``replications`` stratified
    resamples (the same resamples for both), in blocks."""
    out = {"lower": [], "upper": []}
    ranks = np.asarray(ranks)
    for size in np.diff(np.r_[0:replications:5000, replications]):
        neg_b = -np.sort(-rng.choice(neg, (size, neg.size)), axis=1)
        pos_b = rng.choice(pos, (size, pos.size))[:, :, None]
        out["lower"].append((pos_b >= neg_b[:, ranks - 1][:, None, :]).mean(axis=1))
        out["upper"].append((pos_b > neg_b[:, ranks][:, None, :]).mean(axis=1))
    return {side: np.concatenate(blocks) for side, blocks in out.items()}


def test_covariance_against_monte_carlo():
    rng = np.random.default_rng(20261127)
    # binormal scores rounded to one decimal: ties within and across the classes
    pos = np.round(rng.normal(1.0, 1.0, 200), 1)
    neg = np.round(rng.normal(0.0, 1.0, 200), 1)
    ranks = [4, 20, 60, 100, 150, 190]
    for side, tprs in bootstrap_tprs(pos, neg, ranks, 100_000, rng).items():
        cov = vertical_distribution(pos, neg, ranks, side=side).cov
        deviation = tprs - tprs.mean(axis=0)
        products = deviation[:, :, None] * deviation[:, None, :]
        estimate = products.mean(axis=0) * tprs.shape[0] / (tprs.shape[0] - 1)
        se = products.std(axis=0) / np.sqrt(tprs.shape[0])
        # each of the 21 distinct entries within 4 standard errors
        assert np.all(np.abs(estimate - cov) <= 4 * se), (side, np.round((estimate - cov) / se, 1))


@pytest.mark.parametrize("rounding", [1, None])
def test_every_meeting_cell_gives_the_same_products(rounding):
    # the forward pass over the cells before the meeting cell, the backward pass over the rest
    # and their meeting must add up to one pass over every cell, wherever they meet
    from rocsim.core.curve_covariance import meeting_cell, q_products, rate_runs
    from rocsim.core.vertical import rates_at_ranks

    rng = np.random.default_rng(11)
    pos, neg = rng.normal(1.0, 1.0, 60), rng.normal(0.0, 1.0, 60)
    if rounding is not None:
        pos, neg = np.round(pos, rounding), np.round(neg, rounding)
    rates = rates_at_ranks(pos, np.sort(neg)[::-1], "lower")
    values, lengths = rate_runs(rates)
    ranks = np.array([1, 5, 17, 30, 31, 44, 59])
    reference = rates[ranks - 1]
    one_pass = q_products(values, lengths, neg.size, ranks, reference, stop=values.size)
    assert 0 < meeting_cell(lengths, neg.size, ranks) < values.size
    for stop in [0, 1, values.size // 3, values.size // 2, values.size - 1, None]:
        got = q_products(values, lengths, neg.size, ranks, reference, stop=stop)
        np.testing.assert_allclose(got, one_pass, rtol=0, atol=1e-15)
    assert np.abs(one_pass).max() > 1e-3
