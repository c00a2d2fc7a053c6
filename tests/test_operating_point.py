"""Metrics at an operating point: each metric's exact law (conditional on it being defined)
and its undefined share equal the enumeration of every stratified resample on tiny data, at a
fixed threshold and at a fixed FPR or TPR (the threshold moving with the resample)."""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats
from study_conditions import study_conditions

import rocsim
from rocsim.core.operating_point import METRICS, metric_values, operating_point_distribution

POS = np.array([0.9, 0.6, 0.45, 0.3])
NEG = np.array([0.7, 0.2, 0.45, 0.5])


def resamples():
    """Every stratified resample of (POS, NEG), equally likely."""
    for i in itertools.product(range(POS.size), repeat=POS.size):
        for j in itertools.product(range(NEG.size), repeat=NEG.size):
            yield POS[list(i)], NEG[list(j)]


def counts_at(point: str, value: float, pos, neg):
    """``(TP, FP)`` of a resample at the operating point."""
    if point == "threshold":
        return np.sum(pos >= value), np.sum(neg >= value)
    if point == "fpr":  # the r-th largest resampled negative is the threshold
        r = int(np.clip(np.rint(value * neg.size), 1, neg.size - 1))
        t = np.sort(neg)[::-1][r - 1]
        return np.sum(pos >= t), r
    k = int(np.clip(np.rint(value * pos.size), 1, pos.size - 1))
    t = np.sort(pos)[::-1][k - 1]  # the k-th largest resampled positive
    return k, np.sum(neg >= t)


@pytest.mark.parametrize(
    ("point", "value"), [("threshold", 0.45), ("threshold", 0.65), ("fpr", 0.25), ("tpr", 0.5)]
)
@pytest.mark.parametrize("prevalence", [None, 0.1])
def test_every_law_is_the_enumeration_of_every_resample(point, value, prevalence):
    law = operating_point_distribution(POS, NEG, **{point: value}, prevalence=prevalence)
    counts = np.array([counts_at(point, value, p, q) for p, q in resamples()])
    for metric in METRICS:
        values, defined = metric_values(
            metric, counts[:, 0], counts[:, 1], POS.size, NEG.size, prevalence
        )
        mine = law[metric]
        assert mine.undefined == pytest.approx(1 - defined.mean(), abs=1e-12), metric
        kept = values[defined]
        if not kept.size:
            continue
        assert mine.mean == pytest.approx(kept.mean(), abs=1e-12), metric
        assert mine.var == pytest.approx(kept.var(), abs=1e-12), metric
        for q in (0.025, 0.1, 0.5, 0.9, 0.975):
            expected = np.sort(kept)[int(np.ceil(q * kept.size - 1e-9)) - 1]
            assert mine.quantile(q) == pytest.approx(expected, abs=1e-12), (metric, q)


@pytest.mark.parametrize(("point", "value"), [("fpr", 0.25), ("tpr", 0.5)])
def test_a_full_approx_law_is_the_enumeration_of_its_resamples(point, value):
    """``full_approx`` at a fixed FPR or TPR is the exact law of its own scheme: every
    stratified resample's rates read at every prevalence ``k / n``, ``k ~ Bin(n, n+ / n)``
    (PPV and NPV by Bayes' rule, accuracy the weighted rates); the other metrics keep their
    stratified laws."""
    law = operating_point_distribution(POS, NEG, **{point: value}, bootstrap="full_approx")
    stratified = operating_point_distribution(POS, NEG, **{point: value})
    counts = np.array([counts_at(point, value, p, q) for p, q in resamples()], dtype=float)
    n = POS.size + NEG.size
    k = np.arange(n + 1)
    weight = np.repeat(stats.binom.pmf(k, n, POS.size / n), len(counts))
    share = np.repeat(k / n, len(counts))
    tpr, fpr = (np.tile(counts[:, c], k.size) / size for c, size in ((0, POS.size), (1, NEG.size)))
    with np.errstate(divide="ignore", invalid="ignore"):
        formulas = {
            "ppv": share * tpr / (share * tpr + (1 - share) * fpr),
            "npv": (1 - share) * (1 - fpr) / ((1 - share) * (1 - fpr) + share * (1 - tpr)),
            "accuracy": share * tpr + (1 - share) * (1 - fpr),
        }
    for metric in METRICS:
        mine = law[metric]
        if metric not in formulas:
            assert mine.values.tolist() == stratified[metric].values.tolist(), metric
            assert mine.probs.tolist() == stratified[metric].probs.tolist(), metric
            continue
        values = formulas[metric]
        defined = np.isfinite(values)
        assert mine.undefined == pytest.approx(weight[~defined].sum() / weight.sum(), abs=1e-12)
        kept, w = values[defined], weight[defined] / weight[defined].sum()
        mean = w @ kept
        assert mine.mean == pytest.approx(mean, abs=1e-12), metric
        assert mine.var == pytest.approx(w @ (kept - mean) ** 2, abs=1e-12), metric
        order = np.argsort(kept, kind="stable")
        running = np.cumsum(w[order])
        for q in (0.025, 0.1, 0.5, 0.9, 0.975):
            expected = kept[order][np.searchsorted(running, q - 1e-12)]
            assert mine.quantile(q) == pytest.approx(expected, abs=1e-12), (metric, q)


