"""Net benefit (decision curves): the exact bootstrap law equals the enumeration of every
resample on tiny data, under both bootstraps, and a seeded Monte Carlo bootstrap on realistic
data; the intervals read it."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import rocsim
from rocsim.core.net_benefit import (
    NET_BENEFIT_METHODS,
    net_benefit,
    net_benefit_difference_distribution,
    net_benefit_distribution,
    odds,
    treat_all,
)

POS = np.array([0.9, 0.6, 0.45])
NEG = np.array([0.7, 0.2, 0.45])
THRESHOLDS = np.array([0.0, 0.2, 0.45, 0.5, 0.8])


def enumerated(pos, neg, t, bootstrap):
    """Every resample's net benefit at each threshold (columns), one row per resample, all
    resamples equally likely."""
    n_pos, n_neg = pos.size, neg.size
    if bootstrap == "stratified":
        i = np.array(list(itertools.product(range(n_pos), repeat=n_pos)))
        j = np.array(list(itertools.product(range(n_neg), repeat=n_neg)))
        tp = (pos[i][:, :, None] >= t).sum(axis=1)  # (n+^n+, T)
        fp = (neg[j][:, :, None] >= t).sum(axis=1)
        tp, fp = (
            (tp[:, None, :] + 0 * fp[None]).reshape(-1, t.size),
            (fp[None, :, :] + 0 * tp[:, None]).reshape(-1, t.size),
        )
    else:
        scores = np.r_[pos, neg]
        is_pos = np.r_[np.ones(n_pos, bool), np.zeros(n_neg, bool)]
        i = np.array(list(itertools.product(range(scores.size), repeat=scores.size)))
        above = scores[i][:, :, None] >= t
        tp = (above & is_pos[i][:, :, None]).sum(axis=1)
        fp = (above & ~is_pos[i][:, :, None]).sum(axis=1)
    return (tp - odds(t) * fp) / (n_pos + n_neg)


@pytest.mark.parametrize("bootstrap", ["stratified", "full"])
def test_the_law_is_the_enumeration_of_every_resample(bootstrap):
    law = net_benefit_distribution(POS, NEG, THRESHOLDS, bootstrap=bootstrap)
    every = enumerated(POS, NEG, THRESHOLDS, bootstrap)
    # the enumeration sums 46656 resamples: its own rounding is about 1e-14
    np.testing.assert_allclose(law.mean, every.mean(axis=0), rtol=0, atol=1e-12)
    np.testing.assert_allclose(law.var, every.var(axis=0), rtol=0, atol=1e-12)
    for row, values in enumerate(every.T):
        support = np.unique(values)
        for v in support:
            x = np.full(THRESHOLDS.shape, v)
            assert law.cdf(x)[row] == pytest.approx(np.mean(values <= v + 1e-12), abs=1e-12)
        for q in (0.001, 0.025, 0.1, 0.5, 0.9, 0.975, 0.999):
            expected = np.sort(values)[int(np.ceil(q * values.size - 1e-9)) - 1]
            assert law.quantile(q)[row] == pytest.approx(expected, abs=1e-12), (row, q)


def sorted_support_quantiles(tp, fp, n_pos, n_neg, t, bootstrap, levels):
    """The quantiles of ``n NB* = TP* - k FP*`` by brute force: every support point ``(x, y)``
    with its probability (scipy's binomial pmf), sorted, and for each level the first point
    whose running sum (exact: ``math.fsum``) reaches it."""
    n, k = n_pos + n_neg, t / (1 - t)
    if bootstrap == "stratified":
        x, y = np.meshgrid(np.arange(n_pos + 1), np.arange(n_neg + 1), indexing="ij")
        p = stats.binom.pmf(x, n_pos, tp / n_pos) * stats.binom.pmf(y, n_neg, fp / n_neg)
    else:  # FP* ~ Bin(n, fp/n), TP* | FP* = y ~ Bin(n - y, tp / (n - fp))
        x, y = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
        given = stats.binom.pmf(x, np.maximum(n - y, 0), tp / (n - fp))
        p = np.where(x + y <= n, given, 0.0) * stats.binom.pmf(y, n, fp / n)
    held = p.ravel() > 0
    values, p = (x - k * y).ravel()[held], p.ravel()[held]
    order = np.argsort(values, kind="stable")
    values, p = values[order], p[order]
    return np.array([values[first_reaching(p, q)] for q in levels])


def first_reaching(p: np.ndarray, q: float) -> int:
    """The first ``j`` whose running sum ``p[0] + ... + p[j]`` (exact: ``math.fsum``) reaches
    ``q``; the last where none does."""
    j = min(int(np.searchsorted(np.cumsum(p), q)), p.size - 1)
    while j > 0 and math.fsum(p[:j]) >= q:  # the rough running sum's rounding, undone
        j -= 1
    while j < p.size - 1 and math.fsum(p[: j + 1]) < q:
        j += 1
    return j


@pytest.mark.parametrize("bootstrap", ["stratified", "full"])
def test_the_quantiles_are_the_sorted_support_s_on_a_mid_size_case(bootstrap):
    """A few hundred instances per class, thresholds down to 0.01 and up to 0.99: every
    quantile is the brute force's support point, at the intervals' levels and in the tails."""
    rng = np.random.default_rng(20260512)
    pos = 1 / (1 + np.exp(-rng.normal(1.0, 1.2, 150)))
    neg = 1 / (1 + np.exp(-rng.normal(-1.0, 1.2, 220)))
    t = np.array([0.01, 0.02, 0.1, 1 / 3, 0.5, 0.7, 0.95, 0.98, 0.99])
    law = net_benefit_distribution(pos, neg, t, bootstrap=bootstrap)
    levels = (0.001, 0.025, 0.025 - 1e-12, 0.3, 0.5, 0.975, 0.975 - 1e-12, 0.999)
    ours = np.array([law.quantile(q) for q in levels]).T * (pos.size + neg.size)
    for row, tr in enumerate(t):
        tp, fp = np.sum(pos >= tr), np.sum(neg >= tr)
        expected = sorted_support_quantiles(tp, fp, pos.size, neg.size, tr, bootstrap, levels)
        np.testing.assert_allclose(ours[row], expected, rtol=0, atol=1e-9, err_msg=f"t={tr}")


def test_the_data_s_net_benefit_is_dcurves_formula():
    """``TP/n - FP/n t/(1 - t)``, treating scores ``>= t``; treat-all ``pi - (1 - pi) t/(1-t)``."""
    n = POS.size + NEG.size
    assert net_benefit([0.0, 1.0], [0.0, 0.0], [0.0])[0] == 0.25  # a 0 is never treated
    tp = np.array([np.sum(POS >= t) for t in THRESHOLDS])
    fp = np.array([np.sum(NEG >= t) for t in THRESHOLDS])
    k = THRESHOLDS / (1 - THRESHOLDS)
    np.testing.assert_allclose(net_benefit(POS, NEG, THRESHOLDS), tp / n - fp / n * k, atol=1e-15)
    np.testing.assert_allclose(
        treat_all(POS.size, NEG.size, THRESHOLDS), POS.size / n - NEG.size / n * k, atol=1e-15
    )


@pytest.mark.parametrize("bootstrap", ["stratified", "full"])
def test_a_seeded_monte_carlo_bootstrap_agrees_on_realistic_data(bootstrap):
    rng = np.random.default_rng(20261129)
    pos = 1 / (1 + np.exp(-rng.normal(0.8, 1.2, 300)))
    neg = 1 / (1 + np.exp(-rng.normal(-0.8, 1.2, 500)))
    t = np.array([0.1, 0.3, 0.5, 0.7])
    law = net_benefit_distribution(pos, neg, t, bootstrap=bootstrap)
    draws = 4000
    if bootstrap == "stratified":
        p = pos[rng.integers(0, pos.size, (draws, pos.size))]
        q = neg[rng.integers(0, neg.size, (draws, neg.size))]
        tp = (p[:, :, None] >= t).sum(axis=1)
        fp = (q[:, :, None] >= t).sum(axis=1)
    else:
        scores, labels = np.r_[pos, neg], np.r_[np.ones(pos.size), np.zeros(neg.size)]
        idx = rng.integers(0, scores.size, (draws, scores.size))
        above = scores[idx][:, :, None] >= t
        tp = (above & (labels[idx][:, :, None] == 1)).sum(axis=1)
        fp = (above & (labels[idx][:, :, None] == 0)).sum(axis=1)
    nb = (tp - odds(t) * fp) / (pos.size + neg.size)
    se_mean = np.sqrt(law.var / draws)
    assert np.all(np.abs(nb.mean(axis=0) - law.mean) < 4 * se_mean)
    # the sample variance's relative Monte Carlo error is about sqrt(2 / draws)
    assert np.all(np.abs(nb.var(axis=0) / law.var - 1) < 4 * np.sqrt(2 / draws))
    for q in (0.025, 0.975):
        share = (nb <= law.quantile(q)[None, :]).mean(axis=0)
        assert np.all(np.abs(share - law.cdf(law.quantile(q))) < 4 * np.sqrt(q * (1 - q) / draws))


def test_the_intervals_read_the_law_and_stay_in_range():
    law = net_benefit_distribution(POS, NEG, THRESHOLDS, bootstrap="full")
    for method in NET_BENEFIT_METHODS:
        ci = law.ci(0.9, method)
        lower, upper = law.bounds
        assert np.all(ci.low >= lower) and np.all(ci.high <= upper)
        assert np.all(ci.low <= ci.net_benefit + 1e-15) or method == "percentile"
    pct = law.ci(0.9, "percentile")
    np.testing.assert_array_equal(pct.low, law.quantile(0.05 - 1e-12))
    frame = pct.to_frame()
    assert list(frame.columns) == [
        "thresholds",
        "net_benefit",
        "mean",
        "var",
        "low",
        "high",
        "clipped",
    ]


def test_bad_thresholds_name_the_argument():
    with pytest.raises(ValueError, match=r"thresholds must lie in \[0, 1\)"):
        net_benefit_distribution(POS, NEG, [0.5, 1.0])
    with pytest.raises(ValueError, match="unknown bootstrap scheme"):
        net_benefit_distribution(POS, NEG, [0.5], bootstrap="cluster")


DCURVES = Path(__file__).parent / "data" / "dcurves"


def test_net_benefit_equals_dcurves():
    """dcurves 1.1.7's ``dca`` on its own data set (``tests/data/dcurves``: the stored call
    and its output): every model's and treat-all's net benefit, to 1e-12."""
    stored = json.loads((DCURVES / "dca_binary.json").read_text())
    table = pd.DataFrame(stored["rows"], columns=stored["columns"])
    data = pd.read_csv(DCURVES / "df_binary.csv")
    y = data["cancer"].to_numpy()
    for model in ("cancerpredmarker", "famhistory"):
        curve = rocsim.net_benefit_ci(y, data[model].to_numpy(), bootstrap="full")
        theirs = table[table["model"] == model]
        np.testing.assert_array_equal(curve.threshold, theirs["threshold"].to_numpy())
        np.testing.assert_allclose(
            curve.net_benefit, theirs["net_benefit"].to_numpy(), rtol=0, atol=1e-12
        )
    everyone = table[table["model"] == "all"]["net_benefit"].to_numpy()
    np.testing.assert_allclose(curve.treat_all, everyone, rtol=0, atol=1e-12)
    assert np.all(table[table["model"] == "none"]["net_benefit"] == 0)


POS2 = np.array([0.8, 0.4, 0.6])
NEG2 = np.array([0.3, 0.5, 0.1])


def enumerated_difference(t, bootstrap):
    """Every resample's NB1 - NB2 (rows) at each threshold (columns)."""
    n_pos, n_neg = POS.size, NEG.size
    if bootstrap == "stratified":
        i = np.array(list(itertools.product(range(n_pos), repeat=n_pos)))
        j = np.array(list(itertools.product(range(n_neg), repeat=n_neg)))
        i = np.repeat(i, j.shape[0], axis=0)
        j = np.tile(j, (n_pos**n_pos, 1))
        p1, p2, q1, q2 = POS[i], POS2[i], NEG[j], NEG2[j]
    else:
        s1, s2 = np.r_[POS, NEG], np.r_[POS2, NEG2]
        is_pos = np.r_[np.ones(n_pos, bool), np.zeros(n_neg, bool)]
        i = np.array(list(itertools.product(range(s1.size), repeat=s1.size)))
        p1 = np.where(is_pos[i], s1[i], -1.0)
        p2 = np.where(is_pos[i], s2[i], -1.0)
        q1 = np.where(~is_pos[i], s1[i], -1.0)
        q2 = np.where(~is_pos[i], s2[i], -1.0)
    k = odds(t)

    def count(a):
        return (a[:, :, None] >= t).sum(axis=1)

    return (count(p1) - count(p2) - k * (count(q1) - count(q2))) / (n_pos + n_neg)


