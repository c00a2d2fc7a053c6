"""Accuracy of the exact law of vertical averaging at large ``n`` (eqs. 4.12-4.14).

Issue: at ``n = 10^5`` per class the rows of ``vertical_distribution(...).pmf`` summed to 1
only within 1.5e-10 (binomial pmf from ``gammaln`` differences), and ``var`` computed as
``E[TPR^2] - mean^2`` lost every digit in rows whose variance is tiny next to ``mean^2``
(high FPR, where nearly every positive passes every likely threshold).

Targets: rows sum to 1 within 1e-12; the pmf's mean and variance (computed from the pmf with
compensated summation) equal ``law.mean`` and ``law.var`` to 1e-10 relative; ``law.mean`` and
``law.var`` equal the moments of the mixture computed in exact rational arithmetic (from the
law's own ``q`` and ``w`` at large ``n``, and from the data alone on small data sets).
"""

from __future__ import annotations

import math
from fractions import Fraction
from math import comb

import numpy as np
import pytest

from rocsim.core.mixture import rank_weights
from rocsim.core.vertical import vertical_distribution

#: The issue's targets: a row's sum within 1e-12 of 1, moments within 1e-10 relative.
MOMENT_RTOL, ROW_SUM_ATOL = 1e-10, 1e-12
TOLERANCES = {
    "row sum - 1": ROW_SUM_ATOL,
    "law.mean vs exact": MOMENT_RTOL,
    "law.var vs exact": MOMENT_RTOL,
    "pmf mean vs law.mean": MOMENT_RTOL,
    "pmf var vs law.var": MOMENT_RTOL,
}
#: Mass the band of rank weights may drop per FPR (weights below 1e-17, documented bound).
DROPPED = 1e-15


# --- data and rows -------------------------------------------------------------------------------


def normal_data(n: int, ties: bool, seed: int = 2009) -> tuple[np.ndarray, np.ndarray]:
    """``n`` positives ~ N(1, 1) and ``n`` negatives ~ N(0, 1); ``ties``: rounded to 0.1."""
    rng = np.random.default_rng(seed + ties)
    pos, neg = rng.normal(1.0, 1.0, n), rng.normal(0.0, 1.0, n)
    if ties:
        pos, neg = np.round(pos, 1), np.round(neg, 1)
        assert np.unique(neg).size < n // 100 and np.intersect1d(pos, neg).size > 10
    return pos, neg


def accuracy_ranks(pos: np.ndarray, neg: np.ndarray, middle: tuple[float, ...]) -> list[int]:
    """FPR ranks: very low FPR, the ``middle`` FPRs, and very high FPR with tiny variance.

    The tiny-variance rows: ``r = n- - 5, n- - 2, n- - 1``, the ranks at which the ``k``-th
    smallest positive (``k = 1, 2, 3``) starts to fall below the threshold, where TPR is
    ``1 - O(k / n+)`` and its variance ``O(k / n+^2)``, and ranks 2, 4 and 6 binomial standard
    deviations past these, where the variance is smaller still.
    """
    n = neg.size
    ranks = {1, 2, 5, n - 5, n - 2, n - 1}
    ranks |= {round(f * n) for f in middle}
    for k in (1, 2, 3):
        kth_lowest = np.partition(pos, k - 1)[k - 1]
        at = int(np.sum(neg >= kth_lowest))
        # past it, Pr{T_r >= the k-th lowest positive} falls like a binomial tail
        ranks |= {at + j * math.isqrt(n - at) for j in (0, 2, 4, 6)}
    return sorted(r for r in ranks if 1 <= r <= n - 1)


# --- oracles ---------------------------------------------------------------------------------


def mixture_moments(q: np.ndarray, w: np.ndarray, m: int) -> tuple[Fraction, Fraction]:
    """Mean and variance of ``X / m`` with ``X ~ sum_c w_c Bin(m, q_c)`` (weights normalised),
    in exact rational arithmetic on the float values of ``q`` and ``w``."""
    merged: dict[float, Fraction] = {}
    for qc, wc in zip(q.tolist(), w.tolist()):
        if wc > 0:
            merged[qc] = merged.get(qc, Fraction(0)) + Fraction(wc)
    total = sum(merged.values())
    mean = sum(Fraction(qc) * wc for qc, wc in merged.items()) / total
    var = (
        sum(
            wc * (Fraction(qc) * (1 - Fraction(qc)) / m + (Fraction(qc) - mean) ** 2)
            for qc, wc in merged.items()
        )
        / total
    )
    return mean, var