def full_resamples(pos: np.ndarray, neg: np.ndarray):
    """Every full bootstrap resample of the instances together (equally likely): each one's
    positives' and negatives' scores."""
    scores, positive = np.r_[pos, neg], np.r_[np.ones(pos.size, bool), np.zeros(neg.size, bool)]
    n = scores.size
    drawn = np.indices((n,) * n).reshape(n, -1).T
    return scores[drawn], positive[drawn]


@pytest.mark.parametrize("t", [0.45, 0.65])
@pytest.mark.parametrize("prevalence", [None, 0.1])
def test_every_full_bootstrap_law_is_the_enumeration_of_every_resample(t, prevalence):
    """The full bootstrap (the class counts random): every metric's law and undefined share
    equal those of all 7^7 = 823,543 resamples of 7 instances, a metric undefined where a
    resample has no instance of a class it needs."""
    pos, neg = POS, NEG[:3]
    law = operating_point_distribution(
        pos, neg, threshold=t, bootstrap="full", prevalence=prevalence
    )
    scores, positive = full_resamples(pos, neg)
    reached = scores >= t
    tp, fp = np.sum(reached & positive, 1), np.sum(reached & ~positive, 1)
    n_pos = positive.sum(1)
    for metric in METRICS:
        with np.errstate(divide="ignore", invalid="ignore"):
            values, defined = metric_values(metric, tp, fp, n_pos, 7 - n_pos, prevalence)
        mine = law[metric]
        assert mine.undefined == pytest.approx(1 - defined.mean(), abs=1e-12), metric
        kept = values[defined]
        assert mine.mean == pytest.approx(kept.mean(), abs=1e-12), metric
        assert mine.var == pytest.approx(kept.var(), abs=1e-12), metric
        for q in (0.025, 0.1, 0.5, 0.9, 0.975):
            expected = np.sort(kept)[int(np.ceil(q * kept.size - 1e-9)) - 1]
            assert mine.quantile(q) == pytest.approx(expected, abs=1e-12), (metric, q)
    assert law.bootstrap == "full"


@pytest.mark.parametrize("a", [0.5, 2.0])
def test_a_full_bootstrap_pseudo_count_law_is_the_image_of_the_adjusted_multinomial(a):
    """With a pseudo-count the full bootstrap's four cells draw with shares ``(cell + a) /
    (n + 4a)``: every metric's law is the image of that multinomial on all its tables."""
    pos, neg, t = POS, NEG, 0.45
    tp, fp = np.sum(pos >= t), np.sum(neg >= t)
    shares = np.array([tp, pos.size - tp, fp, neg.size - fp]) + a
    n = pos.size + neg.size
    tables = np.array([c for c in itertools.product(range(n + 1), repeat=4) if sum(c) == n])
    weight = stats.multinomial.pmf(tables, n, shares / shares.sum())
    law = operating_point_distribution(pos, neg, threshold=t, bootstrap="full", pseudo_count=a)
    n_pos = tables[:, 0] + tables[:, 1]
    for metric in METRICS:
        values, defined = metric_values(metric, tables[:, 0], tables[:, 2], n_pos, n - n_pos)
        kept, w = values[defined], weight[defined]
        assert law[metric].undefined == pytest.approx(1 - w.sum(), abs=1e-12), metric
        assert law[metric].mean == pytest.approx(kept @ w / w.sum(), rel=1e-10), metric
        order = np.argsort(kept, kind="stable")
        running = np.cumsum(w[order]) / w.sum()
        for q in (0.025, 0.5, 0.975):
            expected = kept[order][np.searchsorted(running, q - 1e-12)]
            assert law[metric].quantile(q) == pytest.approx(expected, abs=1e-12), (metric, q)


def test_a_seeded_monte_carlo_full_bootstrap_agrees_at_a_threshold():
    """On realistic data (120 + 150 instances, 4000 seeded resamples) the full bootstrap's
    moments and quantiles agree with the exact laws within their Monte Carlo error."""
    rng = np.random.default_rng(17)
    pos, neg = rng.normal(1.0, 1.0, 120), rng.normal(0.0, 1.0, 150)
    scores, positive = np.r_[pos, neg], np.r_[np.ones(120, bool), np.zeros(150, bool)]
    law = operating_point_distribution(pos, neg, threshold=0.6, bootstrap="full")
    draws = 4000
    drawn = rng.integers(0, scores.size, (draws, scores.size))
    reached, is_pos = scores[drawn] >= 0.6, positive[drawn]
    tp, fp = np.sum(reached & is_pos, 1), np.sum(reached & ~is_pos, 1)
    n_pos = is_pos.sum(1)
    for metric in METRICS:
        values, defined = metric_values(metric, tp, fp, n_pos, scores.size - n_pos)
        mc, exact = values[defined], law[metric]
        assert abs(mc.mean() - exact.mean) < 4 * np.sqrt(exact.var / draws), metric
        # the sample variance's standard error from the law's fourth moment (LR+ is
        # heavy-tailed: sqrt(2 / draws) holds for normal draws only)
        fourth = exact.probs @ (exact.values - exact.mean) ** 4
        se_var = np.sqrt((fourth / exact.var**2 - 1) / draws)
        assert abs(mc.var() / exact.var - 1) < 4 * se_var, metric
        for q in (0.025, 0.975):
            # the MC quantile is a support point: the exact law's probability just below it
            # and at it bracket q, give or take 4 Monte Carlo standard errors
            bound, se = np.quantile(mc, q, method="inverted_cdf"), np.sqrt(q * (1 - q) / draws)
            below, at = exact.cdf(np.nextafter(bound, -np.inf)), exact.cdf(bound)
            assert below <= q + 4 * se and at >= q - 4 * se, (metric, q, below, at)