@pytest.mark.parametrize("bootstrap", ["stratified", "full"])
def test_the_difference_law_is_the_enumeration_of_every_resample(bootstrap):
    law = net_benefit_difference_distribution(
        POS, POS2, NEG, NEG2, THRESHOLDS, bootstrap=bootstrap
    )
    every = enumerated_difference(THRESHOLDS, bootstrap)
    np.testing.assert_allclose(law.mean, every.mean(axis=0), rtol=0, atol=1e-12)
    np.testing.assert_allclose(law.var, every.var(axis=0), rtol=0, atol=1e-12)
    np.testing.assert_allclose(
        law.difference,
        net_benefit(POS, NEG, THRESHOLDS) - net_benefit(POS2, NEG2, THRESHOLDS),
        atol=1e-15,
    )
    assert_law_is(law, every)


def assert_law_is(law, every, levels=(0.001, 0.025, 0.1, 0.5, 0.9, 0.975, 0.999)):
    """``law``'s distribution function at every support point, and its quantiles, are those of
    the equally likely resamples ``every`` (a row each, a column per threshold)."""
    for row, values in enumerate(every.T):
        for v in np.unique(values):
            x = np.full(law.thresholds.shape, v)
            assert law.cdf(x)[row] == pytest.approx(np.mean(values <= v + 1e-12), abs=1e-12)
        for q in levels:
            expected = np.sort(values)[int(np.ceil(q * values.size - 1e-9)) - 1]
            assert law.quantile(q)[row] == pytest.approx(expected, abs=1e-12), (row, q)