def pmf_moments(row: np.ndarray, m: int) -> tuple[float, float, float]:
    """Sum, mean and variance of ``l / m`` under the pmf ``row`` (normalised by its sum).

    Compensated: centred at the integer ``a`` nearest the mean, so ``l - a`` is exact, every
    product is rounded once and ``math.fsum`` adds them exactly; ``E(l - a)^2 >= |E(l - a)|``
    for integers, so ``E(l - a)^2 - (E(l - a))^2`` loses at most one bit.
    """
    support = np.flatnonzero(row)
    p = row[support]
    total = math.fsum(p)
    a = round(math.fsum(p * support) / total)
    d = (support - a).astype(float)
    first = math.fsum(p * d) / total
    second = math.fsum(p * d * d) / total
    return total, (a + first) / m, (second - first * first) / (m * m)


def relative_error(got: float, want) -> float:
    """``|got - want| / |want|`` in exact arithmetic; an exact zero must come out as zero."""
    err = abs(Fraction(float(got)) - Fraction(want))
    if want == 0:
        return 0.0 if err == 0 else math.inf
    return float(err / abs(Fraction(want)))


def independent_q(pos: np.ndarray, neg: np.ndarray, ranks, n_pos: int) -> np.ndarray:
    """``q[i, j]`` = share of positives ``>=`` the ``(start[i] + j)``-th largest negative."""
    weights = rank_weights(neg.size, neg.size, tuple(ranks))
    neg_desc = np.sort(neg)[::-1]
    c = np.minimum(weights.start[:, None] + np.arange(weights.weights.shape[1]), neg.size)
    below = np.searchsorted(np.sort(pos), neg_desc[c - 1], side="left")
    return (n_pos - below) / n_pos


def check_law(pos: np.ndarray, neg: np.ndarray, ranks: list[int]):
    """Row sums, pmf moments against ``law``'s moments, ``law``'s moments against the exact
    moments of the law's own mixture; the message gives every check's worst error."""
    n_pos = pos.size
    law = vertical_distribution(pos, neg, ranks)
    # the mixture is the data's: q from an independent count at every weighted rank
    present = law._w > 0
    assert np.array_equal(law._q[present], independent_q(pos, neg, ranks, n_pos)[present])
    pmf = law.pmf
    assert pmf.shape == (len(ranks), n_pos + 1)
    worst = dict.fromkeys(TOLERANCES, (0.0, None))
    for i, r in enumerate(ranks):
        total, mean, var = pmf_moments(pmf[i], n_pos)
        exact_mean, exact_var = mixture_moments(law._q[i], law._w[i], n_pos)
        errors = {
            "row sum - 1": abs(total - 1.0),
            "law.mean vs exact": relative_error(law.mean[i], exact_mean),
            "law.var vs exact": relative_error(law.var[i], exact_var),
            "pmf mean vs law.mean": relative_error(mean, law.mean[i]),
            "pmf var vs law.var": relative_error(var, law.var[i]),
        }
        for check, err in errors.items():
            if err > worst[check][0]:
                worst[check] = (err, r)
    failed = {check: v for check, v in worst.items() if v[0] > TOLERANCES[check]}
    assert not failed, f"worst (error, rank) {worst}"
    return law


# --- large data ----------------------------------------------------------------------------


@pytest.mark.parametrize("ties", [False, True], ids=["normal", "heavy-ties"])
def test_pmf_and_moments_are_accurate_at_n_1e4(ties):
    pos, neg = normal_data(10_000, ties)
    ranks = accuracy_ranks(pos, neg, (0.01, 0.1, 0.5, 0.9, 0.99))
    law = check_law(pos, neg, ranks)
    # the high-FPR rows do have a variance far below mean^2 (where E[X^2] - mean^2 fails)
    ratio = [
        float(var / mean**2)
        for mean, var in (
            mixture_moments(law._q[i], law._w[i], pos.size) for i in range(len(ranks))
        )
    ]
    tiny = 1e-7 if ties else 1e-16  # the rounded data have no lone low positive at n = 10^4
    assert sum(0 < x < tiny for x in ratio) >= 2, dict(zip(ranks, ratio))


@pytest.mark.parametrize("ties", [False, True], ids=["normal", "heavy-ties"])
def test_pmf_and_moments_are_accurate_at_n_1e5_fast_rows(ties):
    # rows at very low and very high FPR only: narrow bands, cheap at any n
    pos, neg = normal_data(100_000, ties)
    check_law(pos, neg, accuracy_ranks(pos, neg, ()))