def test_the_default_on_cohort_data_holds_the_true_ppv_where_the_stratified_law_misses():
    """Regression: on cohort test sets (the prevalence random) the stratified bootstrap keeps
    the class sizes, so its PPV interval ignores the prevalence's spread and missed the true
    PPV about a quarter of the time (``operating_point_full`` study); at a threshold the
    default (``auto``) now reads PPV, NPV and accuracy, which move with the prevalence, on the
    full bootstrap (the instances resampled together)."""
    rng = np.random.default_rng(12)
    mu, pi, t, n, sets = 1.5, 0.3, 0.0, 400, 200
    from rocsim.studies.decision import true_metric

    truth = true_metric("ppv", mu, pi, np.array([t]))[0]
    held = {"default": 0, "stratified": 0}
    for _ in range(sets):
        y = rng.random(n) < pi
        s = rng.normal(np.where(y, mu, 0.0), 1.0)
        for name, options in (("default", {}), ("stratified", {"bootstrap": "stratified"})):
            row = rocsim.operating_point_ci(y, s, threshold=t, metrics=["ppv"], **options)
            frame = row.to_frame()
            held[name] += bool(frame["low"][0] <= truth <= frame["high"][0])
    assert held["default"] / sets > 0.92 and held["stratified"] / sets < 0.88, held
    assert row.law["ppv"].bootstrap == "stratified"
    laws = rocsim.operating_point_ci(y, s, threshold=t).law.laws
    assert {m for m, law in laws.items() if law.bootstrap == "full"} == {"ppv", "npv", "accuracy"}
    laws = rocsim.operating_point_ci(y, s, threshold=t, prevalence=0.1).law.laws
    assert {m for m, law in laws.items() if law.bootstrap == "full"} == {"accuracy"}
    law = rocsim.operating_point_ci(y, s, fpr=0.2).law
    assert "(stratified bootstrap, full_approx for ppv, npv, accuracy," in str(law)
    laws = law.laws
    approx = {m for m, law in laws.items() if law.bootstrap == "full_approx"}
    assert approx == {"ppv", "npv", "accuracy"}
    assert {laws[m].bootstrap for m in set(laws) - approx} == {"stratified"}


def test_the_default_at_a_fixed_fpr_on_cohort_data_holds_the_true_ppv():
    """Regression: at a fixed FPR the default read PPV, NPV and accuracy on the stratified
    law, which keeps the class sizes; on cohort test sets its PPV interval held the true PPV
    0.59-0.67 of the time (a cohort variant of the ``operating_point_fpr`` study). The full
    bootstrap is not built there (the threshold is a rank within a class), so the default now
    reads them on its approximation, ``full_approx``: the rates' law at a drawn prevalence."""
    rng = np.random.default_rng(31)
    mu, pi, fpr, n, sets = 1.466, 0.3, 0.3, 400, 200
    from rocsim.studies.decision import true_metric

    truth = true_metric("ppv", mu, pi, special.ndtri([1 - fpr]))[0]
    held = {"default": 0, "stratified": 0}
    for _ in range(sets):
        y = rng.random(n) < pi
        s = rng.normal(np.where(y, mu, 0.0), 1.0)
        for name, options in (("default", {}), ("stratified", {"bootstrap": "stratified"})):
            frame = rocsim.operating_point_ci(y, s, fpr=fpr, metrics=["ppv"], **options).to_frame()
            held[name] += bool(frame["low"][0] <= truth <= frame["high"][0])
    assert held["default"] / sets > 0.92 and held["stratified"] / sets < 0.8, held


def _rate_resample_counts(pos, neg, at: str, rate: float, drawn, positive):
    """``(TP*, FP*, N+*, N-*)`` of full bootstrap resamples (rows of ``drawn``) at a fixed FPR
    (the ``r``-th largest resampled negative the threshold, ``r = rint(rate N-*)`` kept inside
    ``1 .. N-* - 1``) or TPR (the classes exchanged); rows with a class under 2 dropped."""
    scores = np.r_[pos, neg][drawn]
    is_pos = positive[drawn]
    n_pos = is_pos.sum(1)
    n_neg = drawn.shape[1] - n_pos
    moving, fixed, size = (is_pos, ~is_pos, n_neg) if at == "fpr" else (~is_pos, is_pos, n_pos)
    rank = np.clip(np.rint(rate * size), 1, size - 1).astype(int)
    ranked = -np.sort(-np.where(fixed, scores, -np.inf), axis=1)
    threshold = ranked[np.arange(len(drawn)), np.maximum(rank - 1, 0)]
    count = np.sum(moving & (scores >= threshold[:, None]), 1)
    keep = (n_pos >= 2) & (n_neg >= 2)
    tp, fp = (count, rank) if at == "fpr" else (rank, count)
    return tp[keep], fp[keep], n_pos[keep], n_neg[keep]