#: Seven instances scored by two models: ties within and across the models and classes, a
#: score of 0 (never treated), thresholds at scores; the four cells of discordant instances
#: (treated by one model only, either way, either class) all filled at 0.5, some elsewhere.
SEVEN = {
    "y": np.array([1, 1, 1, 1, 0, 0, 0]),
    "p1": np.array([0.9, 0.6, 0.6, 0.0, 0.7, 0.3, 0.6]),
    "p2": np.array([0.4, 0.6, 0.8, 0.55, 0.2, 0.6, 0.6]),
    "t": np.array([0.0, 0.25, 0.3, 0.5, 0.6, 0.65, 0.85]),
}


def enumerated_full_difference(y, p1, p2, t):
    """Every full-bootstrap resample's NB1 - NB2 (rows) at each threshold (columns): the sum of
    its instances' ``(treated by 1) - (treated by 2)``, ``-k`` times that for a negative, over
    all ``n^n`` sequences of draws."""
    n, k = y.size, odds(t)
    treated = [(p[:, None] >= t) & (p[:, None] != 0) for p in (p1, p2)]
    share = (treated[0].astype(float) - treated[1]) * np.where(y[:, None] == 1, 1.0, -k) / n
    draws = np.array(list(itertools.product(range(n), repeat=n)), dtype=np.int8)
    return np.stack([share[draws, j].sum(axis=1) for j in range(t.size)], axis=1)