@pytest.mark.parametrize("ties", [False, True], ids=["normal", "heavy-ties"])
def test_pmf_and_moments_are_accurate_at_n_1e5(ties):
    pos, neg = normal_data(100_000, ties)
    check_law(pos, neg, accuracy_ranks(pos, neg, (0.01, 0.1, 0.5, 0.9, 0.99)))


@pytest.mark.slow
@pytest.mark.parametrize("ties", [False, True], ids=["normal", "heavy-ties"])
def test_pmf_and_moments_are_accurate_at_n_1e6(ties):
    pos, neg = normal_data(1_000_000, ties)
    check_law(pos, neg, accuracy_ranks(pos, neg, (0.5,)))


# --- small data, exact law from the data alone -------------------------------------------------


def exact_law(pos, neg, r: int) -> tuple[list[Fraction], list[Fraction]]:
    """``(q_c, w_c)`` for ``c = 1..n-``, in rationals: ``w_c = G(c) - G(c - 1)`` with
    ``G(c) = Pr{Bin(n-, c/n-) >= r}`` (eq. 4.11) and ``q_c = #{pos >= s_(c)} / n+``."""
    n = len(neg)
    neg_desc = sorted(neg, reverse=True)

    def upper_tail(c: int) -> Fraction:
        p = Fraction(c, n)
        return sum(comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(r, n + 1))

    tails = [upper_tail(c) for c in range(n + 1)]
    w = [tails[c] - tails[c - 1] for c in range(1, n + 1)]
    q = [Fraction(sum(s >= t for s in pos), len(pos)) for t in neg_desc]
    return q, w


SMALL_DATA = [
    # 29 positives above every negative, one just below the 10th largest: q is 29/30 or 1,
    # so at high FPR the variance falls to ~1e-15 while the mean is ~1
    pytest.param([100.0] * 29 + [19.5], list(range(30)), id="one-positive-low"),
    # the mirror image: one positive above, so q is 0 or 1/30 and the mean is tiny
    pytest.param([-100.0] * 29 + [9.5], list(range(30)), id="one-positive-high"),
    pytest.param(
        np.round(np.random.default_rng(7).normal(1, 1, 25), 1).tolist(),
        np.round(np.random.default_rng(8).normal(0, 1, 20), 1).tolist(),
        id="normal-rounded",
    ),
]


@pytest.mark.parametrize(("pos", "neg"), SMALL_DATA)
def test_moments_and_pmf_equal_the_exact_law_of_small_data(pos, neg):
    n_pos, n_neg = len(pos), len(neg)
    ranks = list(range(1, n_neg))
    law = vertical_distribution(pos, neg, ranks)
    worst = dict.fromkeys(["mean", "var", "pmf", "row sum - 1"], (0.0, None))
    for i, r in enumerate(ranks):
        q, w = exact_law(pos, neg, r)
        mean = sum(wc * qc for wc, qc in zip(w, q))
        var = sum(wc * (qc * (1 - qc) / n_pos + (qc - mean) ** 2) for wc, qc in zip(w, q))
        # weights below 1e-17 are left out of the band (at most DROPPED in all per row): an
        # absolute slack for what they carry
        spread = max(q) - min(q)
        slack_mean = DROPPED * spread
        slack_var = DROPPED * (spread**2 + max(qc * (1 - qc) for qc in q) / n_pos)
        errors = {
            "mean": abs(Fraction(float(law.mean[i])) - mean) / (mean + slack_mean / 1e-12),
            "var": abs(Fraction(float(law.var[i])) - var) / (var + slack_var / MOMENT_RTOL),
            "row sum - 1": abs(math.fsum(law.pmf[i]) - 1),
        }
        binomials = [
            [comb(n_pos, k) * qc**k * (1 - qc) ** (n_pos - k) for qc in q]
            for k in range(n_pos + 1)
        ]
        errors["pmf"] = max(
            abs(Fraction(float(law.pmf[i, k])) - sum(b * wc for b, wc in zip(row, w)))
            / (sum(b * wc for b, wc in zip(row, w)) + DROPPED * max(row) / 1e-12)
            for k, row in enumerate(binomials)
        )
        for check, err in errors.items():
            if float(err) > worst[check][0]:
                worst[check] = (float(err), r)
    # relative errors, each with its slack folded into the denominator
    tolerances = {"mean": 1e-12, "var": MOMENT_RTOL, "pmf": 1e-12, "row sum - 1": ROW_SUM_ATOL}
    failed = {check: v for check, v in worst.items() if v[0] > tolerances[check]}
    assert not failed, f"worst (error, rank) {worst}"