@pytest.mark.parametrize(("at", "rate"), [("fpr", 0.1), ("fpr", 0.3), ("tpr", 0.7)])
def test_full_approx_is_close_to_a_seeded_monte_carlo_full_bootstrap(at, rate):
    """``full_approx`` approximates the full bootstrap at a fixed FPR or TPR (its rates' laws
    keep the data's class sizes): on 120 + 280 instances its standard deviations lie within
    3% of a seeded Monte Carlo full bootstrap's (4000 resamples) and its 2.5%, 50% and 97.5%
    quantiles within 0.15 of them, each give or take 4 Monte Carlo standard errors; the
    stratified law's PPV standard deviation is under 0.9 of it there."""
    rng = np.random.default_rng(41)
    pos, neg = rng.normal(1.466, 1.0, 120), rng.normal(0.0, 1.0, 280)
    positive = np.r_[np.ones(pos.size, bool), np.zeros(neg.size, bool)]
    draws = 4000
    drawn = rng.integers(0, positive.size, (draws, positive.size))
    tp, fp, n_pos, n_neg = _rate_resample_counts(pos, neg, at, rate, drawn, positive)
    metrics = ["ppv", "npv", "accuracy"]
    laws = {
        boot: operating_point_distribution(pos, neg, **{at: rate}, metrics=metrics, bootstrap=boot)
        for boot in ("full_approx", "stratified")
    }
    for metric in metrics:
        values, defined = metric_values(metric, tp, fp, n_pos, n_neg)
        mc, law = values[defined], laws["full_approx"][metric]
        sd = mc.std()
        assert abs(np.sqrt(law.var) / sd - 1) < 0.03 + 4 / np.sqrt(2 * draws), metric
        for q in (0.025, 0.5, 0.975):
            # the Monte Carlo quantile's standard error, in standard deviations
            se = np.sqrt(q * (1 - q) / draws) / stats.norm.pdf(stats.norm.ppf(q))
            gap = (law.quantile(q) - np.quantile(mc, q, method="inverted_cdf")) / sd
            assert abs(gap) < 0.15 + 4 * se, (metric, q, gap)
        if metric == "ppv":
            assert np.sqrt(laws["stratified"][metric].var) / sd < 0.9


def test_the_data_s_values_and_the_frame():
    y = np.r_[np.ones(POS.size), np.zeros(NEG.size)]
    result = rocsim.operating_point_ci(y, np.r_[POS, NEG], threshold=0.45)
    frame = result.to_frame()
    assert list(frame.columns) == ["metric", "value", "low", "high", "undefined"]
    assert list(frame["metric"]) == list(METRICS)
    value = dict(zip(frame["metric"], frame["value"]))
    tp, fp = 3, 3  # positives and negatives scoring >= 0.45
    assert value["sensitivity"] == tp / 4 and value["specificity"] == 1 - fp / 4
    assert value["ppv"] == tp / (tp + fp) and value["npv"] == 1 / 2  # TN = 1, FN = 1
    assert value["lr_pos"] == pytest.approx((3 / 4) / (3 / 4))
    assert value["youden"] == pytest.approx(0.0)
    assert np.all(frame["low"] <= frame["high"])
    ranges = rocsim.core.operating_point.RANGES
    for metric, low, high in zip(frame["metric"], frame["low"], frame["high"]):
        assert ranges[metric][0] <= low and high <= ranges[metric][1]
    assert result.law["ppv"].mean == pytest.approx(
        operating_point_distribution(POS, NEG, threshold=0.45)["ppv"].mean
    )


def test_a_seeded_monte_carlo_bootstrap_agrees_at_a_fixed_fpr():
    rng = np.random.default_rng(7)
    pos, neg = rng.normal(1.0, 1.0, 120), rng.normal(0.0, 1.0, 150)
    law = operating_point_distribution(pos, neg, fpr=0.2)
    draws, values = 4000, []
    for _ in range(draws):
        p, q = rng.choice(pos, pos.size), rng.choice(neg, neg.size)
        tp, fp = counts_at("fpr", 0.2, p, q)
        values.append(metric_values("ppv", tp, fp, pos.size, neg.size)[0])
    values = np.array(values, dtype=float)
    se = np.sqrt(law["ppv"].var / draws)
    assert abs(values.mean() - law["ppv"].mean) < 4 * se
    assert abs(values.var() / law["ppv"].var - 1) < 4 * np.sqrt(2 / draws)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "give exactly one of threshold, fpr, tpr"),
        ({"threshold": 0.5, "fpr": 0.1}, "got fpr, threshold"),
        ({"fpr": 1.0}, "fpr must lie strictly between 0 and 1"),
        ({"threshold": 0.5, "metrics": ["f1"]}, "unknown metric 'f1'"),
        ({"fpr": 0.5, "bootstrap": "full"}, "bootstrap='full' is built at a threshold only"),
        ({"threshold": 0.5, "bootstrap": "full_approx"}, "at a threshold the full bootstrap"),
        ({"threshold": 0.5, "bootstrap": "paired"}, "unknown bootstrap 'paired'"),
        ({"threshold": 0.5, "prevalence": 2}, "prevalence"),
        ({"threshold": 0.5, "method": "nope"}, "unknown operating point method 'nope'"),
        ({"threshold": 0.5, "method": "wald", "pseudo_count": 1}, "pseudo_count applies to"),
        ({"threshold": 0.5, "method": "agresti", "pseudo_count": -1}, "pseudo_count must be"),
    ],
)
def test_bad_input_names_the_argument(options, message):
    y = np.r_[np.ones(POS.size), np.zeros(NEG.size)]
    with pytest.raises(ValueError, match=message):
        rocsim.operating_point_ci(y, np.r_[POS, NEG], **options)