def test_the_full_difference_law_is_the_enumeration_of_seven_instances():
    y, p1, p2, t = SEVEN["y"], SEVEN["p1"], SEVEN["p2"], SEVEN["t"]
    law = net_benefit_difference_distribution(
        p1[y == 1], p2[y == 1], p1[y == 0], p2[y == 0], t, bootstrap="full"
    )
    every = enumerated_full_difference(y, p1, p2, t)  # 823543 resamples
    np.testing.assert_allclose(law.mean, every.mean(axis=0), rtol=0, atol=1e-12)
    np.testing.assert_allclose(law.var, every.var(axis=0), rtol=0, atol=1e-12)
    levels = (0.001, 0.025, 0.025 - 1e-12, 0.1, 0.5, 0.9, 0.975, 0.975 - 1e-12, 0.999, 1.0)
    assert_law_is(law, every, levels)


def full_difference_support(cells, n: int, k: float):
    """Every support point of ``n (NB1* - NB2*)`` under the full bootstrap, sorted, with its
    probability, by brute force on the whole range: the sum over the positives' discordant
    draws ``P = p`` of ``Pr{P = p} Pr{A - B = x | p} Pr{C - D = y | p}``, the last itself a sum
    over ``C + D`` of binomial laws (scipy's pmf for each, joined by matrix products)."""
    a, b, c, d = cells
    x, s = np.arange(-n, n + 1), np.arange(n + 1)

    def split(share):  # Pr{E - F = x | E + F = s}, E ~ Bin(s, share): x = 2E - s
        return stats.binom.pmf((x[None, :] + s[:, None]) / 2, s[:, None], share)

    discordant = stats.binom.pmf(s, n, (a + b) / n)  # P = s
    others = stats.binom.pmf(s[None, :], n - s[:, None], (c + d) / max(n - a - b, 1))
    shares = [e / (e + f) if e + f else 0.0 for e, f in ((a, b), (c, d))]
    joint = (discordant[:, None] * split(shares[0])).T @ (others @ split(shares[1]))
    held = joint > 0
    values = (x[:, None] - k * x[None, :])[held]
    order = np.argsort(values, kind="stable")
    return values[order], joint[held][order]