PROC = Path(__file__).parent / "data" / "proc"


def test_metrics_at_thresholds_match_proc_ci_coords():
    """pROC 1.18's ``ci.coords`` on aSAH's s100b (stored with the R call in
    ``tests/data/proc/ci_coords.json``): the same point values, and each of pROC's B = 20000
    replicate quantiles is a quantile of the exact law to within its Monte Carlo error (the
    exact distribution function just below and at pROC's bound brackets the tail probability,
    give or take 4 Monte Carlo standard errors)."""
    stored = json.loads((PROC / "ci_coords.json").read_text())["s100b"]
    data = pd.read_csv(PROC / "asah.csv")
    positive = (data["outcome"] == "Poor").to_numpy()
    pos, neg = data["s100b"].to_numpy()[positive], data["s100b"].to_numpy()[~positive]
    se = {q: 4 * np.sqrt(q * (1 - q) / stored["boot_n"]) for q in (0.025, 0.975)}
    for row, t in enumerate(stored["threshold"]):
        law = operating_point_distribution(pos, neg, threshold=t)
        for metric in ("sensitivity", "specificity", "ppv", "npv", "accuracy", "youden"):
            theirs = stored[metric]
            shift = 1.0 if metric == "youden" else 0.0  # pROC's youden is sens + spec
            assert law[metric].value + shift == pytest.approx(theirs["value"][row], abs=1e-12)
            for q, key in ((0.025, "lower_2.5"), (0.975, "upper_97.5")):
                bound = theirs[key][row] - shift
                below = law[metric].cdf(bound - 1e-9)
                at = law[metric].cdf(bound + 1e-9)
                assert below <= q + se[q] and at >= q - se[q], (t, metric, key, below, at)


def test_the_default_interval_holds_more_than_a_point_where_a_rate_is_1():
    """Regression: with every positive above the threshold the plug-in law of sensitivity
    (and of NPV, LR-) is a point mass, so its intervals were ``[1, 1]`` (``[0, 0]``) and missed
    every true value below; the default reads the law after pseudo-counts."""
    rng = np.random.default_rng(3)
    pos, neg = rng.normal(3.0, 1.0, 50), rng.normal(0.0, 1.0, 100)
    y, s = np.r_[np.ones(50), np.zeros(100)], np.r_[pos, neg]
    frame = rocsim.operating_point_ci(y, s, threshold=pos.min()).to_frame().set_index("metric")
    assert frame.loc["sensitivity", "value"] == 1.0
    assert frame.loc["sensitivity", "low"] < 0.95 and frame.loc["sensitivity", "high"] == 1.0
    assert frame.loc["npv", "low"] < 0.95 and frame.loc["lr_neg", "high"] > 0.01
    plug_in = rocsim.operating_point_ci(y, s, threshold=pos.min(), method="percentile")
    assert plug_in.to_frame().set_index("metric").loc["sensitivity", "low"] == 1.0


@pytest.mark.parametrize("a", [0.5, 2.0])
def test_a_pseudo_count_law_at_a_threshold_is_the_image_of_the_adjusted_binomials(a):
    rng = np.random.default_rng(11)
    pos, neg = rng.normal(1.0, 1.0, 30), rng.normal(0.0, 1.0, 40)
    t = 0.4
    tp, fp = np.sum(pos >= t), np.sum(neg >= t)
    law = operating_point_distribution(pos, neg, threshold=t, pseudo_count=a)
    x, y = np.arange(31)[:, None], np.arange(41)[None, :]
    weight = stats.binom.pmf(x, 30, (tp + a) / (30 + 2 * a)) * stats.binom.pmf(
        y, 40, (fp + a) / (40 + 2 * a)
    )
    for metric in METRICS:
        values, defined = metric_values(metric, x, y, 30, 40)
        values, kept = values[defined], weight[defined]
        assert law[metric].undefined == pytest.approx(1 - kept.sum(), abs=1e-12), metric
        assert law[metric].mean == pytest.approx(values @ kept / kept.sum(), rel=1e-10)
        # the data's value is the plug-in one, whatever the pseudo-count
        assert law[metric].value == operating_point_distribution(pos, neg, threshold=t)[
            metric
        ].value or np.isnan(law[metric].value)