def test_the_full_difference_quantiles_are_the_sorted_support_s():
    """A few hundred instances, thresholds from 0.01 to 0.99: every quantile of the full
    bootstrap's NB1 - NB2 is the brute force's support point (its outer count spans several of
    the compiled reading's blocks), at the intervals' levels and in the tails."""
    rng = np.random.default_rng(20261130)
    y = np.r_[np.ones(110), np.zeros(150)]
    z = np.r_[rng.normal(1.0, 1.0, 110), rng.normal(-1.0, 1.0, 150)]
    p1, p2 = (1 / (1 + np.exp(-(z + rng.normal(0, 0.7, z.size)))) for _ in range(2))
    t = np.array([0.01, 0.1, 1 / 3, 0.5, 0.6, 0.9, 0.99])
    pos, neg = y == 1, y == 0
    law = net_benefit_difference_distribution(
        p1[pos], p2[pos], p1[neg], p2[neg], t, bootstrap="full"
    )
    mean, var, _ = law._lattice.cumulants  # its search's first guess: the law's own moments
    np.testing.assert_allclose([mean, var], [law.mean * y.size, law.var * y.size**2], rtol=1e-12)
    levels = (0.001, 0.025, 0.025 - 1e-12, 0.3, 0.5, 0.975, 0.975 - 1e-12, 0.999)
    ours = np.array([law.quantile(q) for q in levels]).T * y.size
    for row, k in enumerate(odds(t)):
        cells = [int(c[row]) for c in law._counts]
        values, p = full_difference_support(cells, y.size, k)
        expected = [values[first_reaching(p, q)] for q in levels]
        np.testing.assert_allclose(ours[row], expected, rtol=0, atol=1e-9, err_msg=f"t={t[row]}")