def test_a_pseudo_count_law_at_a_fixed_fpr_averages_adjusted_binomials_over_resamples():
    """At a fixed FPR the threshold is the r-th largest resampled negative: enumerate every
    resample of the negatives, and given it the positives reaching the threshold are
    ``Bin(n+, (n+ q + a) / (n+ + 2a))``, q the share of the data's positives reaching it."""
    a, fpr = 2.0, 0.25
    r = int(np.clip(np.rint(fpr * NEG.size), 1, NEG.size - 1))
    pmf = np.zeros(POS.size + 1)
    resamples_neg = list(itertools.product(NEG, repeat=NEG.size))
    for neg in resamples_neg:
        q = np.mean(POS >= np.sort(neg)[::-1][r - 1])
        share = (POS.size * q + a) / (POS.size + 2 * a)
        pmf += stats.binom.pmf(np.arange(POS.size + 1), POS.size, share)
    pmf /= len(resamples_neg)
    law = operating_point_distribution(POS, NEG, fpr=fpr, pseudo_count=a)["sensitivity"]
    expected = np.arange(POS.size + 1) / POS.size
    assert law.values.tolist() == pytest.approx(expected.tolist())
    assert law.probs.tolist() == pytest.approx(pmf.tolist(), abs=1e-12)


@pytest.mark.parametrize("point", [{"threshold": 0.45}, {"tpr": 0.5}])
def test_an_agresti_interval_from_a_plug_in_law_builds_it_again(point):
    y = np.r_[np.ones(POS.size), np.zeros(NEG.size)]
    direct = rocsim.operating_point_ci(y, np.r_[POS, NEG], method="agresti", **point)
    law = operating_point_distribution(POS, NEG, **point, bootstrap=direct.law.bootstrap)
    again = law.ci(method="agresti")
    pd.testing.assert_frame_equal(direct.to_frame(), again.to_frame())
    assert again.law.pseudo_count == 2.0 and law.pseudo_count == 0.0


@pytest.mark.parametrize("metric", METRICS)
def test_the_study_s_truth_is_the_metric_of_the_population(metric):
    """``true_metric`` against the metric of a very large binormal sample's counts (the same
    function the laws use), within its sampling error."""
    from rocsim.studies.decision import true_metric

    mu, pi, t, n = 1.2, 0.3, 0.4, 4_000_000
    rng = np.random.default_rng(5)
    n_pos = int(pi * n)
    tp = np.sum(rng.normal(mu, 1.0, n_pos) >= t)
    fp = np.sum(rng.normal(0.0, 1.0, n - n_pos) >= t)
    value, _ = metric_values(metric, tp, fp, n_pos, n - n_pos)
    assert true_metric(metric, mu, pi, np.array([t]))[0] == pytest.approx(value, rel=5e-3)


def test_the_operating_point_page_quotes_the_committed_results(page_script):
    writer, written = page_script("write_operating_point_page")
    assert written.strip() == "\n".join(writer.section(writer.DATA / writer.NAME)).strip()
    table = pd.read_csv(writer.DATA / writer.NAME / "coverage.csv")
    assert {"metric", "method", "n", "coverage", "mcse"} <= set(table.columns)
    assert set(table["method"]) == set(rocsim.core.OPERATING_POINT_METHODS)
    assert "Claims:" in written


def test_the_cohort_operating_point_page_quotes_the_committed_results(page_script):
    writer, written = page_script("write_operating_point_full_page")
    assert written.strip() == "\n".join(writer.section(writer.DATA / writer.NAME)).strip()
    table = pd.read_csv(writer.DATA / writer.NAME / "coverage.csv")
    assert set(table["bootstrap"]) == set(table["sampling"]) == {"stratified", "full"}
    assert "Claims:" in written


@pytest.mark.parametrize(
    ("script", "design"),
    [
        ("write_operating_point_fpr_full_page", {"sampling", "bootstrap"}),
        ("write_operating_point_tpr_page", {"sampling"}),
    ],
)
def test_the_fixed_rate_cohort_pages_quote_the_committed_results(page_script, script, design):
    writer, written = page_script(script)
    assert written.strip() == "\n".join(writer.section(writer.DATA / writer.NAME)).strip()
    table = pd.read_csv(writer.DATA / writer.NAME / "coverage.csv")
    assert set(table["sampling"]) == {"stratified", "full"}
    assert design <= set(table.columns) and "Claims:" in written


def test_the_fixed_fpr_operating_point_page_quotes_the_committed_results(page_script):
    writer, written = page_script("write_operating_point_fpr_page")
    assert written.strip() == "\n".join(writer.section(writer.DATA / writer.NAME)).strip()
    table = pd.read_csv(writer.DATA / writer.NAME / "coverage.csv")
    assert table["grid"].eq("fpr").all() and "specificity" not in set(table["metric"])
    assert "Claims:" in written


@pytest.mark.parametrize(
    ("at", "metric", "rates"),
    [("fpr", "sensitivity", [0.1, 0.2, 0.3, 0.4, 0.5]), ("tpr", "specificity", [0.5, 0.7, 0.9])],
)
def test_a_fixed_rate_kind_s_truth_is_the_metric_at_the_population_s_threshold(at, metric, rates):
    """At a fixed FPR the truth is the metric at ``t = Phi^-1(1 - fpr)`` (negatives N(0, 1)),
    at a fixed TPR at ``t = mu - Phi^-1(tpr)`` (positives N(mu, 1)): there the population's
    rate is the grid's, and the metric is the population's sensitivity or specificity."""
    from rocsim.studies import get_kind

    grid = {"name": at, "start": rates[0], "stop": rates[-1], "num": len(rates)}
    (condition,) = study_conditions(
        f"operating_point_{at}",
        {"auc": [0.8], "metric": [metric]},
        method="agresti_hull",
        n=50,
        grid=grid,
    )
    setup = get_kind(f"operating_point_{at}").setup(condition)
    mu = np.sqrt(2) * stats.norm.ppf(0.8)
    assert setup.x.tolist() == pytest.approx(rates)
    if at == "fpr":
        t = stats.norm.isf(setup.x)
        assert stats.norm.sf(t) == pytest.approx(setup.x)
        assert setup.target == pytest.approx(stats.norm.sf(t - mu))  # sensitivity
    else:
        t = mu - stats.norm.ppf(setup.x)
        assert stats.norm.sf(t - mu) == pytest.approx(setup.x)
        assert setup.target == pytest.approx(stats.norm.cdf(t))  # specificity


def test_a_study_of_the_default_passes_auto_to_the_core():
    """A study condition may name the core's own bootstraps (``auto``, ``full_approx``), which
    the config group's schemes do not list; an unknown one is refused, naming it."""
    from rocsim.sim.pipeline import validate_settings
    from rocsim.studies import get_kind

    kind = get_kind("operating_point_tpr")
    settings = {
        "grid": {"name": "tpr", "start": 0.5, "stop": 0.9, "num": 5},
        "method": "agresti_hull",
        "pseudo_count": None,
        "sampling": "stratified",
        "threshold": "oracle",
        "cost_prior": "sample",
        "n": 50,
    }
    for bootstrap in ("auto", "full_approx", "paired"):
        (condition,) = study_conditions(
            "operating_point_tpr",
            {"auc": [0.8], "metric": ["ppv"]},
            bootstrap=bootstrap,
            **settings,
        )
        if bootstrap == "paired":
            with pytest.raises(ValueError, match="unknown bootstrap scheme 'paired'"):
                validate_settings(condition.settings, kind)
            continue
        validate_settings(condition.settings, kind)
        setup = kind.setup(condition)
        data = kind.generate(condition, setup, np.random.default_rng(0))
        assert kind.analyse(condition, setup, data)["cover"].shape == (5,)


@pytest.mark.parametrize("bootstrap", ["stratified", "full"])
@pytest.mark.parametrize("t", [-0.5, 0.3, 1.9])
@pytest.mark.parametrize("prevalence", [0.2, None])
def test_a_quantile_read_near_its_level_is_the_whole_sorted_law_s(t, bootstrap, prevalence):
    """A quantile is searched on the staircase of the law's cells (or along the full
    bootstrap's ratio laws' limits), never making them: the same support point as sorting
    every cell."""
    rng = np.random.default_rng(8)
    pos, neg = rng.normal(1.0, 1.0, 60), rng.normal(0.0, 1.0, 90)
    law = operating_point_distribution(
        pos, neg, threshold=t, pseudo_count=2.0, bootstrap=bootstrap, prevalence=prevalence
    )
    _assert_quantiles_are_the_sorted_law_s(law)


@pytest.mark.parametrize("point", [{"fpr": 0.2}, {"tpr": 0.6}, {"fpr": 0.05}])
@pytest.mark.parametrize("pseudo_count", [0.0, 2.0])
def test_a_full_approx_quantile_is_the_whole_sorted_law_s(point, pseudo_count):
    """``full_approx``'s quantiles are searched by bisection in each prevalence's block: the
    same support point as sorting every cell."""
    rng = np.random.default_rng(9)
    pos, neg = rng.normal(1.0, 1.0, 60), rng.normal(0.0, 1.0, 90)
    law = operating_point_distribution(
        pos, neg, **point, pseudo_count=pseudo_count, bootstrap="full_approx"
    )
    _assert_quantiles_are_the_sorted_law_s(law)


def _assert_quantiles_are_the_sorted_law_s(law) -> None:
    for metric in METRICS:
        one = law[metric]
        values, running = one.values, np.cumsum(one.probs)
        assert one.probs.sum() == pytest.approx(1.0, abs=1e-12)
        assert np.all(np.diff(values) >= 0)
        for p in (1e-6, 0.025 - 1e-12, 0.1, 0.5, 0.9, 0.975 - 1e-12, 1 - 1e-6):
            whole = values[min(np.searchsorted(running, p - 1e-12), values.size - 1)]
            assert one.quantile(p) == whole, (metric, p)


def _largest_count_at_most(v: float, sizes: np.ndarray) -> np.ndarray:
    """Per size ``M``, the largest count ``k`` with ``k / M <= v`` in floating point."""
    k = np.clip(np.floor(v * sizes), 0, sizes).astype(float)
    k += ((k + 1) / sizes <= v) & (k + 1 <= sizes)
    k -= (k / sizes > v) & (k > 0)
    return np.where(v < 0, -1.0, k)