def test_a_seeded_monte_carlo_full_bootstrap_agrees_on_the_difference():
    """A full bootstrap of 4000 resamples of a few hundred instances scored by two correlated
    models: the exact law's mean and variance within 4 Monte Carlo standard errors, and the
    share of resamples at or below each exact 2.5% and 97.5% quantile within 4 of its own."""
    rng = np.random.default_rng(20261130)
    y = np.r_[np.ones(300), np.zeros(500)]
    z = np.r_[rng.normal(0.8, 1.0, 300), rng.normal(-0.8, 1.0, 500)]
    p1, p2 = (1 / (1 + np.exp(-(z + rng.normal(0, 0.7, z.size)))) for _ in range(2))
    t = np.array([0.1, 0.3, 0.5, 0.7])
    law = net_benefit_difference_distribution(
        p1[y == 1], p2[y == 1], p1[y == 0], p2[y == 0], t, bootstrap="full"
    )
    draws = 4000
    k = odds(t)
    share = ((p1[:, None] >= t).astype(float) - (p2[:, None] >= t)) / y.size
    share *= np.where(y[:, None] == 1, 1.0, -k)
    every = rng.integers(0, y.size, (draws, y.size))
    nb = np.stack([share[every, j].sum(axis=1) for j in range(t.size)], axis=1)
    assert np.all(np.abs(nb.mean(axis=0) - law.mean) < 4 * np.sqrt(law.var / draws))
    # the sample variance's relative Monte Carlo error is about sqrt(2 / draws)
    assert np.all(np.abs(nb.var(axis=0) / law.var - 1) < 4 * np.sqrt(2 / draws))
    for q in (0.025, 0.975):
        share_below = (nb <= law.quantile(q)[None, :] + 1e-12).mean(axis=0)
        exact = law.cdf(law.quantile(q))
        assert np.all(np.abs(share_below - exact) < 4 * np.sqrt(q * (1 - q) / draws))


def test_compare_net_benefit_reads_the_difference_law():
    y = np.r_[np.ones(POS.size), np.zeros(NEG.size)]
    p1, p2 = np.r_[POS, NEG], np.r_[POS2, NEG2]
    cmp = rocsim.compare_net_benefit(
        y, p1, p2, thresholds=THRESHOLDS[1:], confidence_level=0.9, method="percentile"
    )
    options = dict(thresholds=THRESHOLDS[1:], confidence_level=0.9, bootstrap="stratified")
    one = rocsim.net_benefit_ci(y, p1, method="percentile", **options)
    two = rocsim.net_benefit_ci(y, p2, method="percentile", **options)
    np.testing.assert_allclose(cmp.difference, one.net_benefit - two.net_benefit, atol=1e-15)
    law = net_benefit_difference_distribution(POS, POS2, NEG, NEG2, THRESHOLDS[1:])
    np.testing.assert_array_equal(cmp.low, law.ci(0.9).low)
    # treat-all is fixed under the stratified bootstrap: a model over it is its own law shifted
    np.testing.assert_allclose(cmp.vs_all1, one.net_benefit - one.treat_all, atol=1e-15)
    np.testing.assert_allclose(cmp.vs_all1_low, one.net_benefit_low - one.treat_all, atol=1e-12)
    np.testing.assert_allclose(cmp.vs_all2_high, two.net_benefit_high - two.treat_all, atol=1e-12)
    columns = ["threshold", "net_benefit1", "net_benefit2", "difference", "low", "high"]
    assert list(cmp.to_frame().columns[:6]) == columns