@pytest.mark.parametrize(
    "counts",
    [(40, 13, 60, 55), (7000, 3000, 10000, 10000), (19990, 15, 20000, 20000), (2, 1, 2, 3)],
)
@pytest.mark.parametrize("metric", ["ppv", "npv", "sensitivity", "accuracy"])
def test_a_full_bootstrap_ratio_law_is_its_mixture_of_binomials(counts, metric):
    """Under the full bootstrap PPV (and NPV, sensitivity, specificity, accuracy) is ``H / M``,
    ``M* ~ Bin(n, .)`` and ``H* | M* ~ Bin(M*, .)``. Its distribution function steps along the
    limit ``floor(v M)`` from block to block, never making a block's cells: it equals scipy's
    binomials summed over every ``M``, on 20,000 instances a class and at a PPV of 0.999 too,
    and a walk reads one value per block (the cost regression: it read every cell, ``10^5`` at
    10^3 instances a class, and the default was 4x a Monte Carlo run, not 10x)."""
    tp, fp, n_pos, n_neg = counts
    pos = np.r_[np.ones(tp), np.zeros(n_pos - tp)]
    neg = np.r_[np.ones(fp), np.zeros(n_neg - fp)]
    one = operating_point_distribution(pos, neg, threshold=0.5, bootstrap="full")[metric]
    hits, misses = {
        "ppv": (tp, fp),
        "npv": (n_neg - fp, n_pos - tp),
        "sensitivity": (tp, n_pos - tp),
        "accuracy": (tp + n_neg - fp, fp + n_pos - tp),
    }[metric]
    n = n_pos + n_neg
    share = hits / (hits + misses)
    sizes, margin = (
        np.arange(1, n + 1),
        stats.binom.pmf(np.arange(1, n + 1), n, (hits + misses) / n),
    )
    if metric == "accuracy":  # of all n instances
        sizes, margin = np.array([n]), np.ones(1)
    mean = one.mean
    assert mean == pytest.approx(share, abs=1e-15)
    assert one.var == pytest.approx(
        share * (1 - share) * np.sum(margin / sizes) / np.sum(margin), rel=1e-12
    )
    defined = np.sum(margin)
    for v in np.r_[-0.5, np.linspace(mean - 0.05, mean + 0.05, 41), 1.0]:
        want = np.sum(margin * stats.binom.cdf(_largest_count_at_most(v, sizes), sizes, share))
        assert one.cdf(v) == pytest.approx(want / defined, abs=1e-12), v
    assert one.grid.walk == one.grid.blocks <= 20 * np.sqrt(n) + 1


def test_a_metric_defined_on_every_cell_has_no_undefined_share():
    """Regression: the undefined share was ``1 - (sum of the cells' probabilities)``, a
    rounding residue (``1e-15``) where the metric is defined everywhere; it is the mass of the
    cells where it is not, so exactly 0 there."""
    rng = np.random.default_rng(2)
    law = operating_point_distribution(
        rng.normal(1.0, 1.0, 3000), rng.normal(0.0, 1.0, 3000), threshold=0.5
    )
    assert all(law[metric].undefined == 0.0 for metric in METRICS)


@pytest.mark.parametrize("pseudo_count", [None, 0.5])
def test_the_study_kind_passes_a_config_s_pseudo_count_to_the_core(pseudo_count):
    """The operating point kind's intervals are operating_point_ci's with the config's
    pseudo-count (the method's default when none is given), and its outcomes are cached
    under the pseudo-count as the core resolves it."""
    from rocsim.studies import get_kind

    kind = get_kind("operating_point")
    (condition,) = study_conditions(
        "operating_point",
        {"auc": [0.8], "metric": ["sensitivity"]},
        method="agresti",
        n=30,
        grid={"name": "threshold", "start": 0.0, "stop": 1.0, "num": 3},
        **({} if pseudo_count is None else {"pseudo_count": pseudo_count}),
    )
    setup = kind.setup(condition)
    pos, neg = kind.generate(condition, setup, np.random.default_rng(1))
    outcome = kind.analyse(condition, setup, (pos, neg))
    y = np.r_[np.ones(pos.size), np.zeros(neg.size)]
    for k, t in enumerate(setup.x):
        frame = rocsim.operating_point_ci(
            y,
            np.r_[pos, neg],
            threshold=t,
            metrics=["sensitivity"],
            method="agresti",
            confidence_level=0.9,
            pseudo_count=pseudo_count,
            bootstrap="stratified",
        ).to_frame()
        assert outcome["width"][k] == pytest.approx(frame["high"][0] - frame["low"][0])
    expected = 2.0 if pseudo_count is None else pseudo_count
    assert kind.outcome_settings(condition.settings)["pseudo_count"] == expected


def test_a_page_says_when_its_run_reused_cached_outcomes(page_script, tmp_path):
    """Regression: a run that reused every condition's cached outcomes (a figure redrawn)
    wrote its own second or so as the study's time, so a page said a study of many minutes ran
    in 1 s; the run line now says the outcomes were reused."""
    writer, _ = page_script("write_operating_point_full_page")
    table = pd.read_csv(writer.DATA / writer.NAME / "coverage.csv")
    meta = {"seed": 1, "code_hash": "0" * 16, "wall_seconds": 0.8}
    for computed, reused, expected in (
        (["a", "b"], [], "1 s."),
        ([], ["a", "b"], "1 s (the outcomes of 2 of its 2 conditions reused from an earlier"),
    ):
        meta |= {"computed_conditions": computed, "reused_conditions": reused}
        (tmp_path / "meta.json").write_text(json.dumps(meta))
        assert expected in sys.modules["write_auc_page"].run_line(table, tmp_path)