def test_the_full_bootstrap_difference_takes_both_methods():
    """compare_net_benefit under the full bootstrap: the percentile interval is the exact
    law's quantiles (both read in one search, the same as one at a time), Wald its moments."""
    y = np.r_[np.ones(POS.size), np.zeros(NEG.size)]
    p1, p2 = np.r_[POS, NEG], np.r_[POS2, NEG2]
    options = dict(thresholds=THRESHOLDS[1:], confidence_level=0.9, bootstrap="full")
    cmp = rocsim.compare_net_benefit(y, p1, p2, method="percentile", **options)
    law = net_benefit_difference_distribution(
        POS, POS2, NEG, NEG2, THRESHOLDS[1:], bootstrap="full"
    )
    np.testing.assert_array_equal(cmp.low, law.quantile(0.05 - 1e-12))
    np.testing.assert_array_equal(cmp.high, law.quantile(0.95 - 1e-12))
    assert cmp.method == "percentile" and cmp.bootstrap == "full"
    # a model against treat-all: the same law, the second model treating everyone
    default = rocsim.compare_net_benefit(
        y, p1, p2, thresholds=[0.5], bootstrap="full", method="percentile"
    )
    everyone = net_benefit_difference_distribution(
        POS, np.ones(POS.size), NEG, np.ones(NEG.size), [0.5], bootstrap="full"
    )
    assert default.vs_all1_low[0] == everyone.quantile(0.025 - 1e-12)[0]
    cmp = rocsim.compare_net_benefit(y, p1, p2, bootstrap="full", method="wald", thresholds=[0.5])
    law = net_benefit_difference_distribution(POS, POS2, NEG, NEG2, [0.5], bootstrap="full")
    half = 1.959963984540054 * np.sqrt(law.var)
    np.testing.assert_allclose(cmp.low, law.difference - half, atol=1e-12)


def test_agresti_adds_pseudo_counts_to_every_cell():
    """By hand: TP = 2 of 3, FP = 1 of 2 at t = 0.5 (k = 1), two pseudo-counts per cell:
    TPR' = 4/7, FPR' = 3/6, NB' = (3 TPR' - 2 FPR') / 5 and
    Var = (9 TPR'(1 - TPR') / 7 + 4 FPR'(1 - FPR') / 6) / 25; none is Wald."""
    law = net_benefit_distribution([0.9, 0.6, 0.3], [0.7, 0.2], [0.5])
    ci = law.ci(0.9, "agresti")
    tpr, fpr = 4 / 7, 3 / 6
    assert ci.law.mean[0] == pytest.approx((3 * tpr - 2 * fpr) / 5, abs=1e-15)
    var = (9 * tpr * (1 - tpr) / 7 + 4 * fpr * (1 - fpr) / 6) / 25
    assert ci.law.var[0] == pytest.approx(var, abs=1e-15)
    for bootstrap in ("stratified", "full"):
        law = net_benefit_distribution(POS, NEG, THRESHOLDS, bootstrap=bootstrap)
        none = law.ci(0.9, "agresti", pseudo_count=0)
        np.testing.assert_allclose(none.low, law.ci(0.9, "wald").low, atol=1e-15)
    with pytest.raises(ValueError, match="pseudo_count applies to method='agresti' only"):
        law.ci(0.9, "wald", pseudo_count=1)


@pytest.mark.parametrize("bootstrap", ["stratified", "full"])
def test_the_default_difference_interval_is_not_a_point_where_few_instances_disagree(bootstrap):
    """Regression: where the two models treat the same instances but one, the plug-in law of
    NB1 - NB2 lies on one side of 0 and its intervals missed the true differences on the
    other (the lowest coverage of the net_benefit_difference study, at t = 0.05); the default
    reads the moments after two pseudo-counts in every cell of the paired tables."""
    rng = np.random.default_rng(4)
    y = np.r_[np.ones(60), np.zeros(140)]
    p1 = rng.uniform(0.2, 0.9, 200)
    p2 = p1.copy()
    p2[0] = 0.01  # one positive the second model does not treat at t = 0.05
    default = rocsim.compare_net_benefit(y, p1, p2, thresholds=[0.05], bootstrap=bootstrap)
    plug_in = rocsim.compare_net_benefit(
        y, p1, p2, thresholds=[0.05], bootstrap=bootstrap, method="percentile"
    )
    # no instance treated by the second model only: the plug-in law never goes below 0
    assert plug_in.low[0] == 0.0
    assert default.low[0] < -0.01 and default.high[0] > plug_in.high[0]
    assert default.method == "agresti"
